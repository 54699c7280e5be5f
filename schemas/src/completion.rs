//! CodeXGLUE's code-completion shapes (docs/design.md, "Outputs added in the second round"):
//! token level, one row per source file with its `<s> ... </s>` line, written as
//! `completion/token/token-{split}-*.parquet`; line level, one row per cut, as
//! `completion/line/line-{split}-*.parquet`.

use std::sync::{Arc, LazyLock};

use arrow_array::builder::{StringBuilder, UInt32Builder};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use parquet::file::properties::WriterProperties;
use parquet::schema::types::ColumnPath;

use crate::{shard, Split, Table};

/// The shard name prefixes under `completion/` (`token-train-00000-of-00001.parquet`).
pub const TOKEN_PREFIX: &str = "token";
pub const LINE_PREFIX: &str = "line";

/// Columns shared by both tables, in order, after `id` for the line level.
const COMMON: [&str; 5] = ["repo", "path", "sha", "language", "partition"];

static TOKEN_SCHEMA: LazyLock<SchemaRef> = LazyLock::new(|| {
    let mut fields: Vec<Field> = COMMON
        .iter()
        .map(|&n| Field::new(n, DataType::Utf8, false))
        .collect();
    fields.push(Field::new("text", DataType::Utf8, false));
    Arc::new(Schema::new(fields))
});

static LINE_SCHEMA: LazyLock<SchemaRef> = LazyLock::new(|| {
    let mut fields = vec![Field::new("id", DataType::Utf8, false)];
    fields.extend(COMMON.iter().map(|&n| Field::new(n, DataType::Utf8, false)));
    fields.push(Field::new("input", DataType::Utf8, false));
    fields.push(Field::new("gt", DataType::Utf8, false));
    fields.push(Field::new("line", DataType::UInt32, false));
    Arc::new(Schema::new(fields))
});

/// What both rows say about their file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileInfo {
    pub repo: String,
    pub path: String,
    pub sha: String,
    /// `python` or `java`.
    pub language: String,
    pub partition: Split,
}

impl FileInfo {
    fn values(&self) -> [&str; 5] {
        [
            &self.repo,
            &self.path,
            &self.sha,
            &self.language,
            self.partition.as_str(),
        ]
    }
}

/// One file's token-level line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenRow {
    pub file: FileInfo,
    /// `<s> ... </s>`.
    pub text: String,
}

/// One line-level example.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineRow {
    /// A stable id: the file's and the cut's (16 hex digits each, `-` between).
    pub id: String,
    pub file: FileInfo,
    pub input: String,
    pub gt: String,
    /// The 1-based source line of the cut.
    pub line: u32,
}

fn properties() -> WriterProperties {
    let mut b = shard::base_properties().set_dictionary_enabled(false);
    for col in ["repo", "path", "sha", "language", "partition"] {
        b = b.set_column_dictionary_enabled(ColumnPath::from(col), true);
    }
    b.build()
}

/// The token-level table: the file's columns and its line.
pub type TokenTable = shard::StringTable<TokenRow, 6>;

impl shard::StringRow<6> for TokenRow {
    fn schema() -> SchemaRef {
        TOKEN_SCHEMA.clone()
    }

    fn writer_properties() -> WriterProperties {
        properties()
    }

    fn values(&self) -> [&str; 6] {
        let [repo, path, sha, language, partition] = self.file.values();
        [repo, path, sha, language, partition, &self.text]
    }
}

#[derive(Default)]
pub struct LineTable {
    strings: [StringBuilder; 8],
    line: UInt32Builder,
    rows: usize,
    bytes: usize,
}

impl Table for LineTable {
    type Row = LineRow;

    fn schema() -> SchemaRef {
        LINE_SCHEMA.clone()
    }

    fn push(&mut self, r: &LineRow) {
        let values = [r.id.as_str()]
            .into_iter()
            .chain(r.file.values())
            .chain([r.input.as_str(), r.gt.as_str()]);
        for (b, v) in self.strings.iter_mut().zip(values) {
            b.append_value(v);
            self.bytes += v.len();
        }
        self.line.append_value(r.line);
        self.bytes += 4;
        self.rows += 1;
    }

    fn len(&self) -> usize {
        self.rows
    }

    fn buffered_bytes(&self) -> usize {
        self.bytes
    }

    fn finish(&mut self) -> Result<RecordBatch, arrow_schema::ArrowError> {
        let mut columns: Vec<ArrayRef> = shard::finish_each(&mut self.strings).collect();
        columns.push(Arc::new(self.line.finish()));
        self.rows = 0;
        self.bytes = 0;
        RecordBatch::try_new(Self::schema(), columns)
    }

    fn writer_properties() -> WriterProperties {
        properties()
    }
}

/// The properties of the staged tables: rows staged in a run are read back once, by the
/// same run's finalize, so they are written as they are (no compression, no statistics)
/// rather than compressed twice.
fn staged_properties() -> WriterProperties {
    shard::base_properties()
        .set_compression(parquet::basic::Compression::UNCOMPRESSED)
        .set_dictionary_enabled(false)
        .set_statistics_enabled(parquet::file::properties::EnabledStatistics::None)
        .build()
}

/// A table with the staging properties ([`staged_properties`]) and another table's rows.
macro_rules! staged_table {
    ($(#[$doc:meta])* $name:ident, $inner:ty, $row:ty) => {
        $(#[$doc])*
        #[derive(Default)]
        pub struct $name($inner);

        impl Table for $name {
            type Row = $row;

            fn schema() -> SchemaRef {
                <$inner>::schema()
            }

            fn push(&mut self, r: &$row) {
                self.0.push(r)
            }

            fn len(&self) -> usize {
                self.0.len()
            }

            fn buffered_bytes(&self) -> usize {
                self.0.buffered_bytes()
            }

            fn finish(&mut self) -> Result<RecordBatch, arrow_schema::ArrowError> {
                self.0.finish()
            }

            fn writer_properties() -> WriterProperties {
                staged_properties()
            }
        }
    };
}

staged_table!(
    /// [`TokenTable`]'s rows as staged.
    StagedTokenTable,
    TokenTable,
    TokenRow
);
staged_table!(
    /// [`LineTable`]'s rows as staged.
    StagedLineTable,
    LineTable,
    LineRow
);
