//! Inputs of `codemine eval`: the dataset's Parquet shards, the predictions, and their join
//! by row id; [`evaluate`] runs the metrics on the joined examples.
//!
//! - Dataset: a codemine output folder (`csn/{split}-*.parquet` for summarization, the
//!   `test` split unless `split` says otherwise; `yabloco/*.parquet` for generation), a
//!   folder of Parquet files, or Parquet files. The shape is read from the schema.
//! - Row id: CodeSearchNet rows by `url` (unique per function and commit; empty when a plain
//!   folder was mined), YABLoCo rows by `meta.original_id`; any column (`a.b` for a struct
//!   field) or `@index` (the row number across the files in name order, as CodeXGLUE's
//!   `idx`) instead.
//! - Reference: CodeSearchNet `docstring_tokens` joined by spaces (what CodeXGLUE's
//!   Code-Text scores against), YABLoCo `outputs`.
//! - Predictions: JSONL (`{"id": ..., "prediction": "..."}`, the id a string or an
//!   integer), Parquet (an id and a prediction column), or text lines `id<TAB>prediction`
//!   (a line without a tab is an id with an empty prediction, as CodeXGLUE reads it); or a
//!   column of the dataset itself.
//! - Completion rows (a `completion/` folder: its `line-*` or `repo-*` shards): by `id`,
//!   against `gt`. Repository-level rows (`repo-*`) also have the recall metrics
//!   (`context_recall@K`), which read `gold_context` and, for `context_recall@K:RETRIEVER`,
//!   the table's `retrieved_context` (no predictions needed), else the predictions'
//!   `retrieved` lists ([`read_retrieved`]).
//!
//! ```no_run
//! use codemine_eval::dataset::read_predictions;
//! let p = read_predictions(std::path::Path::new("preds.jsonl"), "id", "prediction")?;
//! println!("{} predictions", p.ids.len());
//! # Ok::<(), codemine_eval::Error>(())
//! ```

use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Float32Type, Float64Type, Int16Type, Int32Type, Int64Type, Int8Type, UInt16Type, UInt32Type,
    UInt64Type, UInt8Type,
};
use arrow_array::{Array, ArrayRef, RecordBatch, StructArray};
use arrow_schema::{DataType, Schema};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ProjectionMask;

use crate::metric::{self, Aggregate, Batch, MetricScores};
use crate::repo_completion::{recall_at_k, ContextRecall, Span};
use crate::{Error, Task};

/// The id pseudo-column: the row number across the files, in name order.
pub const INDEX_ID: &str = "@index";
/// The derived YABLoCo column: the function's category from the `meta` counts.
pub const CATEGORY: &str = "category";
/// The gold context column of repository-level completion rows.
pub const GOLD_CONTEXT: &str = "gold_context";
/// The retrieved context column of repository-level completion rows.
pub const RETRIEVED_CONTEXT: &str = "retrieved_context";
/// The field (JSON lines) or column (Parquet) of the predictions that lists each example's
/// retrieved context for `context_recall@K`: `[{"path", "start_line", "end_line"}, ...]` in
/// rank order (other fields are ignored).
pub const RETRIEVED_FIELD: &str = "retrieved";

/// What `codemine eval` is asked to do.
#[derive(Debug, Clone, Default)]
pub struct EvalOptions {
    /// Output folders, folders of Parquet files, or Parquet files.
    pub data: Vec<PathBuf>,
    /// Inferred from the data when there is only one kind of table.
    pub task: Option<Task>,
    /// The predictions file; `None` takes `prediction_column` from the dataset itself.
    pub predictions: Option<PathBuf>,
    /// The prediction column or JSON field (default `prediction`).
    pub prediction_column: Option<String>,
    /// The id column or JSON field of the predictions (default `id`).
    pub prediction_id_column: Option<String>,
    /// The dataset's id column (default by shape; `@index` for row numbers).
    pub id_column: Option<String>,
    /// The dataset's reference column (default by shape).
    pub reference_column: Option<String>,
    /// The CodeSearchNet split of an output folder (`train`, `valid`, `test`, `all`).
    pub split: Option<String>,
    /// Metric names; empty means the task's defaults.
    pub metrics: Vec<String>,
    /// Columns to break the aggregates down by.
    pub by: Vec<String>,
    /// Score the ids present on both sides instead of failing on a mismatch.
    pub intersection: bool,
    /// The language of every example (`python`, `java`, `c`, `cpp`), for tables without a
    /// language column; it overrides the dataset's.
    pub language: Option<String>,
    /// The dataset's code column, for SIDE (default by shape: CSN `code`, YABLoCo
    /// `outputs`).
    pub code_column: Option<String>,
    /// Metric settings (CodeBLEU's weights).
    pub metric_config: metric::MetricConfig,
}

/// The shape of a table, from its schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    Csn,
    Yabloco,
    /// CodeXGLUE line-level completion (`completion/line-{split}-*.parquet`): `id`,
    /// `input`, `gt`.
    CompletionLine,
    /// Repository-level completion (`completion/repo-{split}-*.parquet`, issue 16): `id`,
    /// `prefix`, `gt`, `kind`, `language`, `gold_context`, `retrieved_context`.
    RepoCompletion,
    Other,
}

impl Shape {
    fn of(schema: &Schema) -> Shape {
        let has = |n: &str| schema.field_with_name(n).is_ok();
        if has("meta") && has("outputs") {
            Shape::Yabloco
        } else if has("docstring_tokens") && has("url") {
            Shape::Csn
        } else if has("id") && has("prefix") && has("gt") && has("kind") {
            Shape::RepoCompletion
        } else if has("id") && has("input") && has("gt") {
            Shape::CompletionLine
        } else {
            Shape::Other
        }
    }
}

/// How the join of dataset and predictions went.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct JoinReport {
    pub dataset_rows: usize,
    pub predictions: usize,
    pub scored: usize,
    /// Dataset rows without a prediction.
    pub missing_predictions: usize,
    /// Predictions whose id is not in the dataset.
    pub extra_predictions: usize,
    pub intersection: bool,
}

/// The groups of one `--by` column: (value, indices of its examples), values sorted.
pub type Groups = Vec<(String, Vec<usize>)>;

