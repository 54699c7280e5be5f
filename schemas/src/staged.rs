//! Staged tables: rows written while repositories are mined, before dedup has decided
//! which functions stay, and the transforms that turn them into the final tables.
//!
//! A staged CSN row carries its function id ([`Keyed`]); YABLoCo rows and call-graph nodes
//! carry it already. Finalizing reads the staged batches back and, per row, drops removed
//! functions, moves cluster members to their keeper's partition ([`Decision`]) and fills
//! the nodes' `cluster_id` and `duplicate_of`, without going back to row structs.

use std::fs::File;
use std::path::Path;
use std::sync::Arc;

use arrow_array::builder::{ArrayBuilder, StringBuilder, UInt64Builder};
use arrow_array::cast::AsArray;
use arrow_array::types::UInt64Type;
use arrow_array::{ArrayRef, BooleanArray, RecordBatch, UInt64Array};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use parquet::arrow::arrow_reader::{ParquetRecordBatchReader, ParquetRecordBatchReaderBuilder};
use parquet::file::properties::WriterProperties;

use crate::{csn, Error, Result, Split, Table};

/// The id column that [`Keyed`] adds.
pub const FUNCTION_ID: &str = "function_id";

/// A table whose rows carry their function's id in an extra last column, `function_id`.
#[derive(Default)]
pub struct Keyed<T: Table> {
    inner: T,
    ids: UInt64Builder,
}

impl<T: Table> Table for Keyed<T> {
    type Row = (u64, T::Row);

    fn schema() -> SchemaRef {
        let mut fields: Vec<Field> = T::schema()
            .fields()
            .iter()
            .map(|f| f.as_ref().clone())
            .collect();
        fields.push(Field::new(FUNCTION_ID, DataType::UInt64, false));
        Arc::new(Schema::new(fields))
    }

    fn push(&mut self, (id, row): &(u64, T::Row)) {
        self.inner.push(row);
        self.ids.append_value(*id);
    }

    fn len(&self) -> usize {
        self.inner.len()
    }

    fn buffered_bytes(&self) -> usize {
        self.inner.buffered_bytes() + self.ids.len() * 8
    }

    fn finish(&mut self) -> Result<RecordBatch, arrow_schema::ArrowError> {
        let inner = self.inner.finish()?;
        let mut cols = inner.columns().to_vec();
        cols.push(Arc::new(self.ids.finish()));
        RecordBatch::try_new(Self::schema(), cols)
    }

    fn writer_properties() -> WriterProperties {
        T::writer_properties()
    }
}

/// What dedup decided for one function. Functions it did not mention are kept as they are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decision {
    /// The cluster keeper's id.
    pub cluster_id: u64,
    /// The keeper's id when the function is removed.
    pub duplicate_of: Option<u64>,
    /// The keeper's partition.
    pub partition: Split,
}

/// Streams the record batches of a Parquet file.
pub fn read_batches(path: &Path) -> Result<ParquetRecordBatchReader> {
    let file = File::open(path).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let parquet = |source| Error::Parquet {
        path: path.to_path_buf(),
        source,
    };
    ParquetRecordBatchReaderBuilder::try_new(file)
        .map_err(parquet)?
        .with_batch_size(4096)
        .build()
        .map_err(parquet)
}

/// A file whose content is not what its table should hold.
pub(crate) fn bad_file(path: &Path, reason: &str) -> Error {
    Error::BadFile {
        path: path.to_path_buf(),
        reason: reason.to_string(),
    }
}

/// The column `name` of a batch read from `path`.
pub(crate) fn column<'b>(batch: &'b RecordBatch, name: &str, path: &Path) -> Result<&'b ArrayRef> {
    batch
        .column_by_name(name)
        .ok_or_else(|| bad_file(path, &format!("no column `{name}`")))
}

/// A string column of a batch read from `path`; its absence (or another type) is an error
/// naming the file and the column.
pub fn string_column<'b>(
    batch: &'b RecordBatch,
    name: &str,
    path: &Path,
) -> Result<&'b arrow_array::StringArray> {
    batch
        .column_by_name(name)
        .and_then(|c| c.as_string_opt::<i32>())
        .ok_or_else(|| bad_file(path, &format!("no string column `{name}`")))
}

fn ids<'b>(array: &'b ArrayRef, name: &str, path: &Path) -> Result<&'b UInt64Array> {
    array
        .as_primitive_opt::<UInt64Type>()
        .ok_or_else(|| bad_file(path, &format!("`{name}` is not uint64")))
}

