//! The stats of the pipeline's steps, as stats.json and the chunk markers hold them: the
//! types live here, below the steps that fill them and the card and report that read them.

use std::collections::{BTreeMap, BTreeSet};

use codemine_filters::dedup::DedupStats;
use serde::{Deserialize, Serialize};

use crate::repo_completion::{Counts, Options};

// The licenses step (`pipeline::licenses`).

/// A repository's own license, as stats.json and the repositories table give it.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct RepoLicense {
    /// The SPDX expression; null when no license file or manifest was recognised.
    pub license: Option<String>,
    pub confidence: Option<f32>,
    /// The file it comes from.
    pub license_file: Option<String>,
    /// License files and manifests read, and folders with a license of their own.
    pub files_read: usize,
    pub folders: usize,
    pub seconds: f64,
}

// The CodeXGLUE completion export (`pipeline::completion`).

/// One repository's completion counts (in its stats and chunk marker).
#[derive(Debug, Default, Clone, Serialize, Deserialize)]
pub struct RepoCompletion {
    /// Python and Java files looked at.
    pub files: usize,
    pub token_rows: usize,
    pub line_rows: usize,
    /// Files without a token line, by reason (`tokenize`, `encoding`, `empty`,
    /// `line_break`, and the read failures `too_large`, `binary`, `non_utf8`, `read_error`).
    pub skipped: BTreeMap<String, usize>,
    /// Thread CPU seconds of the export in this repository (see [`CpuSeconds`]).
    #[serde(default)]
    pub cpu_seconds: RepoCpu,
}

/// A repository's share of the export's thread CPU time.
#[derive(Debug, Default, Clone, Copy, Serialize, Deserialize)]
pub struct RepoCpu {
    /// Tokenizing, cutting and building the rows of its files (`pipeline::completion::file_rows`).
    pub rows: f64,
    /// Writing its rows to staging (the chunk's completion writers' closing is counted to
    /// the chunk's last repository).
    pub staging: f64,
}

/// stats.json's `stages.completion`.
#[derive(Debug, Default, Serialize)]
pub struct CompletionStage {
    pub seed: u64,
    pub cuts: usize,
    pub files: usize,
    pub skipped: BTreeMap<String, usize>,
    /// Files left out because an earlier file of the run has the same token line.
    pub duplicate_files: usize,
    /// Files left out as near-duplicates of an earlier file (with dedup on): the same
    /// content tokens in another layout, or a Jaccard of their shingles at or above dedup's
    /// threshold.
    pub near_duplicate_files: usize,
    /// The near-duplicate pass over whole files (dedup's parameters and counts); absent
    /// with `--no-dedup`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub near_duplicate: Option<DedupStats>,
    pub token_rows: BTreeMap<&'static str, usize>,
    pub line_rows: BTreeMap<&'static str, usize>,
    /// The export's own thread CPU time.
    pub cpu_seconds: CpuSeconds,
    /// The Parquet shards written (table folder, file name), for `stages.write.shards`.
    #[serde(skip)]
    pub shards: Vec<(&'static str, String)>,
}

/// The export's own thread CPU time, in seconds, summed over the threads that did it. Not
/// counted: reading the files (the extract stage reads each blob once, for parsing and for
/// this export) and, with dedup on, the near-duplicate pass's worker threads.
#[derive(Debug, Default, Serialize)]
pub struct CpuSeconds {
    /// Per file: tokenizing (Python's `tokenize` or javalang), the literal placeholders, the
    /// token line, the line-level cuts and the rows.
    pub rows: f64,
    /// Writing the rows to the staging tables (Parquet, zstd).
    pub staging: f64,
    /// Finalize: reading staging back, the exact-duplicate check, the final Parquet shards
    /// and the text files.
    pub finalize: f64,
    pub total: f64,
}

// Decontamination (`pipeline::decontam`).

/// The funnel rule of the functions decontamination removes.
pub const DECONTAM_RULE: &str = "decontaminated";

/// One benchmark's matches in one repository (or the whole run).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BenchCounts {
    pub exact: u64,
    pub near: u64,
    /// The ids of the items matched.
    pub items: BTreeSet<String>,
}

/// The step's counts in one repository, per benchmark with a match.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RepoDecontam {
    pub checked: u64,
    pub seconds: f64,
    pub benchmarks: BTreeMap<String, BenchCounts>,
}

