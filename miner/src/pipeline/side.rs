//! The SIDE step of a run (`--side-model DIR`, issue 17): after the cluster step and before
//! finalize, every (code, docstring) pair that survived the filters and dedup gets its SIDE
//! score (Mastropaolo et al., ICSE 2024: the cosine of the two texts' MPNet embeddings, see
//! `codemine_side`), and `--min-side F` (TOML `min_side`) drops the pairs below F as the
//! funnel rule `min_side`.
//!
//! What is scored is what `codemine eval -m side_reference` scores on the published rows: the
//! CSN `code` against the CSN summary, `docstring_tokens` joined by spaces. Only CSN rows are
//! scored (a kept function with a docstring is one); dedup's removed functions are not.
//!
//! Inputs: the rank markers' settings, the staged CSN tables, `dedup/clusters/clusters-*`. Outputs,
//! all in `staging/` (flat, so that the staging clean-ups see them):
//! - `side-scores-{file:05}-{batch:05}.parquet` (`id`, `side_score`): one per record batch of
//!   a staged CSN file, each written whole, so a killed run resumes after the last one;
//! - `side-inputs.json`: what the scores were computed from (settings, the ranks' run
//!   fingerprints, the chunks, the clusters table); scores of other inputs are discarded;
//! - `side-dropped-*.parquet`: the `--explain` rows of the pairs `min_side` dropped;
//! - `side-step.json`: the step's stats ([`SideStage`], stats.json `stages.side`).
//!
//! Finalize ([`Scores`]) adds `side_score` to the CSN rows (a column only in runs with a SIDE
//! model) and to the nodes, and leaves the dropped pairs out of CSN and YABLoCo (their nodes
//! stay, `dropped_by = "min_side"`).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use arrow_array::builder::{Float32Builder, StringBuilder, UInt64Builder};
use arrow_array::cast::AsArray;
use arrow_array::types::{Float32Type, Int64Type, UInt64Type};
use arrow_array::{Array, ArrayRef, BooleanArray, RecordBatch};
use arrow_schema::{DataType, Field, Schema};
use codemine_schemas::callgraph::SIDE_SCORE;
use codemine_schemas::csn::{CsnTable, ScoredCsnTable};
use codemine_schemas::dropped::{DroppedRow, DroppedTable};
use codemine_schemas::staged::{read_batches, FUNCTION_ID};
use codemine_schemas::{layout, list_files, remove_files, shard_files, ShardOptions, ShardWriter};
use codemine_side::Side;
use serde::{Deserialize, Serialize};

use super::dedup::Decisions;
use super::stage::{chunk_markers, json_error, staged_files, RankMarker, STAGING};
use crate::output::write_atomic;
pub use crate::stats::steps::SideStage;
use crate::Error;

const INPUTS: &str = "side-inputs.json";
const STEP: &str = "side-step.json";
const DROPPED: &str = "side-dropped";

/// A loaded SIDE model and what identifies it in the run fingerprint.
#[derive(Clone)]
pub struct SideModel {
    pub dir: PathBuf,
    /// xxh3-128 of every file the model was loaded from (config, tokenizer, tokenizer
    /// config and weights: see `codemine_side::Side::digest`), so that other weights or
    /// another tokenizer in the same folder are another model.
    pub model_hash: String,
    pub model: Arc<Side>,
}

impl std::fmt::Debug for SideModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SideModel({}, {})", self.dir.display(), self.model_hash)
    }
}

impl SideModel {
    /// Loads a checkpoint folder; a missing or malformed one is a usage error naming the
    /// file.
    pub fn load(dir: &Path) -> Result<Self, Error> {
        let model = Side::load(dir).map_err(|e| Error::Usage(format!("--side-model: {e}")))?;
        Ok(Self {
            dir: dir.to_path_buf(),
            model_hash: model.digest().to_string(),
            model: Arc::new(model),
        })
    }

    /// The settings the rank marker records for the SIDE step.
    pub fn settings(&self, min_side: Option<f64>) -> Settings {
        Settings {
            model_dir: self.dir.clone(),
            model_hash: self.model_hash.clone(),
            min_side,
        }
    }
}

