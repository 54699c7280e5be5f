//! Where a very large file may be cut into windows of complete top-level items, so that
//! extraction parses one window at a time and holds one window's syntax tree instead of
//! the whole file's (a tree costs about 43 bytes per source byte).
//!
//! The scanners are cheap and language-aware, not parsers: they skip strings, character
//! literals, comments and preprocessor lines, and propose a cut only where a top-level item
//! has certainly ended. A cut they get wrong (inside an item) leaves a window that does not
//! parse cleanly, and [`super::Extractor`] then parses the whole file instead, so a wrong
//! cut costs time, never a different result.
//!
//! The scanners know no language: each language says which one it takes and with which
//! rules ([`super::LanguageSpec::window_scanner`], [`super::LanguageSpec::starts_item`]).
//!
//! - C, C++, Java: after a `;` at brace, parenthesis and `#if` depth 0, or after a `}`
//!   closing to depth 0 whose `{` followed a `)` (a function body, not `struct S {} x;`),
//!   when the next text is not a comment (a comment after the cut could be the next
//!   item's docstring, which the extractor finds through the previous sibling).
//! - Python: before a line at column 0 that starts `def`, `class`, `async` or `@`, outside
//!   strings, brackets and backslash continuations, unless the statement before it was a
//!   decorator.
//!
//! With `toy`, a [`LanguageSpec`] over Python's grammar that takes the indentation scanner
//! and says items start with `def ` (the crate's tests have it; codemine-lang's tests cut
//! the real languages):
//!
//! ```
//! # use codemine_syntax::extract::{Around, Docstring, FunctionKind, LanguageSpec, Spec};
//! # use tree_sitter::Node;
//! # struct Toy;
//! # impl LanguageSpec for Toy {
//! #     fn name(&self) -> &'static str { "toy" }
//! #     fn grammar(&self) -> tree_sitter::Language { tree_sitter_python::LANGUAGE.into() }
//! #     fn function(&self, n: Node, _: &[Node], src: &str) -> Option<(FunctionKind, String)> {
//! #         let name = n.child_by_field_name("name").filter(|_| n.kind() == "function_definition")?;
//! #         Some((FunctionKind::Function, src[name.byte_range()].to_string()))
//! #     }
//! #     fn scope(&self, _: Node, _: &[Node], _: &str) -> Option<String> { None }
//! #     fn docstring<'t>(&self, _: Node<'t>, _: &Around<'_, 't>, _: &str) -> Option<Docstring<'t>> { None }
//! #     fn atomic_token(&self, kind: &str) -> bool { kind == "string" }
//! #     fn window_scanner(&self) -> Option<codemine_syntax::extract::window::Scanner> {
//! #         Some(codemine_syntax::extract::window::Scanner::Indentation)
//! #     }
//! #     fn starts_item(&self, rest: &[u8]) -> bool { rest.starts_with(b"def ") }
//! # }
//! # let toy: Spec = &Toy;
//! use codemine_syntax::extract::window;
//! let src = "def f():\n    return 1\ndef g():\n    return 2\n";
//! let cuts = window::cuts(toy, src, 1);
//! assert_eq!(cuts.iter().map(|c| c.byte).collect::<Vec<_>>(), [22]);
//! assert_eq!((cuts[0].row, cuts[0].column), (2, 0));
//! ```

use super::LanguageSpec;

/// A place where the file may be cut: its byte offset and (0-based) row and byte column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cut {
    pub byte: usize,
    pub row: usize,
    pub column: usize,
}

/// How a language's safe cut points are found (its [`LanguageSpec::window_scanner`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scanner {
    /// Python: a line at column 0 that starts an item ([`LanguageSpec::starts_item`]),
    /// outside strings and brackets.
    Indentation,
    /// C, C++, Java: after a top-level `}` or `;`, outside strings, comments and the
    /// preprocessor, with the language's lexical rules.
    Braces(Braces),
}

/// The lexical rules of a [`Scanner::Braces`] language besides C's strings, character
/// literals and comments. All off by default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Braces {
    /// A `#` first on a line opens a preprocessor directive (C, C++).
    pub preprocessor: bool,
    /// `R"delim( ... )delim"` raw strings (C++).
    pub raw_strings: bool,
    /// `'` between digits separates them (C++ `1'000`): no character literal.
    pub digit_separators: bool,
    /// `"""` text blocks (Java).
    pub text_blocks: bool,
    /// Every top-level `}` ends an item (Java's type declarations), not only a function
    /// body's.
    pub top_level_types: bool,
    /// A comment on the row of the item just ended trails that item, so the next window
    /// may not start with it (C, C++; a Java comment there starts the next window).
    pub trailing_comments: bool,
}