/// A scored evaluation: what was read, the join, and each metric's scores.
pub struct Evaluation {
    pub task: Task,
    pub files: Vec<PathBuf>,
    pub id_column: String,
    pub reference_column: String,
    pub join: JoinReport,
    /// The ids of the scored examples, in dataset order.
    pub ids: Vec<String>,
    /// (metric name, scores), in the order asked.
    pub metrics: Vec<(String, MetricScores)>,
    /// Per `--by` column: (column, [(value, example indices)]) with values sorted.
    pub groups: Vec<(String, Groups)>,
    /// What the user should know about how the scores were computed (a default metric
    /// replaced by a variant, ...).
    pub notes: Vec<String>,
    /// The WordNet folder or archive `meteor` read, when it was scored.
    pub wordnet: Option<PathBuf>,
}

/// Normalizes a dataset's language label to `python`, `java`, `c` or `cpp` (others are
/// lowercased).
pub fn normalize_language(s: &str) -> String {
    let l = s.trim().to_lowercase();
    match l.as_str() {
        "c++" | "cxx" | "cc" => "cpp".to_string(),
        _ => l,
    }
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |source| Error::Io {
        path: path.to_path_buf(),
        source,
    }
}

fn parquet_files_in(dir: &Path) -> Result<Vec<PathBuf>, Error> {
    let mut files = Vec::new();
    for e in std::fs::read_dir(dir).map_err(io_err(dir))? {
        let p = e.map_err(io_err(dir))?.path();
        if p.extension().is_some_and(|x| x == "parquet") {
            files.push(p);
        }
    }
    files.sort();
    Ok(files)
}

fn schema_of(path: &Path) -> Result<Schema, Error> {
    Ok(open_parquet(path)?.schema().as_ref().clone())
}

/// The most bytes of a predictions file that are read (they are held in memory).
pub const MAX_PREDICTIONS_BYTES: u64 = 8 << 30;

/// A regular file (not a FIFO, a device or a link to one), opened without blocking.
fn open_regular(path: &Path) -> Result<File, Error> {
    codemine_io::open_regular(path, codemine_io::Follow::Yes).map_err(|e| Error::Io {
        path: path.to_path_buf(),
        source: e.into(),
    })
}

/// A reader of the Parquet file at `path`; errors name it.
fn open_parquet(path: &Path) -> Result<ParquetRecordBatchReaderBuilder<File>, Error> {
    let f = open_regular(path)?;
    ParquetRecordBatchReaderBuilder::try_new(f).map_err(|source| Error::Parquet {
        path: path.to_path_buf(),
        source,
    })
}

/// The Parquet files to read and the task, from the data arguments.
fn resolve_files(opts: &EvalOptions) -> Result<(Vec<PathBuf>, Task), Error> {
    if opts.data.is_empty() {
        return Err(Error::Usage(
            "no dataset given (--data DIR or FILE.parquet)".into(),
        ));
    }
    let mut files = Vec::new();
    let mut task = opts.task;
    // Metrics of one task name it (`--metrics codebleu` is generation) where the data does
    // not: an output folder with both tables, or a table of neither shape.
    let hinted = {
        let tasks: Vec<Task> = opts
            .metrics
            .iter()
            .filter_map(|m| metric::info(m))
            .map(|i| i.task)
            .collect();
        tasks
            .first()
            .copied()
            .filter(|t| tasks.len() == opts.metrics.len() && tasks.iter().all(|u| u == t))
    };
    let repo_hint = opts
        .metrics
        .iter()
        .any(|m| crate::repo_completion::repo_only_metric(m));
    for d in &opts.data {
        if d.is_dir() {
            // An output folder asked for repository-level metrics: its completion/repo-*
            // shards (of `split` when given).
            let completion = d.join("completion");
            if repo_hint && completion.is_dir() {
                let split = opts.split.as_deref().filter(|s| *s != "all");
                let repo: Vec<PathBuf> = parquet_files_in(&completion)?
                    .into_iter()
                    .filter(|p| {
                        let n = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
                        match split {
                            Some(s) => n.starts_with(&format!("repo-{s}-")),
                            None => n.starts_with("repo-"),
                        }
                    })
                    .collect();
                if !repo.is_empty() {
                    files.extend(repo);
                    continue;
                }
            }
            let csn = d.join("csn");
            let yab = d.join("yabloco");
            if csn.is_dir() || yab.is_dir() {
                let t = match (task, csn.is_dir(), yab.is_dir()) {
                    (Some(t), _, _) => t,
                    (None, true, false) => Task::Summarization,
                    (None, false, true) => Task::Generation,
                    _ => hinted.ok_or_else(|| {
                        Error::Usage(format!(
                            "{} has both csn/ and yabloco/: say --task summarization or --task generation",
                            d.display()
                        ))
                    })?,
                };
                task = Some(t);
                match t {
                    Task::Summarization => {
                        let split = opts.split.as_deref().unwrap_or("test");
                        let all = parquet_files_in(&csn)?;
                        let n = all.len();
                        let picked: Vec<PathBuf> = all
                            .into_iter()
                            .filter(|p| {
                                split == "all"
                                    || p.file_name()
                                        .and_then(|n| n.to_str())
                                        .is_some_and(|n| n.starts_with(&format!("{split}-")))
                            })
                            .collect();
                        if picked.is_empty() {
                            return Err(Error::Usage(format!(
                                "{} has no `{split}` shards ({n} shards in all; --split train|valid|test|all)",
                                csn.display()
                            )));
                        }
                        files.extend(picked);
                    }
                    Task::Generation => files.extend(parquet_files_in(&yab)?),
                }
            } else {
                let mut fs = parquet_files_in(d)?;
                let name = |p: &PathBuf| {
                    p.file_name()
                        .and_then(|n| n.to_str())
                        .unwrap_or_default()
                        .to_string()
                };
                // A completion folder: its line-level or its repository-level shards are the
                // dataset (the token-level ones are training text, not examples).
                let has_line = fs.iter().any(|p| name(p).starts_with("line-"));
                let has_repo = fs.iter().any(|p| name(p).starts_with("repo-"));
                if has_repo && (!has_line || repo_hint) {
                    fs.retain(|p| name(p).starts_with("repo-"));
                } else if has_repo {
                    return Err(Error::Usage(format!(
                        "{} has line-level (line-*) and repository-level (repo-*) completion shards: give the files of one (e.g. {}/repo-test-*.parquet), or a repository-level metric (identifier_em, context_recall@K...)",
                        d.display(),
                        d.display()
                    )));
                } else if has_line {
                    fs.retain(|p| name(p).starts_with("line-"));
                }
                if let Some(split) = opts.split.as_deref().filter(|s| *s != "all") {
                    fs.retain(|p| {
                        let n = name(p);
                        n.starts_with(&format!("{split}-"))
                            || n.starts_with(&format!("line-{split}-"))
                            || n.starts_with(&format!("repo-{split}-"))
                    });
                }
                files.extend(fs);
            }
        } else if d.exists() {
            files.push(d.clone());
        } else {
            return Err(Error::Usage(format!(
                "{}: no such file or folder",
                d.display()
            )));
        }
    }
    if files.is_empty() {
        return Err(Error::Usage(
            "no Parquet files in the dataset arguments".into(),
        ));
    }
    let task = match task {
        Some(t) => t,
        None => match Shape::of(&schema_of(&files[0])?) {
            Shape::Csn => Task::Summarization,
            Shape::Yabloco | Shape::CompletionLine | Shape::RepoCompletion => Task::Generation,
            Shape::Other => hinted.ok_or_else(|| {
                Error::Usage(format!(
                    "{} is neither CodeSearchNet- nor YABLoCo-shaped: say --task",
                    files[0].display()
                ))
            })?,
        },
    };
    Ok((files, task))
}

