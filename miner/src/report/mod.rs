//! The dataset report: figures of a mined output folder, drawn in Rust next to the dataset
//! card (`DIR/plot_<name>.svg` and `.png`), their numbers in `DIR/plots.json`, a "Figures"
//! section in the card (`DIR/README.md`), and with `--html` a self-contained
//! `DIR/report.html` (figures inlined, no network, no script needed to read it).
//!
//! Everything comes from the folder itself: stats.json for the counts the pipeline keeps
//! (languages, repositories, the filter funnel, call-graph categories, cluster sizes) and the
//! Parquet tables for the distributions (code and docstring lengths of the CSN rows, the
//! last-commit years and the coverage of the call-graph nodes). So `codemine report DIR`
//! redraws a finished output, and `codemine mine` calls the same code at its end.
//!
//! stats.json is read into typed structs ([`ReportStats`]): a count that is negative, not a
//! number or past 2^53 is an error that names the field, never a figure of zeros.
//!
//! ```no_run
//! let out = std::path::Path::new("out");
//! let stats = miner::report::read_stats(out).unwrap();
//! let figures = miner::report::figures(out, &stats).unwrap();
//! println!("{} figures", figures.len());
//! ```

mod data;
mod html;
mod plot;

use std::path::Path;

use serde::{Deserialize, Serialize};

pub use data::figures;

use crate::output::write_atomic;
use crate::Error;

/// One figure: categories (bins, languages, rules) and one or more series of counts.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Figure {
    /// File stem: `plot_{name}.svg`.
    pub name: &'static str,
    pub title: String,
    /// What the categories are (`language`, `tokens`).
    pub category_label: String,
    /// What the counts count (`functions`).
    pub value_label: String,
    pub labels: Vec<String>,
    pub series: Vec<Series>,
}

/// Counts per category, in the order of [`Figure::labels`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Series {
    pub name: &'static str,
    pub values: Vec<u64>,
}

/// What [`write`] produced.
#[derive(Debug, Default)]
pub struct Written {
    pub figures: usize,
    /// Why the figures were not drawn (no usable font), when they were not; plots.json and
    /// the card's section are written all the same.
    pub not_drawn: Option<String>,
    pub html: bool,
}

const BEGIN: &str = "<!-- codemine:figures -->";
const END: &str = "<!-- /codemine:figures -->";

/// Draws every figure of `out_dir` (SVG, PNG when a font is found), writes `plots.json`, the
/// card's "Figures" section and, with `html`, `report.html`. `stats` is stats.json's content.
pub fn write(out_dir: &Path, stats: &ReportStats, html: bool) -> Result<Written, Error> {
    let figures = figures(out_dir, stats)?;
    let mut written = Written {
        figures: figures.len(),
        ..Written::default()
    };
    let mut svgs = Vec::with_capacity(figures.len());
    match plot::font() {
        Ok(()) => {
            for f in &figures {
                let fail = |e: String| Error::Usage(format!("figure {}: {e}", f.name));
                let svg = plot::svg(f).map_err(fail)?;
                write_atomic(
                    &out_dir.join(format!("plot_{}.svg", f.name)),
                    svg.as_bytes(),
                )?;
                let png = plot::png(f).map_err(fail)?;
                write_atomic(&out_dir.join(format!("plot_{}.png", f.name)), &png)?;
                svgs.push(svg);
            }
        }
        Err(why) => written.not_drawn = Some(why),
    }
    let json = serde_json::to_vec_pretty(&serde_json::json!({ "figures": &figures }))
        .map_err(|e| Error::Usage(format!("plots.json: {e}")))?;
    write_atomic(&out_dir.join("plots.json"), &json)?;
    write_card_section(out_dir, &figures, written.not_drawn.as_deref())?;
    if html {
        let page = html::page(stats, &figures, &svgs);
        write_atomic(&out_dir.join("report.html"), page.as_bytes())?;
        written.html = true;
    }
    Ok(written)
}

