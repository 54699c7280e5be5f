//! The rolling shard writer shared by every output table.

use std::fs::{self, File};
use std::io::BufWriter;
use std::path::{Path, PathBuf};

use arrow_array::{Array, RecordBatch};
use arrow_schema::SchemaRef;
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::{WriterProperties, WriterPropertiesBuilder};

use crate::{Error, Result};

/// A table that can be written as Parquet shards: its schema, and builders for its rows.
pub trait Table: Default {
    type Row;
    fn schema() -> SchemaRef;
    fn push(&mut self, row: &Self::Row);
    /// Rows buffered since the last [`Table::finish`].
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Approximate uncompressed size of the buffered rows, to decide when to roll a shard.
    fn buffered_bytes(&self) -> usize;
    /// Takes the buffered rows out as a record batch.
    fn finish(&mut self) -> Result<RecordBatch, arrow_schema::ArrowError>;
    fn writer_properties() -> WriterProperties;
}

/// A row whose `N` columns are all strings ([`StringTable`]).
pub trait StringRow<const N: usize> {
    fn schema() -> SchemaRef;
    fn writer_properties() -> WriterProperties;
    fn values(&self) -> [&str; N];
}

/// A table of `N` string columns, one builder each (the completion tables' file columns
/// and a text).
pub struct StringTable<R, const N: usize> {
    strings: [arrow_array::builder::StringBuilder; N],
    rows: usize,
    bytes: usize,
    row: std::marker::PhantomData<fn(&R)>,
}

impl<R, const N: usize> Default for StringTable<R, N> {
    fn default() -> Self {
        StringTable {
            strings: std::array::from_fn(|_| Default::default()),
            rows: 0,
            bytes: 0,
            row: std::marker::PhantomData,
        }
    }
}

impl<R: StringRow<N>, const N: usize> Table for StringTable<R, N> {
    type Row = R;

    fn schema() -> SchemaRef {
        R::schema()
    }

    fn push(&mut self, r: &R) {
        for (b, v) in self.strings.iter_mut().zip(r.values()) {
            b.append_value(v);
            self.bytes += v.len();
        }
        self.rows += 1;
    }

    fn len(&self) -> usize {
        self.rows
    }

    fn buffered_bytes(&self) -> usize {
        self.bytes
    }

    fn finish(&mut self) -> Result<RecordBatch, arrow_schema::ArrowError> {
        let columns: Vec<arrow_array::ArrayRef> = finish_each(&mut self.strings).collect();
        self.rows = 0;
        self.bytes = 0;
        RecordBatch::try_new(R::schema(), columns)
    }

    fn writer_properties() -> WriterProperties {
        R::writer_properties()
    }
}

/// Properties every table starts from: zstd, modest row groups so memory stays bounded.
/// The arrays of a group of same-typed column builders, in order.
pub(crate) fn finish_each<B: arrow_array::builder::ArrayBuilder>(
    builders: &mut [B],
) -> impl Iterator<Item = arrow_array::ArrayRef> + '_ {
    builders
        .iter_mut()
        .map(|b| arrow_array::builder::ArrayBuilder::finish(b))
}

pub(crate) fn base_properties() -> WriterPropertiesBuilder {
    WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::default()))
        .set_max_row_group_row_count(Some(8192))
        .set_created_by(concat!("codemine ", env!("CARGO_PKG_VERSION")).to_string())
}

/// Where a shard rolls over and how often buffered rows are encoded.
#[derive(Debug, Clone, Copy)]
pub struct ShardOptions {
    /// A shard is closed once it holds this many uncompressed bytes of row data.
    pub max_shard_bytes: usize,
    /// A shard is closed once it holds this many rows.
    pub max_shard_rows: usize,
    /// Rows buffered in Arrow builders before they are handed to the Parquet encoder.
    pub batch_rows: usize,
}

impl Default for ShardOptions {
    fn default() -> Self {
        Self {
            max_shard_bytes: 256 << 20,
            max_shard_rows: usize::MAX,
            batch_rows: 1024,
        }
    }
}

/// Rows per batch of [`encode`].
pub const ENCODE_BATCH_ROWS: usize = 1 << 16;

