//! Test-coverage ingestion: reads the coverage reports that a user produced by running a
//! repository's tests and answers, per function, how often its lines ran (`test_cov_hits`
//! in docs/design.md), how many of its lines ran and how many could have.
//!
//! # Formats
//!
//! [`read_report`] detects the format from the content, never from the file name; a file
//! that starts with the gzip magic bytes (`1f 8b`) is decompressed first. A report larger
//! than the limit (decompressed; [`DEFAULT_MAX_REPORT_BYTES`] unless `mine --max-report-bytes`
//! says otherwise) is refused while it is read, before it fills the memory: a gzip report is
//! inflated in a bounded buffer first, and only one known to fit is kept whole.
//!
//! | format | written by | what is read |
//! |---|---|---|
//! | [`Format::Lcov`] | lcov/geninfo, `llvm-cov export -format=lcov`, coverage.py's `coverage lcov`, `gcovr --lcov` | `SF:` starts a record, `DA:line,hits[,checksum]`, `end_of_record` ends it; every other key (`TN`, `FN*`, `BR*`, `LF`, `LH`, `VER`, ...) is ignored |
//! | [`Format::Cobertura`] | coverage.py's `coverage xml`, `gcovr --xml` | each `<class filename>`'s own `<lines><line number hits>`; the `<lines>` inside `<methods>` repeat those lines and are skipped; `<sources><source>` become [`Report::roots`] |
//! | [`Format::Jacoco`] | JaCoCo's XML report | `<package name><sourcefile name><line nr mi ci>`; the path is `package/sourcefile` |
//! | [`Format::GcovJson`] | `gcov --json-format` (`*.gcov.json.gz`) | `files[].file` and `files[].lines[].{line_number,count}`; `current_working_directory` becomes a root |
//! | [`Format::GcovrJson`] | `gcovr --json` | `files[].file` and `files[].lines[].{line_number,count}`, without lines marked `gcovr/noncode` or `gcovr/excluded` |
//! | [`Format::CoveragePyJson`] | coverage.py's `coverage json` | `files.PATH.executed_lines` (1 hit) and `missing_lines` (0 hits) |
//! | [`Format::GoCoverProfile`] | `go test -coverprofile` | `mode:` then `FILE:L.C,L.C STATEMENTS COUNT` blocks; a line has the largest count of the blocks spanning it |
//!
//! coverage.py records whether a line ran, not how often, in every format it writes: its
//! lines have 1 or 0 hits, so for its reports `test_cov_hits` counts the executed lines.
//!
//! JaCoCo records instructions, not executions: a line has `ci` covered and `mi` missed
//! instructions but no hit count. A JaCoCo line is stored with 1 hit when `ci > 0` and
//! with 0 hits when `ci == 0` and `mi > 0` (a line with neither is not coverable and is
//! skipped), so for a Java report `test_cov_hits` is the number of covered lines of the
//! function, not a number of executions.
//!
//! Within one record of a report, a line listed twice is summed (gcov lists a line once
//! per function that has code on it, and gcov's text output shows the sum), and the lines
//! of a [`FileHits`] are sorted.
//!
//! XML is read with quick-xml, which never reads a DTD: a `DOCTYPE` (JaCoCo's names
//! `report.dtd`, gcovr's a URL) is skipped, nothing is fetched, and an entity that is not
//! one of XML's five predefined ones or a character reference is an error where its value
//! is needed, never expanded.
//!
//! # Mapping report paths onto the repository
//!
//! [`RepoCoverage::build`] maps each report path onto one of the repository's files:
//! `\` becomes `/`, `.` and empty components go, `..` is resolved lexically; the path, then
//! each report root joined with it, is tried with and without the longest matching
//! `--coverage-strip-prefix`; a candidate equal to a repository file wins. Otherwise the
//! repository file that shares the longest run of trailing components with a candidate
//! (at least the file name) is taken when it is the only one at that length, so an
//! absolute build path `/home/ci/build/redis/src/server.c` maps to `src/server.c` and
//! JaCoCo's `org/foo/Foo.java` to `src/main/java/org/foo/Foo.java`. Several files at the
//! best length make the report file ambiguous; none makes it unmapped. Both are counted
//! in [`CoverageStats`] and contribute nothing.

mod cobertura;
mod coveragepy;
mod gcov;
mod gocover;
mod jacoco;
mod lcov;
mod paths;
mod xml;