/// Puts the "Figures" section into the card, replacing an earlier one; a folder without a
/// card gets a card of the figures alone. The section is found by its markers standing as
/// whole lines: no text from input can make such a line, as every text the card quotes is
/// escaped (`crate::escape::markdown` writes `<` as `&lt;` and keeps it on one line).
fn write_card_section(
    out_dir: &Path,
    figures: &[Figure],
    not_drawn: Option<&str>,
) -> Result<(), Error> {
    let path = out_dir.join("README.md");
    let card = match codemine_io::read_regular(&path, MAX_CARD_BYTES, codemine_io::Follow::Yes) {
        Ok(bytes) => String::from_utf8(bytes).map_err(|_| {
            Error::Usage(format!(
                "{}: not UTF-8; is this a dataset card of codemine?",
                path.display()
            ))
        })?,
        Err(codemine_io::ReadError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => {
            String::new()
        }
        Err(e) => return Err(read_error(&path, e)),
    };
    let mut section = format!("{BEGIN}\n## Figures\n\n");
    section += "Drawn by codemine from this folder (`codemine report` redraws them); the numbers \
                behind each figure are in `plots.json`.\n\n";
    match not_drawn {
        None => {
            for f in figures {
                section += &format!("![{}](plot_{}.svg)\n\n", f.title, f.name);
            }
        }
        Some(why) => {
            section += &format!(
                "The figures were not drawn: {}.\n\n",
                crate::escape::markdown(why)
            )
        }
    }
    section += END;
    let card = match marker_lines(&card) {
        Some((a, b)) => format!("{}{section}{}", &card[..a], &card[b..]),
        None if card.is_empty() => format!("{section}\n"),
        None => format!("{}\n{section}\n", card.trim_end()),
    };
    write_atomic(&path, card.as_bytes())
}

/// The byte range of the figures section: from the start of the first line that is exactly
/// [`BEGIN`] to the end of the first line after it that is exactly [`END`] (its newline
/// left out).
fn marker_lines(card: &str) -> Option<(usize, usize)> {
    let mut begin = None;
    let mut at = 0;
    for line in card.split_inclusive('\n') {
        let text = line.strip_suffix('\n').unwrap_or(line);
        let text = text.strip_suffix('\r').unwrap_or(text);
        match begin {
            None if text == BEGIN => begin = Some(at),
            Some(a) if text == END => return Some((a, at + text.len())),
            _ => {}
        }
        at += line.len();
    }
    None
}

/// The most bytes of stats.json that are read (a run of a million repositories writes a
/// few hundred MB).
pub const MAX_STATS_BYTES: u64 = 1 << 30;
/// The most bytes of the dataset card that are read.
pub const MAX_CARD_BYTES: u64 = 256 << 20;

fn read_error(path: &Path, e: codemine_io::ReadError) -> Error {
    match e {
        codemine_io::ReadError::Io(source) => Error::Io {
            path: path.to_path_buf(),
            source,
        },
        other => Error::Usage(format!("{}: {other}", path.display())),
    }
}

/// Reads stats.json of a finished output folder: a regular file of at most
/// [`MAX_STATS_BYTES`], with the shape and the counts of [`ReportStats`].
pub fn read_stats(out_dir: &Path) -> Result<ReportStats, Error> {
    let path = out_dir.join("stats.json");
    let bytes = codemine_io::read_regular(&path, MAX_STATS_BYTES, codemine_io::Follow::Yes)
        .map_err(|e| read_error(&path, e))?;
    parse_stats(&path, &bytes)
}

/// stats.json's bytes as [`ReportStats`]; an error names the file, the field and the line.
pub fn parse_stats(path: &Path, bytes: &[u8]) -> Result<ReportStats, Error> {
    let de = &mut serde_json::Deserializer::from_slice(bytes);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let at = e.path().to_string();
        let inner = e.into_inner();
        Error::Usage(format!(
            "{}: not a codemine stats.json: {}{inner}; is this a finished output folder?",
            path.display(),
            if at == "." {
                String::new()
            } else {
                format!("{at}: ")
            },
        ))
    })
}

/// A count in stats.json: a whole number from 0 to 2^53 (JSON's exact integers; no run
/// comes near), so that sums of counts cannot overflow.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Count(pub u64);

/// The largest [`Count`].
pub const MAX_COUNT: u64 = 1 << 53;

impl<'de> Deserialize<'de> for Count {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Count;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                write!(f, "a count (a whole number from 0 to 2^53)")
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Count, E> {
                if v > MAX_COUNT {
                    return Err(E::custom(format!("{v} is not a count (more than 2^53)")));
                }
                Ok(Count(v))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Count, E> {
                match u64::try_from(v) {
                    Ok(v) => self.visit_u64(v),
                    Err(_) => Err(E::custom(format!("{v} is not a count (negative)"))),
                }
            }
        }
        d.deserialize_u64(V)
    }
}

/// What the report reads of stats.json. Every section codemine always writes is required;
/// fields the report does not use are skipped.
#[derive(Debug, Clone, Deserialize)]
pub struct ReportStats {
    pub codemine_version: String,
    pub stages: ReportStages,
    pub languages: std::collections::BTreeMap<String, LanguageCounts>,
    pub repositories: Vec<RepositoryCounts>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct ReportStages {
    pub source: SourceCounts,
    pub extract: ExtractCounts,
    pub resolve: ResolveCounts,
    pub filter: FilterCounts,
    #[serde(default)]
    pub dedup: Option<DedupCounts>,
    pub write: WriteCounts,
}

#[derive(Debug, Clone, Deserialize)]
pub struct SourceCounts {
    pub repositories: Count,
    pub opened: Count,
}

#[derive(Debug, Clone, Deserialize)]
pub struct ExtractCounts {
    pub files: Count,
    pub functions: Count,
    pub csn_rows: Count,
}

#[derive(Debug, Clone, Deserialize)]
pub struct ResolveCounts {
    #[serde(default)]
    pub by_category: std::collections::BTreeMap<String, Count>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct FilterCounts {
    pub input: Count,
    pub kept: Count,
    /// Rule name -> functions it removed.
    #[serde(default)]
    pub removed: std::collections::BTreeMap<String, Count>,
    /// Active rules in evaluation order.
    #[serde(default)]
    pub rules: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct DedupCounts {
    pub exact_removed: Count,
    pub near_removed: Count,
    /// Cluster size (a decimal number) -> clusters of that size.
    #[serde(default)]
    pub cluster_sizes: std::collections::BTreeMap<String, Count>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct WriteCounts {
    pub csn_rows: std::collections::BTreeMap<String, Count>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct LanguageCounts {
    pub functions: Count,
    pub csn_rows: Count,
}

#[derive(Debug, Clone, Deserialize)]
pub struct RepositoryCounts {
    pub repo: String,
    pub status: String,
    pub totals: RepositoryTotals,
}

#[derive(Debug, Clone, Deserialize)]
pub struct RepositoryTotals {
    pub functions: Count,
    pub csn_rows: Count,
}
