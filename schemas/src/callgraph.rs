//! The call-graph tables (docs/design.md, "Call-graph tables"): `nodes`, one row per function,
//! and `edges`, one row per call site.

use std::sync::{Arc, LazyLock};

use arrow_array::builder::{
    BooleanBuilder, Float32Builder, Int64Builder, ListBuilder, StringBuilder,
    TimestampMillisecondBuilder, UInt64Builder,
};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef, TimeUnit};
use parquet::file::properties::WriterProperties;
use parquet::schema::types::ColumnPath;

use crate::{shard, Table};

/// The SIDE score column of the nodes (and of CSN rows when a SIDE model is given).
pub const SIDE_SCORE: &str = "side_score";

static NODES: LazyLock<SchemaRef> = LazyLock::new(|| {
    let s = |n: &str, null: bool| Field::new(n, DataType::Utf8, null);
    let i = |n: &str, null: bool| Field::new(n, DataType::Int64, null);
    Arc::new(Schema::new(vec![
        Field::new("id", DataType::UInt64, false),
        s("repository", false),
        s("path", false),
        s("name", false),
        s("qualified_name", false),
        s("language", false),
        s("kind", false),
        i("start_line", false),
        i("end_line", false),
        s("docstring", true),
        i("code_length", false),
        Field::new(
            "last_commit",
            // Milliseconds: Parquet has no seconds unit, and readers then see a bare int64.
            DataType::Timestamp(TimeUnit::Millisecond, Some("UTC".into())),
            true,
        ),
        s("last_commit_sha", true),
        Field::new("last_commit_bounded", DataType::Boolean, true),
        i("test_cov_hits", true),
        i("covered_lines", true),
        i("coverable_lines", true),
        i("calls_num", false),
        i("dep_num", false),
        s("category", false),
        Field::new("syntax_error", DataType::Boolean, false),
        s("dropped_by", true),
        Field::new("cluster_id", DataType::UInt64, true),
        Field::new("duplicate_of", DataType::UInt64, true),
        s("license", true),
        s("contaminated_by", true),
        // Filled by the miner's SIDE step after dedup (null without a SIDE model).
        Field::new(SIDE_SCORE, DataType::Float32, true),
        // Filled by `mine --run-tests` (null when the tests were not run).
        Field::new(COVERING_TESTS, covering_tests_type(), true),
    ]))
});

/// The nodes' shape of a run: with `mine --docstring-params`, the nodes' columns then
/// `docstring_params` ([`crate::docstring_params`]); else [`NodesTable`]'s.
pub fn nodes_shape(params: bool) -> SchemaRef {
    static WITH: LazyLock<SchemaRef> =
        LazyLock::new(|| crate::docstring_params::with_field(&NODES));
    match params {
        true => WITH.clone(),
        false => NODES.clone(),
    }
}

/// The column of the tests that execute a function's lines (`mine --run-tests`), on the
/// nodes and in YABLoCo's `meta`.
pub const COVERING_TESTS: &str = "covering_tests";

/// `list<string>`, the type of [`COVERING_TESTS`].
pub fn covering_tests_type() -> DataType {
    DataType::List(Arc::new(Field::new("item", DataType::Utf8, true)))
}

/// Appends a `covering_tests` value (null when the tests were not run).
pub(crate) fn append_tests(
    b: &mut ListBuilder<StringBuilder>,
    tests: Option<&[Arc<str>]>,
) -> usize {
    match tests {
        Some(ids) => {
            let mut bytes = 0;
            for id in ids {
                b.values().append_value(id);
                bytes += id.len();
            }
            b.append(true);
            bytes
        }
        None => {
            b.append_null();
            0
        }
    }
}

