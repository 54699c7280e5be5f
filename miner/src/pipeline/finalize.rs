//! Step 3 of a run: writes the final outputs from the staging area of every rank.
//!
//! Inputs: `staging/rank-*-of-N.done` (all N ranks must be done), the chunk markers and
//! staging tables, and `dedup/clusters/clusters-*.parquet` when the mining step ran with dedup.
//! Outputs, one folder per table ([`codemine_schemas::layout`]): `csn/`, `yabloco/`,
//! `callgraph/nodes/`, `callgraph/edges/`, `repositories/`, `dropped/` (with `--explain`),
//! the completion tables,
//! `failures.jsonl`, `stats.json` and the dataset card; `staging/` is removed at the end.
//!
//! Publication is crash-safe: `stats.json` is removed first and written last, so an output
//! folder with a `stats.json` is complete. Only then is `staging/` handed over in one
//! rename to `staging.removing/` and deleted; a run that finds `staging.removing/` (a kill
//! during the deletion) finishes deleting it before anything else. A kill at any earlier
//! point leaves `staging/` whole, and a rerun redoes the cluster and finalize steps from it,
//! which give the same bytes again.
//!
//! Removed functions leave the CSN and YABLoCo shards; every node stays, with its
//! `cluster_id` and `duplicate_of`. Survivors of a cluster are its keepers, so every CSN row
//! keeps its repository's partition and the cluster-to-keeper-partition rule holds by
//! construction: no near-copy of a test row remains in train.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::Instant;

use arrow_array::cast::AsArray;
use arrow_array::RecordBatch;
use codemine_schemas::callgraph::{EdgesTable, NodesTable};
use codemine_schemas::csn as csn_schema;
use codemine_schemas::dedup::read_functions;
use codemine_schemas::dropped::DroppedTable;
use codemine_schemas::layout::{self, TableDir};
use codemine_schemas::pii::PiiTable;
use codemine_schemas::repositories::{RepositoriesTable, RepositoryRow};
use codemine_schemas::staged::{finalize_csn, finalize_nodes, finalize_yabloco, read_batches};
use codemine_schemas::tasks::TasksTable;
use codemine_schemas::tests::TestsTable;
use codemine_schemas::yabloco::YablocoTable;
use codemine_schemas::{clear_shards, shard_files, ShardOptions, ShardWriter, Split, Table};

use super::dedup::Decisions;
use super::stage::{
    chunk_markers, dedup_params, file_names, json_error, staged_files, ChunkMarker, RankMarker,
    STAGING,
};
use super::Summary;
use crate::output::{self, FailureLog};
use crate::stats::{ClusterStep, DedupStage, Stats};
use crate::Error;

/// The rank markers under `out_dir`: all ranks `0..N` of one world size, or an error that
/// names what is missing.
pub(super) fn rank_markers(out_dir: &Path) -> Result<Vec<RankMarker>, Error> {
    let dir = out_dir.join(STAGING);
    let entries = std::fs::read_dir(&dir).map_err(|source| Error::Io {
        path: dir.clone(),
        source,
    })?;
    let mut found: BTreeMap<(usize, usize), PathBuf> = BTreeMap::new();
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(rest) = name
            .strip_prefix("rank-")
            .and_then(|r| r.strip_suffix(".done"))
        else {
            continue;
        };
        let Some((rank, world)) = rest.split_once("-of-") else {
            continue;
        };
        if let (Ok(r), Ok(w)) = (rank.parse(), world.parse()) {
            found.insert((w, r), e.path());
        }
    }
    let worlds: HashSet<usize> = found.keys().map(|(w, _)| *w).collect();
    let incomplete = |m: String| Err(Error::Incomplete(m));
    let world = match worlds.len() {
        0 => return incomplete(format!("{}: no rank has finished mining", dir.display())),
        1 => worlds.into_iter().next().unwrap_or(1),
        _ => {
            return incomplete(format!(
                "{}: ranks of different world sizes {:?} (remove the folder and rerun)",
                dir.display(),
                worlds
            ))
        }
    };
    let mut markers = Vec::with_capacity(world);
    for rank in 0..world {
        let Some(path) = found.get(&(world, rank)) else {
            return incomplete(format!(
                "rank {rank} of {world} has not finished mining (no {}/rank-{rank:05}-of-{world:05}.done)",
                dir.display()
            ));
        };
        let bytes = std::fs::read(path).map_err(|source| Error::Io {
            path: path.clone(),
            source,
        })?;
        markers.push(serde_json::from_slice(&bytes).map_err(|e| json_error(path, e))?);
    }
    Ok(markers)
}