/// Where a logical column comes from.
#[derive(Debug, Clone)]
enum Source {
    /// A (possibly nested) column path.
    Path(Vec<String>),
    Index,
    /// YABLoCo's function category from `meta`.
    Category,
}

/// Every column name a schema offers, struct fields as `a.b`.
fn column_names(schema: &Schema) -> Vec<String> {
    let mut out = Vec::new();
    for f in schema.fields() {
        out.push(f.name().clone());
        if let DataType::Struct(children) = f.data_type() {
            for c in children {
                out.push(format!("{}.{}", f.name(), c.name()));
            }
        }
    }
    out
}

/// Resolves a column name: `@index`, an exact (dotted) name, `category` on YABLoCo, or the
/// unique struct field of that name (`repository` → `meta.repository`).
fn resolve(schema: &Schema, name: &str) -> Result<Source, Error> {
    if name == INDEX_ID {
        return Ok(Source::Index);
    }
    let names = column_names(schema);
    if names.iter().any(|n| n == name) {
        return Ok(Source::Path(name.split('.').map(str::to_string).collect()));
    }
    if Shape::of(schema) == Shape::Yabloco {
        match name {
            CATEGORY => return Ok(Source::Category),
            // The CSN name of the same thing.
            "repo" => return Ok(Source::Path(vec!["meta".into(), "repository".into()])),
            _ => {}
        }
    }
    let suffix = format!(".{name}");
    let hits: Vec<&String> = names.iter().filter(|n| n.ends_with(&suffix)).collect();
    match hits[..] {
        [one] => Ok(Source::Path(one.split('.').map(str::to_string).collect())),
        _ => Err(Error::Usage(format!(
            "no column `{name}`{}; columns: {}{}",
            if hits.is_empty() {
                String::new()
            } else {
                format!(
                    " (ambiguous: {})",
                    hits.iter()
                        .map(|s| s.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            },
            names.join(", "),
            if Shape::of(schema) == Shape::Yabloco {
                ", category, @index"
            } else {
                ", @index"
            }
        ))),
    }
}

fn field_of<'a>(batch: &'a RecordBatch, path: &[String]) -> Option<&'a ArrayRef> {
    let mut arr = batch.column_by_name(path.first()?)?;
    for p in &path[1..] {
        let s: &StructArray = arr.as_any().downcast_ref()?;
        arr = s.column_by_name(p)?;
    }
    Some(arr)
}

/// The values of a column as strings (null → `None`); lists of strings are joined by
/// spaces with newlines removed (as CodeXGLUE builds its references from
/// `docstring_tokens`).
fn strings(arr: &ArrayRef, name: &str) -> Result<Vec<Option<String>>, Error> {
    macro_rules! prim {
        ($t:ty) => {
            arr.as_primitive::<$t>()
                .iter()
                .map(|v| v.map(|x| x.to_string()))
                .collect()
        };
    }
    Ok(match arr.data_type() {
        DataType::Utf8 => arr
            .as_string::<i32>()
            .iter()
            .map(|v| v.map(str::to_string))
            .collect(),
        DataType::LargeUtf8 => arr
            .as_string::<i64>()
            .iter()
            .map(|v| v.map(str::to_string))
            .collect(),
        DataType::Utf8View => arr
            .as_string_view()
            .iter()
            .map(|v| v.map(str::to_string))
            .collect(),
        DataType::Int8 => prim!(Int8Type),
        DataType::Int16 => prim!(Int16Type),
        DataType::Int32 => prim!(Int32Type),
        DataType::Int64 => prim!(Int64Type),
        DataType::UInt8 => prim!(UInt8Type),
        DataType::UInt16 => prim!(UInt16Type),
        DataType::UInt32 => prim!(UInt32Type),
        DataType::UInt64 => prim!(UInt64Type),
        DataType::Float32 => prim!(Float32Type),
        DataType::Float64 => prim!(Float64Type),
        DataType::Boolean => arr
            .as_boolean()
            .iter()
            .map(|v| v.map(|b| b.to_string()))
            .collect(),
        DataType::Null => vec![None; arr.len()],
        DataType::List(f) if matches!(f.data_type(), DataType::Utf8) => {
            let l = arr.as_list::<i32>();
            (0..l.len())
                .map(|i| {
                    if l.is_null(i) {
                        return None;
                    }
                    let v = l.value(i);
                    let s = v.as_string::<i32>();
                    let words: Vec<&str> = s.iter().map(|x| x.unwrap_or("")).collect();
                    Some(words.join(" ").replace('\n', ""))
                })
                .collect()
        }
        t => {
            return Err(Error::Data(format!(
                "column `{name}` has type {t}, which eval cannot read as text"
            )))
        }
    })
}

/// YABLoCo's category of each row: the first non-zero of project > same_package >
/// same_file > stdlib, else `none` (docs/design.md).
fn categories(batch: &RecordBatch) -> Result<Vec<Option<String>>, Error> {
    let order = ["project", "same_package", "same_file", "stdlib"];
    let mut cols = Vec::new();
    for k in order {
        let path = ["meta".to_string(), k.to_string()];
        let a = field_of(batch, &path)
            .ok_or_else(|| Error::Data(format!("no meta.{k} column for `category`")))?;
        let v: Vec<i64> = strings(a, k)?
            .into_iter()
            .map(|s| s.and_then(|s| s.parse().ok()).unwrap_or(0))
            .collect();
        cols.push(v);
    }
    Ok((0..batch.num_rows())
        .map(|i| {
            let c = order
                .iter()
                .zip(&cols)
                .find(|(_, v)| v[i] != 0)
                .map(|(k, _)| *k)
                .unwrap_or("none");
            Some(c.to_string())
        })
        .collect())
}

