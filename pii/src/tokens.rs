//! Secrets of a fixed shape, each found from a literal prefix (its trigger) by a bounded
//! check of the bytes after it: cloud keys, service tokens, JWTs, private key blocks.
//!
//! The shapes are detect-secrets 1.5.0's (`detect_secrets/plugins/*.py`): `aws.py`,
//! `github_token.py`, `gitlab_token.py`, `slack.py`, `stripe.py`, `twilio.py`, `npm.py`,
//! `pypi_token.py`, `jwt.py`, `private_key.py`, `azure_storage_key.py`; plus Google's
//! `AIza` API keys, service-account `private_key_id`s, GitHub's fine-grained `github_pat_`
//! tokens, npm's `npm_` tokens outside `.npmrc` and Azure's `SharedAccessKey=`, which
//! detect-secrets does not have. Where detect-secrets matches inside a longer word (its
//! patterns have no left boundary), codemine wants the token to start a word: an `AKIA...`
//! inside a base64 blob is not a key.

use base64::Engine as _;

use crate::kind::Kind;

/// How a trigger's match is checked.
#[derive(Clone, Copy, Debug)]
pub enum Shape {
    /// The trigger, then `len` characters of `class`, not followed by one of `class`
    /// when `exact` (else the longest run up to `max`).
    Run {
        class: Class,
        min: usize,
        max: usize,
        exact: bool,
    },
    /// detect-secrets' GitLab rule: `min..=max` of `[A-Za-z0-9_-]` then no word character.
    Gitlab { min: usize, max: usize },
    /// `xox[abposr]-(\d+-)+[a-z0-9]+`, case-insensitive.
    Slack,
    /// `https://hooks.slack.com/services/T.../B.../...`.
    SlackWebhook,
    /// `//host/:_authToken=` then `npm_...` or 36 hex digits and dashes.
    NpmRc,
    /// `"private_key_id": "` then 40 hex digits.
    GcpKeyId,
    /// `eyJ` header `.` payload (`.` signature), header and payload JSON.
    Jwt,
    /// `-----BEGIN ... PRIVATE KEY-----` and its body.
    PrivateKey,
    /// `PuTTY-User-Key-File-` up to its `Private-MAC:` line.
    Putty,
}

/// Character classes of token bodies.
#[derive(Clone, Copy, Debug)]
pub enum Class {
    /// `[0-9A-Z]`
    UpperAlnum,
    /// `[0-9a-z]`
    LowerAlnum,
    /// `[0-9A-Za-z]`
    Alnum,
    /// `[0-9A-Za-z_]`
    Word,
    /// `[0-9A-Za-z_-]`
    WordDash,
    /// `[0-9A-Za-z+/=]`
    Base64,
}

impl Class {
    fn has(self, b: u8) -> bool {
        match self {
            Class::UpperAlnum => b.is_ascii_digit() || b.is_ascii_uppercase(),
            Class::LowerAlnum => b.is_ascii_digit() || b.is_ascii_lowercase(),
            Class::Alnum => b.is_ascii_alphanumeric(),
            Class::Word => b.is_ascii_alphanumeric() || b == b'_',
            Class::WordDash => b.is_ascii_alphanumeric() || b == b'_' || b == b'-',
            Class::Base64 => b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='),
        }
    }
}

/// One literal trigger and what follows it.
#[derive(Clone, Copy, Debug)]
pub struct Rule {
    pub trigger: &'static str,
    pub kind: Kind,
    pub shape: Shape,
    /// Whether the trigger must start a word (no ASCII letter or digit before it).
    pub word_start: bool,
    /// Whether the span starts after the trigger (the value of `AccountKey=`).
    pub value_only: bool,
}

const fn run(
    trigger: &'static str,
    kind: Kind,
    class: Class,
    min: usize,
    max: usize,
    exact: bool,
) -> Rule {
    Rule {
        trigger,
        kind,
        shape: Shape::Run {
            class,
            min,
            max,
            exact,
        },
        word_start: true,
        value_only: false,
    }
}

const fn gitlab(trigger: &'static str, min: usize, max: usize) -> Rule {
    Rule {
        trigger,
        kind: Kind::GitlabToken,
        shape: Shape::Gitlab { min, max },
        word_start: true,
        value_only: false,
    }
}

const fn special(trigger: &'static str, kind: Kind, shape: Shape, word_start: bool) -> Rule {
    Rule {
        trigger,
        kind,
        shape,
        word_start,
        value_only: false,
    }
}

