//! What the tests share: the fixture corpus and its manifests, and the Python that runs
//! detect-secrets.

use std::path::PathBuf;

use serde_json::Value;

/// The crate's fixture folder.
pub fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// The source files of the corpus (the manifests excluded), sorted.
pub fn corpus() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(fixtures())
        .expect("read tests/fixtures")
        .map(|e| e.expect("fixture entry").path())
        .filter(|p| p.extension().is_some_and(|e| e != "jsonl"))
        .collect();
    files.sort();
    files
}

/// The lines of a JSON-lines manifest of `fixtures/`.
pub fn manifest(name: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(fixtures().join(name)).expect("read manifest");
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("manifest line is JSON"))
        .collect()
}

/// `$CODEMINE_PYTHON`, else the workspace's `.venv` (made by scripts/setup.sh test), else
/// `python3` (as eval/tests/it/support.rs finds it).
pub fn python() -> PathBuf {
    if let Some(p) = std::env::var_os("CODEMINE_PYTHON") {
        return PathBuf::from(p);
    }
    let venv = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../.venv/bin/python");
    if venv.exists() {
        venv
    } else {
        PathBuf::from("python3")
    }
}
