//! `codemine inspect`: a look at the tables of an output folder without Python. For an
//! output folder it lists the tables (files and rows); for a table (a name such as `csn` or
//! `callgraph_nodes`, a table folder, or one Parquet file) it prints the files and their
//! row counts, the schema, and the first rows.
//!
//! Reads are bounded: row counts and schemas come from the Parquet footers (a footer over
//! [`MAX_FOOTER_BYTES`] is refused), the rows from the first file only, at most
//! [`MAX_ROWS`] of them, and every value is cut to a width before it is printed.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Float32Type, Float64Type, Int16Type, Int32Type, Int64Type, Int8Type, TimestampMillisecondType,
    TimestampSecondType, UInt16Type, UInt32Type, UInt64Type, UInt8Type,
};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, TimeUnit};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::file::reader::{FileReader, SerializedFileReader};

use crate::Error;

/// The most rows `--rows` may ask for.
pub const MAX_ROWS: usize = 1000;
/// The largest Parquet footer (metadata) read; codemine's own are a few KiB.
pub const MAX_FOOTER_BYTES: u64 = 64 << 20;
/// The most list items or struct fields shown of one value.
const MAX_ITEMS: usize = 8;
/// How deep nested values are shown (codemine's tables nest one level).
const MAX_DEPTH: usize = 3;

/// What to print.
#[derive(Debug, Clone, Copy)]
pub struct InspectOptions {
    /// First rows shown (0: schema and counts only).
    pub rows: usize,
    /// Characters of a value shown before it is cut (`…` marks the cut).
    pub width: usize,
}

impl Default for InspectOptions {
    fn default() -> Self {
        InspectOptions { rows: 3, width: 80 }
    }
}

/// The Parquet files of one table: those of one folder that share a name prefix.
#[derive(Debug, Clone)]
struct Table {
    /// As the dataset card's configs name them: `csn`, `yabloco`, `callgraph_nodes`,
    /// `dedup_bands`, `completion_line`, ...
    name: String,
    files: Vec<PathBuf>,
}

