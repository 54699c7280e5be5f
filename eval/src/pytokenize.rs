//! CPython 3.11's pure-Python `tokenize` module, ported: `generate_tokens` over a `str`,
//! token for token (kinds, text, start and end positions), with the errors it raises.
//!
//! The CodeBLEU reference removes Python comments and docstrings with it, and CodeXGLUE's
//! code-completion preprocessing turns its token stream into the `<s> ... </s>` lines. It
//! follows 3.11, where an f-string is one `STRING` token (3.12 splits f-strings into
//! `FSTRING_START`/`FSTRING_MIDDLE`/`FSTRING_END`; CodeXGLUE pinned 3.7, which agrees with
//! 3.11 here).
//!
//! ```
//! use codemine_eval::pytokenize::{generate_tokens, Kind};
//! let kinds: Vec<Kind> = generate_tokens("x = 1\n").unwrap().iter().map(|t| t.kind).collect();
//! assert_eq!(
//!     kinds,
//!     [Kind::Name, Kind::Op, Kind::Number, Kind::Newline, Kind::EndMarker]
//! );
//! ```

use crate::pytext::py_is_word;

/// A token type of the `token` module (`ENCODING` is not produced: the input is text).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    Name,
    Number,
    String,
    /// Operators and brackets (`OP`).
    Op,
    Comment,
    /// A line break that does not end a logical line (blank lines, inside brackets).
    Nl,
    Newline,
    Indent,
    Dedent,
    /// A character no token starts with, or an unterminated one-quote string.
    ErrorToken,
    EndMarker,
}

/// One token: its kind, its text and its (1-based line, 0-based column) start and end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    pub kind: Kind,
    pub text: String,
    pub start: (usize, usize),
    pub end: (usize, usize),
}

/// What `tokenize` raises.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TokenizeError {
    /// `TokenError: ('EOF in multi-line string', ...)`.
    #[error("EOF in multi-line string starting on line {line}")]
    EofInString { line: usize },
    /// `TokenError: ('EOF in multi-line statement', ...)`.
    #[error("EOF in multi-line statement (line {line})")]
    EofInStatement { line: usize },
    /// `IndentationError: unindent does not match any outer indentation level`.
    #[error("line {line}: unindent does not match any outer indentation level")]
    Dedent { line: usize },
}

/// `str.isidentifier()` of a token's first character: a letter, a letter number or `_`
/// (XID_Start); what tells `NAME` from `OP` among `\w+` matches.
fn is_identifier_start(c: char) -> bool {
    c == '_' || (c.is_alphabetic() && py_is_word(c))
}

const TABSIZE: usize = 8;

/// How a string that continues past its first line ends (`tokenize.endpats`).
#[derive(Clone, Copy)]
enum EndPat {
    /// `Single` / `Double`: the tail of a one-quote string continued with a backslash.
    Single(char),
    /// `Single3` / `Double3`: the tail of a triple-quoted string.
    Triple(char),
}

impl EndPat {
    /// `endprog.match(line, pos)`: the end of the match.
    fn match_at(self, line: &[char], mut i: usize) -> Option<usize> {
        let at = |k: usize| line.get(k).copied();
        match self {
            EndPat::Single(q) => loop {
                match at(i)? {
                    c if c == q => return Some(i + 1),
                    '\\' => match at(i + 1) {
                        Some(n) if n != '\n' => i += 2,
                        _ => return None,
                    },
                    _ => i += 1,
                }
            },
            EndPat::Triple(q) => loop {
                match at(i)? {
                    c if c == q => {
                        if at(i + 1) == Some(q) && at(i + 2) == Some(q) {
                            return Some(i + 3);
                        }
                        i += 1;
                    }
                    '\\' => match at(i + 1) {
                        Some(n) if n != '\n' => i += 2,
                        _ => return None,
                    },
                    _ => i += 1,
                }
            },
        }
    }
}

struct Cont {
    text: String,
    start: (usize, usize),
    end_pat: EndPat,
}

/// A token's text as [`tokenize_with`] hands it over: characters of the current line, or
/// (a string continued over lines) text put together.
#[derive(Clone, Copy, Debug)]
pub enum Text<'a> {
    Chars(&'a [char]),
    Str(&'a str),
}

impl Text<'_> {
    /// The text as an owned string.
    pub fn to_owned_string(self) -> String {
        match self {
            Text::Chars(c) => c.iter().collect(),
            Text::Str(s) => s.to_string(),
        }
    }
}

