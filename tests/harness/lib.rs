//! The end-to-end test harness shared by `tests/` and `examples/`: fixture git repositories
//! built with git2 (fixed author and committer dates, so results are deterministic), a
//! runner for the real `codemine` binary, and an independent Parquet reader (pyarrow, run
//! as a subprocess) so shards are never checked by the code that wrote them.

pub mod corpus;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use git2::{IndexAddOption, Oid, Repository, Signature, Time};
use serde_json::Value;

/// 2024-01-15 10:00:00 UTC: the first fixture commit; each later commit is a day after.
pub const EPOCH: i64 = 1_705_312_800;

/// A git repository built commit by commit in a folder.
pub struct RepoBuilder {
    pub repo: Repository,
    pub path: PathBuf,
    time: i64,
}

impl RepoBuilder {
    pub fn init(path: &Path) -> Self {
        fs::create_dir_all(path).unwrap();
        let repo = Repository::init(path).unwrap();
        // A fixed default branch, whatever the machine's git configuration says.
        repo.set_head("refs/heads/main").unwrap();
        Self {
            repo,
            path: path.to_path_buf(),
            time: EPOCH,
        }
    }

    /// Writes a file in the working tree (parents created).
    pub fn write(&self, rel: &str, content: impl AsRef<[u8]>) -> &Self {
        let p = self.path.join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, content).unwrap();
        self
    }

    pub fn remove(&self, rel: &str) -> &Self {
        fs::remove_file(self.path.join(rel)).unwrap();
        self
    }

    #[cfg(unix)]
    pub fn symlink(&self, rel: &str, target: &str) -> &Self {
        let p = self.path.join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(target, p).unwrap();
        self
    }

    /// Stages everything (deletions too) and commits with a fixed date, one day after
    /// the previous commit.
    pub fn commit(&mut self, message: &str) -> Oid {
        let (tree, sig) = self.stage();
        let tree = self.repo.find_tree(tree).unwrap();
        let parent = self.repo.head().ok().and_then(|h| h.peel_to_commit().ok());
        let parents: Vec<&git2::Commit> = parent.iter().collect();
        self.repo
            .commit(Some("HEAD"), &sig, &sig, message, &tree, &parents)
            .unwrap()
    }

    /// Stages the working tree (deletions too) and returns its tree and the next commit's
    /// signature, dated one day after the previous commit.
    fn stage(&mut self) -> (Oid, Signature<'static>) {
        let mut index = self.repo.index().unwrap();
        index.add_all(["*"], IndexAddOption::DEFAULT, None).unwrap();
        index.update_all(["*"], None).unwrap();
        index.write().unwrap();
        let tree = index.write_tree().unwrap();
        let sig = Signature::new(
            "Fixture Author",
            "fixture@example.com",
            &Time::new(self.time, 0),
        )
        .unwrap();
        self.time += 86_400;
        (tree, sig)
    }

    /// Sets the date of the next commit (later ones follow a day apart), e.g. to make a
    /// commit older than its parent, as clock skew does.
    pub fn set_time(&mut self, time: i64) -> &mut Self {
        self.time = time;
        self
    }

    /// Renames a file in the working tree.
    pub fn rename(&self, from: &str, to: &str) -> &Self {
        let to_path = self.path.join(to);
        fs::create_dir_all(to_path.parent().unwrap()).unwrap();
        fs::rename(self.path.join(from), to_path).unwrap();
        self
    }

    /// Switches HEAD to `branch` (created at HEAD when missing) and checks out its tree.
    pub fn checkout(&self, branch: &str) {
        let head = self.repo.head().unwrap().peel_to_commit().unwrap();
        if self
            .repo
            .find_branch(branch, git2::BranchType::Local)
            .is_err()
        {
            self.repo.branch(branch, &head, false).unwrap();
        }
        let refname = format!("refs/heads/{branch}");
        let obj = self.repo.revparse_single(&refname).unwrap();
        self.repo
            .checkout_tree(
                &obj,
                Some(
                    git2::build::CheckoutBuilder::new()
                        .force()
                        .remove_untracked(true),
                ),
            )
            .unwrap();
        self.repo.set_head(&refname).unwrap();
    }

    /// Commits the working tree as a merge of HEAD and `branch`: the caller has written the
    /// merged content (a resolution may change lines, as an evil merge does).
    pub fn merge_commit(&mut self, branch: &str, message: &str) -> Oid {
        let (tree, sig) = self.stage();
        let tree = self.repo.find_tree(tree).unwrap();
        let other = self
            .repo
            .revparse_single(&format!("refs/heads/{branch}"))
            .unwrap()
            .peel_to_commit()
            .unwrap();
        let head = self.repo.head().unwrap().peel_to_commit().unwrap();
        self.repo
            .commit(Some("HEAD"), &sig, &sig, message, &tree, &[&head, &other])
            .unwrap()
    }

    pub fn tag(&self, name: &str, oid: Oid) {
        let obj = self.repo.find_object(oid, None).unwrap();
        self.repo.tag_lightweight(name, &obj, false).unwrap();
    }

    pub fn branch(&self, name: &str, oid: Oid) {
        let c = self.repo.find_commit(oid).unwrap();
        self.repo.branch(name, &c, true).unwrap();
    }

    /// `file://` URL of this repository.
    pub fn url(&self) -> String {
        format!("file://{}", self.path.display())
    }
}