/// Encodes rows as record batches of at most `batch_rows` rows each, every array shrunk
/// to its length: a columnar copy of a table that costs a fraction of the row structs
/// (one buffer per column instead of an allocation per string) and is written later by
/// [`ShardWriter::push_batch`]. The rows are consumed, so each one's strings are freed as
/// it is encoded.
pub fn encode<T: Table>(
    rows: impl IntoIterator<Item = T::Row>,
    batch_rows: usize,
) -> Result<Vec<RecordBatch>> {
    let mut table = T::default();
    let mut batches = Vec::new();
    let mut finish = |table: &mut T| -> Result<()> {
        let (schema, mut columns, _) = table.finish()?.into_parts();
        for c in &mut columns {
            c.shrink_to_fit();
        }
        batches.push(RecordBatch::try_new(schema, columns)?);
        Ok(())
    };
    for row in rows {
        table.push(&row);
        if table.len() >= batch_rows.max(1) {
            finish(&mut table)?;
        }
    }
    if !table.is_empty() {
        finish(&mut table)?;
    }
    Ok(batches)
}

/// Streams rows of one table and one split into rolling Parquet shards.
///
/// Shards are written as `.{split}-{index:05}.parquet.tmp` and renamed by
/// [`ShardWriter::finish`] once their total count is known. Dropping the writer without
/// `finish` removes nothing that looks complete: temporary names do not end in `.parquet`.
pub struct ShardWriter<T: Table> {
    /// `T::schema()`, or the one [`ShardWriter::with_schema`] was given.
    schema: SchemaRef,
    dir: PathBuf,
    split: String,
    opts: ShardOptions,
    table: T,
    current: Option<(ArrowWriter<BufWriter<File>>, PathBuf)>,
    current_rows: usize,
    current_bytes: usize,
    closed: Vec<PathBuf>,
    total_rows: usize,
    data_bytes: u64,
}

impl<T: Table> ShardWriter<T> {
    /// The folder is made when the first shard opens, so a table without rows leaves no
    /// empty folder behind.
    pub fn new(dir: &Path, split: &str, opts: ShardOptions) -> Result<Self> {
        Self::with_schema(dir, split, opts, T::schema())
    }

    /// A writer of batches in `schema`, a shape of `T` with columns that only some runs
    /// write (CSN rows with `docstring_params`); its batches come from
    /// [`ShardWriter::push_batch`] only, rows pushed one by one would be in `T`'s.
    pub fn with_schema(
        dir: &Path,
        split: &str,
        opts: ShardOptions,
        schema: SchemaRef,
    ) -> Result<Self> {
        Ok(Self {
            schema,
            dir: dir.to_path_buf(),
            split: split.to_string(),
            opts,
            table: T::default(),
            current: None,
            current_rows: 0,
            current_bytes: 0,
            closed: Vec::new(),
            total_rows: 0,
            data_bytes: 0,
        })
    }

    pub fn push(&mut self, row: &T::Row) -> Result<()> {
        self.table.push(row);
        self.total_rows += 1;
        let rows = self.current_rows + self.table.len();
        let bytes = self.current_bytes + self.table.buffered_bytes();
        if rows >= self.opts.max_shard_rows || bytes >= self.opts.max_shard_bytes {
            self.flush()?;
            self.close_current()?;
        } else if self.table.len() >= self.opts.batch_rows {
            self.flush()?;
        }
        Ok(())
    }

    /// Writes a batch of rows that is already in the table's schema (a staged batch after
    /// its final transform), after any rows pushed one by one.
    pub fn push_batch(&mut self, batch: &RecordBatch) -> Result<()> {
        self.flush()?;
        // Slices share the batch's buffers, so each is charged its share of the whole.
        let per_row = batch.get_array_memory_size() / batch.num_rows().max(1);
        let mut offset = 0;
        while offset < batch.num_rows() {
            // Slices keep the shard row limit exact; the byte limit is checked per slice.
            let room = self
                .opts
                .max_shard_rows
                .saturating_sub(self.current_rows)
                .max(1);
            let take = room.min(batch.num_rows() - offset);
            self.write(&batch.slice(offset, take))?;
            offset += take;
            self.total_rows += take;
            self.current_rows += take;
            self.current_bytes += per_row * take;
            if self.current_rows >= self.opts.max_shard_rows
                || self.current_bytes >= self.opts.max_shard_bytes
            {
                self.close_current()?;
            }
        }
        Ok(())
    }

    /// Rows pushed so far.
    pub fn rows(&self) -> usize {
        self.total_rows
    }

    /// Bytes of Arrow data written so far (the buffers' used part, as pyarrow's
    /// `Table.nbytes` counts it): a split's `num_bytes` in the dataset card.
    pub fn data_bytes(&self) -> u64 {
        self.data_bytes
    }

