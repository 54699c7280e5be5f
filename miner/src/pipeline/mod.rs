//! Drives a run in three steps, each with its inputs and outputs on disk:
//!
//! 1. [`stage`]: repositories are mined in parallel (rayon; a repository is the unit of
//!    work, and its files are parsed in parallel too), in batches taken in input order; a
//!    writer thread streams each batch's rows into staging tables (`DIR/staging/`), the
//!    final edge and `dropped` tables, and the dedup inputs (`DIR/dedup/bands/bands-*`,
//!    `DIR/staging/functions-*`) while the next batch is mined. Memory is bounded by a batch.
//! 2. [`dedup`]: the cluster step reads the dedup inputs of the whole run, finds exact and
//!    near-duplicate clusters and writes `DIR/dedup/clusters/clusters-*.parquet`.
//!    Then [`side`] (with `--side-model`) scores the (code, docstring) pairs that survived
//!    the filters and dedup into `DIR/staging/side-*`.
//! 3. [`finalize`]: streams the staging tables into the final CSN, YABLoCo and node shards
//!    without the removed functions, then removes `DIR/staging/`.
//!
//! Output order is input order whatever the thread count.

pub mod completion;
pub mod decontam;
mod dedup;
mod docstring_params;
mod enrich_step;
mod extract_step;
mod finalize;
pub mod licenses;
pub mod lock;
pub mod pii;
mod repo;
pub mod repo_completion;
pub mod side;
mod stage;
mod steps;
pub mod tests_step;
mod validate_tasks;

use std::path::{Path, PathBuf};
use std::time::Instant;

use codemine_filters::dedup::DedupParams;
use codemine_filters::Filter;
use codemine_schemas::ShardOptions;

use crate::callgraph;
use crate::csn::SplitRatios;
use crate::source::{RepoSpec, SourceOptions};
use crate::stats::{ClusterStep, Failure, RepoStats, Stats};
use crate::Error;

/// Everything a run needs besides the repositories.
#[derive(Debug, Clone)]
pub struct MineOptions {
    pub out_dir: PathBuf,
    pub source: SourceOptions,
    /// Worker threads; 0 means one per core.
    pub threads: usize,
    /// Files larger than this are skipped (and recorded) without being read.
    pub max_file_bytes: u64,
    /// Coverage reports larger than this after decompression are refused while read.
    pub max_report_bytes: u64,
    pub shards: ShardOptions,
    pub split: SplitRatios,
    /// How `.h` headers are parsed.
    pub headers: HeaderMode,
    /// The YABLoCo `instruction` template.
    pub instruction: String,
    /// Date functions by their last commit (blame semantics); off skips the history walk.
    pub history: bool,
    /// Reuse and update the history cache (`CACHE/history/`): a later run walks only the
    /// files changed since a cached commit on its first-parent line (codemine_history::cache).
    pub history_cache: bool,
    /// The zone of the `dd.mm.YYYY` dates written (YABLoCo's `last_commit`).
    pub date_zone: codemine_filters::DateZone,
    /// Prefixes removed from coverage reports' file paths before matching.
    pub coverage_strip_prefixes: Vec<String>,
    /// The filter stage; `None` keeps every function.
    pub filter: Option<Filter>,
    /// Write the functions that filters removed, with the rule, to `DIR/dropped/`.
    pub explain: bool,
    /// Near-duplicate removal across the run; `None` keeps duplicates.
    pub dedup: Option<DedupParams>,
    /// This worker's share: repositories whose manifest index `i` has
    /// `i % world_size == rank`.
    pub rank: usize,
    pub world_size: usize,
    /// Repositories per staging chunk: an interrupted run resumes after the last chunk.
    pub checkpoint_repos: usize,
    /// The code-completion outputs (`--emit completion`); `None` writes none.
    pub completion: Option<completion::CompletionOptions>,
    /// The repository-level completion output (`--emit repo-completion`).
    pub repo_completion: Option<crate::repo_completion::Options>,
    /// The benchmarks whose code is kept out (`--decontaminate`); `None` checks nothing.
    pub decontam: Option<std::sync::Arc<decontam::Decontaminator>>,
    /// The SIDE model (`--side-model`), loaded before mining; `None` scores nothing.
    pub side: Option<side::SideModel>,
    /// How CSN rows name functions (`--csn-names`); ids never change with it.
    pub csn_names: crate::csn::CsnNames,
    /// Whose definitions YABLoCo's counts follow (`--callgraph-compat`).
    pub callgraph_compat: callgraph::CallgraphCompat,
    /// Run each repository's test suite in the sandbox (`--run-tests`); `None` runs none.
    pub tests: Option<tests_step::TestsOptions>,
    /// Scan every file for personal data and secrets (`--pii`); `None` scans nothing.
    pub pii: Option<pii::PiiOptions>,
    /// Parse every kept function's docstring into parts, the `docstring_params` column of
    /// the CSN rows and nodes (`--docstring-params`).
    pub docstring_params: bool,
}

/// The language of `.h` headers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum HeaderMode {
    /// C++ when the repository has more C++ sources than C sources, else C.
    #[default]
    Auto,
    C,
    Cpp,
}