use std::collections::{BTreeMap, HashMap};
use std::io::Read;
use std::path::{Path, PathBuf};

/// A coverage report format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Format {
    Lcov,
    Cobertura,
    Jacoco,
    GcovJson,
    GcovrJson,
    CoveragePyJson,
    GoCoverProfile,
}

impl Format {
    /// Every format, in the order [`read_report`] names them in errors.
    pub const ALL: [Format; 7] = [
        Format::Lcov,
        Format::Cobertura,
        Format::Jacoco,
        Format::GcovJson,
        Format::GcovrJson,
        Format::CoveragePyJson,
        Format::GoCoverProfile,
    ];

    /// The name used in stats and messages: `lcov`, `cobertura`, `jacoco`, `gcov-json`,
    /// `gcovr-json`, `coveragepy-json`, `go-coverprofile`.
    pub fn name(&self) -> &'static str {
        match self {
            Format::Lcov => "lcov",
            Format::Cobertura => "cobertura",
            Format::Jacoco => "jacoco",
            Format::GcovJson => "gcov-json",
            Format::GcovrJson => "gcovr-json",
            Format::CoveragePyJson => "coveragepy-json",
            Format::GoCoverProfile => "go-coverprofile",
        }
    }
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a report could not be read. Every variant names the report file; a parse error
/// also names the 1-based line (of the decompressed text for a gzip file).
#[derive(Debug, thiserror::Error)]
pub enum CoverageError {
    #[error("{}: cannot read coverage report: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{}: corrupt gzip data: {source}", path.display())]
    Gzip {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A report (after decompression) larger than the limit (`--max-report-bytes`): a
    /// decompression bomb, or a report that would not fit in memory.
    #[error("{}: the report is larger than the limit of {limit} bytes (--max-report-bytes){}, so it is not read", path.display(), if *.compressed { " once decompressed" } else { "" })]
    TooLarge {
        path: PathBuf,
        limit: u64,
        compressed: bool,
    },
    #[error(
        "{}: not a coverage report in a known format ({reason}); known formats: lcov, cobertura, jacoco, gcov-json, gcovr-json, coveragepy-json, go-coverprofile, each optionally gzip-compressed",
        path.display()
    )]
    UnknownFormat { path: PathBuf, reason: String },
    #[error("{}:{line}: {reason}", path.display())]
    Parse {
        path: PathBuf,
        format: Format,
        line: usize,
        reason: String,
    },
}

impl CoverageError {
    /// The report file the error is about.
    pub fn path(&self) -> &Path {
        match self {
            CoverageError::Io { path, .. }
            | CoverageError::Gzip { path, .. }
            | CoverageError::TooLarge { path, .. }
            | CoverageError::UnknownFormat { path, .. }
            | CoverageError::Parse { path, .. } => path,
        }
    }

    /// The failures.jsonl kind: `coverage_too_large` for a report over the limit,
    /// `coverage_error` for every other problem.
    pub fn kind(&self) -> &'static str {
        match self {
            CoverageError::TooLarge { .. } => "coverage_too_large",
            CoverageError::Io { .. }
            | CoverageError::Gzip { .. }
            | CoverageError::UnknownFormat { .. }
            | CoverageError::Parse { .. } => "coverage_error",
        }
    }

    /// The 1-based line where parsing failed, for a parse error.
    pub fn line(&self) -> Option<usize> {
        match self {
            CoverageError::Parse { line, .. } => Some(*line),
            _ => None,
        }
    }
}

/// A parse failure inside one format's parser, before the report path is attached.
#[derive(Debug)]
struct Fail {
    line: usize,
    reason: String,
}

impl Fail {
    fn new(line: usize, reason: impl Into<String>) -> Self {
        Fail {
            line,
            reason: reason.into(),
        }
    }
}

/// One coverage report, as written.
#[derive(Debug, Clone)]
pub struct Report {
    pub format: Format,
    /// The report file it was read from.
    pub path: PathBuf,
    /// One entry per record (LCOV `SF:`, Cobertura `<class>`, JaCoCo `<sourcefile>`, gcov
    /// `files[]`), in report order; a file may appear in several records.
    pub files: Vec<FileHits>,
    /// Directories that relative report paths are relative to: Cobertura's `<source>`
    /// entries, gcov's `current_working_directory`.
    pub roots: Vec<String>,
}

