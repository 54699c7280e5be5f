//! Repository-level completion (docs/design.md, "Outputs added in the second round"): one row per
//! chosen cursor position, with the file's text around it, the definitions of other files
//! the line needs (`gold_context`) and what two retrievers find (`retrieved_context`),
//! written as `completion/repo/repo-{split}-*.parquet`; and, with `--completion-snapshot`, the
//! files of each mined snapshot as `completion/snapshot/snapshot-{split}-*.parquet`.

use std::sync::{Arc, LazyLock};

use arrow_array::builder::{
    ArrayBuilder, Float64Builder, ListBuilder, StringBuilder, StructBuilder, UInt32Builder,
};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef};
use parquet::file::properties::WriterProperties;
use parquet::schema::types::ColumnPath;

use crate::{shard, Split, Table};

/// The shard name prefixes under `completion/`.
pub const REPO_PREFIX: &str = "repo";
pub const SNAPSHOT_PREFIX: &str = "snapshot";

fn gold_fields() -> Fields {
    Fields::from(vec![
        Field::new("path", DataType::Utf8, false),
        Field::new("name", DataType::Utf8, false),
        Field::new("start_line", DataType::UInt32, false),
        Field::new("end_line", DataType::UInt32, false),
        Field::new("code", DataType::Utf8, false),
    ])
}

fn retrieved_fields() -> Fields {
    Fields::from(vec![
        Field::new("retriever", DataType::Utf8, false),
        Field::new("rank", DataType::UInt32, false),
        Field::new("path", DataType::Utf8, false),
        Field::new("start_line", DataType::UInt32, false),
        Field::new("end_line", DataType::UInt32, false),
        Field::new("code", DataType::Utf8, false),
        Field::new("score", DataType::Float64, false),
    ])
}

/// The file columns, in order, after `id`.
const FILE_COLUMNS: [&str; 5] = ["repo", "sha", "path", "language", "partition"];

static REPO_SCHEMA: LazyLock<SchemaRef> = LazyLock::new(|| {
    let mut fields = vec![Field::new("id", DataType::Utf8, false)];
    fields.extend(
        FILE_COLUMNS
            .iter()
            .map(|&n| Field::new(n, DataType::Utf8, false)),
    );
    fields.push(Field::new("line", DataType::UInt32, false));
    for n in ["prefix", "suffix", "gt", "kind"] {
        fields.push(Field::new(n, DataType::Utf8, false));
    }
    fields.push(Field::new(
        "gold_context",
        DataType::List(Arc::new(Field::new(
            "item",
            DataType::Struct(gold_fields()),
            true,
        ))),
        false,
    ));
    fields.push(Field::new(
        "retrieved_context",
        DataType::List(Arc::new(Field::new(
            "item",
            DataType::Struct(retrieved_fields()),
            true,
        ))),
        false,
    ));
    Arc::new(Schema::new(fields))
});

static SNAPSHOT_SCHEMA: LazyLock<SchemaRef> = LazyLock::new(|| {
    let mut fields: Vec<Field> = FILE_COLUMNS
        .iter()
        .map(|&n| Field::new(n, DataType::Utf8, false))
        .collect();
    fields.push(Field::new("content", DataType::Utf8, false));
    Arc::new(Schema::new(fields))
});

/// The file of a row: repository, commit, path, language and partition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepoFile {
    pub repo: String,
    pub sha: String,
    pub path: String,
    pub language: String,
    pub partition: Split,
}

impl RepoFile {
    fn values(&self) -> [&str; 5] {
        [
            &self.repo,
            &self.sha,
            &self.path,
            &self.language,
            self.partition.as_str(),
        ]
    }
}

/// A definition in another file that a line needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GoldItem {
    pub path: String,
    /// The qualified name (`Class.method`).
    pub name: String,
    pub start_line: u32,
    pub end_line: u32,
    pub code: String,
}

/// A chunk a retriever returned.
#[derive(Debug, Clone, PartialEq)]
pub struct RetrievedItem {
    /// `bm25` or `jaccard`.
    pub retriever: &'static str,
    /// 1-based.
    pub rank: u32,
    pub path: String,
    pub start_line: u32,
    pub end_line: u32,
    pub code: String,
    pub score: f64,
}

/// One repository-level completion example.
#[derive(Debug, Clone, PartialEq)]
pub struct RepoRow {
    pub id: String,
    pub file: RepoFile,
    /// 1-based line of the cursor.
    pub line: u32,
    pub prefix: String,
    pub suffix: String,
    pub gt: String,
    pub kind: &'static str,
    pub gold: Vec<GoldItem>,
    pub retrieved: Vec<RetrievedItem>,
}

/// One file of a mined snapshot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotRow {
    pub file: RepoFile,
    pub content: String,
}

fn properties() -> WriterProperties {
    let mut b = shard::base_properties().set_dictionary_enabled(false);
    for col in ["repo", "sha", "path", "language", "partition", "kind"] {
        b = b.set_column_dictionary_enabled(ColumnPath::from(col), true);
    }
    b.build()
}

