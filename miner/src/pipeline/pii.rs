//! The personal-data and secrets step (`mine --pii report|redact|drop`, issue 37).
//!
//! Every file's text is scanned once by [`codemine_pii::Detector`] as it is read, before it
//! is parsed: one pass over the text, so that detection costs little next to parsing. With
//! `redact` (and `drop`) each finding is replaced in the file's text before the parse, so
//! the placeholders reach every text codemine writes from it: `code`, `docstring`, their
//! tokens, the completion and repository-level completion rows, the snapshots. A
//! replacement keeps the line breaks of the value it replaces (a private key block stays as
//! many lines), so every line number of the file is the same as without the step.
//!
//! After the parse each finding is given to the function it is in ([`attribute`]): the
//! innermost function whose code holds it (`code`, or `docstring` for a Python docstring),
//! the function whose docstring comment precedes it (`docstring`), or none (`file`). With
//! `drop`, the functions holding a secret are left out by the funnel rule `pii`
//! ([`DropSecrets`]); personal data in the kept ones, and everything outside functions,
//! is redacted. Each finding is a row of the `pii/` table ([`rows`]): where it is, its
//! kind, what was done; never the value.

use std::ops::Range;
use std::sync::Arc;
use std::time::Instant;

use codemine_pii::{Category, Detector, Finding, Kind, PiiConfig};
use codemine_schemas::pii::PiiRow;
use serde::{Deserialize, Serialize};

use super::steps::{Enriching, RepoStep};
use super::MineOptions;
use crate::extract::Function;
use crate::lang::{Lang, Registry};
use crate::resolve::SourceUnit;
use crate::source::RepoSpec;

/// The funnel rule of `--pii drop`.
pub const RULE: &str = "pii";

/// What the step does with what it finds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PiiMode {
    /// Count and list the findings; change nothing.
    Report,
    /// Replace every finding with its placeholder.
    Redact,
    /// Leave out the functions that hold a secret; redact the rest.
    Drop,
}

impl PiiMode {
    pub fn as_str(self) -> &'static str {
        match self {
            PiiMode::Report => "report",
            PiiMode::Redact => "redact",
            PiiMode::Drop => "drop",
        }
    }

    /// `report`, `redact` or `drop`.
    pub fn parse(s: &str) -> Option<PiiMode> {
        [PiiMode::Report, PiiMode::Redact, PiiMode::Drop]
            .into_iter()
            .find(|m| m.as_str() == s)
    }

    fn redacts(self) -> bool {
        self != PiiMode::Report
    }
}

/// `--pii` and the filter config's `[pii]` table, with the detector built from them.
#[derive(Clone)]
pub struct PiiOptions {
    pub mode: PiiMode,
    pub config: PiiConfig,
    pub detector: Arc<Detector>,
}

impl std::fmt::Debug for PiiOptions {
    // The detector is compiled from the config: the two say the same.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PiiOptions")
            .field("mode", &self.mode)
            .field("config", &self.config)
            .finish()
    }
}

impl PiiOptions {
    /// Builds the detector; a bad `[pii]` table is an error naming the key.
    pub fn new(mode: PiiMode, config: PiiConfig) -> Result<Self, codemine_pii::ConfigError> {
        let detector = Arc::new(Detector::new(&config)?);
        Ok(PiiOptions {
            mode,
            config,
            detector,
        })
    }
}

/// One finding in a file.
#[derive(Debug, Clone)]
pub(super) struct Located {
    pub kind: Kind,
    /// Its byte span in the file as read.
    pub bytes: Range<usize>,
    /// 1-based lines, inclusive.
    pub lines: (u32, u32),
    /// Its span in the text that was parsed (after a BOM, and redacted when redacting).
    parsed: Range<usize>,
    /// The function of the file ([`SourceUnit::functions`] index) it belongs to.
    pub function: Option<usize>,
    /// `code`, `docstring` or `file`.
    pub field: &'static str,
}

/// A file's text after the scan.
pub(super) struct Scanned {
    /// The text to parse and to write from: the file's, or its redaction.
    pub text: String,
    /// The file's text as read, when `text` is a redaction of it.
    pub original: Option<String>,
    pub found: Vec<Located>,
    pub seconds: f64,
}

const BOM: &str = "\u{feff}";

