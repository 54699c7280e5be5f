//! Writing a file whole or not at all: the bytes go to a temporary name in the same folder,
//! reach the disk, and only then take the final name, so that after a crash the file under
//! its final name is whole or absent, never empty or cut.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Why a file could not be written: the path the failing operation was on, and its error.
#[derive(Debug, thiserror::Error)]
#[error("{}: {source}", path.display())]
pub struct WriteError {
    pub path: PathBuf,
    #[source]
    pub source: std::io::Error,
}

fn at(path: &Path) -> impl FnOnce(std::io::Error) -> WriteError + '_ {
    move |source| WriteError {
        path: path.to_path_buf(),
        source,
    }
}

/// Writes `bytes` to `path` through a temporary file in the same folder, syncing the file
/// before the rename and the folder before and after it.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    // The process id keeps writers of one file apart: the ranks of a sharded run all
    // write `staging/dedup-params.json`, and a shared temporary name let one rank's rename
    // take the file another was about to rename.
    let tmp = tmp_name(path, &format!(".{}", std::process::id()));
    {
        let mut file = File::create(&tmp).map_err(at(&tmp))?;
        file.write_all(bytes).map_err(at(&tmp))?;
        // The bytes reach the disk before the name does.
        file.sync_all().map_err(at(&tmp))?;
    }
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
    sync_dir(dir)?;
    std::fs::rename(&tmp, path).map_err(at(path))?;
    // And the rename itself is durable once this returns.
    sync_dir(dir)
}

/// Flushes a folder's entries to disk (a created or renamed file's name lives there).
fn sync_dir(dir: Option<&Path>) -> Result<(), WriteError> {
    let dir = dir.unwrap_or(Path::new("."));
    File::open(dir).and_then(|d| d.sync_all()).map_err(at(dir))
}

/// `.NAME{tag}.tmp` beside `path`.
pub fn tmp_name(path: &Path, tag: &str) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!(".{name}{tag}.tmp"))
}
