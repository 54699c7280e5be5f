//! The test-run flags of `codemine mine` ([`TestsArgs`]): `--run-tests` runs each
//! repository's own test suite once in the sandbox (docs/tests.md).

use std::path::{Path, PathBuf};

use miner::pipeline::tests_step::{TestsOptions, TestsSettings};

use crate::help::heading;

// The test-run flags of `codemine mine` (a plain comment: clap would make a doc comment
// the `about` of the command that flattens these flags).
#[derive(Debug, Clone, Default, clap::Args)]
#[command(next_help_heading = heading::HISTORY)]
pub struct TestsArgs {
    /// Run each repository's own test suite once, in the sandbox (bubblewrap), with per-test
    /// coverage: fills `covering_tests`, and `test_cov_hits`, `covered_lines` and
    /// `coverable_lines` where no --coverage report was given; writes DIR/tests/. A
    /// manifest's `tests` gives a recipe (setup, test command, env, timeouts).
    #[arg(long)]
    pub run_tests: bool,
    /// Refused for now: suites run only in the sandbox (for callers that already isolate,
    /// once supported; stats.json records `sandboxed`).
    #[arg(long, requires = "run_tests")]
    pub no_sandbox: bool,
    /// The Python that makes the test virtualenvs [default: /usr/bin/python3].
    #[arg(long, value_name = "PATH", requires = "run_tests")]
    pub tests_python: Option<PathBuf>,
    /// Retry test setups that failed in an earlier run (their failure is remembered in the
    /// cache otherwise).
    #[arg(long, requires = "run_tests")]
    pub retry_test_setup: bool,
    /// Validate every kept function with covering tests as a pass@k task (as `eval
    /// --execute --validate` does): its original must pass its covering tests and a stub
    /// must fail them; two sandboxed runs per function. Writes DIR/tasks/, joined to the
    /// YABLoCo rows by `meta.original_id`.
    #[arg(long, requires = "run_tests")]
    pub validate_tasks: bool,
}

impl TestsArgs {
    /// The runner, made before any mining (a machine that cannot sandbox is a usage error);
    /// `None` without `--run-tests`. Environments live under the clone cache `cache`.
    /// With `offline`, only environments prepared by earlier runs are used.
    pub fn options(
        &self,
        cache: &Path,
        offline: bool,
    ) -> Result<Option<TestsOptions>, miner::Error> {
        if !self.run_tests {
            return Ok(None);
        }
        let settings = TestsSettings {
            no_sandbox: self.no_sandbox,
            python: self.tests_python.clone(),
            retry_failed: self.retry_test_setup,
            offline,
            validate_tasks: self.validate_tasks,
        };
        TestsOptions::new(cache, settings).map(Some)
    }
}