/// The columns read from the dataset, one `Vec` per logical column.
struct Table {
    rows: usize,
    columns: Vec<Vec<Option<String>>>,
}

/// Reads the logical columns `wanted` (resolved against the first file's schema) from
/// every file, in order.
fn read_columns(files: &[PathBuf], wanted: &[(String, Source)]) -> Result<Table, Error> {
    let mut columns: Vec<Vec<Option<String>>> = vec![Vec::new(); wanted.len()];
    let mut rows = 0;
    for path in files {
        let pq = |source| Error::Parquet {
            path: path.clone(),
            source,
        };
        let builder = open_parquet(path)?;
        let schema = builder.schema().clone();
        let mut roots: Vec<usize> = Vec::new();
        for (name, src) in wanted {
            let top = match src {
                Source::Path(p) => p[0].clone(),
                Source::Category => "meta".to_string(),
                Source::Index => continue,
            };
            let i = schema.index_of(&top).map_err(|_| {
                Error::Data(format!(
                    "{}: no column `{name}` (the files of one dataset must share a schema)",
                    path.display()
                ))
            })?;
            roots.push(i);
        }
        roots.sort_unstable();
        roots.dedup();
        let mask = ProjectionMask::roots(builder.parquet_schema(), roots);
        let reader = builder.with_projection(mask).build().map_err(pq)?;
        for batch in reader {
            let batch = batch.map_err(|source| Error::Arrow {
                path: path.clone(),
                source,
            })?;
            for ((name, src), col) in wanted.iter().zip(columns.iter_mut()) {
                match src {
                    Source::Index => {
                        col.extend((rows..rows + batch.num_rows()).map(|i| Some(i.to_string())))
                    }
                    Source::Category => col.extend(categories(&batch)?),
                    Source::Path(p) => {
                        let a = field_of(&batch, p).ok_or_else(|| {
                            Error::Data(format!("{}: no column `{name}`", path.display()))
                        })?;
                        col.extend(strings(a, name)?);
                    }
                }
            }
            rows += batch.num_rows();
        }
    }
    Ok(Table { rows, columns })
}

/// Predictions: ids and texts, in file order.
#[derive(Debug, Clone, Default)]
pub struct Predictions {
    pub ids: Vec<String>,
    pub texts: Vec<String>,
    /// The 1-based line (JSON lines, text) or row (Parquet) of each prediction.
    pub lines: Vec<usize>,
}

/// Calls `each` with the JSON value of every line of a JSON-lines predictions file and its
/// line number (blank lines skipped), one line at a time: the file is never held whole.
fn each_json_line(
    path: &Path,
    each: &mut dyn FnMut(usize, serde_json::Value) -> Result<(), Error>,
) -> Result<(), Error> {
    each_line(path, &mut |n, line| {
        if line.trim().is_empty() {
            return Ok(());
        }
        let v =
            serde_json::from_str(&line).map_err(|e| pred_err(path, n, format!("not JSON: {e}")))?;
        each(n, v)
    })
}

/// The id of a predictions file's JSON line: a string, or an integer written as one.
fn json_id(v: &serde_json::Value, id_field: &str, path: &Path, n: usize) -> Result<String, Error> {
    match v.get(id_field) {
        Some(serde_json::Value::String(s)) => Ok(s.clone()),
        Some(serde_json::Value::Number(x)) => Ok(x.to_string()),
        Some(other) => Err(pred_err(
            path,
            n,
            format!("`{id_field}` is {other}, not a string or an integer"),
        )),
        None => Err(pred_err(path, n, format!("no `{id_field}` field"))),
    }
}

fn pred_err(path: &Path, line: usize, message: impl Into<String>) -> Error {
    Error::Predictions {
        path: path.to_path_buf(),
        line,
        message: message.into(),
    }
}

/// Calls `each` with every line of a text file (a regular file of at most
/// [`MAX_PREDICTIONS_BYTES`]) and its 1-based number; a line that is not UTF-8 is an error
/// naming it.
fn each_line(
    path: &Path,
    each: &mut dyn FnMut(usize, String) -> Result<(), Error>,
) -> Result<(), Error> {
    let f = open_regular(path)?;
    let limited = codemine_io::Limited::new(f, MAX_PREDICTIONS_BYTES);
    for (i, line) in BufReader::new(limited).split(b'\n').enumerate() {
        let bytes = line.map_err(|e| {
            let e = match codemine_io::ReadError::from_stream(e) {
                codemine_io::ReadError::TooLarge { .. } => std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!("more than {MAX_PREDICTIONS_BYTES} bytes"),
                ),
                other => other.into(),
            };
            io_err(path)(e)
        })?;
        let text = String::from_utf8(bytes).map_err(|e| {
            pred_err(
                path,
                i + 1,
                format!(
                    "not UTF-8 (invalid byte at column {})",
                    e.utf8_error().valid_up_to() + 1
                ),
            )
        })?;
        each(i + 1, text)?;
    }
    Ok(())
}

