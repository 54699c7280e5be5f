//! Personal data and secrets in text (issue 37): e-mail and IP addresses, cloud keys,
//! service tokens, JWTs, private keys, passwords in URLs, connection strings and
//! assignments; found, and redacted, before a dataset is published. docs/pii.md says what
//! is detected, by whose rule, and where codemine differs from bigcode-dataset and
//! detect-secrets on purpose.
//!
//! ```
//! use codemine_pii::{Detector, Kind, PiiConfig};
//!
//! let detector = Detector::new(&PiiConfig::default()).unwrap();
//! let code = r#"key = "AKIAQWERTYUIOPASDFGH"  # ask jane.doe@corp.io"#;
//! let found = detector.scan(code).unwrap();
//! assert_eq!(found.iter().map(|f| f.kind).collect::<Vec<_>>(), [Kind::AwsAccessKeyId, Kind::Email]);
//! assert_eq!(codemine_pii::redact(code, &found), r#"key = "<KEY>"  # ask <EMAIL>"#);
//! ```
//!
//! # How a text is scanned
//! A few linear passes of fast searches find the triggers: one Aho-Corasick automaton of
//! literal triggers (token prefixes such as `AKIA`, `ghp_`, `eyJ`, `PRIVATE KEY`, and the
//! keyword stems `pass`, `secret`, `token`, `key`, ... in three cases), memchr for `@`
//! and for the `:` of IPv6 candidates, memmem for `://`, and two small regexes with fast
//! literal or DFA scans (Twilio's `AC`/`SK` keys, IPv4 candidates). Only where a
//! trigger fires does a costly check run: a bounded scan after a token's prefix
//! ([`tokens`]), a bounded scan around an `@` ([`email`]), or the keyword regexes over a
//! window of at most the trigger's line, 256 bytes before and 1 KiB after it
//! ([`keyword`]); windows of one family that overlap are merged, so every byte is looked at
//! a bounded number of times. A text without any trigger costs the automata's scan alone.
//! Texts longer than [`PiiConfig::max_text_bytes`] (16 MiB by default) are refused.
//!
//! # Findings
//! Each [`Finding`] has a [`Kind`] (a stable snake_case name) and a byte span. Findings
//! never overlap and come sorted by start: where candidates overlap, the more specific
//! detector wins (a private key block, then fixed-shape tokens, then URL and connection-
//! string passwords, then keyword assignments, then e-mail, then IP addresses); between
//! equals, the longer span, then the earlier one. A candidate on the allow list
//! ([`PiiConfig`]) is not reported, and it still wins its place, so that nothing found
//! inside a known example value is reported either.
//!
//! # Rows
//! A row has several texts (code, docstring, ...). [`Detector::scan_row`] scans each and
//! then looks, in every text of the row, for the values found anywhere in it (of at least
//! [`MIN_PROPAGATED`] bytes): a password found in `code` by its assignment is also found
//! where the docstring repeats it without one. [`redact`] is a pure function of the kind
//! and the value ([`redact::replacement`]), so the same value gets the same replacement in
//! every field of the row (and in every row).
//!
//! # How the mining step calls it
//! `codemine mine --pii` (`miner/src/pipeline/pii.rs`, docs/pii.md "The mining step")
//! builds one [`Detector`] per run from the filter TOML's `[pii]` table (`PiiConfig` is
//! `Deserialize`; [`Detector::new`] reports a bad table as a [`ConfigError`]) and shares it
//! across threads (it is `Send + Sync`). Each source file's text is scanned once, as one
//! row of one text ([`Detector::scan_row`], so that repeats are found), before it is
//! parsed; with redaction, the findings are replaced in the file's text (keeping its line
//! breaks) and the redacted text is what is parsed and written. A text over the limit
//! ([`PiiError::TooLarge`]) is the file's failure.

pub mod config;
pub mod email;
pub mod entropy;
pub mod ip;
pub mod keyword;
pub mod kind;
pub mod redact;
pub mod tokens;

use std::collections::BTreeMap;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use regex::Regex;