/// Scans a file's text and, when the mode redacts, redacts it; an error (a text over the
/// scan limit) is the file's failure reason.
pub(super) fn scan_file(opts: &PiiOptions, text: String) -> Result<Scanned, String> {
    let t = Instant::now();
    // Functions' spans are in the text after its BOM (`extract_step::parse_text`).
    let bom = if text.starts_with(BOM) { BOM.len() } else { 0 };
    let body = &text[bom..];
    // As a row: a value found once (a password by its assignment) is also found where
    // the file repeats it (a docstring quoting it).
    let found = opts
        .detector
        .scan_row(&[body])
        .map_err(|e| e.to_string())?
        .fields
        .pop()
        .unwrap_or_default();
    if found.is_empty() {
        return Ok(Scanned {
            text,
            original: None,
            found: Vec::new(),
            seconds: t.elapsed().as_secs_f64(),
        });
    }
    let lines = line_spans(body, &found);
    let (redacted, parsed) = match opts.mode.redacts() {
        true => {
            let (r, spans) = redact_keeping_lines(body, &found);
            (Some(format!("{}{r}", &text[..bom])), spans)
        }
        false => (None, found.iter().map(|f| f.start..f.end).collect()),
    };
    let found = found
        .iter()
        .zip(lines)
        .zip(parsed)
        .map(|((f, lines), parsed)| Located {
            kind: f.kind,
            bytes: f.start + bom..f.end + bom,
            lines,
            parsed,
            function: None,
            field: "file",
        })
        .collect();
    let seconds = t.elapsed().as_secs_f64();
    Ok(match redacted {
        Some(r) => Scanned {
            text: r,
            original: Some(text),
            found,
            seconds,
        },
        None => Scanned {
            text,
            original: None,
            found,
            seconds,
        },
    })
}

/// The 1-based first and last line of each finding (sorted by start), in one pass.
fn line_spans(text: &str, found: &[Finding]) -> Vec<(u32, u32)> {
    let b = text.as_bytes();
    let (mut line, mut at) = (1u32, 0usize);
    let count_to = |to: usize, line: &mut u32, at: &mut usize| {
        let to = to.min(b.len()).max(*at);
        *line += memchr::memchr_iter(b'\n', &b[*at..to]).count() as u32;
        *at = to;
    };
    found
        .iter()
        .map(|f| {
            count_to(f.start, &mut line, &mut at);
            let start = line;
            let inner = memchr::memchr_iter(b'\n', &b[f.start.min(b.len())..f.end.min(b.len())])
                .count() as u32;
            (start, start + inner)
        })
        .collect()
}

/// `text` with every finding replaced by its placeholder followed by the line breaks of
/// the value (with a `\` before a break kept: a string literal continued over lines stays
/// one), and each finding's span in the result.
pub(super) fn redact_keeping_lines(text: &str, found: &[Finding]) -> (String, Vec<Range<usize>>) {
    let mut out = String::with_capacity(text.len());
    let mut spans = Vec::with_capacity(found.len());
    let mut at = 0;
    for f in found {
        let (start, end) = (f.start.max(at), f.end.max(f.start.max(at)));
        let (Some(before), Some(value)) = (text.get(at..start), text.get(start..end)) else {
            continue;
        };
        out.push_str(before);
        let s = out.len();
        out.push_str(&codemine_pii::replacement(f.kind, value));
        push_line_breaks(&mut out, value);
        spans.push(s..out.len());
        at = end;
    }
    out.push_str(text.get(at..).unwrap_or_default());
    (out, spans)
}

fn push_line_breaks(out: &mut String, value: &str) {
    let b = value.as_bytes();
    for i in memchr::memchr_iter(b'\n', b) {
        let cr = i > 0 && b[i - 1] == b'\r';
        let before_cr = if cr { i - 1 } else { i };
        if before_cr > 0 && b[before_cr - 1] == b'\\' {
            out.push('\\');
        }
        out.push_str(if cr { "\r\n" } else { "\n" });
    }
}

/// Lines a docstring comment may stand above its function beyond its own (blank lines,
/// decorators, annotations).
const DOC_SLACK_LINES: u32 = 3;

