//! gcovr's JSON report (`gcovr --json`, `gcovr/format_version` 0.x): `{"files": [{"file":
//! ..., "lines": [{"line_number": N, "count": H, "gcovr/noncode": bool, "gcovr/excluded":
//! bool, ...}]}]}`. Paths are relative to gcovr's `--root` (the report does not say which);
//! lines marked non-code or excluded are not coverable. A line listed once per function
//! with code on it is summed, as in gcov's own output.

use serde::Deserialize;

use super::{json_fail, Fail, FileHits};

#[derive(Deserialize)]
struct Document {
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

/// The files of a gcovr JSON report.
pub(super) fn parse(data: &[u8]) -> Result<Vec<FileHits>, Fail> {
    let doc: Document = serde_json::from_slice(data).map_err(|e| json_fail(&e, "gcovr JSON"))?;
    Ok(doc
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
        .collect())
}