pub use config::{ConfigError, PiiConfig, DEFAULT_MAX_TEXT_BYTES};
pub use kind::{Category, Finding, Kind};
pub use redact::{redact, replacement};

/// The shortest value [`Detector::scan_row`] looks for again in the other texts of a row:
/// shorter ones (a four-letter password) match ordinary text too often.
pub const MIN_PROPAGATED: usize = 6;

/// Bytes of context a keyword window takes before its trigger and after it.
const KEYWORD_BEFORE: usize = 256;
const KEYWORD_AFTER: usize = 1024;
/// Bytes a URL window takes before `://` (the scheme and nothing else) and after it.
const URL_BEFORE: usize = 64;
const URL_AFTER: usize = 512;

/// A text that cannot be scanned.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum PiiError {
    #[error("text of {len} bytes is longer than the PII scan limit of {limit} bytes (pii.max_text_bytes)")]
    TooLarge { len: usize, limit: usize },
}

#[derive(Clone, Copy, Debug)]
enum Trigger {
    Keyword,
    Token(usize),
}

/// The compiled detector: build once, share across threads.
pub struct Detector {
    allow: config::Allow,
    skip: Vec<Kind>,
    max_text_bytes: usize,
    triggers: AhoCorasick,
    trigger_of: Vec<Trigger>,
    url: memchr::memmem::Finder<'static>,
    twilio: Regex,
    ipv4: Regex,
    patterns: keyword::Patterns,
}

impl std::fmt::Debug for Detector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Detector")
            .field("skip", &self.skip)
            .finish_non_exhaustive()
    }
}

/// One candidate before overlaps and the allow list are settled.
#[derive(Clone, Copy, Debug)]
struct Candidate {
    kind: Kind,
    start: usize,
    end: usize,
}

impl Detector {
    pub fn new(config: &PiiConfig) -> Result<Detector, ConfigError> {
        let allow = config::Allow::new(config)?;
        let mut patterns: Vec<String> = Vec::new();
        let mut trigger_of = Vec::new();
        for t in keyword::triggers() {
            patterns.push(t);
            trigger_of.push(Trigger::Keyword);
        }
        for (i, rule) in tokens::RULES.iter().enumerate() {
            patterns.push(rule.trigger.to_string());
            trigger_of.push(Trigger::Token(i));
        }
        let internal = |e: &dyn std::fmt::Display| ConfigError::Internal(e.to_string());
        let triggers = AhoCorasickBuilder::new()
            .match_kind(MatchKind::LeftmostLongest)
            .build(&patterns)
            .map_err(|e| internal(&e))?;
        Ok(Detector {
            allow,
            skip: config.skip_kinds.clone(),
            max_text_bytes: config.max_text_bytes,
            triggers,
            trigger_of,
            url: memchr::memmem::Finder::new(b"://").into_owned(),
            twilio: Regex::new(tokens::TWILIO).map_err(|e| internal(&e))?,
            ipv4: Regex::new(ip::CANDIDATE_V4).map_err(|e| internal(&e))?,
            patterns: keyword::Patterns::new(),
        })
    }

    /// The findings in `text`, sorted by start, never overlapping.
    pub fn scan(&self, text: &str) -> Result<Vec<Finding>, PiiError> {
        if text.len() > self.max_text_bytes {
            return Err(PiiError::TooLarge {
                len: text.len(),
                limit: self.max_text_bytes,
            });
        }
        let mut cands = Vec::new();
        self.candidates(text, &mut cands);
        Ok(self.settle(text, cands))
    }