/// Gives each finding of a file to its function and field (see the module docs). Bounded:
/// each function looks at the findings inside its span, a binary search away.
pub(super) fn attribute(found: &mut [Located], functions: &[Function], lang: Lang, text: &str) {
    if found.is_empty() {
        return;
    }
    // The innermost function holding each finding.
    let mut best: Vec<Option<usize>> = vec![None; found.len()];
    for (i, f) in functions.iter().enumerate() {
        let r = &f.byte_range;
        let first = found.partition_point(|x| x.parsed.start < r.start);
        for (j, x) in found.iter().enumerate().skip(first) {
            if x.parsed.start >= r.end {
                break;
            }
            let inner = best[j].is_none_or(|b| {
                let b = &functions[b].byte_range;
                r.end - r.start < b.end - b.start
            });
            if inner {
                best[j] = Some(i);
            }
        }
    }
    // Functions by start, for the docstring comment above one.
    let mut by_start: Vec<usize> = (0..functions.len()).collect();
    by_start.sort_by_key(|&i| functions[i].byte_range.start);
    for (x, inner) in found.iter_mut().zip(best) {
        let written = text
            .get(x.parsed.clone())
            .unwrap_or_default()
            .lines()
            .next()
            .unwrap_or_default();
        let documents = |f: &Function| {
            f.docstring
                .as_deref()
                .is_some_and(|d| !written.is_empty() && d.contains(written))
        };
        let k = by_start.partition_point(|&i| functions[i].byte_range.start < x.parsed.end);
        let above = by_start.get(k).copied().filter(|&i| {
            let f = &functions[i];
            let doc_lines = f
                .docstring
                .as_deref()
                .map_or(0, |d| d.lines().count() as u32);
            f.start_line >= x.lines.1
                && f.start_line - x.lines.1 <= doc_lines + DOC_SLACK_LINES
                && documents(f)
                && inner.is_none_or(|o| functions[o].byte_range.end >= f.byte_range.end)
        });
        (x.function, x.field) = match (above, inner) {
            (Some(i), _) => (Some(i), "docstring"),
            (None, Some(i)) => {
                let f = &functions[i];
                let doc_lines = f
                    .docstring
                    .as_deref()
                    .map_or(0, |d| d.lines().count() as u32);
                // A Python docstring is the first statement of the body.
                let in_body = x.parsed.start >= f.byte_range.start + f.signature.len();
                let in_doc = lang == Lang::Python
                    && documents(f)
                    && in_body
                    && x.lines.0 <= f.signature_end_line + doc_lines + 1;
                (Some(i), if in_doc { "docstring" } else { "code" })
            }
            (None, None) => (None, "file"),
        };
    }
}

/// `--pii drop`: the functions holding a secret leave the funnel by the rule `pii`.
pub(super) struct DropSecrets;

impl RepoStep for DropSecrets {
    fn wanted(&self, opts: &MineOptions, _spec: &RepoSpec) -> bool {
        opts.pii.as_ref().is_some_and(|p| p.mode == PiiMode::Drop)
    }

    fn run(&self, s: &mut Enriching) {
        let mut base = 0;
        let mut dropped = 0;
        for (u, found) in s.units.iter().zip(s.pii) {
            for x in found {
                let Some(i) = x.function else { continue };
                if x.kind.category() == Category::Secret {
                    let o = &mut s.outcome[base + i];
                    if o.is_ok() {
                        *o = Err(RULE);
                        dropped += 1;
                    }
                }
            }
            base += u.functions.len();
        }
        if let Some(p) = &mut s.stats.pii {
            p.functions_dropped += dropped;
        }
    }
}

/// The `pii/` rows of a repository's findings, in file order; `ids` are the nodes' ids
/// (units in order, then functions).
pub(super) fn rows(
    repo: &str,
    mode: PiiMode,
    units: &[SourceUnit],
    found: &[Vec<Located>],
    ids: impl Fn(usize) -> u64,
) -> Vec<PiiRow> {
    let mut out = Vec::new();
    let mut base = 0;
    for (u, found) in units.iter().zip(found) {
        for x in found {
            let secret = x.kind.category() == Category::Secret;
            let id = x.function.map(|i| ids(base + i));
            let action = match mode {
                PiiMode::Report => "reported",
                PiiMode::Drop if secret && id.is_some() => "dropped",
                _ => "redacted",
            };
            out.push(PiiRow {
                repository: repo.to_string(),
                path: u.path.clone(),
                id,
                field: x.field,
                kind: x.kind.name(),
                category: if secret { "secret" } else { "personal_data" },
                start_line: i64::from(x.lines.0),
                end_line: i64::from(x.lines.1),
                start_byte: x.bytes.start as i64,
                end_byte: x.bytes.end as i64,
                action,
            });
        }
        base += u.functions.len();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redaction_keeps_line_breaks_and_continuations() {
        let text = "k = \"-----BEGIN\nAAAA\\\nBBBB\" # end\n";
        let start = text.find('-').unwrap();
        let end = text.find("\" #").unwrap();
        let f = Finding {
            start,
            end,
            kind: Kind::PrivateKey,
        };
        let (r, spans) = redact_keeping_lines(text, &[f]);
        assert_eq!(r, "k = \"<KEY>\n\\\n\" # end\n");
        assert_eq!(&r[spans[0].clone()], "<KEY>\n\\\n");
        assert_eq!(r.lines().count(), text.lines().count());
    }

    #[test]
    fn lines_of_findings() {
        let text = "a\nb x@y.org\nc\n";
        let s = text.find('x').unwrap();
        let f = Finding {
            start: s,
            end: s + 7,
            kind: Kind::Email,
        };
        assert_eq!(line_spans(text, &[f]), vec![(2, 2)]);
    }
}