/// The name `staging/` takes once the run is published, while it is deleted.
pub const REMOVING: &str = "staging.removing";

/// Finishes deleting the staging area of a published run, if a kill interrupted that.
pub fn discard_removed(out_dir: &Path) -> Result<(), Error> {
    let dir = out_dir.join(REMOVING);
    match std::fs::remove_dir_all(&dir) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(source) => Err(Error::Io { path: dir, source }),
    }
}

/// Hands the staging area over once stats.json is written (the run is complete): one rename,
/// then the deletion, file by file.
pub fn publish(out_dir: &Path) -> Result<(), Error> {
    crate::fault::point("publish");
    let staging = out_dir.join(STAGING);
    let removing = out_dir.join(REMOVING);
    std::fs::rename(&staging, &removing).map_err(|source| Error::Io {
        path: staging.clone(),
        source,
    })?;
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| Error::Io { path, source }
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(&removing)
        .map_err(io(&removing))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    files.sort();
    for f in files {
        crate::fault::point("remove staging file");
        if f.is_dir() {
            std::fs::remove_dir_all(&f).map_err(io(&f))?;
        } else {
            std::fs::remove_file(&f).map_err(io(&f))?;
        }
    }
    std::fs::remove_dir(&removing).map_err(io(&removing))
}

/// Streams every staging table into its final shards. The caller writes the side files
/// ([`write_side_files`]) and then [`publish`]es. The parts run in order: the inputs
/// checked and the old shards cleared, the ranks' stats and failures merged, the tables
/// streamed, their shards recorded, and the run-wide stages summed.
pub fn run(out_dir: &Path, shards: ShardOptions) -> Result<Summary, Error> {
    let t = Instant::now();
    let ranks = prepare(out_dir)?;
    let (mut stats, failures, counts) = merge_ranks(out_dir, &ranks)?;
    let repositories = write_repositories(out_dir, &stats, shards)?;
    let (decisions, clusters) = Decisions::read(out_dir)?;
    let side = super::side::Scores::read(out_dir, &ranks)?;
    let tables = stream_tables(out_dir, &ranks, shards, &decisions, side.as_ref())?;
    let kept = tables.record(&ranks, &mut stats)?;
    let write = &mut stats.stages.write;
    write
        .shards
        .entry(layout::REPOSITORIES.dir)
        .or_default()
        .extend(repositories);
    write.band_rows = counts.band_rows;
    write.same_id_skipped += counts.same_id_skipped;
    for t in [layout::BANDS, layout::CLUSTERS] {
        let files = shard_files(&t.path(out_dir), t.prefix)?;
        if !files.is_empty() {
            write
                .shards
                .entry(t.dir)
                .or_default()
                .extend(file_names(&files));
        }
    }
    sum_stages(out_dir, &ranks, shards, &mut stats)?;
    restate_csn_rows(&mut stats, &kept);
    if let Some(s) = side {
        s.apply_funnel(&mut stats.stages.filter.funnel);
        stats.stages.side = Some(s.stage);
    }
    if ranks.iter().any(|r| r.dedup) {
        stats.stages.dedup = Some(dedup_stage(out_dir, &clusters)?);
    }

    stats.stages.write.busy_seconds = counts.busy_seconds + t.elapsed().as_secs_f64();
    stats.codemine_version = env!("CARGO_PKG_VERSION");
    stats.peak_rss_bytes = crate::stats::peak_rss_bytes();
    Ok(Summary {
        stats,
        failures,
        resumed: 0,
    })
}

