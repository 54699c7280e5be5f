//! CodeXGLUE's code-completion shapes, made from any source file: the token level (one
//! `<s> ... </s>` line per file) and the line level (`input`, `gt` cut from that line).
//!
//! Token level follows `Code-Code/CodeCompletion-token/dataset/{py150,javaCorpus}/preprocess.py`
//! of microsoft/CodeXGLUE:
//! - Python: CPython 3.11's `tokenize` over the file as `open(path).read()` gives it
//!   (universal newlines), comments, indents, encoding and end markers dropped, `NEWLINE`
//!   and `NL` as one `<EOL>` (never two in a row, none first or last), every token's text
//!   whitespace-collapsed, strings as `{prefix}{quote}<STR_LIT>{quote}` or
//!   `<STR_LIT:{body}>` for the bodies in `literals.json`, numbers as `<NUM_LIT>` or
//!   `<NUM_LIT:{v}>`. Where the script writes `<s> </s>` (a file `tokenize` rejects, or
//!   one with no token), codemine writes nothing and says why ([`Skip`]).
//! - Java: the tokens of `javalang` 0.13 ([`javalang`]), strings and one-character
//!   `'...'` literals as `<STR_LIT>`/`<CHAR_LIT>`, numbers as `<NUM_LIT>`; no `<EOL>`.
//!
//! Line level ([`line`]) cuts a file's token line at a seeded random token position.

pub mod javalang;
pub mod line;

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::LazyLock;

use codemine_eval::pytext::{py_is_space, py_split};
use codemine_eval::pytokenize::{self, Kind, Text};

/// The languages CodeXGLUE's completion tasks have.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CompletionLang {
    Python,
    Java,
}

impl CompletionLang {
    pub fn name(self) -> &'static str {
        match self {
            CompletionLang::Python => "python",
            CompletionLang::Java => "java",
        }
    }
}

/// The literal values kept verbatim (`literals.json`): string bodies, numbers and Java
/// characters.
#[derive(Clone, Debug, Default)]
pub struct Literals {
    strings: foldhash::HashSet<String>,
    numbers: foldhash::HashSet<String>,
    chars: foldhash::HashSet<String>,
}

/// A `literals.json` that cannot be used.
#[derive(Debug, thiserror::Error)]
#[error("literals file: {0} (expected an object with lists of strings `str`, `num` and optionally `char`)")]
pub struct LiteralsError(String);

impl Literals {
    /// CodeXGLUE's `py150/literals.json` (MIT License, Microsoft Corporation).
    pub fn py150() -> Self {
        // A file shipped with the crate and checked by a test.
        Self::from_json(include_bytes!("data/py150_literals.json")).unwrap_or_default()
    }

    /// CodeXGLUE's `javaCorpus/literals.json` (MIT License, Microsoft Corporation).
    pub fn java_corpus() -> Self {
        Self::from_json(include_bytes!("data/javacorpus_literals.json")).unwrap_or_default()
    }

    /// The built-in literals of a language.
    pub fn builtin(lang: CompletionLang) -> Self {
        match lang {
            CompletionLang::Python => Self::py150(),
            CompletionLang::Java => Self::java_corpus(),
        }
    }

    /// A `literals.json` of CodeXGLUE's shape (`{"str": [...], "num": [...], "char": [...]}`).
    pub fn from_json(bytes: &[u8]) -> Result<Self, LiteralsError> {
        #[derive(serde::Deserialize)]
        struct Raw {
            str: Vec<String>,
            num: Vec<String>,
            #[serde(default)]
            char: Vec<String>,
        }
        let raw: Raw = serde_json::from_slice(bytes).map_err(|e| LiteralsError(e.to_string()))?;
        Ok(Self {
            strings: raw.str.into_iter().collect(),
            numbers: raw.num.into_iter().collect(),
            chars: raw.char.into_iter().collect(),
        })
    }
}

/// One token of a file's completion line and the 1-based source line it starts on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineToken {
    /// Most tokens are the tokenizer's own text, moved; the end-of-line marker is shared.
    pub text: Cow<'static, str>,
    pub line: usize,
}

