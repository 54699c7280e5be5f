//! Step 1 of a run: mines one rank's share of the repositories into the staging area.
//!
//! Rank `K` of `N` mines the repositories whose manifest index `i` has `i % N == K` (like
//! datatrove's `rank::world_size`); a single-machine run is rank 0 of 1. Work is written in
//! chunks of about `checkpoint_repos` repositories. Outputs, under `--out DIR`, with
//! `rK` = `r{K:05}` and `cC` = `c{C:05}`:
//! - `staging/{csn,yabloco,nodes,edges,dropped,functions}-rK-cC-*.parquet`: the rows of
//!   the chunk (CSN rows carry their `function_id`), and `dedup/bands/bands-rK-cC-*.parquet`;
//! - `staging/chunk-rK-cC.json`: the chunk's completion marker, written once its files are
//!   complete: per repository its manifest index, stats and failures;
//! - `staging/run-rK.json`: what the rank was asked to do (a fingerprint of the manifest
//!   and options), so that a rerun with the same arguments resumes after the last marked
//!   chunk and a rerun with other arguments starts over;
//! - `staging/dedup-params.json` and, when the whole share is done,
//!   `staging/rank-{K:05}-of-{N:05}.done`.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Instant;

use codemine_filters::dedup::DedupParams;
use codemine_filters::{Filter, Funnel};
use codemine_schemas::callgraph::{EdgesTable, NodesTable};
use codemine_schemas::completion::{StagedLineTable, StagedTokenTable};
use codemine_schemas::csn::{CsnParamsTable, CsnTable};
use codemine_schemas::dedup::{BandRow, BandsTable, FunctionRow, FunctionsTable};
use codemine_schemas::dropped::DroppedTable;
use codemine_schemas::layout;
use codemine_schemas::pii::PiiTable;
use codemine_schemas::repo_completion::{RepoTable, SnapshotTable};
use codemine_schemas::staged::{read_yabloco_ids, Keyed};
use codemine_schemas::tasks::TasksTable;
use codemine_schemas::tests::TestsTable;
use codemine_schemas::yabloco::YablocoTable;
use codemine_schemas::{remove_files, shard_files, ShardOptions, ShardWriter, Table};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::completion;
use super::repo::{mine_repo, RepoOutput};
use super::{MineOptions, Progress};
use crate::output::write_atomic;
use crate::source::RepoSpec;
use crate::stats::{Failure, RepoStats};
use crate::Error;
use codemine_schemas::intern;

/// The folder of the staging tables, under `--out DIR`; removed once the run is final.
pub const STAGING: &str = "staging";

/// What the rank's share produced, as recorded in its markers.
pub struct Staged {
    /// Repositories mined by this call (not counting those a resumed run skipped).
    pub mined: usize,
    /// Repositories a resumed run found already done.
    pub resumed: usize,
}

/// One repository in a chunk marker.
#[derive(Serialize, Deserialize)]
pub struct RepoRecord {
    /// Position in the whole manifest.
    pub index: usize,
    pub stats: RepoStats,
    pub funnel: Funnel,
    #[serde(deserialize_with = "intern::de_opt")]
    pub failed: Option<intern::Label>,
    pub failures: Vec<Failure>,
}

/// Row counts of tables that dedup does not change, per chunk.
#[derive(Default, Serialize, Deserialize, Clone, Copy)]
pub struct ChunkCounts {
    pub edges: usize,
    pub dropped: usize,
    pub band_rows: usize,
    pub same_id_skipped: usize,
    pub busy_seconds: f64,
    /// Rows of the `tests` table (`--run-tests`).
    #[serde(default)]
    pub tests: usize,
    /// Rows of the `pii` table (`--pii`).
    #[serde(default)]
    pub pii: usize,
    /// Rows of the `tasks` table (`--validate-tasks`).
    #[serde(default)]
    pub tasks: usize,
}

/// A chunk's completion marker.
#[derive(Serialize, Deserialize)]
pub struct ChunkMarker {
    pub repos: Vec<RepoRecord>,
    pub counts: ChunkCounts,
}

