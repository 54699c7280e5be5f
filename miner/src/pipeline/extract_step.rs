//! The extract step of a repository: every file read (within `--max-file-bytes`, not
//! binary, UTF-8) and parsed in parallel, its completion rows made from the same text, the
//! counts per language, and a failure named for each file that could not be.

use std::time::Instant;

use rayon::prelude::*;

use super::repo::failure;
use super::{MineOptions, Progress};
use crate::extract::{Extractor, FileInfo, Function};
use crate::lang::{Lang, Registry};
use crate::resolve::SourceUnit;
use crate::source::{self, ReadError, Reader, RepoError, SourceFile};
use crate::stats::{Failure, LangCounts, RepoStats};

/// What the extract step gives the later ones.
pub(super) struct Extracted {
    pub units: Vec<SourceUnit>,
    /// Per unit: its file's license.
    pub unit_licenses: Vec<Option<std::sync::Arc<str>>>,
    /// Per unit: its file's blob, for the history walk.
    pub blobs: Vec<Option<git2::Oid>>,
    /// With `--emit completion`: the Python and Java files' completion rows, in file order.
    pub completion: Option<Vec<super::completion::FileOutcome>>,
    /// With `--emit repo-completion`: per unit, its file's text.
    pub texts: Vec<Option<String>>,
    /// Per unit: its file's findings of personal data and secrets (`--pii`; else empty).
    pub pii: Vec<Vec<super::pii::Located>>,
}

/// The extract step: reads and parses every file in parallel (and makes its completion
/// rows from the same text), counts them per language, and names the files that failed.
pub(super) fn extract_files(
    snap: &source::Snapshot,
    opts: &MineOptions,
    licenses: &codemine_license::Licenses,
    split: codemine_schemas::Split,
    progress: &dyn Progress,
    stats: &mut RepoStats,
    failures: &mut Vec<Failure>,
) -> Extracted {
    let completion_info = codemine_schemas::completion::FileInfo {
        repo: stats.repo.clone(),
        path: String::new(),
        sha: snap.sha.clone().unwrap_or_default(),
        language: String::new(),
        partition: split,
    };
    type Done = (
        FileResult,
        f64,
        Option<super::completion::FileOutcome>,
        Option<String>,
        (Vec<super::pii::Located>, Option<f64>),
    );
    let keep_text = opts.repo_completion.is_some();
    let parsed: Vec<Done> = snap
        .files
        .par_iter()
        .map_init(
            || (snap.reader(), Extractor::default()),
            |(reader, ex), file| {
                let t = Instant::now();
                let text = read_text(reader, file, opts.max_file_bytes);
                // Scanned (and redacted) before the parse: every text written from the
                // file has the placeholders.
                let (text, original, mut found, pii_secs) = match (text, &opts.pii) {
                    (Ok(text), Some(p)) => match super::pii::scan_file(p, text) {
                        Ok(s) => (Ok(s.text), s.original, s.found, Some(s.seconds)),
                        Err(reason) => (Err(("pii_too_large", reason)), None, Vec::new(), None),
                    },
                    (text, _) => (text, None, Vec::new(), None),
                };
                let r = match &text {
                    // The license from the file as written: its notice is not a secret.
                    Ok(text) => parse_text(ex, file, text, original.as_deref(), licenses),
                    Err(e) => Err(e.clone()),
                };
                if let Ok(p) = &r {
                    if let Ok(text) = &text {
                        let body = text.strip_prefix('\u{feff}').unwrap_or(text);
                        super::pii::attribute(&mut found, &p.functions, file.lang, body);
                    }
                }
                let secs = t.elapsed().as_secs_f64();
                let completion = opts.completion.as_ref().and_then(|c| {
                    let text = text.as_deref().map_err(|(kind, _)| *kind);
                    super::completion::file_rows(file, text, &completion_info, c)
                });
                progress.file_done();
                let text = if keep_text && r.is_ok() {
                    text.ok()
                } else {
                    None
                };
                (r, secs, completion, text, (found, pii_secs))
            },
        )
        .collect();

    let mut out = Extracted {
        units: Vec::new(),
        unit_licenses: Vec::new(),
        blobs: Vec::new(),
        completion: opts.completion.as_ref().map(|_| Vec::new()),
        texts: Vec::new(),
        pii: Vec::new(),
    };
    if opts.pii.is_some() {
        stats.pii = Some(Default::default());
    }
    let mut busy = 0.0;
    for (file, (result, secs, completion, text, (found, pii_secs))) in snap.files.iter().zip(parsed)
    {
        busy += secs;
        if let (Some(p), Some(s)) = (&mut stats.pii, pii_secs) {
            p.files_scanned += 1;
            p.seconds += s;
            if result.is_ok() {
                for x in &found {
                    *p.findings.entry(x.kind.name().to_string()).or_default() += 1;
                    p.in_functions += u64::from(x.function.is_some());
                }
            }
        }
        if let (Some(all), Some(c)) = (&mut out.completion, completion) {
            all.push(c);
        }
        match result {
            Ok(p) => {
                let c = LangCounts {
                    files: 1,
                    bytes: p.bytes,
                    files_with_syntax_errors: usize::from(p.has_errors),
                    functions: p.functions.len(),
                    dropped_syntax_error: p.dropped_syntax_error,
                    dropped_nesting: p.dropped_nesting,
                    functions_with_syntax_errors: p
                        .functions
                        .iter()
                        .filter(|f| f.syntax_error)
                        .count(),
                    with_docstring: p.functions.iter().filter(|f| f.docstring.is_some()).count(),
                    ..Default::default()
                };
                stats.totals.add(&c);
                stats.languages.entry(file.lang.name()).or_default().add(&c);
                if p.dropped_nesting > 0 {
                    // The file is mined; its deepest functions are not rows of their own.
                    let limit = crate::extract::MAX_FUNCTION_NESTING;
                    let reason = format!(
                        "{} functions nested more than {limit} deep (the limit) are not extracted \
                         on their own: they stay in the code of the function {limit} deep that \
                         holds them",
                        p.dropped_nesting
                    );
                    let path = Some(file.path.clone());
                    failures.push(failure(stats, path, "extract", "nesting_too_deep", reason));
                }
                out.blobs.push(file.blob());
                if keep_text {
                    out.texts.push(text);
                }
                out.unit_licenses.push(p.license.map(std::sync::Arc::from));
                if opts.pii.is_some() {
                    out.pii.push(found);
                }
                out.units.push(SourceUnit {
                    path: file.path.clone(),
                    lang: file.lang,
                    info: p.info,
                    functions: p.functions,
                    extra: p.extra,
                });
            }
            Err((kind, reason)) => {
                *stats.files_failed.entry(kind).or_default() += 1;
                let path = Some(file.path.clone());
                failures.push(failure(stats, path, "extract", kind, reason));
            }
        }
    }
    // Workers' time, not wall time: the files were parsed in parallel.
    stats.extract_seconds = busy;
    out
}