/// What the mining step asked of the SIDE step (in the rank markers).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    pub model_dir: PathBuf,
    /// [`SideModel::model_hash`] (`config_hash` in markers of runs before it covered
    /// more than config.json: those never match, and the step starts over).
    #[serde(alias = "config_hash")]
    pub model_hash: String,
    pub min_side: Option<f64>,
}

/// The side settings of a run, if any rank asked for SIDE.
fn settings(ranks: &[RankMarker]) -> Option<Settings> {
    ranks.iter().find_map(|r| r.side.clone())
}

/// Scores the survivors (see the module doc); `None` when the run has no SIDE model.
/// `loaded` is the model a `codemine mine` loaded before mining; otherwise (`codemine
/// finalize`) the folder of the rank markers is loaded.
pub fn run(
    out_dir: &Path,
    loaded: Option<&SideModel>,
    threads: usize,
) -> Result<Option<SideStage>, Error> {
    let t = Instant::now();
    let staging = out_dir.join(STAGING);
    let ranks = super::finalize::rank_markers(out_dir)?;
    let Some(settings) = settings(&ranks) else {
        remove_files(&staging, |n| n.starts_with("side-"))?;
        return Ok(None);
    };
    let model = match loaded {
        Some(m) => m.clone(),
        None => SideModel::load(&settings.model_dir)?,
    };
    if model.model_hash != settings.model_hash {
        return Err(Error::Usage(format!(
            "--side-model {}: the model's files (config, tokenizer or weights) changed since the mining step (remove {} and mine again)",
            settings.model_dir.display(),
            staging.display()
        )));
    }
    let key = inputs_key(out_dir, &settings)?;
    let inputs = staging.join(INPUTS);
    if std::fs::read_to_string(&inputs).ok().as_deref() != Some(key.as_str()) {
        remove_files(&staging, |n| n.starts_with("side-"))?;
        write_atomic(&inputs, key.as_bytes())?;
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| Error::ThreadPool(e.to_string()))?;

    let (decisions, _) = Decisions::read(out_dir)?;
    let removed = |id: u64| decisions.get(id).is_some_and(|d| d.duplicate_of.is_some());
    let mut scores: HashMap<u64, f32> = HashMap::new();
    let mut scored = 0u64;
    let score_seconds = Instant::now();
    for (i, path) in staged_files(out_dir, "csn")?.iter().enumerate() {
        for (b, batch) in read_batches(path)?.enumerate() {
            let batch = batch.map_err(codemine_schemas::Error::Arrow)?;
            let part = staging.join(format!("side-scores-{i:05}-{b:05}.parquet"));
            if part.is_file() {
                read_part(&part, |id, s| {
                    scores.entry(id).or_insert(s);
                })?;
                continue;
            }
            let cols = CsnColumns::of(&batch, path)?;
            let mut ids = Vec::new();
            let mut pairs: Vec<(&str, String)> = Vec::new();
            let mut here = HashSet::new();
            for k in 0..batch.num_rows() {
                let id = cols.id.value(k);
                if removed(id) || scores.contains_key(&id) || !here.insert(id) {
                    continue;
                }
                ids.push(id);
                pairs.push((cols.code.value(k), cols.summary(k)));
            }
            let refs: Vec<(&str, &str)> = pairs.iter().map(|(c, s)| (*c, s.as_str())).collect();
            let got = pool.install(|| model.model.score(&refs, codemine_side::BATCH))?;
            write_part(&part, &ids, &got)?;
            crate::fault::point("side part written");
            scored += ids.len() as u64;
            for (id, s) in ids.into_iter().zip(got) {
                scores.insert(id, s);
            }
        }
    }
    let seconds = score_seconds.elapsed().as_secs_f64();

    let min = settings.min_side;
    let drops = |id: u64| min.is_some_and(|m| scores.get(&id).is_some_and(|&s| f64::from(s) < m));
    let dropped_by = dropped_rows(out_dir, &ranks, &removed, &drops)?;
    let name = settings
        .model_dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mean = (!scores.is_empty())
        .then(|| scores.values().map(|&s| f64::from(s)).sum::<f64>() / scores.len() as f64);
    let stage = SideStage {
        model: name,
        model_dir: settings.model_dir.display().to_string(),
        pairs_of: "CSN code against the CSN summary (docstring_tokens joined by spaces), as `codemine eval -m side_reference` scores them".into(),
        min_side: min,
        pairs: scores.len() as u64,
        scored,
        seconds: t.elapsed().as_secs_f64(),
        pairs_per_s: if seconds > 0.0 {
            scored as f64 / seconds
        } else {
            0.0
        },
        threads: pool.current_num_threads(),
        dropped_min_side: dropped_by.iter().map(|d| d.2).sum(),
        mean_score: mean,
        dropped_by,
    };
    let step = staging.join(STEP);
    let json =
        serde_json::to_vec_pretty(&StoredStage::from(&stage)).map_err(|e| json_error(&step, e))?;
    write_atomic(&step, &json)?;
    Ok(Some(stage))
}