/// A rank's completion marker: what finalize needs besides the chunks.
#[derive(Serialize, Deserialize)]
pub struct RankMarker {
    pub rank: usize,
    pub world_size: usize,
    pub filter_active: bool,
    pub filter_settings: serde_json::Value,
    #[serde(deserialize_with = "intern::de_vec")]
    pub filter_rules: Vec<&'static str>,
    pub dedup: bool,
    pub explain: bool,
    /// `--emit repo-completion`'s settings, when it was asked for.
    #[serde(default)]
    pub repo_completion: Option<crate::repo_completion::Options>,
    /// `--emit completion`'s settings, when it was asked for.
    #[serde(default)]
    pub completion: Option<super::completion::Settings>,
    /// `--decontaminate`'s benchmarks and settings, when it was asked for.
    #[serde(default)]
    pub decontamination: Option<super::decontam::Settings>,
    /// `--side-model`'s settings, when it was given.
    #[serde(default)]
    pub side: Option<super::side::Settings>,
    /// `--run-tests`'s settings and the sandbox it ran in, when it was asked for.
    #[serde(default)]
    pub tests: Option<TestsMarker>,
    /// `--pii`'s mode and `[pii]` table, when it was asked for.
    #[serde(default)]
    pub pii: Option<PiiSettings>,
    /// `--docstring-params`: the CSN and node rows carry `docstring_params`.
    #[serde(default)]
    pub docstring_params: bool,
}

/// What the rank marker records of `--pii`.
#[derive(Serialize, Deserialize, Clone)]
pub struct PiiSettings {
    pub mode: super::pii::PiiMode,
    pub config: serde_json::Value,
}

/// What the rank marker records of `--run-tests`.
#[derive(Serialize, Deserialize, Clone)]
pub struct TestsMarker {
    pub settings: super::tests_step::TestsSettings,
    pub sandboxed: bool,
    pub sandbox: serde_json::Value,
}

/// `r{rank:05}`, the tag in a rank's file names.
pub fn rank_tag(rank: usize) -> String {
    format!("r{rank:05}")
}

