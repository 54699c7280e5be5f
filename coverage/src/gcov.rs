//! gcov's JSON intermediate format and gcovr's JSON report, which keeps its shape.
//!
//! - gcov (`gcov --json-format`, GCC 9 and later, usually `*.gcov.json.gz`):
//!   `{"current_working_directory": ..., "files": [{"file": ..., "lines": [{"line_number":
//!   N, "count": H, ...}]}]}`. File paths are as gcc saw them, often relative to the working
//!   directory, which becomes the report's root.
//! - gcovr (`gcovr --json`, `gcovr/format_version` 0.x): the same `files[].lines[]`, paths
//!   relative to gcovr's `--root` (the report does not say which, so there is no root), and
//!   lines marked `gcovr/noncode` or `gcovr/excluded`, which are not coverable.
//!
//! A line appears once per function with code on it; [`FileHits`] sums them, as gcov's text
//! output does.

use serde::Deserialize;

use super::{json_fail, Fail, FileHits};

#[derive(Deserialize)]
struct Document {
    #[serde(default)]
    current_working_directory: Option<String>,
    files: Vec<File>,
}

#[derive(Deserialize)]
struct File {
    file: String,
    #[serde(default)]
    lines: Vec<Line>,
}

#[derive(Deserialize)]
struct Line {
    line_number: u32,
    count: u64,
    #[serde(default, rename = "gcovr/noncode")]
    noncode: bool,
    #[serde(default, rename = "gcovr/excluded")]
    excluded: bool,
}

/// The files of a gcov JSON document and its working directory as the only root.
pub(super) fn parse(data: &[u8]) -> Result<(Vec<FileHits>, Vec<String>), Fail> {
    parse_as(data, "gcov JSON")
}

/// The files of a gcovr JSON report (no roots).
pub(super) fn parse_gcovr(data: &[u8]) -> Result<Vec<FileHits>, Fail> {
    parse_as(data, "gcovr JSON").map(|(files, _)| files)
}

fn parse_as(data: &[u8], what: &str) -> Result<(Vec<FileHits>, Vec<String>), Fail> {
    let doc: Document = serde_json::from_slice(data).map_err(|e| json_fail(&e, what))?;
    let files = doc
        .files
        .into_iter()
        .map(|f| {
            let lines = f
                .lines
                .into_iter()
                .filter(|l| l.line_number > 0 && !l.noncode && !l.excluded)
                .map(|l| (l.line_number, l.count))
                .collect();
            FileHits::new(f.file, lines)
        })
        .collect();
    let roots = doc
        .current_working_directory
        .into_iter()
        .filter(|d| !d.is_empty())
        .collect();
    Ok((files, roots))
}
