//! The tokenizer of `javalang` 0.13 (`javalang.tokenizer.tokenize`), ported: CodeXGLUE's
//! Java code-completion data is its token stream, so the same source must give the same
//! tokens, quirks included (`>>` is two `>` tokens, `@` is a token of its own, comments are
//! dropped, `\uXXXX` escapes are replaced everywhere before lexing, some malformed inputs
//! are errors where a compiler would accept them and the reverse).
//!
//! Positions are character offsets into the escaped text; [`Token::line`] is the 1-based line
//! of the token's start in it.
//!
//! ```
//! use codemine_completion::javalang::{tokenize, TokenKind};
//! let toks = tokenize("List<List<String>> x = 0x1F;").unwrap();
//! let texts: Vec<&str> = toks.iter().map(|t| t.text.as_str()).collect();
//! assert_eq!(texts, ["List", "<", "List", "<", "String", ">", ">", "x", "=", "0x1F", ";"]);
//! assert_eq!(toks[9].kind, TokenKind::Integer);
//! ```

use std::sync::LazyLock;

use codemine_eval::pytext::{py_is_space, CharClass};
pub use codemine_eval::pytokenize::Text;

/// The token classes that CodeXGLUE's script tells apart (by their class names).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenKind {
    /// `Keyword`, `Modifier`, `BasicType`.
    Keyword,
    Identifier,
    /// `DecimalInteger`, `OctalInteger`, `BinaryInteger`, `HexInteger`.
    Integer,
    /// `DecimalFloatingPoint`, `HexFloatingPoint`.
    FloatingPoint,
    /// A `'...'` or `"..."` literal: javalang makes both `String` tokens.
    String,
    Boolean,
    Null,
    Separator,
    Operator,
    /// `@`.
    Annotation,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    pub kind: TokenKind,
    pub text: String,
    /// 1-based line of the token's first character.
    pub line: usize,
}

/// What makes javalang raise (`LexerError`, or a Python error on inputs it does not expect).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct LexError {
    pub line: usize,
    pub message: &'static str,
}

const KEYWORDS: &[&str] = &[
    "abstract",
    "assert",
    "boolean",
    "break",
    "byte",
    "case",
    "catch",
    "char",
    "class",
    "const",
    "continue",
    "default",
    "do",
    "double",
    "else",
    "enum",
    "extends",
    "final",
    "finally",
    "float",
    "for",
    "goto",
    "if",
    "implements",
    "import",
    "instanceof",
    "int",
    "interface",
    "long",
    "native",
    "new",
    "package",
    "private",
    "protected",
    "public",
    "return",
    "short",
    "static",
    "strictfp",
    "super",
    "switch",
    "synchronized",
    "this",
    "throw",
    "throws",
    "transient",
    "try",
    "void",
    "volatile",
    "while",
];

/// `Operator.VALUES` by length (`>>` and `>>>` are deliberately absent, as in javalang).
const OPERATORS: [&[&str]; 4] = [
    &[
        "%", "^", "|", "&", "/", "*", "-", "+", ":", "?", "~", "!", "<", ">", "=",
    ],
    &[
        "%=", "^=", "|=", "&=", "/=", "*=", "-=", "+=", "<<", "--", "++", "||", "&&", "!=", ">=",
        "<=", "==", "->", "::",
    ],
    &[">>=", "<<=", "..."],
    &[">>>="],
];

/// `IDENT_START_CATEGORIES` and `IDENT_PART_CATEGORIES` (`unicodedata.category`).
/// The keywords as zero-padded bytes, sorted: an identifier is looked up without hashing.
static KEYWORD_KEYS: LazyLock<Vec<[u8; 12]>> = LazyLock::new(|| {
    let mut keys: Vec<[u8; 12]> = KEYWORDS.iter().map(|k| pad(k.as_bytes())).collect();
    keys.sort_unstable();
    keys
});

fn pad(word: &[u8]) -> [u8; 12] {
    let mut key = [0u8; 12];
    for (k, b) in key.iter_mut().zip(word) {
        *k = *b;
    }
    key
}