/// The longest token body looked at (a GitLab agent token may have 1024 characters).
const MAX_BODY: usize = 4096;

/// Every fixed-shape rule, by its case-sensitive trigger (detect-secrets' Slack patterns
/// are case-insensitive: their triggers are here in lowercase, UPPERCASE and Capitalized).
pub const RULES: &[Rule] = &[
    run(
        "AKIA",
        Kind::AwsAccessKeyId,
        Class::UpperAlnum,
        16,
        16,
        true,
    ),
    run(
        "ASIA",
        Kind::AwsAccessKeyId,
        Class::UpperAlnum,
        16,
        16,
        true,
    ),
    run(
        "ABIA",
        Kind::AwsAccessKeyId,
        Class::UpperAlnum,
        16,
        16,
        true,
    ),
    run(
        "ACCA",
        Kind::AwsAccessKeyId,
        Class::UpperAlnum,
        16,
        16,
        true,
    ),
    run("A3T", Kind::AwsAccessKeyId, Class::UpperAlnum, 17, 17, true),
    run("AIza", Kind::GcpApiKey, Class::WordDash, 35, 35, true),
    run("ghp_", Kind::GithubToken, Class::Word, 36, 255, false),
    run("gho_", Kind::GithubToken, Class::Word, 36, 255, false),
    run("ghu_", Kind::GithubToken, Class::Word, 36, 255, false),
    run("ghs_", Kind::GithubToken, Class::Word, 36, 255, false),
    run("ghr_", Kind::GithubToken, Class::Word, 36, 255, false),
    run(
        "github_pat_",
        Kind::GithubToken,
        Class::Word,
        82,
        255,
        false,
    ),
    gitlab("glpat-", 20, 50),
    gitlab("gldt-", 20, 50),
    gitlab("glft-", 20, 50),
    gitlab("glsoat-", 20, 50),
    gitlab("glrt-", 20, 50),
    gitlab("GR1348941", 20, 50),
    gitlab("glcbt-", 20, 50),
    gitlab("glimt-", 25, 25),
    gitlab("glptt-", 40, 40),
    gitlab("glagent-", 50, 1024),
    gitlab("gloas-", 64, 64),
    special("xox", Kind::SlackToken, Shape::Slack, true),
    special(
        "hooks.slack.com/services/",
        Kind::SlackWebhook,
        Shape::SlackWebhook,
        false,
    ),
    run("sk_live_", Kind::StripeKey, Class::Alnum, 24, 247, false),
    run("rk_live_", Kind::StripeKey, Class::Alnum, 24, 247, false),
    run("npm_", Kind::NpmToken, Class::Alnum, 36, 36, true),
    special("/:_authToken=", Kind::NpmToken, Shape::NpmRc, false),
    run(
        "pypi-AgEIcHlwaS5vcmc",
        Kind::PypiToken,
        Class::WordDash,
        70,
        MAX_BODY,
        false,
    ),
    run(
        "pypi-AgENdGVzdC5weXBpLm9yZw",
        Kind::PypiToken,
        Class::WordDash,
        70,
        MAX_BODY,
        false,
    ),
    special("eyJ", Kind::Jwt, Shape::Jwt, true),
    Rule {
        trigger: "AccountKey=",
        kind: Kind::AzureStorageKey,
        shape: Shape::Run {
            class: Class::Base64,
            min: 88,
            max: 88,
            exact: false,
        },
        word_start: false,
        value_only: true,
    },
    Rule {
        trigger: "SharedAccessKey=",
        kind: Kind::AzureSharedAccessKey,
        shape: Shape::Run {
            class: Class::Base64,
            min: 40,
            max: 100,
            exact: false,
        },
        word_start: false,
        value_only: true,
    },
    special(
        "\"private_key_id\"",
        Kind::GcpServiceAccountKeyId,
        Shape::GcpKeyId,
        false,
    ),
    special("PRIVATE KEY", Kind::PrivateKey, Shape::PrivateKey, false),
    special(
        "PuTTY-User-Key-File-",
        Kind::PrivateKey,
        Shape::Putty,
        false,
    ),
];

/// Twilio's account SIDs and API keys, `AC`/`SK` and 32 lowercase letters or digits: a
/// two-byte trigger slows a multi-pattern search down several times, so they are found
/// by a regex of their own (whose literal prefilter is fast), not by the automaton.
pub const TWILIO: &str = r"(?:AC|SK)[0-9a-z]{32}";