    fn candidates(&self, text: &str, cands: &mut Vec<Candidate>) {
        let b = text.as_bytes();
        // Literal triggers: token prefixes and keyword stems.
        let mut spans = Vec::new();
        let mut keyword_windows = Windows::default();
        for m in self.triggers.find_iter(text) {
            match self.trigger_of[m.pattern().as_usize()] {
                Trigger::Keyword => {
                    if keyword::stem_may_match(text, m.start(), m.end()) {
                        keyword_windows.push(
                            text,
                            m.start(),
                            m.end(),
                            KEYWORD_BEFORE,
                            KEYWORD_AFTER,
                            &mut |lo, hi| self.window(text, lo, hi, cands, false),
                        );
                    }
                }
                Trigger::Token(i) => {
                    let rule = &tokens::RULES[i];
                    spans.clear();
                    tokens::check(rule, text, m.start(), &mut spans);
                    cands.extend(spans.iter().map(|&(start, end)| Candidate {
                        kind: rule.kind,
                        start,
                        end,
                    }));
                }
            }
        }
        keyword_windows.finish(&mut |lo, hi| self.window(text, lo, hi, cands, false));
        // Single-byte and two-byte triggers, each by the fastest search for it.
        let mut url_windows = Windows::default();
        for at in self.url.find_iter(b) {
            url_windows.push(text, at, at + 3, URL_BEFORE, URL_AFTER, &mut |lo, hi| {
                self.window(text, lo, hi, cands, true)
            });
        }
        url_windows.finish(&mut |lo, hi| self.window(text, lo, hi, cands, true));
        let mut email_floor = 0;
        for at in memchr::memchr_iter(b'@', b) {
            if at >= email_floor {
                if let Some((start, end)) = email::around(text, at, email_floor) {
                    cands.push(Candidate {
                        kind: Kind::Email,
                        start,
                        end,
                    });
                    email_floor = end;
                }
            }
        }
        for m in self.twilio.find_iter(text) {
            if tokens::twilio_alone(text, m.start(), m.end()) {
                cands.push(Candidate {
                    kind: Kind::TwilioKey,
                    start: m.start(),
                    end: m.end(),
                });
            }
        }
        let mut ips: Vec<(usize, usize)> = self
            .ipv4
            .find_iter(text)
            .map(|m| (m.start(), m.end()))
            .collect();
        ip::v6_candidates(text, &mut ips);
        for (start, end) in ips {
            if ip::is_personal(text, start, end) {
                cands.push(Candidate {
                    kind: Kind::IpAddress,
                    start,
                    end,
                });
            }
        }
    }

    fn window(&self, text: &str, lo: usize, hi: usize, cands: &mut Vec<Candidate>, url: bool) {
        let mut hits = Vec::new();
        if url {
            self.patterns.url_window(text, lo, hi, &mut hits);
        } else {
            self.patterns.keyword_window(text, lo, hi, &mut hits);
        }
        cands.extend(
            hits.into_iter()
                .map(|(kind, start, end)| Candidate { kind, start, end }),
        );
    }

    /// Skipped kinds out, overlaps settled, allowed values out, sorted by start.
    fn settle(&self, text: &str, mut cands: Vec<Candidate>) -> Vec<Finding> {
        cands.retain(|c| !self.skip.contains(&c.kind) && c.start < c.end);
        cands.sort_by(|a, b| {
            b.kind
                .priority()
                .cmp(&a.kind.priority())
                .then((b.end - b.start).cmp(&(a.end - a.start)))
                .then(a.start.cmp(&b.start))
        });
        // Accepted spans by start (disjoint), with whether each is reported.
        let mut taken: BTreeMap<usize, (usize, Kind, bool)> = BTreeMap::new();
        for c in cands {
            let clash = taken
                .range(..c.end)
                .next_back()
                .is_some_and(|(_, &(end, _, _))| end > c.start);
            if clash {
                continue;
            }
            let allowed = self.allow.allows(c.kind, &text[c.start..c.end]);
            taken.insert(c.start, (c.end, c.kind, !allowed));
        }
        taken
            .into_iter()
            .filter(|(_, (_, _, report))| *report)
            .map(|(start, (end, kind, _))| Finding { start, end, kind })
            .collect()
    }

