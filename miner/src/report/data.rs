//! The numbers behind the figures: counts from stats.json, distributions from the Parquet
//! tables of the output folder.
//!
//! Length distributions use powers of two as bins (`0`, `1`, `2-3`, `4-7`, ...) so that one
//! figure shows one-line getters and thousand-token functions alike; dates are bucketed by
//! the UTC year of the last commit.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::{Figure, ReportStats, Series};
use crate::Error;
use arrow_array::cast::AsArray;
use arrow_array::types::{Int64Type, TimestampMillisecondType};
use arrow_array::{Array, RecordBatch};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ProjectionMask;

/// How many repositories the per-repository figure shows (the largest by functions).
pub const TOP_REPOSITORIES: usize = 30;

/// Every figure that the folder has data for, in the card's order.
pub fn figures(out_dir: &Path, stats: &ReportStats) -> Result<Vec<Figure>, Error> {
    let mut out = Vec::new();
    out.extend(languages(stats));
    out.extend(repositories(stats));
    let lengths = csn_lengths(out_dir)?;
    out.extend(lengths);
    out.push(funnel(stats));
    out.extend(categories(stats));
    out.extend(nodes(out_dir)?);
    out.extend(clusters(stats));
    Ok(out)
}

fn languages(stats: &ReportStats) -> Option<Figure> {
    let langs = &stats.languages;
    if langs.is_empty() {
        return None;
    }
    Some(Figure {
        name: "languages",
        title: "Functions and dataset rows per language".into(),
        category_label: "language".into(),
        value_label: "functions".into(),
        labels: langs.keys().cloned().collect(),
        series: vec![
            Series {
                name: "functions",
                values: langs.values().map(|l| l.functions.0).collect(),
            },
            Series {
                name: "csn rows",
                values: langs.values().map(|l| l.csn_rows.0).collect(),
            },
        ],
    })
}

fn repositories(stats: &ReportStats) -> Option<Figure> {
    let mut repos: Vec<(&str, u64, u64)> = stats
        .repositories
        .iter()
        .filter(|r| r.status == "mined")
        .map(|r| (r.repo.as_str(), r.totals.functions.0, r.totals.csn_rows.0))
        .collect();
    if repos.is_empty() {
        return None;
    }
    let total = repos.len();
    // Largest first; ties by name, so the figure does not depend on the run's order.
    repos.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    repos.truncate(TOP_REPOSITORIES);
    let title = if total > TOP_REPOSITORIES {
        format!("Functions and dataset rows per repository ({TOP_REPOSITORIES} largest of {total})")
    } else {
        "Functions and dataset rows per repository".to_string()
    };
    Some(Figure {
        name: "repositories",
        title,
        category_label: "repository".into(),
        value_label: "functions".into(),
        labels: repos.iter().map(|r| r.0.to_string()).collect(),
        series: vec![
            Series {
                name: "functions",
                values: repos.iter().map(|r| r.1).collect(),
            },
            Series {
                name: "csn rows",
                values: repos.iter().map(|r| r.2).collect(),
            },
        ],
    })
}

/// The filter funnel: the functions in, what each rule removed, dedup's removals, the rows
/// kept.
fn funnel(stats: &ReportStats) -> Figure {
    let f = &stats.stages.filter;
    let mut labels = vec!["extracted".to_string()];
    let mut values = vec![f.input.0];
    // In evaluation order (stats.json lists the active rules in that order).
    let mut names: Vec<&String> = f.removed.keys().collect();
    names.sort_by_key(|n| f.rules.iter().position(|o| o == *n).unwrap_or(usize::MAX));
    for n in names {
        labels.push(format!("removed: {n}"));
        values.push(f.removed[n].0);
    }
    labels.push("kept by the filters".into());
    values.push(f.kept.0);
    if let Some(d) = &stats.stages.dedup {
        labels.push("removed: exact duplicate".into());
        values.push(d.exact_removed.0);
        labels.push("removed: near duplicate".into());
        values.push(d.near_removed.0);
    }
    // Counts are at most 2^53 each: the sum of a few cannot overflow.
    let rows: u64 = stats.stages.write.csn_rows.values().map(|c| c.0).sum();
    labels.push("csn rows (with a docstring)".into());
    values.push(rows);
    Figure {
        name: "funnel",
        title: "Filter funnel".into(),
        category_label: "step".into(),
        value_label: "functions".into(),
        labels,
        series: vec![Series {
            name: "functions",
            values,
        }],
    }
}

fn categories(stats: &ReportStats) -> Option<Figure> {
    let by = &stats.stages.resolve.by_category;
    if by.is_empty() {
        return None;
    }
    let order = crate::resolve::Category::ALL.map(|c| c.as_str());
    let mut names: Vec<&String> = by.keys().collect();
    names.sort_by_key(|n| order.iter().position(|o| o == n).unwrap_or(usize::MAX));
    Some(Figure {
        name: "categories",
        title: "Call-graph edges per category".into(),
        category_label: "category".into(),
        value_label: "call sites".into(),
        labels: names.iter().map(|n| n.to_string()).collect(),
        series: vec![Series {
            name: "call sites",
            values: names.iter().map(|n| by[n.as_str()].0).collect(),
        }],
    })
}