/// Whether a Twilio match at `start..end` stands alone (no letter or digit around it).
pub fn twilio_alone(text: &str, start: usize, end: usize) -> bool {
    let b = text.as_bytes();
    let before = start > 0 && b[start - 1].is_ascii_alphanumeric();
    let after = b.get(end).is_some_and(u8::is_ascii_alphanumeric);
    !before && !after
}

fn run_len(b: &[u8], from: usize, class: Class, max: usize) -> usize {
    b[from.min(b.len())..]
        .iter()
        .take(max)
        .take_while(|&&c| class.has(c))
        .count()
}

/// The spans that rule `rule`, triggered at byte `at`, finds.
pub fn check(rule: &Rule, text: &str, at: usize, out: &mut Vec<(usize, usize)>) {
    let b = text.as_bytes();
    if rule.word_start && at > 0 && b[at - 1].is_ascii_alphanumeric() {
        return;
    }
    let body = at + rule.trigger.len();
    let span = match rule.shape {
        Shape::Run {
            class,
            min,
            max,
            exact,
        } => {
            let n = run_len(b, body, class, max + 1);
            if n < min || (exact && n > max) {
                None
            } else {
                let n = n.min(max);
                let start = if rule.value_only { body } else { at };
                Some((start, body + n))
            }
        }
        Shape::Gitlab { min, max } => gitlab_end(b, body, min, max).map(|e| (at, e)),
        Shape::Slack => slack_end(b, body).map(|e| (at, e)),
        Shape::SlackWebhook => slack_webhook(b, at, body),
        Shape::NpmRc => npmrc(b, at, body),
        Shape::GcpKeyId => gcp_key_id(b, body),
        Shape::Jwt => jwt_end(b, at).map(|e| (at, e)),
        Shape::PrivateKey => return private_key(text, at, out),
        Shape::Putty => putty(b, at).map(|e| (at, e)),
    };
    if let Some(s) = span {
        out.push(s);
    }
}

fn gitlab_end(b: &[u8], body: usize, min: usize, max: usize) -> Option<usize> {
    let r = run_len(b, body, Class::WordDash, max + 1);
    if r < min {
        return None;
    }
    if r <= max {
        return Some(body + r);
    }
    // Longer than `max`: `(?!\w)` holds only before a `-` inside the run.
    (min..=max)
        .rev()
        .find(|&k| b[body + k] == b'-')
        .map(|k| body + k)
}

fn slack_end(b: &[u8], body: usize) -> Option<usize> {
    let kind = b.get(body)?.to_ascii_lowercase();
    if !matches!(kind, b'a' | b'b' | b'p' | b'o' | b's' | b'r') || b.get(body + 1) != Some(&b'-') {
        return None;
    }
    let mut i = body + 2;
    let mut groups = 0;
    loop {
        let d = run_len(b, i, Class::UpperAlnum, MAX_BODY);
        let digits = b[i..i + d]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count();
        if digits > 0 && digits == d && b.get(i + d) == Some(&b'-') && groups < 64 {
            groups += 1;
            i += d + 1;
        } else {
            break;
        }
    }
    let tail = run_len(b, i, Class::Alnum, MAX_BODY);
    (groups > 0 && tail > 0).then_some(i + tail)
}

fn slack_webhook(b: &[u8], at: usize, body: usize) -> Option<(usize, usize)> {
    let start = at.checked_sub("https://".len())?;
    if !b[start..at].eq_ignore_ascii_case(b"https://") {
        return None;
    }
    let mut i = body;
    for (n, lead) in [b'T', b'B', 0].into_iter().enumerate() {
        if lead != 0 && !b.get(i).is_some_and(|c| c.eq_ignore_ascii_case(&lead)) {
            return None;
        }
        let r = run_len(b, i, Class::Word, MAX_BODY);
        if r < 1 + usize::from(lead != 0) {
            return None;
        }
        i += r;
        if n < 2 {
            if b.get(i) != Some(&b'/') {
                return None;
            }
            i += 1;
        }
    }
    Some((start, i))
}

fn npmrc(b: &[u8], at: usize, body: usize) -> Option<(usize, usize)> {
    // detect-secrets: `//.+/:_authToken=`, so a `//` earlier on the line.
    let line_start = b[..at]
        .iter()
        .rposition(|&c| c == b'\n')
        .map_or(0, |p| p + 1);
    if !b[line_start..at].windows(2).any(|w| w == b"//") {
        return None;
    }
    let mut v = body;
    while b.get(v).is_some_and(|c| *c == b' ' || *c == b'\t') {
        v += 1;
    }
    if b[v..].starts_with(b"npm_") {
        let r = b[v..]
            .iter()
            .take(MAX_BODY)
            .take_while(|c| !c.is_ascii_whitespace() && !matches!(c, b'"' | b'\'' | b'`'))
            .count();
        return (r > 4).then_some((v, v + r));
    }
    let r = b[v..]
        .iter()
        .take(37)
        .take_while(|c| c.is_ascii_hexdigit() || **c == b'-')
        .count();
    (r >= 36).then_some((v, v + 36))
}