/// stats.json `stages.decontamination`: one benchmark's totals over the run.
#[derive(Debug, Clone, Serialize)]
pub struct StageBench {
    pub file: String,
    pub items: u64,
    /// Items that some mined function matched.
    pub items_found: u64,
    /// Mined functions removed for this benchmark, and how they matched.
    pub functions_matched: u64,
    pub exact: u64,
    pub near: u64,
    /// Items shorter than the n-gram size (matched only as whole functions).
    pub short_items: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct DecontamStage {
    pub ngram: usize,
    pub threshold: f64,
    /// Functions checked (those the earlier rules kept).
    pub functions_checked: u64,
    pub busy_seconds: f64,
    pub benchmarks: BTreeMap<String, StageBench>,
    /// Functions removed, over all benchmarks.
    pub functions_removed: u64,
    /// The share of the checked functions above which the run warns.
    pub warn_share: f64,
    /// Why the run warns: it removed more than `warn_share` of the checked functions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
}

// Repository-level completion (`pipeline::repo_completion`).

/// stats.json's `stages.repo_completion`.
#[derive(Debug, Default, Serialize)]
pub struct RepoCompletionStage {
    pub settings: Option<Options>,
    #[serde(flatten)]
    pub counts: Counts,
    pub rows_by_split: std::collections::BTreeMap<&'static str, usize>,
    #[serde(skip)]
    pub shards: Vec<(&'static str, String)>,
}

// The SIDE step (`pipeline::side`).

/// stats.json `stages.side`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct SideStage {
    /// The model folder's name, and its path.
    pub model: String,
    pub model_dir: String,
    /// What the pairs are.
    pub pairs_of: String,
    pub min_side: Option<f64>,
    /// Pairs with a score (survivors of the filters and dedup).
    pub pairs: u64,
    /// Of those, scored by this call (the others by an interrupted earlier call).
    pub scored: u64,
    pub seconds: f64,
    /// `scored / seconds`.
    pub pairs_per_s: f64,
    pub threads: usize,
    /// Pairs below `min_side`, left out of CSN and YABLoCo.
    pub dropped_min_side: u64,
    pub mean_score: Option<f64>,
    /// Dropped pairs per repository and language, for the funnel.
    #[serde(skip)]
    pub dropped_by: Vec<(String, String, u64)>,
}

// The test run (`pipeline::tests_step`, `mine --run-tests`).

/// Tests by outcome, of one repository's run or of the whole run (flattened into both).
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize)]
pub struct TestCounts {
    /// Tests that ran (passed, failed, errors and timeouts; not skipped ones).
    pub tests_run: u64,
    pub passed: u64,
    pub failed: u64,
    pub errors: u64,
    pub timeouts: u64,
    pub skipped: u64,
}

impl TestCounts {
    fn add(&mut self, o: &TestCounts) {
        self.tests_run += o.tests_run;
        self.passed += o.passed;
        self.failed += o.failed;
        self.errors += o.errors;
        self.timeouts += o.timeouts;
        self.skipped += o.skipped;
    }
}

/// One repository's test run, in its stats and chunk marker.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct RepoTests {
    /// `ran`, `setup_failed` (no environment: see failures.jsonl) or `run_failed` (the
    /// suite could not run or left no result).
    pub status: String,
    /// `python`, `javascript` or `c`, once a plan was made.
    pub language: Option<String>,
    #[serde(flatten)]
    pub counts: TestCounts,
    /// The suite's wall time (tests and coverage reporting).
    pub seconds: f64,
    /// The environment's setup time (when it was made by this run or an earlier one).
    pub setup_seconds: f64,
    /// The environment was prepared by an earlier run and reused.
    pub environment_reused: bool,
    /// Whether the suite ran inside the sandbox (always, so far: `--no-sandbox` is refused).
    pub sandboxed: bool,
    /// Functions (call-graph nodes) with at least one covering test, and those with
    /// coverage of their file at all (`covering_tests` not null).
    pub functions_covered: u64,
    pub functions_measured: u64,
    /// Whether `--coverage` reports gave the coverage columns (they win over the run's).
    pub reports_win: bool,
    /// This step's whole time: checkout, setup or reuse, suite, mapping.
    pub step_seconds: f64,
    /// Task validation (`--validate-tasks`), absent without it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tasks: Option<TaskCounts>,
}

/// Task validation (`--validate-tasks`, `pipeline::validate_tasks`): of the functions with
/// covering tests that every filter kept, how many were validated and with what verdict.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize)]
pub struct TaskCounts {
    /// Functions validated: two runs each, the original and the stub.
    pub validated: u64,
    /// The original passed its covering tests.
    pub gold_passed: u64,
    /// The stub did not pass.
    pub stub_failed: u64,
    /// Both: the task is valid.
    pub valid: u64,
    /// No verdict: no stub for the language.
    pub no_verdict: u64,
    /// Wall time of the validations.
    pub seconds: f64,
}

