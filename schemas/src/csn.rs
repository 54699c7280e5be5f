//! The CodeSearchNet shape: one row per function with a docstring, with exactly the field
//! names and types of the published dataset (docs/design.md, "CodeSearchNet shape").

use std::sync::{Arc, LazyLock};

use arrow_array::builder::{ListBuilder, StringBuilder};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use parquet::file::properties::WriterProperties;
use parquet::schema::types::ColumnPath;

use crate::{shard, Split, Table};

pub const REPO: &str = "repo";
pub const PATH: &str = "path";
pub const FUNC_NAME: &str = "func_name";
pub const ORIGINAL_STRING: &str = "original_string";
pub const LANGUAGE: &str = "language";
pub const CODE: &str = "code";
pub const CODE_TOKENS: &str = "code_tokens";
pub const DOCSTRING: &str = "docstring";
pub const DOCSTRING_TOKENS: &str = "docstring_tokens";
pub const SHA: &str = "sha";
pub const URL: &str = "url";
pub const PARTITION: &str = "partition";

/// Field order of the published CodeSearchNet jsonl files.
pub const FIELDS: [&str; 12] = [
    REPO,
    PATH,
    FUNC_NAME,
    ORIGINAL_STRING,
    LANGUAGE,
    CODE,
    CODE_TOKENS,
    DOCSTRING,
    DOCSTRING_TOKENS,
    SHA,
    URL,
    PARTITION,
];

static SCHEMA: LazyLock<SchemaRef> = LazyLock::new(|| {
    let list = || DataType::List(Arc::new(Field::new("item", DataType::Utf8, true)));
    let fields = FIELDS.iter().map(|&name| match name {
        CODE_TOKENS | DOCSTRING_TOKENS => Field::new(name, list(), false),
        _ => Field::new(name, DataType::Utf8, false),
    });
    Arc::new(Schema::new(fields.collect::<Vec<_>>()))
});

/// The CodeSearchNet fields and `side_score` (Float32, nullable), the shape of the CSN rows
/// of a run with a SIDE model; without one the CSN shape is exactly [`FIELDS`].
pub fn scored_schema() -> SchemaRef {
    static SCORED: LazyLock<SchemaRef> = LazyLock::new(|| {
        let mut fields: Vec<Field> = SCHEMA.fields().iter().map(|f| f.as_ref().clone()).collect();
        fields.push(Field::new(
            crate::callgraph::SIDE_SCORE,
            DataType::Float32,
            true,
        ));
        Arc::new(Schema::new(fields))
    });
    SCORED.clone()
}

/// The CSN shape of a run: the CodeSearchNet fields, then `side_score` with a SIDE model,
/// then `docstring_params` with `mine --docstring-params`
/// ([`crate::docstring_params`]); neither, exactly [`FIELDS`].
pub fn shape(scored: bool, params: bool) -> SchemaRef {
    let base = if scored {
        scored_schema()
    } else {
        SCHEMA.clone()
    };
    match params {
        true => crate::docstring_params::with_field(&base),
        false => base,
    }
}

/// CSN rows with their docstring's parts (`mine --docstring-params`): the staged CSN
/// shape of such a run, [`FIELDS`] then `docstring_params`.
#[derive(Default)]
pub struct CsnParamsTable {
    inner: CsnTable,
    params: crate::docstring_params::DocstringParamsBuilder,
    bytes: usize,
}

impl Table for CsnParamsTable {
    type Row = (CsnRow, Option<codemine_docstring::DocstringParams>);

    fn schema() -> SchemaRef {
        static WITH: LazyLock<SchemaRef> = LazyLock::new(|| shape(false, true));
        WITH.clone()
    }

    fn push(&mut self, (row, params): &Self::Row) {
        self.inner.push(row);
        self.bytes += self.params.append(params.as_ref());
    }

    fn len(&self) -> usize {
        self.inner.len()
    }

    fn buffered_bytes(&self) -> usize {
        self.inner.buffered_bytes() + self.bytes
    }

    fn finish(&mut self) -> Result<RecordBatch, arrow_schema::ArrowError> {
        let inner = self.inner.finish()?;
        let mut cols = inner.columns().to_vec();
        cols.push(Arc::new(self.params.finish()?));
        self.bytes = 0;
        RecordBatch::try_new(Self::schema(), cols)
    }

    fn writer_properties() -> WriterProperties {
        CsnTable::writer_properties()
    }
}

/// CSN rows with their SIDE score ([`scored_schema`]).
#[derive(Default)]
pub struct ScoredCsnTable {
    inner: CsnTable,
    scores: arrow_array::builder::Float32Builder,
}