fn gcp_key_id(b: &[u8], body: usize) -> Option<(usize, usize)> {
    let mut i = body;
    let skip_ws = |i: &mut usize| {
        while b.get(*i).is_some_and(u8::is_ascii_whitespace) {
            *i += 1;
        }
    };
    skip_ws(&mut i);
    if b.get(i) != Some(&b':') {
        return None;
    }
    i += 1;
    skip_ws(&mut i);
    if b.get(i) != Some(&b'"') {
        return None;
    }
    let v = i + 1;
    let r = b[v..]
        .iter()
        .take(41)
        .take_while(|c| c.is_ascii_hexdigit())
        .count();
    (r == 40 && b.get(v + 40) == Some(&b'"')).then_some((v, v + 40))
}

fn b64url_part_len(b: &[u8], from: usize) -> usize {
    b[from.min(b.len())..]
        .iter()
        .take(MAX_BODY * 4)
        .take_while(|&&c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'='))
        .count()
}

/// detect-secrets' `is_formally_valid` for one part: base64url (padding restored, a
/// length of 1 mod 4 refused), and for the header and payload, JSON.
fn jwt_part_ok(part: &[u8], json: bool) -> bool {
    let trimmed: Vec<u8> = part.iter().copied().filter(|&c| c != b'=').collect();
    if trimmed.len() % 4 == 1 {
        return false;
    }
    // Python's `urlsafe_b64decode` ignores the unused bits of the last character.
    const LENIENT: base64::engine::GeneralPurpose = base64::engine::GeneralPurpose::new(
        &base64::alphabet::URL_SAFE,
        base64::engine::GeneralPurposeConfig::new()
            .with_decode_padding_mode(base64::engine::DecodePaddingMode::Indifferent)
            .with_decode_allow_trailing_bits(true),
    );
    let Ok(decoded) = LENIENT.decode(&trimmed) else {
        return false;
    };
    !json || serde_json::from_slice::<serde_json::Value>(&decoded).is_ok()
}

fn jwt_end(b: &[u8], at: usize) -> Option<usize> {
    let h = b64url_part_len(b, at);
    if b.get(at + h) != Some(&b'.') {
        return None;
    }
    let p_start = at + h + 1;
    let p = b64url_part_len(b, p_start);
    if p == 0 || !jwt_part_ok(&b[at..at + h], true) || !jwt_part_ok(&b[p_start..p_start + p], true)
    {
        return None;
    }
    let mut end = p_start + p;
    if b.get(end) == Some(&b'.') {
        let s = b64url_part_len(b, end + 1);
        if s > 0 && jwt_part_ok(&b[end + 1..end + 1 + s], false) {
            end += 1 + s;
        }
    }
    Some(end)
}

/// The most bytes a private key block may span.
const MAX_KEY_BLOCK: usize = 64 * 1024;
/// The fewest base64 characters of a body that make a key (a marker alone is not one).
const MIN_KEY_BODY: usize = 64;

fn is_b64(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'=')
}