/// One function of the call graph.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeRow {
    pub id: u64,
    /// Shared by the rows of a repository (a file of many functions holds them by the
    /// hundred thousand: issue 22, item 5).
    pub repository: Arc<str>,
    /// Shared by the rows of a file.
    pub path: Arc<str>,
    pub name: String,
    pub qualified_name: String,
    pub language: &'static str,
    /// `function`, `method`, `constructor`.
    pub kind: &'static str,
    pub start_line: i64,
    pub end_line: i64,
    pub docstring: Option<String>,
    pub code_length: i64,
    /// Seconds since the epoch.
    pub last_commit: Option<i64>,
    /// Shared by the rows dated by the same commit.
    pub last_commit_sha: Option<Arc<str>>,
    /// The date is a shallow clone's boundary: the true date may be older. Null without a date.
    pub last_commit_bounded: Option<bool>,
    /// Sum of line hits in the body; null when no coverage report covers the file.
    pub test_cov_hits: Option<i64>,
    /// Lines of the body with hits > 0, and lines the report lists at all.
    pub covered_lines: Option<i64>,
    pub coverable_lines: Option<i64>,
    pub calls_num: i64,
    pub dep_num: i64,
    /// `project`, `same_package`, `same_file`, `stdlib` or `none` (YABLoCo's rule).
    pub category: &'static str,
    /// The body holds a syntax error (tree-sitter could not parse part of it).
    pub syntax_error: bool,
    /// The filter rule that kept this function out of the CSN and YABLoCo shapes.
    pub dropped_by: Option<&'static str>,
    /// The keeper's id when the function is in a duplicate cluster (the keeper included).
    pub cluster_id: Option<u64>,
    /// The keeper's id when dedup removed this function from the CSN and YABLoCo shapes.
    pub duplicate_of: Option<u64>,
    /// The SPDX expression of the file's license (its own header, else the nearest folder's
    /// license files and manifests); null when none was found.
    pub license: Option<Arc<str>>,
    /// `benchmark:item_id` of the benchmark item this function copies (`--decontaminate`);
    /// null when it copies none or the option is off.
    pub contaminated_by: Option<String>,
    /// The ids of the tests that executed at least one of its lines, sorted (`mine
    /// --run-tests`); null when the tests were not run or did not measure its file. Shared
    /// by the rows of a repository.
    pub covering_tests: Option<Vec<Arc<str>>>,
}

pub struct NodesTable {
    id: UInt64Builder,
    strings: [StringBuilder; 6],
    lines: [Int64Builder; 2],
    docstring: StringBuilder,
    code_length: Int64Builder,
    last_commit: TimestampMillisecondBuilder,
    last_commit_sha: StringBuilder,
    last_commit_bounded: BooleanBuilder,
    coverage: [Int64Builder; 3],
    calls: [Int64Builder; 2],
    category: StringBuilder,
    syntax_error: BooleanBuilder,
    dropped_by: StringBuilder,
    clusters: [UInt64Builder; 2],
    license: StringBuilder,
    contaminated_by: StringBuilder,
    side_score: Float32Builder,
    covering_tests: ListBuilder<StringBuilder>,
    rows: usize,
    bytes: usize,
}

impl Default for NodesTable {
    fn default() -> Self {
        Self {
            id: Default::default(),
            strings: Default::default(),
            lines: Default::default(),
            docstring: Default::default(),
            code_length: Default::default(),
            last_commit: Default::default(),
            last_commit_sha: Default::default(),
            last_commit_bounded: Default::default(),
            coverage: Default::default(),
            calls: Default::default(),
            category: Default::default(),
            syntax_error: Default::default(),
            dropped_by: Default::default(),
            clusters: Default::default(),
            license: Default::default(),
            contaminated_by: Default::default(),
            side_score: Default::default(),
            covering_tests: ListBuilder::new(StringBuilder::new()),
            rows: 0,
            bytes: 0,
        }
    }
}

impl Table for NodesTable {
    type Row = NodeRow;

    fn schema() -> SchemaRef {
        NODES.clone()
    }

    fn push(&mut self, r: &NodeRow) {
        self.id.append_value(r.id);
        let strings: [&str; 6] = [
            &r.repository,
            &r.path,
            &r.name,
            &r.qualified_name,
            r.language,
            r.kind,
        ];
        for (b, v) in self.strings.iter_mut().zip(strings) {
            b.append_value(v);
            self.bytes += v.len();
        }
        self.lines[0].append_value(r.start_line);
        self.lines[1].append_value(r.end_line);
        self.docstring.append_option(r.docstring.as_deref());
        self.code_length.append_value(r.code_length);
        self.last_commit
            .append_option(r.last_commit.map(|t| t.saturating_mul(1000)));
        self.last_commit_sha
            .append_option(r.last_commit_sha.as_deref());
        self.last_commit_bounded
            .append_option(r.last_commit_bounded);
        self.coverage[0].append_option(r.test_cov_hits);
        self.coverage[1].append_option(r.covered_lines);
        self.coverage[2].append_option(r.coverable_lines);
        self.calls[0].append_value(r.calls_num);
        self.calls[1].append_value(r.dep_num);
        self.category.append_value(r.category);
        self.syntax_error.append_value(r.syntax_error);
        self.dropped_by.append_option(r.dropped_by);
        self.clusters[0].append_option(r.cluster_id);
        self.clusters[1].append_option(r.duplicate_of);
        self.license.append_option(r.license.as_deref());
        self.contaminated_by
            .append_option(r.contaminated_by.as_deref());
        self.side_score.append_null();
        self.bytes += append_tests(&mut self.covering_tests, r.covering_tests.as_deref());
        self.bytes += r.docstring.as_ref().map_or(0, String::len) + 80;
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
        cols.push(Arc::new(self.docstring.finish()));
        cols.push(Arc::new(self.code_length.finish()));
        cols.push(Arc::new(self.last_commit.finish().with_timezone("UTC")));
        cols.push(Arc::new(self.last_commit_sha.finish()));
        cols.push(Arc::new(self.last_commit_bounded.finish()));
        cols.extend(shard::finish_each(&mut self.coverage));
        cols.extend(shard::finish_each(&mut self.calls));
        cols.push(Arc::new(self.category.finish()));
        cols.push(Arc::new(self.syntax_error.finish()));
        cols.push(Arc::new(self.dropped_by.finish()));
        cols.extend(shard::finish_each(&mut self.clusters));
        cols.push(Arc::new(self.license.finish()));
        cols.push(Arc::new(self.contaminated_by.finish()));
        cols.push(Arc::new(self.side_score.finish()));
        cols.push(Arc::new(self.covering_tests.finish()));
        self.rows = 0;
        self.bytes = 0;
        RecordBatch::try_new(Self::schema(), cols)
    }