/// Checks that every rank is done (and `codemine cluster` ran when the ranks deduplicated),
/// removes the side files (no stats.json while the tables are rewritten: its presence means
/// complete) and the final tables' old shards; returns the rank markers.
fn prepare(out_dir: &Path) -> Result<Vec<RankMarker>, Error> {
    discard_removed(out_dir)?;
    let ranks = rank_markers(out_dir)?;
    let dedup = ranks.iter().any(|r| r.dedup);
    let cluster_files = shard_files(&layout::CLUSTERS.path(out_dir), "clusters")?;
    if dedup && cluster_files.is_empty() {
        return Err(Error::Incomplete(format!(
            "{}: the mining step ran with dedup but there is no clusters table: run `codemine cluster` first",
            out_dir.display()
        )));
    }
    output::remove_side_files(out_dir)?;
    for t in [
        layout::CSN,
        layout::YABLOCO,
        layout::NODES,
        layout::EDGES,
        layout::DROPPED,
        layout::REPOSITORIES,
        layout::TESTS,
        layout::PII,
        layout::TASKS,
    ] {
        clear_shards(&t.path(out_dir))?;
    }
    // An earlier run of the layout before issue 39 left the call graph's tables side by
    // side in `callgraph/`: a rerun replaces them, as it replaces its own shards.
    clear_shards(&out_dir.join("callgraph"))?;
    Ok(ranks)
}

/// The ranks' chunk markers merged: the run's stats (repositories in input order), its
/// failures.jsonl written, and the staged tables' counts.
fn merge_ranks(
    out_dir: &Path,
    ranks: &[RankMarker],
) -> Result<(Stats, usize, super::stage::ChunkCounts), Error> {
    let mut stats = Stats::default();
    if let Some(r) = ranks.iter().find(|r| r.filter_active) {
        let f = &mut stats.stages.filter;
        f.active = true;
        f.settings = r.filter_settings.clone();
        f.rules = r.filter_rules.clone();
    }
    let mut failures = FailureLog::create(out_dir)?;
    let mut counts = super::stage::ChunkCounts::default();
    for path in chunk_markers(out_dir)? {
        let bytes = std::fs::read(&path).map_err(|source| Error::Io {
            path: path.clone(),
            source,
        })?;
        let marker: ChunkMarker =
            serde_json::from_slice(&bytes).map_err(|e| json_error(&path, e))?;
        for mut r in marker.repos {
            for f in &r.failures {
                failures.write(f)?;
            }
            r.stats.funnel = r.funnel;
            stats.merge(r.stats, r.failed);
        }
        counts.edges += marker.counts.edges;
        counts.dropped += marker.counts.dropped;
        counts.band_rows += marker.counts.band_rows;
        counts.same_id_skipped += marker.counts.same_id_skipped;
        counts.busy_seconds += marker.counts.busy_seconds;
    }
    Ok((stats, failures.finish()?, counts))
}

/// The final tables being written: their writers and, for the tables copied whole, their
/// rows and shard names.
struct Streamed {
    csn: Vec<(Split, super::side::CsnWriter)>,
    /// The CSN rows' `docstring_params` counted, with `--docstring-params`.
    params: Option<crate::stats::steps::DocstringParamsStage>,
    yabloco: ShardWriter<YablocoTable>,
    nodes: ShardWriter<NodesTable>,
    edges: (usize, Vec<String>),
    dropped: Option<(usize, Vec<String>)>,
    tests: Option<(usize, Vec<String>)>,
    pii: Option<(usize, Vec<String>)>,
    tasks: Option<(usize, Vec<String>)>,
    /// Rows per (repository, commit, language), to restate the per-repository counts.
    kept: HashMap<(String, String, String), usize>,
    /// YABLoCo rows skipped because a function of the same id was written before.
    same_id: usize,
}

