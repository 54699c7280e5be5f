//! Step 1 of a run: mines every repository and writes what it found.
//!
//! Outputs (under `--out DIR`):
//! - `staging/csn-*`, `staging/yabloco-*`, `staging/nodes-*`: the rows of the final CSN,
//!   YABLoCo and node tables before dedup (CSN rows carry their `function_id`);
//! - `staging/functions-*` and `dedup/bands-*`: the dedup inputs of every function the
//!   filters kept (when dedup is on);
//! - `callgraph/edges-*`, `dropped/dropped-*` and `failures.jsonl`, which dedup does not
//!   change, in their final form.

use std::collections::HashSet;
use std::path::Path;
use std::sync::mpsc;
use std::time::Instant;

use codemine_filters::Filter;
use codemine_schemas::callgraph::{EdgesTable, NodesTable};
use codemine_schemas::csn::CsnTable;
use codemine_schemas::dedup::{BandRow, BandsTable, FunctionRow, FunctionsTable};
use codemine_schemas::dropped::DroppedTable;
use codemine_schemas::staged::Keyed;
use codemine_schemas::yabloco::YablocoTable;
use codemine_schemas::{ShardOptions, ShardWriter};
use rayon::prelude::*;

use super::repo::{mine_repo, RepoOutput};
use super::{MineOptions, Progress};
use crate::callgraph::GraphRows;
use crate::output::FailureLog;
use crate::source::RepoSpec;
use crate::stats::Stats;
use crate::Error;

/// The folder of the staging tables, under `--out DIR`; removed once the run is final.
pub const STAGING: &str = "staging";

/// What the mining step hands on.
pub struct Staged {
    pub stats: Stats,
    /// Lines written to failures.jsonl.
    pub failures: usize,
}

/// Mines `specs` with `pool`, batch by batch, while a writer thread writes each finished
/// batch.
pub fn run(
    specs: &[RepoSpec],
    opts: &MineOptions,
    progress: &dyn Progress,
    pool: &rayon::ThreadPool,
) -> Result<Staged, Error> {
    progress.started(specs.len());
    let (tx, rx) = mpsc::sync_channel::<Vec<RepoOutput>>(1);
    let mut writer = Writer::new(opts)?;
    std::thread::scope(|scope| {
        let handle = scope.spawn(move || -> Result<Writer, Error> {
            for batch in rx {
                for repo in batch {
                    writer.add(repo)?;
                }
            }
            Ok(writer)
        });
        let batch_size = (pool.current_num_threads() * 2).max(4);
        for chunk in specs.chunks(batch_size) {
            let outputs: Vec<RepoOutput> = pool.install(|| {
                chunk
                    .par_iter()
                    .map(|s| mine_repo(s, opts, progress))
                    .collect()
            });
            for o in &outputs {
                progress.repo_finished(&o.stats, o.failures.first().filter(|_| o.failed.is_some()));
            }
            if tx.send(outputs).is_err() {
                break; // the writer stopped on an error, which join() reports
            }
        }
        drop(tx);
        let writer = handle
            .join()
            .map_err(|_| Error::ThreadPool("the writer thread panicked".into()))??;
        writer.finish()
    })
}

/// Stats with the filter stage's settings filled in.
fn filter_stats(filter: Option<&Filter>) -> Stats {
    let mut stats = Stats::default();
    if let Some(f) = filter.filter(|f| f.is_active()) {
        let s = &mut stats.stages.filter;
        s.active = true;
        s.settings = f.describe();
        s.rules = f.rule_names();
    }
    stats
}