/// `SideStage` as `side-step.json` keeps it (with the funnel's counts).
#[derive(Serialize, Deserialize)]
struct StoredStage {
    stage: SideStage,
    dropped_by: Vec<(String, String, u64)>,
}

impl From<&SideStage> for StoredStage {
    fn from(s: &SideStage) -> Self {
        Self {
            stage: s.clone(),
            dropped_by: s.dropped_by.clone(),
        }
    }
}

/// What the scores depend on besides the model: the ranks' run fingerprints, the staged
/// chunks and CSN files, and the clusters table.
fn inputs_key(out_dir: &Path, settings: &Settings) -> Result<String, Error> {
    let staging = out_dir.join(STAGING);
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    h.update(format!("{settings:?}").as_bytes());
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| Error::Io { path, source }
    };
    let runs = list_files(&staging, |n| n.starts_with("run-r") && n.ends_with(".json"))?;
    for f in runs
        .iter()
        .chain(&shard_files(&layout::CLUSTERS.path(out_dir), "clusters")?)
    {
        h.update(f.to_string_lossy().as_bytes());
        h.update(&std::fs::read(f).map_err(io(f))?);
    }
    for f in chunk_markers(out_dir)?
        .iter()
        .chain(&staged_files(out_dir, "csn")?)
    {
        h.update(f.to_string_lossy().as_bytes());
        let len = std::fs::metadata(f).map_err(io(f))?.len();
        h.update(&len.to_le_bytes());
    }
    Ok(format!("{{\"side_inputs\": \"{:032x}\"}}\n", h.digest128()))
}

/// The columns of a staged CSN batch that SIDE reads.
struct CsnColumns<'b> {
    id: &'b arrow_array::UInt64Array,
    code: &'b arrow_array::StringArray,
    summary: &'b arrow_array::ListArray,
}

impl<'b> CsnColumns<'b> {
    fn of(batch: &'b RecordBatch, path: &Path) -> Result<Self, Error> {
        let bad = |what: &str| codemine_schemas::Error::BadFile {
            path: path.to_path_buf(),
            reason: format!("no {what} column"),
        };
        Ok(Self {
            id: batch
                .column_by_name(FUNCTION_ID)
                .and_then(|c| c.as_primitive_opt::<UInt64Type>())
                .ok_or_else(|| bad("uint64 `function_id`"))?,
            code: batch
                .column_by_name(codemine_schemas::csn::CODE)
                .and_then(|c| c.as_string_opt::<i32>())
                .ok_or_else(|| bad("string `code`"))?,
            summary: batch
                .column_by_name(codemine_schemas::csn::DOCSTRING_TOKENS)
                .and_then(|c| c.as_list_opt::<i32>())
                .ok_or_else(|| bad("list `docstring_tokens`"))?,
        })
    }

    /// The summary SIDE reads: the docstring tokens joined by spaces.
    fn summary(&self, k: usize) -> String {
        let list = self.summary.value(k);
        match list.as_string_opt::<i32>() {
            Some(tokens) => tokens.iter().flatten().collect::<Vec<_>>().join(" "),
            None => String::new(),
        }
    }
}

fn part_schema() -> Arc<Schema> {
    Arc::new(Schema::new(vec![
        Field::new("id", DataType::UInt64, false),
        Field::new(SIDE_SCORE, DataType::Float32, false),
    ]))
}

