//! Runs a repository's own test suite, sandboxed, and says which tests execute each line
//! (and so each function): the environment is prepared once per repository, commit and
//! recipe and kept in a cache folder; each run works on a cheap copy of it.
//!
//! ```no_run
//! use codemine_sandbox::{Sandbox, SandboxConfig};
//! use codemine_testrun::{RepoSource, Rewrite, RunnerOptions, TestRunner};
//! use std::sync::Arc;
//!
//! let sandbox = Arc::new(Sandbox::new(SandboxConfig::default())?);
//! let runner = TestRunner::new(sandbox, "/cache/codemine/envs".into(), RunnerOptions::default())?;
//! let repo = RepoSource { name: "psf/requests", commit: "v2.31.0", tree: "/tmp/requests".as_ref() };
//! let prepared = runner.prepare(&repo, None)?;          // once; later calls reuse it
//! let suite = runner.run_suite(&prepared)?;              // whole suite, per-test coverage
//! let coverage = suite.coverage.as_ref().unwrap();
//! let f = coverage.function("src/requests/utils.py", 120, 140);
//! println!("{} tests, {:?}", suite.stats.tests_run, f.map(|f| f.covering_tests));
//! // pass@k: the covering tests only, against a copy with one file rewritten.
//! let rewrite = Rewrite { path: "src/requests/utils.py".into(), content: b"...".to_vec() };
//! let run = runner.run_selected(&prepared, &["tests/test_utils.py::test_x".into()], &[rewrite])?;
//! # Ok::<(), codemine_testrun::Error>(())
//! ```
//!
//! # What runs where
//!
//! Nothing of the repository runs outside the sandbox (crate `codemine-sandbox`): not its
//! setup (`pip install`, `npm ci`, `./configure`, `make`), not its tests, not even the
//! coverage tools that read what the tests wrote (coverage.py's report, gcov). The host
//! only copies files, reads the JSON those tools write (never following a symbolic link
//! out of the run's folder, with size limits) and parses it.
//!
//! Inside the sandbox the repository is always at `/codemine/repo` and its environment
//! (virtualenv, build tools) at `/codemine/env`, so a prepared environment works for
//! every copy of it; `/codemine/out` takes what a run reports, `/codemine/tools` holds
//! codemine's own helper scripts (read-only) and `/codemine/home` is an empty home. Setup
//! runs with the host's network (package registries); tests run with none.
//!
//! # Prepared environments
//!
//! [`TestRunner::prepare`] copies the repository's tree (without `.git`) into a staging
//! folder of the cache, runs the setup commands of its [`Plan`] there (as the sandbox's
//! user) and renames the result into place, so an environment appears complete or not at
//! all and two workers preparing the same one do not clash (the later rename loses and
//! uses the winner's). The folder's name is made of the repository, the commit and a hash
//! of the recipe (the plan detected from a tree is a function of both), so
//! [`TestRunner::find_prepared`] finds it without the tree; its `meta.json` records the
//! plan, each setup step's outcome and log tail, and the time taken. A setup that failed
//! (or a tree with no suite) is remembered (`<key>.failed.json`) and not retried unless
//! [`RunnerOptions::retry_failed`] says so. Runs never write into a prepared environment
//! (below), so any number of runs may use one at once.
//!
//! Python's virtualenv is made from [`RunnerOptions::python`] (default `/usr/bin/python3`);
//! a project that needs another Python gets it through that option (its installation is
//! bound read-only into the sandbox) or a recipe.
//!
//! # Runs on copies
//!
//! Every run ([`TestRunner::run_suite`], [`TestRunner::run_selected`]) sees the prepared
//! repository through a copy-on-write overlay ([`codemine_sandbox::Mount::Overlay`]): it
//! may build, write and delete anything, the changes land in the run's own scratch folder
//! (removed after the run) and the prepared environment is never written. Making the copy costs one mount, not a
//! file per file, whatever the size of the tree (`node_modules` included). For
//! [`TestRunner::run_selected`] the rewritten files are put into the overlay's upper
//! folder before the run. (A non-root caller's sandbox cannot mount overlays: the sandbox
//! copies the tree once per run there.) The environment folder (`/codemine/env`) is
//! read-only in runs.
//!
//! # Per-test coverage
//!
//! | language | tool | test | a line's hits |
//! |---|---|---|---|
//! | Python | coverage.py, one dynamic context per pytest node id (switched by codemine's pytest plugin) | pytest node id | 1 when executed (coverage.py records no counts) |
//! | JavaScript/TypeScript | V8 coverage: jest's own (`--coverageProvider=v8`) or c8 for mocha, one run per test file | test file | executions, summed over test files |
//! | C/C++ | gcov (`--coverage`), one run per ctest test (or listed test) with its own `GCOV_PREFIX` | ctest name | executions, summed over tests |
//!
//! [`Coverage::function`] turns a function's span into `covering_tests`,
//! `test_cov_hits`, `covered_lines` and `coverable_lines`.

mod c;
mod coverage;
mod js;
mod python;
mod recipe;
mod tree;

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use codemine_sandbox::{Limits, Mount, Network, Outcome, RunResult, RunSpec, Sandbox};
use serde::{Deserialize, Serialize};