fn clusters(stats: &ReportStats) -> Option<Figure> {
    let sizes = &stats.stages.dedup.as_ref()?.cluster_sizes;
    let mut bins = Bins::default();
    for (size, n) in sizes {
        if let Ok(s) = size.parse::<u64>() {
            bins.add_n(s, n.0);
        }
    }
    (!bins.is_empty()).then(|| {
        bins.figure(
            "clusters",
            "Duplicate clusters by size (1: no duplicate)",
            "functions in the cluster",
            "clusters",
        )
    })
}

/// Counts per power-of-two bin: `0`, `1`, `2-3`, `4-7`, ...
#[derive(Default)]
pub(crate) struct Bins {
    /// Bin 0 holds 0; bin k holds [2^(k-1), 2^k - 1].
    counts: BTreeMap<u32, u64>,
}

impl Bins {
    pub(crate) fn bin(v: u64) -> u32 {
        64 - v.leading_zeros()
    }

    fn add_n(&mut self, v: u64, n: u64) {
        let c = self.counts.entry(Self::bin(v)).or_default();
        *c = c.saturating_add(n);
    }

    fn add(&mut self, v: u64) {
        self.add_n(v, 1);
    }

    fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }

    pub(crate) fn label(k: u32) -> String {
        match k {
            0 => "0".into(),
            1 => "1".into(),
            _ => {
                let lo = 1u64 << (k - 1);
                let hi = if k >= 64 { u64::MAX } else { (1u64 << k) - 1 };
                format!("{lo}-{hi}")
            }
        }
    }

    /// Every bin from the smallest to the largest used, empty ones included.
    fn figure(&self, name: &'static str, title: &str, category: &str, value: &str) -> Figure {
        let (lo, hi) = match (self.counts.keys().next(), self.counts.keys().last()) {
            (Some(&a), Some(&b)) => (a, b),
            _ => (0, 0),
        };
        Figure {
            name,
            title: title.into(),
            category_label: category.into(),
            value_label: value.into(),
            labels: (lo..=hi).map(Self::label).collect(),
            series: vec![Series {
                name: "count",
                values: (lo..=hi)
                    .map(|k| self.counts.get(&k).copied().unwrap_or(0))
                    .collect(),
            }],
        }
    }
}

/// The Parquet shards of `dir` whose names start with `prefix`, sorted.
fn shards(dir: &Path, prefix: &str) -> Result<Vec<PathBuf>, Error> {
    Ok(codemine_schemas::list_files(dir, |n| {
        n.starts_with(prefix) && n.ends_with(".parquet")
    })?)
}

/// Calls `f` with every batch of the shards, reading only `columns` (those the file has).
fn each_batch(
    files: &[PathBuf],
    columns: &[&str],
    mut f: impl FnMut(&RecordBatch),
) -> Result<(), Error> {
    let bad = |path: &Path, e: &dyn std::fmt::Display| {
        Error::Usage(format!(
            "{}: not a readable Parquet file: {e}",
            path.display()
        ))
    };
    for path in files {
        let file = codemine_io::open_regular(path, codemine_io::Follow::Yes)
            .map_err(|e| super::read_error(path, e))?;
        let builder = ParquetRecordBatchReaderBuilder::try_new(file).map_err(|e| bad(path, &e))?;
        let roots: Vec<usize> = columns
            .iter()
            .filter_map(|c| builder.schema().index_of(c).ok())
            .collect();
        let mask = ProjectionMask::roots(builder.parquet_schema(), roots);
        let reader = builder
            .with_projection(mask)
            .build()
            .map_err(|e| bad(path, &e))?;
        for batch in reader {
            f(&batch.map_err(|e| bad(path, &e))?);
        }
    }
    Ok(())
}

/// Lengths of the list values of a column, per row (0 for a null).
fn list_lengths(batch: &RecordBatch, column: &str) -> Vec<u64> {
    let Some(col) = batch.column_by_name(column) else {
        return Vec::new();
    };
    let Some(list) = col.as_list_opt::<i32>() else {
        return Vec::new();
    };
    let offsets = list.value_offsets();
    (0..list.len())
        .map(|i| {
            if list.is_null(i) {
                0
            } else {
                (offsets[i + 1] - offsets[i]) as u64
            }
        })
        .collect()
}