fn write_part(path: &Path, ids: &[u64], scores: &[f32]) -> Result<(), Error> {
    let pq = |source| codemine_schemas::Error::Parquet {
        path: path.to_path_buf(),
        source,
    };
    let mut id = UInt64Builder::with_capacity(ids.len());
    id.append_slice(ids);
    let mut sc = Float32Builder::with_capacity(scores.len());
    sc.append_slice(scores);
    let cols: Vec<ArrayRef> = vec![Arc::new(id.finish()), Arc::new(sc.finish())];
    let batch =
        RecordBatch::try_new(part_schema(), cols).map_err(codemine_schemas::Error::Arrow)?;
    let mut buf = Vec::new();
    let mut w = parquet::arrow::ArrowWriter::try_new(&mut buf, part_schema(), None).map_err(pq)?;
    w.write(&batch).map_err(pq)?;
    w.close().map_err(pq)?;
    write_atomic(path, &buf)
}

fn read_part(path: &Path, mut each: impl FnMut(u64, f32)) -> Result<(), Error> {
    for batch in read_batches(path)? {
        let batch = batch.map_err(codemine_schemas::Error::Arrow)?;
        let (Some(id), Some(s)) = (
            batch
                .column_by_name("id")
                .and_then(|c| c.as_primitive_opt::<UInt64Type>()),
            batch
                .column_by_name(SIDE_SCORE)
                .and_then(|c| c.as_primitive_opt::<Float32Type>()),
        ) else {
            return Err(codemine_schemas::Error::BadFile {
                path: path.to_path_buf(),
                reason: "not a SIDE scores file (id, side_score)".into(),
            }
            .into());
        };
        for k in 0..batch.num_rows() {
            each(id.value(k), s.value(k));
        }
    }
    Ok(())
}

/// Writes the `--explain` rows of the dropped pairs (when a rank asked for `--explain`) and
/// returns the dropped counts per (repository, language).
fn dropped_rows(
    out_dir: &Path,
    ranks: &[RankMarker],
    removed: &dyn Fn(u64) -> bool,
    drops: &dyn Fn(u64) -> bool,
) -> Result<Vec<(String, String, u64)>, Error> {
    let staging = out_dir.join(STAGING);
    remove_files(&staging, |n| n.starts_with(&format!("{DROPPED}-")))?;
    let explain = ranks.iter().any(|r| r.explain);
    // The first row of each id, as finalize keeps it.
    let mut seen = HashSet::new();
    let mut counts: BTreeMap<(String, String), u64> = BTreeMap::new();
    let mut rows: Vec<DroppedRow> = Vec::new();
    for path in staged_files(out_dir, "csn")? {
        for batch in read_batches(&path)? {
            let batch = batch.map_err(codemine_schemas::Error::Arrow)?;
            let cols = CsnColumns::of(&batch, &path)?;
            let text = |name: &str| codemine_schemas::staged::string_column(&batch, name, &path);
            let (repo, file, lang, doc) = (
                text(codemine_schemas::csn::REPO)?,
                text(codemine_schemas::csn::PATH)?,
                text(codemine_schemas::csn::LANGUAGE)?,
                text(codemine_schemas::csn::DOCSTRING)?,
            );
            for k in 0..batch.num_rows() {
                let id = cols.id.value(k);
                if removed(id) || !seen.insert(id) || !drops(id) {
                    continue;
                }
                *counts
                    .entry((repo.value(k).to_string(), lang.value(k).to_string()))
                    .or_default() += 1;
                if explain {
                    rows.push(DroppedRow {
                        id,
                        repository: repo.value(k).to_string(),
                        path: file.value(k).to_string(),
                        qualified_name: String::new(),
                        language: lang.value(k).to_string(),
                        start_line: 0,
                        end_line: 0,
                        rule: codemine_filters::MIN_SIDE.to_string(),
                        docstring: Some(doc.value(k).to_string()),
                        code: cols.code.value(k).to_string(),
                        contaminated_by: None,
                    });
                }
            }
        }
    }
    if !rows.is_empty() {
        // The node of each dropped pair gives its qualified name and lines.
        let mut at: HashMap<u64, usize> = rows.iter().enumerate().map(|(i, r)| (r.id, i)).collect();
        for path in staged_files(out_dir, "nodes")? {
            for batch in read_batches(&path)? {
                let batch = batch.map_err(codemine_schemas::Error::Arrow)?;
                let bad = |what: &str| codemine_schemas::Error::BadFile {
                    path: path.clone(),
                    reason: format!("no {what} column"),
                };
                let id = batch
                    .column_by_name("id")
                    .and_then(|c| c.as_primitive_opt::<UInt64Type>())
                    .ok_or_else(|| bad("`id`"))?;
                let qn = batch
                    .column_by_name("qualified_name")
                    .and_then(|c| c.as_string_opt::<i32>())
                    .ok_or_else(|| bad("`qualified_name`"))?;
                let line = |n: &str| {
                    batch
                        .column_by_name(n)
                        .and_then(|c| c.as_primitive_opt::<Int64Type>())
                        .ok_or_else(|| bad(n))
                };
                let (start, end) = (line("start_line")?, line("end_line")?);
                for k in 0..batch.num_rows() {
                    if let Some(i) = at.remove(&id.value(k)) {
                        let r = &mut rows[i];
                        r.qualified_name = qn.value(k).to_string();
                        r.start_line = start.value(k);
                        r.end_line = end.value(k);
                    }
                }
            }
        }
        let mut w = ShardWriter::<DroppedTable>::new(&staging, DROPPED, ShardOptions::default())?;
        for r in &rows {
            w.push(r)?;
        }
        w.finish(false)?;
    }
    Ok(counts.into_iter().map(|((r, l), n)| (r, l, n)).collect())
}

