//! The test step of a repository (`mine --run-tests`): its own test suite, run once in the
//! sandbox with per-test coverage (crate `codemine-testrun`), gives every call-graph node
//! its `covering_tests` and, where no `--coverage` report was given for the repository, its
//! `test_cov_hits`, `covered_lines` and `coverable_lines`; every test becomes a row of the
//! `tests` table.
//!
//! The environment (virtualenv, `node_modules`, a build) is prepared once per repository,
//! commit and recipe in `{clone cache}/test-envs/` and reused by later runs; the commit's
//! tree is checked out (into `test-envs/checkouts/`, removed afterwards) only when no
//! environment exists yet. A suite that cannot be set up or run is a failure of this
//! repository (`tests_setup_failed`, `tests_run_failed`, with the log's tail); its nodes keep
//! null test columns and the run goes on.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use codemine_sandbox::{Sandbox, SandboxConfig};
use codemine_schemas::tests::TestRow;
use codemine_testrun::{Coverage, Prepared, RepoSource, RunnerOptions, TestOutcome, TestRunner};
use serde::{Deserialize, Serialize};

use super::repo::failure;
use crate::callgraph;
use crate::source::{self, RepoSpec};
use crate::stats::steps::{RepoTests, TestCounts};
use crate::stats::{Failure, RepoStats};
use crate::Error;

/// The folder of prepared environments under the clone cache (clones there end in `.git`).
pub const ENVS: &str = "test-envs";
/// The folder of the step's checkouts, under [`ENVS`].
const CHECKOUTS: &str = "checkouts";

/// What `--run-tests` was asked with (recorded in the rank marker and the fingerprint).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TestsSettings {
    /// `--no-sandbox`: the caller isolates already.
    pub no_sandbox: bool,
    /// The Python that makes virtualenvs (default `/usr/bin/python3`).
    pub python: Option<PathBuf>,
    /// Retry setups that failed in an earlier run (otherwise their failure is reused).
    pub retry_failed: bool,
    /// `--offline`: no network at all, so only environments prepared by an earlier run are
    /// used (a setup would reach the package index).
    pub offline: bool,
    /// `--validate-tasks`: the original and a stub of every kept function with covering
    /// tests run against them (`super::validate_tasks`, the `tasks` table).
    #[serde(default)]
    pub validate_tasks: bool,
}

/// The runner of a run's test suites, shared by the workers.
#[derive(Clone)]
pub struct TestsOptions {
    pub settings: TestsSettings,
    pub(super) runner: Arc<TestRunner>,
    /// How the sandbox isolates on this machine (stats.json `stages.tests.sandbox`).
    pub sandbox_info: serde_json::Value,
    pub sandboxed: bool,
    checkouts: PathBuf,
}

impl std::fmt::Debug for TestsOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TestsOptions {{ settings: {:?} }}", self.settings)
    }
}

impl TestsOptions {
    /// Makes the sandbox and the runner, before any mining: a machine that cannot sandbox
    /// (no bubblewrap, namespaces refused) is a usage error naming the reason.
    pub fn new(cache_dir: &Path, settings: TestsSettings) -> Result<TestsOptions, Error> {
        let usage = |e: &dyn std::fmt::Display| Error::Usage(format!("--run-tests: {e}"));
        if settings.no_sandbox {
            // The runner relies on the sandbox's fixed paths (/codemine/repo, /codemine/env);
            // running suites without it is not built yet.
            return Err(usage(
                &"--no-sandbox: running test suites without the sandbox is not supported yet \
                  (the runner needs the sandbox's mount namespace); install bubblewrap instead",
            ));
        }
        let sandbox = Sandbox::new(SandboxConfig::default()).map_err(|e| usage(&e))?;
        let sandbox_info = serde_json::to_value(sandbox.info()).unwrap_or_default();
        let sandboxed = sandbox.info().sandboxed;
        let mut options = RunnerOptions {
            retry_failed: settings.retry_failed,
            ..RunnerOptions::default()
        };
        if let Some(p) = &settings.python {
            options.python = p.clone();
        }
        // Absolute: the sandbox binds these folders, and libgit2 checks out into them.
        let envs = std::path::absolute(cache_dir.join(ENVS)).map_err(|e| usage(&e))?;
        let runner =
            TestRunner::new(Arc::new(sandbox), envs.clone(), options).map_err(|e| usage(&e))?;
        Ok(TestsOptions {
            settings,
            runner: Arc::new(runner),
            sandbox_info,
            sandboxed,
            checkouts: envs.join(CHECKOUTS),
        })
    }
}