/// The report on `path` (an output folder, a table folder or a Parquet file) and, for an
/// output folder, `table` (a table name, or a folder or file relative to it).
pub fn inspect(path: &Path, table: Option<&str>, opts: &InspectOptions) -> Result<String, Error> {
    if opts.rows > MAX_ROWS {
        return Err(Error::Usage(format!(
            "--rows {}: at most {MAX_ROWS}",
            opts.rows
        )));
    }
    let meta = std::fs::metadata(path).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    if meta.is_file() {
        if let Some(t) = table {
            return Err(Error::Usage(format!(
                "{}: a file is one table; `{t}` names a table of an output folder",
                path.display()
            )));
        }
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        return describe(
            &Table {
                name,
                files: vec![path.to_path_buf()],
            },
            opts,
        );
    }
    let tables = tables_of(path)?;
    match table {
        Some(t) => {
            if let Some(found) = tables.iter().find(|x| matches_name(x, t)) {
                return describe(found, opts);
            }
            let sub = path.join(t);
            if sub.is_file() || (sub.is_dir() && t != "." && !t.is_empty()) {
                return inspect(&sub, None, opts);
            }
            Err(Error::Usage(format!(
                "{}: no table `{t}` (tables: {})",
                path.display(),
                if tables.is_empty() {
                    "none".to_string()
                } else {
                    tables
                        .iter()
                        .map(|x| x.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                }
            )))
        }
        None if tables.len() == 1 => describe(&tables[0], opts),
        None if tables.is_empty() => Err(Error::Usage(format!(
            "{}: no Parquet files here or in its folders (not a codemine output folder?)",
            path.display()
        ))),
        None => list(path, &tables),
    }
}

/// `t` names the table fully (`callgraph_nodes`), by its file prefix within its folder
/// (`nodes`), or by its folder when the folder holds one table (`csn`).
fn matches_name(table: &Table, t: &str) -> bool {
    let t = t.trim_end_matches('/');
    table.name == t
        || table
            .name
            .rsplit_once('_')
            .is_some_and(|(folder, prefix)| prefix == t || format!("{folder}/{prefix}") == t)
}

/// The tables of a folder: its own Parquet files, and those of its sub-folders (one level:
/// an output folder's tables are its sub-folders).
fn tables_of(dir: &Path) -> Result<Vec<Table>, Error> {
    let mut groups: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
    let folder = dir
        .canonicalize()
        .ok()
        .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_default();
    add_parquet_files(dir, &folder, &mut groups)?;
    if groups.is_empty() {
        let entries = std::fs::read_dir(dir).map_err(|source| Error::Io {
            path: dir.to_path_buf(),
            source,
        })?;
        let mut subs: Vec<PathBuf> = entries
            .flatten()
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .map(|e| e.path())
            .collect();
        subs.sort();
        for sub in subs {
            let name = sub
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            // A sharded run's working folder, not a table.
            if name == "staging" {
                continue;
            }
            add_parquet_files(&sub, &name, &mut groups)?;
        }
    }
    Ok(groups
        .into_iter()
        .map(|(name, files)| Table { name, files })
        .collect())
}

fn add_parquet_files(
    dir: &Path,
    folder: &str,
    groups: &mut BTreeMap<String, Vec<PathBuf>>,
) -> Result<(), Error> {
    for f in codemine_schemas::list_files(dir, |n| n.ends_with(".parquet"))? {
        let file = f
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        groups.entry(table_name(folder, &file)).or_default().push(f);
    }
    Ok(())
}

/// The table a shard belongs to: its folder, and the prefix of its file name when that is
/// not a split or `data` (`callgraph/nodes-00000-of-00001.parquet` is `callgraph_nodes`,
/// `csn/train-00000-of-00001.parquet` is `csn`; dedup's `bands-r00000-c00000-...` is
/// `dedup_bands`, completion's `line-train-...` is `completion_line`).
fn table_name(folder: &str, file: &str) -> String {
    let stem = file.strip_suffix(".parquet").unwrap_or(file);
    let mut prefix = String::new();
    for part in stem.split('-') {
        let numbered = part.len() > 1
            && (part.bytes().all(|b| b.is_ascii_digit())
                || ((part.starts_with('r') || part.starts_with('c'))
                    && part[1..].bytes().all(|b| b.is_ascii_digit())));
        if numbered || is_split(part) || part == "of" {
            break;
        }
        if !prefix.is_empty() {
            prefix.push('-');
        }
        prefix.push_str(part);
    }
    if prefix.is_empty() || prefix == "data" || prefix == folder || folder.is_empty() {
        if folder.is_empty() {
            return if prefix.is_empty() {
                stem.to_string()
            } else {
                prefix
            };
        }
        folder.to_string()
    } else {
        format!("{folder}_{prefix}")
    }
}

fn is_split(s: &str) -> bool {
    matches!(s, "train" | "valid" | "test")
}

/// The number of rows and the footer of a Parquet file, reading the footer only.
fn open_footer(path: &Path) -> Result<SerializedFileReader<File>, Error> {
    let io = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let bad = |why: String| {
        Error::Usage(format!(
            "{}: not a readable Parquet file: {why}",
            path.display()
        ))
    };
    let mut file = File::open(path).map_err(io)?;
    let len = file.metadata().map_err(io)?.len();
    if len < 12 {
        return Err(bad(format!("{len} bytes")));
    }
    let mut tail = [0u8; 8];
    file.seek(SeekFrom::End(-8)).map_err(io)?;
    file.read_exact(&mut tail).map_err(io)?;
    if &tail[4..] != b"PAR1" {
        return Err(bad("no Parquet footer".into()));
    }
    let footer = u64::from(u32::from_le_bytes([tail[0], tail[1], tail[2], tail[3]]));
    if footer > MAX_FOOTER_BYTES {
        return Err(bad(format!(
            "a footer of {footer} bytes, over the limit of {MAX_FOOTER_BYTES}"
        )));
    }
    file.seek(SeekFrom::Start(0)).map_err(io)?;
    SerializedFileReader::new(file).map_err(|e| bad(e.to_string()))
}

fn rows_of(path: &Path) -> Result<u64, Error> {
    let r = open_footer(path)?;
    Ok(u64::try_from(r.metadata().file_metadata().num_rows()).unwrap_or(0))
}

fn plural(n: u64, one: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {one}s")
    }
}

/// The tables of an output folder, with their files and rows.
fn list(dir: &Path, tables: &[Table]) -> Result<String, Error> {
    let mut out = format!("{}: {} tables\n", dir.display(), tables.len());
    let width = tables.iter().map(|t| t.name.len()).max().unwrap_or(0);
    for t in tables {
        let mut rows = 0u64;
        for f in &t.files {
            rows += rows_of(f)?;
        }
        let _ = writeln!(
            out,
            "  {:<width$}  {:>10}  {}",
            t.name,
            plural(rows, "row"),
            plural(t.files.len() as u64, "file"),
        );
    }
    let _ = writeln!(
        out,
        "`codemine inspect {} TABLE` shows a table's schema and first rows",
        dir.display()
    );
    Ok(out)
}