/// Reads a predictions file: `.jsonl`/`.json`/`.ndjson` as JSON lines, `.parquet` as a
/// table, anything else as `id<TAB>prediction` lines. Every format refuses what JSON lines
/// refuse: a missing or null id, a prediction that is missing, null or not text, a repeated
/// id; each error names its 1-based line (or Parquet row).
pub fn read_predictions(
    path: &Path,
    id_field: &str,
    text_field: &str,
) -> Result<Predictions, Error> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    let mut p = Predictions::default();
    match ext.as_str() {
        "parquet" => {
            let files = [path.to_path_buf()];
            let schema = schema_of(path)?;
            // Numbers (a NaN, say) are not predictions, as in JSON lines.
            if let Ok(f) = schema.field_with_name(text_field) {
                if !matches!(
                    f.data_type(),
                    DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
                ) {
                    return Err(pred_err(
                        path,
                        0,
                        format!("`{text_field}` has type {}, not text", f.data_type()),
                    ));
                }
            }
            let wanted = vec![
                (id_field.to_string(), resolve(&schema, id_field)?),
                (text_field.to_string(), resolve(&schema, text_field)?),
            ];
            let t = read_columns(&files, &wanted)?;
            let mut cols = t.columns.into_iter();
            let (ids, texts) = (
                cols.next().unwrap_or_default(),
                cols.next().unwrap_or_default(),
            );
            for (i, (id, text)) in ids.into_iter().zip(texts).enumerate() {
                let row = i + 1;
                p.ids.push(
                    id.ok_or_else(|| pred_err(path, row, format!("row {row}: null `{id_field}`")))?,
                );
                p.texts.push(text.ok_or_else(|| {
                    pred_err(path, row, format!("row {row}: null `{text_field}`"))
                })?);
                p.lines.push(row);
            }
        }
        "jsonl" | "json" | "ndjson" => {
            each_json_line(path, &mut |n, v| {
                let id = json_id(&v, id_field, path, n)?;
                let text = match v.get(text_field) {
                    Some(serde_json::Value::String(s)) => s.clone(),
                    Some(other) => {
                        return Err(pred_err(
                            path,
                            n,
                            format!("`{text_field}` is {other}, not a string"),
                        ))
                    }
                    None => return Err(pred_err(path, n, format!("no `{text_field}` field"))),
                };
                p.ids.push(id);
                p.texts.push(text);
                p.lines.push(n);
                Ok(())
            })?;
        }
        _ => {
            each_line(path, &mut |n, line| {
                let line = line.strip_suffix('\r').unwrap_or(&line);
                if line.trim().is_empty() {
                    return Ok(());
                }
                let (id, text) = line.split_once('\t').unwrap_or((line, ""));
                p.ids.push(id.trim().to_string());
                p.texts.push(text.to_string());
                p.lines.push(n);
                Ok(())
            })?;
        }
    }
    check_unique(path, &p)?;
    Ok(p)
}

/// A predictions file lists each id once: the error names the first repeat's line.
fn check_unique(path: &Path, p: &Predictions) -> Result<(), Error> {
    let mut first: HashMap<&str, usize> = HashMap::new();
    let mut repeats = 0usize;
    let mut first_repeat: Option<(usize, usize, &str)> = None;
    for (id, &line) in p.ids.iter().zip(&p.lines) {
        match first.get(id.as_str()) {
            Some(&earlier) => {
                repeats += 1;
                first_repeat.get_or_insert((line, earlier, id.as_str()));
            }
            None => {
                first.insert(id.as_str(), line);
            }
        }
    }
    if let Some((line, earlier, id)) = first_repeat {
        return Err(pred_err(
            path,
            line,
            format!(
                "id {id:?} repeats the prediction of line {earlier} ({repeats} repeated id{} in all)",
                if repeats == 1 { "" } else { "s" }
            ),
        ));
    }
    Ok(())
}

/// The spans of a `list<struct<path, start_line, end_line, ...>>` column, one list per row
/// (a null list is empty). With `retriever`, only the items whose `retriever` field is that
/// name, ordered by their `rank` (the table's order where ranks tie).
fn span_lists(
    arr: &ArrayRef,
    name: &str,
    retriever: Option<&str>,
    keep: usize,
) -> Result<Vec<Vec<Span>>, Error> {
    let bad = |why: String| Error::Data(format!("column `{name}`: {why}"));
    let (offsets, values, valid): (Vec<usize>, ArrayRef, Vec<bool>) = match arr.data_type() {
        DataType::List(_) => {
            let l = arr.as_list::<i32>();
            (
                l.value_offsets().iter().map(|&o| o as usize).collect(),
                l.values().clone(),
                (0..l.len()).map(|i| l.is_valid(i)).collect(),
            )
        }
        DataType::LargeList(_) => {
            let l = arr.as_list::<i64>();
            (
                l.value_offsets().iter().map(|&o| o as usize).collect(),
                l.values().clone(),
                (0..l.len()).map(|i| l.is_valid(i)).collect(),
            )
        }
        t => {
            return Err(bad(format!(
                "type {t}, not a list of {{path, start_line, end_line}}"
            )))
        }
    };
    let st: &StructArray = values
        .as_any()
        .downcast_ref()
        .ok_or_else(|| bad("its items are not structs {path, start_line, end_line}".into()))?;
    let field = |f: &str| -> Result<Vec<Option<String>>, Error> {
        let a = st
            .column_by_name(f)
            .ok_or_else(|| bad(format!("its items have no `{f}` field")))?;
        strings(a, &format!("{name}.{f}"))
    };
    let (paths, starts, ends) = (field("path")?, field("start_line")?, field("end_line")?);
    let (names, ranks) = match retriever {
        Some(_) => (field("retriever")?, field("rank")?),
        None => (Vec::new(), Vec::new()),
    };
    // Errors name the row within the batch and the item within the row, 1-based.
    let line = |v: &Option<String>, f: &str, at: (usize, usize)| -> Result<i64, Error> {
        v.as_deref()
            .and_then(|x| x.parse::<i64>().ok())
            .ok_or_else(|| bad(format!("row {} item {} has no integer `{f}`", at.0, at.1)))
    };
    let mut out = Vec::with_capacity(valid.len());
    for (i, ok) in valid.iter().enumerate() {
        let mut row: Vec<(u64, Span)> = Vec::new();
        if *ok {
            for j in offsets[i]..offsets[i + 1] {
                let at = (i + 1, j - offsets[i] + 1);
                if let Some(r) = retriever {
                    if names[j].as_deref() != Some(r) {
                        continue;
                    }
                }
                let path = paths[j]
                    .clone()
                    .ok_or_else(|| bad(format!("row {} item {} has a null `path`", at.0, at.1)))?;
                let rank = ranks
                    .get(j)
                    .and_then(|r| r.as_deref())
                    .and_then(|r| r.parse::<u64>().ok())
                    .unwrap_or(u64::MAX);
                row.push((
                    rank,
                    Span {
                        path,
                        start_line: line(&starts[j], "start_line", at)?,
                        end_line: line(&ends[j], "end_line", at)?,
                    },
                ));
            }
        }
        row.sort_by_key(|(rank, _)| *rank);
        out.push(row.into_iter().take(keep).map(|(_, s)| s).collect());
    }
    Ok(out)
}

