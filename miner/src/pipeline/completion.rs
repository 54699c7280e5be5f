//! The code-completion outputs (`--emit completion`), a step of their own on both sides of
//! the staging area:
//! - per repository ([`step`]): every Python and Java file's CodeXGLUE token line (see
//!   [`codemine_completion`]) and its line-level cuts, staged per chunk as
//!   `staging/ctoken-*` and `staging/cline-*`;
//! - at finalize ([`finalize`]): a file whose token line an earlier file of the run already
//!   has (input order, so the same for any thread count or rank count) is left out with its
//!   cuts, and the rest is written as `completion/token/token-{split}-*.parquet`,
//!   `completion/line/line-{split}-*.parquet` and the text files CodeXGLUE's scripts read:
//!   `completion/{python,java}/{train,dev,test}.txt` and `line_{train,dev,test}.json`, in
//!   the order of the Parquet rows.

use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::RecordBatch;
use codemine_schemas::completion::{
    FileInfo, LineRow, LineTable, TokenRow, TokenTable, LINE_PREFIX, TOKEN_PREFIX,
};
use codemine_schemas::layout;
use codemine_schemas::staged::read_batches;
use codemine_schemas::{ShardOptions, ShardWriter, Split};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::{xxh3_128, xxh3_64};

use super::stage::{file_names, staged_files};
use crate::lang::{Lang, Registry};
use crate::source::SourceFile;
pub use crate::stats::steps::{CompletionStage, CpuSeconds, RepoCompletion, RepoCpu};
use crate::Error;
use codemine_completion::{self as cx, line, CompletionLang, Literals};
use codemine_filters::dedup::{
    cluster as dedup_cluster, is_content_token, prepare, BandTable, DedupParams, DedupStats, Item,
    Prepared,
};

/// Staging table names.
pub const TOKEN_STAGED: &str = "ctoken";
pub const LINE_STAGED: &str = "cline";
/// The folder of the completion tables (each in a folder of its own: `completion/token/`,
/// `completion/line/`, ...) and of CodeXGLUE's text files (`completion/python/`, ...).
pub const DIR: &str = "completion";

/// What `--emit completion` asks for.
#[derive(Clone)]
pub struct CompletionOptions {
    pub python: Arc<Literals>,
    pub java: Arc<Literals>,
    /// xxh3 of a `--completion-literals` file, for the run's fingerprint.
    pub literals_digest: Option<u128>,
    pub seed: u64,
    /// Line-level cuts per file.
    pub cuts: usize,
}

impl std::fmt::Debug for CompletionOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "completion(seed {}, cuts {}, literals {:?})",
            self.seed, self.cuts, self.literals_digest
        )
    }
}

/// The default `--completion-seed`.
pub const DEFAULT_SEED: u64 = 42;

impl Default for CompletionOptions {
    fn default() -> Self {
        Self {
            python: Arc::new(Literals::py150()),
            java: Arc::new(Literals::java_corpus()),
            literals_digest: None,
            seed: DEFAULT_SEED,
            cuts: 1,
        }
    }
}

impl CompletionOptions {
    /// `--completion-literals FILE`: one `literals.json` for both languages.
    pub fn with_literals(mut self, bytes: &[u8]) -> Result<Self, cx::LiteralsError> {
        let lits = Arc::new(Literals::from_json(bytes)?);
        self.python = lits.clone();
        self.java = lits;
        self.literals_digest = Some(xxh3_128(bytes));
        Ok(self)
    }

    fn literals(&self, lang: CompletionLang) -> &Literals {
        match lang {
            CompletionLang::Python => &self.python,
            CompletionLang::Java => &self.java,
        }
    }
}

/// This thread's CPU time in seconds (`CLOCK_THREAD_CPUTIME_ID`): what the export's own
/// work costs, whatever else runs on the machine.
pub fn thread_cpu() -> f64 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}

impl RepoCompletion {
    pub fn add(&mut self, o: &RepoCompletion) {
        self.files += o.files;
        self.token_rows += o.token_rows;
        self.line_rows += o.line_rows;
        for (k, v) in &o.skipped {
            *self.skipped.entry(k.clone()).or_default() += v;
        }
        self.cpu_seconds.rows += o.cpu_seconds.rows;
        self.cpu_seconds.staging += o.cpu_seconds.staging;
    }
}