/// Mines rank `opts.rank`'s share of `specs`, resuming after its last marked chunk when an
/// earlier call with the same arguments was interrupted.
pub fn run(
    specs: &[RepoSpec],
    opts: &MineOptions,
    progress: &dyn Progress,
    pool: &rayon::ThreadPool,
) -> Result<Staged, Error> {
    let (rank, world) = (opts.rank, opts.world_size);
    if world == 0 || rank >= world {
        return Err(Error::Usage(format!(
            "--rank {rank} must be below --world-size {world}"
        )));
    }
    super::finalize::discard_removed(&opts.out_dir)?;
    let staging = opts.out_dir.join(STAGING);
    std::fs::create_dir_all(&staging).map_err(|source| Error::Io {
        path: staging.clone(),
        source,
    })?;
    let tag = rank_tag(rank);
    let fingerprint = fingerprint(specs, opts);
    let run_file = staging.join(format!("run-{tag}.json"));
    let resume = std::fs::read_to_string(&run_file).is_ok_and(|f| f == fingerprint);
    let mut writer = Writer::new(opts, &tag)?;
    let mut done: HashSet<usize> = HashSet::new();
    if resume {
        done = writer.resume()?;
    } else {
        if world == 1 {
            // The only rank: whatever an earlier run left (other ranks included) goes.
            remove_files(&staging, |_| true)?;
            // Bands and clusters, and the files a run before issue 39 left directly in
            // dedup/ (not the table folders).
            remove_files(&opts.out_dir.join("dedup"), |n| n.contains(".parquet"))?;
            remove_files(&layout::BANDS.path(&opts.out_dir), |_| true)?;
            remove_files(&layout::CLUSTERS.path(&opts.out_dir), |_| true)?;
        } else {
            remove_rank_files(&opts.out_dir, &tag)?;
        }
        write_atomic(&run_file, fingerprint.as_bytes())?;
    }
    let params_file = staging.join("dedup-params.json");
    match &opts.dedup {
        Some(p) => {
            let json = serde_json::to_vec(p).map_err(|e| json_error(&staging, e))?;
            write_atomic(&params_file, &json)?;
        }
        None => remove_files(&staging, |n| n == "dedup-params.json")?,
    }
    let marker = staging.join(format!("rank-{rank:05}-of-{world:05}.done"));
    let mine: Vec<(usize, &RepoSpec)> = specs
        .iter()
        .enumerate()
        .filter(|(i, _)| i % world == rank && !done.contains(i))
        .collect();
    progress.started(mine.len());

    let (tx, rx) = mpsc::sync_channel::<Vec<(usize, RepoOutput)>>(1);
    let mined = mine.len();
    std::thread::scope(|scope| {
        let handle = scope.spawn(move || -> Result<Writer, Error> {
            for batch in rx {
                for (index, repo) in batch {
                    writer.add(index, repo)?;
                }
            }
            writer.close_chunk()?;
            Ok(writer)
        });
        let batch_size = (pool.current_num_threads() * 2).max(4);
        for chunk in mine.chunks(batch_size) {
            let outputs: Vec<(usize, RepoOutput)> = pool.install(|| {
                chunk
                    .par_iter()
                    .map(|&(i, s)| (i, mine_repo(s, opts, progress)))
                    .collect()
            });
            for (_, o) in &outputs {
                progress.repo_finished(&o.stats, o.failures.first().filter(|_| o.failed.is_some()));
            }
            if tx.send(outputs).is_err() {
                break; // the writer stopped on an error, which join() reports
            }
        }
        drop(tx);
        handle
            .join()
            .map_err(|_| Error::ThreadPool("the writer thread panicked".into()))??;
        Ok::<(), Error>(())
    })?;
    let filter = opts.filter.as_ref().filter(|f| f.is_active());
    let mut filter_rules = filter.map(Filter::rule_names).unwrap_or_default();
    // Decontamination is a rule of the funnel too, checked after the cheap rules.
    if opts.decontam.is_some() {
        filter_rules.push(super::decontam::RULE);
    }
    let pii_drops = opts
        .pii
        .as_ref()
        .is_some_and(|p| p.mode == super::pii::PiiMode::Drop);
    if pii_drops {
        filter_rules.push(super::pii::RULE);
    }
    let docstring_params = opts.docstring_params;
    let rank_marker = RankMarker {
        rank,
        world_size: world,
        filter_active: filter.is_some() || opts.decontam.is_some() || pii_drops,
        filter_settings: filter.map(Filter::describe).unwrap_or_default(),
        filter_rules,
        dedup: opts.dedup.is_some(),
        explain: opts.explain,
        completion: opts
            .completion
            .as_ref()
            .map(|c| super::completion::Settings {
                seed: c.seed,
                cuts: c.cuts,
            }),
        repo_completion: opts.repo_completion.clone(),
        decontamination: opts.decontam.as_ref().map(|d| d.settings().clone()),
        side: opts
            .side
            .as_ref()
            .map(|s| s.settings(filter.and_then(Filter::min_side))),
        tests: opts.tests.as_ref().map(|t| TestsMarker {
            settings: t.settings.clone(),
            sandboxed: t.sandboxed,
            sandbox: t.sandbox_info.clone(),
        }),
        pii: opts.pii.as_ref().map(|p| PiiSettings {
            mode: p.mode,
            config: serde_json::to_value(&p.config).unwrap_or_default(),
        }),
        docstring_params,
    };
    let json = serde_json::to_vec_pretty(&rank_marker).map_err(|e| json_error(&marker, e))?;
    write_atomic(&marker, &json)?;
    Ok(Staged {
        mined,
        resumed: done.len(),
    })
}

/// The dedup parameters that the mining step used (`staging/dedup-params.json`), if any.
pub fn dedup_params(out_dir: &Path) -> Result<Option<DedupParams>, Error> {
    let path = out_dir.join(STAGING).join("dedup-params.json");
    match std::fs::read(&path) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|e| json_error(&path, e)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(Error::Io { path, source }),
    }
}

pub fn json_error(path: &Path, e: serde_json::Error) -> Error {
    Error::Io {
        path: path.to_path_buf(),
        source: e.into(),
    }
}