pub use coverage::{Coverage, FunctionCoverage, LineCoverage};
pub use recipe::{Language, Plan, Recipe, Runner};

/// The repository inside the sandbox.
pub(crate) const REPO: &str = "/codemine/repo";
/// The prepared environment (virtualenv, tools) inside the sandbox.
pub(crate) const ENV: &str = "/codemine/env";
/// Where a run writes its reports, inside the sandbox.
pub(crate) const OUT: &str = "/codemine/out";
/// codemine's helper scripts, inside the sandbox.
pub(crate) const TOOLS: &str = "/codemine/tools";
/// The home folder inside the sandbox (an empty tmpfs).
pub(crate) const HOME: &str = "/codemine/home";

/// Changes whenever what a prepared environment holds, or how layouts are detected, changes
/// meaning: part of the key (so remembered failures are retried with the new rules too).
const ENV_FORMAT: &str = "codemine-testrun-env-3";
/// Largest report a run may leave (results, coverage JSON).
const MAX_REPORT: u64 = 1 << 30;
/// Largest log tail kept per step or run.
const TAIL: usize = 16 << 10;

/// Why a repository's suite could not be set up or run. Never a panic: each is a value
/// the caller records (failures.jsonl) before going on with the next repository.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// No known layout and no recipe, or a layout without tests.
    #[error("no test suite: {reason}")]
    NoSuite { reason: String },
    /// A setup command failed.
    #[error("setup failed at `{command}`: {outcome}")]
    Setup {
        command: String,
        outcome: String,
        log_tail: String,
    },
    /// The suite ran but produced no test results at all (it could not start, or
    /// collection failed everywhere).
    #[error("the test suite did not run: {reason}")]
    Suite { reason: String, log_tail: String },
    #[error("bad request: {0}")]
    Request(String),
    #[error(transparent)]
    Sandbox(#[from] codemine_sandbox::Error),
    #[error("{what} {}: {source}", path.display())]
    Io {
        path: PathBuf,
        what: String,
        #[source]
        source: std::io::Error,
    },
    /// A file a run left behind is not one the host may read (a link out of the run's
    /// folder, too large, not a regular file).
    #[error("refusing to read {}: {reason}", path.display())]
    Untrusted { path: PathBuf, reason: String },
    /// A report of a run is not what its tool writes.
    #[error("malformed report {name}: {reason}")]
    Report { name: String, reason: String },
}

impl Error {
    /// A short name for failures.jsonl: `no_suite`, `setup_failed`, `suite_failed`,
    /// `bad_request`, `sandbox_error`, `io_error`, `untrusted_output`, `bad_report`.
    pub fn kind(&self) -> &'static str {
        match self {
            Error::NoSuite { .. } => "no_suite",
            Error::Setup { .. } => "setup_failed",
            Error::Suite { .. } => "suite_failed",
            Error::Request(_) => "bad_request",
            Error::Sandbox(_) => "sandbox_error",
            Error::Io { .. } => "io_error",
            Error::Untrusted { .. } => "untrusted_output",
            Error::Report { .. } => "bad_report",
        }
    }

    /// The end of the log of the step that failed, where there is one.
    pub fn log_tail(&self) -> Option<&str> {
        match self {
            Error::Setup { log_tail, .. } | Error::Suite { log_tail, .. } => Some(log_tail),
            _ => None,
        }
    }
}

/// Settings of a [`TestRunner`].
#[derive(Debug, Clone)]
pub struct RunnerOptions {
    /// The Python that makes virtualenvs (it must be visible in the sandbox: under the
    /// system folders, or its installation prefix is bound read-only at the same path).
    pub python: PathBuf,
    /// Memory of a setup step and of a test run.
    pub setup_memory: u64,
    pub test_memory: u64,
    /// Processes and threads of a run.
    pub processes: u32,
    /// Retry a setup that failed before (otherwise its error is returned from the cache).
    pub retry_failed: bool,
}

impl Default for RunnerOptions {
    fn default() -> RunnerOptions {
        RunnerOptions {
            python: PathBuf::from("/usr/bin/python3"),
            setup_memory: 8 << 30,
            test_memory: 4 << 30,
            processes: 1024,
            retry_failed: false,
        }
    }
}

/// A repository to test: its name, the commit it is at, and its checked-out tree (a
/// folder holding the files at that commit; its `.git`, if any, is not copied).
#[derive(Debug, Clone, Copy)]
pub struct RepoSource<'a> {
    pub name: &'a str,
    pub commit: &'a str,
    pub tree: &'a Path,
}

/// A failed setup as the cache remembers it.
#[derive(Debug, Serialize, Deserialize)]
struct FailedSetup {
    kind: String,
    command: String,
    outcome: String,
    log_tail: String,
}

impl FailedSetup {
    /// The failures worth remembering: those that would happen again (not I/O errors).
    fn of(e: &Error) -> Option<FailedSetup> {
        match e {
            Error::Setup {
                command,
                outcome,
                log_tail,
            } => Some(FailedSetup {
                kind: "setup_failed".into(),
                command: command.clone(),
                outcome: outcome.clone(),
                log_tail: log_tail.clone(),
            }),
            Error::NoSuite { reason } => Some(FailedSetup {
                kind: "no_suite".into(),
                command: String::new(),
                outcome: reason.clone(),
                log_tail: String::new(),
            }),
            _ => None,
        }
    }