/// Streams every staged table into its final shards: CSN, YABLoCo and the nodes through
/// dedup's decisions (and SIDE's scores), the other tables copied.
fn stream_tables(
    out_dir: &Path,
    ranks: &[RankMarker],
    shards: ShardOptions,
    decisions: &Decisions,
    side: Option<&super::side::Scores>,
) -> Result<Streamed, Error> {
    let decide = |id| decisions.get(id);
    let side_drops = |id| side.is_some_and(|s| s.drops(id));
    let mut same_id = 0usize;

    let params = ranks.iter().any(|r| r.docstring_params);
    let mut params_stage = params.then(crate::stats::steps::DocstringParamsStage::default);
    let csn_dir = layout::CSN.path(out_dir);
    let mut csn = Split::ALL
        .iter()
        .map(|&s| {
            let w =
                super::side::CsnWriter::new(&csn_dir, s.as_str(), shards, side.is_some(), params)?;
            Ok((s, w))
        })
        .collect::<Result<Vec<_>, Error>>()?;
    let mut kept: HashMap<(String, String, String), usize> = HashMap::new();
    let mut seen = HashSet::new();
    for path in staged_files(out_dir, "csn")? {
        for batch in read_batches(&path)? {
            let mut batch = batch.map_err(codemine_schemas::Error::Arrow)?;
            if let Some(s) = side {
                batch = s.staged_csn(&batch, &path)?;
            }
            for (split, b) in finalize_csn(&batch, &path, decide, |id| seen.insert(id))? {
                count_rows(&b, &mut kept);
                if let Some(stage) = &mut params_stage {
                    super::docstring_params::count_rows(&b, stage);
                }
                if let Some((_, w)) = csn.iter_mut().find(|(s, _)| *s == split) {
                    w.push_batch(&b)?;
                }
            }
        }
    }

    crate::fault::point("csn table streamed");
    let mut yabloco =
        ShardWriter::<YablocoTable>::new(&layout::YABLOCO.path(out_dir), "data", shards)?;
    let mut seen = HashSet::new();
    for path in staged_files(out_dir, "yabloco")? {
        for batch in read_batches(&path)? {
            let batch = batch.map_err(codemine_schemas::Error::Arrow)?;
            let b = finalize_yabloco(&batch, &path, decide, |id| {
                let new = seen.insert(id);
                same_id += usize::from(!new);
                new && !side_drops(id)
            })?;
            yabloco.push_batch(&b)?;
        }
    }

    let mut nodes = ShardWriter::<NodesTable>::with_schema(
        &layout::NODES.path(out_dir),
        "nodes",
        shards,
        codemine_schemas::callgraph::nodes_shape(params),
    )?;
    for path in staged_files(out_dir, "nodes")? {
        for batch in read_batches(&path)? {
            let batch = batch.map_err(codemine_schemas::Error::Arrow)?;
            let mut b = finalize_nodes(&batch, &path, decide)?;
            if let Some(s) = side {
                b = s.nodes(&b, &path)?;
            }
            nodes.push_batch(&b)?;
        }
    }
    crate::fault::point("nodes table streamed");
    let edges = copy::<EdgesTable>(out_dir, "edges", layout::EDGES, shards, Vec::new())?;
    let dropped = if ranks.iter().any(|r| r.explain) {
        Some(copy::<DroppedTable>(
            out_dir,
            "dropped",
            layout::DROPPED,
            shards,
            super::side::Scores::dropped_files(out_dir)?,
        )?)
    } else {
        None
    };
    let tests = match ranks.iter().any(|r| r.tests.is_some()) {
        true => Some(copy::<TestsTable>(
            out_dir,
            "tests",
            layout::TESTS,
            shards,
            Vec::new(),
        )?),
        false => None,
    };
    let pii = match ranks.iter().any(|r| r.pii.is_some()) {
        true => Some(copy::<PiiTable>(
            out_dir,
            "pii",
            layout::PII,
            shards,
            Vec::new(),
        )?),
        false => None,
    };
    let validated = ranks
        .iter()
        .any(|r| r.tests.as_ref().is_some_and(|t| t.settings.validate_tasks));
    let tasks = match validated {
        true => Some(copy::<TasksTable>(
            out_dir,
            "tasks",
            layout::TASKS,
            shards,
            Vec::new(),
        )?),
        false => None,
    };
    Ok(Streamed {
        csn,
        params: params_stage,
        yabloco,
        nodes,
        edges,
        dropped,
        tests,
        pii,
        tasks,
        kept,
        same_id,
    })
}