/// Why a file has no completion line (CodeXGLUE writes `<s> </s>` for the first three and
/// drops Java files that javalang rejects).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Skip {
    #[error("Python's tokenize rejects it: {0}")]
    Python(#[from] pytokenize::TokenizeError),
    #[error("javalang rejects it: {0}")]
    Java(#[from] javalang::LexError),
    #[error("it declares the source encoding {0:?}, which Python does not know or codemine does not emulate for it")]
    Encoding(String),
    #[error("it has no tokens")]
    Empty,
    /// A Java string literal with a raw line break (javalang accepts it): the line would break
    /// the one-line-per-file text format.
    #[error("a string literal spans lines")]
    LineBreak,
}

impl Skip {
    /// A short name for counters.
    pub fn kind(&self) -> &'static str {
        match self {
            Skip::Python(_) | Skip::Java(_) => "tokenize",
            Skip::Encoding(_) => "encoding",
            Skip::Empty => "empty",
            Skip::LineBreak => "line_break",
        }
    }
}

/// A file's `<s> t1 t2 ... </s>` line, made in one buffer, and where each token is in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenLine {
    text: String,
    spans: Vec<Span>,
}

/// A token of a [`TokenLine`]: its byte range in the line and its 1-based source line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Span {
    start: usize,
    end: usize,
    line: usize,
}

impl TokenLine {
    fn with_capacity(bytes: usize) -> Self {
        let mut text = String::with_capacity(bytes + 8);
        text.push_str("<s>");
        Self {
            text,
            spans: Vec::with_capacity(bytes / 3),
        }
    }

    /// Appends a token that `write` writes; an empty one is not a token.
    fn push(&mut self, line: usize, write: impl FnOnce(&mut String)) {
        self.text.push(' ');
        let start = self.text.len();
        write(&mut self.text);
        if self.text.len() == start {
            self.text.pop();
            return;
        }
        let end = self.text.len();
        self.spans.push(Span { start, end, line });
    }

    fn pop(&mut self) {
        if let Some(s) = self.spans.pop() {
            self.text.truncate(s.start - 1);
        }
    }

    fn finish(mut self) -> Self {
        self.text.push_str(" </s>");
        self
    }

    /// A line of the given tokens (for tests and callers that have them).
    pub fn from_tokens(tokens: &[LineToken]) -> Self {
        let mut t = Self::with_capacity(tokens.iter().map(|t| t.text.len() + 1).sum());
        for tok in tokens {
            t.push(tok.line, |out| out.push_str(&tok.text));
        }
        t.finish()
    }

    /// The number of tokens.
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// The `k`-th token's text.
    pub fn token(&self, k: usize) -> &str {
        let s = self.spans[k];
        &self.text[s.start..s.end]
    }

    /// The 1-based source line of the `k`-th token.
    pub fn line_of(&self, k: usize) -> usize {
        self.spans[k].line
    }

    /// `<s>` and the tokens before the `k`-th, space-joined.
    pub fn before(&self, k: usize) -> &str {
        &self.text[..self.spans[k].start - 1]
    }

    /// Tokens `from..to` (`from < to`), space-joined.
    pub fn range(&self, from: usize, to: usize) -> &str {
        &self.text[self.spans[from].start..self.spans[to - 1].end]
    }

    /// The whole line, `<s> ... </s>`.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    pub fn into_string(self) -> String {
        self.text
    }

    /// The tokens, each with its own text.
    pub fn tokens(&self) -> Vec<LineToken> {
        (0..self.len())
            .map(|k| LineToken {
                text: self.token(k).to_string().into(),
                line: self.line_of(k),
            })
            .collect()
    }
}

/// The tokens of a file's `<s> ... </s>` line (without `<s>` and `</s>`).
pub fn tokens(lang: CompletionLang, source: &str, lits: &Literals) -> Result<Vec<LineToken>, Skip> {
    Ok(line_of(lang, source, lits)?.tokens())
}

/// A file's token line.
pub fn line_of(lang: CompletionLang, source: &str, lits: &Literals) -> Result<TokenLine, Skip> {
    let text = universal_newlines(source);
    let out = match lang {
        CompletionLang::Python => python_tokens(&text, lits)?,
        CompletionLang::Java => java_tokens(&text, lits)?,
    };
    if out.is_empty() {
        return Err(Skip::Empty);
    }
    Ok(out.finish())
}

/// The token-level line: `<s> t1 t2 ... </s>`.
pub fn token_line(tokens: &[LineToken]) -> String {
    let mut s = String::with_capacity(8 + tokens.iter().map(|t| t.text.len() + 1).sum::<usize>());
    s.push_str("<s>");
    for t in tokens {
        s.push(' ');
        s.push_str(&t.text);
    }
    s.push_str(" </s>");
    s
}