    fn flush(&mut self) -> Result<()> {
        if self.table.is_empty() {
            return Ok(());
        }
        self.current_rows += self.table.len();
        self.current_bytes += self.table.buffered_bytes();
        let batch = self.table.finish()?;
        self.write(&batch)
    }

    /// Writes a batch into the current shard, opening one if needed.
    fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        for c in batch.columns() {
            self.data_bytes += c.to_data().get_slice_memory_size().unwrap_or(0) as u64;
        }
        let (writer, path) = match &mut self.current {
            Some(w) => w,
            None => self.current.insert(self.open()?),
        };
        writer.write(batch).map_err(|source| Error::Parquet {
            path: path.clone(),
            source,
        })
    }

    fn open(&self) -> Result<(ArrowWriter<BufWriter<File>>, PathBuf)> {
        fs::create_dir_all(&self.dir).map_err(|source| Error::Io {
            path: self.dir.clone(),
            source,
        })?;
        let name = format!(".{}-{:05}.parquet.tmp", self.split, self.closed.len());
        let path = self.dir.join(name);
        let file = File::create(&path).map_err(|source| Error::Io {
            path: path.clone(),
            source,
        })?;
        let writer = ArrowWriter::try_new(
            BufWriter::new(file),
            self.schema.clone(),
            Some(T::writer_properties()),
        )
        .map_err(|source| Error::Parquet {
            path: path.clone(),
            source,
        })?;
        Ok((writer, path))
    }

    fn close_current(&mut self) -> Result<()> {
        if let Some((writer, path)) = self.current.take() {
            writer.close().map_err(|source| Error::Parquet {
                path: path.clone(),
                source,
            })?;
            self.closed.push(path);
        }
        self.current_rows = 0;
        self.current_bytes = 0;
        Ok(())
    }

    /// Closes the last shard and renames every shard to its final name. With
    /// `write_empty`, a split that received no rows still gets one empty shard, so readers
    /// see the schema.
    pub fn finish(mut self, write_empty: bool) -> Result<Vec<PathBuf>> {
        self.flush()?;
        if self.closed.is_empty() && self.current.is_none() && write_empty {
            self.current = Some(self.open()?);
        }
        self.close_current()?;
        let count = self.closed.len();
        let mut out = Vec::with_capacity(count);
        for (i, tmp) in self.closed.iter().enumerate() {
            let dest = self
                .dir
                .join(format!("{}-{:05}-of-{:05}.parquet", self.split, i, count));
            fs::rename(tmp, &dest).map_err(|source| Error::Io {
                path: dest.clone(),
                source,
            })?;
            out.push(dest);
        }
        self.closed.clear();
        Ok(out)
    }
}

impl<T: Table> Drop for ShardWriter<T> {
    fn drop(&mut self) {
        // An abandoned writer (an error elsewhere) leaves no partial files behind.
        if let Some((_, path)) = self.current.take() {
            let _ = fs::remove_file(path);
        }
        for p in self.closed.drain(..) {
            let _ = fs::remove_file(p);
        }
    }
}

/// The files of `dir` whose names `pred` accepts, sorted by name (none when `dir` is
/// missing).
pub fn list_files(dir: &Path, pred: impl Fn(&str) -> bool) -> Result<Vec<PathBuf>> {
    let entries = match fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => {
            return Err(Error::Io {
                path: dir.to_path_buf(),
                source,
            })
        }
    };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| pred(&e.file_name().to_string_lossy()))
        .map(|e| e.path())
        .collect();
    files.sort();
    Ok(files)
}

/// Removes the files of `dir` whose names `pred` accepts.
pub fn remove_files(dir: &Path, pred: impl Fn(&str) -> bool) -> Result<()> {
    for path in list_files(dir, pred)? {
        fs::remove_file(&path).map_err(|source| Error::Io { path, source })?;
    }
    Ok(())
}

/// The finished shards `{name}-…-NNNNN-of-NNNNN.parquet` in `dir`, in name order.
pub fn shard_files(dir: &Path, name: &str) -> Result<Vec<PathBuf>> {
    let prefix = format!("{name}-");
    list_files(dir, |n| {
        n.starts_with(&prefix) && n.ends_with(".parquet") && n[prefix.len()..].contains("-of-")
    })
}

/// Removes the shards (final and temporary) that an earlier run left in `dir`, so that a
/// rerun never mixes old and new shards. Only files named like codemine's shards are touched.
pub fn clear_shards(dir: &Path) -> Result<()> {
    remove_files(dir, |name| {
        (name.starts_with('.') && name.ends_with(".parquet.tmp"))
            || (name.ends_with(".parquet") && name.contains("-of-"))
    })
}