impl Streamed {
    /// Finishes the writers and records every table's rows and shards in the write stage;
    /// returns the CSN rows kept per (repository, commit, language).
    fn record(
        self,
        ranks: &[RankMarker],
        stats: &mut Stats,
    ) -> Result<HashMap<(String, String, String), usize>, Error> {
        if let Some(m) = ranks.iter().find_map(|r| r.tests.as_ref()) {
            let stage = stats.stages.tests.get_or_insert_with(Default::default);
            stage.sandboxed = m.sandboxed;
            stage.sandbox = m.sandbox.clone();
        }
        if let Some(counted) = self.params {
            // The parses of the ranks' repositories (merged already) and the final rows.
            let stage = stats
                .stages
                .docstring_params
                .get_or_insert_with(Default::default);
            stage.rows = counted.rows;
            stage.styles = counted.styles;
            stage.with_params = counted.with_params;
            stage.with_returns = counted.with_returns;
        }
        if let Some(m) = ranks.iter().find_map(|r| r.pii.as_ref()) {
            let stage = stats.stages.pii.get_or_insert_with(Default::default);
            stage.mode = m.mode.as_str().to_string();
            stage.config = m.config.clone();
        }
        let write = &mut stats.stages.write;
        crate::fault::point("tables streamed");
        let total: usize = self.csn.iter().map(|(_, w)| w.rows()).sum();
        for (split, w) in self.csn {
            let rows = w.rows();
            write.csn_bytes.insert(split.as_str(), w.data_bytes());
            // With no rows at all, one empty train shard still carries the schema.
            let files = w.finish(total == 0 && split == Split::Train)?;
            write.csn_rows.insert(split.as_str(), rows);
            write
                .shards
                .entry("csn")
                .or_default()
                .extend(file_names(&files));
        }
        write.yabloco_rows = self.yabloco.rows();
        write.callgraph_nodes = self.nodes.rows();
        // Each table always has at least one shard, so its schema is there to read. Shards
        // are listed by table folder.
        let y = file_names(&self.yabloco.finish(true)?);
        write
            .shards
            .entry(layout::YABLOCO.dir)
            .or_default()
            .extend(y);
        let n = file_names(&self.nodes.finish(true)?);
        write.shards.entry(layout::NODES.dir).or_default().extend(n);
        write
            .shards
            .entry(layout::EDGES.dir)
            .or_default()
            .extend(self.edges.1);
        write.callgraph_edges = self.edges.0;
        if let Some((rows, files)) = self.dropped {
            write.dropped_rows = rows;
            list_shards(write, layout::DROPPED, files);
        }
        if let Some((rows, files)) = self.tests {
            write.tests_rows = rows;
            list_shards(write, layout::TESTS, files);
            if let Some(t) = &mut stats.stages.tests {
                t.rows = rows as u64;
            }
        }
        if let Some((rows, files)) = self.pii {
            stats.stages.write.pii_rows = rows;
            list_shards(&mut stats.stages.write, layout::PII, files);
            if let Some(p) = &mut stats.stages.pii {
                p.rows = rows as u64;
            }
        }
        if let Some((rows, files)) = self.tasks {
            stats.stages.write.tasks_rows = rows;
            list_shards(&mut stats.stages.write, layout::TASKS, files);
        }
        stats.stages.write.same_id_skipped = self.same_id;
        Ok(self.kept)
    }
}