/// The line hits of one source file in one record of a report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileHits {
    /// The path as written in the report.
    pub path: String,
    /// (1-based line, hits), sorted by line, each line once (repeats within the record
    /// are summed).
    pub lines: Vec<(u32, u64)>,
}

impl FileHits {
    fn new(path: String, mut lines: Vec<(u32, u64)>) -> Self {
        merge_lines(&mut lines);
        FileHits { path, lines }
    }
}

/// Sorts by line and sums the hits of a line listed more than once.
fn merge_lines(lines: &mut Vec<(u32, u64)>) {
    if !lines.windows(2).all(|w| w[0].0 < w[1].0) {
        lines.sort_by_key(|&(line, _)| line);
        lines.dedup_by(|next, kept| {
            if next.0 == kept.0 {
                kept.1 = kept.1.saturating_add(next.1);
                true
            } else {
                false
            }
        });
    }
}

/// The default largest report read, in bytes after decompression (1 GiB; `mine
/// --max-report-bytes`): a report is parsed from memory whole, and a small gzip file can
/// inflate to far more than a machine has.
pub const DEFAULT_MAX_REPORT_BYTES: u64 = 1 << 30;

/// How much decompressed text is kept while it is not yet known whether a gzip report fits
/// under the limit. A larger report is first inflated without keeping anything, to learn
/// its size, and then once more into a buffer of exactly that size: a decompression bomb
/// costs time, never more memory than this.
const INFLATE_PROBE_BYTES: u64 = 16 << 20;

/// Reads a coverage report, detecting its format from the content (gzip is decompressed
/// first), with the default limit [`DEFAULT_MAX_REPORT_BYTES`].
pub fn read_report(path: &Path) -> Result<Report, CoverageError> {
    read_report_limited(path, DEFAULT_MAX_REPORT_BYTES)
}

/// [`read_report`] with a limit on the report's size after decompression: a larger report
/// is a [`CoverageError::TooLarge`], found while reading, so at most `limit` bytes (and a
/// few buffers) are ever held.
pub fn read_report_limited(path: &Path, limit: u64) -> Result<Report, CoverageError> {
    let io = |source| CoverageError::Io {
        path: path.to_path_buf(),
        source,
    };
    let too_large = |compressed| CoverageError::TooLarge {
        path: path.to_path_buf(),
        limit,
        compressed,
    };
    // Only a regular file: a FIFO would block, a device never end.
    let mut file =
        codemine_io::open_regular(path, codemine_io::Follow::Yes).map_err(|e| io(e.into()))?;
    let mut magic = [0u8; 2];
    let got = read_up_to(&mut file, &mut magic).map_err(io)?;
    if magic[..got] == GZIP_MAGIC {
        drop(file);
        let open = || {
            codemine_io::open_regular(path, codemine_io::Follow::Yes)
                .map(std::io::BufReader::new)
                .map_err(std::io::Error::from)
        };
        let data = inflate(path, open, limit, INFLATE_PROBE_BYTES)?;
        return parse_text(path, &data);
    }
    // A file said to be over the limit is refused unread; one that grows while read is
    // still cut at the limit.
    let known = file.metadata().map_or(0, |m| m.len());
    if known > limit {
        return Err(too_large(false));
    }
    let mut data = Vec::with_capacity(usize::try_from(known).unwrap_or(0));
    data.extend_from_slice(&magic[..got]);
    file.take((limit + 1).saturating_sub(got as u64))
        .read_to_end(&mut data)
        .map_err(io)?;
    if data.len() as u64 > limit {
        return Err(too_large(false));
    }
    parse_text(path, &data)
}