/// What the rank is asked to do: the manifest and every option that changes its rows.
fn fingerprint(specs: &[RepoSpec], opts: &MineOptions) -> String {
    let filter = opts
        .filter
        .as_ref()
        .filter(|f| f.is_active())
        .map(|f| f.describe().to_string());
    let repos: Vec<String> = specs
        .iter()
        .map(|s| match (&opts.tests, &s.tests) {
            // A recipe matters only to runs that run tests (other fingerprints stay as
            // they were).
            (Some(_), Some(r)) => {
                format!("{}|{:?}|{}|{r:?}", s.display(), s.coverage, s.repo_name())
            }
            _ => format!("{}|{:?}|{}", s.display(), s.coverage, s.repo_name()),
        })
        .collect();
    let text = format!(
        "{:?}\n{}/{}\n{:?} {:?} {:?} {} {:?} {:?} {} {:?} {} {:?} {}\n{filter:?}",
        repos,
        opts.rank,
        opts.world_size,
        opts.split,
        opts.headers,
        opts.instruction,
        opts.history,
        opts.coverage_strip_prefixes,
        opts.dedup,
        opts.explain,
        opts.max_file_bytes,
        opts.max_report_bytes,
        opts.source.depth,
        opts.date_zone.name(),
    );
    // Appended only when asked, so that the fingerprints of other runs stay as they were.
    let text = match &opts.completion {
        Some(c) => format!("{text}\n{c:?}"),
        None => text,
    };
    let text = match &opts.repo_completion {
        Some(r) => format!("{text}\nrepo completion {r:?}"),
        None => text,
    };
    let text = match &opts.decontam {
        Some(d) => format!("{text}\n{d:?}"),
        None => text,
    };
    let text = match &opts.side {
        Some(s) => format!("{text}\nside {:?} {}", s.dir, s.model_hash),
        None => text,
    };
    let text = match &opts.tests {
        Some(t) => format!("{text}\ntests {:?}", t.settings),
        None => text,
    };
    let text = match &opts.pii {
        Some(p) => format!("{text}\npii {:?} {:?}", p.mode, p.config),
        None => text,
    };
    // The staged rows carry the column or not: a resume must not mix the two.
    let text = match opts.docstring_params {
        true => format!("{text}\ndocstring params"),
        false => text,
    };
    format!(
        "{{\"fingerprint\": \"{:032x}\"}}\n",
        xxhash_rust::xxh3::xxh3_128(text.as_bytes())
    )
}

/// Removes every staging and band file of the rank (a fresh start).
fn remove_rank_files(out_dir: &Path, tag: &str) -> Result<(), Error> {
    let (files, marker) = (format!("-{tag}-"), format!("rank-{}-", &tag[1..]));
    let ours = |name: &str| name.contains(&files) || name.starts_with(&marker);
    remove_files(&out_dir.join(STAGING), ours)?;
    remove_files(&out_dir.join("dedup"), ours)?;
    Ok(remove_files(&layout::BANDS.path(out_dir), ours)?)
}