/// Code and docstring lengths of the CSN rows (every partition), in tokens.
fn csn_lengths(out_dir: &Path) -> Result<Vec<Figure>, Error> {
    let dir = out_dir.join("csn");
    let mut files = Vec::new();
    for split in ["train", "valid", "test"] {
        files.extend(shards(&dir, &format!("{split}-"))?);
    }
    let (mut code, mut doc) = (Bins::default(), Bins::default());
    each_batch(&files, &["code_tokens", "docstring_tokens"], |b| {
        list_lengths(b, "code_tokens")
            .into_iter()
            .for_each(|n| code.add(n));
        list_lengths(b, "docstring_tokens")
            .into_iter()
            .for_each(|n| doc.add(n));
    })?;
    let mut out = Vec::new();
    if !code.is_empty() {
        out.push(code.figure(
            "code_length",
            "Code length of the dataset rows",
            "code tokens",
            "csn rows",
        ));
    }
    if !doc.is_empty() {
        out.push(doc.figure(
            "docstring_length",
            "Docstring length of the dataset rows",
            "docstring tokens",
            "csn rows",
        ));
    }
    Ok(out)
}

/// Last-commit years and coverage of every function: the call-graph nodes but for those
/// that are no function (Python's `<module>` and `<lambda>` nodes), so that the figures
/// count what stats.json's `functions` counts.
fn nodes(out_dir: &Path) -> Result<Vec<Figure>, Error> {
    let files = shards(&out_dir.join("callgraph"), "nodes-")?;
    let mut years: BTreeMap<i64, u64> = BTreeMap::new();
    let mut undated = 0u64;
    let (mut covered, mut uncovered, mut no_report) = (0u64, 0u64, 0u64);
    let node_only = crate::extract::FunctionKind::NODE_ONLY.map(|k| k.as_str());
    each_batch(&files, &["last_commit", "test_cov_hits", "kind"], |b| {
        let kinds = b
            .column_by_name("kind")
            .and_then(|c| c.as_string_opt::<i32>());
        let is_function = |i: usize| kinds.is_none_or(|k| !node_only.contains(&k.value(i)));
        // A timestamp in milliseconds (the nodes table), or seconds as a plain integer.
        let column = b.column_by_name("last_commit");
        let millis = column.and_then(|c| c.as_primitive_opt::<TimestampMillisecondType>());
        let seconds = column.and_then(|c| c.as_primitive_opt::<Int64Type>());
        let len = column.map_or(0, |c| c.len());
        for i in (0..len).filter(|&i| is_function(i)) {
            let secs = match (millis, seconds) {
                (Some(c), _) if !c.is_null(i) => Some(c.value(i).div_euclid(1000)),
                (_, Some(c)) if !c.is_null(i) => Some(c.value(i)),
                _ => None,
            };
            match secs {
                None => undated += 1,
                Some(s) => {
                    let year = jiff::Timestamp::from_second(s)
                        .map(|t| i64::from(t.to_zoned(jiff::tz::TimeZone::UTC).year()))
                        .unwrap_or(0);
                    *years.entry(year).or_default() += 1;
                }
            }
        }
        if let Some(c) = b
            .column_by_name("test_cov_hits")
            .and_then(|c| c.as_primitive_opt::<Int64Type>())
        {
            for i in (0..c.len()).filter(|&i| is_function(i)) {
                match (c.is_null(i), c.value(i)) {
                    (true, _) => no_report += 1,
                    (false, 0) => uncovered += 1,
                    (false, _) => covered += 1,
                }
            }
        }
    })?;
    let mut out = Vec::new();
    if !years.is_empty() || undated > 0 {
        let (lo, hi) = match (years.keys().next(), years.keys().last()) {
            (Some(&a), Some(&b)) => (a, b),
            _ => (0, -1),
        };
        let mut labels: Vec<String> = (lo..=hi).map(|y| y.to_string()).collect();
        let mut values: Vec<u64> = (lo..=hi)
            .map(|y| years.get(&y).copied().unwrap_or(0))
            .collect();
        if undated > 0 {
            labels.push("unknown".into());
            values.push(undated);
        }
        out.push(Figure {
            name: "dates",
            title: "Functions by the year of their last commit (UTC)".into(),
            category_label: "year".into(),
            value_label: "functions".into(),
            labels,
            series: vec![Series {
                name: "functions",
                values,
            }],
        });
    }
    if covered + uncovered > 0 {
        out.push(Figure {
            name: "coverage",
            title: "Functions by test coverage".into(),
            category_label: "coverage".into(),
            value_label: "functions".into(),
            labels: vec![
                "covered (hits > 0)".into(),
                "not covered (0 hits)".into(),
                "no report for the file".into(),
            ],
            series: vec![Series {
                name: "functions",
                values: vec![covered, uncovered, no_report],
            }],
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::Bins;

    #[test]
    fn power_of_two_bins() {
        let bins: Vec<(u64, &str)> = vec![
            (0, "0"),
            (1, "1"),
            (2, "2-3"),
            (3, "2-3"),
            (4, "4-7"),
            (7, "4-7"),
            (8, "8-15"),
            (1000, "512-1023"),
        ];
        for (v, label) in bins {
            assert_eq!(Bins::label(Bins::bin(v)), label, "{v}");
        }
    }
}
