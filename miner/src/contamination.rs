//! `codemine contamination BENCH... --against OUT`: for every item of the benchmarks,
//! whether and where a mined dataset holds it. The benchmarks are indexed once (as for
//! `mine --decontaminate`); every function of OUT's YABLoCo table (one row per function the
//! filters and dedup kept, with its code) is tokenised as mining does and checked, and
//! located through its call-graph node (repository, path, lines).
//!
//! A function is reported under one item only: the one it copies most completely (see
//! `codemine_filters::decontam::Match`), else the item it is nearest to.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use arrow_array::cast::AsArray;
use arrow_array::types::{Int64Type, UInt64Type};
use arrow_array::{Array, RecordBatch, StructArray};
use codemine_filters::decontam::MatchKind;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use rayon::prelude::*;
use serde::Serialize;

use crate::benchmark::{check_function, code_tokens};
use crate::escape::visible;
use crate::extract::Extractor;
use crate::lang::{Lang, Registry};
use crate::pipeline::decontam::Decontaminator;
use crate::Error;

/// Where a dataset holds an item.
#[derive(Debug, Clone, Serialize)]
pub struct Location {
    pub repository: String,
    pub path: String,
    pub function: String,
    pub start_line: i64,
    pub end_line: i64,
    pub kind: MatchKind,
    pub score: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct ItemReport {
    pub item: String,
    pub found: bool,
    pub locations: Vec<Location>,
}

#[derive(Debug, Clone, Serialize)]
pub struct BenchmarkReport {
    pub name: String,
    pub file: String,
    pub items: u64,
    pub items_found: u64,
    pub results: Vec<ItemReport>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub against: String,
    /// Functions of the dataset checked.
    pub functions: u64,
    pub ngram: usize,
    pub threshold: f64,
    pub benchmarks: Vec<BenchmarkReport>,
}

/// A node's place, by function id.
struct Place {
    repository: String,
    path: String,
    function: String,
    start_line: i64,
    end_line: i64,
}

fn bad(path: &Path, what: &str) -> Error {
    Error::Usage(format!("{}: {what}", path.display()))
}

fn parquet_files(dir: &Path, prefix: &str) -> Result<Vec<PathBuf>, Error> {
    let entries = std::fs::read_dir(dir).map_err(|source| Error::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(prefix) && n.ends_with(".parquet"))
        })
        .collect();
    files.sort();
    Ok(files)
}

fn batches(path: &Path) -> Result<Vec<RecordBatch>, Error> {
    // Only a regular file: a FIFO named like a shard would block the reader.
    let file = codemine_io::open_regular(path, codemine_io::Follow::Yes).map_err(|e| match e {
        codemine_io::ReadError::Io(source) => Error::Io {
            path: path.to_path_buf(),
            source,
        },
        other => bad(path, &other.to_string()),
    })?;
    let reader = ParquetRecordBatchReaderBuilder::try_new(file)
        .and_then(|b| b.build())
        .map_err(|e| bad(path, &e.to_string()))?;
    reader
        .map(|b| b.map_err(|e| bad(path, &e.to_string())))
        .collect()
}

fn strings<'a>(
    batch: &'a RecordBatch,
    name: &str,
    path: &Path,
) -> Result<&'a arrow_array::StringArray, Error> {
    codemine_schemas::staged::string_column(batch, name, path)
        .map_err(|e| Error::Usage(e.to_string()))
}

fn struct_field<'a>(
    s: &'a StructArray,
    name: &str,
    path: &Path,
) -> Result<&'a arrow_array::ArrayRef, Error> {
    s.column_by_name(name)
        .ok_or_else(|| bad(path, &format!("no field `{name}`")))
}

/// Every node's place, by id.
fn read_places(out: &Path) -> Result<HashMap<u64, Place>, Error> {
    let mut places = HashMap::new();
    for path in parquet_files(&codemine_schemas::layout::NODES.path(out), "nodes")? {
        for b in batches(&path)? {
            let id = b
                .column_by_name("id")
                .and_then(|c| c.as_primitive_opt::<UInt64Type>())
                .ok_or_else(|| bad(&path, "no column `id`"))?;
            let (repo, file, name) = (
                strings(&b, "repository", &path)?,
                strings(&b, "path", &path)?,
                strings(&b, "qualified_name", &path)?,
            );
            let line = |n: &str| {
                b.column_by_name(n)
                    .and_then(|c| c.as_primitive_opt::<Int64Type>())
                    .ok_or_else(|| bad(&path, &format!("no column `{n}`")))
            };
            let (start, end) = (line("start_line")?, line("end_line")?);
            for k in 0..b.num_rows() {
                places.insert(
                    id.value(k),
                    Place {
                        repository: repo.value(k).to_string(),
                        path: file.value(k).to_string(),
                        function: name.value(k).to_string(),
                        start_line: start.value(k),
                        end_line: end.value(k),
                    },
                );
            }
        }
    }
    Ok(places)
}