/// The SIDE step's results as finalize applies them.
pub struct Scores {
    scores: HashMap<u64, f32>,
    min_side: Option<f64>,
    pub stage: SideStage,
}

impl Scores {
    /// The scores of the run under `out_dir`; `None` without a SIDE model, an error when
    /// the SIDE step has not run.
    pub fn read(out_dir: &Path, ranks: &[RankMarker]) -> Result<Option<Self>, Error> {
        let Some(settings) = settings(ranks) else {
            return Ok(None);
        };
        let staging = out_dir.join(STAGING);
        let step = staging.join(STEP);
        let bytes = std::fs::read(&step).map_err(|_| {
            Error::Incomplete(format!(
                "{}: the mining step ran with --side-model but the SIDE step has not run",
                step.display()
            ))
        })?;
        let stored: StoredStage =
            serde_json::from_slice(&bytes).map_err(|e| json_error(&step, e))?;
        let mut stage = stored.stage;
        stage.dropped_by = stored.dropped_by;
        let mut scores = HashMap::new();
        for part in list_files(&staging, |n| {
            n.starts_with("side-scores-") && n.ends_with(".parquet")
        })? {
            read_part(&part, |id, s| {
                scores.entry(id).or_insert(s);
            })?;
        }
        Ok(Some(Self {
            scores,
            min_side: settings.min_side,
            stage,
        }))
    }

    /// Whether `min_side` drops this function.
    pub fn drops(&self, id: u64) -> bool {
        self.min_side
            .is_some_and(|m| self.scores.get(&id).is_some_and(|&s| f64::from(s) < m))
    }

    /// A staged CSN batch without the dropped pairs, with `side_score` added.
    pub fn staged_csn(&self, batch: &RecordBatch, path: &Path) -> Result<RecordBatch, Error> {
        let id = CsnColumns::of(batch, path)?.id;
        let keep: BooleanArray = id
            .iter()
            .map(|v| Some(!v.is_some_and(|v| self.drops(v))))
            .collect();
        let score: arrow_array::Float32Array = id
            .iter()
            .map(|v| v.and_then(|v| self.scores.get(&v).copied()))
            .collect();
        let mut fields: Vec<Field> = batch
            .schema()
            .fields()
            .iter()
            .map(|f| f.as_ref().clone())
            .collect();
        fields.push(Field::new(SIDE_SCORE, DataType::Float32, true));
        let mut cols = batch.columns().to_vec();
        cols.push(Arc::new(score));
        let scored = RecordBatch::try_new(Arc::new(Schema::new(fields)), cols)
            .map_err(codemine_schemas::Error::Arrow)?;
        Ok(arrow_select::filter::filter_record_batch(&scored, &keep)
            .map_err(codemine_schemas::Error::Arrow)?)
    }