/// Cuts of `src` into windows of at least `window` bytes each (the last may be shorter, and
/// a window is longer when no cut falls near its end): the first safe cut at or after
/// `window` bytes from the previous one. Empty when there is no safe cut at all.
pub fn cuts(lang: impl Into<super::Spec>, src: &str, window: usize) -> Vec<Cut> {
    let lang = lang.into();
    let candidates = match lang.window_scanner() {
        Some(Scanner::Indentation) => indentation_candidates(src.as_bytes(), lang),
        Some(Scanner::Braces(rules)) => braces_candidates(src.as_bytes(), lang, rules),
        None => return Vec::new(),
    };
    let mut bytes = Vec::new();
    let mut last = 0usize;
    for c in candidates {
        if c >= last.saturating_add(window.max(1)) && c < src.len() {
            bytes.push(c);
            last = c;
        }
    }
    // Rows and columns from the offsets alone, in one pass: the scanners need not track them.
    let b = src.as_bytes();
    let (mut row, mut line_start, mut at) = (0usize, 0usize, 0usize);
    bytes
        .into_iter()
        .map(|byte| {
            for (k, &x) in b[at..byte].iter().enumerate() {
                if x == b'\n' {
                    row += 1;
                    line_start = at + k + 1;
                }
            }
            at = byte;
            Cut {
                byte,
                row,
                column: byte - line_start,
            }
        })
        .collect()
}

/// Whether a top-level item can start with `rest`, the text from its first byte on, by the
/// rule most languages share ([`LanguageSpec::starts_item`] by default): a name or keyword
/// (a directive, an annotation or decorator; `$` too where `dollar` says so, as in
/// JavaScript, TypeScript and PHP) other than the words that continue a statement (`else`,
/// `end`, `case`...). The scanners confirm a cut with the language's rule, and extraction
/// starts again there after a syntax error (`super::recover`, which asks it of the first
/// token of each line that starts at column 0).
pub fn starts_named_item(rest: &[u8], dollar: bool) -> bool {
    let Some(&c) = rest.first() else {
        return false;
    };
    let dollar = dollar && c == b'$';
    if !(c.is_ascii_alphabetic() || matches!(c, b'_' | b'#' | b'@') || dollar) {
        return false;
    }
    let word_len = rest
        .iter()
        .take_while(|x| x.is_ascii_alphanumeric() || **x == b'_')
        .count();
    !matches!(
        &rest[..word_len],
        b"else"
            | b"elsif"
            | b"elif"
            | b"end"
            | b"when"
            | b"in"
            | b"then"
            | b"do"
            | b"rescue"
            | b"ensure"
            | b"catch"
            | b"finally"
            | b"case"
            | b"default"
            | b"while"
    )
}

/// Skips a C-style string or character literal opened by `quote` at `i - 1`; an unescaped
/// newline also ends it (C literals do not span lines, and a stray quote in a comment-like
/// `#if 0` block then costs one line, not the rest of the file). Returns the index after it.
fn skip_quoted(b: &[u8], mut i: usize, quote: u8) -> usize {
    while i < b.len() {
        match b[i] {
            b'\\' => i += escape_len(b, i),
            b'\n' => return i,
            c if c == quote => return i + 1,
            _ => i += 1,
        }
    }
    b.len()
}

/// The length of the escape that the backslash at `i` starts: the backslash and the next
/// character, or a backslash and a Windows line end.
fn escape_len(b: &[u8], i: usize) -> usize {
    if b[i + 1..].starts_with(b"\r\n") {
        3
    } else {
        2
    }
}

/// The index just after the first `pat` at or after `from`, or the end of `b`.
fn after(b: &[u8], from: usize, pat: &[u8]) -> usize {
    let from = from.min(b.len());
    b[from..]
        .windows(pat.len())
        .position(|w| w == pat)
        .map_or(b.len(), |k| from + k + pat.len())
}

