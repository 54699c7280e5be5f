//! The near-duplicate tables (`DIR/dedup/`) that carry dedup between its steps:
//!
//! - `bands`: one row per (function, LSH band) with the band hash. Functions that share a
//!   band hash are candidate pairs; this is what a distributed engine groups by.
//! - `functions`: per function the exact-duplicate key, its shingle set and the keeper
//!   facts, so candidate pairs can be verified by exact Jaccard and keepers chosen anywhere.
//! - `clusters`: the result, one row per member of a cluster of two or more functions.
//!
//! Each table has a row type, a [`Table`] for [`ShardWriter`](crate::ShardWriter) and a
//! reader that streams rows back from a Parquet file.

use std::path::Path;
use std::sync::{Arc, LazyLock};

use arrow_array::builder::{
    ArrayBuilder, BooleanBuilder, FixedSizeBinaryBuilder, ListBuilder, StringBuilder,
    TimestampMillisecondBuilder, UInt32Builder, UInt64Builder,
};
use arrow_array::cast::AsArray;
use arrow_array::types::{TimestampMillisecondType, UInt32Type, UInt64Type};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::{ArrowError, DataType, Field, Schema, SchemaRef, TimeUnit};
use parquet::file::properties::WriterProperties;

use crate::staged::{column, read_batches};
use crate::{shard, Result, Split, Table};

static BANDS: LazyLock<SchemaRef> = LazyLock::new(|| {
    Arc::new(Schema::new(vec![
        Field::new("id", DataType::UInt64, false),
        Field::new("band", DataType::UInt32, false),
        Field::new("band_hash", DataType::UInt64, false),
    ]))
});

/// One LSH band of one function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BandRow {
    pub id: u64,
    pub band: u32,
    pub band_hash: u64,
}

#[derive(Default)]
pub struct BandsTable {
    id: UInt64Builder,
    band: UInt32Builder,
    hash: UInt64Builder,
}

impl Table for BandsTable {
    type Row = BandRow;

    fn schema() -> SchemaRef {
        BANDS.clone()
    }

    fn push(&mut self, r: &BandRow) {
        self.id.append_value(r.id);
        self.band.append_value(r.band);
        self.hash.append_value(r.band_hash);
    }

    fn len(&self) -> usize {
        self.id.len()
    }

    fn buffered_bytes(&self) -> usize {
        self.id.len() * 20
    }

    fn finish(&mut self) -> Result<RecordBatch, ArrowError> {
        let cols: Vec<ArrayRef> = vec![
            Arc::new(self.id.finish()),
            Arc::new(self.band.finish()),
            Arc::new(self.hash.finish()),
        ];
        RecordBatch::try_new(Self::schema(), cols)
    }

    fn writer_properties() -> WriterProperties {
        // Hashes do not repeat enough for a dictionary to pay.
        shard::base_properties()
            .set_dictionary_enabled(false)
            .build()
    }
}

/// Calls `each` with every row of a bands file, in file order.
pub fn read_bands(path: &Path, mut each: impl FnMut(BandRow)) -> Result<()> {
    for batch in read_batches(path)? {
        let batch = batch?;
        let id = column(&batch, "id", path)?.as_primitive_opt::<UInt64Type>();
        let band = column(&batch, "band", path)?.as_primitive_opt::<UInt32Type>();
        let hash = column(&batch, "band_hash", path)?.as_primitive_opt::<UInt64Type>();
        let (Some(id), Some(band), Some(hash)) = (id, band, hash) else {
            return Err(crate::staged::bad_file(
                path,
                "bands columns of the wrong type",
            ));
        };
        for k in 0..batch.num_rows() {
            each(BandRow {
                id: id.value(k),
                band: band.value(k),
                band_hash: hash.value(k),
            });
        }
    }
    Ok(())
}

static FUNCTIONS: LazyLock<SchemaRef> = LazyLock::new(|| {
    let item = Arc::new(Field::new("item", DataType::UInt64, false));
    Arc::new(Schema::new(vec![
        Field::new("id", DataType::UInt64, false),
        Field::new("exact_hash", DataType::FixedSizeBinary(16), false),
        Field::new("shingles", DataType::List(item), false),
        Field::new("has_docstring", DataType::Boolean, false),
        Field::new(
            "last_commit",
            DataType::Timestamp(TimeUnit::Millisecond, Some("UTC".into())),
            true,
        ),
        Field::new("partition", DataType::Utf8, false),
    ]))
});