/// The first two bytes of a gzip member.
const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// Fills `buf` as far as the reader goes; the number of bytes read.
fn read_up_to(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match r.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

/// Decompresses the gzip stream that `open` gives (every member, as gunzip does) if it
/// inflates to at most `limit` bytes. Up to `probe` bytes are kept on the first pass; a
/// longer stream is counted to its end (or to the limit) without being kept, then inflated
/// again into a buffer of its exact size, so no more than `max(probe, size)` bytes are
/// ever held, whatever the stream claims.
fn inflate<R: Read>(
    path: &Path,
    mut open: impl FnMut() -> std::io::Result<R>,
    limit: u64,
    probe: u64,
) -> Result<Vec<u8>, CoverageError> {
    let gzip = |source| CoverageError::Gzip {
        path: path.to_path_buf(),
        source,
    };
    let io = |source| CoverageError::Io {
        path: path.to_path_buf(),
        source,
    };
    let too_large = || CoverageError::TooLarge {
        path: path.to_path_buf(),
        limit,
        compressed: true,
    };
    let first = probe.min(limit);
    let mut decoder = flate2::read::MultiGzDecoder::new(open().map_err(io)?);
    let mut out = Vec::new();
    (&mut decoder)
        .take(first + 1)
        .read_to_end(&mut out)
        .map_err(gzip)?;
    let kept = out.len() as u64;
    if kept <= first {
        return Ok(out);
    }
    if first == limit {
        return Err(too_large());
    }
    drop(out);
    let rest = std::io::copy(
        &mut (&mut decoder).take(limit + 1 - kept),
        &mut std::io::sink(),
    )
    .map_err(gzip)?;
    let size = kept + rest;
    if size > limit {
        return Err(too_large());
    }
    drop(decoder);
    // The second pass: a stream that changed in between is cut at the size first seen
    // (one byte more tells it changed).
    let mut out = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    flate2::read::MultiGzDecoder::new(open().map_err(io)?)
        .take(size + 1)
        .read_to_end(&mut out)
        .map_err(gzip)?;
    if out.len() as u64 != size {
        return Err(io(std::io::Error::other(
            "the report changed while it was read",
        )));
    }
    Ok(out)
}

/// Parses a report held in memory (gzip is decompressed first, up to
/// [`DEFAULT_MAX_REPORT_BYTES`]); `path` is used for [`Report::path`] and in errors.
pub fn parse_report(path: &Path, data: &[u8]) -> Result<Report, CoverageError> {
    parse_report_limited(path, data, DEFAULT_MAX_REPORT_BYTES)
}

/// [`parse_report`] with another limit on the decompressed size.
fn parse_report_limited(path: &Path, data: &[u8], limit: u64) -> Result<Report, CoverageError> {
    if data.starts_with(&GZIP_MAGIC) {
        let inflated = inflate(
            path,
            || Ok(std::io::Cursor::new(data)),
            limit,
            INFLATE_PROBE_BYTES,
        )?;
        parse_text(path, &inflated)
    } else {
        parse_text(path, data)
    }
}

/// Parses the text of a report (already decompressed).
fn parse_text(path: &Path, data: &[u8]) -> Result<Report, CoverageError> {
    // A byte-order mark is no part of any format (serde_json and the LCOV parser would
    // trip on it); it sits on line 1, so line numbers stay right.
    let data = data.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(data);
    let format = detect(data).map_err(|reason| CoverageError::UnknownFormat {
        path: path.to_path_buf(),
        reason,
    })?;
    let parsed = match format {
        Format::Lcov => lcov::parse(data).map(|files| (files, Vec::new())),
        Format::Cobertura => cobertura::parse(data),
        Format::Jacoco => jacoco::parse(data).map(|files| (files, Vec::new())),
        Format::GcovJson => gcov::parse(data),
        Format::GcovrJson => gcov::parse_gcovr(data).map(|files| (files, Vec::new())),
        Format::CoveragePyJson => coveragepy::parse(data).map(|files| (files, Vec::new())),
        Format::GoCoverProfile => gocover::parse(data).map(|files| (files, Vec::new())),
    };
    match parsed {
        Ok((files, roots)) => Ok(Report {
            format,
            path: path.to_path_buf(),
            files,
            roots,
        }),
        Err(fail) => Err(CoverageError::Parse {
            path: path.to_path_buf(),
            format,
            line: fail.line,
            reason: fail.reason,
        }),
    }
}

/// The format of a (decompressed) report, or why it is none of the known ones.
fn detect(data: &[u8]) -> Result<Format, String> {
    let start = data.iter().position(|b| !b.is_ascii_whitespace());
    let Some(start) = start else {
        return Err("the file is empty".into());
    };
    let body = &data[start..];
    match body[0] {
        b'<' => xml::detect(body),
        b'{' => json_format(body),
        _ => {
            let first = body.split(|&b| b == b'\n').next().unwrap_or_default();
            if first.starts_with(b"TN:") || first.starts_with(b"SF:") {
                Ok(Format::Lcov)
            } else if first.starts_with(b"mode:") {
                Ok(Format::GoCoverProfile)
            } else {
                Err(format!(
                    "neither XML, JSON, an LCOV tracefile nor a Go coverage profile; it starts with {:?}",
                    preview(first)
                ))
            }
        }
    }
}

/// The JSON report format, from the document's top-level keys (not from anywhere inside,
/// where a Python function may be called `format_version`): gcovr writes
/// `gcovr/format_version`; gcov `format_version` and `gcc_version`; coverage.py a `meta`
/// object with its `format` and `version`. The keys are read until one decides, so this
/// costs a few bytes for the reports the tools write (their first key decides).
fn json_format(body: &[u8]) -> Result<Format, String> {
    use serde::de::{IgnoredAny, MapAccess, Visitor};

    #[derive(serde::Deserialize)]
    struct CoveragePyMeta {
        #[allow(dead_code)]
        format: u32,
        #[allow(dead_code)]
        version: String,
    }

    struct Keys(Option<Format>);

    impl<'de> Visitor<'de> for &mut Keys {
        type Value = ();

        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a JSON object")
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            while let Some(key) = map.next_key::<String>()? {
                match key.as_str() {
                    "gcovr/format_version" => self.0 = Some(Format::GcovrJson),
                    "format_version" | "gcc_version" => self.0 = Some(Format::GcovJson),
                    "meta" => {
                        if map.next_value::<CoveragePyMeta>().is_ok() {
                            self.0 = Some(Format::CoveragePyJson);
                        }
                        // Either way the value is consumed (or the document is broken).
                        if self.0.is_some() {
                            return Ok(());
                        }
                        continue;
                    }
                    _ => {
                        map.next_value::<IgnoredAny>()?;
                        continue;
                    }
                }
                return Ok(());
            }
            Ok(())
        }
    }

    let mut keys = Keys(None);
    let mut de = serde_json::Deserializer::from_slice(body);
    // Stopping at the deciding key leaves the object unfinished, which serde_json reports;
    // a broken document is the parser's to report, with its line.
    let _ = serde::Deserializer::deserialize_map(&mut de, &mut keys);
    keys.0.ok_or_else(|| {
        "JSON, but no top-level key of gcov's (format_version, gcc_version), gcovr's (gcovr/format_version) or coverage.py's (meta with format and version) JSON reports".into()
    })
}