/// Whether the `'` at `i` is a C++14 digit separator (`1'000`): it follows a number.
fn digit_separator(b: &[u8], i: usize) -> bool {
    let mut j = i;
    while j > 0 && (b[j - 1].is_ascii_alphanumeric() || b[j - 1] == b'_' || b[j - 1] == b'\'') {
        j -= 1;
    }
    j < i && b[j].is_ascii_digit()
}

/// A cut after an item that ended at byte `end`, waiting for what follows.
struct Pending {
    end: usize,
    /// No comment came after the item yet.
    first: bool,
    /// The cut, once a comment that may start a window was seen.
    at: Option<usize>,
}

impl Pending {
    fn after(end: usize) -> Self {
        Pending {
            end,
            first: true,
            at: None,
        }
    }
}

/// Cut candidates (byte offsets) of a C, C++ or Java file, in order.
fn braces_candidates(b: &[u8], lang: &dyn LanguageSpec, rules: Braces) -> Vec<usize> {
    let mut out = Vec::new();
    let (mut braces, mut parens, mut pp) = (0i64, 0i64, 0i64);
    // Whether only whitespace came before on this line (a `#` there starts a directive).
    let mut at_line_start = true;
    // The last byte of code before the current one, comments and whitespace skipped.
    let mut last_code = 0u8;
    // For each open brace: whether it followed a `)` (a function body).
    let mut openers: Vec<bool> = Vec::new();
    // An item has just ended: where the cut would go, confirmed by the code that follows.
    let mut pending: Option<Pending> = None;
    // A top-level `)` was just closed; and a name followed one (`int f(a) int a; {`, K&R
    // parameter declarations, or `void f() const;`): until the next body ends, a `;` may be
    // inside a definition.
    let (mut closed_paren, mut kr) = (false, false);
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'\n' {
            i += 1;
            at_line_start = true;
            continue;
        }
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let comment = c == b'/' && matches!(b.get(i + 1), Some(b'/' | b'*'));
        if let Some(p) = pending.as_mut() {
            if comment {
                // A comment that trails the item on its row is no docstring of what follows
                // only because the item is before it: the window may not start with it.
                let trailing = p.first && !b[p.end..i].contains(&b'\n') && rules.trailing_comments;
                if p.at.is_none() && !trailing {
                    p.at = Some(i);
                }
                p.first = false;
            } else {
                // Only the start of a new item confirms the cut: a name or keyword, a
                // directive, an annotation; not `;`, `,`, `(`, `{`..., which continue the
                // item (`auto l = [] {...};`, K&R parameter declarations before a body).
                if lang.starts_item(&b[i..]) {
                    out.push(p.at.unwrap_or(i));
                }
                pending = None;
            }
        }
        if comment {
            if b[i + 1] == b'/' {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            } else {
                i = after(b, i + 2, b"*/");
            }
            continue;
        }
        if c == b'#' && at_line_start && rules.preprocessor {
            // A directive: counts conditionals, skips the rest (continuations included).
            let word_start = i
                + 1
                + b[i + 1..]
                    .iter()
                    .take_while(|&&x| x == b' ' || x == b'\t')
                    .count();
            let word: Vec<u8> = b[word_start..]
                .iter()
                .take_while(|x| x.is_ascii_alphabetic())
                .copied()
                .collect();
            match word.as_slice() {
                b"if" | b"ifdef" | b"ifndef" => pp += 1,
                b"endif" => pp -= 1,
                _ => {}
            }
            if pp < 0 {
                break;
            }
            while i < b.len() && b[i] != b'\n' {
                if b[i] == b'\\' && b[i + 1..].starts_with(b"\n") {
                    i += 1;
                } else if b[i] == b'\\' && b[i + 1..].starts_with(b"\r\n") {
                    i += 2;
                } else if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                    // A comment may run on past the directive's line.
                    i = after(b, i + 2, b"*/") - 1;
                }
                i += 1;
            }
            // The directive ended an item as far as docstrings go (it is no comment).
            continue;
        }
        at_line_start = false;
        if std::mem::take(&mut closed_paren) && (c.is_ascii_alphabetic() || c == b'_') {
            kr = true;
        }
        match c {
            b'"' if rules.text_blocks && b[i..].starts_with(b"\"\"\"") => {
                // A text block: up to the next unescaped `"""`.
                i += 3;
                while i < b.len() && !b[i..].starts_with(b"\"\"\"") {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i = (i + 3).min(b.len());
                last_code = b'"';
                continue;
            }
            b'"' if rules.raw_strings && raw_string_prefix(b, i) => {
                // R"delim( ... )delim"
                let open = i + 1;
                let Some(paren) = b[open..].iter().position(|&x| x == b'(') else {
                    break;
                };
                let mut close = Vec::with_capacity(paren + 2);
                close.push(b')');
                close.extend_from_slice(&b[open..open + paren]);
                close.push(b'"');
                i = after(b, open + paren + 1, &close);
                last_code = b'"';
                continue;
            }
            b'"' => {
                i = skip_quoted(b, i + 1, b'"');
                last_code = b'"';
                continue;
            }
            b'\'' if !(rules.digit_separators && digit_separator(b, i)) => {
                i = skip_quoted(b, i + 1, b'\'');
                last_code = b'\'';
                continue;
            }
            b'(' => parens += 1,
            b')' => {
                parens -= 1;
                closed_paren = parens == 0 && braces == 0;
            }
            b'{' => {
                openers.push(last_code == b')');
                braces += 1;
            }
            b'}' => {
                braces -= 1;
                let body = openers.pop().unwrap_or(false);
                if braces == 0 {
                    kr = false;
                }
                // In Java, a top-level `}` ends a type declaration.
                if braces == 0 && parens == 0 && pp == 0 && (body || rules.top_level_types) {
                    pending = Some(Pending::after(i + 1));
                }
            }
            b';' if braces == 0 && parens == 0 && pp == 0 && !kr => {
                pending = Some(Pending::after(i + 1));
            }
            _ => {}
        }
        if braces < 0 || parens < 0 {
            // Unbalanced: the count is lost, so no later cut is trustworthy.
            break;
        }
        last_code = c;
        i += 1;
    }
    out
}