/// `tokenize.generate_tokens(io.StringIO(source).readline)` (CPython 3.11): every token
/// but `ENCODING`, or the error it raises.
pub fn generate_tokens(source: &str) -> Result<Vec<Token>, TokenizeError> {
    let mut tokens = Vec::new();
    tokenize_with(source, |kind, text, start, end| {
        tokens.push(Token {
            kind,
            text: text.to_owned_string(),
            start,
            end,
        });
    })?;
    Ok(tokens)
}

/// [`generate_tokens`] without a `String` per token: `sink` gets each token's kind, text,
/// start and end in order (tokens before an error included).
pub fn tokenize_with(
    source: &str,
    mut sink: impl FnMut(Kind, Text<'_>, (usize, usize), (usize, usize)),
) -> Result<(), TokenizeError> {
    // StringIO.readline splits after each "\n" only.
    let mut lines = source.split_inclusive('\n');
    let mut lnum = 0usize;
    let mut parenlev: isize = 0;
    let mut continued = false;
    let mut cont: Option<Cont> = None;
    // `needcont` outlives its string, as in CPython: only a string that ends resets it, so
    // after an unterminated one-quote string a later triple-quoted string that spans lines
    // ends at its first line not ending in a backslash, as an ERRORTOKEN.
    let mut needcont = false;
    let mut indents: Vec<usize> = vec![0];
    // Two line buffers, reused: the current line and the one before it.
    let mut line: Vec<char> = Vec::new();
    let mut last_line: Vec<char> = Vec::new();
    // The current line as text when it is ASCII (a character is a byte): tokens are handed
    // over as slices of it.
    let mut ascii: Option<&str>;
    fn text<'a>(l: &'a [char], ascii: Option<&'a str>, a: usize, b: usize) -> Text<'a> {
        let b = b.min(l.len());
        let a = a.min(b);
        match ascii {
            Some(s) => Text::Str(&s[a..b]),
            None => Text::Chars(&l[a..b]),
        }
    }
    loop {
        std::mem::swap(&mut last_line, &mut line);
        line.clear();
        ascii = None;
        if let Some(l) = lines.next() {
            if l.is_ascii() {
                line.extend(l.bytes().map(char::from));
                ascii = Some(l);
            } else {
                line.extend(l.chars());
            }
        }
        lnum += 1;
        let mut pos = 0usize;
        let max = line.len();

        if let Some(c) = cont.as_mut() {
            if line.is_empty() {
                return Err(TokenizeError::EofInString { line: c.start.0 });
            }
            if let Some(end) = c.end_pat.match_at(&line, 0) {
                pos = end;
                let mut t = std::mem::take(&mut c.text);
                t.extend(&line[..end]);
                sink(Kind::String, Text::Str(&t), c.start, (lnum, end));
                cont = None;
                needcont = false;
            } else if needcont
                && !line.ends_with(&['\\', '\n'])
                && !line.ends_with(&['\\', '\r', '\n'])
            {
                let mut t = std::mem::take(&mut c.text);
                t.extend(&line);
                sink(Kind::ErrorToken, Text::Str(&t), c.start, (lnum, line.len()));
                cont = None;
                continue;
            } else {
                c.text.extend(&line);
                continue;
            }
        } else if parenlev == 0 && !continued {
            if line.is_empty() {
                break;
            }
            let mut column = 0usize;
            while pos < max {
                match line[pos] {
                    ' ' => column += 1,
                    '\t' => column = (column / TABSIZE + 1) * TABSIZE,
                    '\x0c' => column = 0,
                    _ => break,
                }
                pos += 1;
            }
            if pos == max {
                break;
            }
            if matches!(line[pos], '#' | '\r' | '\n') {
                if line[pos] == '#' {
                    let mut end = max;
                    while end > pos && matches!(line[end - 1], '\r' | '\n') {
                        end -= 1;
                    }
                    sink(
                        Kind::Comment,
                        text(&line, ascii, pos, end),
                        (lnum, pos),
                        (lnum, end),
                    );
                    pos = end;
                }
                sink(
                    Kind::Nl,
                    text(&line, ascii, pos, max),
                    (lnum, pos),
                    (lnum, max),
                );
                continue;
            }
            if column > *indents.last().unwrap_or(&0) {
                indents.push(column);
                sink(
                    Kind::Indent,
                    text(&line, ascii, 0, pos),
                    (lnum, 0),
                    (lnum, pos),
                );
            }
            while column < *indents.last().unwrap_or(&0) {
                if !indents.contains(&column) {
                    return Err(TokenizeError::Dedent { line: lnum });
                }
                indents.pop();
                sink(Kind::Dedent, Text::Str(""), (lnum, pos), (lnum, pos));
            }
        } else {
            if line.is_empty() {
                return Err(TokenizeError::EofInStatement { line: lnum });
            }
            continued = false;
        }

        while pos < max {
            let Some((start, end)) = pseudo_token(&line, pos) else {
                sink(
                    Kind::ErrorToken,
                    text(&line, ascii, pos, pos + 1),
                    (lnum, pos),
                    (lnum, pos + 1),
                );
                pos += 1;
                continue;
            };
            pos = end;
            if start == end {
                continue;
            }
            let tok = &line[start..end];
            let initial = tok[0];
            let spos = (lnum, start);
            let epos = (lnum, end);
            let kind;
            if initial.is_ascii_digit()
                || (initial == '.' && tok != ['.'] && tok != ['.', '.', '.'])
            {
                kind = Kind::Number;
            } else if initial == '\r' || initial == '\n' {
                kind = if parenlev > 0 {
                    Kind::Nl
                } else {
                    Kind::Newline
                };
            } else if initial == '#' {
                kind = Kind::Comment;
            } else if let Some(q) = triple_quote(tok) {
                let end_pat = EndPat::Triple(q);
                if let Some(e) = end_pat.match_at(&line, pos) {
                    pos = e;
                    sink(
                        Kind::String,
                        text(&line, ascii, start, pos),
                        spos,
                        (lnum, pos),
                    );
                } else {
                    cont = Some(Cont {
                        text: text(&line, ascii, start, max).to_owned_string(),
                        start: spos,
                        end_pat,
                    });
                    break;
                }
                continue;
            } else if let Some(q) = single_quote(tok) {
                if tok.last() == Some(&'\n') {
                    cont = Some(Cont {
                        text: text(&line, ascii, start, max).to_owned_string(),
                        start: spos,
                        end_pat: EndPat::Single(q),
                    });
                    needcont = true;
                    break;
                }
                kind = Kind::String;
            } else if initial == '\\' {
                // Only `\` + newline gets here: a continued statement.
                continued = true;
                continue;
            } else if is_identifier_start(initial) {
                kind = Kind::Name;
            } else {
                match initial {
                    '(' | '[' | '{' => parenlev += 1,
                    ')' | ']' | '}' => parenlev -= 1,
                    _ => {}
                }
                kind = Kind::Op;
            }
            sink(kind, text(&line, ascii, start, end), spos, epos);
        }
    }
    if !last_line.is_empty() && !matches!(last_line.last(), Some('\r' | '\n')) {
        let s: String = last_line.iter().collect();
        if !crate::pytext::py_strip(&s).starts_with('#') {
            sink(
                Kind::Newline,
                Text::Str(""),
                (lnum - 1, last_line.len()),
                (lnum - 1, last_line.len() + 1),
            );
        }
    }
    for _ in 1..indents.len() {
        sink(Kind::Dedent, Text::Str(""), (lnum, 0), (lnum, 0));
    }
    sink(Kind::EndMarker, Text::Str(""), (lnum, 0), (lnum, 0));
    Ok(())
}

/// Whether `p` is one of `tokenize`'s string prefixes (`b r u f br fr` in any order and case).
fn is_string_prefix(p: &[char]) -> bool {
    let lower: Vec<char> = p.iter().map(|c| c.to_ascii_lowercase()).collect();
    matches!(
        lower.as_slice(),
        [] | ['b'] | ['r'] | ['u'] | ['f'] | ['b', 'r'] | ['r', 'b'] | ['f', 'r'] | ['r', 'f']
    )
}

/// The quote of a token in `tokenize.triple_quoted` (a prefix and three quotes).
fn triple_quote(tok: &[char]) -> Option<char> {
    let n = tok.len();
    if n < 3 {
        return None;
    }
    let q = tok[n - 1];
    ((q == '\'' || q == '"')
        && tok[n - 2] == q
        && tok[n - 3] == q
        && is_string_prefix(&tok[..n - 3]))
    .then_some(q)
}

/// The quote of a token that starts like one in `tokenize.single_quoted` (its first one,
/// two or three characters are a prefix and a quote).
fn single_quote(tok: &[char]) -> Option<char> {
    (1..=3.min(tok.len())).find_map(|k| {
        let q = tok[k - 1];
        ((q == '\'' || q == '"') && is_string_prefix(&tok[..k - 1])).then_some(q)
    })
}

/// `tokenize.PseudoToken.match(line, pos)`: the span of group 1 (after leading whitespace).
fn pseudo_token(line: &[char], pos: usize) -> Option<(usize, usize)> {
    let at = |k: usize| line.get(k).copied();
    let mut s = pos;
    while matches!(at(s), Some(' ' | '\x0c' | '\t')) {
        s += 1;
    }
    // PseudoExtras: a backslash continuation, the end of the line, a comment, a triple quote.
    if at(s) == Some('\\') {
        if at(s + 1) == Some('\n') {
            return Some((s, s + 2));
        }
        if at(s + 1) == Some('\r') && at(s + 2) == Some('\n') {
            return Some((s, s + 3));
        }
    }
    // `\Z`: only whitespace was left.
    let Some(first) = at(s) else {
        return Some((s, s));
    };
    // A name (most tokens): an ASCII letter or `_` starts no number or operator, so unless
    // a quote follows its word characters (a string prefix) it is the `Name` alternative.
    if first.is_ascii_alphabetic() || first == '_' {
        let mut e = s + 1;
        while at(e).is_some_and(py_is_word) {
            e += 1;
        }
        if !matches!(at(e), Some('\'' | '"')) {
            return Some((s, e));
        }
    }
    if first == '#' {
        let mut e = s;
        while !matches!(at(e), None | Some('\r' | '\n')) {
            e += 1;
        }
        return Some((s, e));
    }
    if let Some(e) = string_opening(line, s, true) {
        return Some((s, e));
    }
    if let Some(e) = number(line, s) {
        return Some((s, e));
    }
    // Funny: a newline or an operator (the longest one that matches).
    if first == '\n' {
        return Some((s, s + 1));
    }
    if first == '\r' && at(s + 1) == Some('\n') {
        return Some((s, s + 2));
    }
    if let Some(e) = operator(line, s) {
        return Some((s, e));
    }
    if let Some(e) = string_opening(line, s, false) {
        return Some((s, e));
    }
    let mut e = s;
    while at(e).is_some_and(py_is_word) {
        e += 1;
    }
    (e > s).then_some((s, e))
}

/// With `triple`: `Triple` (a prefix and an opening triple quote). Without: `ContStr`, a
/// one-quote string up to its closing quote or up to a backslash-newline continuation.
fn string_opening(line: &[char], s: usize, triple: bool) -> Option<usize> {
    let at = |k: usize| line.get(k).copied();
    let q_at = (s..s + 3).find(|&k| matches!(at(k), Some('\'' | '"')))?;
    if !line[s..q_at].iter().all(|c| c.is_ascii_alphabetic()) || !is_string_prefix(&line[s..q_at]) {
        return None;
    }
    let q = line[q_at];
    if triple {
        return (at(q_at + 1) == Some(q) && at(q_at + 2) == Some(q)).then_some(q_at + 3);
    }
    let mut i = q_at + 1;
    loop {
        match at(i)? {
            c if c == q => return Some(i + 1),
            '\n' => return None,
            '\\' => match (at(i + 1), at(i + 2)) {
                (Some('\n'), _) => return Some(i + 2),
                (Some('\r'), Some('\n')) => return Some(i + 3),
                (Some(_), _) => i += 2,
                (None, _) => return None,
            },
            _ => i += 1,
        }
    }
}

/// `[0-9](?:_?[0-9])*`
fn digit_part(line: &[char], i: usize) -> Option<usize> {
    let digit = |k: usize| line.get(k).is_some_and(|c| c.is_ascii_digit());
    if !digit(i) {
        return None;
    }
    let mut j = i + 1;
    loop {
        if digit(j) {
            j += 1;
        } else if line.get(j) == Some(&'_') && digit(j + 1) {
            j += 2;
        } else {
            return Some(j);
        }
    }
}

/// `[eE][-+]?[0-9](?:_?[0-9])*`
fn exponent(line: &[char], i: usize) -> Option<usize> {
    if !matches!(line.get(i), Some('e' | 'E')) {
        return None;
    }
    let j = if matches!(line.get(i + 1), Some('-' | '+')) {
        i + 2
    } else {
        i + 1
    };
    digit_part(line, j)
}

/// `Floatnumber`: `Pointfloat | Expfloat`.
fn float(line: &[char], i: usize) -> Option<usize> {
    let point = if let Some(d) = digit_part(line, i) {
        (line.get(d) == Some(&'.')).then(|| digit_part(line, d + 1).unwrap_or(d + 1))
    } else if line.get(i) == Some(&'.') {
        digit_part(line, i + 1)
    } else {
        None
    };
    if let Some(p) = point {
        return Some(exponent(line, p).unwrap_or(p));
    }
    digit_part(line, i).and_then(|d| exponent(line, d))
}

/// `Number`: `Imagnumber | Floatnumber | Intnumber`, the first alternative that matches.
fn number(line: &[char], i: usize) -> Option<usize> {
    let is_j = |k: usize| matches!(line.get(k), Some('j' | 'J'));
    if let Some(d) = digit_part(line, i) {
        if is_j(d) {
            return Some(d + 1);
        }
    }
    if let Some(f) = float(line, i) {
        return Some(if is_j(f) { f + 1 } else { f });
    }
    let at = |k: usize| line.get(k).copied();
    if at(i) == Some('0') {
        let radix: Option<fn(char) -> bool> = match at(i + 1) {
            Some('x' | 'X') => Some(|c| c.is_ascii_hexdigit()),
            Some('b' | 'B') => Some(|c| c == '0' || c == '1'),
            Some('o' | 'O') => Some(|c| ('0'..='7').contains(&c)),
            _ => None,
        };
        if let Some(ok) = radix {
            let mut j = i + 2;
            loop {
                if at(j).is_some_and(ok) {
                    j += 1;
                } else if at(j) == Some('_') && at(j + 1).is_some_and(ok) {
                    j += 2;
                } else {
                    break;
                }
            }
            if j > i + 2 {
                return Some(j);
            }
        }
        let mut j = i + 1;
        loop {
            if at(j) == Some('0') {
                j += 1;
            } else if at(j) == Some('_') && at(j + 1) == Some('0') {
                j += 2;
            } else {
                return Some(j);
            }
        }
    }
    // `[1-9](?:_?[0-9])*`: digit_part from a non-zero digit.
    digit_part(line, i)
}

/// `Special`: the operators of `token.EXACT_TOKEN_TYPES`, longest first.
fn operator(line: &[char], i: usize) -> Option<usize> {
    // The longest of `tokenize`'s operators that starts at `i`, matched on the characters:
    // three (`**= ... //= <<= >>=`), two (`!= %= &= ** *= += -= -> // /= := << <= == >= >>
    // @= ^= |=`), one (`%&()*+,-./:;<=>@[]^{|}~`).
    let at = |k: usize| line.get(i + k).copied();
    let c0 = at(0)?;
    let (c1, c2) = (at(1), at(2));
    if matches!(
        (c0, c1, c2),
        ('*', Some('*'), Some('='))
            | ('.', Some('.'), Some('.'))
            | ('/', Some('/'), Some('='))
            | ('<', Some('<'), Some('='))
            | ('>', Some('>'), Some('='))
    ) {
        return Some(i + 3);
    }
    if matches!(
        (c0, c1),
        (
            '!' | '%' | '&' | '+' | ':' | '=' | '@' | '^' | '|',
            Some('=')
        ) | ('*', Some('*' | '='))
            | ('-', Some('=' | '>'))
            | ('/', Some('/' | '='))
            | ('<', Some('<' | '='))
            | ('>', Some('=' | '>'))
    ) {
        return Some(i + 2);
    }
    matches!(
        c0,
        '%' | '&'
            | '('
            | ')'
            | '*'
            | '+'
            | ','
            | '-'
            | '.'
            | '/'
            | ':'
            | ';'
            | '<'
            | '='
            | '>'
            | '@'
            | '['
            | ']'
            | '^'
            | '{'
            | '|'
            | '}'
            | '~'
    )
    .then_some(i + 1)
}

#[cfg(test)]
mod operator_tests {
    use super::operator;

    /// `tokenize`'s operator lists, matched the plain way.
    fn reference(line: &[char], i: usize) -> Option<usize> {
        const OPS3: [&str; 5] = ["**=", "...", "//=", "<<=", ">>="];
        const OPS2: [&str; 19] = [
            "!=", "%=", "&=", "**", "*=", "+=", "-=", "->", "//", "/=", ":=", "<<", "<=", "==",
            ">=", ">>", "@=", "^=", "|=",
        ];
        const OPS1: &str = "%&()*+,-./:;<=>@[]^{|}~";
        let starts = |op: &str| {
            op.chars()
                .enumerate()
                .all(|(k, c)| line.get(i + k) == Some(&c))
        };
        if OPS3.iter().any(|op| starts(op)) {
            return Some(i + 3);
        }
        if OPS2.iter().any(|op| starts(op)) {
            return Some(i + 2);
        }
        line.get(i)
            .is_some_and(|c| OPS1.contains(*c))
            .then_some(i + 1)
    }

    #[test]
    fn operators_match_the_lists() {
        let chars: Vec<char> = "!%&()*+,-./:;<=>@[]^{|}~a ".chars().collect();
        for &a in &chars {
            for &b in &chars {
                for &c in &chars {
                    for line in [vec![a], vec![a, b], vec![a, b, c]] {
                        assert_eq!(operator(&line, 0), reference(&line, 0), "{line:?}");
                    }
                }
            }
        }
    }
}