    /// The findings of a row's texts, with the values found in any of them looked for in
    /// all of them (see the crate docs, "Rows").
    pub fn scan_row(&self, fields: &[&str]) -> Result<RowFindings, PiiError> {
        let mut per_field = Vec::with_capacity(fields.len());
        let mut values: BTreeMap<&str, Kind> = BTreeMap::new();
        for text in fields {
            let found = self.scan(text)?;
            for f in &found {
                let v = f.value(text);
                if v.len() >= MIN_PROPAGATED {
                    values.entry(v).or_insert(f.kind);
                }
            }
            per_field.push(found);
        }
        if !values.is_empty() {
            let (needles, kinds): (Vec<&str>, Vec<Kind>) = values.into_iter().unzip();
            if let Ok(ac) = AhoCorasickBuilder::new()
                .match_kind(MatchKind::LeftmostLongest)
                .build(&needles)
            {
                for (text, found) in fields.iter().zip(per_field.iter_mut()) {
                    let b = text.as_bytes();
                    let mut cands: Vec<Candidate> = found
                        .iter()
                        .map(|f| Candidate {
                            kind: f.kind,
                            start: f.start,
                            end: f.end,
                        })
                        .collect();
                    let before = cands.len();
                    for m in ac.find_iter(text) {
                        // `_` is a word character too: `PEEKED_BEGIN_OBJECT` holds no
                        // repeat of `BEGIN_OBJECT`.
                        let word = |c: &u8| c.is_ascii_alphanumeric() || *c == b'_';
                        let alnum_edge =
                            |i: Option<usize>| i.and_then(|i| b.get(i)).is_some_and(word);
                        let inner_start = word(&b[m.start()]);
                        let inner_end = word(&b[m.end() - 1]);
                        // A repeated value is found where it stands alone, not inside a longer word.
                        if (inner_start && alnum_edge(m.start().checked_sub(1)))
                            || (inner_end && alnum_edge(Some(m.end())))
                        {
                            continue;
                        }
                        let kind = kinds[m.pattern().as_usize()];
                        cands.push(Candidate {
                            kind,
                            start: m.start(),
                            end: m.end(),
                        });
                    }
                    if cands.len() > before {
                        *found = settle_repeats(cands);
                    }
                }
            }
        }
        Ok(RowFindings { fields: per_field })
    }
}

/// A row's own findings first (they are already settled), repeats only where free.
fn settle_repeats(cands: Vec<Candidate>) -> Vec<Finding> {
    let mut taken: BTreeMap<usize, (usize, Kind)> = BTreeMap::new();
    for c in cands {
        let clash = taken
            .range(..c.end)
            .next_back()
            .is_some_and(|(_, &(end, _))| end > c.start);
        if !clash {
            taken.insert(c.start, (c.end, c.kind));
        }
    }
    taken
        .into_iter()
        .map(|(start, (end, kind))| Finding { start, end, kind })
        .collect()
}

/// The findings of a row: `fields[i]` holds those of the row's `i`-th text.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RowFindings {
    pub fields: Vec<Vec<Finding>>,
}

impl RowFindings {
    /// `(field index, finding)` for every finding of the row.
    pub fn iter(&self) -> impl Iterator<Item = (usize, &Finding)> {
        self.fields
            .iter()
            .enumerate()
            .flat_map(|(i, f)| f.iter().map(move |x| (i, x)))
    }

    pub fn is_empty(&self) -> bool {
        self.fields.iter().all(Vec::is_empty)
    }

    /// Whether the row has a finding of this category.
    pub fn has(&self, category: Category) -> bool {
        self.iter().any(|(_, f)| f.kind.category() == category)
    }

    /// The kinds found, sorted, each once.
    pub fn kinds(&self) -> Vec<Kind> {
        let mut k: Vec<Kind> = self.iter().map(|(_, f)| f.kind).collect();
        k.sort();
        k.dedup();
        k
    }

    /// The row's texts redacted (the same texts, in the same order, as were scanned).
    pub fn redact(&self, fields: &[&str]) -> Vec<String> {
        fields
            .iter()
            .enumerate()
            .map(|(i, t)| redact(t, self.fields.get(i).map_or(&[][..], Vec::as_slice)))
            .collect()
    }
}

