//! Task validation while mining (`mine --run-tests --validate-tasks`): every function with
//! covering tests that the filters kept is checked as `eval --execute --validate` checks a
//! task (crate `codemine-passk`, EvoCodeBench's rule): its original must pass its covering
//! tests and a stub must fail them, both run in the sandbox on the environment the test
//! step prepared. The verdicts are the `tasks` table, which joins the YABLoCo rows on
//! `meta.original_id`, and `stages.tests.tasks` of stats.json.
//!
//! A task's tests are its covering tests that passed in the repository's own suite, as for
//! `eval --execute`: a test that fails on the original cannot tell a right body from a
//! wrong one. A function in the file of one of its covering tests (a test, a fixture, a
//! helper of the tests: pytest and the JavaScript runners name the file) is no task.
//! Runs go in parallel on the run's thread pool; rows are in node order.

use std::collections::{HashMap, HashSet};
use std::time::Instant;

use codemine_passk::tasks::Task;
use codemine_passk::{Environment, Executor, Outcome};
use codemine_schemas::tasks::TaskRow;
use rayon::prelude::*;

use super::steps::{Enriching, RepoStep};
use super::tests_step::{folder_fingerprint, TestsOptions};
use super::MineOptions;
use crate::source::RepoSpec;

/// The step, after the filters (only kept functions are validated).
pub(super) struct ValidateTasks;

impl RepoStep for ValidateTasks {
    fn wanted(&self, opts: &MineOptions, _spec: &RepoSpec) -> bool {
        opts.tests
            .as_ref()
            .is_some_and(|t| t.settings.validate_tasks)
    }

    fn run(&self, s: &mut Enriching) {
        if let Some(t) = &s.opts.tests {
            *s.tasks = validate(s, t);
        }
    }
}

fn validate(s: &mut Enriching, opts: &TestsOptions) -> Vec<TaskRow> {
    // Only after a suite that ran: its environment exists and its outcomes say which
    // tests can judge.
    if s.stats.tests.as_ref().is_none_or(|t| t.status != "ran") {
        return Vec::new();
    }
    let t = Instant::now();
    let repository = s.stats.repo.clone();
    let commit = match (&s.snap.sha, s.spec.local_path()) {
        (Some(sha), _) => sha.clone(),
        (None, Some(dir)) => folder_fingerprint(&dir),
        (None, None) => return Vec::new(),
    };
    let env = match opts
        .runner
        .find_prepared(&repository, &commit, s.spec.tests.as_ref())
    {
        Ok(Some(p)) => Environment::Ready(Box::new(p)),
        Ok(None) => Environment::Missing(format!(
            "the test environment of {repository} at {commit} is gone from the cache"
        )),
        Err(e) => Environment::Missing(e.to_string()),
    };
    let passed: HashSet<&str> = s
        .tests
        .iter()
        .filter(|r| r.outcome == "passed")
        .map(|r| r.test_id.as_str())
        .collect();
    // A function in the file of one of its own covering tests is part of the tests (a
    // test, a fixture, a helper), not a task.
    let test_files: HashMap<&str, &str> = s
        .tests
        .iter()
        .filter_map(|r| Some((r.test_id.as_str(), r.file.as_deref()?)))
        .collect();
    let tasks: Vec<(Task, u64)> = s
        .graph
        .nodes
        .iter()
        .zip(s.outcome.iter())
        .filter(|(_, kept)| kept.is_ok())
        .filter_map(|(node, _)| {
            if !codemine_passk::tasks::is_task_kind(node.kind) {
                return None;
            }
            let covering = node.covering_tests.as_ref().filter(|c| !c.is_empty())?;
            let path: &str = &node.path;
            if covering
                .iter()
                .any(|t| test_files.get(&**t).is_some_and(|f| *f == path))
            {
                return None;
            }
            let (tests, failed): (Vec<String>, Vec<String>) = covering
                .iter()
                .map(|t| t.to_string())
                .partition(|t| passed.contains(t.as_str()));
            let task = Task {
                id: format!("{:016X}", node.id),
                repository: repository.clone(),
                commit: commit.clone(),
                language: node.language.to_ascii_lowercase(),
                path: node.path.to_string(),
                start_line: node.start_line,
                end_line: node.end_line,
                category: node.category.to_string(),
                covering_tests: tests,
                failed_in_suite: failed,
            };
            Some((task, node.id))
        })
        .collect();
    let executor = Executor::new(&opts.runner, None);
    let rows: Vec<TaskRow> = tasks
        .par_iter()
        .map(|(task, node_id)| {
            let start = Instant::now();
            let v = executor.validate(task, &env);
            TaskRow {
                repository: task.repository.clone(),
                id: task.id.clone(),
                node_id: *node_id,
                path: task.path.clone(),
                start_line: task.start_line,
                end_line: task.end_line,
                language: task.language.clone(),
                tests: task.covering_tests.clone(),
                gold: v.gold.as_str(),
                stub: v.stub.map(Outcome::as_str),
                valid: v.valid,
                gold_failing_tests: v.gold_failing_tests,
                reason: v.reason,
                seconds: start.elapsed().as_secs_f64(),
            }
        })
        .collect();
    if let Some(stats) = &mut s.stats.tests {
        let counts = stats.tasks.get_or_insert_with(Default::default);
        for r in &rows {
            counts.validated += 1;
            counts.gold_passed += u64::from(r.gold == "pass");
            counts.stub_failed += u64::from(r.stub.is_some_and(|o| o != "pass"));
            counts.valid += u64::from(r.valid == Some(true));
            counts.no_verdict += u64::from(r.valid.is_none());
        }
        counts.seconds += t.elapsed().as_secs_f64();
    }
    rows
}
