//! The `tests` table that `mine --run-tests` writes: one row per test of a repository's
//! suite as run once in the sandbox, with its outcome and time.

use std::sync::{Arc, LazyLock};

use arrow_array::builder::{Float64Builder, StringBuilder};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use parquet::file::properties::WriterProperties;
use parquet::schema::types::ColumnPath;

use crate::{shard, Table};

static TESTS: LazyLock<SchemaRef> = LazyLock::new(|| {
    let s = |n: &str, null: bool| Field::new(n, DataType::Utf8, null);
    Arc::new(Schema::new(vec![
        s("repository", false),
        s("test_id", false),
        s("file", true),
        s("outcome", false),
        Field::new("seconds", DataType::Float64, false),
    ]))
});

/// One test of a repository's suite.
#[derive(Debug, Clone, PartialEq)]
pub struct TestRow {
    pub repository: String,
    /// The runner's id: a pytest node id, a JavaScript test file, a ctest name, `make test`.
    pub test_id: String,
    /// The repository-relative test file, where the runner knows it.
    pub file: Option<String>,
    /// `passed`, `failed`, `error`, `skipped` or `timeout`.
    pub outcome: &'static str,
    pub seconds: f64,
}

#[derive(Default)]
pub struct TestsTable {
    strings: [StringBuilder; 2],
    file: StringBuilder,
    outcome: StringBuilder,
    seconds: Float64Builder,
    rows: usize,
    bytes: usize,
}

impl Table for TestsTable {
    type Row = TestRow;

    fn schema() -> SchemaRef {
        TESTS.clone()
    }

    fn push(&mut self, r: &TestRow) {
        for (b, v) in self.strings.iter_mut().zip([&r.repository, &r.test_id]) {
            b.append_value(v);
            self.bytes += v.len();
        }
        self.file.append_option(r.file.as_deref());
        self.outcome.append_value(r.outcome);
        self.seconds.append_value(r.seconds);
        self.bytes += r.file.as_ref().map_or(0, String::len) + 24;
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
        cols.push(Arc::new(self.file.finish()));
        cols.push(Arc::new(self.outcome.finish()));
        cols.push(Arc::new(self.seconds.finish()));
        self.rows = 0;
        self.bytes = 0;
        RecordBatch::try_new(Self::schema(), cols)
    }

    fn writer_properties() -> WriterProperties {
        shard::base_properties()
            .set_column_dictionary_enabled(ColumnPath::from("test_id"), false)
            .build()
    }
}
