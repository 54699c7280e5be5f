//! The per-sample table (`--per-sample FILE`): one row per sample, as Parquet when the name
//! ends in `.parquet`, JSON lines otherwise, with the same fields in the same order. The file
//! appears complete or not at all: it is written next to its place, synced, then renamed.

use std::path::Path;
use std::sync::{Arc, LazyLock};

use arrow_array::builder::{
    BooleanBuilder, Float64Builder, ListBuilder, StringBuilder, UInt64Builder,
};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};

use crate::{Error, SampleResult};

/// The per-sample table's schema: the fields of [`SampleResult`], in its order.
pub static SCHEMA: LazyLock<SchemaRef> = LazyLock::new(|| {
    let s = |n: &str, null: bool| Field::new(n, DataType::Utf8, null);
    Arc::new(Schema::new(vec![
        s("id", false),
        Field::new("sample", DataType::UInt64, false),
        s("repository", false),
        s("language", false),
        s("outcome", false),
        Field::new("seconds", DataType::Float64, false),
        Field::new(
            "failing_tests",
            DataType::List(Arc::new(Field::new("item", DataType::Utf8, true))),
            false,
        ),
        s("reason", true),
        s("log_tail", false),
        Field::new("task_valid", DataType::Boolean, true),
        s("category", false),
        Field::new("exact_match", DataType::Boolean, true),
    ]))
});

/// Writes `results` to `path` (Parquet for `*.parquet`, JSON lines otherwise), complete or
/// not at all ([`codemine_io::atomic::write_atomic`]; the table is small, so it is encoded
/// in memory first).
pub fn write(path: &Path, results: &[SampleResult]) -> Result<(), Error> {
    let bytes = if is_parquet(path) {
        parquet_bytes(results)?
    } else {
        jsonl_bytes(results)
    };
    codemine_io::atomic::write_atomic(path, &bytes).map_err(|e| Error::Io {
        path: e.path,
        what: "writing",
        source: e.source,
    })
}

/// Whether `path` names a Parquet file.
pub fn is_parquet(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "parquet")
}

fn jsonl_bytes(results: &[SampleResult]) -> Vec<u8> {
    let mut out = Vec::new();
    for r in results {
        // A SampleResult is strings, numbers and lists: serde_json cannot fail on it.
        if let Ok(line) = serde_json::to_vec(r) {
            out.extend_from_slice(&line);
        }
        out.push(b'\n');
    }
    out
}

fn parquet_bytes(results: &[SampleResult]) -> Result<Vec<u8>, Error> {
    let batch = batch(results)?;
    let props = parquet::file::properties::WriterProperties::builder()
        .set_compression(parquet::basic::Compression::ZSTD(Default::default()))
        .set_created_by(concat!("codemine ", env!("CARGO_PKG_VERSION")).to_string())
        .build();
    let mut w = parquet::arrow::ArrowWriter::try_new(Vec::new(), SCHEMA.clone(), Some(props))?;
    w.write(&batch)?;
    Ok(w.into_inner()?)
}

/// The results as one record batch of [`SCHEMA`].
pub fn batch(results: &[SampleResult]) -> Result<RecordBatch, Error> {
    let mut id = StringBuilder::new();
    let mut sample = UInt64Builder::new();
    let mut repository = StringBuilder::new();
    let mut language = StringBuilder::new();
    let mut outcome = StringBuilder::new();
    let mut seconds = Float64Builder::new();
    let mut failing = ListBuilder::new(StringBuilder::new());
    let mut reason = StringBuilder::new();
    let mut log_tail = StringBuilder::new();
    let mut task_valid = BooleanBuilder::new();
    let mut category = StringBuilder::new();
    let mut exact = BooleanBuilder::new();
    for r in results {
        id.append_value(&r.id);
        sample.append_value(u64::try_from(r.sample).unwrap_or(u64::MAX));
        repository.append_value(&r.repository);
        language.append_value(&r.language);
        outcome.append_value(r.outcome.as_str());
        seconds.append_value(r.seconds);
        for t in &r.failing_tests {
            failing.values().append_value(t);
        }
        failing.append(true);
        reason.append_option(r.reason.as_deref());
        log_tail.append_value(&r.log_tail);
        task_valid.append_option(r.task_valid);
        category.append_value(&r.category);
        exact.append_option(r.exact_match);
    }
    let cols: Vec<ArrayRef> = vec![
        Arc::new(id.finish()),
        Arc::new(sample.finish()),
        Arc::new(repository.finish()),
        Arc::new(language.finish()),
        Arc::new(outcome.finish()),
        Arc::new(seconds.finish()),
        Arc::new(failing.finish()),
        Arc::new(reason.finish()),
        Arc::new(log_tail.finish()),
        Arc::new(task_valid.finish()),
        Arc::new(category.finish()),
        Arc::new(exact.finish()),
    ];
    Ok(RecordBatch::try_new(SCHEMA.clone(), cols)?)
}