    fn into_error(self) -> Error {
        let remembered = " (remembered from an earlier attempt)";
        match self.kind.as_str() {
            "no_suite" => Error::NoSuite {
                reason: format!("{}{remembered}", self.outcome),
            },
            _ => Error::Setup {
                command: self.command,
                outcome: format!("{}{remembered}", self.outcome),
                log_tail: self.log_tail,
            },
        }
    }
}

/// One setup command's outcome.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepLog {
    pub command: String,
    pub outcome: String,
    pub seconds: f64,
    pub log_tail: String,
}

/// A prepared environment (see the crate docs), as `meta.json` records it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Prepared {
    pub repo: String,
    pub commit: String,
    /// The cache key: the folder's name.
    pub key: String,
    pub plan: Plan,
    pub steps: Vec<StepLog>,
    pub setup_seconds: f64,
    /// Python: which pytest plugins the environment has (they change the command line).
    #[serde(default)]
    pub python_plugins: Vec<String>,
    /// The folder (not recorded: found at load).
    #[serde(skip)]
    pub dir: PathBuf,
    /// Whether this call reused an environment prepared earlier.
    #[serde(skip)]
    pub reused: bool,
}

impl Prepared {
    /// The prepared repository tree on the host.
    pub fn repo_dir(&self) -> PathBuf {
        self.dir.join("repo")
    }

    /// The prepared environment folder (virtualenv, tools) on the host.
    pub fn env_dir(&self) -> PathBuf {
        self.dir.join("env")
    }
}

/// A test's outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TestOutcome {
    Passed,
    Failed,
    /// It could not run: setup, collection or import failed, or it left no result.
    Error,
    Skipped,
    /// Its own time limit (or the suite's) ended it.
    Timeout,
}

/// One test's result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TestResult {
    pub id: String,
    /// The repository-relative test file, where the runner knows it.
    pub file: Option<String>,
    pub outcome: TestOutcome,
    pub seconds: f64,
    /// The start of the failure's report, for failures and errors.
    pub message: Option<String>,
}

/// A suite run's counts.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SuiteStats {
    /// Tests that ran (passed, failed, errors and timeouts; not skipped ones).
    pub tests_run: u64,
    pub passed: u64,
    pub failed: u64,
    pub errors: u64,
    pub timeouts: u64,
    pub skipped: u64,
    /// Wall time of the run (tests and coverage reporting).
    pub seconds: f64,
    /// Time the environment's setup took (when it was made, not when reused).
    pub setup_seconds: f64,
    pub environment_reused: bool,
}

impl SuiteStats {
    fn count(tests: &[TestResult]) -> SuiteStats {
        let mut s = SuiteStats::default();
        for t in tests {
            match t.outcome {
                TestOutcome::Passed => s.passed += 1,
                TestOutcome::Failed => s.failed += 1,
                TestOutcome::Error => s.errors += 1,
                TestOutcome::Timeout => s.timeouts += 1,
                TestOutcome::Skipped => s.skipped += 1,
            }
        }
        s.tests_run = s.passed + s.failed + s.errors + s.timeouts;
        s
    }
}

/// The result of [`TestRunner::run_suite`].
#[derive(Debug, Clone)]
pub struct SuiteRun {
    pub tests: Vec<TestResult>,
    /// Per-line coverage with the tests of each line (None when the run left none).
    pub coverage: Option<Coverage>,
    pub stats: SuiteStats,
    /// How the suite's (last) sandboxed process ended.
    pub outcome: Outcome,
    pub log_tail: String,
}

/// A file of the repository replaced for one run (pass@k: a generated body in place).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rewrite {
    /// Repository-relative path of an existing regular file.
    pub path: String,
    pub content: Vec<u8>,
}

/// The result of [`TestRunner::run_selected`].
#[derive(Debug, Clone)]
pub struct SelectedRun {
    /// One result per selected test, in the order asked; a test that left no result is an
    /// `Error` ("no result").
    pub tests: Vec<TestResult>,
    /// Wall time of the whole call: the copy, the rewrites, the sandboxed commands and
    /// reading their reports.
    pub seconds: f64,
    /// Wall time of the sandboxed commands alone (sandbox start included); `seconds`
    /// minus this is the runner's own cost.
    pub command_seconds: f64,
    pub outcome: Outcome,
    pub log_tail: String,
    /// The rewritten sources did not build (C: the incremental build a rewrite needs
    /// failed), with the build's message: every test is an `Error` and none ran.
    pub build_failed: Option<String>,
}

impl SelectedRun {
    /// Every selected test passed.
    pub fn passed(&self) -> bool {
        !self.tests.is_empty() && self.tests.iter().all(|t| t.outcome == TestOutcome::Passed)
    }
}

/// A bounded log made of the tails of several runs.
#[derive(Default)]
pub(crate) struct Log(String);

impl Log {
    pub(crate) fn add(&mut self, title: &str, r: &RunResult) {
        self.0.push_str(&format!("--- {title}: {}\n", r.outcome));
        self.0.push_str(&r.stdout.text());
        self.0.push_str(&r.stderr.text());
        if self.0.len() > 2 * TAIL {
            let mut cut = self.0.len() - TAIL;
            while !self.0.is_char_boundary(cut) {
                cut += 1;
            }
            self.0.drain(..cut);
        }
    }