/// Python's text-mode reading: `\r\n` and lone `\r` become `\n`.
fn universal_newlines(source: &str) -> Cow<'_, str> {
    if source.contains('\r') {
        source.replace("\r\n", "\n").replace('\r', "\n").into()
    } else {
        source.into()
    }
}

/// The end-of-line token of the Python stream.
pub const EOL: &str = "<EOL>";

/// Appends a token's text `" ".join(text.split())` (only a token holding whitespace
/// changes).
fn push_collapsed(out: &mut String, text: &str) {
    if text.contains(py_is_space) {
        for (k, w) in py_split(text).into_iter().enumerate() {
            if k > 0 {
                out.push(' ');
            }
            out.push_str(w);
        }
    } else {
        out.push_str(text);
    }
}

fn python_tokens(text: &str, lits: &Literals) -> Result<TokenLine, Skip> {
    let decoded = python_decode(text)?;
    let mut out = TokenLine::with_capacity(decoded.len());
    let mut prev_eol = false;
    // The text of a token that is rewritten (literals) or may hold whitespace.
    let mut raw = String::new();
    let mut squashed = String::new();
    pytokenize::tokenize_with(&decoded, |kind, tok, (line, _), _| {
        let collapsed = |raw: &mut String, squashed: &mut String| {
            raw.clear();
            match tok {
                Text::Chars(c) => raw.extend(c),
                Text::Str(s) => raw.push_str(s),
            }
            squashed.clear();
            push_collapsed(squashed, raw);
        };
        match kind {
            Kind::String => {
                collapsed(&mut raw, &mut squashed);
                out.push(line, |o| literal_string(o, &squashed, lits, false));
                prev_eol = false;
            }
            Kind::Number => {
                collapsed(&mut raw, &mut squashed);
                out.push(line, |o| literal_number(o, &squashed, lits));
                prev_eol = false;
            }
            Kind::Newline | Kind::Nl => {
                // No `<EOL>` first (the script drops a leading one) and none twice in a row.
                if !prev_eol && !out.is_empty() {
                    out.push(line, |o| o.push_str(EOL));
                }
                prev_eol = true;
            }
            Kind::Comment | Kind::Indent | Kind::EndMarker => {}
            _ => {
                let before = out.len();
                match tok {
                    Text::Str(t) if !t.contains(py_is_space) => {
                        out.push(line, |o| o.push_str(t));
                    }
                    Text::Chars(c) if !c.iter().any(|&c| py_is_space(c)) => {
                        out.push(line, |o| o.extend(c));
                    }
                    _ => {
                        collapsed(&mut raw, &mut squashed);
                        out.push(line, |o| o.push_str(&squashed));
                    }
                }
                // An empty token is none: it leaves the `<EOL>` state as it was.
                if out.len() > before {
                    prev_eol = false;
                }
            }
        }
    })?;
    if !out.is_empty() && out.token(out.len() - 1) == EOL {
        out.pop();
    }
    Ok(out)
}

/// What `tokenize.tokenize` decodes from `bytes(code, "utf8")`: a UTF-8 BOM is dropped, and
/// a coding cookie on the first two lines (PEP 263) decides the codec. UTF-8 keeps the text,
/// Latin-1 re-reads its UTF-8 bytes as Latin-1 (as Python does); other codecs are emulated
/// for ASCII text when they read ASCII unchanged; an unknown codec is an error, as in Python.
fn python_decode(text: &str) -> Result<Cow<'_, str>, Skip> {
    let (bom, body) = match text.strip_prefix('\u{feff}') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let mut lines = body.split_inclusive('\n');
    let first = lines.next().unwrap_or("");
    let cookie = coding_cookie(first).or_else(|| {
        is_blank_or_comment(first)
            .then(|| lines.next().and_then(coding_cookie))
            .flatten()
    });
    let Some(name) = cookie else {
        return Ok(body.into());
    };
    // `_get_normal_name`, then `codecs.lookup`.
    let short: String = name
        .chars()
        .take(12)
        .collect::<String>()
        .to_ascii_lowercase()
        .replace('_', "-");
    let codec = if short == "utf-8" || short.starts_with("utf-8-") {
        Some(("utf-8", true))
    } else if ["latin-1", "iso-8859-1", "iso-latin-1"]
        .iter()
        .any(|p| short == *p || short.starts_with(&format!("{p}-")))
    {
        Some(("iso8859-1", true))
    } else {
        python_codec(&name)
    };
    match codec {
        // Python: "encoding problem: utf-8" (a BOM and another declared codec).
        Some((c, _)) if bom && c != "utf-8" => Err(Skip::Encoding(name)),
        Some(("utf-8", _)) => Ok(body.into()),
        Some(("iso8859-1", _)) => Ok(body.bytes().map(char::from).collect::<String>().into()),
        Some((_, true)) if body.is_ascii() => Ok(body.into()),
        // An unknown codec (Python raises) or one not emulated for this text.
        _ => Err(Skip::Encoding(name)),
    }
}