/// [`span_lists`] of one top-level column of every file, in order.
fn read_span_column(
    files: &[PathBuf],
    column: &str,
    retriever: Option<&str>,
    keep: usize,
) -> Result<Vec<Vec<Span>>, Error> {
    let mut out = Vec::new();
    for path in files {
        let pq = |source| Error::Parquet {
            path: path.clone(),
            source,
        };
        let builder = open_parquet(path)?;
        let i = builder
            .schema()
            .index_of(column)
            .map_err(|_| Error::Data(format!("{}: no column `{column}`", path.display())))?;
        let mask = ProjectionMask::roots(builder.parquet_schema(), [i]);
        for batch in builder.with_projection(mask).build().map_err(pq)? {
            let batch = batch.map_err(|source| Error::Arrow {
                path: path.clone(),
                source,
            })?;
            let a = batch
                .column_by_name(column)
                .ok_or_else(|| Error::Data(format!("{}: no column `{column}`", path.display())))?;
            out.extend(
                span_lists(a, column, retriever, keep)
                    .map_err(|e| Error::Data(format!("{}: {e}", path.display())))?,
            );
        }
    }
    Ok(out)
}

/// Reads the retrieved context of each prediction: JSON lines whose objects have the id and
/// `field`, a list of `{"path", "start_line", "end_line"}` in rank order, or a Parquet file
/// with the id column and a list-of-struct column `field`. The texts of the returned
/// [`Predictions`] are empty.
///
/// Only the first `keep` items of each list are kept (the largest K of the recall metrics
/// asked): the rest is read past, never held.
pub fn read_retrieved(
    path: &Path,
    id_field: &str,
    field: &str,
    keep: usize,
) -> Result<(Predictions, Vec<Vec<Span>>), Error> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    let mut p = Predictions::default();
    let mut spans = Vec::new();
    match ext.as_str() {
        "parquet" => {
            let files = [path.to_path_buf()];
            let schema = schema_of(path)?;
            let t = read_columns(&files, &[(id_field.to_string(), resolve(&schema, id_field)?)])?;
            if schema.field_with_name(field).is_err() {
                return Err(pred_err(path, 0, format!("no `{field}` column (the retrieved context of each example)")));
            }
            spans = read_span_column(&files, field, None, keep)
                .map_err(|e| pred_err(path, 0, e.to_string()))?;
            for (i, id) in t.columns.into_iter().next().unwrap_or_default().into_iter().enumerate() {
                let row = i + 1;
                p.ids.push(id.ok_or_else(|| pred_err(path, row, format!("row {row}: null `{id_field}`")))?);
                p.texts.push(String::new());
                p.lines.push(row);
            }
        }
        "jsonl" | "json" | "ndjson" => {
            each_json_line(path, &mut |n, v| {
                let id = json_id(&v, id_field, path, n)?;
                let items = match v.get(field) {
                    Some(serde_json::Value::Array(a)) => a,
                    Some(other) => {
                        return Err(pred_err(path, n, format!("`{field}` is {other}, not a list")))
                    }
                    None => return Err(pred_err(path, n, format!("no `{field}` field (the retrieved context: a list of {{\"path\", \"start_line\", \"end_line\"}})"))),
                };
                let mut row = Vec::with_capacity(items.len().min(keep));
                for (j, it) in items.iter().enumerate().take(keep) {
                    let item_err = |what: &str| {
                        pred_err(path, n, format!("`{field}` item {}: {what}", j + 1))
                    };
                    let path_v = it
                        .get("path")
                        .and_then(|x| x.as_str())
                        .ok_or_else(|| item_err("no string `path`"))?;
                    let int = |f: &str| {
                        it.get(f)
                            .and_then(|x| x.as_i64())
                            .ok_or_else(|| item_err(&format!("no integer `{f}`")))
                    };
                    row.push(Span {
                        path: path_v.to_string(),
                        start_line: int("start_line")?,
                        end_line: int("end_line")?,
                    });
                }
                p.ids.push(id);
                p.texts.push(String::new());
                p.lines.push(n);
                spans.push(row);
                Ok(())
            })?;
        }
        _ => {
            return Err(pred_err(
                path,
                0,
                format!("the retrieved context is read from JSON lines (.jsonl) or Parquet, not from `{ext}` files"),
            ))
        }
    }
    check_unique(path, &p)?;
    Ok((p, spans))
}

/// The recall metrics of the scored examples (`rows`, dataset row indices): against the
/// predictions' retrieved lists (`retrieved`, one per scored example) or the dataset's
/// `retrieved_context` of a retriever.
fn context_recalls(
    files: &[PathBuf],
    dataset_rows: usize,
    rows: &[usize],
    recalls: &[ContextRecall],
    retrieved: Option<Vec<Vec<Span>>>,
    notes: &mut Vec<String>,
) -> Result<Vec<(String, MetricScores)>, Error> {
    let gold = read_span_column(files, GOLD_CONTEXT, None, usize::MAX)?;
    if gold.len() != dataset_rows {
        return Err(Error::Data(format!(
            "`{GOLD_CONTEXT}` has {} rows, the other columns {dataset_rows}",
            gold.len()
        )));
    }
    let with_gold = rows.iter().filter(|&&i| !gold[i].is_empty()).count();
    notes.push(format!(
        "context recall: {with_gold} of {} scored examples have a gold context; the means are over them",
        rows.len()
    ));
    let mut out = Vec::new();
    for c in recalls {
        let own;
        let lists: &[Vec<Span>] = match &c.retriever {
            None => retrieved.as_deref().ok_or_else(|| {
                Error::Usage(format!(
                    "{}: no predictions file with `retrieved` lists",
                    c.name
                ))
            })?,
            Some(r) => {
                let all = read_span_column(files, RETRIEVED_CONTEXT, Some(r), c.k)?;
                if !rows
                    .iter()
                    .any(|&i| all.get(i).is_some_and(|l| !l.is_empty()))
                {
                    notes.push(format!(
                        "{}: no scored example has a `{r}` item in {RETRIEVED_CONTEXT}",
                        c.name
                    ));
                }
                own = rows
                    .iter()
                    .map(|&i| all.get(i).cloned().unwrap_or_default())
                    .collect::<Vec<_>>();
                &own
            }
        };
        let per_example: Vec<f64> = rows
            .iter()
            .zip(lists)
            .map(|(&i, l)| recall_at_k(&gold[i], l, c.k).unwrap_or(f64::NAN))
            .collect();
        let values = per_example.clone();
        out.push((
            c.name.clone(),
            MetricScores {
                per_example: Some(per_example),
                aggregate: Aggregate::Corpus(Box::new(move |sel| {
                    let v: Vec<f64> = sel
                        .iter()
                        .map(|&i| values[i])
                        .filter(|x| !x.is_nan())
                        .collect();
                    if v.is_empty() {
                        f64::NAN
                    } else {
                        v.iter().sum::<f64>() / v.len() as f64 * 100.0
                    }
                })),
            },
        ));
    }
    Ok(out)
}