    /// A final nodes batch with `side_score` filled in, and `dropped_by = "min_side"` on the
    /// dropped pairs.
    pub fn nodes(&self, batch: &RecordBatch, path: &Path) -> Result<RecordBatch, Error> {
        let id = batch
            .column_by_name("id")
            .and_then(|c| c.as_primitive_opt::<UInt64Type>())
            .ok_or_else(|| codemine_schemas::Error::BadFile {
                path: path.to_path_buf(),
                reason: "no uint64 `id` column".into(),
            })?;
        let score: arrow_array::Float32Array = id
            .iter()
            .map(|v| v.and_then(|v| self.scores.get(&v).copied()))
            .collect();
        let schema = batch.schema();
        let mut cols = Vec::with_capacity(schema.fields().len());
        for (f, c) in schema.fields().iter().zip(batch.columns()) {
            cols.push(match f.name().as_str() {
                SIDE_SCORE => Arc::new(score.clone()) as ArrayRef,
                "dropped_by" if self.min_side.is_some() => {
                    let old = c.as_string_opt::<i32>();
                    let mut b = StringBuilder::with_capacity(id.len(), id.len() * 8);
                    for k in 0..id.len() {
                        if self.drops(id.value(k)) {
                            b.append_value(codemine_filters::MIN_SIDE);
                        } else {
                            b.append_option(old.and_then(|o| o.is_valid(k).then(|| o.value(k))));
                        }
                    }
                    Arc::new(b.finish())
                }
                _ => c.clone(),
            });
        }
        Ok(RecordBatch::try_new(schema, cols).map_err(codemine_schemas::Error::Arrow)?)
    }

    /// Moves the dropped pairs from kept to `min_side` in the funnel.
    pub fn apply_funnel(&self, funnel: &mut codemine_filters::Funnel) {
        for (repo, lang, n) in &self.stage.dropped_by {
            for _ in 0..*n {
                funnel.remove_kept(repo, lang, codemine_filters::MIN_SIDE);
            }
        }
    }

    /// The `--explain` rows of the dropped pairs.
    pub fn dropped_files(out_dir: &Path) -> Result<Vec<PathBuf>, Error> {
        Ok(shard_files(&out_dir.join(STAGING), DROPPED)?)
    }
}

/// The final CSN writer of one split: the CSN shape, or it and `side_score` with a model
/// (and `docstring_params` with `--docstring-params`: [`codemine_schemas::csn::shape`]).
pub enum CsnWriter {
    Plain(ShardWriter<CsnTable>),
    Scored(ShardWriter<ScoredCsnTable>),
}

impl CsnWriter {
    pub fn new(
        dir: &Path,
        split: &str,
        opts: ShardOptions,
        scored: bool,
        params: bool,
    ) -> Result<Self, Error> {
        Ok(if params {
            let shape = codemine_schemas::csn::shape(scored, true);
            Self::Plain(ShardWriter::with_schema(dir, split, opts, shape)?)
        } else if scored {
            Self::Scored(ShardWriter::new(dir, split, opts)?)
        } else {
            Self::Plain(ShardWriter::new(dir, split, opts)?)
        })
    }

    pub fn push_batch(&mut self, b: &RecordBatch) -> Result<(), Error> {
        match self {
            Self::Plain(w) => w.push_batch(b)?,
            Self::Scored(w) => w.push_batch(b)?,
        }
        Ok(())
    }

    pub fn rows(&self) -> usize {
        match self {
            Self::Plain(w) => w.rows(),
            Self::Scored(w) => w.rows(),
        }
    }

    /// Arrow bytes written ([`ShardWriter::data_bytes`]).
    pub fn data_bytes(&self) -> u64 {
        match self {
            Self::Plain(w) => w.data_bytes(),
            Self::Scored(w) => w.data_bytes(),
        }
    }

    pub fn finish(self, write_empty: bool) -> Result<Vec<PathBuf>, Error> {
        Ok(match self {
            Self::Plain(w) => w.finish(write_empty)?,
            Self::Scored(w) => w.finish(write_empty)?,
        })
    }
}
