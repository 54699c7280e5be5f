//! What the reference tests share: the Python that runs docstring-parser, the copy of The
//! Vault's docstring parser, and the run of `tests/reference/docstring_parser_ref.py`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

/// The workspace folder (this crate's parent).
pub fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `$CODEMINE_PYTHON` (scripts/test.sh sets it to `.venv/bin/python`), else the workspace's
/// `.venv`, else `python3`.
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

/// The reference script.
pub fn reference_script() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/reference/docstring_parser_ref.py")
}

/// Runs the reference script with `python` over `inputs` (one JSON object each), with
/// `PYTHONPATH` set when given; one output object per input.
pub fn run_reference(python: &Path, pythonpath: Option<&Path>, inputs: &[Value]) -> Vec<Value> {
    let mut cmd = Command::new(python);
    cmd.arg(reference_script())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(p) = pythonpath {
        cmd.env("PYTHONPATH", p);
    }
    let mut child = cmd.spawn().unwrap_or_else(|e| {
        panic!(
            "cannot run {} ({e}): the reference tests need Python with docstring-parser \
             (scripts/setup.sh test makes .venv; or set CODEMINE_PYTHON)",
            python.display()
        )
    });
    let input: String = inputs.iter().map(|v| format!("{v}\n")).collect();
    let mut stdin = child.stdin.take().expect("stdin is piped");
    // Written from a thread: the script answers line by line and a large input would
    // otherwise fill both pipes.
    let writer = std::thread::spawn(move || {
        use std::io::Write;
        stdin.write_all(input.as_bytes())
    });
    let out = child.wait_with_output().expect("the reference script runs");
    writer
        .join()
        .expect("the writer thread")
        .expect("stdin written");
    assert!(
        out.status.success(),
        "{} {} failed: {}\n(the reference tests need docstring-parser==0.18.0 from \
         tests/requirements.txt: scripts/setup.sh test, or CODEMINE_PYTHON)",
        python.display(),
        reference_script().display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("the script prints JSON lines"))
        .collect();
    assert_eq!(lines.len(), inputs.len(), "one output line per input");
    lines
}

/// The commit of nmd-2000/docstring_parser, The Vault's fork of docstring-parser (its
/// `STYLE_MAP` in TheVault's src/utils/utils.py names its Javadoc, JSDoc, PHPDoc, RDoc,
/// XML and RustDoc styles), whose parsers the Vault reference tests run. Not on a
/// registry: it is read at test time from a git directory, never vendored.
pub const VAULT_PARSER_COMMIT: &str = "45611673d873dac2eb93c356ccdeb05f9a45df9f";
pub const VAULT_PARSER_URL: &str = "https://github.com/nmd-2000/docstring_parser";

fn git(args: &[&str]) -> Result<Vec<u8>, String> {
    let out = Command::new("git")
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

/// A folder holding The Vault's `docstring_parser` package at [`VAULT_PARSER_COMMIT`],
/// extracted from `$CODEMINE_VAULT_DOCSTRING_DIR` (a clone, bare or not) or from a
/// blob-less clone cached under target/tmp (which needs the network once).
pub fn vault_parser(dest: &Path) -> Result<PathBuf, String> {
    let git_dir = match std::env::var_os("CODEMINE_VAULT_DOCSTRING_DIR") {
        Some(d) => {
            let d = PathBuf::from(d);
            [d.join(".git"), d.clone()]
                .into_iter()
                .find(|g| has_commit(g))
                .ok_or_else(|| {
                    format!(
                        "CODEMINE_VAULT_DOCSTRING_DIR={}: not a git directory with commit \
                         {VAULT_PARSER_COMMIT} of {VAULT_PARSER_URL}",
                        d.display()
                    )
                })?
        }
        None => cached_clone()?,
    };
    let g = format!("--git-dir={}", git_dir.display());
    let names = git(&[
        &g,
        "ls-tree",
        "-r",
        "--name-only",
        VAULT_PARSER_COMMIT,
        "docstring_parser",
    ])?;
    for name in String::from_utf8_lossy(&names).lines() {
        if !name.ends_with(".py") || name.contains("/tests/") {
            continue;
        }
        let to = dest.join(name);
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
        }
        let data = git(&[&g, "show", &format!("{VAULT_PARSER_COMMIT}:{name}")])?;
        std::fs::write(&to, data).map_err(|e| format!("{}: {e}", to.display()))?;
    }
    Ok(dest.to_path_buf())
}

fn has_commit(dir: &Path) -> bool {
    let d = format!("--git-dir={}", dir.display());
    git(&[
        &d,
        "cat-file",
        "-e",
        &format!("{VAULT_PARSER_COMMIT}^{{commit}}"),
    ])
    .is_ok()
}

fn cached_clone() -> Result<PathBuf, String> {
    let parent = workspace_root().join("target/tmp");
    let cache = parent.join(format!("vault-docstring_parser-{VAULT_PARSER_COMMIT}.git"));
    if has_commit(&cache) {
        return Ok(cache);
    }
    std::fs::create_dir_all(&parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    // Cloned beside the cache and renamed: a concurrent test never sees half a clone.
    let tmp = parent.join(format!(
        "vault-docstring_parser-{}.partial",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&tmp);
    let t = tmp.display().to_string();
    git(&[
        "clone",
        "--quiet",
        "--bare",
        "--filter=blob:none",
        VAULT_PARSER_URL,
        &t,
    ])
    .map_err(|e| {
        let _ = std::fs::remove_dir_all(&tmp);
        format!(
            "The Vault's docstring parser is read from {VAULT_PARSER_URL}, and cloning it \
                 failed ({e}). Without network access, point CODEMINE_VAULT_DOCSTRING_DIR at \
                 a clone that has commit {VAULT_PARSER_COMMIT}"
        )
    })?;
    if !has_commit(&tmp) {
        return Err(format!(
            "{VAULT_PARSER_URL} no longer has commit {VAULT_PARSER_COMMIT}"
        ));
    }
    if std::fs::rename(&tmp, &cache).is_err() {
        let _ = std::fs::remove_dir_all(&tmp);
    }
    Ok(cache)
}