/// A repository's staged completion rows.
#[derive(Default)]
pub struct RepoRows {
    pub tokens: Vec<TokenRow>,
    pub lines: Vec<LineRow>,
    pub counts: RepoCompletion,
}

fn completion_lang(lang: Lang) -> Option<CompletionLang> {
    (lang == Lang::Python)
        .then_some(CompletionLang::Python)
        .or((lang == Lang::Java).then_some(CompletionLang::Java))
}

/// The line-level id: the file's key and the cut's token position, 16 hex digits each.
pub fn line_id(file: &FileInfo, position: usize) -> String {
    let key = format!("{}\0{}\0{}", file.repo, file.sha, file.path);
    format!("{:016x}-{position:016x}", xxh3_64(key.as_bytes()))
}

/// One Python or Java file's completion rows, or why it has none, and the thread CPU
/// seconds they took.
pub struct FileOutcome {
    pub rows: Result<(TokenRow, Vec<LineRow>), &'static str>,
    pub cpu: f64,
}

/// The completion rows of one file whose text the extract stage read (`Err`: the failure
/// kind of the read: `too_large`, `binary`, `non_utf8`, `read_error`); `None` for files of
/// other languages. `info` holds the repository's columns.
pub fn file_rows(
    file: &SourceFile,
    text: Result<&str, &'static str>,
    info: &FileInfo,
    opts: &CompletionOptions,
) -> Option<FileOutcome> {
    let lang = completion_lang(file.lang)?;
    let start = thread_cpu();
    let rows = rows_of(file, lang, text, info, opts);
    Some(FileOutcome {
        rows,
        cpu: thread_cpu() - start,
    })
}

fn rows_of(
    file: &SourceFile,
    lang: CompletionLang,
    text: Result<&str, &'static str>,
    info: &FileInfo,
    opts: &CompletionOptions,
) -> Result<(TokenRow, Vec<LineRow>), &'static str> {
    let text = text?;
    let tokens = cx::line_of(lang, text, opts.literals(lang)).map_err(|skip| skip.kind())?;
    let file_info = FileInfo {
        path: file.path.clone(),
        language: lang.name().into(),
        ..info.clone()
    };
    let key = format!("{}/{}", file_info.repo, file_info.path);
    let lines = line::cut_positions(&tokens, lang, opts.cuts, opts.seed, &key)
        .into_iter()
        .map(|(p, end)| LineRow {
            id: line_id(&file_info, p),
            file: file_info.clone(),
            input: tokens.before(p).to_string(),
            gt: tokens.range(p, end).to_string(),
            line: u32::try_from(tokens.line_of(p)).unwrap_or(u32::MAX),
        })
        .collect();
    Ok((
        TokenRow {
            file: file_info,
            text: tokens.into_string(),
        },
        lines,
    ))
}

/// A repository's completion rows from its files' outcomes, in file order.
pub fn collect(outcomes: impl IntoIterator<Item = FileOutcome>) -> RepoRows {
    let mut rows = RepoRows::default();
    for o in outcomes {
        rows.counts.files += 1;
        rows.counts.cpu_seconds.rows += o.cpu;
        match o.rows {
            Ok((t, lines)) => {
                rows.tokens.push(t);
                rows.lines.extend(lines);
            }
            Err(kind) => {
                *rows.counts.skipped.entry(kind.to_string()).or_default() += 1;
            }
        }
    }
    rows.counts.token_rows = rows.tokens.len();
    rows.counts.line_rows = rows.lines.len();
    rows
}

/// The run-wide settings a rank records for finalize.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Settings {
    pub seed: u64,
    pub cuts: usize,
}

fn split_dir_name(split: Split) -> &'static str {
    // CodeXGLUE's file names call the validation split `dev`.
    match split {
        Split::Train => "train",
        Split::Valid => "dev",
        Split::Test => "test",
    }
}

/// A text file written whole or not at all: `.NAME.tmp`, renamed when finished.
struct TextFile {
    tmp: PathBuf,
    path: PathBuf,
    out: std::io::BufWriter<std::fs::File>,
}

impl TextFile {
    fn create(path: PathBuf) -> Result<Self, Error> {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let tmp = path.with_file_name(format!(".{name}.tmp"));
        let file = std::fs::File::create(&tmp).map_err(|source| Error::Io {
            path: tmp.clone(),
            source,
        })?;
        Ok(Self {
            tmp,
            path,
            out: std::io::BufWriter::new(file),
        })
    }