/// Windows of one family, merged while they overlap, handed to `run` once each.
#[derive(Default)]
struct Windows {
    current: Option<(usize, usize)>,
}

impl Windows {
    fn push(
        &mut self,
        text: &str,
        start: usize,
        end: usize,
        before: usize,
        after: usize,
        run: &mut dyn FnMut(usize, usize),
    ) {
        let (lo, hi) = line_window(text, start, end, before, after);
        match self.current {
            Some((clo, chi)) if lo <= chi => self.current = Some((clo, chi.max(hi))),
            Some((clo, chi)) => {
                run(clo, chi);
                self.current = Some((lo, hi));
            }
            None => self.current = Some((lo, hi)),
        }
    }

    fn finish(&mut self, run: &mut dyn FnMut(usize, usize)) {
        if let Some((lo, hi)) = self.current.take() {
            run(lo, hi);
        }
    }
}

/// The window around a trigger `start..end`: its line, at most `before` bytes before it
/// and `after` bytes after it, on character boundaries.
fn line_window(
    text: &str,
    start: usize,
    end: usize,
    before: usize,
    after: usize,
) -> (usize, usize) {
    let b = text.as_bytes();
    let from = start.saturating_sub(before);
    let mut lo = b[from..start]
        .iter()
        .rposition(|&c| c == b'\n')
        .map_or(from, |p| from + p + 1);
    let to = (end + after).min(b.len());
    let mut hi = b[end..to]
        .iter()
        .position(|&c| c == b'\n')
        .map_or(to, |p| end + p);
    while !text.is_char_boundary(lo) {
        lo += 1;
    }
    while !text.is_char_boundary(hi) {
        hi -= 1;
    }
    (lo, hi)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detector_is_shareable() {
        fn shareable<T: Send + Sync>() {}
        shareable::<Detector>();
    }

    /// Random texts of tricky pieces: no panic, findings sorted, disjoint, on char
    /// boundaries, and redaction leaves nothing to find that was found before.
    #[test]
    fn random_texts_hold_the_invariants() {
        const PIECES: &[&str] = &[
            "@",
            ":",
            "::",
            ".",
            "1",
            "93",
            "255",
            "a",
            "Z",
            "é",
            "中",
            " ",
            "\n",
            "\\n",
            "\"",
            "'",
            "=",
            "_",
            "-----BEGIN PRIVATE KEY-----",
            "-----END PRIVATE KEY-----",
            "QUJDRA",
            "eyJ",
            "eyJhbGciOiJub25lIn0",
            "AKIA",
            "ghp_",
            "xoxb-",
            "12-",
            "://",
            "user",
            "password",
            "api_key",
            "token",
            "secret",
            "key",
            "Pass",
            "AccountKey=",
            "sk_live_",
            "AC",
            "npm_",
            "x.com",
            "[",
            "]",
            "(",
            ")",
            ";",
            "%",
            "$",
            "{",
            "}",
        ];
        let d = Detector::new(&PiiConfig::default()).unwrap();
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        for _ in 0..3000 {
            let mut text = String::new();
            for _ in 0..(x % 200) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                text.push_str(PIECES[(x % PIECES.len() as u64) as usize]);
            }
            let found = d.scan(&text).unwrap();
            for w in found.windows(2) {
                assert!(w[0].end <= w[1].start, "{text:?}: {found:?}");
            }
            for f in &found {
                assert!(
                    f.start < f.end
                        && text.is_char_boundary(f.start)
                        && text.is_char_boundary(f.end)
                );
            }
            let row = d.scan_row(&[&text, &text]).unwrap();
            let out = row.redact(&[&text, &text]);
            assert_eq!(out[0], out[1]);
        }
    }

    #[test]
    fn too_large() {
        let d = Detector::new(&PiiConfig {
            max_text_bytes: 4,
            ..PiiConfig::default()
        })
        .unwrap();
        assert_eq!(
            d.scan("12345"),
            Err(PiiError::TooLarge { len: 5, limit: 4 })
        );
        assert_eq!(d.scan("1234"), Ok(vec![]));
    }
}