/// Up to five quoted examples.
fn examples<'a>(ids: impl Iterator<Item = &'a String>) -> String {
    let v: Vec<String> = ids.take(5).map(|s| format!("{s:?}")).collect();
    v.join(", ")
}

/// Reads, joins and scores (see the module documentation).
pub fn evaluate(opts: &EvalOptions) -> Result<Evaluation, Error> {
    let (files, task) = resolve_files(opts)?;
    let schema = schema_of(&files[0])?;
    let shape = Shape::of(&schema);
    let id_column = match (&opts.id_column, shape) {
        (Some(c), _) => c.clone(),
        (None, Shape::Csn) => "url".to_string(),
        (None, Shape::Yabloco) => "meta.original_id".to_string(),
        (None, Shape::CompletionLine | Shape::RepoCompletion) => "id".to_string(),
        (None, Shape::Other) => {
            return Err(Error::Usage(
                "this table has no known id column: say --id-column (or @index)".into(),
            ))
        }
    };
    let reference_column = match (&opts.reference_column, task) {
        (Some(c), _) => c.clone(),
        (None, Task::Summarization) if shape == Shape::Csn => "docstring_tokens".to_string(),
        (None, Task::Generation) if shape == Shape::Yabloco => "outputs".to_string(),
        (None, Task::Generation)
            if matches!(shape, Shape::CompletionLine | Shape::RepoCompletion) =>
        {
            "gt".to_string()
        }
        _ => {
            return Err(Error::Usage(format!(
                "no default reference column for {} on this table: say --reference-column",
                task.as_str()
            )))
        }
    };
    let language_column = match shape {
        Shape::Csn => Some("language"),
        Shape::Yabloco => Some("inputs.language"),
        Shape::CompletionLine | Shape::RepoCompletion => Some("language"),
        Shape::Other => None,
    };
    let mut notes = Vec::new();
    let metric_names: Vec<String> = if opts.metrics.is_empty() {
        if shape == Shape::RepoCompletion && task == Task::Generation {
            crate::repo_completion::DEFAULT_METRICS
                .iter()
                .map(|s| s.to_string())
                .collect()
        } else {
            metric::defaults_for(task, &opts.metric_config, &mut notes)
        }
    } else {
        opts.metrics.clone()
    };
    // The recall metrics read the context columns, not the texts: split them off.
    let metric_names = metric::expand(&metric_names);
    let mut recalls: Vec<ContextRecall> = Vec::new();
    let mut text_names: Vec<String> = Vec::new();
    for n in &metric_names {
        match ContextRecall::parse(n)? {
            Some(c) => recalls.push(c),
            None => text_names.push(n.clone()),
        }
    }
    let needs_text = !text_names.is_empty();
    let needs_retrieved = recalls.iter().any(|c| c.retriever.is_none());
    if !recalls.is_empty() && resolve(&schema, GOLD_CONTEXT).is_err() {
        return Err(Error::Usage(format!(
            "{} scores the gold context of repository-level completion rows: {} has no `{GOLD_CONTEXT}` column",
            recalls[0].name,
            files[0].display()
        )));
    }
    let scorers = metric::scorers(&text_names, &opts.metric_config)?;
    let wordnet = match metric_names.iter().any(|m| m == "meteor") {
        true => Some(opts.metric_config.wordnet_dir()?),
        false => None,
    };

    let mut wanted: Vec<(String, Source)> = vec![
        (id_column.clone(), resolve(&schema, &id_column)?),
        (
            reference_column.clone(),
            resolve(&schema, &reference_column)?,
        ),
    ];
    if let Some(l) = language_column {
        wanted.push((l.to_string(), resolve(&schema, l)?));
    }
    let pred_col = opts
        .prediction_column
        .clone()
        .unwrap_or_else(|| "prediction".to_string());
    let in_dataset = opts.predictions.is_none();
    if in_dataset && needs_retrieved {
        return Err(Error::Usage(format!(
            "{} reads the `retrieved` lists of --predictions FILE; to score the dataset's own retrieved_context say context_recall@K:bm25 (or another retriever)",
            recalls.iter().find(|c| c.retriever.is_none()).map_or("", |c| c.name.as_str())
        )));
    }
    if in_dataset && needs_text {
        if opts.prediction_column.is_none() {
            return Err(Error::Usage(
                "no predictions: give --predictions FILE, or --prediction-column COLUMN of the dataset".into(),
            ));
        }
        wanted.push((pred_col.clone(), resolve(&schema, &pred_col)?));
    }
    let code_column = match (&opts.code_column, shape) {
        _ if !metric_names.iter().any(|m| metric::needs_code(m)) => None,
        (Some(c), _) => Some(c.clone()),
        (None, Shape::Csn) => Some("code".to_string()),
        (None, Shape::Yabloco) => Some("outputs".to_string()),
        (None, Shape::Other | Shape::CompletionLine | Shape::RepoCompletion) => {
            return Err(Error::Usage(
                "SIDE scores against the examples' code: say --code-column for this table".into(),
            ))
        }
    };
    let code_at = wanted.len();
    if let Some(c) = &code_column {
        wanted.push((c.clone(), resolve(&schema, c)?));
    }
    let by_start = wanted.len();
    for b in &opts.by {
        wanted.push((b.clone(), resolve(&schema, b)?));
    }
    let table = read_columns(&files, &wanted)?;
    let mut cols = table.columns;
    let by_cols: Vec<Vec<Option<String>>> = cols.split_off(by_start);
    let code_col: Vec<Option<String>> = cols
        .split_off(code_at)
        .into_iter()
        .next()
        .unwrap_or_default();
    let mut cols = cols.into_iter();
    let ids_col = cols.next().unwrap_or_default();
    let refs_col = cols.next().unwrap_or_default();
    let langs_col = if language_column.is_some() {
        cols.next().unwrap_or_default()
    } else {
        vec![None; table.rows]
    };

    // Dataset ids: present and unique.
    let mut ids: Vec<String> = Vec::with_capacity(table.rows);
    let mut nulls = 0;
    for v in ids_col {
        match v {
            Some(s) if !s.is_empty() => ids.push(s),
            _ => {
                nulls += 1;
                ids.push(String::new());
            }
        }
    }
    if nulls > 0 {
        return Err(Error::Data(format!(
            "{nulls} of {} dataset rows have an empty or null `{id_column}`{}; use --id-column (e.g. @index)",
            table.rows,
            if id_column == "url" {
                " (a folder that is not a git repository was mined: no commit, so no URL)"
            } else {
                ""
            }
        )));
    }
    let mut row_of: HashMap<&str, usize> = HashMap::with_capacity(ids.len());
    let mut dups = Vec::new();
    for (i, id) in ids.iter().enumerate() {
        if row_of.insert(id.as_str(), i).is_some() {
            dups.push(id);
        }
    }
    if !dups.is_empty() {
        return Err(Error::Data(format!(
            "`{id_column}` is not unique in the dataset: {} rows repeat an id, e.g. {}; use --id-column (e.g. @index)",
            dups.len(),
            examples(dups.into_iter())
        )));
    }

    // Join.
    let id_field = opts.prediction_id_column.as_deref().unwrap_or("id");
    let retrieved: Option<(Predictions, Vec<Vec<Span>>)> = match &opts.predictions {
        Some(p) if needs_retrieved => {
            // Recall@K reads the first K items of each list: no more are kept.
            let keep = recalls
                .iter()
                .filter(|c| c.retriever.is_none())
                .map(|c| c.k)
                .max()
                .unwrap_or(0);
            Some(read_retrieved(p, id_field, RETRIEVED_FIELD, keep)?)
        }
        _ => None,
    };
    let preds = match (&opts.predictions, &retrieved) {
        (Some(p), _) if needs_text => Some(read_predictions(p, id_field, &pred_col)?),
        // Only the retrieved lists are scored: the file needs no prediction text.
        (Some(_), Some((ids, _))) => Some(ids.clone()),
        (Some(p), None) => Some(read_predictions(p, id_field, &pred_col)?),
        (None, _) => None,
    };
    let (rows, predictions, join) = match preds {
        None => {
            let texts: Vec<String> = if needs_text {
                cols.next()
                    .unwrap_or_default()
                    .into_iter()
                    .map(Option::unwrap_or_default)
                    .collect()
            } else {
                vec![String::new(); table.rows]
            };
            let n = texts.len();
            (
                (0..n).collect::<Vec<usize>>(),
                texts,
                JoinReport {
                    dataset_rows: n,
                    predictions: n,
                    scored: n,
                    ..JoinReport::default()
                },
            )
        }
        Some(p) => {
            let mut pred_of: HashMap<&str, usize> = HashMap::with_capacity(p.ids.len());
            for (i, id) in p.ids.iter().enumerate() {
                pred_of.insert(id.as_str(), i);
            }
            let missing: Vec<&String> = ids
                .iter()
                .filter(|id| !pred_of.contains_key(id.as_str()))
                .collect();
            let extra: Vec<&String> = p
                .ids
                .iter()
                .filter(|id| !row_of.contains_key(id.as_str()))
                .collect();
            if (!missing.is_empty() || !extra.is_empty()) && !opts.intersection {
                let mut msg = format!(
                    "the predictions do not match the dataset ({} rows, {} predictions, by `{id_column}`):",
                    ids.len(),
                    p.ids.len()
                );
                if !missing.is_empty() {
                    msg.push_str(&format!(
                        "\n  {} dataset rows have no prediction, e.g. {}",
                        missing.len(),
                        examples(missing.iter().copied())
                    ));
                }
                if !extra.is_empty() {
                    msg.push_str(&format!(
                        "\n  {} predictions match no dataset row, e.g. {}",
                        extra.len(),
                        examples(extra.iter().copied())
                    ));
                }
                msg.push_str(&format!(
                    "\n  pass --intersection to score only the {} rows on both sides",
                    ids.len() - missing.len()
                ));
                return Err(Error::Mismatch(msg));
            }
            let mut rows = Vec::new();
            let mut texts = Vec::new();
            for (i, id) in ids.iter().enumerate() {
                if let Some(&k) = pred_of.get(id.as_str()) {
                    rows.push(i);
                    texts.push(p.texts[k].clone());
                }
            }
            let join = JoinReport {
                dataset_rows: ids.len(),
                predictions: p.ids.len(),
                scored: rows.len(),
                missing_predictions: missing.len(),
                extra_predictions: extra.len(),
                intersection: opts.intersection,
            };
            (rows, texts, join)
        }
    };
    if rows.is_empty() {
        return Err(Error::Mismatch(
            "no dataset row has a prediction: nothing to score".into(),
        ));
    }
    let references: Vec<String> = rows
        .iter()
        .map(|&i| refs_col[i].clone().unwrap_or_default())
        .collect();
    let languages: Vec<Option<String>> = match &opts.language {
        Some(l) => vec![Some(normalize_language(l)); rows.len()],
        None => rows
            .iter()
            .map(|&i| langs_col[i].as_deref().map(normalize_language))
            .collect(),
    };
    let codes: Vec<Option<String>> = match code_column {
        Some(_) => rows.iter().map(|&i| code_col[i].clone()).collect(),
        None => Vec::new(),
    };
    let batch = Batch {
        predictions: &predictions,
        references: &references,
        languages: &languages,
        codes: &codes,
    };
    let mut scored = Vec::new();
    for s in scorers {
        scored.push((s.name().to_string(), s.score(&batch)?));
    }
    let mut recall_scores = if recalls.is_empty() {
        Vec::new()
    } else {
        let retrieved = retrieved.map(|(p, spans)| {
            let by_id: HashMap<String, Vec<Span>> = p.ids.into_iter().zip(spans).collect();
            rows.iter()
                .map(|&i| by_id.get(&ids[i]).cloned().unwrap_or_default())
                .collect::<Vec<Vec<Span>>>()
        });
        context_recalls(&files, table.rows, &rows, &recalls, retrieved, &mut notes)?
    }
    .into_iter();
    // The asked order: the text metrics' results in turn, the recall metrics in theirs.
    let mut scored = scored.into_iter();
    let mut metrics = Vec::new();
    for n in &metric_names {
        let next = if ContextRecall::parse(n)?.is_some() {
            recall_scores.next()
        } else {
            scored.next()
        };
        metrics.extend(next);
    }
    let mut groups = Vec::new();
    for (b, col) in opts.by.iter().zip(by_cols) {
        let mut g: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for (k, &i) in rows.iter().enumerate() {
            let v = col[i].clone().unwrap_or_else(|| "null".to_string());
            g.entry(v).or_default().push(k);
        }
        groups.push((b.clone(), g.into_iter().collect()));
    }
    Ok(Evaluation {
        task,
        files,
        id_column,
        reference_column,
        join,
        ids: rows.iter().map(|&i| ids[i].clone()).collect(),
        metrics,
        groups,
        notes,
        wordnet,
    })
}
