//! The `pii` table that `mine --pii` writes: one row per finding of personal data or a
//! secret in a mined file, with where it is and what was done with it; never the value.

use std::sync::{Arc, LazyLock};

use arrow_array::builder::{Int64Builder, StringBuilder, UInt64Builder};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use parquet::file::properties::WriterProperties;

use crate::{shard, Table};

static PII: LazyLock<SchemaRef> = LazyLock::new(|| {
    let s = |n: &str, null: bool| Field::new(n, DataType::Utf8, null);
    let i = |n: &str| Field::new(n, DataType::Int64, false);
    Arc::new(Schema::new(vec![
        s("repository", false),
        s("path", false),
        Field::new("id", DataType::UInt64, true),
        s("field", false),
        s("kind", false),
        s("category", false),
        i("start_line"),
        i("end_line"),
        i("start_byte"),
        i("end_byte"),
        s("action", false),
    ]))
});

/// One finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PiiRow {
    pub repository: String,
    /// The repository-relative path of the file it was found in.
    pub path: String,
    /// The function (call-graph node and CSN `id`) whose code or docstring holds it; none
    /// for text outside every function (it still reaches the completion rows).
    pub id: Option<u64>,
    /// `code`, `docstring` or `file`.
    pub field: &'static str,
    /// The finding's kind (`codemine_pii::Kind::name`: `email`, `aws_access_key_id`, ...).
    pub kind: &'static str,
    /// `personal_data` or `secret`.
    pub category: &'static str,
    /// 1-based lines of the file, inclusive.
    pub start_line: i64,
    pub end_line: i64,
    /// Byte offsets in the file as read (`start..end`).
    pub start_byte: i64,
    pub end_byte: i64,
    /// `reported`, `redacted` or `dropped` (its function was left out).
    pub action: &'static str,
}

#[derive(Default)]
pub struct PiiTable {
    strings: [StringBuilder; 2],
    id: UInt64Builder,
    labels: [StringBuilder; 3],
    numbers: [Int64Builder; 4],
    action: StringBuilder,
    rows: usize,
    bytes: usize,
}

impl Table for PiiTable {
    type Row = PiiRow;

    fn schema() -> SchemaRef {
        PII.clone()
    }

    fn push(&mut self, r: &PiiRow) {
        for (b, v) in self.strings.iter_mut().zip([&r.repository, &r.path]) {
            b.append_value(v);
            self.bytes += v.len();
        }
        self.id.append_option(r.id);
        for (b, v) in self.labels.iter_mut().zip([r.field, r.kind, r.category]) {
            b.append_value(v);
        }
        let numbers = [r.start_line, r.end_line, r.start_byte, r.end_byte];
        for (b, v) in self.numbers.iter_mut().zip(numbers) {
            b.append_value(v);
        }
        self.action.append_value(r.action);
        self.bytes += 80;
        self.rows += 1;
    }

    fn len(&self) -> usize {
        self.rows
    }

    fn buffered_bytes(&self) -> usize {
        self.bytes
    }

    fn finish(&mut self) -> Result<RecordBatch, arrow_schema::ArrowError> {
        let mut cols: Vec<ArrayRef> = shard::finish_each(&mut self.strings).collect();
        cols.push(Arc::new(self.id.finish()));
        cols.extend(shard::finish_each(&mut self.labels));
        cols.extend(shard::finish_each(&mut self.numbers));
        cols.push(Arc::new(self.action.finish()));
        self.rows = 0;
        self.bytes = 0;
        RecordBatch::try_new(Self::schema(), cols)
    }

    fn writer_properties() -> WriterProperties {
        shard::base_properties().build()
    }
}
