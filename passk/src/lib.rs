//! Execution-based scoring (`codemine eval --execute`, issue 32): every generated sample
//! replaces its function in the repository, the function's covering tests (found by
//! `mine --run-tests`) run in the sandbox on a copy of the environment prepared then, and
//! pass@k is computed with the unbiased estimator of Chen et al. 2021.
//!
//! - [`tasks`]: the functions with covering tests of a codemine output (call-graph nodes,
//!   joined to the repositories' commits);
//! - [`predictions`]: the samples per id (`samples` or `prediction`);
//! - [`splice`]: a sample (a body or a whole function) in place of the function's lines;
//! - [`score`]: pass@k and exact match per task and their means overall, by YABLoCo
//!   category, by language and by repository;
//! - [`output`]: the per-sample table, Parquet or JSON lines;
//! - [`journal`]: the finished jobs of a run, so that a killed run resumes;
//! - [`Executor`] (here): one sample's run and its [`Outcome`].
//!
//! Nothing of the repository runs on the host: the syntax check (Python's `compile()`) and
//! the tests run in the sandbox (`codemine-testrun`). The host only reads Parquet, the
//! function's file from the prepared environment, and the runner's reports.

pub mod journal;
pub mod output;
pub mod predictions;
pub mod score;
pub mod splice;
pub mod stubs;
pub mod tasks;

use std::fmt;
use std::path::PathBuf;
use std::time::Instant;

use codemine_testrun::{Prepared, Recipe, Rewrite, TestOutcome, TestRunner};
use serde::{Deserialize, Serialize};

pub use score::{pass_at_k, Report};
pub use tasks::Task;

/// Largest source file a sample is spliced into.
const MAX_SOURCE: u64 = 16 << 20;

/// Why an evaluation could not start (one sample's trouble is its [`Outcome`], not this).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The output folder lacks what execution needs, or a table is not codemine's.
    #[error("{}: {reason}", path.display())]
    Data { path: PathBuf, reason: String },
    /// A line of the predictions file is not a prediction.
    #[error("{}:{line}: {reason}", path.display())]
    Predictions {
        path: PathBuf,
        line: usize,
        reason: String,
    },
    #[error("{what} {}: {source}", path.display())]
    Io {
        path: PathBuf,
        what: &'static str,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Parquet(#[from] parquet::errors::ParquetError),
    #[error(transparent)]
    Arrow(#[from] arrow_schema::ArrowError),
}

/// What one sample did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Every covering test passed.
    Pass,
    /// A covering test failed (an assertion, or an exception the body raised).
    Fail,
    /// A covering test ran past its time limit (or the run past the suite's).
    Timeout,
    /// The tests could not run: no prepared environment, the function not found in its
    /// file, collection or setup failed, or a test left no result.
    Error,
    /// The rewritten file does not parse (Python: `compile()` in the sandbox).
    SyntaxError,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Pass => "pass",
            Outcome::Fail => "fail",
            Outcome::Timeout => "timeout",
            Outcome::Error => "error",
            Outcome::SyntaxError => "syntax_error",
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One sample's result (a row of `--per-sample`; [`output::SCHEMA`] has the same fields).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SampleResult {
    pub id: String,
    /// The sample's 0-based index in its prediction line.
    pub sample: usize,
    pub repository: String,
    pub language: String,
    pub outcome: Outcome,
    /// Wall time of the sample: splice, syntax check and test run.
    pub seconds: f64,
    /// The covering tests that did not pass (failed, timed out, errors), in the order run.
    pub failing_tests: Vec<String>,
    /// Why, in short, when the sample did not pass; then the log's tail.
    pub reason: Option<String>,
    pub log_tail: String,
    /// With `--validate`: whether the task is valid ([`Validation`]); None otherwise or
    /// when no verdict is possible.
    pub task_valid: Option<bool>,
    /// The function's YABLoCo category (`project`, `same_package`, `same_file`, `stdlib`,
    /// `none`).
    pub category: String,
    /// YABLoCo's exact match of the sample with the original it replaces
    /// ([`splice::exact_match`], [`splice::Spliced::reference`]); None when the original
    /// could not be read or the sample not put in place.
    pub exact_match: Option<bool>,
}

/// Runs samples of tasks with a [`TestRunner`] whose cache holds the environments the
/// mining run prepared.
pub struct Executor<'a> {
    runner: &'a TestRunner,
    /// Per-test time limit in seconds, overriding the environment's plan.
    per_test_timeout: Option<u64>,
}

/// The environment of a task, looked up once per repository and commit.
pub enum Environment {
    Ready(Box<Prepared>),
    /// Why there is none (never prepared, or its setup failed).
    Missing(String),
}