/// The workspace root (where Cargo.toml of the root package lives).
pub fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The `codemine` binary that `cargo test --workspace` built next to the test executables
/// (or `$CODEMINE_BIN`).
pub fn binary() -> PathBuf {
    if let Some(p) = std::env::var_os("CODEMINE_BIN") {
        return PathBuf::from(p);
    }
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().and_then(|d| d.parent()).unwrap();
    let bin = dir.join(format!("codemine{}", std::env::consts::EXE_SUFFIX));
    assert!(
        bin.exists(),
        "{} not found: run the tests with `cargo test --workspace`, which builds it",
        bin.display()
    );
    bin
}

/// Runs `codemine ARGS` with a private cache and no terminal.
pub fn codemine(args: &[&str], cache: &Path) -> Output {
    Command::new(binary())
        .args(args)
        .env("CODEMINE_CACHE", cache)
        .env("CI", "1")
        .output()
        .unwrap()
}

/// Panics with the binary's output when `out` is not a success.
pub fn assert_success(out: &Output) {
    assert!(
        out.status.success(),
        "codemine failed ({:?})\n--- stdout\n{}\n--- stderr\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The WordNet 3.0 database of METEOR's synonym stage: `$CODEMINE_WORDNET`, else Debian's
/// wordnet-base folder that the test command installs.
pub fn wordnet_dir() -> PathBuf {
    let dir = std::env::var_os("CODEMINE_WORDNET")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/share/wordnet"));
    assert!(
        dir.join("index.noun").is_file(),
        "no WordNet in {}: run the tests with ./scripts/test.sh, which installs it",
        dir.display()
    );
    dir
}

/// The Python interpreter with pyarrow: `$CODEMINE_PYTHON`, else the `.venv` that the
/// test command sets up, else `python3`.
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

/// Runs a Python script (with pyarrow available) and parses its stdout as JSON.
pub fn python_json(script: &str, args: &[&str]) -> Value {
    let out = Command::new(python())
        .arg("-c")
        .arg(script)
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "python failed (is pyarrow installed? run ./scripts/test.sh):\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Every shard under `dir`, read by pyarrow: file name → {schema, rows, columns}, where
/// `schema` is [[field, arrow type]], and `columns` has each column's compression and
/// whether any chunk is dictionary-encoded.
pub fn read_shards(dir: &Path) -> Value {
    python_json(include_str!("read_shards.py"), &[dir.to_str().unwrap()])
}

/// All rows of all shards under `dir`, in shard-name order.
pub fn shard_rows(dir: &Path) -> Vec<Value> {
    let shards = read_shards(dir);
    let files = shards.as_object().unwrap();
    let mut names: Vec<&String> = files.keys().collect();
    names.sort();
    names
        .iter()
        .flat_map(|n| files[*n]["rows"].as_array().unwrap().clone())
        .collect()
}

/// The row whose `key` field equals `value`, panicking with the available values if none.
pub fn find_row<'a>(rows: &'a [Value], key: &str, value: &str) -> &'a Value {
    rows.iter().find(|r| r[key] == value).unwrap_or_else(|| {
        let have: Vec<&Value> = rows.iter().map(|r| &r[key]).collect();
        panic!("no row with {key} = {value:?}; have {have:?}")
    })
}

/// failures.jsonl of an output folder.
pub fn failures(out: &Path) -> Vec<Value> {
    let text = fs::read_to_string(out.join("failures.jsonl")).unwrap();
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// stats.json of an output folder.
pub fn stats(out: &Path) -> Value {
    serde_json::from_str(&fs::read_to_string(out.join("stats.json")).unwrap()).unwrap()
}

/// `git` on the command line (an independent reference), returning trimmed stdout.
pub fn git(repo: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// The call graph of an output folder, read by pyarrow: `nodes` rows and `edges` rows that
/// name caller and callee as `path:qualified_name` (callee null outside the repository).
pub fn read_graph(out: &Path) -> Value {
    python_json(include_str!("read_graph.py"), &[out.to_str().unwrap()])
}

/// The edges of `caller` (`path:qualified_name`) as (callee as written, callee or "-",
/// category), in call-site order.
pub fn edges_of(graph: &Value, caller: &str) -> Vec<(String, String, String)> {
    graph["edges"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["caller"] == caller)
        .map(|e| {
            (
                e["name"].as_str().unwrap().to_string(),
                e["callee"].as_str().unwrap_or("-").to_string(),
                e["category"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// A node's coverage columns: (`test_cov_hits`, `covered_lines`, `coverable_lines`).
pub fn coverage_of(node: &Value) -> (Option<i64>, Option<i64>, Option<i64>) {
    (
        node["test_cov_hits"].as_i64(),
        node["covered_lines"].as_i64(),
        node["coverable_lines"].as_i64(),
    )
}

/// Asserts that the edges of `caller` (as [`edges_of`] gives them) are exactly `want`:
/// (callee as written, callee `path:qualified_name` or `-`, category), in call order.
pub fn assert_edges(graph: &Value, caller: &str, want: &[(&str, &str, &str)]) {
    let got = edges_of(graph, caller);
    let want: Vec<(String, String, String)> = want
        .iter()
        .map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()))
        .collect();
    assert_eq!(got, want, "edges of {caller}");
}

/// Mines the repository at `repo` into `tmp/out` with extra arguments, asserting success.
pub fn mine_into(repo: &Path, tmp: &Path, extra: &[&str]) -> PathBuf {
    let out = tmp.join("out");
    let mut args = vec![
        "mine",
        "--repo",
        repo.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let res = codemine(&args, &tmp.join("cache"));
    assert_success(&res);
    out
}

/// A fixture repository mined once by [`Mined::files`]: its CSN rows, output folder and
/// commit.
pub struct Mined {
    pub rows: Vec<Value>,
    pub out: PathBuf,
    pub sha: String,
    name: String,
    _tmp: tempfile::TempDir,
}

impl Mined {
    /// Commits `files` (path, content) to a repository called `name`, mines it with extra
    /// arguments and reads its CSN rows back.
    pub fn files(name: &str, files: &[(&str, &str)], extra: &[&str]) -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let mut r = RepoBuilder::init(&tmp.path().join(name));
        for (path, content) in files {
            r.write(path, content);
        }
        r.commit(name);
        let out = mine_into(&r.path, tmp.path(), extra);
        let sha = git(&r.path, &["rev-parse", "HEAD"]);
        Mined {
            rows: shard_rows(&out.join("csn")),
            out,
            sha,
            name: name.to_string(),
            _tmp: tmp,
        }
    }

    /// The CSN `url` of lines `first` to `last` of `path` (a local repository is named by
    /// its folder).
    pub fn url(&self, path: &str, first: u32, last: u32) -> String {
        format!(
            "https://github.com/{}/blob/{}/{path}#L{first}-L{last}",
            self.name, self.sha
        )
    }
}