/// At most 60 characters of `bytes`, for messages.
fn preview(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let text = text.trim_end();
    match text.char_indices().nth(60) {
        Some((cut, _)) => format!("{}...", &text[..cut]),
        None => text.to_string(),
    }
}

/// The 1-based line of the last non-whitespace byte: where a truncated file ends.
fn eof_line(data: &[u8]) -> usize {
    let end = data
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(0, |i| i + 1);
    1 + data[..end].iter().filter(|&&b| b == b'\n').count()
}

/// The 1-based line of byte offset `pos`.
fn line_of(data: &[u8], pos: usize) -> usize {
    1 + data[..pos.min(data.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
}

/// A JSON parse failure at serde_json's line, with the column in the message (gcov writes
/// the whole document on one line, so the column matters too).
fn json_fail(e: &serde_json::Error, what: &str) -> Fail {
    let location = format!(" at line {} column {}", e.line(), e.column());
    let message = e.to_string();
    let message = message.strip_suffix(&location).unwrap_or(&message);
    Fail::new(
        e.line().max(1),
        format!("invalid {what} (column {}): {message}", e.column()),
    )
}

/// Text of a whole report, or a failure naming the line of the first invalid byte.
fn utf8(data: &[u8]) -> Result<&str, Fail> {
    std::str::from_utf8(data).map_err(|e| {
        Fail::new(
            line_of(data, e.valid_up_to()),
            "the report is not valid UTF-8",
        )
    })
}

/// Coverage of one function: lines `start..=end` of its file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FunctionCoverage {
    /// Sum of the hits of the lines (YABLoCo's `test_cov_hits`).
    pub hits: u64,
    /// Lines with at least one hit.
    pub covered_lines: u32,
    /// Lines that some report lists (executable lines).
    pub coverable_lines: u32,
}

/// What [`RepoCoverage::build`] did with the reports, for stats.json.
#[derive(Debug, Default, Clone, serde::Serialize, serde::Deserialize)]
pub struct CoverageStats {
    /// Reports given.
    pub reports: usize,
    /// Reports per format name.
    #[serde(deserialize_with = "crate::intern::de_map")]
    pub formats: BTreeMap<&'static str, usize>,
    /// Distinct source files named by the reports (a path counts once for all records and
    /// reports that name it with the same roots).
    pub report_files: usize,
    /// Report files mapped onto a repository file.
    pub mapped_files: usize,
    /// Report files that match no repository file.
    pub unmapped_files: usize,
    /// Report files that match several repository files equally well.
    pub ambiguous_files: usize,
    /// The first five unmapped report paths, as written.
    pub unmapped_examples: Vec<String>,
    /// The first five ambiguous report paths, as written.
    pub ambiguous_examples: Vec<String>,
}

/// How many examples the stats keep.
const EXAMPLES: usize = 5;

/// Line hits of one repository, keyed by repository path, summed over every report and
/// every record that maps onto the same file.
#[derive(Debug, Default, Clone)]
pub struct RepoCoverage {
    files: HashMap<String, BTreeMap<u32, u64>>,
    pub stats: CoverageStats,
}

impl RepoCoverage {
    /// Maps every report file onto `repo_files` (`/`-separated repository paths) and sums
    /// the hits. See the module docs for the mapping rules.
    pub fn build(reports: &[Report], repo_files: &[&str], strip_prefixes: &[String]) -> Self {
        let index = paths::RepoIndex::new(repo_files);
        let strip = paths::Prefixes::new(strip_prefixes);
        let mut stats = CoverageStats {
            reports: reports.len(),
            ..CoverageStats::default()
        };
        let mut files: HashMap<String, BTreeMap<u32, u64>> = HashMap::new();
        // One mapping per (path, roots): records repeat paths, and reports share roots.
        let mut seen: HashMap<(&str, &[String]), Option<usize>> = HashMap::new();
        for report in reports {
            *stats.formats.entry(report.format.name()).or_insert(0) += 1;
            for record in &report.files {
                let key = (record.path.as_str(), report.roots.as_slice());
                let target = match seen.get(&key) {
                    Some(target) => *target,
                    None => {
                        let mapped = index.map(&record.path, &report.roots, &strip);
                        let target = match mapped {
                            paths::Mapped::File(i) => {
                                stats.mapped_files += 1;
                                Some(i)
                            }
                            paths::Mapped::Ambiguous => {
                                stats.ambiguous_files += 1;
                                if stats.ambiguous_examples.len() < EXAMPLES {
                                    stats.ambiguous_examples.push(record.path.clone());
                                }
                                None
                            }
                            paths::Mapped::Unmapped => {
                                stats.unmapped_files += 1;
                                if stats.unmapped_examples.len() < EXAMPLES {
                                    stats.unmapped_examples.push(record.path.clone());
                                }
                                None
                            }
                        };
                        seen.insert(key, target);
                        target
                    }
                };
                let Some(i) = target else { continue };
                let lines = files.entry(repo_files[i].to_string()).or_default();
                for &(line, hits) in &record.lines {
                    let sum = lines.entry(line).or_insert(0);
                    *sum = sum.saturating_add(hits);
                }
            }
        }
        stats.report_files = seen.len();
        RepoCoverage { files, stats }
    }

    /// None when no report covers `path`; otherwise sums over lines start..=end (1-based,
    /// inclusive). A covered file with no coverable line in the range gives zeros.
    pub fn function(&self, path: &str, start_line: u32, end_line: u32) -> Option<FunctionCoverage> {
        let lines = self.files.get(path)?;
        let mut cov = FunctionCoverage::default();
        if start_line <= end_line {
            for (_, &hits) in lines.range(start_line..=end_line) {
                cov.coverable_lines += 1;
                if hits > 0 {
                    cov.covered_lines += 1;
                }
                cov.hits = cov.hits.saturating_add(hits);
            }
        }
        Some(cov)
    }

    /// The summed line hits of a repository file, when some report covers it.
    pub fn lines(&self, path: &str) -> Option<&BTreeMap<u32, u64>> {
        self.files.get(path)
    }

    /// Repository paths that some report covers, sorted.
    pub fn covered_paths(&self) -> Vec<&str> {
        let mut paths: Vec<&str> = self.files.keys().map(String::as_str).collect();
        paths.sort_unstable();
        paths
    }
}

#[cfg(test)]
mod tests;