/// Every function of OUT's YABLoCo table: id, language and code.
fn read_functions(out: &Path) -> Result<Vec<(u64, String, String)>, Error> {
    let mut functions = Vec::new();
    for path in parquet_files(&out.join("yabloco"), "data")? {
        for b in batches(&path)? {
            let code = strings(&b, "outputs", &path)?;
            let inputs = b
                .column_by_name("inputs")
                .and_then(|c| c.as_struct_opt())
                .ok_or_else(|| bad(&path, "no struct column `inputs`"))?;
            let meta = b
                .column_by_name("meta")
                .and_then(|c| c.as_struct_opt())
                .ok_or_else(|| bad(&path, "no struct column `meta`"))?;
            let lang = struct_field(inputs, "language", &path)?
                .as_string_opt::<i32>()
                .ok_or_else(|| bad(&path, "`inputs.language` is not a string"))?;
            let id = struct_field(meta, "id", &path)?
                .as_primitive_opt::<UInt64Type>()
                .ok_or_else(|| bad(&path, "`meta.id` is not a uint64"))?;
            for k in 0..b.num_rows() {
                if code.is_null(k) {
                    continue;
                }
                functions.push((
                    id.value(k),
                    lang.value(k).to_string(),
                    code.value(k).to_string(),
                ));
            }
        }
    }
    Ok(functions)
}

/// Checks every function of the dataset at `out` against the benchmarks' index.
pub fn run(d: &Decontaminator, out: &Path) -> Result<Report, Error> {
    let stats = out.join("stats.json");
    if !std::fs::metadata(&stats).is_ok_and(|m| m.file_type().is_file()) {
        return Err(Error::Usage(format!(
            "--against {}: not a finished codemine output folder (no stats.json)",
            out.display()
        )));
    }
    // An output of the layout before issue 39 is refused, not read as mixed tables.
    if let Some(why) = codemine_schemas::layout::old_layout(out) {
        return Err(Error::Usage(format!("--against {why}")));
    }
    let places = read_places(out)?;
    let functions = read_functions(out)?;
    let found: Vec<(u64, codemine_filters::decontam::Match)> = functions
        .par_iter()
        .map_init(Extractor::default, |ex, (id, lang, code)| {
            let lang = Lang::from_name(lang)?;
            let toks = code_tokens(ex, lang, code).ok()?;
            let toks = toks.iter().map(String::as_str);
            check_function(d.index(), ex, lang, code, toks).map(|m| (*id, m))
        })
        .flatten()
        .collect();
    let mut by_item: HashMap<(String, String), Vec<Location>> = HashMap::new();
    for (id, m) in found {
        let Some(p) = places.get(&id) else { continue };
        by_item
            .entry((m.benchmark, m.item))
            .or_default()
            .push(Location {
                repository: p.repository.clone(),
                path: p.path.clone(),
                function: p.function.clone(),
                start_line: p.start_line,
                end_line: p.end_line,
                kind: m.kind,
                score: m.score,
            });
    }
    let s = d.settings();
    let mut benchmarks = Vec::new();
    let mut k = 0;
    for b in &s.benchmarks {
        let mut results = Vec::new();
        for _ in 0..b.items {
            let item = d.index().item(k);
            k += 1;
            let mut locations = by_item
                .remove(&(b.name.clone(), item.to_string()))
                .unwrap_or_default();
            locations.sort_by(|a, b| {
                (&a.repository, &a.path, a.start_line).cmp(&(&b.repository, &b.path, b.start_line))
            });
            results.push(ItemReport {
                item: item.to_string(),
                found: !locations.is_empty(),
                locations,
            });
        }
        benchmarks.push(BenchmarkReport {
            name: b.name.clone(),
            file: b.file.clone(),
            items: b.items,
            items_found: results.iter().filter(|r| r.found).count() as u64,
            results,
        });
    }
    Ok(Report {
        against: out.display().to_string(),
        functions: functions.len() as u64,
        ngram: s.ngram,
        threshold: s.threshold,
        benchmarks,
    })
}

/// The report as a table: one line per location of a found item, then a line per
/// benchmark with its count.
pub fn table(r: &Report) -> String {
    let mut s = String::from("benchmark\titem\tmatch\tscore\trepository\tpath\tlines\tfunction\n");
    for b in &r.benchmarks {
        for i in &b.results {
            for l in &i.locations {
                // Names from input are escaped: a tab or a newline in one would shift
                // the columns or fake a line.
                s += &format!(
                    "{}\t{}\t{}\t{:.3}\t{}\t{}\t{}-{}\t{}\n",
                    visible(&b.name),
                    visible(&i.item),
                    l.kind.as_str(),
                    l.score,
                    visible(&l.repository),
                    visible(&l.path),
                    l.start_line,
                    l.end_line,
                    visible(&l.function)
                );
            }
        }
    }
    for b in &r.benchmarks {
        s += &format!(
            "{}: {} of {} items found in {} ({} functions checked)\n",
            visible(&b.name),
            b.items_found,
            b.items,
            visible(&r.against),
            r.functions
        );
    }
    s
}
