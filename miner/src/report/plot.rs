//! Drawing a [`Figure`] as a horizontal bar chart (categories top to bottom, one bar per
//! series), to SVG text and to a PNG file, with plotters.
//!
//! Text needs a TrueType font for its metrics (SVG) and its glyphs (PNG); [`font`] loads the
//! first of `CODEMINE_FONT` and the usual system fonts (Debian's `fonts-dejavu-core`, which
//! the setup script installs) once per process.

use std::sync::OnceLock;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::FontStyle;

use super::Figure;

const WIDTH: u32 = 900;
const PALETTE: [RGBColor; 3] = [
    RGBColor(0x1f, 0x77, 0xb4),
    RGBColor(0xff, 0x7f, 0x0e),
    RGBColor(0x2c, 0xa0, 0x2c),
];
/// Labels longer than this are cut (repository names).
const LABEL_CHARS: usize = 42;

/// Fonts tried in order after `CODEMINE_FONT`.
const SYSTEM_FONTS: &[&str] = &[
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
    "/usr/share/fonts/liberation/LiberationSans-Regular.ttf",
    "/usr/share/fonts/truetype/lato/Lato-Regular.ttf",
    "/usr/share/fonts/truetype/freefont/FreeSans.ttf",
    "/Library/Fonts/Arial.ttf",
    "C:\\Windows\\Fonts\\arial.ttf",
];

/// Registers a font for the figures' text; the error says what was tried.
pub fn font() -> Result<(), String> {
    static FONT: OnceLock<Result<(), String>> = OnceLock::new();
    FONT.get_or_init(|| {
        let mut tried = Vec::new();
        let env = std::env::var("CODEMINE_FONT").ok();
        for path in env
            .iter()
            .map(String::as_str)
            .chain(SYSTEM_FONTS.iter().copied())
        {
            let Ok(bytes) = codemine_io::read_regular(
                std::path::Path::new(path),
                64 << 20,
                codemine_io::Follow::Yes,
            ) else {
                tried.push(path.to_string());
                continue;
            };
            // The font lives as long as the process: plotters keeps a &'static reference.
            let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
            if plotters::style::register_font("sans-serif", FontStyle::Normal, bytes).is_ok() {
                return Ok(());
            }
            tried.push(format!("{path} (not a TrueType font)"));
        }
        Err(format!(
            "no TrueType font found (tried {}); install fonts-dejavu-core or set CODEMINE_FONT",
            tried.join(", ")
        ))
    })
    .clone()
}

fn height(f: &Figure) -> u32 {
    let per_row = 8 + 16 * f.series.len().max(1) as u32;
    (110 + per_row * f.labels.len() as u32).max(220)
}

/// A label as drawn: one line of visible text (a repository name may hold a newline or a
/// NUL, which SVG cannot carry), cut to [`LABEL_CHARS`].
fn cut(label: &str) -> String {
    let label = crate::escape::visible(label);
    if label.chars().count() <= LABEL_CHARS {
        label.into_owned()
    } else {
        let head: String = label.chars().take(LABEL_CHARS - 1).collect();
        format!("{head}…")
    }
}