/// `codecs.lookup(name)` of CPython 3.11: the codec and whether it reads ASCII unchanged
/// (`data/python_codecs.tsv`, made by `scripts/gen_python_codecs.py`).
fn python_codec(name: &str) -> Option<(&'static str, bool)> {
    static TABLE: LazyLock<HashMap<&'static str, (&'static str, bool)>> = LazyLock::new(|| {
        include_str!("data/python_codecs.tsv")
            .lines()
            .filter(|l| !l.starts_with('#'))
            .filter_map(|l| {
                let mut f = l.split('\t');
                Some((f.next()?, (f.next()?, f.next()? == "1")))
            })
            .collect()
    });
    // `encodings.normalize_encoding` of the lowercased name: runs of other characters
    // than alphanumerics and `.` become one `_`, none at either end.
    let mut norm = String::with_capacity(name.len());
    let mut punct = false;
    for c in name.chars() {
        if c.is_ascii_alphanumeric() || c == '.' {
            if punct && !norm.is_empty() {
                norm.push('_');
            }
            norm.push(c.to_ascii_lowercase());
            punct = false;
        } else {
            punct = true;
        }
    }
    TABLE
        .get(norm.as_str())
        .or_else(|| TABLE.get(norm.replace('.', "_").as_str()))
        .copied()
}

/// `tokenize.cookie_re`: `^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)` (ASCII `\w`).
fn coding_cookie(line: &str) -> Option<String> {
    let rest = line
        .trim_start_matches([' ', '\t', '\x0c'])
        .strip_prefix('#')?;
    let mut from = 0;
    while let Some(k) = rest[from..].find("coding") {
        let after = &rest[from + k + 6..];
        if let Some(value) = after.strip_prefix([':', '=']) {
            let value = value.trim_start_matches([' ', '\t']);
            let name: String = value
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
                .collect();
            if !name.is_empty() {
                return Some(name);
            }
        }
        from += k + 6;
    }
    None
}

/// `tokenize.blank_re`: `^[ \t\f]*(?:[#\r\n]|$)`.
fn is_blank_or_comment(line: &str) -> bool {
    let rest = line.trim_start_matches([' ', '\t', '\x0c']);
    rest.is_empty() || rest.starts_with(['#', '\r', '\n'])
}

fn java_tokens(text: &str, lits: &Literals) -> Result<TokenLine, Skip> {
    use javalang::TokenKind as J;
    let mut out = TokenLine::with_capacity(text.len());
    let mut raw = String::new();
    let mut line_break = false;
    javalang::tokenize_with(text, |kind, tok, line| {
        let tok: &str = match tok {
            Text::Str(s) => s,
            Text::Chars(c) => {
                raw.clear();
                raw.extend(c);
                &raw
            }
        };
        match kind {
            J::String => {
                line_break |= tok.contains(['\n', '\r']);
                out.push(line, |o| literal_string(o, tok, lits, true));
            }
            J::Integer | J::FloatingPoint => out.push(line, |o| literal_number(o, tok, lits)),
            _ => out.push(line, |o| o.push_str(tok)),
        }
    })?;
    if line_break {
        return Err(Skip::LineBreak);
    }
    Ok(out)
}

fn literal_number(out: &mut String, value: &str, lits: &Literals) {
    if lits.numbers.contains(value) {
        out.push_str("<NUM_LIT:");
        out.push_str(value);
        out.push('>');
    } else {
        out.push_str("<NUM_LIT>");
    }
}