    fn line(&mut self, text: &str) -> Result<(), Error> {
        writeln!(self.out, "{text}").map_err(|source| Error::Io {
            path: self.tmp.clone(),
            source,
        })
    }

    /// A line of bytes (without its line break).
    fn bytes(&mut self, line: &[u8]) -> Result<(), Error> {
        self.out
            .write_all(line)
            .and_then(|()| self.out.write_all(b"\n"))
            .map_err(|source| Error::Io {
                path: self.tmp.clone(),
                source,
            })
    }

    fn finish(self) -> Result<(), Error> {
        let io = |source| Error::Io {
            path: self.tmp.clone(),
            source,
        };
        let file = self.out.into_inner().map_err(|e| io(e.into_error()))?;
        file.sync_all().map_err(io)?;
        std::fs::rename(&self.tmp, &self.path).map_err(io)
    }
}

/// Appends `s` as a JSON string, escaped as `serde_json` writes it.
fn write_json_str(out: &mut Vec<u8>, s: &str) {
    // Writing a string to a Vec cannot fail.
    let _ = serde_json::to_writer(&mut *out, s);
}

/// The files that the near-duplicate pass removes, by row index in staging order.
#[derive(Default)]
struct NearFiles {
    removed: HashSet<u64>,
    stats: Option<DedupStats>,
}

/// The completion tokens of a file that dedup compares: its content tokens (as for
/// functions: identifiers, keywords, literals, placeholders), without the line markers.
fn dedup_tokens(line: &str) -> Vec<&str> {
    line.split(' ')
        .filter(|t| !matches!(*t, "<s>" | "</s>" | "<EOL>" | ""))
        .filter(|t| is_content_token(t))
        .collect()
}

/// Runs dedup's near-duplicate clustering over whole files (their token lines, in staging
/// order, which is input order): each cluster keeps its first file, so no file has a
/// near-copy in another partition. Files with the same token line are clusters here too;
/// the caller counts them as exact copies. Shingle sets are held for every file.
fn near_duplicates(out_dir: &Path, params: &DedupParams) -> Result<NearFiles, Error> {
    let mut prepared = Vec::new();
    let mut bands = Vec::new();
    let mut next = 0u64;
    for path in staged_files(out_dir, TOKEN_STAGED)? {
        for batch in read_batches(&path)? {
            let batch = batch.map_err(codemine_schemas::Error::Arrow)?;
            let [line_text] = columns(&batch, ["text"], &path)?;
            let first = next;
            next += batch.num_rows() as u64;
            let rows: Vec<(Prepared, Vec<u64>)> = (0..batch.num_rows())
                .into_par_iter()
                .map(|i| {
                    let tokens = dedup_tokens(line_text.value(i));
                    let item = Item {
                        // The row index: the keeper rule keeps the smallest id, the first file.
                        id: first + i as u64,
                        tokens: &tokens,
                        has_docstring: false,
                        last_commit: None,
                        partition: 0,
                    };
                    prepare(&item, params)
                })
                .collect();
            for (p, b) in rows {
                prepared.push(p);
                bands.push(b);
            }
        }
    }
    let table = BandTable::from_rows(&bands, params.bands);
    drop(bands);
    // All cores: finalize runs alone.
    let outcome = dedup_cluster(&prepared, &table, params, 0)?;
    // Files whose content tokens equal their keeper's are in too: their lines differ only
    // in punctuation or layout.
    let removed = outcome
        .duplicate_of
        .iter()
        .enumerate()
        .filter(|(_, dup)| dup.is_some())
        .map(|(i, _)| i as u64)
        .collect();
    Ok(NearFiles {
        removed,
        stats: Some(outcome.stats),
    })
}

/// Removes the completion outputs of an earlier run in `out_dir`.
pub fn clear(out_dir: &Path) -> Result<(), Error> {
    let dir = out_dir.join(DIR);
    match std::fs::remove_dir_all(&dir) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(source) => Err(Error::Io { path: dir, source }),
    }
}

