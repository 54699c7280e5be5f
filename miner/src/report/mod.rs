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
//! ```no_run
//! let out = std::path::Path::new("out");
//! let stats: serde_json::Value =
//!     serde_json::from_slice(&std::fs::read(out.join("stats.json")).unwrap()).unwrap();
//! let figures = miner::report::figures(out, &stats).unwrap();
//! println!("{} figures", figures.len());
//! ```

mod data;
mod html;
mod plot;

use std::path::Path;

use serde::Serialize;
use serde_json::Value;

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
pub fn write(out_dir: &Path, stats: &Value, html: bool) -> Result<Written, Error> {
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
/// card gets a card of the figures alone.
fn write_card_section(
    out_dir: &Path,
    figures: &[Figure],
    not_drawn: Option<&str>,
) -> Result<(), Error> {
    let path = out_dir.join("README.md");
    let card = match std::fs::read_to_string(&path) {
        Ok(c) => c,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(source) => return Err(Error::Io { path, source }),
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
        Some(why) => section += &format!("The figures were not drawn: {why}.\n\n"),
    }
    section += END;
    let card = match (card.find(BEGIN), card.find(END)) {
        (Some(a), Some(b)) if a < b => format!("{}{section}{}", &card[..a], &card[b + END.len()..]),
        _ if card.is_empty() => format!("{section}\n"),
        _ => format!("{}\n{section}\n", card.trim_end()),
    };
    write_atomic(&path, card.as_bytes())
}

/// Reads stats.json of a finished output folder.
pub fn read_stats(out_dir: &Path) -> Result<Value, Error> {
    let path = out_dir.join("stats.json");
    let bytes = std::fs::read(&path).map_err(|source| Error::Io {
        path: path.clone(),
        source,
    })?;
    serde_json::from_slice(&bytes).map_err(|e| {
        Error::Usage(format!(
            "{}: not a codemine stats.json ({e}); is this a finished output folder?",
            path.display()
        ))
    })
}