    fn writer_properties() -> WriterProperties {
        let mut b = shard::base_properties();
        for col in [
            "name",
            "qualified_name",
            "docstring",
            "id",
            "cluster_id",
            "duplicate_of",
        ] {
            b = b.set_column_dictionary_enabled(ColumnPath::from(col), false);
        }
        b.build()
    }
}

static EDGES: LazyLock<SchemaRef> = LazyLock::new(|| {
    Arc::new(Schema::new(vec![
        Field::new("repository", DataType::Utf8, false),
        Field::new("caller_id", DataType::UInt64, false),
        Field::new("callee_id", DataType::UInt64, true),
        Field::new("callee_name", DataType::Utf8, false),
        Field::new("category", DataType::Utf8, false),
        Field::new("line", DataType::Int64, false),
        Field::new("candidates", DataType::Int64, false),
        Field::new("via_macro", DataType::Utf8, true),
        // `value_flow` for an edge only Python's value-flow analysis found; null otherwise.
        Field::new("via", DataType::Utf8, true),
    ]))
});

/// One call site.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EdgeRow {
    /// Shared by the rows of a repository.
    pub repository: Arc<str>,
    pub caller_id: u64,
    /// The called function when it is in the repository.
    pub callee_id: Option<u64>,
    /// The callee as written at the call site.
    pub callee_name: String,
    /// `stdlib`, `same_file`, `same_package`, `project`, `external_binaries`, `macro`,
    /// `unresolved`.
    pub category: &'static str,
    /// 1-based line of the call.
    pub line: i64,
    /// Definitions that fitted equally well; more than 1 means the pick was ambiguous.
    pub candidates: i64,
    /// The macro whose expansion makes this call (C, C++), if any.
    pub via_macro: Option<String>,
    /// `value_flow` when only a value-flow analysis found the callee (Python); else null.
    pub via: Option<&'static str>,
}

#[derive(Default)]
pub struct EdgesTable {
    repository: StringBuilder,
    caller: UInt64Builder,
    callee: UInt64Builder,
    name: StringBuilder,
    category: StringBuilder,
    line: Int64Builder,
    candidates: Int64Builder,
    via_macro: StringBuilder,
    via: StringBuilder,
    rows: usize,
    bytes: usize,
}

impl Table for EdgesTable {
    type Row = EdgeRow;

    fn schema() -> SchemaRef {
        EDGES.clone()
    }

    fn push(&mut self, r: &EdgeRow) {
        self.repository.append_value(&r.repository);
        self.caller.append_value(r.caller_id);
        self.callee.append_option(r.callee_id);
        self.name.append_value(&r.callee_name);
        self.category.append_value(r.category);
        self.line.append_value(r.line);
        self.candidates.append_value(r.candidates);
        self.via_macro.append_option(r.via_macro.as_deref());
        self.via.append_option(r.via);
        self.bytes += r.callee_name.len() + 48;
        self.rows += 1;
    }

    fn len(&self) -> usize {
        self.rows
    }

    fn buffered_bytes(&self) -> usize {
        self.bytes
    }

    fn finish(&mut self) -> Result<RecordBatch, arrow_schema::ArrowError> {
        let cols: Vec<ArrayRef> = vec![
            Arc::new(self.repository.finish()),
            Arc::new(self.caller.finish()),
            Arc::new(self.callee.finish()),
            Arc::new(self.name.finish()),
            Arc::new(self.category.finish()),
            Arc::new(self.line.finish()),
            Arc::new(self.candidates.finish()),
            Arc::new(self.via_macro.finish()),
            Arc::new(self.via.finish()),
        ];
        self.rows = 0;
        self.bytes = 0;
        RecordBatch::try_new(Self::schema(), cols)
    }

    fn writer_properties() -> WriterProperties {
        shard::base_properties()
            .set_column_dictionary_enabled(ColumnPath::from("caller_id"), false)
            .set_column_dictionary_enabled(ColumnPath::from("callee_id"), false)
            .build()
    }
}