/// The test-run step, with `--run-tests`: after the coverage reports, whose figures win.
pub(super) struct RunTests;

impl super::steps::RepoStep for RunTests {
    fn wanted(&self, opts: &super::MineOptions, _spec: &RepoSpec) -> bool {
        opts.tests.is_some()
    }

    fn run(&self, s: &mut super::steps::Enriching) {
        if let Some(t) = &s.opts.tests {
            *s.tests = step(s.spec, s.snap, t, s.graph, s.stats, s.failures);
        }
    }
}

/// Runs the repository's suite and sets the nodes' test columns; returns its `tests` rows.
pub(super) fn step(
    spec: &RepoSpec,
    snap: &source::Snapshot,
    opts: &TestsOptions,
    graph: &mut callgraph::Graph,
    stats: &mut RepoStats,
    failures: &mut Vec<Failure>,
) -> Vec<TestRow> {
    let t = Instant::now();
    let mut s = RepoTests {
        sandboxed: opts.sandboxed,
        reports_win: !spec.coverage.is_empty(),
        ..RepoTests::default()
    };
    let rows = match prepare(spec, snap, opts, &stats.repo) {
        Err(e) => {
            s.status = "setup_failed".into();
            failures.push(test_failure(stats, "tests_setup_failed", &e));
            Vec::new()
        }
        Ok(prepared) => {
            s.language = Some(language(&prepared));
            s.setup_seconds = prepared.setup_seconds;
            s.environment_reused = prepared.reused;
            match opts.runner.run_suite(&prepared) {
                Err(e) => {
                    s.status = "run_failed".into();
                    failures.push(test_failure(stats, "tests_run_failed", &e));
                    Vec::new()
                }
                Ok(run) => {
                    s.status = "ran".into();
                    let st = &run.stats;
                    s.counts = TestCounts {
                        tests_run: st.tests_run,
                        passed: st.passed,
                        failed: st.failed,
                        errors: st.errors,
                        timeouts: st.timeouts,
                        skipped: st.skipped,
                    };
                    s.seconds = st.seconds;
                    if let Some(cov) = &run.coverage {
                        attach(cov, graph, s.reports_win, &mut s);
                    }
                    run.tests
                        .into_iter()
                        .map(|r| TestRow {
                            repository: stats.repo.clone(),
                            test_id: r.id,
                            file: r.file,
                            outcome: outcome_name(r.outcome),
                            seconds: r.seconds,
                        })
                        .collect()
                }
            }
        }
    };
    s.step_seconds = t.elapsed().as_secs_f64();
    stats.tests = Some(s);
    rows
}

/// The environment prepared earlier for this repository, commit and recipe, or a new one
/// from a checkout of the commit.
fn prepare(
    spec: &RepoSpec,
    snap: &source::Snapshot,
    opts: &TestsOptions,
    name: &str,
) -> Result<Prepared, codemine_testrun::Error> {
    let recipe = spec.tests.as_ref();
    let runner = &opts.runner;
    let offline = |commit: &str| {
        codemine_testrun::Error::Request(format!(
            "--offline: no environment prepared for {name} at {commit} in the cache, and \
             making one needs the package index: run once without --offline"
        ))
    };
    match (snap.git_dir(), snap.sha.as_deref()) {
        (Some(git_dir), Some(sha)) => {
            if let Some(p) = runner.find_prepared(name, sha, recipe)? {
                return Ok(p);
            }
            if opts.settings.offline {
                return Err(offline(sha));
            }
            let checkout = Checkout::new(&opts.checkouts)?;
            checkout_commit(git_dir, sha, &checkout.0).map_err(|e| {
                codemine_testrun::Error::Request(format!("checking out {sha}: {e}"))
            })?;
            let repo = RepoSource {
                name,
                commit: sha,
                tree: &checkout.0,
            };
            runner.prepare(&repo, recipe)
        }
        // A plain folder has no commit: its files' names, sizes and times stand for one.
        _ => {
            let Some(dir) = spec.local_path() else {
                return Err(codemine_testrun::Error::Request(
                    "no commit and no local folder to test".into(),
                ));
            };
            let commit = folder_fingerprint(&dir);
            if opts.settings.offline {
                return match runner.find_prepared(name, &commit, recipe)? {
                    Some(p) => Ok(p),
                    None => Err(offline(&commit)),
                };
            }
            let repo = RepoSource {
                name,
                commit: &commit,
                tree: &dir,
            };
            runner.prepare(&repo, recipe)
        }
    }
}