impl TaskCounts {
    fn add(&mut self, o: &TaskCounts) {
        self.validated += o.validated;
        self.gold_passed += o.gold_passed;
        self.stub_failed += o.stub_failed;
        self.valid += o.valid;
        self.no_verdict += o.no_verdict;
        self.seconds += o.seconds;
    }
}

/// stats.json `stages.tests`: the test runs of the whole run.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct TestsStage {
    /// Whether the suites ran in the sandbox, and how it isolates on this machine.
    pub sandboxed: bool,
    pub sandbox: serde_json::Value,
    /// Repositories whose suite ran, could not be set up, could not run.
    pub repositories_run: u64,
    pub setup_failed: u64,
    pub run_failed: u64,
    #[serde(flatten)]
    pub counts: TestCounts,
    pub seconds: f64,
    pub setup_seconds: f64,
    pub functions_covered: u64,
    pub functions_measured: u64,
    /// Rows of `tests/`.
    pub rows: u64,
    /// Task validation (`--validate-tasks`), absent without it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tasks: Option<TaskCounts>,
}

impl TestsStage {
    /// Adds one repository's run.
    pub fn add(&mut self, r: &RepoTests) {
        match r.status.as_str() {
            "ran" => self.repositories_run += 1,
            "setup_failed" => self.setup_failed += 1,
            _ => self.run_failed += 1,
        }
        self.counts.add(&r.counts);
        self.seconds += r.seconds;
        self.setup_seconds += r.setup_seconds;
        self.functions_covered += r.functions_covered;
        self.functions_measured += r.functions_measured;
        if let Some(t) = &r.tasks {
            self.tasks.get_or_insert_with(Default::default).add(t);
        }
    }
}

// Personal data and secrets (`pipeline::pii`).

/// One repository's findings (with `--pii`).
#[derive(Debug, Default, Clone, Serialize, Deserialize)]
pub struct RepoPii {
    pub files_scanned: u64,
    /// Findings by kind (`email`, `aws_access_key_id`, ...).
    pub findings: BTreeMap<String, u64>,
    /// Findings in a function's code or docstring (the others are outside every function).
    pub in_functions: u64,
    /// Functions left out because they hold a secret (`--pii drop`).
    pub functions_dropped: u64,
    /// Thread time of the scans and redactions.
    pub seconds: f64,
}

/// stats.json's `stages.pii`.
#[derive(Debug, Default, Serialize)]
pub struct PiiStage {
    /// `report`, `redact` or `drop`.
    pub mode: String,
    /// The `[pii]` table in effect.
    pub config: serde_json::Value,
    pub files_scanned: u64,
    pub findings: BTreeMap<String, u64>,
    pub personal_data: u64,
    pub secrets: u64,
    pub in_functions: u64,
    pub functions_dropped: u64,
    pub seconds: f64,
    /// Rows of `pii/`.
    pub rows: u64,
}

impl PiiStage {
    /// Adds one repository's findings.
    pub fn add(&mut self, r: &RepoPii) {
        self.files_scanned += r.files_scanned;
        for (k, n) in &r.findings {
            *self.findings.entry(k.clone()).or_default() += n;
            let secret = codemine_pii::Kind::from_name(k)
                .is_some_and(|k| k.category() == codemine_pii::Category::Secret);
            if secret {
                self.secrets += n;
            } else {
                self.personal_data += n;
            }
        }
        self.in_functions += r.in_functions;
        self.functions_dropped += r.functions_dropped;
        self.seconds += r.seconds;
    }
}

// Structured docstrings (`pipeline::docstring_params`).

/// One repository's docstrings parsed into parts (with `--docstring-params`).
#[derive(Debug, Default, Clone, Serialize, Deserialize)]
pub struct RepoDocstringParams {
    /// Kept functions whose docstring was parsed (before dedup).
    pub functions: u64,
    /// Thread time of the parses.
    pub seconds: f64,
}

/// stats.json's `stages.docstring_params`.
#[derive(Debug, Default, Serialize)]
pub struct DocstringParamsStage {
    /// CSN rows written with their `docstring_params` (after dedup).
    pub rows: u64,
    /// Those rows by the convention recognised (`google`, `javadoc`, `plain`, ...).
    pub styles: BTreeMap<String, u64>,
    /// Of those rows, the ones documenting at least one parameter, and a return.
    pub with_params: u64,
    pub with_returns: u64,
    /// Kept functions parsed while mining (the nodes' values; dedup's removed ones too).
    pub functions: u64,
    pub seconds: f64,
}

impl DocstringParamsStage {
    /// Adds one repository's parses.
    pub fn add(&mut self, r: &RepoDocstringParams) {
        self.functions += r.functions;
        self.seconds += r.seconds;
    }
}
