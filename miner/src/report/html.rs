//! `report.html`: one self-contained page (figures as `data:` URIs, no network) with the
//! run's headline numbers, every figure, and the numbers behind it in a table.

use base64::Engine;

use super::{Figure, ReportStats};
use crate::escape::html as esc;

/// The page; `svgs[i]` is the drawing of `figures[i]` (absent when no font was found).
pub fn page(stats: &ReportStats, figures: &[Figure], svgs: &[String]) -> String {
    let extract = &stats.stages.extract;
    let source = &stats.stages.source;
    let mut h = String::from(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <title>codemine dataset report</title>\n<style>\n\
         body{font-family:sans-serif;max-width:1000px;margin:2em auto;padding:0 1em;color:#222}\n\
         figure{margin:2em 0}img{max-width:100%;border:1px solid #ddd}\n\
         table{border-collapse:collapse;font-size:90%}td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}\n\
         td:first-child,th:first-child{text-align:left}\n</style>\n</head>\n<body>\n",
    );
    h += &format!(
        "<h1>codemine dataset report</h1>\n<p>codemine {}: {} of {} repositories mined, {} files \
         parsed, {} functions extracted, {} rows in the CodeSearchNet shape.</p>\n",
        esc(&stats.codemine_version),
        source.opened.0,
        source.repositories.0,
        extract.files.0,
        extract.functions.0,
        extract.csn_rows.0,
    );
    for (i, f) in figures.iter().enumerate() {
        h += &format!("<figure id=\"{}\">\n", f.name);
        match svgs.get(i) {
            Some(svg) => {
                let b64 = base64::engine::general_purpose::STANDARD.encode(svg.as_bytes());
                h += &format!(
                    "<img class=\"figure\" alt=\"{}\" src=\"data:image/svg+xml;base64,{b64}\">\n",
                    esc(&f.title)
                );
            }
            None => h += "<p>(figure not drawn: no font; the numbers are below)</p>\n",
        }
        h += &format!(
            "<figcaption>{}</figcaption>\n<details><summary>numbers</summary>\n<table>\n<tr><th>{}</th>",
            esc(&f.title),
            esc(&f.category_label)
        );
        for s in &f.series {
            h += &format!("<th>{}</th>", esc(s.name));
        }
        h += "</tr>\n";
        for (row, label) in f.labels.iter().enumerate() {
            h += &format!("<tr><td>{}</td>", esc(label));
            for s in &f.series {
                h += &format!("<td>{}</td>", s.values.get(row).copied().unwrap_or(0));
            }
            h += "</tr>\n";
        }
        h += "</table>\n</details>\n</figure>\n";
    }
    // Marks the page with how many figures loaded, for people and for headless checks.
    h += "<script>\nwindow.addEventListener('load', function () {\n\
          var imgs = document.querySelectorAll('img.figure');\n\
          var ok = 0; imgs.forEach(function (i) { if (i.complete && i.naturalWidth > 0) ok++; });\n\
          document.body.setAttribute('data-figures', imgs.length);\n\
          document.body.setAttribute('data-figures-loaded', ok);\n});\n</script>\n";
    h += "</body>\n</html>\n";
    h
}