/// The run-wide stages summed from the ranks: completion (whose tables are written here),
/// repository-level completion and decontamination.
fn sum_stages(
    out_dir: &Path,
    ranks: &[RankMarker],
    shards: ShardOptions,
    stats: &mut Stats,
) -> Result<(), Error> {
    let settings = ranks.iter().find_map(|r| r.completion.clone());
    stats.stages.completion = super::completion::finalize(
        out_dir,
        settings.as_ref(),
        &stats.completion_counts,
        shards,
        dedup_params(out_dir)?.as_ref(),
    )?;
    let settings = ranks.iter().find_map(|r| r.repo_completion.as_ref());
    stats.stages.repo_completion =
        super::repo_completion::finalize(out_dir, settings, &stats.repo_completion_counts, shards)?;
    // The completion tables' shards, each under its table's folder.
    let completion = stats.stages.completion.iter().flat_map(|c| &c.shards);
    let repo = stats.stages.repo_completion.iter().flat_map(|c| &c.shards);
    for (dir, name) in completion.chain(repo) {
        let write = &mut stats.stages.write;
        write.shards.entry(dir).or_default().push(name.clone());
    }
    let settings = ranks.iter().find_map(|r| r.decontamination.as_ref());
    stats.stages.decontamination = super::decontam::finalize(settings, &stats.repositories);
    Ok(())
}

/// The repositories table: every mined repository (not failed, not listed twice) with its
/// license; one shard even when empty, so the schema is there to read.
fn write_repositories(
    out_dir: &Path,
    stats: &Stats,
    shards: ShardOptions,
) -> Result<Vec<String>, Error> {
    let mut w =
        ShardWriter::<RepositoriesTable>::new(&out_dir.join("repositories"), "data", shards)?;
    for r in stats.repositories.iter().filter(|r| r.status == "mined") {
        let l = r.license.as_ref();
        w.push(&RepositoryRow {
            repo: r.repo.clone(),
            url: r.source.clone(),
            sha: r.sha.clone(),
            license: l.and_then(|l| l.license.clone()),
            confidence: l.and_then(|l| l.confidence),
            license_file: l.and_then(|l| l.license_file.clone()),
        })?;
    }
    Ok(file_names(&w.finish(true)?))
}

/// Writes the dataset card and its figures, then stats.json: the last file of a complete
/// output. Figures that cannot be drawn are a warning, not a lost run (`codemine report`
/// redraws them).
pub fn write_side_files(out_dir: &Path, stats: &Stats) -> Result<(), Error> {
    output::write_card(out_dir, stats)?;
    let drawn = serde_json::to_vec(stats)
        .map_err(|e| Error::Usage(format!("stats: {e}")))
        .and_then(|b| crate::report::parse_stats(&out_dir.join("stats.json"), &b))
        .and_then(|v| crate::report::write(out_dir, &v, false));
    match drawn {
        Ok(w) => {
            if let Some(why) = w.not_drawn {
                crate::escape::log(&format!("codemine: warning: figures not drawn: {why}"));
            }
        }
        Err(e) => crate::escape::log(&format!(
            "codemine: warning: the dataset card's figures could not be drawn: {e} \
             (`codemine report {}` retries)",
            out_dir.display()
        )),
    }
    crate::fault::point("card written");
    output::write_stats(out_dir, stats)
}

/// Copies a staged table that dedup does not change into its final shards, then the
/// `extra` files of the same table.
fn copy<T: Table>(
    out_dir: &Path,
    table: &str,
    to: TableDir,
    shards: ShardOptions,
    extra: Vec<PathBuf>,
) -> Result<(usize, Vec<String>), Error> {
    let mut w = ShardWriter::<T>::new(&to.path(out_dir), to.prefix, shards)?;
    for path in staged_files(out_dir, table)?.into_iter().chain(extra) {
        for batch in read_batches(&path)? {
            w.push_batch(&batch.map_err(codemine_schemas::Error::Arrow)?)?;
        }
    }
    let rows = w.rows();
    Ok((rows, file_names(&w.finish(true)?)))
}

/// Lists a table's shard files in the write stage, by table folder.
fn list_shards(write: &mut crate::stats::WriteStage, table: TableDir, files: Vec<String>) {
    write.shards.entry(table.dir).or_default().extend(files);
}