static IDENT_START: LazyLock<CharClass> =
    LazyLock::new(|| CharClass::new(r"[\p{Lu}\p{Ll}\p{Lt}\p{Lm}\p{Lo}\p{Nl}\p{Pc}\p{Sc}]"));
static IDENT_PART: LazyLock<CharClass> = LazyLock::new(|| {
    CharClass::new(r"[\p{Lu}\p{Ll}\p{Lt}\p{Lm}\p{Lo}\p{Mc}\p{Mn}\p{Nd}\p{Nl}\p{Pc}\p{Sc}]")
});

/// A character of `IDENT_PART_CATEGORIES`; in ASCII: letters, digits, `_` (Pc) and `$` (Sc).
#[inline]
fn ident_part(c: char) -> bool {
    if c.is_ascii() {
        c.is_ascii_alphanumeric() || c == '_' || c == '$'
    } else {
        IDENT_PART.contains(c)
    }
}

/// `list(javalang.tokenizer.tokenize(source))`.
pub fn tokenize(source: &str) -> Result<Vec<Token>, LexError> {
    let mut out = Vec::new();
    tokenize_with(source, |kind, text, line| {
        out.push(Token {
            kind,
            text: text.to_owned_string(),
            line,
        });
    })?;
    Ok(out)
}

/// [`tokenize`] without a `String` per token: `sink` gets each token's kind, text and
/// line, in order (tokens before an error included).
pub fn tokenize_with(
    source: &str,
    sink: impl FnMut(TokenKind, Text<'_>, usize),
) -> Result<(), LexError> {
    let data = pre_tokenize(source)?;
    // An ASCII source without `\u` is lexed as it is: a character is a byte, and tokens are
    // handed over as slices of it.
    let same = source.is_ascii() && !source.contains("\\u");
    Lexer {
        source: same.then_some(source),
        data: &data,
        i: 0,
        j: 0,
        line: 1,
        line_at: 0,
    }
    .run(sink)
}

/// `JavaTokenizer.pre_tokenize`: replaces `\uXXXX` escapes (any number of `u`) whose
/// backslash is not itself escaped, with its exact state machine (a `\u` at the very end
/// repeats the text since the last escape, as javalang does).
fn pre_tokenize(source: &str) -> Result<Vec<char>, LexError> {
    let data: Vec<char> = if source.is_ascii() {
        source.bytes().map(char::from).collect()
    } else {
        source.chars().collect()
    };
    if !source.contains('\\') {
        return Ok(data);
    }
    #[derive(PartialEq)]
    enum State {
        None,
        Eligible,
        Marker,
    }
    let mut out: Vec<char> = Vec::with_capacity(data.len());
    let (mut i, mut j) = (0usize, 0usize);
    let mut state = State::None;
    let length = data.len();
    while j < length {
        match state {
            State::None => match data[j..].iter().position(|&c| c == '\\') {
                Some(k) => {
                    j += k;
                    state = State::Eligible;
                }
                None => break,
            },
            State::Eligible => {
                if data[j] == 'u' {
                    state = State::Marker;
                    out.extend_from_slice(&data[i..j - 1]);
                } else {
                    state = State::None;
                }
            }
            State::Marker => {
                if data[j] != 'u' {
                    let digits: String = data[j..(j + 4).min(length)].iter().collect();
                    let c = py_int_hex(&digits)
                        .and_then(|v| u32::try_from(v).ok())
                        .and_then(char::from_u32)
                        .ok_or(LexError {
                            line: 1 + data[..j].iter().filter(|&&c| c == '\n').count(),
                            message: "invalid unicode escape (or a surrogate, which Python cannot write as UTF-8)",
                        })?;
                    out.push(c);
                    i = j + 4;
                    j = i;
                    state = State::None;
                    continue;
                }
            }
        }
        j += 1;
    }
    out.extend_from_slice(&data[i.min(length)..]);
    Ok(out)
}

/// Python's `int(s, 16)`: surrounding whitespace, a sign, an optional `0x`, underscores
/// between digits.
fn py_int_hex(s: &str) -> Option<i64> {
    let s = codemine_eval::pytext::py_strip(s);
    let (neg, s) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let s = s
        .strip_prefix("0x")
        .or_else(|| s.strip_prefix("0X"))
        .map(|r| r.strip_prefix('_').unwrap_or(r))
        .unwrap_or(s);
    if s.is_empty() || s.starts_with('_') || s.ends_with('_') || s.contains("__") {
        return None;
    }
    let mut v: i64 = 0;
    for c in s.chars().filter(|&c| c != '_') {
        v = v * 16 + i64::from(c.to_digit(16)?);
    }
    Some(if neg { -v } else { v })
}

struct Lexer<'a> {
    /// The source when `data` is its characters one for one and all ASCII.
    source: Option<&'a str>,
    data: &'a [char],
    i: usize,
    j: usize,
    /// The line of `line_at`, counted incrementally as tokens advance.
    line: usize,
    line_at: usize,
}