/// A checkout folder of the step, removed when dropped.
struct Checkout(PathBuf);

impl Checkout {
    fn new(parent: &Path) -> Result<Checkout, codemine_testrun::Error> {
        static SEQ: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = parent.join(format!("co-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).map_err(|source| codemine_testrun::Error::Io {
            path: dir.clone(),
            what: "making the checkout folder".into(),
            source,
        })?;
        Ok(Checkout(dir))
    }
}

impl Drop for Checkout {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Writes the files of commit `sha` into `dir` (libgit2's checkout to another folder: the
/// repository's own work tree, index and HEAD are not touched).
fn checkout_commit(git_dir: &Path, sha: &str, dir: &Path) -> Result<(), git2::Error> {
    let repo = git2::Repository::open(git_dir)?;
    let commit = repo.find_commit(git2::Oid::from_str(sha)?)?;
    let tree = commit.tree()?;
    let mut co = git2::build::CheckoutBuilder::new();
    co.target_dir(dir)
        .force()
        .update_index(false)
        .recreate_missing(true);
    repo.checkout_tree(tree.as_object(), Some(&mut co))
}

/// A stand-in commit for a plain folder: a hash of its files' paths, sizes and modification
/// times (at most 200,000 entries; `.git` and `node_modules` left out).
pub(super) fn folder_fingerprint(dir: &Path) -> String {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    let walk = walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| e.file_name() != ".git" && e.file_name() != "node_modules");
    for e in walk.take(200_000).flatten() {
        let Ok(m) = e.metadata() else { continue };
        h.update(e.path().as_os_str().as_encoded_bytes());
        h.update(&m.len().to_le_bytes());
        let mtime = m
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos());
        h.update(&mtime.to_le_bytes());
    }
    format!("folder-{:016x}", h.digest())
}

/// Sets `covering_tests` on every node whose file the run measured, and the coverage
/// columns too unless the repository's reports gave them.
fn attach(cov: &Coverage, graph: &mut callgraph::Graph, reports_win: bool, s: &mut RepoTests) {
    // One string per test id, shared by the nodes it covers.
    let mut ids: HashMap<String, Arc<str>> = HashMap::new();
    let functions = graph.nodes.len();
    let all = graph.nodes.iter_mut().chain(graph.extra_nodes.iter_mut());
    for (k, node) in all.enumerate() {
        let (Ok(start), Ok(end)) = (u32::try_from(node.start_line), u32::try_from(node.end_line))
        else {
            continue;
        };
        let Some(f) = cov.function(&node.path, start, end) else {
            continue;
        };
        if k < functions {
            s.functions_measured += 1;
            s.functions_covered += u64::from(!f.covering_tests.is_empty());
        }
        let tests = f
            .covering_tests
            .into_iter()
            .map(|t| Arc::clone(ids.entry(t).or_insert_with_key(|t| Arc::from(t.as_str()))))
            .collect();
        node.covering_tests = Some(tests);
        if !reports_win {
            node.test_cov_hits = Some(i64::try_from(f.test_cov_hits).unwrap_or(i64::MAX));
            node.covered_lines = Some(i64::from(f.covered_lines));
            node.coverable_lines = Some(i64::from(f.coverable_lines));
        }
    }
}

fn language(p: &Prepared) -> String {
    serde_json::to_value(p.plan.language)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

fn outcome_name(o: TestOutcome) -> &'static str {
    match o {
        TestOutcome::Passed => "passed",
        TestOutcome::Failed => "failed",
        TestOutcome::Error => "error",
        TestOutcome::Skipped => "skipped",
        TestOutcome::Timeout => "timeout",
    }
}

/// A failure of the step, with the runner's reason (`no_suite`, `setup_failed`, ...) and
/// the log's tail.
fn test_failure(stats: &RepoStats, kind: &'static str, e: &codemine_testrun::Error) -> Failure {
    let mut f = failure(stats, None, "tests", kind, format!("{} ({})", e, e.kind()));
    f.log_tail = e.log_tail().filter(|t| !t.is_empty()).map(str::to_string);
    f
}