/// A staged CSN batch ([`Keyed`] CSN rows) as final CSN batches, one per split: removed
/// functions left out, cluster members in their keeper's partition, `function_id` dropped.
/// Splits without rows are absent.
/// `fresh(id)` is asked for every row that dedup keeps; rows it refuses are left out too
/// (an id that an earlier rank already wrote).
pub fn finalize_csn(
    batch: &RecordBatch,
    path: &Path,
    decide: impl Fn(u64) -> Option<Decision>,
    mut fresh: impl FnMut(u64) -> bool,
) -> Result<Vec<(Split, RecordBatch)>> {
    let id = ids(column(batch, FUNCTION_ID, path)?, FUNCTION_ID, path)?;
    let part = column(batch, csn::PARTITION, path)?
        .as_string_opt::<i32>()
        .ok_or_else(|| bad_file(path, "`partition` is not a string"))?;
    let n = batch.num_rows();
    let mut split_of: Vec<Option<Split>> = Vec::with_capacity(n);
    let mut partitions = StringBuilder::with_capacity(n, n * 5);
    for k in 0..n {
        let d = decide(id.value(k));
        let split = match d {
            Some(d) if d.duplicate_of.is_some() => None,
            _ if !fresh(id.value(k)) => None,
            Some(d) => Some(d.partition),
            None => Some(Split::parse(part.value(k)).ok_or_else(|| {
                bad_file(path, &format!("unknown partition {:?}", part.value(k)))
            })?),
        };
        partitions.append_value(split.unwrap_or(Split::Train).as_str());
        split_of.push(split);
    }
    // A staged batch that the SIDE step scored carries `side_score` on to the final rows,
    // one of a run with `--docstring-params` its `docstring_params`.
    let schema = csn::shape(
        batch.column_by_name(crate::callgraph::SIDE_SCORE).is_some(),
        batch
            .column_by_name(crate::docstring_params::DOCSTRING_PARAMS)
            .is_some(),
    );
    let mut cols = Vec::with_capacity(schema.fields().len());
    for f in schema.fields() {
        if f.name() == csn::PARTITION {
            cols.push(Arc::new(partitions.finish()) as ArrayRef);
        } else {
            cols.push(column(batch, f.name(), path)?.clone());
        }
    }
    let all = RecordBatch::try_new(schema, cols)?;
    let mut out = Vec::new();
    for split in Split::ALL {
        let mask: BooleanArray = split_of.iter().map(|s| Some(*s == Some(split))).collect();
        if mask.true_count() > 0 {
            out.push((
                split,
                arrow_select::filter::filter_record_batch(&all, &mask)?,
            ));
        }
    }
    Ok(out)
}

/// A staged YABLoCo batch without the removed functions (`meta.id`), nor those `fresh`
/// refuses.
pub fn finalize_yabloco(
    batch: &RecordBatch,
    path: &Path,
    decide: impl Fn(u64) -> Option<Decision>,
    mut fresh: impl FnMut(u64) -> bool,
) -> Result<RecordBatch> {
    let id = yabloco_ids(batch, path)?;
    let keep: BooleanArray = (0..batch.num_rows())
        .map(|k| {
            let id = id.value(k);
            Some(decide(id).is_none_or(|d| d.duplicate_of.is_none()) && fresh(id))
        })
        .collect();
    Ok(arrow_select::filter::filter_record_batch(batch, &keep)?)
}

/// Calls `each` with the `meta.id` of every row of a YABLoCo file.
pub fn read_yabloco_ids(path: &Path, mut each: impl FnMut(u64)) -> Result<()> {
    for batch in read_batches(path)? {
        let batch = batch?;
        let id = yabloco_ids(&batch, path)?;
        id.values().iter().for_each(|&v| each(v));
    }
    Ok(())
}

fn yabloco_ids<'b>(batch: &'b RecordBatch, path: &Path) -> Result<&'b UInt64Array> {
    let meta = column(batch, "meta", path)?
        .as_struct_opt()
        .ok_or_else(|| bad_file(path, "`meta` is not a struct"))?;
    let id = meta
        .column_by_name("id")
        .ok_or_else(|| bad_file(path, "no column `meta.id`"))?;
    ids(id, "meta.id", path)
}

/// A staged nodes batch with `cluster_id` and `duplicate_of` filled in; every node stays.
pub fn finalize_nodes(
    batch: &RecordBatch,
    path: &Path,
    decide: impl Fn(u64) -> Option<Decision>,
) -> Result<RecordBatch> {
    let id = ids(column(batch, "id", path)?, "id", path)?;
    let n = batch.num_rows();
    let (mut cluster, mut duplicate) = (
        UInt64Builder::with_capacity(n),
        UInt64Builder::with_capacity(n),
    );
    for k in 0..n {
        let d = decide(id.value(k));
        cluster.append_option(d.map(|d| d.cluster_id));
        duplicate.append_option(d.and_then(|d| d.duplicate_of));
    }
    let (cluster, duplicate): (ArrayRef, ArrayRef) =
        (Arc::new(cluster.finish()), Arc::new(duplicate.finish()));
    let schema = batch.schema();
    let mut cols = Vec::with_capacity(schema.fields().len());
    for (f, c) in schema.fields().iter().zip(batch.columns()) {
        cols.push(match f.name().as_str() {
            "cluster_id" => cluster.clone(),
            "duplicate_of" => duplicate.clone(),
            _ => c.clone(),
        });
    }
    Ok(RecordBatch::try_new(schema, cols)?)
}