/// A parsed file, or why it could not be: a failure kind and a reason.
type FileResult = Result<Parsed, (&'static str, String)>;

struct Parsed {
    bytes: u64,
    functions: Vec<Function>,
    /// Call-graph nodes that are no functions ([`SourceUnit::extra`]).
    extra: crate::resolve::CodeNodes,
    info: FileInfo,
    dropped_syntax_error: usize,
    dropped_nesting: usize,
    has_errors: bool,
    /// The file's license ([`super::licenses::for_file`]).
    license: Option<String>,
}

/// Git's heuristic: a NUL byte in the first 8000 bytes means binary.
pub(super) fn is_binary(bytes: &[u8]) -> bool {
    bytes[..bytes.len().min(8000)].contains(&0)
}

/// A file's text: read within `limit`, not binary, UTF-8; else a failure kind and reason.
fn read_text(
    reader: &Result<Reader, RepoError>,
    file: &SourceFile,
    limit: u64,
) -> Result<String, (&'static str, String)> {
    let reader = reader.as_ref().map_err(|e| ("read_error", e.to_string()))?;
    let bytes = reader.read(file, limit).map_err(|e| match e {
        ReadError::TooLarge { .. } => ("too_large", e.to_string()),
        ReadError::Unreadable(_) => ("read_error", e.to_string()),
    })?;
    if is_binary(&bytes) {
        return Err((
            "binary",
            "binary content (a NUL byte in the first 8000 bytes)".into(),
        ));
    }
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        (
            "non_utf8",
            format!("not valid UTF-8 (first invalid byte at offset {at})"),
        )
    })
}

/// Extracts a file's functions from its text (read by [`read_text`]).
fn parse_text(
    ex: &mut Extractor,
    file: &SourceFile,
    text: &str,
    license_text: Option<&str>,
    licenses: &codemine_license::Licenses,
) -> FileResult {
    let license_text = license_text.unwrap_or(text);
    let license_text = license_text
        .strip_prefix('\u{feff}')
        .unwrap_or(license_text);
    let license = super::licenses::for_file(licenses, &file.path, license_text);
    let size = text.len() as u64;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut out = ex
        .extract_path(file.lang, &file.path, text)
        .map_err(|e| ("parse_error", e.to_string()))?;
    let extra = file
        .lang
        .def()
        .code_nodes(&mut out.functions, &out.info, text);
    Ok(Parsed {
        extra,
        license,
        bytes: size,
        functions: out.functions,
        info: out.info,
        dropped_syntax_error: out.dropped_syntax_error,
        dropped_nesting: out.dropped_nesting,
        has_errors: out.has_errors,
    })
}

/// The project files that resolvers read (`tsconfig.json`), as text; unreadable, oversized
/// or non-UTF-8 ones are passed over (their aliases are then unknown, not an error).
pub(super) fn read_project_files(snap: &source::Snapshot) -> Vec<(String, String)> {
    const MAX_PROJECT_FILE_BYTES: u64 = 1 << 20;
    let Ok(reader) = snap.reader() else {
        return Vec::new();
    };
    snap.license_files
        .iter()
        .filter(|f| Lang::wants_project_file(&f.path))
        .filter_map(|f| {
            let bytes = reader.read_license(f, MAX_PROJECT_FILE_BYTES).ok()?;
            Some((f.path.clone(), String::from_utf8(bytes).ok()?))
        })
        .collect()
}
