//! What the eval crate's reference tests and benchmarks share (included with `#[path]`):
//! the Python that runs the reference implementations.

use std::path::PathBuf;

/// The workspace folder (the eval crate's parent).
#[allow(dead_code)]
pub fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `$CODEMINE_PYTHON`, else the workspace's `.venv` (made by scripts/setup.sh), else
/// `python3`.
pub fn python() -> PathBuf {
    if let Some(p) = std::env::var_os("CODEMINE_PYTHON") {
        return PathBuf::from(p);
    }
    let venv = workspace_root().join(".venv/bin/python");
    if venv.exists() {
        venv
    } else {
        PathBuf::from("python3")
    }
}
