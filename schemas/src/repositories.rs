//! The repositories table (docs/design.md, "Outputs added in the second round"): one row per
//! mined repository with its license at the mined commit, `repositories/data-*.parquet`.

use std::sync::{Arc, LazyLock};

use arrow_array::builder::{Float32Builder, StringBuilder};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use parquet::file::properties::WriterProperties;

use crate::{shard, Table};

static SCHEMA: LazyLock<SchemaRef> = LazyLock::new(|| {
    Arc::new(Schema::new(vec![
        Field::new("repo", DataType::Utf8, false),
        Field::new("url", DataType::Utf8, false),
        Field::new("sha", DataType::Utf8, true),
        Field::new("license", DataType::Utf8, true),
        Field::new("confidence", DataType::Float32, true),
        Field::new("license_file", DataType::Utf8, true),
    ]))
});

/// One mined repository.
#[derive(Debug, Clone, PartialEq)]
pub struct RepositoryRow {
    pub repo: String,
    /// The location as given, credentials removed (a local path for local repositories).
    pub url: String,
    /// Null for a plain folder.
    pub sha: Option<String>,
    /// The SPDX expression of the root folder's license files and manifests.
    pub license: Option<String>,
    /// The license-text match score (0-1; 1 for a declared expression).
    pub confidence: Option<f32>,
    /// The file the license comes from.
    pub license_file: Option<String>,
}

#[derive(Default)]
pub struct RepositoriesTable {
    strings: [StringBuilder; 2],
    sha: StringBuilder,
    license: StringBuilder,
    confidence: Float32Builder,
    license_file: StringBuilder,
    rows: usize,
    bytes: usize,
}

impl Table for RepositoriesTable {
    type Row = RepositoryRow;

    fn schema() -> SchemaRef {
        SCHEMA.clone()
    }

    fn push(&mut self, r: &RepositoryRow) {
        self.strings[0].append_value(&r.repo);
        self.strings[1].append_value(&r.url);
        self.sha.append_option(r.sha.as_deref());
        self.license.append_option(r.license.as_deref());
        self.confidence.append_option(r.confidence);
        self.license_file.append_option(r.license_file.as_deref());
        self.bytes += r.repo.len() + r.url.len() + 120;
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
        cols.push(Arc::new(self.sha.finish()));
        cols.push(Arc::new(self.license.finish()));
        cols.push(Arc::new(self.confidence.finish()));
        cols.push(Arc::new(self.license_file.finish()));
        self.rows = 0;
        self.bytes = 0;
        RecordBatch::try_new(Self::schema(), cols)
    }

    fn writer_properties() -> WriterProperties {
        shard::base_properties().build()
    }
}