/// Whether the `"` at `i` opens a C++ raw string (`R"`, `LR"`, `u8R"`, `uR"`, `UR"`).
fn raw_string_prefix(b: &[u8], i: usize) -> bool {
    if i == 0 || b[i - 1] != b'R' {
        return false;
    }
    let mut j = i - 1;
    while j > 0 && (b[j - 1].is_ascii_alphanumeric() || b[j - 1] == b'_') {
        j -= 1;
    }
    matches!(&b[j..i], b"R" | b"LR" | b"uR" | b"UR" | b"u8R")
}

/// Cut candidates (byte offsets) of a Python file, in order: the starts of top-level
/// items (`def`, `class`, `async` and decorator lines) that do not follow a decorator.
fn indentation_candidates(b: &[u8], lang: &dyn LanguageSpec) -> Vec<usize> {
    let mut out = Vec::new();
    let mut brackets = 0i64;
    let mut continued = false; // the previous line ended in a backslash
    let mut after_decorator = false;
    let mut i = 0;
    let mut line_begins = true;
    while i < b.len() {
        if line_begins {
            line_begins = false;
            if brackets == 0 && !continued {
                let rest = &b[i..];
                if lang.starts_item(rest) && i > 0 && !after_decorator {
                    out.push(i);
                }
                if let Some(&c) = rest.first() {
                    if !c.is_ascii_whitespace() && c != b'#' {
                        after_decorator = c == b'@';
                    }
                }
            }
            continued = false;
        }
        let c = b[i];
        match c {
            b'\n' => {
                i += 1;
                line_begins = true;
                continue;
            }
            b'#' => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'\\' if b.get(i + 1) == Some(&b'\n') => {
                continued = true;
                i += 1;
                continue;
            }
            b'\\' if b.get(i + 1) == Some(&b'\r') && b.get(i + 2) == Some(&b'\n') => {
                continued = true;
                i += 2;
                continue;
            }
            b'(' | b'[' | b'{' => brackets += 1,
            b')' | b']' | b'}' => {
                brackets -= 1;
                if brackets < 0 {
                    break;
                }
            }
            b'"' | b'\'' => {
                let triple = b[i..].starts_with(&[c, c, c]);
                i += if triple { 3 } else { 1 };
                while i < b.len() {
                    match b[i] {
                        b'\\' => {
                            i += escape_len(b, i);
                            continue;
                        }
                        b'\n' if !triple => break,
                        x if x == c && (!triple || b[i..].starts_with(&[c, c, c])) => {
                            i += if triple { 3 } else { 1 };
                            break;
                        }
                        _ => {}
                    }
                    i += 1;
                }
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    out
}