    pub(crate) fn note(&mut self, text: &str) {
        self.0.push_str(text);
        self.0.push('\n');
    }

    pub(crate) fn tail(&self) -> String {
        let mut cut = self.0.len().saturating_sub(TAIL);
        while !self.0.is_char_boundary(cut) {
            cut += 1;
        }
        self.0[cut..].to_string()
    }
}

/// Prepares environments and runs suites in them. Share it between threads: runs are
/// independent.
pub struct TestRunner {
    sandbox: Arc<Sandbox>,
    cache: PathBuf,
    tools: PathBuf,
    options: RunnerOptions,
    /// A read-only bind of the Python installation when it is not under the system folders.
    python_prefix: Option<PathBuf>,
}

static SEQ: AtomicU64 = AtomicU64::new(0);

fn unique(prefix: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    format!(
        "{prefix}{}-{}-{nanos}",
        std::process::id(),
        SEQ.fetch_add(1, Ordering::Relaxed)
    )
}

/// FNV-1a, 64 bits: a stable hash for cache keys (not a security boundary: the key also
/// carries the repository and commit in clear).
fn fnv(data: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in data {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

fn sanitize(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .take(80)
        .collect()
}

fn io(path: &Path, what: &str) -> impl FnOnce(std::io::Error) -> Error {
    let path = path.to_path_buf();
    let what = what.to_string();
    move |source| Error::Io { path, what, source }
}

/// The helper scripts, written into the cache once per version.
const TOOL_FILES: &[(&str, &str)] = &[
    ("codemine_pytest.py", python::PLUGIN),
    ("codemine_cov_export.py", python::EXPORT),
    ("codemine_gcov.sh", c::GCOV_SCRIPT),
];

impl TestRunner {
    /// A runner whose environments live under `cache` (made if missing).
    ///
    /// The sandbox must be a real one: prepared environments rely on the repository and
    /// the environment being at the same paths inside every run, which only the sandbox's
    /// mount namespace gives (`no_sandbox` cannot move folders).
    pub fn new(
        sandbox: Arc<Sandbox>,
        cache: PathBuf,
        options: RunnerOptions,
    ) -> Result<TestRunner, Error> {
        if !sandbox.info().sandboxed {
            return Err(Error::Request(
                "running a repository's tests needs the sandbox (its fixed paths /codemine/repo and /codemine/env); \
                 no_sandbox cannot provide them"
                    .into(),
            ));
        }
        fs::create_dir_all(&cache).map_err(io(&cache, "making the cache folder"))?;
        let mut all = Vec::new();
        for (name, text) in TOOL_FILES {
            all.extend_from_slice(name.as_bytes());
            all.extend_from_slice(text.as_bytes());
        }
        let tools = cache.join(format!("tools-{:016x}", fnv(&all)));
        if !tools.is_dir() {
            let staging = cache.join(unique(".tools-"));
            fs::create_dir(&staging).map_err(io(&staging, "making"))?;
            for (name, text) in TOOL_FILES {
                let p = staging.join(name);
                fs::write(&p, text).map_err(io(&p, "writing"))?;
            }
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(&staging, fs::Permissions::from_mode(0o755))
                .map_err(io(&staging, "setting the mode of"))?;
            // Another process may have won the race: theirs is the same.
            if fs::rename(&staging, &tools).is_err() {
                tree::remove(&staging);
            }
        }
        let python_prefix = python_prefix(&options.python);
        Ok(TestRunner {
            sandbox,
            cache,
            tools,
            options,
            python_prefix,
        })
    }

    /// The sandbox runs use.
    pub fn sandbox(&self) -> &Sandbox {
        &self.sandbox
    }

    fn base_env(&self, plan: &Plan) -> Vec<(OsString, OsString)> {
        let mut env: BTreeMap<String, String> = BTreeMap::new();
        let path = format!(
            "{ENV}/venv/bin:{ENV}/tools/node_modules/.bin:{REPO}/node_modules/.bin:{}",
            codemine_sandbox::DEFAULT_PATH
        );
        for (k, v) in [
            ("PATH", path.as_str()),
            ("HOME", HOME),
            ("TMPDIR", "/tmp"),
            ("LANG", "C.UTF-8"),
            ("LC_ALL", "C.UTF-8"),
            ("CI", "1"),
            ("PIP_NO_INPUT", "1"),
            ("PIP_DISABLE_PIP_VERSION_CHECK", "1"),
            ("PIP_PROGRESS_BAR", "off"),
            ("PIP_NO_CACHE_DIR", "1"),
            // The tree has no .git: setuptools-scm would fail to find a version.
            ("SETUPTOOLS_SCM_PRETEND_VERSION", "0.0.0"),
            ("npm_config_update_notifier", "false"),
            ("npm_config_fund", "false"),
            ("npm_config_audit", "false"),
            ("CODEMINE_REPO", REPO),
            ("CODEMINE_OUT", OUT),
        ] {
            env.insert(k.into(), v.into());
        }
        for (k, v) in &plan.env {
            env.insert(k.clone(), v.clone());
        }
        env.into_iter().map(|(k, v)| (k.into(), v.into())).collect()
    }

    fn system_mounts(&self) -> Vec<Mount> {
        let mut m = vec![Mount::read_only(&self.tools, TOOLS), Mount::tmpfs(HOME)];
        if let Some(p) = &self.python_prefix {
            m.push(Mount::read_only(p, p));
        }
        m
    }

    fn prepared_path(&self, key: &str) -> PathBuf {
        self.cache.join(key)
    }

    /// The cache key of a repository at a commit with a recipe (the plan detected from the
    /// tree is a function of the commit and the recipe, so the tree is not needed to find
    /// a prepared environment).
    fn key(&self, name: &str, commit: &str, recipe: Option<&Recipe>) -> String {
        let recipe_json = serde_json::to_string(&recipe).unwrap_or_default();
        let h = fnv(format!(
            "{ENV_FORMAT}\0{name}\0{commit}\0{recipe_json}\0{}",
            self.options.python.display()
        )
        .as_bytes());
        format!(
            "{}-{}-{h:016x}",
            sanitize(name),
            sanitize(&commit.chars().take(12).collect::<String>())
        )
    }

    /// The environment prepared earlier for this repository, commit and recipe, if any,
    /// without needing the tree (so a caller can skip checking it out). A setup that failed
    /// before is returned as its error (unless [`RunnerOptions::retry_failed`]).
    pub fn find_prepared(
        &self,
        name: &str,
        commit: &str,
        recipe: Option<&Recipe>,
    ) -> Result<Option<Prepared>, Error> {
        let key = self.key(name, commit, recipe);
        if let Some(p) = self.load(&self.prepared_path(&key))? {
            return Ok(Some(p));
        }
        if !self.options.retry_failed {
            let failed = self.cache.join(format!("{key}.failed.json"));
            if let Ok(Some(bytes)) = tree::read_inside(&self.cache, &failed, 1 << 20) {
                if let Ok(f) = serde_json::from_slice::<FailedSetup>(&bytes) {
                    return Err(f.into_error());
                }
            }
        }
        Ok(None)
    }

    /// Prepares the environment of `repo` (or finds it in the cache): see the crate docs.
    pub fn prepare(&self, repo: &RepoSource, recipe: Option<&Recipe>) -> Result<Prepared, Error> {
        if let Some(p) = self.find_prepared(repo.name, repo.commit, recipe)? {
            return Ok(p);
        }
        let key = self.key(repo.name, repo.commit, recipe);
        let dir = self.prepared_path(&key);
        let failed = self.cache.join(format!("{key}.failed.json"));
        let remember = |e: Error| -> Error {
            if let Some(f) = FailedSetup::of(&e) {
                if let Ok(json) = serde_json::to_vec(&f) {
                    let _ = fs::write(&failed, json);
                }
            }
            e
        };
        let tree_meta = fs::symlink_metadata(repo.tree)
            .map_err(io(repo.tree, "reading the repository tree"))?;
        if !tree_meta.is_dir() {
            return Err(Error::Request(format!(
                "{} is not a folder",
                repo.tree.display()
            )));
        }
        let plan = recipe::plan(repo.tree, recipe, &self.options.python).map_err(remember)?;

        let staging = self.cache.join(unique(&format!(".{key}.partial-")));
        let result = self.prepare_in(repo, &plan, &key, &staging);
        match result {
            Ok(mut prepared) => {
                if fs::rename(&staging, &dir).is_err() {
                    // Another worker prepared the same environment first: use theirs.
                    tree::remove(&staging);
                    if let Some(p) = self.load(&dir)? {
                        return Ok(p);
                    }
                    return Err(Error::Io {
                        path: dir,
                        what: "moving the prepared environment into".into(),
                        source: std::io::Error::other("the folder exists but has no meta.json"),
                    });
                }
                let _ = fs::remove_file(&failed);
                prepared.dir = dir;
                Ok(prepared)
            }
            Err(e) => {
                tree::remove(&staging);
                Err(remember(e))
            }
        }
    }

    fn load(&self, dir: &Path) -> Result<Option<Prepared>, Error> {
        let meta = dir.join("meta.json");
        let Some(bytes) = tree::read_inside(dir, &meta, 64 << 20).ok().flatten() else {
            return Ok(None);
        };
        let mut p: Prepared = serde_json::from_slice(&bytes).map_err(|e| Error::Report {
            name: meta.display().to_string(),
            reason: e.to_string(),
        })?;
        p.dir = dir.to_path_buf();
        p.reused = true;
        Ok(Some(p))
    }

    fn prepare_in(
        &self,
        repo: &RepoSource,
        plan: &Plan,
        key: &str,
        staging: &Path,
    ) -> Result<Prepared, Error> {
        let start = Instant::now();
        fs::create_dir(staging).map_err(io(staging, "making"))?;
        let (repo_dir, env_dir, out_dir) = (
            staging.join("repo"),
            staging.join("env"),
            staging.join("out"),
        );
        tree::copy_tree(repo.tree, &repo_dir, &[".git"])?;
        fs::create_dir(&env_dir).map_err(io(&env_dir, "making"))?;
        fs::create_dir(&out_dir).map_err(io(&out_dir, "making"))?;
        for d in [&repo_dir, &env_dir, &out_dir] {
            self.sandbox.hand_over(d, true)?;
        }
        let mut mounts = self.system_mounts();
        mounts.push(Mount::writable(&repo_dir, REPO));
        mounts.push(Mount::writable(&env_dir, ENV));
        mounts.push(Mount::writable(&out_dir, OUT));
        let env = self.base_env(plan);
        let deadline = start + Duration::from_secs(plan.setup_timeout.max(1));
        let mut steps = Vec::new();
        for command in &plan.setup {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(Error::Setup {
                    command: command.clone(),
                    outcome: format!(
                        "the setup's time limit ({} s) was used up before it",
                        plan.setup_timeout
                    ),
                    log_tail: String::new(),
                });
            }
            let spec = RunSpec {
                argv: vec!["/bin/sh".into(), "-c".into(), command.into()],
                cwd: REPO.into(),
                env: env.clone(),
                mounts: mounts.clone(),
                network: Network::Host,
                limits: Limits {
                    wall: left,
                    cpu: None,
                    memory: Some(self.options.setup_memory),
                    processes: Some(self.options.processes.max(2048)),
                    file_size: Some(8 << 30),
                    open_files: Some(16384),
                },
                tail_bytes: TAIL,
            };
            let t = Instant::now();
            let r = self.sandbox.run(&spec)?;
            let mut log = Log::default();
            log.add(command, &r);
            let step = StepLog {
                command: command.clone(),
                outcome: r.outcome.to_string(),
                seconds: t.elapsed().as_secs_f64(),
                log_tail: log.tail(),
            };
            if !r.outcome.success() {
                return Err(Error::Setup {
                    command: command.clone(),
                    outcome: step.outcome,
                    log_tail: step.log_tail,
                });
            }
            steps.push(step);
        }
        let python_plugins = if plan.language == Language::Python {
            python::probe_plugins(self, &mounts, &env)?
        } else {
            Vec::new()
        };
        tree::remove(&out_dir);
        let prepared = Prepared {
            repo: repo.name.to_string(),
            commit: repo.commit.to_string(),
            key: key.to_string(),
            plan: plan.clone(),
            steps,
            setup_seconds: start.elapsed().as_secs_f64(),
            python_plugins,
            dir: staging.to_path_buf(),
            reused: false,
        };
        let meta = staging.join("meta.json");
        let json = serde_json::to_vec_pretty(&prepared).map_err(|e| Error::Io {
            path: meta.clone(),
            what: "encoding".into(),
            source: std::io::Error::other(e),
        })?;
        fs::write(&meta, json).map_err(io(&meta, "writing"))?;
        Ok(prepared)
    }

    /// Runs the whole suite with per-test coverage.
    pub fn run_suite(&self, prepared: &Prepared) -> Result<SuiteRun, Error> {
        let start = Instant::now();
        let ws = Workspace::new(self, prepared, &[])?;
        let raw = match prepared.plan.language {
            Language::Python => python::run(&ws, None, true),
            Language::Javascript => js::run(&ws, None, true),
            Language::C => c::run(&ws, None, true),
        };
        let raw = raw.map_err(|e| ws.fail(e))?;
        let mut stats = SuiteStats::count(&raw.tests);
        stats.seconds = start.elapsed().as_secs_f64();
        stats.environment_reused = prepared.reused;
        stats.setup_seconds = prepared.setup_seconds;
        if raw.tests.is_empty() {
            return Err(Error::Suite {
                reason: format!("no test ran ({})", raw.outcome),
                log_tail: ws.log_tail(),
            });
        }
        Ok(SuiteRun {
            tests: raw.tests,
            coverage: raw.coverage,
            stats,
            outcome: raw.outcome,
            log_tail: ws.log_tail(),
        })
    }

    /// Runs only `tests` (ids as [`TestRunner::run_suite`] reports them), without coverage,
    /// on a copy of the prepared repository in which `rewrites` replace files.
    pub fn run_selected(
        &self,
        prepared: &Prepared,
        tests: &[String],
        rewrites: &[Rewrite],
    ) -> Result<SelectedRun, Error> {
        if tests.is_empty() {
            return Err(Error::Request("no tests selected".into()));
        }
        let start = Instant::now();
        let ws = Workspace::new(self, prepared, rewrites)?;
        let raw = match prepared.plan.language {
            Language::Python => python::run(&ws, Some(tests), false),
            Language::Javascript => js::run(&ws, Some(tests), false),
            Language::C => c::run(&ws, Some(tests), false),
        }
        .map_err(|e| ws.fail(e))?;
        let mut by_id: BTreeMap<&str, &TestResult> = BTreeMap::new();
        for t in &raw.tests {
            by_id.entry(t.id.as_str()).or_insert(t);
        }
        let results = tests
            .iter()
            .map(|id| match by_id.get(id.as_str()) {
                Some(t) => (*t).clone(),
                None => TestResult {
                    id: id.clone(),
                    file: None,
                    outcome: TestOutcome::Error,
                    seconds: 0.0,
                    message: Some(format!("no result ({})", raw.outcome)),
                },
            })
            .collect();
        Ok(SelectedRun {
            tests: results,
            seconds: start.elapsed().as_secs_f64(),
            command_seconds: ws
                .command_time
                .lock()
                .map(|t| t.as_secs_f64())
                .unwrap_or(0.0),
            outcome: raw.outcome,
            log_tail: ws.log_tail(),
            build_failed: raw.build_failed,
        })
    }
}

impl TestRunner {
    /// Whether the rewritten files still parse, checked inside the sandbox on a copy with
    /// `rewrites` in place (pass@k: a generated body with a syntax error is told apart from
    /// one that fails its tests). Python: each rewritten `.py` file is compiled with the
    /// environment's Python (`compile()`, nothing is imported or run, no `.pyc` written);
    /// returns the compiler's message when one does not. Other languages and other files:
    /// `None` (their build, in the test run, tells).
    pub fn check_syntax(
        &self,
        prepared: &Prepared,
        rewrites: &[Rewrite],
    ) -> Result<Option<String>, Error> {
        if prepared.plan.language != Language::Python {
            return Ok(None);
        }
        let files: Vec<String> = rewrites
            .iter()
            .filter(|r| r.path.ends_with(".py"))
            .filter_map(|r| tree::checked_relative(&r.path))
            .map(|p| format!("{REPO}/{}", p.display()))
            .collect();
        if files.is_empty() {
            return Ok(None);
        }
        let ws = Workspace::new(self, prepared, rewrites)?;
        let quoted: Vec<String> = files.iter().map(|f| recipe::shell_quote(f)).collect();
        let script = format!(
            "{} -c {} {}",
            recipe::VENV_PYTHON,
            recipe::shell_quote(SYNTAX_CHECK),
            quoted.join(" ")
        );
        let r = ws.sh("syntax check", &script, &[], Duration::from_secs(120))?;
        match r.outcome {
            Outcome::Exited { code: 0 } => Ok(None),
            Outcome::Exited {
                code: SYNTAX_ERROR_EXIT,
            } => {
                let mut m = r.stdout.text();
                if m.trim().is_empty() {
                    m = r.stderr.text();
                }
                Ok(Some(m.trim().to_string()))
            }
            o => Err(Error::Suite {
                reason: format!("the syntax check did not finish ({o})"),
                log_tail: ws.log_tail(),
            }),
        }
    }
}

/// The exit code of [`SYNTAX_CHECK`] when a file does not compile.
const SYNTAX_ERROR_EXIT: i32 = 3;
/// Compiles each file named on the command line; prints the first error and exits 3.
const SYNTAX_CHECK: &str = "import sys
for f in sys.argv[1:]:
    try:
        with open(f, 'rb') as h:
            compile(h.read(), f, 'exec', dont_inherit=True)
    except (SyntaxError, ValueError) as e:
        print('%s: %s: %s' % (f, type(e).__name__, e))
        sys.exit(3)
";

/// The installation prefix of `python` when it lies outside the sandbox's system folders
/// (pyenv, a custom build): bound read-only so that virtualenvs made from it work inside.
fn python_prefix(python: &Path) -> Option<PathBuf> {
    let real = fs::canonicalize(python).ok()?;
    if codemine_sandbox::DEFAULT_SYSTEM
        .iter()
        .any(|s| real.starts_with(s))
    {
        return None;
    }
    // <prefix>/bin/python3.x
    real.parent()?.parent().map(Path::to_path_buf)
}

/// What a language's run returns to the runner.
pub(crate) struct RawRun {
    pub(crate) tests: Vec<TestResult>,
    pub(crate) coverage: Option<Coverage>,
    pub(crate) outcome: Outcome,
    /// The build after a rewrite failed (C): its message. No test ran.
    pub(crate) build_failed: Option<String>,
}

/// One run's folder: the copy of the repository, the report folder, the log.
pub(crate) struct Workspace<'a> {
    pub(crate) runner: &'a TestRunner,
    pub(crate) prepared: &'a Prepared,
    dir: PathBuf,
    /// The overlay's scratch folder: the run's changes to the repository.
    scratch: PathBuf,
    pub(crate) out: PathBuf,
    log: std::sync::Mutex<Log>,
    /// Wall time of the sandboxed commands so far (from their start to their end).
    command_time: std::sync::Mutex<Duration>,
    /// Whether files of the repository were rewritten for this run.
    pub(crate) rewritten: bool,
}