impl<'a> Executor<'a> {
    pub fn new(runner: &'a TestRunner, per_test_timeout: Option<u64>) -> Executor<'a> {
        Executor {
            runner,
            per_test_timeout,
        }
    }

    /// The environment `mine --run-tests` prepared for the task's repository and commit
    /// with `recipe` (the manifest's `tests`, None for a detected layout): the recipe is
    /// part of the environment's cache key.
    pub fn environment(&self, task: &Task, recipe: Option<&Recipe>) -> Environment {
        match self
            .runner
            .find_prepared(&task.repository, &task.commit, recipe)
        {
            Ok(Some(mut p)) => {
                if let Some(t) = self.per_test_timeout {
                    p.plan.per_test_timeout = t;
                }
                Environment::Ready(Box::new(p))
            }
            Ok(None) => Environment::Missing(format!(
                "no prepared test environment for {} at {} in the cache (mine it with --run-tests and the same --cache; a manifest recipe needs the same --manifest)",
                task.repository, task.commit
            )),
            Err(e) => Environment::Missing(format!(
                "the test environment of {} at {}: {e}",
                task.repository, task.commit
            )),
        }
    }

    /// Runs one sample of `task` in `env`.
    pub fn run(&self, task: &Task, env: &Environment, index: usize, sample: &str) -> SampleResult {
        self.run_what(task, env, index, Sample::Text(sample))
    }

    /// Whether the task can tell right from wrong, as EvoCodeBench checks it: the original
    /// function must pass its covering tests and a stub must not ([`stubs`]: a body that
    /// fails at once, per language; a language without a stub gets no verdict).
    pub fn validate(&self, task: &Task, env: &Environment) -> Validation {
        let gold = self.run_what(task, env, 0, Sample::Original);
        let stub = self.run_what(task, env, 0, Sample::Stub);
        let stub_known = stub.reason.as_deref() != Some(NO_STUB);
        Validation {
            id: task.id.clone(),
            gold: gold.outcome,
            stub: stub_known.then_some(stub.outcome),
            valid: stub_known
                .then_some(gold.outcome == Outcome::Pass && stub.outcome != Outcome::Pass),
            gold_failing_tests: gold.failing_tests,
            reason: gold.reason.or(stub.reason),
        }
    }

    fn run_what(
        &self,
        task: &Task,
        env: &Environment,
        index: usize,
        sample: Sample<'_>,
    ) -> SampleResult {
        let start = Instant::now();
        let mut r = SampleResult {
            id: task.id.clone(),
            sample: index,
            repository: task.repository.clone(),
            language: task.language.clone(),
            outcome: Outcome::Error,
            seconds: 0.0,
            failing_tests: Vec::new(),
            reason: None,
            log_tail: String::new(),
            task_valid: None,
            category: task.category.clone(),
            exact_match: None,
        };
        self.run_into(task, env, sample, &mut r);
        r.seconds = start.elapsed().as_secs_f64();
        r
    }

    fn run_into(&self, task: &Task, env: &Environment, sample: Sample<'_>, r: &mut SampleResult) {
        if task.covering_tests.is_empty() {
            r.reason = Some(format!(
                "every covering test of the function failed in the mining run's own suite, \
                 so none can tell a right sample from a wrong one ({})",
                short_list(&task.failed_in_suite, 5)
            ));
            return;
        }
        let prepared = match env {
            Environment::Ready(p) => p,
            Environment::Missing(why) => {
                r.reason = Some(why.clone());
                return;
            }
        };
        let rel = std::path::Path::new(&task.path);
        if !rel
            .components()
            .all(|c| matches!(c, std::path::Component::Normal(_)))
        {
            r.reason = Some(format!("{}: not a path inside the repository", task.path));
            return;
        }
        // Not following a link: the prepared tree was written by the repository's setup.
        let file = prepared.repo_dir().join(rel);
        let original = codemine_io::read_regular(&file, MAX_SOURCE, codemine_io::Follow::No)
            .map_err(|e| e.to_string())
            .and_then(|b| String::from_utf8(b).map_err(|_| "not UTF-8".to_string()));
        let original = match original {
            Ok(s) => s,
            Err(e) => {
                r.reason = Some(format!("reading {}: {e}", file.display()));
                return;
            }
        };
        let keep = matches!(sample, Sample::Original);
        let stub;
        let sample = match sample {
            Sample::Text(t) => t,
            Sample::Original => original.as_str(),
            Sample::Stub => {
                match stubs::stub(
                    &original,
                    &task.language,
                    &task.path,
                    task.start_line,
                    task.end_line,
                ) {
                    Some(s) => {
                        stub = s;
                        stub.as_str()
                    }
                    None if !stubs::has_stub(&task.language) => {
                        r.reason = Some(NO_STUB.into());
                        return;
                    }
                    None => {
                        r.reason = Some(format!(
                            "{}: no {} function ends on line {}, so no stub",
                            task.path, task.language, task.end_line
                        ));
                        return;
                    }
                }
            }
        };
        let spliced = if keep {
            Ok(original.clone())
        } else {
            splice::splice_parts(
                &original,
                &task.language,
                task.start_line,
                task.end_line,
                sample,
            )
            .map(|s| {
                r.exact_match = Some(splice::exact_match(sample, &s.reference));
                s.text
            })
        };
        let content = match spliced {
            Ok(c) => c,
            Err(e) => {
                r.reason = Some(format!("{}: {e}", task.path));
                return;
            }
        };
        let rewrite = [Rewrite {
            path: task.path.clone(),
            content: content.into_bytes(),
        }];
        match self.runner.check_syntax(prepared, &rewrite) {
            Ok(Some(message)) => {
                r.outcome = Outcome::SyntaxError;
                r.reason = Some(message);
                return;
            }
            Ok(None) => {}
            Err(e) => {
                r.reason = Some(e.to_string());
                r.log_tail = e.log_tail().unwrap_or_default().to_string();
                return;
            }
        }
        // The whole run's limit: the tests' count times the per-test limit, and a margin for
        // the interpreter's start (an environment is shared by tasks of any size).
        let limited;
        let prepared = match self.per_test_timeout {
            Some(t) => {
                let mut p = Prepared::clone(prepared);
                let n = u64::try_from(task.covering_tests.len()).unwrap_or(u64::MAX);
                p.plan.test_timeout = t.saturating_mul(n).saturating_add(60);
                limited = p;
                &limited
            }
            None => &**prepared,
        };
        let run = match self
            .runner
            .run_selected(prepared, &task.covering_tests, &rewrite)
        {
            Ok(run) => run,
            Err(e) => {
                r.reason = Some(e.to_string());
                r.log_tail = e.log_tail().unwrap_or_default().to_string();
                return;
            }
        };
        r.log_tail = run.log_tail.clone();
        // C: a sample that does not compile is told apart from one that fails its tests,
        // as Python's syntax check tells it apart (no test ran).
        if let Some(message) = &run.build_failed {
            r.outcome = Outcome::SyntaxError;
            r.reason = Some(first_error(message, 500));
            return;
        }
        let (mut failed, mut timeout, mut error, mut passed) = (false, false, false, false);
        for t in &run.tests {
            match t.outcome {
                TestOutcome::Passed => passed = true,
                TestOutcome::Skipped => {}
                TestOutcome::Failed => failed = true,
                TestOutcome::Timeout => timeout = true,
                TestOutcome::Error => error = true,
            }
            if !matches!(t.outcome, TestOutcome::Passed | TestOutcome::Skipped) {
                r.failing_tests.push(t.id.clone());
                if r.reason.is_none() {
                    r.reason = t.message.as_ref().map(|m| short(m, 500));
                }
            }
        }
        r.outcome = if timeout {
            Outcome::Timeout
        } else if failed {
            Outcome::Fail
        } else if error {
            Outcome::Error
        } else if passed {
            Outcome::Pass
        } else {
            r.reason = Some("every covering test was skipped".into());
            Outcome::Error
        };
    }
}

/// What a run puts in place of the function.
#[derive(Clone, Copy)]
enum Sample<'a> {
    /// A generated sample: a body or a whole function.
    Text(&'a str),
    /// The function as mined (the file unchanged).
    Original,
    /// A body that can pass no test of the function's behaviour.
    Stub,
}

/// The reason of a stub run in a language with no stub.
const NO_STUB: &str = "no stub for this language";

/// A task's validity (`--validate`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Validation {
    pub id: String,
    /// The original function's outcome: it must be `pass`.
    pub gold: Outcome,
    /// The stub's outcome: it must not be `pass` (None: no stub for the language).
    pub stub: Option<Outcome>,
    /// Both hold (None: no stub, so no verdict).
    pub valid: Option<bool>,
    /// The covering tests the original fails.
    pub gold_failing_tests: Vec<String>,
    pub reason: Option<String>,
}

/// The last `max` bytes of `s` (at a character boundary).
fn short(s: &str, max: usize) -> String {
    let mut cut = s.len().saturating_sub(max);
    while !s.is_char_boundary(cut) {
        cut += 1;
    }
    s[cut..].to_string()
}

/// A build's message from the line of its first `error:` on (the compiler's first error is
/// the one to read; later ones often follow from it), at most `max` bytes; the message's
/// tail when no line says `error:`.
fn first_error(message: &str, max: usize) -> String {
    let Some(at) = message.find("error:") else {
        return short(message, max);
    };
    let start = message[..at].rfind('\n').map_or(0, |i| i + 1);
    let rest = &message[start..];
    let mut end = rest.len().min(max);
    while !rest.is_char_boundary(end) {
        end -= 1;
    }
    rest[..end].to_string()
}

/// The first `max` items of `items`, comma-separated, and how many more there are.
fn short_list(items: &[String], max: usize) -> String {
    let mut s = items
        .iter()
        .take(max)
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(", ");
    if items.len() > max {
        s.push_str(&format!(" and {} more", items.len() - max));
    }
    s
}
