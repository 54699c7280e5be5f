//! Drives a run in three steps, each with its inputs and outputs on disk:
//!
//! 1. [`stage`]: repositories are mined in parallel (rayon; a repository is the unit of
//!    work, and its files are parsed in parallel too), in batches taken in input order; a
//!    writer thread streams each batch's rows into staging tables (`DIR/staging/`), the
//!    final edge and `dropped` tables, and the dedup inputs (`DIR/dedup/bands-*`,
//!    `DIR/staging/functions-*`) while the next batch is mined. Memory is bounded by a batch.
//! 2. [`dedup`]: the cluster step reads the dedup inputs of the whole run, finds exact and
//!    near-duplicate clusters and writes `DIR/dedup/clusters-*.parquet`.
//! 3. [`finalize`]: streams the staging tables into the final CSN, YABLoCo and node shards
//!    without the removed functions, then removes `DIR/staging/`.
//!
//! Output order is input order whatever the thread count.

mod dedup;
mod finalize;
mod repo;
mod stage;

use std::path::PathBuf;
use std::time::Instant;

use codemine_filters::dedup::DedupParams;
use codemine_filters::Filter;
use codemine_schemas::{clear_shards, ShardOptions};

use crate::callgraph;
use crate::csn::SplitRatios;
use crate::output;
use crate::source::{RepoSpec, SourceOptions};
use crate::stats::{Failure, RepoStats, Stats};
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
    pub shards: ShardOptions,
    pub split: SplitRatios,
    /// How `.h` headers are parsed.
    pub headers: HeaderMode,
    /// The YABLoCo `instruction` template.
    pub instruction: String,
    /// Date functions by their last commit (blame semantics); off skips the history walk.
    pub history: bool,
    /// Prefixes removed from coverage reports' file paths before matching.
    pub coverage_strip_prefixes: Vec<String>,
    /// The filter stage; `None` keeps every function.
    pub filter: Option<Filter>,
    /// Write the functions that filters removed, with the rule, to `DIR/dropped/`.
    pub explain: bool,
    /// Near-duplicate removal across the run; `None` keeps duplicates.
    pub dedup: Option<DedupParams>,
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
            },
            threads: 0,
            max_file_bytes: 1 << 20,
            shards: ShardOptions::default(),
            split: SplitRatios::default(),
            headers: HeaderMode::Auto,
            instruction: callgraph::DEFAULT_INSTRUCTION.to_string(),
            history: true,
            coverage_strip_prefixes: Vec::new(),
            filter: None,
            explain: false,
            dedup: Some(DedupParams::bigcode()),
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
}

impl Summary {
    /// Whether anything at all was mined (some repository opened).
    pub fn mined_anything(&self) -> bool {
        self.stats.stages.source.opened > 0
    }
}

/// Mines `specs` into `opts.out_dir`: the three steps one after the other.
pub fn mine(
    specs: &[RepoSpec],
    opts: &MineOptions,
    progress: &dyn Progress,
) -> Result<Summary, Error> {
    let start = Instant::now();
    for dir in [
        "csn",
        "yabloco",
        "callgraph",
        "dropped",
        "dedup",
        stage::STAGING,
    ] {
        clear_shards(&opts.out_dir.join(dir))?;
    }
    if let Some(p) = &opts.dedup {
        p.validate()?;
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(opts.threads)
        .build()
        .map_err(|e| Error::ThreadPool(e.to_string()))?;
    let threads = pool.current_num_threads();

    let staged = stage::run(specs, opts, progress, &pool)?;
    let mut stats = staged.stats;
    let decisions = match &opts.dedup {
        Some(params) => {
            let (decisions, dedup_stats) = dedup::cluster_step(&opts.out_dir, params, threads)?;
            let files = dedup_stats.clusters_files.clone();
            stats
                .stages
                .write
                .shards
                .entry("dedup")
                .or_default()
                .extend(files);
            stats.stages.dedup = Some(dedup_stats);
            decisions
        }
        None => dedup::Decisions::default(),
    };
    finalize::run(&opts.out_dir, opts.shards, &decisions, &mut stats)?;

    stats.codemine_version = env!("CARGO_PKG_VERSION");
    stats.threads = threads;
    stats.wall_seconds = start.elapsed().as_secs_f64();
    stats.peak_rss_bytes = crate::stats::peak_rss_bytes();
    output::write_stats(&opts.out_dir, &stats)?;
    output::write_card(&opts.out_dir, &stats)?;
    Ok(Summary {
        stats,
        failures: staged.failures,
    })
}