pub struct RepoTable {
    strings: [StringBuilder; 6],
    line: UInt32Builder,
    text: [StringBuilder; 4],
    gold: ListBuilder<StructBuilder>,
    retrieved: ListBuilder<StructBuilder>,
    rows: usize,
    bytes: usize,
}

impl Default for RepoTable {
    fn default() -> Self {
        let list = |fields: Fields| {
            let f = Field::new("item", DataType::Struct(fields.clone()), true);
            ListBuilder::new(StructBuilder::from_fields(fields, 0)).with_field(Arc::new(f))
        };
        Self {
            strings: Default::default(),
            line: UInt32Builder::new(),
            text: Default::default(),
            gold: list(gold_fields()),
            retrieved: list(retrieved_fields()),
            rows: 0,
            bytes: 0,
        }
    }
}

/// Appends a value to field `i` of a struct builder of known field types.
fn string_at(s: &mut StructBuilder, i: usize, v: &str) {
    if let Some(b) = s.field_builder::<StringBuilder>(i) {
        b.append_value(v);
    }
}

fn u32_at(s: &mut StructBuilder, i: usize, v: u32) {
    if let Some(b) = s.field_builder::<UInt32Builder>(i) {
        b.append_value(v);
    }
}

impl Table for RepoTable {
    type Row = RepoRow;

    fn schema() -> SchemaRef {
        REPO_SCHEMA.clone()
    }

    fn push(&mut self, r: &RepoRow) {
        let values = [r.id.as_str()].into_iter().chain(r.file.values());
        for (b, v) in self.strings.iter_mut().zip(values) {
            b.append_value(v);
            self.bytes += v.len();
        }
        self.line.append_value(r.line);
        for (b, v) in self
            .text
            .iter_mut()
            .zip([&*r.prefix, &*r.suffix, &*r.gt, r.kind])
        {
            b.append_value(v);
            self.bytes += v.len();
        }
        let s = self.gold.values();
        for g in &r.gold {
            string_at(s, 0, &g.path);
            string_at(s, 1, &g.name);
            u32_at(s, 2, g.start_line);
            u32_at(s, 3, g.end_line);
            string_at(s, 4, &g.code);
            s.append(true);
            self.bytes += g.path.len() + g.name.len() + g.code.len() + 8;
        }
        self.gold.append(true);
        let s = self.retrieved.values();
        for c in &r.retrieved {
            string_at(s, 0, c.retriever);
            u32_at(s, 1, c.rank);
            string_at(s, 2, &c.path);
            u32_at(s, 3, c.start_line);
            u32_at(s, 4, c.end_line);
            string_at(s, 5, &c.code);
            if let Some(b) = s.field_builder::<Float64Builder>(6) {
                b.append_value(c.score);
            }
            s.append(true);
            self.bytes += c.path.len() + c.code.len() + 24;
        }
        self.retrieved.append(true);
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
        columns.extend(shard::finish_each(&mut self.text));
        columns.push(Arc::new(ArrayBuilder::finish(&mut self.gold)));
        columns.push(Arc::new(ArrayBuilder::finish(&mut self.retrieved)));
        self.rows = 0;
        self.bytes = 0;
        RecordBatch::try_new(Self::schema(), columns)
    }

    fn writer_properties() -> WriterProperties {
        properties()
    }
}

/// The snapshot table: the file's columns and its content.
pub type SnapshotTable = shard::StringTable<SnapshotRow, 6>;

impl shard::StringRow<6> for SnapshotRow {
    fn schema() -> SchemaRef {
        SNAPSHOT_SCHEMA.clone()
    }

    fn writer_properties() -> WriterProperties {
        properties()
    }

    fn values(&self) -> [&str; 6] {
        let [repo, sha, path, language, partition] = self.file.values();
        [repo, sha, path, language, partition, &self.content]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_with_lists_makes_a_batch_of_the_schema() {
        let mut t = RepoTable::default();
        let file = RepoFile {
            repo: "o/r".into(),
            sha: "abc".into(),
            path: "a.py".into(),
            language: "python".into(),
            partition: Split::Test,
        };
        t.push(&RepoRow {
            id: "x".into(),
            file: file.clone(),
            line: 3,
            prefix: "p".into(),
            suffix: "s".into(),
            gt: "g".into(),
            kind: "in_file",
            gold: vec![GoldItem {
                path: "b.py".into(),
                name: "f".into(),
                start_line: 1,
                end_line: 2,
                code: "def f(): pass".into(),
            }],
            retrieved: vec![],
        });
        t.push(&RepoRow {
            id: "y".into(),
            file,
            line: 4,
            prefix: String::new(),
            suffix: String::new(),
            gt: "h".into(),
            kind: "in_file",
            gold: vec![],
            retrieved: vec![RetrievedItem {
                retriever: "bm25",
                rank: 1,
                path: "c.py".into(),
                start_line: 1,
                end_line: 10,
                code: "x".into(),
                score: 1.5,
            }],
        });
        let b = t.finish().expect("batch");
        assert_eq!(b.num_rows(), 2);
        assert_eq!(b.schema(), RepoTable::schema());
    }
}
