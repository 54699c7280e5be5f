//! The `tasks` table that `mine --run-tests --validate-tasks` writes: one row per function
//! with covering tests, with the verdict of task validation as `eval --execute --validate`
//! gives it (EvoCodeBench's check: the original passes its covering tests, a stub fails
//! them). A row joins the YABLoCo rows on `id` = `meta.original_id` and the call-graph
//! nodes on `node_id` = `id`.

use std::sync::{Arc, LazyLock};

use arrow_array::builder::{
    BooleanBuilder, Float64Builder, Int64Builder, ListBuilder, StringBuilder, UInt64Builder,
};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use parquet::file::properties::WriterProperties;

use crate::{shard, Table};

static TASKS: LazyLock<SchemaRef> = LazyLock::new(|| {
    let s = |n: &str, null: bool| Field::new(n, DataType::Utf8, null);
    let i = |n: &str| Field::new(n, DataType::Int64, false);
    let list = |n: &str| {
        Field::new(
            n,
            DataType::List(Arc::new(Field::new("item", DataType::Utf8, true))),
            false,
        )
    };
    Arc::new(Schema::new(vec![
        s("repository", false),
        s("id", false),
        Field::new("node_id", DataType::UInt64, false),
        s("path", false),
        i("start_line"),
        i("end_line"),
        s("language", false),
        list("tests"),
        s("gold", false),
        s("stub", true),
        Field::new("valid", DataType::Boolean, true),
        list("gold_failing_tests"),
        s("reason", true),
        Field::new("seconds", DataType::Float64, false),
    ]))
});

/// One function's validation.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskRow {
    pub repository: String,
    /// YABLoCo's `meta.original_id`: the node id as 16 upper-case hexadecimal digits.
    pub id: String,
    pub node_id: u64,
    pub path: String,
    /// 1-based, inclusive.
    pub start_line: i64,
    pub end_line: i64,
    pub language: String,
    /// The covering tests that ran: those that passed in the repository's own suite.
    pub tests: Vec<String>,
    /// The original function's outcome (`pass`, `fail`, `timeout`, `error`,
    /// `syntax_error`): it must be `pass`.
    pub gold: &'static str,
    /// The stub's outcome: it must not be `pass`; null for a language without a stub.
    pub stub: Option<&'static str>,
    /// Both hold; null without a stub (no verdict).
    pub valid: Option<bool>,
    /// The tests the original fails.
    pub gold_failing_tests: Vec<String>,
    /// Why the original or the stub did not run or did not pass, in short.
    pub reason: Option<String>,
    /// Wall time of both runs.
    pub seconds: f64,
}

pub struct TasksTable {
    strings: [StringBuilder; 2],
    node_id: UInt64Builder,
    path: StringBuilder,
    lines: [Int64Builder; 2],
    language: StringBuilder,
    tests: ListBuilder<StringBuilder>,
    gold: StringBuilder,
    stub: StringBuilder,
    valid: BooleanBuilder,
    gold_failing: ListBuilder<StringBuilder>,
    reason: StringBuilder,
    seconds: Float64Builder,
    rows: usize,
    bytes: usize,
}

impl Default for TasksTable {
    fn default() -> Self {
        // The lists' items named `item`, as the schema (and pyarrow) name them.
        let list = || {
            ListBuilder::new(StringBuilder::new()).with_field(Arc::new(Field::new(
                "item",
                DataType::Utf8,
                true,
            )))
        };
        TasksTable {
            strings: Default::default(),
            node_id: UInt64Builder::new(),
            path: StringBuilder::new(),
            lines: Default::default(),
            language: StringBuilder::new(),
            tests: list(),
            gold: StringBuilder::new(),
            stub: StringBuilder::new(),
            valid: BooleanBuilder::new(),
            gold_failing: list(),
            reason: StringBuilder::new(),
            seconds: Float64Builder::new(),
            rows: 0,
            bytes: 0,
        }
    }
}

impl Table for TasksTable {
    type Row = TaskRow;

    fn schema() -> SchemaRef {
        TASKS.clone()
    }

    fn push(&mut self, r: &TaskRow) {
        for (b, v) in self.strings.iter_mut().zip([&r.repository, &r.id]) {
            b.append_value(v);
            self.bytes += v.len();
        }
        self.node_id.append_value(r.node_id);
        self.path.append_value(&r.path);
        self.lines[0].append_value(r.start_line);
        self.lines[1].append_value(r.end_line);
        self.language.append_value(&r.language);
        for (b, list) in [
            (&mut self.tests, &r.tests),
            (&mut self.gold_failing, &r.gold_failing_tests),
        ] {
            for t in list {
                b.values().append_value(t);
                self.bytes += t.len();
            }
            b.append(true);
        }
        self.gold.append_value(r.gold);
        self.stub.append_option(r.stub);
        self.valid.append_option(r.valid);
        self.reason.append_option(r.reason.as_deref());
        self.seconds.append_value(r.seconds);
        self.bytes += r.path.len() + r.reason.as_ref().map_or(0, String::len) + 64;
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
        cols.push(Arc::new(self.node_id.finish()));
        cols.push(Arc::new(self.path.finish()));
        cols.extend(shard::finish_each(&mut self.lines));
        cols.push(Arc::new(self.language.finish()));
        cols.push(Arc::new(self.tests.finish()));
        cols.push(Arc::new(self.gold.finish()));
        cols.push(Arc::new(self.stub.finish()));
        cols.push(Arc::new(self.valid.finish()));
        cols.push(Arc::new(self.gold_failing.finish()));
        cols.push(Arc::new(self.reason.finish()));
        cols.push(Arc::new(self.seconds.finish()));
        self.rows = 0;
        self.bytes = 0;
        RecordBatch::try_new(Self::schema(), cols)
    }

    fn writer_properties() -> WriterProperties {
        shard::base_properties().build()
    }
}