impl Drop for Workspace<'_> {
    fn drop(&mut self) {
        tree::remove(&self.dir);
    }
}

impl<'a> Workspace<'a> {
    fn new(
        runner: &'a TestRunner,
        prepared: &'a Prepared,
        rewrites: &[Rewrite],
    ) -> Result<Workspace<'a>, Error> {
        let runs = runner.cache.join("runs");
        fs::create_dir_all(&runs).map_err(io(&runs, "making"))?;
        let dir = runs.join(unique("run-"));
        fs::create_dir(&dir).map_err(io(&dir, "making"))?;
        let ws = Workspace {
            runner,
            prepared,
            scratch: dir.join("repo"),
            out: dir.join("out"),
            dir,
            log: std::sync::Mutex::new(Log::default()),
            command_time: std::sync::Mutex::new(Duration::ZERO),
            rewritten: !rewrites.is_empty(),
        };
        fs::create_dir(&ws.out).map_err(io(&ws.out, "making"))?;
        runner.sandbox.hand_over(&ws.out, false)?;
        for rw in rewrites {
            ws.rewrite(rw)?;
        }
        Ok(ws)
    }

    /// Puts a rewritten file into the overlay's upper folder, over the prepared one.
    fn rewrite(&self, rw: &Rewrite) -> Result<(), Error> {
        let rel = tree::checked_relative(&rw.path).ok_or_else(|| {
            Error::Request(format!("{}: not a path inside the repository", rw.path))
        })?;
        if !tree::is_plain_file(&self.prepared.repo_dir(), &rel) {
            return Err(Error::Request(format!(
                "{}: not a regular file of the prepared repository",
                rw.path
            )));
        }
        let upper = self.scratch.join("upper");
        let sb = &self.runner.sandbox;
        let mut dir = upper.clone();
        fs::create_dir_all(&dir).map_err(io(&dir, "making"))?;
        sb.hand_over(&dir, false)?;
        for c in rel.parent().into_iter().flat_map(|p| p.components()) {
            dir.push(c);
            if !dir.is_dir() {
                fs::create_dir(&dir).map_err(io(&dir, "making"))?;
                sb.hand_over(&dir, false)?;
            }
        }
        let p = upper.join(&rel);
        fs::write(&p, &rw.content).map_err(io(&p, "writing"))?;
        sb.hand_over(&p, false)?;
        Ok(())
    }

    /// Mounts of a test run.
    fn mounts(&self) -> Vec<Mount> {
        let mut m = self.runner.system_mounts();
        m.push(Mount::overlay(
            self.prepared.repo_dir(),
            &self.scratch,
            REPO,
        ));
        m.push(Mount::read_only(self.prepared.env_dir(), ENV));
        m.push(Mount::writable(&self.out, OUT));
        m
    }

    /// Runs `script` with sh in the repository, with no network.
    pub(crate) fn sh(
        &self,
        title: &str,
        script: &str,
        extra_env: &[(&str, String)],
        wall: Duration,
    ) -> Result<RunResult, Error> {
        let mut env = self.runner.base_env(&self.prepared.plan);
        for (k, v) in extra_env {
            env.retain(|(ek, _)| ek != k);
            env.push(((*k).into(), v.into()));
        }
        let spec = RunSpec {
            argv: vec!["/bin/sh".into(), "-c".into(), script.into()],
            cwd: REPO.into(),
            env,
            mounts: self.mounts(),
            network: Network::None,
            limits: Limits {
                wall,
                cpu: None,
                memory: Some(self.runner.options.test_memory),
                processes: Some(self.runner.options.processes),
                file_size: Some(4 << 30),
                open_files: Some(8192),
            },
            tail_bytes: TAIL,
        };
        let t = Instant::now();
        let r = self.runner.sandbox.run(&spec)?;
        if let Ok(mut total) = self.command_time.lock() {
            *total += t.elapsed();
        }
        if let Ok(mut log) = self.log.lock() {
            log.add(title, &r);
        }
        Ok(r)
    }

    pub(crate) fn note(&self, text: &str) {
        if let Ok(mut log) = self.log.lock() {
            log.note(text);
        }
    }

    fn log_tail(&self) -> String {
        self.log.lock().map(|l| l.tail()).unwrap_or_default()
    }

    /// Attaches the log to a suite failure.
    fn fail(&self, e: Error) -> Error {
        match e {
            Error::Suite { reason, log_tail } if log_tail.is_empty() => Error::Suite {
                reason,
                log_tail: self.log_tail(),
            },
            e => e,
        }
    }

    /// Reads a report the run wrote under the report folder (`rel`), None when missing.
    pub(crate) fn read_out(&self, rel: &str) -> Result<Option<Vec<u8>>, Error> {
        tree::read_inside(&self.out, &self.out.join(rel), MAX_REPORT)
    }

    /// Makes a folder under the report folder, writable inside.
    pub(crate) fn out_dir(&self, rel: &str) -> Result<(), Error> {
        let p = self.out.join(rel);
        fs::create_dir_all(&p).map_err(io(&p, "making"))?;
        self.runner.sandbox.hand_over(&p, false)?;
        Ok(())
    }

    /// Writes a file of the host's into the report folder (selection lists).
    pub(crate) fn write_out(&self, rel: &str, data: &[u8]) -> Result<(), Error> {
        let p = self.out.join(rel);
        fs::write(&p, data).map_err(io(&p, "writing"))
    }

    /// The repository-relative path of a path inside the sandbox, if it is in the
    /// repository.
    pub(crate) fn repo_relative(&self, inside: &str) -> Option<String> {
        let rest = inside.strip_prefix(REPO)?.strip_prefix('/')?;
        tree::checked_relative(rest).map(|p| p.to_string_lossy().into_owned())
    }

    /// Per-test and suite time limits of the plan.
    pub(crate) fn per_test(&self) -> Duration {
        Duration::from_secs(self.prepared.plan.per_test_timeout.max(1))
    }

    pub(crate) fn suite_time(&self) -> Duration {
        Duration::from_secs(self.prepared.plan.test_timeout.max(1))
    }
}
