//! File trees on the host side: the first copy of a repository into a prepared
//! environment, and reading what a run left behind.
//!
//! Everything under a prepared environment or a run's folder was written by hostile code,
//! so the host never follows a symbolic link there: trees are walked with `lstat`, links
//! are recreated as links (they resolve inside the sandbox, where little is visible), and
//! files are read only after checking that their real path stays inside the folder they
//! belong to ([`read_inside`]), with a size limit.

use std::fs;
use std::io::Read;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Component, Path, PathBuf};

use crate::Error;

fn io_err(path: &Path, what: &str, e: std::io::Error) -> Error {
    Error::Io {
        path: path.to_path_buf(),
        what: what.to_string(),
        source: e,
    }
}

/// Copies `src` into the new folder `dst`: folders, regular files (with their modes) and
/// symbolic links (as links); sockets, FIFOs and devices are skipped. Entries whose name
/// is in `exclude` are skipped at every depth. Returns the number of files.
pub(crate) fn copy_tree(src: &Path, dst: &Path, exclude: &[&str]) -> Result<u64, Error> {
    let mut files = 0;
    let meta = fs::symlink_metadata(src).map_err(|e| io_err(src, "reading", e))?;
    if !meta.is_dir() {
        return Err(Error::Io {
            path: src.to_path_buf(),
            what: "copying".into(),
            source: std::io::Error::other("not a folder"),
        });
    }
    fs::create_dir(dst).map_err(|e| io_err(dst, "making", e))?;
    fs::set_permissions(
        dst,
        fs::Permissions::from_mode(meta.mode() & 0o7777 | 0o700),
    )
    .map_err(|e| io_err(dst, "setting the mode of", e))?;
    let mut stack = vec![(src.to_path_buf(), dst.to_path_buf())];
    while let Some((from, to)) = stack.pop() {
        let entries = fs::read_dir(&from).map_err(|e| io_err(&from, "listing", e))?;
        for entry in entries {
            let entry = entry.map_err(|e| io_err(&from, "listing", e))?;
            let name = entry.file_name();
            if exclude.iter().any(|x| name == *x) {
                continue;
            }
            let (a, b) = (entry.path(), to.join(&name));
            let m = fs::symlink_metadata(&a).map_err(|e| io_err(&a, "reading", e))?;
            let ft = m.file_type();
            if ft.is_symlink() {
                let target = fs::read_link(&a).map_err(|e| io_err(&a, "reading the link", e))?;
                std::os::unix::fs::symlink(&target, &b)
                    .map_err(|e| io_err(&b, "making the link", e))?;
            } else if ft.is_dir() {
                fs::create_dir(&b).map_err(|e| io_err(&b, "making", e))?;
                fs::set_permissions(&b, fs::Permissions::from_mode(m.mode() & 0o7777 | 0o700))
                    .map_err(|e| io_err(&b, "setting the mode of", e))?;
                stack.push((a, b));
            } else if ft.is_file() {
                fs::copy(&a, &b).map_err(|e| io_err(&b, "copying", e))?;
                files += 1;
            }
        }
    }
    Ok(files)
}

/// A repository-relative path that stays inside the repository: relative, no `..`, no
/// empty or `.` components beyond normalisation.
pub(crate) fn checked_relative(path: &str) -> Option<PathBuf> {
    let p = Path::new(path);
    if path.is_empty() || p.is_absolute() {
        return None;
    }
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::Normal(n) => out.push(n),
            Component::CurDir => {}
            _ => return None,
        }
    }
    (!out.as_os_str().is_empty()).then_some(out)
}

/// Whether `rel` names a regular file under `root` reached through folders only (no
/// symbolic link on the way).
pub(crate) fn is_plain_file(root: &Path, rel: &Path) -> bool {
    let mut p = root.to_path_buf();
    let n = rel.components().count();
    for (i, c) in rel.components().enumerate() {
        p.push(c);
        match fs::symlink_metadata(&p) {
            Ok(m) if i + 1 < n && m.is_dir() => {}
            Ok(m) if i + 1 == n && m.is_file() => return true,
            _ => return false,
        }
    }
    false
}