/// Shard names of finished files.
pub fn file_names(files: &[std::path::PathBuf]) -> Vec<String> {
    files
        .iter()
        .filter_map(|p| p.file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .collect()
}

/// The writer thread's state: one shard writer per table, the failure log, the stats.
struct Writer {
    csn: ShardWriter<Keyed<CsnTable>>,
    yabloco: ShardWriter<YablocoTable>,
    nodes: ShardWriter<NodesTable>,
    edges: ShardWriter<EdgesTable>,
    dropped: Option<ShardWriter<DroppedTable>>,
    functions: Option<ShardWriter<FunctionsTable>>,
    bands: Option<ShardWriter<BandsTable>>,
    failures: FailureLog,
    stats: Stats,
    seen: HashSet<(String, Option<String>)>,
    /// Ids of the kept functions written so far: an id is written once (see `add`).
    written: HashSet<u64>,
    busy: f64,
}

impl Writer {
    fn new(opts: &MineOptions) -> Result<Self, Error> {
        let out = &opts.out_dir;
        let staging = out.join(STAGING);
        // Staging files are read back whole-file by the next steps: large shards suffice.
        let big = ShardOptions::default();
        let dedup_dir = out.join("dedup");
        let dedup = opts.dedup.is_some();
        let graph_dir = out.join("callgraph");
        Ok(Self {
            csn: ShardWriter::new(&staging, "csn", big)?,
            yabloco: ShardWriter::new(&staging, "yabloco", big)?,
            nodes: ShardWriter::new(&staging, "nodes", big)?,
            edges: ShardWriter::new(&graph_dir, "edges", opts.shards)?,
            dropped: opts
                .explain
                .then(|| ShardWriter::new(&out.join("dropped"), "dropped", opts.shards))
                .transpose()?,
            functions: dedup
                .then(|| ShardWriter::new(&staging, "functions", big))
                .transpose()?,
            bands: dedup
                .then(|| ShardWriter::new(&dedup_dir, "bands", opts.shards))
                .transpose()?,
            failures: FailureLog::create(out)?,
            stats: filter_stats(opts.filter.as_ref()),
            seen: HashSet::new(),
            written: HashSet::new(),
            busy: 0.0,
        })
    }

    fn add(&mut self, mut repo: RepoOutput) -> Result<(), Error> {
        let t = Instant::now();
        if repo.failed.is_none()
            && !self
                .seen
                .insert((repo.stats.repo.clone(), repo.stats.sha.clone()))
        {
            // The same repository at the same commit, listed twice: its rows once only.
            repo.stats.status = "duplicate";
            repo.csn.clear();
            repo.graph = GraphRows::default();
            repo.dropped.clear();
            repo.dedup.clear();
            repo.failures.clear();
        }
        // Ids are (repository name, path, qualified name, start line): two functions can
        // share one (overloads on one line, one repository name at two revisions). The
        // first is written; later ones would make `meta.id` ambiguous and dedup's keeper
        // rule undefined, so they are counted and left out of CSN, YABLoCo and dedup.
        let mut first = Vec::with_capacity(repo.graph.yabloco.len());
        let mut ids = HashSet::new();
        for r in &repo.graph.yabloco {
            let new = self.written.insert(r.meta.id);
            first.push(new);
            if new {
                ids.insert(r.meta.id);
                self.yabloco.push(r)?;
            } else {
                self.stats.stages.write.same_id_skipped += 1;
            }
        }
        for row in repo.csn.iter().filter(|row| ids.contains(&row.0)) {
            self.csn.push(row)?;
        }
        for r in &repo.graph.nodes {
            self.nodes.push(r)?;
        }
        for r in &repo.graph.edges {
            self.edges.push(r)?;
        }
        if let Some(w) = &mut self.dropped {
            for r in &repo.dropped {
                w.push(r)?;
            }
        }
        if let (Some(functions), Some(bands)) = (&mut self.functions, &mut self.bands) {
            // Dedup rows are the kept functions in the order of the YABLoCo rows.
            let dedup = repo.dedup.iter().zip(&first).filter(|(_, new)| **new);
            for ((f, hashes), _) in dedup {
                for (band, &band_hash) in hashes.iter().enumerate() {
                    bands.push(&BandRow {
                        id: f.id,
                        band: band as u32,
                        band_hash,
                    })?;
                }
                functions.push(f)?;
            }
        }
        for f in &repo.failures {
            self.failures.write(f)?;
        }
        self.stats.merge(repo.stats, repo.failed);
        self.busy += t.elapsed().as_secs_f64();
        Ok(())
    }

    fn finish(mut self) -> Result<Staged, Error> {
        let t = Instant::now();
        // Staging tables always get a file, so the next steps find their schema.
        self.csn.finish(true)?;
        self.yabloco.finish(true)?;
        self.nodes.finish(true)?;
        if let Some(w) = self.functions.take() {
            w.finish(true)?;
        }
        let write = &mut self.stats.stages.write;
        write.callgraph_edges = self.edges.rows();
        let edges = file_names(&self.edges.finish(true)?);
        write.shards.entry("callgraph").or_default().extend(edges);
        if let Some(w) = self.dropped.take() {
            write.dropped_rows = w.rows();
            let d = file_names(&w.finish(true)?);
            write.shards.entry("dropped").or_default().extend(d);
        }
        if let Some(w) = self.bands.take() {
            write.band_rows = w.rows();
            let b = file_names(&w.finish(true)?);
            write.shards.entry("dedup").or_default().extend(b);
        }
        let failures = self.failures.finish()?;
        self.stats.stages.write.busy_seconds = self.busy + t.elapsed().as_secs_f64();
        Ok(Staged {
            stats: self.stats,
            failures,
        })
    }
}

/// The staging files of one table (`staging/{table}-*.parquet`), in shard order.
pub fn staged_files(out_dir: &Path, table: &str) -> Result<Vec<std::path::PathBuf>, Error> {
    shard_files(&out_dir.join(STAGING), table)
}

/// The finished shards `{name}-NNNNN-of-NNNNN.parquet` in `dir`, in shard order.
pub fn shard_files(dir: &Path, name: &str) -> Result<Vec<std::path::PathBuf>, Error> {
    let entries = std::fs::read_dir(dir).map_err(|source| Error::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    let prefix = format!("{name}-");
    let mut files: Vec<_> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
                n.starts_with(&prefix)
                    && n.ends_with(".parquet")
                    && n[prefix.len()..].contains("-of-")
            })
        })
        .collect();
    files.sort();
    Ok(files)
}

/// `FunctionRow`s need no conversion at the writer; this keeps the type in one place.
pub type DedupInput = (FunctionRow, Vec<u64>);