/// A table: files and rows (by split where the files are named by split), schema, first rows.
fn describe(t: &Table, opts: &InspectOptions) -> Result<String, Error> {
    let mut total = 0u64;
    let mut by_split: BTreeMap<&str, u64> = BTreeMap::new();
    let mut lines = String::new();
    for f in &t.files {
        let n = rows_of(f)?;
        total += n;
        let name = f
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if let Some(split) = name.split('-').find(|p| is_split(p)) {
            let split = match split {
                "train" => "train",
                "valid" => "valid",
                _ => "test",
            };
            *by_split.entry(split).or_default() += n;
        }
        let _ = writeln!(lines, "  {}  {}", f.display(), plural(n, "row"));
    }
    let mut out = format!(
        "{}: {}, {}{}\n",
        t.name,
        plural(t.files.len() as u64, "file"),
        plural(total, "row"),
        if by_split.is_empty() {
            String::new()
        } else {
            format!(
                " ({})",
                ["train", "valid", "test"]
                    .iter()
                    .map(|s| format!("{s} {}", by_split.get(s).copied().unwrap_or(0)))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }
    );
    out.push_str(&lines);
    let Some(first) = t.files.first() else {
        return Ok(out);
    };
    // The schema and the rows from the first file; the others share its schema.
    open_footer(first)?;
    let bad = |e: &dyn std::fmt::Display| {
        Error::Usage(format!(
            "{}: not a readable Parquet file: {e}",
            first.display()
        ))
    };
    let file = File::open(first).map_err(|source| Error::Io {
        path: first.clone(),
        source,
    })?;
    let builder = ParquetRecordBatchReaderBuilder::try_new(file).map_err(|e| bad(&e))?;
    let schema = builder.schema().clone();
    let _ = writeln!(out, "columns ({}):", schema.fields().len());
    let name_width = schema
        .fields()
        .iter()
        .map(|f| f.name().chars().count())
        .max()
        .unwrap_or(0);
    for f in schema.fields() {
        let _ = writeln!(
            out,
            "  {:<name_width$}  {}{}",
            f.name(),
            type_name(f.data_type()),
            if f.is_nullable() { "" } else { " not null" }
        );
    }
    if opts.rows == 0 || total == 0 {
        return Ok(out);
    }
    let reader = builder
        .with_batch_size(opts.rows)
        .with_limit(opts.rows)
        .build()
        .map_err(|e| bad(&e))?;
    let mut shown = 0usize;
    for batch in reader {
        let batch = batch.map_err(|e| bad(&e))?;
        if shown == 0 {
            let _ = writeln!(
                out,
                "first {} of {}:",
                plural(opts.rows.min(total as usize) as u64, "row"),
                first.display()
            );
        }
        shown += rows(&mut out, &batch, shown, name_width, opts.width);
        if shown >= opts.rows {
            break;
        }
    }
    Ok(out)
}

fn rows(
    out: &mut String,
    batch: &RecordBatch,
    from: usize,
    name_width: usize,
    width: usize,
) -> usize {
    let schema = batch.schema();
    for i in 0..batch.num_rows() {
        let _ = writeln!(out, "  [{}]", from + i);
        for (f, col) in schema.fields().iter().zip(batch.columns()) {
            let mut v = String::new();
            value(&mut v, col, i, 0, width);
            let _ = writeln!(out, "    {:<name_width$}  {}", f.name(), cut(&v, width));
        }
    }
    batch.num_rows()
}

/// `s` cut to `width` characters, `…` marking the cut.
fn cut(s: &str, width: usize) -> String {
    match s.char_indices().nth(width) {
        None => s.to_string(),
        Some((at, _)) => format!("{}…", &s[..at]),
    }
}

/// A short type name, as pyarrow prints them.
fn type_name(t: &DataType) -> String {
    match t {
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => "string".into(),
        DataType::Binary | DataType::LargeBinary | DataType::BinaryView => "binary".into(),
        DataType::Boolean => "bool".into(),
        DataType::Float32 => "float".into(),
        DataType::Float64 => "double".into(),
        DataType::Timestamp(unit, tz) => {
            let unit = match unit {
                TimeUnit::Second => "s",
                TimeUnit::Millisecond => "ms",
                TimeUnit::Microsecond => "us",
                TimeUnit::Nanosecond => "ns",
            };
            match tz {
                Some(tz) => format!("timestamp[{unit}, tz={tz}]"),
                None => format!("timestamp[{unit}]"),
            }
        }
        DataType::List(f) | DataType::LargeList(f) => format!("list<{}>", field_type(f)),
        DataType::Struct(fields) => format!(
            "struct<{}>",
            fields
                .iter()
                .map(|f| format!("{}: {}", f.name(), field_type(f)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        DataType::Dictionary(_, v) => format!("dictionary<{}>", type_name(v)),
        other => other.to_string().to_lowercase(),
    }
}

fn field_type(f: &Field) -> String {
    format!(
        "{}{}",
        type_name(f.data_type()),
        if f.is_nullable() { "" } else { " not null" }
    )
}

/// Writes value `i` of `col`; lists and structs show their first items, and writing stops
/// once `budget` characters are out (the line is cut there anyway).
fn value(out: &mut String, col: &ArrayRef, i: usize, depth: usize, budget: usize) {
    if col.is_null(i) {
        out.push_str("null");
        return;
    }
    macro_rules! prim {
        ($t:ty) => {
            if let Some(a) = col.as_primitive_opt::<$t>() {
                let _ = write!(out, "{}", a.value(i));
                return;
            }
        };
    }
    prim!(Int64Type);
    prim!(UInt64Type);
    prim!(Int32Type);
    prim!(UInt32Type);
    prim!(Int16Type);
    prim!(UInt16Type);
    prim!(Int8Type);
    prim!(UInt8Type);
    prim!(Float32Type);
    prim!(Float64Type);
    if let Some(a) = col.as_string_opt::<i32>() {
        quoted(out, a.value(i), budget);
        return;
    }
    if let Some(a) = col.as_string_opt::<i64>() {
        quoted(out, a.value(i), budget);
        return;
    }
    if let Some(a) = col.as_boolean_opt() {
        let _ = write!(out, "{}", a.value(i));
        return;
    }
    if let Some(a) = col.as_primitive_opt::<TimestampMillisecondType>() {
        timestamp(out, a.value(i).div_euclid(1000));
        return;
    }
    if let Some(a) = col.as_primitive_opt::<TimestampSecondType>() {
        timestamp(out, a.value(i));
        return;
    }
    if depth >= MAX_DEPTH {
        out.push('…');
        return;
    }
    if let Some(a) = col.as_list_opt::<i32>() {
        let items = a.value(i);
        let _ = write!(out, "[{}: ", plural(items.len() as u64, "item"));
        for k in 0..items.len().min(MAX_ITEMS) {
            if out.len() > budget {
                break;
            }
            if k > 0 {
                out.push_str(", ");
            }
            value(out, &items, k, depth + 1, budget);
        }
        if items.len() > MAX_ITEMS {
            out.push_str(", …");
        }
        out.push(']');
        return;
    }
    if let Some(a) = col.as_struct_opt() {
        out.push('{');
        for (k, (name, child)) in a.column_names().iter().zip(a.columns()).enumerate() {
            if out.len() > budget {
                break;
            }
            if k > 0 {
                out.push_str(", ");
            }
            let _ = write!(out, "{name}: ");
            value(out, child, i, depth + 1, budget);
        }
        out.push('}');
        return;
    }
    let _ = write!(out, "<{}>", type_name(col.data_type()));
}

/// A string in double quotes, with newlines and other control characters escaped so that
/// a value stays on its line; at most `budget` characters of it.
fn quoted(out: &mut String, s: &str, budget: usize) {
    out.push('"');
    for c in s.chars().take(budget) {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => {
                let _ = write!(out, "{}", c.escape_default());
            }
            c => out.push(c),
        }
    }
    if s.chars().nth(budget).is_none() {
        out.push('"');
    }
}

fn timestamp(out: &mut String, seconds: i64) {
    match jiff::Timestamp::from_second(seconds) {
        Ok(t) => {
            let _ = write!(out, "{}", t.strftime("%Y-%m-%d %H:%M:%S UTC"));
        }
        Err(_) => {
            let _ = write!(out, "{seconds} s");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_names_follow_the_card_configs() {
        let cases = [
            ("csn", "train-00000-of-00001.parquet", "csn"),
            ("yabloco", "data-00000-of-00001.parquet", "yabloco"),
            (
                "callgraph",
                "nodes-00000-of-00002.parquet",
                "callgraph_nodes",
            ),
            (
                "callgraph",
                "edges-00001-of-00002.parquet",
                "callgraph_edges",
            ),
            (
                "dedup",
                "bands-r00000-c00000-00000-of-00001.parquet",
                "dedup_bands",
            ),
            ("dedup", "clusters-00000-of-00001.parquet", "dedup_clusters"),
            ("dropped", "dropped-00000-of-00001.parquet", "dropped"),
            (
                "completion",
                "line-valid-00000-of-00001.parquet",
                "completion_line",
            ),
            (
                "completion",
                "snapshot-train-00000-of-00001.parquet",
                "completion_snapshot",
            ),
            (
                "repositories",
                "data-00000-of-00001.parquet",
                "repositories",
            ),
        ];
        for (folder, file, want) in cases {
            assert_eq!(table_name(folder, file), want, "{folder}/{file}");
        }
    }

    #[test]
    fn values_are_cut_and_stay_on_one_line() {
        assert_eq!(cut("abcdef", 3), "abc…");
        assert_eq!(cut("ab", 3), "ab");
        let mut s = String::new();
        quoted(&mut s, "a\n\"b\"", 80);
        assert_eq!(s, r#""a\n\"b\"""#);
        let mut s = String::new();
        quoted(&mut s, "abcdef", 3);
        assert_eq!(s, "\"abc");
    }
}