/// Shard names of finished files.
pub fn file_names(files: &[PathBuf]) -> Vec<String> {
    files
        .iter()
        .filter_map(|p| p.file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .collect()
}

/// The staged CSN writer: the CSN shape, or it and `docstring_params` (boxed: the
/// writers' builders are large, and of unequal sizes).
enum StagedCsn {
    Plain(Box<ShardWriter<Keyed<CsnTable>>>),
    Params(Box<ShardWriter<Keyed<CsnParamsTable>>>),
}

/// The shard writers of one chunk.
struct Chunk {
    csn: StagedCsn,
    yabloco: ShardWriter<YablocoTable>,
    nodes: ShardWriter<NodesTable>,
    edges: ShardWriter<EdgesTable>,
    dropped: ShardWriter<DroppedTable>,
    functions: ShardWriter<FunctionsTable>,
    bands: ShardWriter<BandsTable>,
    completion_tokens: ShardWriter<StagedTokenTable>,
    completion_lines: ShardWriter<StagedLineTable>,
    repo_completion: ShardWriter<RepoTable>,
    snapshot: ShardWriter<SnapshotTable>,
    tests: ShardWriter<TestsTable>,
    pii: ShardWriter<PiiTable>,
    tasks: ShardWriter<TasksTable>,
    marker: ChunkMarker,
}

/// The writer thread's state: the open chunk and what every chunk needs to know.
struct Writer {
    out_dir: PathBuf,
    tag: String,
    checkpoint: usize,
    dedup: bool,
    explain: bool,
    /// `--docstring-params`: the CSN and node rows carry the column.
    docstring_params: bool,
    chunk: Option<Chunk>,
    next_chunk: usize,
    seen: HashSet<(String, Option<String>)>,
    /// Ids of the kept functions written so far: an id is written once (see `add`).
    written: HashSet<u64>,
}

impl Writer {
    fn new(opts: &MineOptions, tag: &str) -> Result<Self, Error> {
        Ok(Self {
            out_dir: opts.out_dir.clone(),
            tag: tag.to_string(),
            checkpoint: opts.checkpoint_repos.max(1),
            dedup: opts.dedup.is_some(),
            explain: opts.explain,
            docstring_params: opts.docstring_params,
            chunk: None,
            next_chunk: 0,
            seen: HashSet::new(),
            written: HashSet::new(),
        })
    }

    fn chunk_name(&self, table: &str, chunk: usize) -> String {
        format!("{table}-{}-c{chunk:05}", self.tag)
    }

    fn marker_path(&self, chunk: usize) -> PathBuf {
        self.out_dir
            .join(STAGING)
            .join(format!("chunk-{}-c{chunk:05}.json", self.tag))
    }

    /// Picks up after the last marked chunk: returns the manifest indexes already done,
    /// and removes what unmarked chunks left.
    fn resume(&mut self) -> Result<HashSet<usize>, Error> {
        let mut done = HashSet::new();
        let mut chunk = 0;
        loop {
            let path = self.marker_path(chunk);
            let Ok(bytes) = std::fs::read(&path) else {
                break;
            };
            let marker: ChunkMarker =
                serde_json::from_slice(&bytes).map_err(|e| json_error(&path, e))?;
            for r in &marker.repos {
                done.insert(r.index);
                if r.stats.status == "mined" {
                    self.seen
                        .insert((r.stats.repo.clone(), r.stats.sha.clone()));
                }
            }
            let yabloco = self.chunk_name("yabloco", chunk);
            for file in shard_files(&self.out_dir.join(STAGING), &yabloco)? {
                read_yabloco_ids(&file, |id| {
                    self.written.insert(id);
                })?;
            }
            chunk += 1;
        }
        self.next_chunk = chunk;
        // Files of chunks after the last marker are incomplete: a killed writer's.
        let marked: Vec<String> = (0..chunk)
            .map(|c| format!("-{}-c{c:05}", self.tag))
            .collect();
        let mine = format!("-{}-c", self.tag);
        let stale = |name: &str| {
            let ours = name.contains(&mine) || name.starts_with(&format!(".chunk-{}", self.tag));
            ours && !marked.iter().any(|m| name.contains(m.as_str()))
        };
        remove_files(&self.out_dir.join(STAGING), stale)?;
        remove_files(&self.out_dir.join("dedup"), stale)?;
        remove_files(&layout::BANDS.path(&self.out_dir), stale)?;
        Ok(done)
    }

    fn open_chunk(&mut self) -> Result<&mut Chunk, Error> {
        if self.chunk.is_none() {
            let c = self.next_chunk;
            let staging = self.out_dir.join(STAGING);
            // Staging files are read back whole by the next steps: large shards suffice.
            let big = ShardOptions::default();
            let w = |table: &str| self.chunk_name(table, c);
            let (csn, nodes) = match self.docstring_params {
                true => (
                    StagedCsn::Params(Box::new(ShardWriter::new(&staging, &w("csn"), big)?)),
                    ShardWriter::with_schema(
                        &staging,
                        &w("nodes"),
                        big,
                        codemine_schemas::callgraph::nodes_shape(true),
                    )?,
                ),
                false => (
                    StagedCsn::Plain(Box::new(ShardWriter::new(&staging, &w("csn"), big)?)),
                    ShardWriter::new(&staging, &w("nodes"), big)?,
                ),
            };
            self.chunk = Some(Chunk {
                csn,
                yabloco: ShardWriter::new(&staging, &w("yabloco"), big)?,
                nodes,
                edges: ShardWriter::new(&staging, &w("edges"), big)?,
                dropped: ShardWriter::new(&staging, &w("dropped"), big)?,
                functions: ShardWriter::new(&staging, &w("functions"), big)?,
                bands: ShardWriter::new(&layout::BANDS.path(&self.out_dir), &w("bands"), big)?,
                completion_tokens: ShardWriter::new(&staging, &w(completion::TOKEN_STAGED), big)?,
                completion_lines: ShardWriter::new(&staging, &w(completion::LINE_STAGED), big)?,
                repo_completion: ShardWriter::new(
                    &staging,
                    &w(super::repo_completion::STAGED),
                    big,
                )?,
                snapshot: ShardWriter::new(
                    &staging,
                    &w(super::repo_completion::SNAPSHOT_STAGED),
                    big,
                )?,
                tests: ShardWriter::new(&staging, &w("tests"), big)?,
                pii: ShardWriter::new(&staging, &w("pii"), big)?,
                tasks: ShardWriter::new(&staging, &w("tasks"), big)?,
                marker: ChunkMarker {
                    repos: Vec::new(),
                    counts: ChunkCounts::default(),
                },
            });
        }
        self.chunk
            .as_mut()
            .ok_or_else(|| Error::ThreadPool("no open chunk".into()))
    }

    fn add(&mut self, index: usize, mut repo: RepoOutput) -> Result<(), Error> {
        let t = Instant::now();
        if repo.failed.is_none()
            && !self
                .seen
                .insert((repo.stats.repo.clone(), repo.stats.sha.clone()))
        {
            // The same repository at the same commit, listed twice: its rows once only.
            repo.stats.status = "duplicate";
            repo.rows = Default::default();
            repo.dropped.clear();
            repo.dedup.clear();
            repo.failures.clear();
            repo.completion = None;
            repo.repo_completion = None;
            repo.tests.clear();
            repo.pii.clear();
            repo.tasks.clear();
        }
        let (dedup, explain) = (self.dedup, self.explain);
        // Ids are (repository name, path, qualified name, start line): two functions can
        // share one (overloads on one line, one repository name at two revisions). The
        // first is written; later ones would make `meta.id` ambiguous and dedup's keeper
        // rule undefined, so they are counted and left out of CSN, YABLoCo and dedup.
        let rows = &mut repo.rows;
        let kept: Vec<usize> = (0..rows.keep.len()).filter(|&k| rows.keep[k]).collect();
        let mut first = Vec::with_capacity(kept.len());
        let mut ids = HashSet::new();
        for &k in &kept {
            let id = rows.graph.facts[k].id;
            let new = self.written.insert(id);
            first.push(new);
            if new {
                ids.insert(id);
            }
        }
        let c = self.open_chunk()?;
        if dedup {
            // Dedup rows are the kept functions in the order of the YABLoCo rows.
            let rows = repo.dedup.iter().zip(&first).filter(|(_, new)| **new);
            for ((f, hashes), _) in rows {
                for (band, &band_hash) in hashes.iter().enumerate() {
                    c.bands.push(&BandRow {
                        id: f.id,
                        band: band as u32,
                        band_hash,
                    })?;
                }
                c.marker.counts.band_rows += hashes.len();
                c.functions.push(f)?;
            }
        }
        match &rows.docstring_params {
            Some(parts) => {
                let batches = super::docstring_params::node_batches(&rows.graph.nodes, parts)
                    .map_err(codemine_schemas::Error::Arrow)?;
                for b in &batches {
                    c.nodes.push_batch(b)?;
                }
            }
            None => {
                for b in &rows.graph.nodes {
                    c.nodes.push_batch(b)?;
                }
            }
        }
        for b in &rows.graph.edges {
            c.edges.push_batch(b)?;
        }
        c.marker.counts.edges += rows.graph.edge_count;
        // Written first and freed: a repository of many functions holds its dedup inputs,
        // its graph and the rows built below one after the other, not at once.
        repo.dedup = Vec::new();
        rows.graph.nodes = Vec::new();
        rows.graph.edges = Vec::new();
        // YABLoCo rows one at a time (they borrow the callees' code), then the CSN rows,
        // which consume the units.
        for (&k, new) in kept.iter().zip(&first) {
            if !*new {
                c.marker.counts.same_id_skipped += 1;
                continue;
            }
            if let Some(r) = rows.yabloco_row(k) {
                c.yabloco.push(&r)?;
            }
        }
        let csn = &mut c.csn;
        rows.csn_rows(
            |id| ids.contains(&id),
            |(id, row), parts| {
                match csn {
                    StagedCsn::Plain(w) => w.push(&(id, row))?,
                    StagedCsn::Params(w) => w.push(&(id, (row, parts)))?,
                }
                Ok(())
            },
        )?;
        if explain {
            for r in &repo.dropped {
                c.dropped.push(r)?;
            }
            c.marker.counts.dropped += repo.dropped.len();
        }
        if let Some(rows) = &repo.completion {
            let start = completion::thread_cpu();
            for r in &rows.tokens {
                c.completion_tokens.push(r)?;
            }
            for r in &rows.lines {
                c.completion_lines.push(r)?;
            }
            if let Some(s) = &mut repo.stats.completion {
                s.cpu_seconds.staging += completion::thread_cpu() - start;
            }
        }
        if let Some(rows) = repo.repo_completion.take() {
            for r in &rows.rows {
                c.repo_completion.push(r)?;
            }
            for r in &rows.snapshot {
                c.snapshot.push(r)?;
            }
        }
        for r in &repo.tests {
            c.tests.push(r)?;
        }
        c.marker.counts.tests += repo.tests.len();
        for r in &repo.pii {
            c.pii.push(r)?;
        }
        c.marker.counts.pii += repo.pii.len();
        for r in &repo.tasks {
            c.tasks.push(r)?;
        }
        c.marker.counts.tasks += repo.tasks.len();
        let funnel = std::mem::take(&mut repo.stats.funnel);
        c.marker.repos.push(RepoRecord {
            index,
            stats: repo.stats,
            funnel,
            failed: repo.failed,
            failures: repo.failures,
        });
        c.marker.counts.busy_seconds += t.elapsed().as_secs_f64();
        if c.marker.repos.len() >= self.checkpoint {
            self.close_chunk()?;
        }
        Ok(())
    }

    /// Finishes the open chunk's files, then writes its marker.
    fn close_chunk(&mut self) -> Result<(), Error> {
        let Some(c) = self.chunk.take() else {
            return Ok(());
        };
        let t = Instant::now();
        match c.csn {
            StagedCsn::Plain(w) => finish(*w)?,
            StagedCsn::Params(w) => finish(*w)?,
        }
        finish(c.yabloco)?;
        finish(c.nodes)?;
        finish(c.edges)?;
        finish(c.dropped)?;
        finish(c.functions)?;
        finish(c.bands)?;
        let start = completion::thread_cpu();
        finish(c.completion_tokens)?;
        finish(c.completion_lines)?;
        let cpu = completion::thread_cpu() - start;
        finish(c.repo_completion)?;
        finish(c.snapshot)?;
        finish(c.tests)?;
        finish(c.pii)?;
        finish(c.tasks)?;
        let mut marker = c.marker;
        if let Some(s) = marker
            .repos
            .last_mut()
            .and_then(|r| r.stats.completion.as_mut())
        {
            s.cpu_seconds.staging += cpu;
        }
        marker.counts.busy_seconds += t.elapsed().as_secs_f64();
        let path = self.marker_path(self.next_chunk);
        let json = serde_json::to_vec(&marker).map_err(|e| json_error(&path, e))?;
        write_atomic(&path, &json)?;
        crate::fault::point("chunk staged");
        self.next_chunk += 1;
        Ok(())
    }
}

/// Closes a staging writer; an empty table leaves no file.
fn finish<T: Table>(w: ShardWriter<T>) -> Result<(), Error> {
    w.finish(false)?;
    Ok(())
}

/// The staging files of one table (`staging/{table}-*.parquet`, every rank and chunk), in
/// rank, chunk and shard order.
pub fn staged_files(out_dir: &Path, table: &str) -> Result<Vec<PathBuf>, Error> {
    Ok(shard_files(&out_dir.join(STAGING), table)?)
}

/// The chunk markers of every rank, in rank and chunk order.
pub fn chunk_markers(out_dir: &Path) -> Result<Vec<PathBuf>, Error> {
    let dir = out_dir.join(STAGING);
    Ok(codemine_schemas::list_files(&dir, |n| {
        n.starts_with("chunk-") && n.ends_with(".json")
    })?)
}

/// `FunctionRow`s with their band hashes, as the workers hand them to the writer.
pub type DedupInput = (FunctionRow, Vec<u64>);

#[cfg(test)]
mod tests {
    use super::*;

    /// The benchmarks decide which functions are removed: another item (or another ngram)
    /// must start the run over.
    #[test]
    fn the_benchmarks_are_part_of_the_fingerprint() {
        use codemine_filters::decontam::{BenchItem, DecontamParams};
        let specs = [crate::source::parse_repo_arg("/some/repo").expect("a path")];
        let mut opts = MineOptions::new("/out".into(), "/cache".into());
        let off = fingerprint(&specs, &opts);
        let with = |tokens: &[&str], ngram: usize| {
            let b = crate::benchmark::Benchmark {
                name: "b".into(),
                path: "b.jsonl".into(),
                items: vec![BenchItem {
                    benchmark: "b".into(),
                    id: "1".into(),
                    tokens: tokens.iter().map(|t| t.to_string()).collect(),
                }],
            };
            let params = DecontamParams {
                ngram,
                ..DecontamParams::default()
            };
            Some(std::sync::Arc::new(
                super::super::decontam::Decontaminator::build(vec![b], &params),
            ))
        };
        opts.decontam = with(&["def", "f", "return", "x"], 13);
        let one = fingerprint(&specs, &opts);
        opts.decontam = with(&["def", "f", "return", "y"], 13);
        let other = fingerprint(&specs, &opts);
        opts.decontam = with(&["def", "f", "return", "y"], 20);
        let longer = fingerprint(&specs, &opts);
        assert!(off != one && one != other && other != longer);
        opts.decontam = with(&["def", "f", "return", "x"], 13);
        assert_eq!(one, fingerprint(&specs, &opts));
    }

    /// The zone changes YABLoCo's staged `last_commit` strings, so a rerun with another
    /// zone must not resume the staged chunks of the first.
    #[test]
    fn the_date_zone_is_part_of_the_fingerprint() {
        let specs = [crate::source::parse_repo_arg("/some/repo").expect("a path")];
        let mut opts = MineOptions::new("/out".into(), "/cache".into());
        let utc = fingerprint(&specs, &opts);
        opts.date_zone = "Europe/Moscow".parse().expect("a zone");
        assert_ne!(utc, fingerprint(&specs, &opts));
    }

    /// Another SIDE model (or none) gives other scores: the run starts over.
    #[test]
    fn the_side_model_is_part_of_the_fingerprint() {
        let specs = [crate::source::parse_repo_arg("/some/repo").expect("a path")];
        let mut opts = MineOptions::new("/out".into(), "/cache".into());
        let none = fingerprint(&specs, &opts);
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../side/tests/data");
        opts.side = Some(
            super::super::side::SideModel::load(&dir.join("tiny-st")).expect("the test model"),
        );
        let st = fingerprint(&specs, &opts);
        opts.side = Some(
            super::super::side::SideModel::load(&dir.join("tiny-bin")).expect("the test model"),
        );
        let bin = fingerprint(&specs, &opts);
        assert_ne!(none, st);
        assert_ne!(st, bin);
    }

    /// `--docstring-params` changes the staged rows' shape and `--require-param-docs` which
    /// functions they hold: a rerun that changes either starts over.
    #[test]
    fn docstring_params_and_param_docs_are_part_of_the_fingerprint() {
        let specs = [crate::source::parse_repo_arg("/some/repo").expect("a path")];
        let mut opts = MineOptions::new("/out".into(), "/cache".into());
        let off = fingerprint(&specs, &opts);
        opts.docstring_params = true;
        let on = fingerprint(&specs, &opts);
        assert_ne!(off, on);
        let cfg = codemine_filters::FilterConfig {
            require_param_docs: Some(true),
            ..Default::default()
        };
        let known = codemine_filters::KnownLanguages(&[("python", &[])]);
        opts.filter = Some(Filter::compile(&cfg, known).expect("a valid config"));
        assert_ne!(on, fingerprint(&specs, &opts));
    }

    #[test]
    fn the_report_limit_is_part_of_the_fingerprint() {
        let specs = [crate::source::parse_repo_arg("/some/repo").expect("a path")];
        let mut opts = MineOptions::new("/out".into(), "/cache".into());
        let before = fingerprint(&specs, &opts);
        opts.max_report_bytes = 1 << 20;
        assert_ne!(before, fingerprint(&specs, &opts));
    }
}
