//! What the eval crate's reference tests and benchmarks share (included with `#[path]`):
//! the Python that runs the reference implementations.

use std::path::PathBuf;

/// The workspace folder (the eval crate's parent).
#[allow(dead_code)]
pub fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `$CODEMINE_PYTHON`, else the workspace's `.venv` (made by scripts/setup.sh test), else
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

/// The commit of DeepSoftwareAnalytics/CodeSumEvaluation whose BLEU code the `bleu_*`
/// reference tests and benchmark run (its code is read at test time, never vendored).
#[allow(dead_code)]
pub const CODESUM_COMMIT: &str = "6cd87bb7d57284f5ea04c7ff7aa3f259bb4756d0";
#[allow(dead_code)]
pub const CODESUM_URL: &str = "https://github.com/DeepSoftwareAnalytics/CodeSumEvaluation";

fn git(args: &[&str]) -> Result<Vec<u8>, String> {
    let out = std::process::Command::new("git")
        .args(args)
        .output()
        .map_err(|e| format!("git: {e}"))?;
    if out.status.success() {
        Ok(out.stdout)
    } else {
        Err(format!(
            "git {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// Whether `dir` is a git directory that has [`CODESUM_COMMIT`].
fn has_commit(dir: &std::path::Path) -> bool {
    let d = format!("--git-dir={}", dir.display());
    git(&[
        &d,
        "cat-file",
        "-e",
        &format!("{CODESUM_COMMIT}^{{commit}}"),
    ])
    .is_ok()
}

/// Where CodeSumEvaluation's files come from: `$CODEMINE_CODESUM_DIR` (a checkout, a bare
/// or mirror git directory with [`CODESUM_COMMIT`], or a plain folder with its files), else
/// a blob-less clone of [`CODESUM_URL`] cached in `target/tmp/` (made on first use; needs
/// the network once).
#[allow(dead_code)]
pub enum CodeSum {
    Git(PathBuf),
    Folder(PathBuf),
}

#[allow(dead_code)]
pub fn codesum() -> Result<CodeSum, String> {
    if let Some(dir) = std::env::var_os("CODEMINE_CODESUM_DIR") {
        let dir = PathBuf::from(dir);
        for g in [dir.clone(), dir.join(".git")] {
            if has_commit(&g) {
                return Ok(CodeSum::Git(g));
            }
        }
        if dir.join("metrics/evaluate.py").is_file() {
            return Ok(CodeSum::Folder(dir));
        }
        return Err(format!(
            "CODEMINE_CODESUM_DIR={}: neither a git directory with commit {CODESUM_COMMIT} of \
             {CODESUM_URL} nor a folder with its metrics/evaluate.py",
            dir.display()
        ));
    }
    let cache = workspace_root().join(format!("target/tmp/CodeSumEvaluation-{CODESUM_COMMIT}.git"));
    if has_commit(&cache) {
        return Ok(CodeSum::Git(cache));
    }
    let parent = workspace_root().join("target/tmp");
    std::fs::create_dir_all(&parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    // Clone beside the cache and rename: a concurrent test never sees half a clone.
    let tmp = parent.join(format!("CodeSumEvaluation-{}.partial", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let t = tmp.display().to_string();
    git(&[
        "clone",
        "--quiet",
        "--bare",
        "--filter=blob:none",
        CODESUM_URL,
        &t,
    ])
    .map_err(|e| {
        let _ = std::fs::remove_dir_all(&tmp);
        format!(
            "the BLEU reference tests run CodeSumEvaluation's own code, and cloning it failed \
             ({e}). Without network access, point CODEMINE_CODESUM_DIR at a clone or git \
             directory of {CODESUM_URL} that has commit {CODESUM_COMMIT}"
        )
    })?;
    if !has_commit(&tmp) {
        return Err(format!(
            "{CODESUM_URL} no longer has commit {CODESUM_COMMIT}"
        ));
    }
    if std::fs::rename(&tmp, &cache).is_err() {
        let _ = std::fs::remove_dir_all(&tmp);
    }
    Ok(CodeSum::Git(cache))
}

impl CodeSum {
    /// The bytes of `path` (relative to the repository root) at [`CODESUM_COMMIT`].
    #[allow(dead_code)]
    pub fn read(&self, path: &str) -> Result<Vec<u8>, String> {
        match self {
            CodeSum::Git(g) => {
                let d = format!("--git-dir={}", g.display());
                git(&[&d, "show", &format!("{CODESUM_COMMIT}:{path}")])
            }
            CodeSum::Folder(f) => {
                std::fs::read(f.join(path)).map_err(|e| format!("{}: {e}", f.join(path).display()))
            }
        }
    }

    /// Writes the files the reference harness imports (`metrics/evaluate.py` and the three
    /// BLEU modules) under `dest`.
    #[allow(dead_code)]
    pub fn extract_metrics(&self, dest: &std::path::Path) -> Result<(), String> {
        for p in [
            "metrics/evaluate.py",
            "metrics/bleu/codenn_bleu.py",
            "metrics/bleu/google_bleu.py",
            "metrics/bleu/rencos_bleu.py",
        ] {
            let to = dest.join(p);
            if let Some(parent) = to.parent() {
                std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
            }
            std::fs::write(&to, self.read(p)?).map_err(|e| format!("{}: {e}", to.display()))?;
        }
        Ok(())
    }
}