fn column<'a>(
    batch: &'a RecordBatch,
    name: &str,
    path: &Path,
) -> Result<&'a arrow_array::StringArray, Error> {
    batch
        .column_by_name(name)
        .and_then(|c| c.as_string_opt::<i32>())
        .ok_or_else(|| {
            Error::Incomplete(format!(
                "{}: no text column {name} (a staging file of another version?)",
                path.display()
            ))
        })
}

fn file_key(repo: &str, sha: &str, path: &str) -> u128 {
    xxh3_128(format!("{repo}\0{sha}\0{path}").as_bytes())
}

/// The text files of one run, opened as rows arrive (a handful: looked up in order).
struct TextFiles {
    dir: PathBuf,
    open: Vec<((String, &'static str, bool), TextFile)>,
}

impl TextFiles {
    fn get(&mut self, lang: &str, split: Split, line_level: bool) -> Result<&mut TextFile, Error> {
        let split = split_dir_name(split);
        let found = self
            .open
            .iter()
            .position(|((l, s, ll), _)| l == lang && *s == split && *ll == line_level);
        let k = match found {
            Some(k) => k,
            None => {
                let d = self.dir.join(lang);
                std::fs::create_dir_all(&d).map_err(|source| Error::Io {
                    path: d.clone(),
                    source,
                })?;
                let name = if line_level {
                    format!("line_{split}.json")
                } else {
                    format!("{split}.txt")
                };
                let f = TextFile::create(d.join(name))?;
                self.open.push(((lang.to_string(), split, line_level), f));
                self.open.len() - 1
            }
        };
        Ok(&mut self.open[k].1)
    }

    fn finish(self) -> Result<(), Error> {
        for (_, f) in self.open {
            f.finish()?;
        }
        Ok(())
    }
}

fn file_info(cols: &[&arrow_array::StringArray; 5], i: usize) -> FileInfo {
    FileInfo {
        repo: cols[0].value(i).into(),
        path: cols[1].value(i).into(),
        sha: cols[2].value(i).into(),
        language: cols[3].value(i).into(),
        partition: Split::parse(cols[4].value(i)).unwrap_or(Split::Train),
    }
}

fn columns<'a, const N: usize>(
    batch: &'a RecordBatch,
    names: [&str; N],
    path: &Path,
) -> Result<[&'a arrow_array::StringArray; N], Error> {
    let mut out = Vec::with_capacity(N);
    for n in names {
        out.push(column(batch, n, path)?);
    }
    out.try_into()
        .map_err(|_| Error::Incomplete(format!("{}: columns", path.display())))
}

const COMMON: [&str; 5] = ["repo", "path", "sha", "language", "partition"];

/// Writes the completion outputs from the staging tables; `None` when the run did not ask
/// for them (the folder is cleared either way).
pub fn finalize(
    out_dir: &Path,
    settings: Option<&Settings>,
    counts: &RepoCompletion,
    shards: ShardOptions,
    dedup: Option<&DedupParams>,
) -> Result<Option<CompletionStage>, Error> {
    clear(out_dir)?;
    let Some(settings) = settings else {
        return Ok(None);
    };
    let start = thread_cpu();
    let dir = out_dir.join(DIR);
    std::fs::create_dir_all(&dir).map_err(|source| Error::Io {
        path: dir.clone(),
        source,
    })?;
    let mut stage = CompletionStage {
        seed: settings.seed,
        cuts: settings.cuts,
        files: counts.files,
        skipped: counts.skipped.clone(),
        ..Default::default()
    };
    let mut text = TextFiles {
        dir: dir.clone(),
        open: Vec::new(),
    };

    // Token level: the first file (in input order) with a given line keeps it; with dedup
    // on, the first of each cluster of near-duplicate files too.
    let near = match dedup {
        Some(params) => near_duplicates(out_dir, params)?,
        None => NearFiles::default(),
    };
    stage.near_duplicate = near.stats;
    let mut row_index = 0u64;
    let mut lines_seen: HashSet<u128> = HashSet::new();
    let mut dropped: HashSet<u128> = HashSet::new();
    let token_dir = layout::COMPLETION_TOKEN.path(out_dir);
    let mut writers = Split::ALL
        .iter()
        .map(|&s| {
            let name = format!("{TOKEN_PREFIX}-{}", s.as_str());
            Ok((
                s,
                ShardWriter::<TokenTable>::new(&token_dir, &name, shards)?,
            ))
        })
        .collect::<Result<Vec<_>, Error>>()?;
    for path in staged_files(out_dir, TOKEN_STAGED)? {
        for batch in read_batches(&path)? {
            let batch = batch.map_err(codemine_schemas::Error::Arrow)?;
            let cols = columns(&batch, COMMON, &path)?;
            let [line_text] = columns(&batch, ["text"], &path)?;
            for i in 0..batch.num_rows() {
                let file = file_info(&cols, i);
                let at = row_index;
                row_index += 1;
                if !lines_seen.insert(xxh3_128(line_text.value(i).as_bytes())) {
                    dropped.insert(file_key(&file.repo, &file.sha, &file.path));
                    stage.duplicate_files += 1;
                    continue;
                }
                if near.removed.contains(&at) {
                    dropped.insert(file_key(&file.repo, &file.sha, &file.path));
                    stage.near_duplicate_files += 1;
                    continue;
                }
                text.get(&file.language, file.partition, false)?
                    .line(line_text.value(i))?;
                let split = file.partition;
                let row = TokenRow {
                    file,
                    text: line_text.value(i).into(),
                };
                if let Some((_, w)) = writers.iter_mut().find(|(s, _)| *s == split) {
                    w.push(&row)?;
                }
            }
        }
    }
    for (split, w) in writers {
        stage.token_rows.insert(split.as_str(), w.rows());
        let files = file_names(&w.finish(false)?);
        stage
            .shards
            .extend(files.into_iter().map(|n| (layout::COMPLETION_TOKEN.dir, n)));
    }
    crate::fault::point("completion tokens streamed");

    let line_dir = layout::COMPLETION_LINE.path(out_dir);
    let mut writers = Split::ALL
        .iter()
        .map(|&s| {
            let name = format!("{LINE_PREFIX}-{}", s.as_str());
            Ok((s, ShardWriter::<LineTable>::new(&line_dir, &name, shards)?))
        })
        .collect::<Result<Vec<_>, Error>>()?;
    let mut json = Vec::new();
    for path in staged_files(out_dir, LINE_STAGED)? {
        for batch in read_batches(&path)? {
            let batch = batch.map_err(codemine_schemas::Error::Arrow)?;
            let cols = columns(&batch, COMMON, &path)?;
            let [id, input, gt] = columns(&batch, ["id", "input", "gt"], &path)?;
            let line = batch
                .column_by_name("line")
                .and_then(|c| c.as_primitive_opt::<arrow_array::types::UInt32Type>())
                .ok_or_else(|| Error::Incomplete(format!("{}: no line column", path.display())))?;
            for i in 0..batch.num_rows() {
                let file = file_info(&cols, i);
                if !dropped.is_empty()
                    && dropped.contains(&file_key(&file.repo, &file.sha, &file.path))
                {
                    continue;
                }
                // `{"gt": ..., "id": ..., "input": ...}`: serde_json's object, keys sorted.
                json.clear();
                json.extend_from_slice(b"{\"gt\":");
                write_json_str(&mut json, gt.value(i));
                json.extend_from_slice(b",\"id\":");
                write_json_str(&mut json, id.value(i));
                json.extend_from_slice(b",\"input\":");
                write_json_str(&mut json, input.value(i));
                json.extend_from_slice(b"}");
                text.get(&file.language, file.partition, true)?
                    .bytes(&json)?;
                let split = file.partition;
                let row = LineRow {
                    id: id.value(i).into(),
                    file,
                    input: input.value(i).into(),
                    gt: gt.value(i).into(),
                    line: line.value(i),
                };
                if let Some((_, w)) = writers.iter_mut().find(|(s, _)| *s == split) {
                    w.push(&row)?;
                }
            }
        }
    }
    for (split, w) in writers {
        stage.line_rows.insert(split.as_str(), w.rows());
        let files = file_names(&w.finish(false)?);
        stage
            .shards
            .extend(files.into_iter().map(|n| (layout::COMPLETION_LINE.dir, n)));
    }
    text.finish()?;
    stage.shards.sort();
    crate::fault::point("completion lines streamed");
    let c = counts.cpu_seconds;
    let finalize = thread_cpu() - start;
    stage.cpu_seconds = CpuSeconds {
        rows: c.rows,
        staging: c.staging,
        finalize,
        total: c.rows + c.staging + finalize,
    };
    Ok(Some(stage))
}