fn draw<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, f: &Figure) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    root.fill(&WHITE).map_err(e)?;
    let n = f.labels.len().max(1);
    let m = f.series.len().max(1);
    let max = f
        .series
        .iter()
        .flat_map(|s| s.values.iter().copied())
        .max()
        .unwrap_or(0)
        .max(1) as f64;
    let labels: Vec<String> = f.labels.iter().map(|l| cut(l)).collect();
    let label_width = labels.iter().map(|l| l.chars().count()).max().unwrap_or(4) as u32 * 7 + 24;
    let mut chart = ChartBuilder::on(root)
        .caption(&f.title, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(44)
        .y_label_area_size(label_width)
        .build_cartesian_2d(0f64..max * 1.18, 0f64..n as f64)
        .map_err(e)?;
    // The categories are labelled below by hand, one per band: plotters' own labels on a
    // numeric axis fall where its tick algorithm puts them.
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(0)
        .x_label_formatter(&|x| format!("{x:.0}"))
        .x_desc(&f.value_label)
        .y_desc(&f.category_label)
        .label_style(("sans-serif", 12))
        .draw()
        .map_err(e)?;
    // Category i (0 = first) is the band [n-i-1, n-i], so the first one is on top.
    let at = |x: f64, y: f64| chart.backend_coord(&(x, y));
    let value_style = TextStyle::from(("sans-serif", 11).into_font()).pos(
        plotters::style::text_anchor::Pos::new(
            plotters::style::text_anchor::HPos::Left,
            plotters::style::text_anchor::VPos::Center,
        ),
    );
    let label_style = TextStyle::from(("sans-serif", 12).into_font()).pos(
        plotters::style::text_anchor::Pos::new(
            plotters::style::text_anchor::HPos::Right,
            plotters::style::text_anchor::VPos::Center,
        ),
    );
    for i in 0..n {
        let k = (n - 1 - i) as f64;
        let ((x0, bottom), (_, top)) = (at(0.0, k), at(0.0, k + 1.0));
        let (top, bottom) = (top.min(bottom), top.max(bottom));
        let label = labels.get(i).map(String::as_str).unwrap_or("");
        root.draw(&Text::new(
            label.to_string(),
            (x0 - 6, (top + bottom) / 2),
            &label_style,
        ))
        .map_err(e)?;
        let band = (bottom - top) as f64 * 0.8 / m as f64;
        for (s, series) in f.series.iter().enumerate() {
            let v = series.values.get(i).copied().unwrap_or(0);
            let (x1, _) = at(v as f64, k);
            let y0 = top + ((bottom - top) as f64 * 0.1 + s as f64 * band) as i32;
            let y1 = y0 + band.max(1.0) as i32;
            let color = PALETTE[s % PALETTE.len()];
            root.draw(&Rectangle::new(
                [(x0, y0), (x1.max(x0 + 1), y1)],
                color.filled(),
            ))
            .map_err(e)?;
            root.draw(&Text::new(
                format!("{v}"),
                (x1 + 4, (y0 + y1) / 2),
                &value_style,
            ))
            .map_err(e)?;
        }
    }
    if m > 1 {
        let (w, _) = root.dim_in_pixel();
        for (s, series) in f.series.iter().enumerate() {
            // In the caption band, right of a centred title: clear of the bars.
            let y = 12 + 14 * s as i32;
            let x = w as i32 - 140;
            let color = PALETTE[s % PALETTE.len()];
            root.draw(&Rectangle::new(
                [(x, y - 5), (x + 12, y + 5)],
                color.filled(),
            ))
            .map_err(e)?;
            root.draw(&Text::new(
                series.name.to_string(),
                (x + 18, y),
                &value_style,
            ))
            .map_err(e)?;
        }
    }
    root.present().map_err(e)
}

/// The figure as an SVG document.
pub fn svg(f: &Figure) -> Result<String, String> {
    font()?;
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (WIDTH, height(f))).into_drawing_area();
        draw(&root, f)?;
    }
    Ok(out)
}

/// The figure as PNG bytes.
pub fn png(f: &Figure) -> Result<Vec<u8>, String> {
    font()?;
    let (w, h) = (WIDTH, height(f));
    let mut rgb = vec![0u8; (w * h * 3) as usize];
    {
        let root = BitMapBackend::with_buffer(&mut rgb, (w, h)).into_drawing_area();
        draw(&root, f)?;
    }
    let mut bytes = Vec::new();
    let mut encoder = png::Encoder::new(&mut bytes, w, h);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    // The settings the figures were first written with (the `image` crate's PNG defaults):
    // fast compression, an adaptive filter per row. Other settings give other bytes.
    encoder.set_compression(png::Compression::Fast);
    encoder.set_filter(png::FilterType::Sub);
    encoder.set_adaptive_filter(png::AdaptiveFilterType::Adaptive);
    let mut writer = encoder.write_header().map_err(|e| e.to_string())?;
    writer.write_image_data(&rgb).map_err(|e| e.to_string())?;
    writer.finish().map_err(|e| e.to_string())?;
    Ok(bytes)
}