/// The scripts' `process_string`: the prefix (`^[a-zA-Z]+`; Java's script `^[a-z]+`), the
/// opening quote among `'''`, `"""`, `'`, `"` and the same closing quote when the token ends
/// with it, the body with space and comma escaped, then `<STR_LIT>` (Java: `<CHAR_LIT>` for a
/// one-character body in single quotes) with the body when it is a listed literal.
fn literal_string(out: &mut String, token: &str, lits: &Literals, java: bool) {
    let prefix_len = token
        .bytes()
        .take_while(|b| {
            if java {
                b.is_ascii_lowercase()
            } else {
                b.is_ascii_alphabetic()
            }
        })
        .count();
    let (prefix, quoted) = token.split_at(prefix_len);
    let mut body = quoted;
    let (mut open, mut close) = ("", "");
    for q in ["'''", "\"\"\"", "'", "\""] {
        if quoted.starts_with(q) {
            open = q;
            body = &body[q.len()..];
            if quoted.ends_with(q) {
                close = q;
                // Python slicing: `body[:-len(q)]` of what is left, empty when shorter.
                body = &body[..body.len().saturating_sub(q.len())];
            }
            break;
        }
    }
    let is_char = java && open == "'" && body.chars().count() == 1;
    let escaped: Cow<'_, str> = if body.contains([' ', ',']) {
        body.replace(' ', "U+0020").replace(',', "U+002C").into()
    } else {
        body.into()
    };
    let (tag, listed) = if is_char {
        ("CHAR_LIT", lits.chars.contains(&*escaped))
    } else {
        ("STR_LIT", lits.strings.contains(&*escaped))
    };
    out.push_str(prefix);
    out.push_str(open);
    out.push('<');
    out.push_str(tag);
    if listed {
        out.push(':');
        out.push_str(&escaped);
    }
    out.push('>');
    out.push_str(close);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn py(src: &str) -> String {
        token_line(&tokens(CompletionLang::Python, src, &Literals::py150()).unwrap())
    }

    #[test]
    fn builtin_literals_load() {
        let p = Literals::py150();
        assert_eq!((p.strings.len(), p.numbers.len()), (200, 30));
        let j = Literals::java_corpus();
        assert_eq!(
            (j.strings.len(), j.numbers.len(), j.chars.len()),
            (200, 30, 30)
        );
    }

    #[test]
    fn python_follows_the_script() {
        // From the rules: no leading/trailing/double <EOL>, comments and indents gone.
        assert_eq!(
            py("\n# c\nif x :\n    y = 'name'\n\n    z = 12345\n"),
            "<s> if x : <EOL> y = '<STR_LIT:name>' <EOL> z = <NUM_LIT> </s>"
        );
        assert_eq!(py("s = rb\"a b\""), "<s> s = rb\"<STR_LIT>\" </s>");
        assert_eq!(py("s = ' '"), "<s> s = '<STR_LIT:U+0020>' </s>");
        assert_eq!(
            tokens(CompletionLang::Python, "x = (", &Literals::py150()),
            Err(Skip::Python(pytokenize::TokenizeError::EofInStatement {
                line: 2
            }))
        );
        assert_eq!(
            tokens(CompletionLang::Python, "# only\n", &Literals::py150()),
            Err(Skip::Empty)
        );
    }

    #[test]
    fn java_literals() {
        let lits = Literals::java_corpus();
        let toks = tokens(
            CompletionLang::Java,
            "char c = 'a'; String s = \"hello world\"; long n = 1L;",
            &lits,
        )
        .unwrap();
        assert_eq!(
            token_line(&toks),
            "<s> char c = '<CHAR_LIT:a>' ; String s = \"<STR_LIT>\" ; long n = <NUM_LIT:1L> ; </s>"
        );
    }

    #[test]
    fn coding_cookies() {
        assert_eq!(
            coding_cookie("# -*- coding: latin-1 -*-\n").as_deref(),
            Some("latin-1")
        );
        assert_eq!(coding_cookie("#!/usr/bin/python\n"), None);
        assert_eq!(
            python_decode("# coding=latin-1\nx = 'é'\n").unwrap(),
            "# coding=latin-1\nx = 'Ã©'\n"
        );
        assert!(python_decode("# coding: cp1251\nx = 1\n").is_ok());
        assert!(matches!(
            python_decode("# coding: cp1251\nx = '\u{436}'\n"),
            Err(Skip::Encoding(_))
        ));
        assert!(matches!(
            python_decode("# coding: nosuchcodec\nx = 1\n"),
            Err(Skip::Encoding(_))
        ));
        assert!(python_decode("# coding: Latin_1\nx = 1\n").is_ok());
    }
}
