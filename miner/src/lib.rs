//! codemine's miner: mines git repositories into code datasets.
//!
//! Stages (see docs/design.md): [`source`] opens each repository at its pinned revision,
//! [`extract`] parses its files with tree-sitter into functions, and [`pipeline`] drives
//! them in parallel: it mines every repository into staging tables, clusters duplicates
//! across the run (`codemine_filters::dedup`) and writes the final Parquet shards of
//! `codemine-schemas` without the removed functions.
//! [`coverage`] reads test-coverage reports (LCOV, Cobertura, JaCoCo, gcov, gcovr and coverage.py JSON) and maps
//! them onto repository paths for the per-function coverage of the enrich stage.
//!
//! ```no_run
//! use miner::pipeline::{mine, MineOptions, NoProgress};
//! use miner::source::parse_repo_arg;
//! let specs = vec![parse_repo_arg("https://github.com/psf/requests@v2.31.0")?];
//! let opts = MineOptions::new("out".into(), "cache".into());
//! let summary = mine(&specs, &opts, &NoProgress)?;
//! println!("{} rows", summary.stats.stages.write.csn_rows.values().sum::<usize>());
//! # Ok::<(), miner::Error>(())
//! ```

pub mod benchmark;
pub mod callgraph;
pub mod contamination;
pub mod csn;
pub mod escape;
pub mod fault;
pub mod inspect;
mod output;
pub mod pipeline;
pub mod repo_completion;
pub mod report;
pub mod source;
pub mod stats;

// The syntax core and the languages are crates of their own (docs/design.md, "Layout"),
// under the paths the pipeline has always used.
pub use codemine_lang as lang;
pub use codemine_syntax::{extract, resolve};

/// Errors that stop a whole run. Per-repository and per-file problems are not errors of
/// the run: they go to failures.jsonl and the run goes on.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The request itself is wrong (bad argument, unreadable manifest).
    #[error("{0}")]
    Usage(String),
    #[error("{path}: {source}")]
    Io {
        path: std::path::PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Write(#[from] codemine_schemas::Error),
    #[error(transparent)]
    Dedup(#[from] codemine_filters::dedup::DedupError),
    /// A step's inputs are not all there yet (a rank has not finished, no clusters table).
    #[error("{0}")]
    Incomplete(String),
    #[error("thread pool: {0}")]
    ThreadPool(String),
    /// The SIDE model failed on the pairs (loading it is a usage error).
    #[error("SIDE: {0}")]
    Side(#[from] codemine_side::SideError),
    /// Another run holds the output folder (or this rank of it).
    #[error("{} is in use by another codemine run ({holder}): wait for it to end or use another --out", path.parent().unwrap_or(path).display())]
    Busy {
        path: std::path::PathBuf,
        holder: String,
    },
}

/// The stable 64-bit id of a function (docs/design.md, "Identity"): xxh3-64 of the repository,
/// path, qualified name and start line, joined by NUL bytes (the line in decimal).
pub fn function_id(repo: &str, path: &str, qualified_name: &str, start_line: u32) -> u64 {
    let key = format!("{repo}\0{path}\0{qualified_name}\0{start_line}");
    xxhash_rust::xxh3::xxh3_64(key.as_bytes())
}