/// What clustering needs to know about one function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FunctionRow {
    pub id: u64,
    /// The exact-duplicate key (128-bit hash of the token sequence).
    pub exact_hash: u128,
    /// Sorted shingle hashes; empty when the function is shorter than one shingle.
    pub shingles: Vec<u64>,
    pub has_docstring: bool,
    /// Unix seconds, UTC.
    pub last_commit: Option<i64>,
    pub partition: Split,
}

pub struct FunctionsTable {
    id: UInt64Builder,
    exact: FixedSizeBinaryBuilder,
    shingles: ListBuilder<UInt64Builder>,
    has_docstring: BooleanBuilder,
    last_commit: TimestampMillisecondBuilder,
    partition: StringBuilder,
    bytes: usize,
}

impl Default for FunctionsTable {
    fn default() -> Self {
        let item = Arc::new(Field::new("item", DataType::UInt64, false));
        Self {
            id: UInt64Builder::new(),
            exact: FixedSizeBinaryBuilder::new(16),
            shingles: ListBuilder::new(UInt64Builder::new()).with_field(item),
            has_docstring: BooleanBuilder::new(),
            last_commit: TimestampMillisecondBuilder::new(),
            partition: StringBuilder::new(),
            bytes: 0,
        }
    }
}

impl Table for FunctionsTable {
    type Row = FunctionRow;

    fn schema() -> SchemaRef {
        FUNCTIONS.clone()
    }

    fn push(&mut self, r: &FunctionRow) {
        self.id.append_value(r.id);
        // 16 bytes always fit a FixedSizeBinary(16); the error case cannot occur.
        let _ = self.exact.append_value(r.exact_hash.to_le_bytes());
        self.shingles.values().append_slice(&r.shingles);
        self.shingles.append(true);
        self.has_docstring.append_value(r.has_docstring);
        self.last_commit
            .append_option(r.last_commit.map(|t| t.saturating_mul(1000)));
        self.partition.append_value(r.partition.as_str());
        self.bytes += 48 + r.shingles.len() * 8;
    }

    fn len(&self) -> usize {
        self.id.len()
    }

    fn buffered_bytes(&self) -> usize {
        self.bytes
    }

    fn finish(&mut self) -> Result<RecordBatch, ArrowError> {
        let cols: Vec<ArrayRef> = vec![
            Arc::new(self.id.finish()),
            Arc::new(self.exact.finish()),
            Arc::new(self.shingles.finish()),
            Arc::new(self.has_docstring.finish()),
            Arc::new(self.last_commit.finish().with_timezone("UTC")),
            Arc::new(self.partition.finish()),
        ];
        self.bytes = 0;
        RecordBatch::try_new(Self::schema(), cols)
    }

    fn writer_properties() -> WriterProperties {
        shard::base_properties()
            .set_dictionary_enabled(false)
            .set_column_dictionary_enabled("partition".into(), true)
            .build()
    }
}

/// Calls `each` with every row of a functions file, in file order.
pub fn read_functions(path: &Path, mut each: impl FnMut(FunctionRow)) -> Result<()> {
    let bad = |what: &str| crate::staged::bad_file(path, what);
    for batch in read_batches(path)? {
        let batch = batch?;
        let id = column(&batch, "id", path)?
            .as_primitive_opt::<UInt64Type>()
            .ok_or_else(|| bad("`id` is not uint64"))?;
        let exact = column(&batch, "exact_hash", path)?
            .as_fixed_size_binary_opt()
            .filter(|a| a.value_length() == 16)
            .ok_or_else(|| bad("`exact_hash` is not 16-byte binary"))?;
        let shingles = column(&batch, "shingles", path)?
            .as_list_opt::<i32>()
            .ok_or_else(|| bad("`shingles` is not a list"))?;
        let values = shingles
            .values()
            .as_primitive_opt::<UInt64Type>()
            .ok_or_else(|| bad("`shingles` items are not uint64"))?;
        let doc = column(&batch, "has_docstring", path)?
            .as_boolean_opt()
            .ok_or_else(|| bad("`has_docstring` is not boolean"))?;
        let date = column(&batch, "last_commit", path)?
            .as_primitive_opt::<TimestampMillisecondType>()
            .ok_or_else(|| bad("`last_commit` is not a millisecond timestamp"))?;
        let part = column(&batch, "partition", path)?
            .as_string_opt::<i32>()
            .ok_or_else(|| bad("`partition` is not a string"))?;
        let offsets = shingles.value_offsets();
        for k in 0..batch.num_rows() {
            let mut key = [0u8; 16];
            key.copy_from_slice(exact.value(k));
            let (from, to) = (offsets[k] as usize, offsets[k + 1] as usize);
            each(FunctionRow {
                id: id.value(k),
                exact_hash: u128::from_le_bytes(key),
                shingles: values.values()[from..to].to_vec(),
                has_docstring: doc.value(k),
                last_commit: date.is_valid(k).then(|| date.value(k).div_euclid(1000)),
                partition: Split::parse(part.value(k))
                    .ok_or_else(|| bad(&format!("unknown partition {:?}", part.value(k))))?,
            });
        }
    }
    Ok(())
}