impl Lexer<'_> {
    fn at(&self, k: usize) -> Option<char> {
        self.data.get(k).copied()
    }

    fn line_of(&mut self, pos: usize) -> usize {
        if pos >= self.line_at {
            self.line += self.data[self.line_at..pos]
                .iter()
                .filter(|&&c| c == '\n')
                .count();
            self.line_at = pos;
        }
        self.line
    }

    fn error(&mut self, message: &'static str) -> LexError {
        let line = self.line_of(self.i.min(self.data.len()));
        LexError { line, message }
    }

    fn run(mut self, mut sink: impl FnMut(TokenKind, Text<'_>, usize)) -> Result<(), LexError> {
        let length = self.data.len();
        while self.i < length {
            let c = self.data[self.i];
            let c_next = self.at(self.i + 1);
            let kind;
            if py_is_space(c) {
                self.i = (self.i + 1..length)
                    .find(|&k| !py_is_space(self.data[k]))
                    .unwrap_or(length);
                continue;
            } else if c == '/' && matches!(c_next, Some('/' | '*')) {
                self.read_comment()?;
                continue;
            } else if c == '.' && c_next == Some('.') && self.try_operator() {
                kind = TokenKind::Operator;
            } else if c == '@' {
                kind = TokenKind::Annotation;
                self.j = self.i + 1;
            } else if c == '.' && c_next.is_some_and(|n| n.is_ascii_digit()) {
                // javalang asks `str.isdigit()`; a non-ASCII digit after `.` ends in an
                // error either way (no token starts with it).
                kind = self.read_decimal_float_or_integer()?;
            } else if "(){}[];,.".contains(c) {
                kind = TokenKind::Separator;
                self.j = self.i + 1;
            } else if c == '\'' || c == '"' {
                kind = TokenKind::String;
                self.read_string()?;
            } else if c.is_ascii_digit() {
                kind = self.read_integer_or_float(c, c_next)?;
            } else if IDENT_START.contains(c) {
                kind = self.read_identifier();
            } else if self.try_operator() {
                kind = TokenKind::Operator;
            } else {
                return Err(self.error("could not process token"));
            }
            let line = self.line_of(self.i);
            let text = match self.source {
                Some(s) => Text::Str(&s[self.i..self.j]),
                None => Text::Chars(&self.data[self.i..self.j]),
            };
            sink(kind, text, line);
            self.i = self.j;
        }
        Ok(())
    }

    fn read_comment(&mut self) -> Result<(), LexError> {
        let block = self.at(self.i + 1) == Some('*');
        let from = self.i + 2;
        let end = if block {
            (from..self.data.len().saturating_sub(1))
                .find(|&k| self.data[k] == '*' && self.data[k + 1] == '/')
                .map(|k| k + 2)
        } else {
            (from..self.data.len())
                .find(|&k| self.data[k] == '\n')
                .map(|k| k + 1)
                .or(Some(self.data.len()))
        };
        match end {
            Some(e) => {
                self.i = e;
                Ok(())
            }
            None => Err(self.error("unterminated block comment")),
        }
    }

    /// `read_string`: javalang's escape state machine, without the line-break check a
    /// compiler makes.
    fn read_string(&mut self) -> Result<(), LexError> {
        let delim = self.data[self.i];
        let mut state = 0u8;
        let mut j = self.i + 1;
        loop {
            let Some(c) = self.at(j) else {
                return Err(self.error("unterminated character/string literal"));
            };
            match state {
                0 => {
                    if c == '\\' {
                        state = 1;
                    } else if c == delim {
                        break;
                    }
                }
                1 => {
                    if "btnfru\"'\\".contains(c) {
                        state = 0;
                    } else if "0123".contains(c) {
                        state = 2;
                    } else if "01234567".contains(c) {
                        state = 3;
                    } else {
                        return Err(self.error("illegal escape character"));
                    }
                }
                2 => {
                    if "01234567".contains(c) {
                        state = 3;
                    } else if c == '\\' {
                        state = 1;
                    } else if c == delim {
                        break;
                    }
                }
                _ => {
                    state = 0;
                    if c == '\\' {
                        state = 1;
                    } else if c == delim {
                        break;
                    }
                }
            }
            j += 1;
        }
        self.j = j + 1;
        Ok(())
    }

    fn try_operator(&mut self) -> bool {
        let left = self.data.len() - self.i;
        for l in (1..=left.min(4)).rev() {
            let s = &self.data[self.i..self.i + l];
            if OPERATORS[l - 1]
                .iter()
                .any(|op| op.chars().eq(s.iter().copied()))
            {
                self.j = self.i + l;
                return true;
            }
        }
        false
    }

    fn read_identifier(&mut self) -> TokenKind {
        self.j = self.i + 1;
        while self.at(self.j).is_some_and(ident_part) {
            self.j += 1;
        }
        // Keywords are ASCII and at most 12 characters: copied to the stack to be looked up.
        let ident = &self.data[self.i..self.j];
        let mut key = [0u8; 12];
        if ident.len() > key.len() || !ident.iter().all(char::is_ascii) {
            return TokenKind::Identifier;
        }
        for (b, c) in key.iter_mut().zip(ident) {
            *b = *c as u8;
        }
        if KEYWORD_KEYS.binary_search(&key).is_ok() {
            TokenKind::Keyword
        } else if key == pad(b"true") || key == pad(b"false") {
            TokenKind::Boolean
        } else if key == pad(b"null") {
            TokenKind::Null
        } else {
            TokenKind::Identifier
        }
    }

    /// `read_digits`: digits with `_` between them, then one `l`/`L` after the last
    /// character looked at (javalang's check, which also takes `1_L` as `1_`). Python raises
    /// when no character was looked at (the input ended).
    fn read_digits(&mut self, digits: &str) -> Result<(), LexError> {
        let mut tmp = 0usize;
        let mut last = None;
        while let Some(c) = self.at(self.j + tmp) {
            last = Some(c);
            if digits.contains(c) {
                self.j += 1 + tmp;
                tmp = 0;
            } else if c == '_' {
                tmp += 1;
            } else {
                break;
            }
        }
        match last {
            None => Err(self.error("number at the end of the input")),
            Some('l' | 'L') => {
                self.j += 1;
                Ok(())
            }
            Some(_) => Ok(()),
        }
    }

    fn read_decimal_integer(&mut self) -> Result<(), LexError> {
        self.j = self.i;
        self.read_digits("0123456789")
    }

    fn read_decimal_float_or_integer(&mut self) -> Result<TokenKind, LexError> {
        let orig = self.i;
        self.j = self.i;
        self.read_decimal_integer()?;
        if !self.at(self.j).is_some_and(|c| ".eEfFdD".contains(c)) {
            return Ok(TokenKind::Integer);
        }
        if self.at(self.j) == Some('.') {
            self.i = self.j + 1;
            self.read_decimal_integer()?;
        }
        if self.at(self.j).is_some_and(|c| "eE".contains(c)) {
            self.j += 1;
            if self.at(self.j).is_some_and(|c| "-+".contains(c)) {
                self.j += 1;
            }
            self.i = self.j;
            self.read_decimal_integer()?;
        }
        if self.at(self.j).is_some_and(|c| "fFdD".contains(c)) {
            self.j += 1;
        }
        self.i = orig;
        Ok(TokenKind::FloatingPoint)
    }

    fn read_hex_integer_or_float(&mut self) -> Result<TokenKind, LexError> {
        const HEX: &str = "0123456789abcdefABCDEF";
        let orig = self.i;
        self.j = self.i + 2;
        self.read_digits(HEX)?;
        if !self.at(self.j).is_some_and(|c| ".pP".contains(c)) {
            return Ok(TokenKind::Integer);
        }
        if self.at(self.j) == Some('.') {
            self.j += 1;
            self.read_digits(HEX)?;
        }
        if self.at(self.j).is_some_and(|c| "pP".contains(c)) {
            self.j += 1;
        } else {
            return Err(self.error("invalid hex float literal"));
        }
        if self.at(self.j).is_some_and(|c| "-+".contains(c)) {
            self.j += 1;
        }
        self.i = self.j;
        self.read_decimal_integer()?;
        if self.at(self.j).is_some_and(|c| "fFdD".contains(c)) {
            self.j += 1;
        }
        self.i = orig;
        Ok(TokenKind::FloatingPoint)
    }

    fn read_integer_or_float(
        &mut self,
        c: char,
        c_next: Option<char>,
    ) -> Result<TokenKind, LexError> {
        if c == '0' {
            // `c_next in 'xX'` raises a TypeError in Python when the input ends here.
            let Some(n) = c_next else {
                return Err(self.error("number at the end of the input"));
            };
            match n {
                'x' | 'X' => return self.read_hex_integer_or_float(),
                'b' | 'B' => {
                    self.j = self.i + 2;
                    self.read_digits("01")?;
                    return Ok(TokenKind::Integer);
                }
                '0'..='7' => {
                    self.j = self.i + 1;
                    self.read_digits("01234567")?;
                    return Ok(TokenKind::Integer);
                }
                _ => {}
            }
        }
        self.read_decimal_float_or_integer()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(src: &str) -> Vec<String> {
        tokenize(src).unwrap().into_iter().map(|t| t.text).collect()
    }

    #[test]
    fn ascii_identifier_characters_agree_with_the_categories() {
        for c in (0u8..128).map(char::from) {
            assert_eq!(ident_part(c), IDENT_PART.contains(c), "{c:?}");
        }
    }

    #[test]
    fn unicode_escapes_are_replaced_before_lexing() {
        assert_eq!(
            texts(r#"String s = \u0022a\u0022;"#),
            ["String", "s", "=", "\"a\"", ";"]
        );
        // An escaped backslash does not start an escape.
        assert_eq!(texts(r#""\\u0041""#), [r#""\\u0041""#]);
        assert!(tokenize(r"\uD800").is_err());
    }

    #[test]
    fn numbers_follow_javalang() {
        assert_eq!(
            texts("1_000L 0b101 017 1.5e-3f .5 0x1.8p1 1_L"),
            ["1_000L", "0b101", "017", "1.5e-3f", ".5", "0x1.8p1", "1_", "L"]
        );
        assert!(tokenize("x = 0").is_err(), "javalang raises on a final 0");
        assert!(tokenize("x = 1.").is_err(), "and on a final `1.`");
    }

    #[test]
    fn comments_are_dropped_and_lines_counted() {
        let toks = tokenize("/** doc */\nclass A { // c\n  int x; /* b\n */ }").unwrap();
        let lines: Vec<(String, usize)> = toks.into_iter().map(|t| (t.text, t.line)).collect();
        assert_eq!(lines[0], ("class".to_string(), 2));
        assert_eq!(lines[3], ("int".to_string(), 3));
        assert_eq!(lines.last().unwrap(), &("}".to_string(), 4));
        assert!(tokenize("/* open").is_err());
    }
}