/// The dedup stage's stats: counts from the clusters table (whichever engine wrote it),
/// timings and pair counts from `codemine cluster` when it ran.
fn dedup_stage(
    out_dir: &Path,
    clusters: &[codemine_schemas::dedup::ClusterRow],
) -> Result<DedupStage, Error> {
    let params = dedup_params(out_dir)?.unwrap_or_default();
    let step_path = out_dir.join(STAGING).join("cluster-step.json");
    let step: Option<ClusterStep> = match std::fs::read(&step_path) {
        Ok(bytes) => Some(serde_json::from_slice(&bytes).map_err(|e| json_error(&step_path, e))?),
        Err(_) => None,
    };
    let (functions, tiny) = match &step {
        Some(s) => (s.functions, s.tiny),
        None => {
            let (mut ids, mut tiny) = (HashSet::new(), 0u64);
            for path in staged_files(out_dir, "functions")? {
                read_functions(&path, |f| {
                    if ids.insert(f.id) && f.shingles.is_empty() {
                        tiny += 1;
                    }
                })?;
            }
            (ids.len() as u64, tiny)
        }
    };
    let mut sizes: HashMap<u64, u64> = HashMap::new();
    let (mut exact, mut near) = (0, 0);
    for c in clusters {
        *sizes.entry(c.cluster_id).or_default() += 1;
        match c.kind.as_str() {
            "exact" => exact += 1,
            "near" => near += 1,
            _ => {}
        }
    }
    let mut cluster_sizes: BTreeMap<u64, u64> = BTreeMap::new();
    for &size in sizes.values() {
        *cluster_sizes.entry(size).or_default() += 1;
    }
    let members = clusters.len() as u64;
    if functions > members {
        cluster_sizes.insert(1, functions - members);
    }
    Ok(DedupStage {
        clustered_by: if step.is_some() {
            "codemine cluster".into()
        } else {
            "external".into()
        },
        tokens: "identifiers, keywords and literals of the parser's tokens (punctuation and operators left out), literals in one spelling per value".into(),
        keeper_rule: "has a docstring, then the most recent last commit (unknown last), then the smallest id; chained components are cut into clusters around keepers".into(),
        params,
        minhash_rs_version: codemine_filters::dedup::MINHASH_RS_VERSION.into(),
        functions,
        exact_removed: exact,
        near_removed: near,
        clusters: sizes.len() as u64,
        tiny,
        cluster_sizes,
        cluster_members: members,
        cluster_step: step,
    })
}

/// Counts a final CSN batch's rows per (repository, commit, language).
fn count_rows(batch: &RecordBatch, kept: &mut HashMap<(String, String, String), usize>) {
    let col = |name| {
        batch
            .column_by_name(name)
            .and_then(|c| c.as_string_opt::<i32>())
    };
    let (Some(repo), Some(sha), Some(lang)) = (
        col(csn_schema::REPO),
        col(csn_schema::SHA),
        col(csn_schema::LANGUAGE),
    ) else {
        return;
    };
    for k in 0..batch.num_rows() {
        let key = (
            repo.value(k).to_string(),
            sha.value(k).to_string(),
            lang.value(k).to_string(),
        );
        *kept.entry(key).or_default() += 1;
    }
}

/// Sets the CSN row counts of every repository and language to the rows that dedup left.
fn restate_csn_rows(stats: &mut Stats, kept: &HashMap<(String, String, String), usize>) {
    let mut by_lang: HashMap<&str, usize> = HashMap::new();
    let mut total = 0;
    for r in stats
        .repositories
        .iter_mut()
        .filter(|r| r.status == "mined")
    {
        let sha = r.sha.clone().unwrap_or_default();
        r.totals.csn_rows = 0;
        for (lang, c) in r.languages.iter_mut() {
            let key = (r.repo.clone(), sha.clone(), lang.to_string());
            c.csn_rows = kept.get(&key).copied().unwrap_or(0);
            r.totals.csn_rows += c.csn_rows;
            *by_lang.entry(lang).or_default() += c.csn_rows;
        }
        total += r.totals.csn_rows;
    }
    for (lang, c) in stats.languages.iter_mut() {
        c.csn_rows = by_lang.get(lang).copied().unwrap_or(0);
    }
    stats.stages.extract.totals.csn_rows = total;
}
