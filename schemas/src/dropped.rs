//! The `dropped` table that `--explain` writes: one row per function a filter rule kept
//! out of the CSN and YABLoCo shapes, with the rule that did.

use std::sync::{Arc, LazyLock};

use arrow_array::builder::{Int64Builder, StringBuilder, UInt64Builder};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use parquet::file::properties::WriterProperties;
use parquet::schema::types::ColumnPath;

use crate::{shard, Table};

static DROPPED: LazyLock<SchemaRef> = LazyLock::new(|| {
    let s = |n: &str, null: bool| Field::new(n, DataType::Utf8, null);
    Arc::new(Schema::new(vec![
        Field::new("id", DataType::UInt64, false),
        s("repository", false),
        s("path", false),
        s("qualified_name", false),
        s("language", false),
        Field::new("start_line", DataType::Int64, false),
        Field::new("end_line", DataType::Int64, false),
        s("rule", false),
        s("docstring", true),
        s("code", false),
        s("contaminated_by", true),
    ]))
});

/// A function that a filter rule removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DroppedRow {
    pub id: u64,
    pub repository: String,
    pub path: String,
    pub qualified_name: String,
    pub language: String,
    pub start_line: i64,
    pub end_line: i64,
    /// The first rule that rejected it.
    pub rule: String,
    pub docstring: Option<String>,
    pub code: String,
    /// `benchmark:item_id` when the rule is `decontaminated`.
    pub contaminated_by: Option<String>,
}

#[derive(Default)]
pub struct DroppedTable {
    id: UInt64Builder,
    strings: [StringBuilder; 4],
    lines: [Int64Builder; 2],
    rule: StringBuilder,
    docstring: StringBuilder,
    code: StringBuilder,
    contaminated_by: StringBuilder,
    rows: usize,
    bytes: usize,
}

impl Table for DroppedTable {
    type Row = DroppedRow;

    fn schema() -> SchemaRef {
        DROPPED.clone()
    }

    fn push(&mut self, r: &DroppedRow) {
        self.id.append_value(r.id);
        for (b, v) in
            self.strings
                .iter_mut()
                .zip([&r.repository, &r.path, &r.qualified_name, &r.language])
        {
            b.append_value(v);
            self.bytes += v.len();
        }
        self.lines[0].append_value(r.start_line);
        self.lines[1].append_value(r.end_line);
        self.rule.append_value(&r.rule);
        self.docstring.append_option(r.docstring.as_deref());
        self.code.append_value(&r.code);
        self.contaminated_by
            .append_option(r.contaminated_by.as_deref());
        self.bytes += r.docstring.as_ref().map_or(0, String::len) + r.code.len() + 40;
        self.rows += 1;
    }

    fn len(&self) -> usize {
        self.rows
    }

    fn buffered_bytes(&self) -> usize {
        self.bytes
    }

    fn finish(&mut self) -> Result<RecordBatch, arrow_schema::ArrowError> {
        let mut cols: Vec<ArrayRef> = vec![Arc::new(self.id.finish())];
        cols.extend(shard::finish_each(&mut self.strings));
        cols.extend(shard::finish_each(&mut self.lines));
        cols.push(Arc::new(self.rule.finish()));
        cols.push(Arc::new(self.docstring.finish()));
        cols.push(Arc::new(self.code.finish()));
        cols.push(Arc::new(self.contaminated_by.finish()));
        self.rows = 0;
        self.bytes = 0;
        RecordBatch::try_new(Self::schema(), cols)
    }

    fn writer_properties() -> WriterProperties {
        let mut b = shard::base_properties();
        for col in ["qualified_name", "docstring", "code", "id"] {
            b = b.set_column_dictionary_enabled(ColumnPath::from(col), false);
        }
        b.build()
    }
}