impl Table for ScoredCsnTable {
    type Row = (Option<f32>, CsnRow);

    fn schema() -> SchemaRef {
        scored_schema()
    }

    fn push(&mut self, (score, row): &(Option<f32>, CsnRow)) {
        self.inner.push(row);
        self.scores.append_option(*score);
    }

    fn len(&self) -> usize {
        self.inner.len()
    }

    fn buffered_bytes(&self) -> usize {
        self.inner.buffered_bytes() + self.inner.len() * 4
    }

    fn finish(&mut self) -> Result<RecordBatch, arrow_schema::ArrowError> {
        let inner = self.inner.finish()?;
        let mut cols = inner.columns().to_vec();
        cols.push(Arc::new(self.scores.finish()));
        RecordBatch::try_new(Self::schema(), cols)
    }

    fn writer_properties() -> WriterProperties {
        CsnTable::writer_properties()
    }
}

/// One CodeSearchNet row. `code` is written from `original_string` (they are the same text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CsnRow {
    pub repo: String,
    pub path: String,
    pub func_name: String,
    pub original_string: String,
    pub language: String,
    pub code_tokens: crate::tokens::Tokens,
    pub docstring: String,
    pub docstring_tokens: Vec<String>,
    pub sha: String,
    pub url: String,
    pub partition: Split,
}

/// Arrow builders for a batch of [`CsnRow`]s.
pub struct CsnTable {
    strings: [StringBuilder; 10],
    code_tokens: ListBuilder<StringBuilder>,
    docstring_tokens: ListBuilder<StringBuilder>,
    rows: usize,
    bytes: usize,
}

impl Default for CsnTable {
    fn default() -> Self {
        Self {
            strings: std::array::from_fn(|_| StringBuilder::new()),
            code_tokens: ListBuilder::new(StringBuilder::new()),
            docstring_tokens: ListBuilder::new(StringBuilder::new()),
            rows: 0,
            bytes: 0,
        }
    }
}

fn push_tokens<'a>(
    b: &mut ListBuilder<StringBuilder>,
    tokens: impl IntoIterator<Item = &'a str>,
) -> usize {
    let mut bytes = 0;
    for t in tokens {
        b.values().append_value(t);
        bytes += t.len() + 4;
    }
    b.append(true);
    bytes
}

impl Table for CsnTable {
    type Row = CsnRow;

    fn schema() -> SchemaRef {
        SCHEMA.clone()
    }

    fn push(&mut self, r: &CsnRow) {
        // The order of `strings` is the order of the string fields in FIELDS.
        let values = [
            r.repo.as_str(),
            &r.path,
            &r.func_name,
            &r.original_string,
            &r.language,
            &r.original_string,
            &r.docstring,
            &r.sha,
            &r.url,
            r.partition.as_str(),
        ];
        for (b, v) in self.strings.iter_mut().zip(values) {
            b.append_value(v);
            self.bytes += v.len();
        }
        self.bytes += push_tokens(&mut self.code_tokens, r.code_tokens.iter());
        self.bytes += push_tokens(
            &mut self.docstring_tokens,
            r.docstring_tokens.iter().map(String::as_str),
        );
        self.rows += 1;
    }

    fn len(&self) -> usize {
        self.rows
    }

    fn buffered_bytes(&self) -> usize {
        self.bytes
    }

    fn finish(&mut self) -> Result<RecordBatch, arrow_schema::ArrowError> {
        let mut s = shard::finish_each(&mut self.strings);
        let mut next = || s.next().expect("ten string builders");
        let (repo, path, func_name, original, language, code) =
            (next(), next(), next(), next(), next(), next());
        let (docstring, sha, url, partition) = (next(), next(), next(), next());
        let columns: Vec<ArrayRef> = vec![
            repo,
            path,
            func_name,
            original,
            language,
            code,
            Arc::new(self.code_tokens.finish()),
            docstring,
            Arc::new(self.docstring_tokens.finish()),
            sha,
            url,
            partition,
        ];
        self.rows = 0;
        self.bytes = 0;
        RecordBatch::try_new(Self::schema(), columns)
    }

    fn writer_properties() -> WriterProperties {
        // Dictionary encoding only pays on the low-cardinality columns; code and docstrings
        // are (nearly) unique, so it is off for them (docs/design.md).
        let mut b = shard::base_properties().set_dictionary_enabled(false);
        for col in [REPO, PATH, LANGUAGE, SHA, PARTITION] {
            b = b.set_column_dictionary_enabled(ColumnPath::from(col), true);
        }
        b.build()
    }
}