static CLUSTERS: LazyLock<SchemaRef> = LazyLock::new(|| {
    Arc::new(Schema::new(vec![
        Field::new("id", DataType::UInt64, false),
        Field::new("cluster_id", DataType::UInt64, false),
        Field::new("duplicate_of", DataType::UInt64, true),
        Field::new("kind", DataType::Utf8, false),
        Field::new("partition", DataType::Utf8, false),
    ]))
});

/// One member of a duplicate cluster.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusterRow {
    pub id: u64,
    /// The keeper's id.
    pub cluster_id: u64,
    /// The keeper's id for removed members; `None` for the keeper.
    pub duplicate_of: Option<u64>,
    /// `keeper`, `exact` (removed, same tokens as the keeper) or `near` (removed).
    pub kind: String,
    /// The keeper's partition, which every member takes.
    pub partition: Split,
}

#[derive(Default)]
pub struct ClustersTable {
    ids: [UInt64Builder; 2],
    duplicate_of: UInt64Builder,
    strings: [StringBuilder; 2],
}

impl Table for ClustersTable {
    type Row = ClusterRow;

    fn schema() -> SchemaRef {
        CLUSTERS.clone()
    }

    fn push(&mut self, r: &ClusterRow) {
        self.ids[0].append_value(r.id);
        self.ids[1].append_value(r.cluster_id);
        self.duplicate_of.append_option(r.duplicate_of);
        self.strings[0].append_value(&r.kind);
        self.strings[1].append_value(r.partition.as_str());
    }

    fn len(&self) -> usize {
        self.duplicate_of.len()
    }

    fn buffered_bytes(&self) -> usize {
        self.duplicate_of.len() * 40
    }

    fn finish(&mut self) -> Result<RecordBatch, ArrowError> {
        let mut cols: Vec<ArrayRef> = shard::finish_each(&mut self.ids).collect();
        cols.push(Arc::new(self.duplicate_of.finish()));
        cols.extend(shard::finish_each(&mut self.strings));
        RecordBatch::try_new(Self::schema(), cols)
    }

    fn writer_properties() -> WriterProperties {
        shard::base_properties().build()
    }
}

/// Calls `each` with every row of a clusters file, in file order.
pub fn read_clusters(path: &Path, mut each: impl FnMut(ClusterRow)) -> Result<()> {
    let bad = |what: &str| crate::staged::bad_file(path, what);
    for batch in read_batches(path)? {
        let batch = batch?;
        let u64s = |name: &str| {
            column(&batch, name, path)?
                .as_primitive_opt::<UInt64Type>()
                .cloned()
                .ok_or_else(|| bad(&format!("`{name}` is not uint64")))
        };
        let (id, cluster, dup) = (u64s("id")?, u64s("cluster_id")?, u64s("duplicate_of")?);
        let strings = |name: &str| {
            column(&batch, name, path)?
                .as_string_opt::<i32>()
                .cloned()
                .ok_or_else(|| bad(&format!("`{name}` is not a string")))
        };
        let (kind, part) = (strings("kind")?, strings("partition")?);
        for k in 0..batch.num_rows() {
            each(ClusterRow {
                id: id.value(k),
                cluster_id: cluster.value(k),
                duplicate_of: dup.is_valid(k).then(|| dup.value(k)),
                kind: kind.value(k).to_string(),
                partition: Split::parse(part.value(k))
                    .ok_or_else(|| bad(&format!("unknown partition {:?}", part.value(k))))?,
            });
        }
    }
    Ok(())
}
