//! The YABLoCo shape (docs/design.md, "YABLoCo shape"): one row per function, with the prompt
//! inputs (signature, docstring, oracle context), the function's code as the expected output,
//! and the call-graph metadata the benchmark stratifies by.

use std::sync::{Arc, LazyLock};

use arrow_array::builder::{Int64Builder, ListBuilder, StringBuilder, UInt64Builder};
use arrow_array::{ArrayRef, RecordBatch, StructArray};
use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef};
use parquet::file::properties::WriterProperties;

use crate::{shard, Table};

/// The fields of `inputs`, in order.
pub const INPUT_FIELDS: [&str; 4] = ["language", "signature", "docstring", "context"];
/// The string fields of `meta` after `id`, in order.
const META_STRINGS: [&str; 4] = ["original_id", "repository", "fname", "file"];
/// The integer fields of `meta` between `file` and `last_commit`, in order.
const META_COUNTS: [&str; 9] = [
    "calls_num",
    "dep_num",
    "same_file",
    "same_package",
    "project",
    "stdlib",
    "external_binaries",
    "code_length",
    "pos",
];

fn input_fields() -> Fields {
    INPUT_FIELDS
        .iter()
        .map(|n| Field::new(*n, DataType::Utf8, false))
        .collect()
}

fn meta_fields() -> Fields {
    let mut f = vec![Field::new("id", DataType::UInt64, false)];
    f.extend(
        META_STRINGS
            .iter()
            .map(|n| Field::new(*n, DataType::Utf8, false)),
    );
    f.extend(
        META_COUNTS
            .iter()
            .map(|n| Field::new(*n, DataType::Int64, false)),
    );
    f.push(Field::new("last_commit", DataType::Utf8, true));
    f.push(Field::new("test_cov_hits", DataType::Int64, true));
    // Not in YABLoCo's published rows: filled by `mine --run-tests`, null otherwise.
    f.push(Field::new(
        crate::callgraph::COVERING_TESTS,
        crate::callgraph::covering_tests_type(),
        true,
    ));
    f.into()
}

static SCHEMA: LazyLock<SchemaRef> = LazyLock::new(|| {
    Arc::new(Schema::new(vec![
        Field::new("instruction", DataType::Utf8, false),
        Field::new("inputs", DataType::Struct(input_fields()), false),
        Field::new("outputs", DataType::Utf8, false),
        Field::new("meta", DataType::Struct(meta_fields()), false),
    ]))
});

/// One YABLoCo row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YablocoRow {
    /// The same text in every row of a run: shared.
    pub instruction: Arc<str>,
    /// `C`, `C++`, `Python`, `Java`, ...
    pub language: &'static str,
    pub signature: String,
    pub docstring: String,
    pub context: String,
    /// The function's code.
    pub outputs: String,
    pub meta: YablocoMeta,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YablocoMeta {
    pub id: u64,
    pub original_id: String,
    /// Shared by the rows of a repository.
    pub repository: Arc<str>,
    pub fname: String,
    pub file: String,
    /// In the order of the `meta` fields: calls_num, dep_num, same_file, same_package,
    /// project, stdlib, external_binaries, code_length, pos.
    pub counts: [i64; 9],
    /// `dd.mm.YYYY`.
    pub last_commit: Option<String>,
    pub test_cov_hits: Option<i64>,
    /// The tests that execute the function's lines, sorted (`mine --run-tests`).
    pub covering_tests: Option<Vec<Arc<str>>>,
}

pub struct YablocoTable {
    instruction: StringBuilder,
    inputs: [StringBuilder; 4],
    outputs: StringBuilder,
    id: UInt64Builder,
    strings: [StringBuilder; 4],
    counts: [Int64Builder; 9],
    last_commit: StringBuilder,
    test_cov_hits: Int64Builder,
    covering_tests: ListBuilder<StringBuilder>,
    rows: usize,
    bytes: usize,
}

impl Default for YablocoTable {
    fn default() -> Self {
        Self {
            instruction: StringBuilder::new(),
            inputs: std::array::from_fn(|_| StringBuilder::new()),
            outputs: StringBuilder::new(),
            id: UInt64Builder::new(),
            strings: std::array::from_fn(|_| StringBuilder::new()),
            counts: std::array::from_fn(|_| Int64Builder::new()),
            last_commit: StringBuilder::new(),
            test_cov_hits: Int64Builder::new(),
            covering_tests: ListBuilder::new(StringBuilder::new()),
            rows: 0,
            bytes: 0,
        }
    }
}

impl Table for YablocoTable {
    type Row = YablocoRow;

    fn schema() -> SchemaRef {
        SCHEMA.clone()
    }

    fn push(&mut self, r: &YablocoRow) {
        self.instruction.append_value(&r.instruction);
        let inputs: [&str; 4] = [r.language, &r.signature, &r.docstring, &r.context];
        for (b, v) in self.inputs.iter_mut().zip(inputs) {
            b.append_value(v);
            self.bytes += v.len();
        }
        self.outputs.append_value(&r.outputs);
        let m = &r.meta;
        self.id.append_value(m.id);
        for (b, v) in self.strings.iter_mut().zip::<[&str; 4]>([
            &m.original_id,
            &m.repository,
            &m.fname,
            &m.file,
        ]) {
            b.append_value(v);
            self.bytes += v.len();
        }
        for (b, v) in self.counts.iter_mut().zip(m.counts) {
            b.append_value(v);
        }
        self.last_commit.append_option(m.last_commit.as_deref());
        self.test_cov_hits.append_option(m.test_cov_hits);
        self.bytes +=
            crate::callgraph::append_tests(&mut self.covering_tests, m.covering_tests.as_deref());
        self.bytes += r.instruction.len() + r.outputs.len() + 100;
        self.rows += 1;
    }

    fn len(&self) -> usize {
        self.rows
    }

    fn buffered_bytes(&self) -> usize {
        self.bytes
    }

    fn finish(&mut self) -> Result<RecordBatch, arrow_schema::ArrowError> {
        let inputs: Vec<ArrayRef> = shard::finish_each(&mut self.inputs).collect();
        let inputs = StructArray::try_new(input_fields(), inputs, None)?;
        let mut meta: Vec<ArrayRef> = vec![Arc::new(self.id.finish())];
        meta.extend(shard::finish_each(&mut self.strings));
        meta.extend(shard::finish_each(&mut self.counts));
        meta.push(Arc::new(self.last_commit.finish()));
        meta.push(Arc::new(self.test_cov_hits.finish()));
        meta.push(Arc::new(self.covering_tests.finish()));
        let meta = StructArray::try_new(meta_fields(), meta, None)?;
        self.rows = 0;
        self.bytes = 0;
        RecordBatch::try_new(
            Self::schema(),
            vec![
                Arc::new(self.instruction.finish()),
                Arc::new(inputs),
                Arc::new(self.outputs.finish()),
                Arc::new(meta),
            ],
        )
    }

    fn writer_properties() -> WriterProperties {
        // Code, docstrings and contexts are (nearly) unique: no dictionaries (docs/design.md).
        shard::base_properties()
            .set_dictionary_enabled(false)
            .build()
    }
}