impl MineOptions {
    pub fn new(out_dir: PathBuf, cache_dir: PathBuf) -> Self {
        Self {
            out_dir,
            source: SourceOptions {
                cache_dir,
                offline: false,
                depth: None,
            },
            threads: 0,
            max_file_bytes: 1 << 20,
            max_report_bytes: codemine_coverage::DEFAULT_MAX_REPORT_BYTES,
            shards: ShardOptions::default(),
            split: SplitRatios::default(),
            headers: HeaderMode::Auto,
            instruction: callgraph::DEFAULT_INSTRUCTION.to_string(),
            history: true,
            history_cache: true,
            date_zone: codemine_filters::DateZone::default(),
            coverage_strip_prefixes: Vec::new(),
            filter: None,
            explain: false,
            dedup: Some(DedupParams::bigcode()),
            rank: 0,
            world_size: 1,
            checkpoint_repos: 16,
            completion: None,
            repo_completion: None,
            decontam: None,
            side: None,
            csn_names: Default::default(),
            callgraph_compat: Default::default(),
            tests: None,
            pii: None,
            docstring_params: false,
        }
    }
}

/// Hooks for a progress display; every method may be called from any worker thread.
pub trait Progress: Sync {
    fn started(&self, _repos: usize) {}
    fn repo_listed(&self, _repo: &str, _files: usize) {}
    fn file_done(&self) {}
    fn repo_finished(&self, _stats: &RepoStats, _failure: Option<&Failure>) {}
}

/// No progress display.
pub struct NoProgress;
impl Progress for NoProgress {}

/// What a finished run reports.
#[derive(Debug)]
pub struct Summary {
    pub stats: Stats,
    pub failures: usize,
    /// Repositories that an interrupted earlier run had already mined.
    pub resumed: usize,
}

impl Summary {
    /// Whether anything at all was mined (some repository opened).
    pub fn mined_anything(&self) -> bool {
        self.stats.stages.source.opened > 0
    }
}

/// Mines `specs` into `opts.out_dir` on one machine: the three steps one after the other.
/// Rerun with the same arguments after an interruption, it resumes where the mining step
/// stopped.
pub fn mine(
    specs: &[RepoSpec],
    opts: &MineOptions,
    progress: &dyn Progress,
) -> Result<Summary, Error> {
    let start = Instant::now();
    if opts.world_size != 1 || opts.rank != 0 {
        return Err(Error::Usage(
            "a sharded run mines with --rank/--world-size, then runs `codemine cluster` and `codemine finalize`"
                .into(),
        ));
    }
    let _lock = lock::lock(&opts.out_dir, lock::Mode::Exclusive, "codemine mine")?;
    let share = mine_share_locked(specs, opts, progress)?;
    dedup::cluster_step(&opts.out_dir, opts.threads)?;
    side::run(&opts.out_dir, opts.side.as_ref(), opts.threads)?;
    let mut summary = finalize::run(&opts.out_dir, opts.shards)?;
    summary.resumed = share.resumed;
    summary.stats.threads = share.threads;
    summary.stats.wall_seconds = start.elapsed().as_secs_f64();
    finalize::write_side_files(&opts.out_dir, &summary.stats)?;
    finalize::publish(&opts.out_dir)?;
    Ok(summary)
}

/// What the mining step of one rank did.
#[derive(Debug)]
pub struct Share {
    pub threads: usize,
    /// Repositories mined by this call, and those an earlier interrupted call had done.
    pub mined: usize,
    pub resumed: usize,
}

/// Step 1 alone: mines rank `opts.rank`'s share of `specs` into `DIR/staging` (see
/// [`stage`]), resuming after the last finished chunk of an interrupted call with the
/// same arguments.
pub fn mine_share(
    specs: &[RepoSpec],
    opts: &MineOptions,
    progress: &dyn Progress,
) -> Result<Share, Error> {
    let what = format!(
        "codemine mine --rank {} --world-size {}",
        opts.rank, opts.world_size
    );
    let _lock = lock::lock(&opts.out_dir, lock::Mode::Rank(opts.rank), &what)?;
    mine_share_locked(specs, opts, progress)
}

fn mine_share_locked(
    specs: &[RepoSpec],
    opts: &MineOptions,
    progress: &dyn Progress,
) -> Result<Share, Error> {
    if let Some(p) = &opts.dedup {
        p.validate()?;
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(opts.threads)
        .build()
        .map_err(|e| Error::ThreadPool(e.to_string()))?;
    // Names are fixed before mining: local clones by their origin remote, none shared.
    let specs = crate::source::resolve_names(specs, crate::source::origin_of)?;
    let staged = stage::run(&specs, opts, progress, &pool)?;
    Ok(Share {
        threads: pool.current_num_threads(),
        mined: staged.mined,
        resumed: staged.resumed,
    })
}

/// Step 2 alone: clusters the dedup inputs of every rank under `out_dir` and writes
/// `dedup/clusters/clusters-*` (see [`dedup`]); `None` when the mining step ran without dedup.
pub fn cluster(out_dir: &Path, threads: usize) -> Result<Option<ClusterStep>, Error> {
    let _lock = lock::lock(out_dir, lock::Mode::Exclusive, "codemine cluster")?;
    dedup::cluster_step(out_dir, threads)
}

/// Step 3 alone: writes the final shards, failures.jsonl, stats.json and the dataset card
/// from every rank's staging area and the clusters table (see [`finalize`]), after the
/// SIDE step when the ranks mined with a SIDE model (on `threads` threads).
pub fn finalize(out_dir: &Path, shards: ShardOptions, threads: usize) -> Result<Summary, Error> {
    let t = Instant::now();
    let _lock = lock::lock(out_dir, lock::Mode::Exclusive, "codemine finalize")?;
    side::run(out_dir, None, threads)?;
    let mut summary = finalize::run(out_dir, shards)?;
    summary.stats.wall_seconds = t.elapsed().as_secs_f64();
    finalize::write_side_files(out_dir, &summary.stats)?;
    finalize::publish(out_dir)?;
    Ok(summary)
}