/// A private key block from its `PRIVATE KEY` trigger. A clean block (base64, whitespace,
/// `\n` escapes and PEM header lines up to its `-----END ...-----`) is one span; a key
/// written as concatenated string literals gives one span per literal piece (the marker,
/// each base64 run, the end marker), so that redaction leaves the quotes in place.
fn private_key(text: &str, at: usize, out: &mut Vec<(usize, usize)>) {
    let b = text.as_bytes();
    let line_start = b[..at]
        .iter()
        .rposition(|&c| c == b'\n')
        .map_or(0, |p| p + 1);
    let mut look = at.saturating_sub(40).max(line_start);
    while !text.is_char_boundary(look) {
        look += 1;
    }
    let Some(rel) = text.get(look..at).and_then(|s| s.rfind("BEGIN ")) else {
        return;
    };
    let begin = look + rel;
    if !b[begin + 6..at]
        .iter()
        .all(|&c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == b' ')
    {
        return;
    }
    let dashes = b[..begin]
        .iter()
        .rev()
        .take(5)
        .take_while(|&&c| c == b'-')
        .count();
    let start = begin - dashes;
    let mut i = at + "PRIVATE KEY".len();
    if b[i..].starts_with(b" BLOCK") {
        i += " BLOCK".len();
    }
    i += b[i..].iter().take(5).take_while(|&&c| c == b'-').count();
    let header_end = i;
    let limit = (start + MAX_KEY_BLOCK).min(b.len());
    // A clean block.
    let mut body = 0;
    while i < limit {
        if b[i..].starts_with(b"-----END") {
            if body < MIN_KEY_BODY {
                return;
            }
            let close = end_marker_close(b, i);
            out.push((start, close));
            return;
        }
        let c = b[i];
        if c == b'\\' && matches!(b.get(i + 1), Some(b'n') | Some(b'r')) {
            i += 2;
            continue;
        }
        if is_b64(c) {
            body += 1;
        } else if !matches!(c, b' ' | b'\t' | b'\r' | b'\n' | b':' | b',' | b'-' | b'.') {
            break;
        }
        i += 1;
    }
    // Pieces: the marker, then base64 runs (with their `\n` escapes) until the end marker.
    let mut pieces = vec![(start, header_end)];
    let mut total = 0;
    let mut gap = 0;
    let mut i = header_end;
    while i < limit && gap <= 64 {
        if b[i..].starts_with(b"-----END") {
            let close = end_marker_close(b, i);
            pieces.push((i, close));
            break;
        }
        let piece_start = i;
        let mut n = 0;
        while i < limit {
            if is_b64(b[i]) {
                n += 1;
                i += 1;
            } else if b[i] == b'\\' && matches!(b.get(i + 1), Some(b'n') | Some(b'r')) {
                i += 2;
            } else {
                break;
            }
        }
        if n >= 16 {
            pieces.push((piece_start, i));
            total += n;
            gap = 0;
        } else {
            gap += (i - piece_start).max(1);
            i = i.max(piece_start + 1);
        }
    }
    if total >= MIN_KEY_BODY {
        out.extend(pieces);
    }
}

/// The end of the `-----END ... -----` marker at `i`: after its closing dashes, or, when
/// the text stops first, after the marker's words.
fn end_marker_close(b: &[u8], i: usize) -> usize {
    let hi = b.len().min(i + 60);
    b[i + 8..hi]
        .windows(5)
        .position(|w| w == b"-----")
        .map_or_else(
            || {
                i + 8
                    + b[i + 8..hi]
                        .iter()
                        .take_while(|c| c.is_ascii_uppercase() || matches!(c, b' ' | b'-'))
                        .count()
            },
            |p| i + 8 + p + 5,
        )
}

fn putty(b: &[u8], at: usize) -> Option<usize> {
    let limit = (at + 16 * 1024).min(b.len());
    let mut i = at;
    while i < limit && !matches!(b[i], b'"' | b'\'' | b'`' | b'\\') {
        if b[i..].starts_with(b"Private-MAC:") {
            let eol = b[i..limit]
                .iter()
                .position(|&c| c == b'\n')
                .map_or(limit, |p| i + p);
            return Some(eol);
        }
        i += 1;
    }
    let eol = b[at..limit]
        .iter()
        .position(|&c| matches!(c, b'\n' | b'"' | b'\'' | b'`'))
        .map_or(limit, |p| at + p);
    Some(eol)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spans(text: &str) -> Vec<&str> {
        let rule = RULES.iter().find(|r| r.trigger == "PRIVATE KEY").unwrap();
        let mut out = Vec::new();
        for (at, _) in text.match_indices("PRIVATE KEY") {
            check(rule, text, at, &mut out);
        }
        out.into_iter().map(|(s, e)| &text[s..e]).collect()
    }

    #[test]
    fn private_key_edges() {
        let body = "QUJD".repeat(20);
        let block = format!("-----BEGIN PRIVATE KEY-----\n{body}\n-----END PRIVATE KEY-----");
        assert_eq!(spans(&block), [block.as_str()]);
        // Cut right inside the end marker, and multibyte text before the marker.
        let cut = &block[..block.len() - 3];
        assert_eq!(spans(cut), [cut]);
        let wide = format!("ключ ключ ключ: {block}");
        assert_eq!(spans(&wide), [block.as_str()]);
        // A marker alone is a mention.
        assert!(spans("if l.startswith(\"-----BEGIN RSA PRIVATE KEY-----\"):").is_empty());
    }
}
