//! coverage.py's JSON report (`coverage json`, report format 1 to 3): `{"meta": {...},
//! "files": {PATH: {"executed_lines": [...], "missing_lines": [...], "excluded_lines":
//! [...], ...}}, "totals": {...}}`. coverage.py records whether a line ran, not how often:
//! an executed line is stored with 1 hit and a missing one with 0, as its own Cobertura
//! and LCOV reports do; excluded lines (`# pragma: no cover`) are not coverable. Paths are
//! relative to the directory coverage ran in (or absolute), and the report has no root.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::{json_fail, Fail, FileHits};

#[derive(Deserialize)]
struct Document {
    // Required, so that another JSON document with a `files` key is not taken for one.
    #[allow(dead_code)]
    meta: serde_json::Value,
    files: BTreeMap<String, File>,
}

#[derive(Deserialize)]
struct File {
    #[serde(default)]
    executed_lines: Vec<u32>,
    #[serde(default)]
    missing_lines: Vec<u32>,
}

/// The files of a coverage.py JSON report, in path order (the report is a JSON object).
pub(super) fn parse(data: &[u8]) -> Result<Vec<FileHits>, Fail> {
    let doc: Document =
        serde_json::from_slice(data).map_err(|e| json_fail(&e, "coverage.py JSON"))?;
    Ok(doc
        .files
        .into_iter()
        .map(|(path, f)| {
            let lines = f
                .executed_lines
                .into_iter()
                .map(|l| (l, 1))
                .chain(f.missing_lines.into_iter().map(|l| (l, 0)))
                .filter(|&(l, _)| l > 0)
                .collect();
            FileHits::new(path, lines)
        })
        .collect())
}