/// Reads `path`, which must resolve (symbolic links followed) to a regular file inside
/// `within`, of at most `limit` bytes. None when it does not exist.
pub(crate) fn read_inside(
    within: &Path,
    path: &Path,
    limit: u64,
) -> Result<Option<Vec<u8>>, Error> {
    let real = match fs::canonicalize(path) {
        Ok(p) => p,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io_err(path, "resolving", e)),
    };
    let base = fs::canonicalize(within).map_err(|e| io_err(within, "resolving", e))?;
    if !real.starts_with(&base) {
        return Err(Error::Untrusted {
            path: path.to_path_buf(),
            reason: format!(
                "it resolves to {}, outside {}",
                real.display(),
                base.display()
            ),
        });
    }
    let f = fs::File::open(&real).map_err(|e| io_err(&real, "opening", e))?;
    let m = f.metadata().map_err(|e| io_err(&real, "reading", e))?;
    if !m.is_file() {
        return Err(Error::Untrusted {
            path: path.to_path_buf(),
            reason: "not a regular file".into(),
        });
    }
    if m.len() > limit {
        return Err(Error::Untrusted {
            path: path.to_path_buf(),
            reason: format!("{} bytes, more than the limit of {limit}", m.len()),
        });
    }
    let mut buf = Vec::with_capacity(m.len() as usize);
    f.take(limit + 1)
        .read_to_end(&mut buf)
        .map_err(|e| io_err(&real, "reading", e))?;
    if buf.len() as u64 > limit {
        return Err(Error::Untrusted {
            path: path.to_path_buf(),
            reason: format!("more than the limit of {limit} bytes"),
        });
    }
    Ok(Some(buf))
}

/// A repository file the host reads to detect the project's layout (`package.json`, ...):
/// a regular file reached without symbolic links, of at most 4 MiB. None otherwise.
pub(crate) fn read_repo_file(root: &Path, rel: &str) -> Option<String> {
    let rel = checked_relative(rel)?;
    if !is_plain_file(root, &rel) {
        return None;
    }
    read_inside(root, &root.join(rel), 4 << 20)
        .ok()
        .flatten()
        .map(|b| String::from_utf8_lossy(&b).into_owned())
}

/// Removes a run's folder (never following links: std's `remove_dir_all` does not).
pub(crate) fn remove(path: &Path) {
    let _ = fs::remove_dir_all(path);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_stay_inside() {
        assert_eq!(checked_relative("a/b.py"), Some(PathBuf::from("a/b.py")));
        assert_eq!(checked_relative("./a//b.py"), Some(PathBuf::from("a/b.py")));
        assert_eq!(checked_relative("../x"), None);
        assert_eq!(checked_relative("a/../../x"), None);
        assert_eq!(checked_relative("/etc/passwd"), None);
        assert_eq!(checked_relative(""), None);
        assert_eq!(checked_relative("."), None);
    }

    #[test]
    fn links_out_of_the_folder_are_not_read() {
        let t = tempfile::tempdir().unwrap();
        let inside = t.path().join("in");
        fs::create_dir(&inside).unwrap();
        fs::write(t.path().join("secret"), "s").unwrap();
        fs::write(inside.join("ok.json"), "{}").unwrap();
        std::os::unix::fs::symlink(t.path().join("secret"), inside.join("leak.json")).unwrap();
        std::os::unix::fs::symlink(t.path(), inside.join("dir")).unwrap();
        assert_eq!(
            read_inside(&inside, &inside.join("ok.json"), 10)
                .unwrap()
                .unwrap(),
            b"{}"
        );
        assert!(read_inside(&inside, &inside.join("leak.json"), 10).is_err());
        assert!(read_inside(&inside, &inside.join("dir/secret"), 10).is_err());
        assert!(read_inside(&inside, &inside.join("missing"), 10)
            .unwrap()
            .is_none());
        assert!(read_inside(&inside, &inside.join("ok.json"), 1).is_err());
        assert_eq!(read_repo_file(&inside, "ok.json").as_deref(), Some("{}"));
        assert_eq!(read_repo_file(&inside, "leak.json"), None);
        assert_eq!(read_repo_file(&inside, "dir/secret"), None);
    }

    #[test]
    fn copies_keep_links_as_links_and_skip_what_is_asked() {
        let t = tempfile::tempdir().unwrap();
        let src = t.path().join("src");
        fs::create_dir_all(src.join("a/.git")).unwrap();
        fs::create_dir_all(src.join("node_modules/x")).unwrap();
        fs::write(src.join("a/f.txt"), "f").unwrap();
        fs::write(src.join("a/.git/HEAD"), "h").unwrap();
        fs::write(src.join("node_modules/x/i.js"), "i").unwrap();
        std::os::unix::fs::symlink("/etc/passwd", src.join("a/link")).unwrap();
        let dst = t.path().join("dst");
        assert_eq!(copy_tree(&src, &dst, &[".git"]).unwrap(), 2);
        assert_eq!(fs::read(dst.join("a/f.txt")).unwrap(), b"f");
        assert!(!dst.join("a/.git").exists());
        assert_eq!(
            fs::read_link(dst.join("a/link")).unwrap(),
            Path::new("/etc/passwd")
        );
    }
}
