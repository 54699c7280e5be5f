//! Output of `codemine eval`: the terminal table, the JSON report and the per-example
//! scores (JSONL, or Parquet when the file name ends in `.parquet`).
//!
//! ```no_run
//! # let ev: codemine_eval::Evaluation = todo!();
//! println!("{}", codemine_eval::report::table(&ev));
//! let json = codemine_eval::report::json(&ev);
//! codemine_eval::report::write_per_example(&ev, std::path::Path::new("scores.jsonl"))?;
//! # Ok::<(), codemine_eval::Error>(())
//! ```

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::sync::Arc;

use arrow_array::{ArrayRef, Float64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema};
use serde_json::{json, Map, Value};

use crate::metric;
use crate::{Error, Evaluation};

fn about(name: &str) -> &'static str {
    metric::info(name).map(|m| m.about).unwrap_or("")
}

fn metric_values(ev: &Evaluation, rows: &[usize]) -> Map<String, Value> {
    ev.metrics
        .iter()
        .map(|(name, s)| (name.clone(), json!(s.aggregate(rows))))
        .collect()
}

/// The machine-readable report.
pub fn json(ev: &Evaluation) -> Value {
    let all: Vec<usize> = (0..ev.ids.len()).collect();
    let mut by = Map::new();
    for (col, groups) in &ev.groups {
        let mut m = Map::new();
        for (value, rows) in groups {
            m.insert(
                value.clone(),
                json!({"examples": rows.len(), "metrics": metric_values(ev, rows)}),
            );
        }
        by.insert(col.clone(), Value::Object(m));
    }
    json!({
        "task": ev.task.as_str(),
        "files": ev.files.iter().map(|f| f.display().to_string()).collect::<Vec<_>>(),
        "id_column": ev.id_column,
        "reference_column": ev.reference_column,
        "join": ev.join,
        "examples": ev.ids.len(),
        "metrics": metric_values(ev, &all),
        "by": by,
        "notes": ev.notes,
        "wordnet": ev.wordnet.as_ref().map(|p| p.display().to_string()),
    })
}

fn fmt(v: f64) -> String {
    format!("{v:.4}")
}

/// The aggregate table (and one table per `--by` column) for a terminal.
pub fn table(ev: &Evaluation) -> String {
    let all: Vec<usize> = (0..ev.ids.len()).collect();
    let j = &ev.join;
    let mut out = format!(
        "codemine eval: {}, {} examples ({} files; references `{}`, ids `{}`)\n",
        ev.task.as_str(),
        ev.ids.len(),
        ev.files.len(),
        ev.reference_column,
        ev.id_column
    );
    if j.intersection && (j.missing_predictions > 0 || j.extra_predictions > 0) {
        out.push_str(&format!(
            "intersection only: {} dataset rows without a prediction and {} predictions without a row were left out\n",
            j.missing_predictions, j.extra_predictions
        ));
    }
    let w = ev
        .metrics
        .iter()
        .map(|(n, _)| n.len())
        .max()
        .unwrap_or(6)
        .max(6);
    out.push('\n');
    out.push_str(&format!(
        "{:<w$}  {:>10}  {}\n",
        "metric", "score", "definition"
    ));
    for (name, s) in &ev.metrics {
        out.push_str(&format!(
            "{name:<w$}  {:>10}  {}\n",
            fmt(s.aggregate(&all)),
            about(name)
        ));
    }
    for (col, groups) in &ev.groups {
        let vw = groups
            .iter()
            .map(|(v, _)| v.chars().count())
            .max()
            .unwrap_or(0)
            .max(col.len());
        out.push_str(&format!("\nby {col}\n{:<vw$}  {:>8}", col, "examples"));
        for (name, _) in &ev.metrics {
            out.push_str(&format!("  {:>w2$}", name, w2 = name.len().max(10)));
        }
        out.push('\n');
        for (value, rows) in groups {
            out.push_str(&format!("{value:<vw$}  {:>8}", rows.len()));
            for (name, s) in &ev.metrics {
                out.push_str(&format!(
                    "  {:>w2$}",
                    fmt(s.aggregate(rows)),
                    w2 = name.len().max(10)
                ));
            }
            out.push('\n');
        }
    }
    out
}

/// Writes one record per scored example: its id and every per-example metric (corpus-level
/// metrics have none; NaN, `null` in JSON, where a metric has no value for the example).
/// Parquet when `path` ends in `.parquet`, JSON lines otherwise. A new or regular file
/// appears complete or not at all: it is written next to `path` and renamed. Anything else
/// (`/dev/stdout`, a pipe, a symlink) is written in place.
pub fn write_per_example(ev: &Evaluation, path: &Path) -> Result<(), Error> {
    let regular = match std::fs::symlink_metadata(path) {
        Ok(m) => m.file_type().is_file(),
        Err(e) => e.kind() == std::io::ErrorKind::NotFound,
    };
    if !regular {
        return write_per_example_to(ev, path, path);
    }
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".tmp-{}", std::process::id()));
    let tmp = path.with_file_name(name);
    let written = write_per_example_to(ev, path, &tmp).and_then(|()| {
        std::fs::rename(&tmp, path).map_err(|source| Error::Io {
            path: path.to_path_buf(),
            source,
        })
    });
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// Writes the records for `path` (its extension picks the format) into `tmp`.
fn write_per_example_to(ev: &Evaluation, path: &Path, tmp: &Path) -> Result<(), Error> {
    let io = |source| Error::Io {
        path: tmp.to_path_buf(),
        source,
    };
    let cols: Vec<(&String, &Vec<f64>)> = ev
        .metrics
        .iter()
        .filter_map(|(n, s)| s.per_example.as_ref().map(|v| (n, v)))
        .collect();
    let file = File::create(tmp).map_err(io)?;
    if path.extension().is_some_and(|e| e == "parquet") {
        let mut fields = vec![Field::new("id", DataType::Utf8, false)];
        let mut arrays: Vec<ArrayRef> = vec![Arc::new(StringArray::from_iter_values(&ev.ids))];
        for (n, v) in &cols {
            fields.push(Field::new(n.as_str(), DataType::Float64, false));
            arrays.push(Arc::new(Float64Array::from((*v).clone())));
        }
        let batch =
            RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays).map_err(|source| {
                Error::Arrow {
                    path: path.to_path_buf(),
                    source,
                }
            })?;
        let pq = |source| Error::Parquet {
            path: path.to_path_buf(),
            source,
        };
        let mut w = parquet::arrow::ArrowWriter::try_new(file, batch.schema(), None).map_err(pq)?;
        w.write(&batch).map_err(pq)?;
        w.close().map_err(pq)?;
    } else {
        let mut w = BufWriter::new(file);
        for (i, id) in ev.ids.iter().enumerate() {
            let mut m = Map::new();
            m.insert("id".into(), json!(id));
            for (n, v) in &cols {
                m.insert((*n).clone(), json!(v[i]));
            }
            serde_json::to_writer(&mut w, &Value::Object(m)).map_err(|e| io(e.into()))?;
            w.write_all(b"\n").map_err(io)?;
        }
        w.flush().map_err(io)?;
    }
    Ok(())
}
