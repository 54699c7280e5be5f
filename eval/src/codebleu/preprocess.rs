//! The reference's `remove_comments_and_docstrings`, which both the syntax and the data-flow
//! match apply to every prediction and reference before parsing.
//!
//! - Python: a re-tokenisation with the standard library's `tokenize` module (the pure-Python
//!   tokenizer of CPython 3.11, ported here), dropping comments and the strings it takes for
//!   docstrings and rebuilding each line from the token positions. Input it cannot tokenize
//!   (an unterminated triple-quoted string or bracket, a bad dedent) is left as it is, as the
//!   reference's `except Exception: pass` does.
//! - Java, C and C++: a regular expression replacing `//` and `/* */` comments outside string
//!   and character literals with a space.
//!
//! Both then drop the lines that are blank (Python's `str.strip`).

use std::sync::LazyLock;

use regex::Regex;

use super::pyrt;
use super::Language;

pub(crate) fn remove_comments_and_docstrings(source: &str, lang: Language) -> String {
    let cleaned = match lang {
        Language::Python => match python_without_docstrings(source) {
            Some(s) => s,
            None => return source.to_string(),
        },
        Language::Java | Language::C | Language::Cpp => c_like_without_comments(source),
    };
    let kept: Vec<&str> = cleaned
        .split('\n')
        .filter(|l| !pyrt::strip(l).is_empty())
        .collect();
    kept.join("\n")
}

/// `//.*?$|/\*.*?\*/|'(?:\\.|[^\\'])*'|"(?:\\.|[^\\"])*"` with `re.DOTALL | re.MULTILINE`;
/// literals are kept, comments become one space.
fn c_like_without_comments(source: &str) -> String {
    static PATTERN: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"(?sm)//.*?$|/\*.*?\*/|'(?:\\.|[^\\'])*'|"(?:\\.|[^\\"])*""#)
            .unwrap_or_else(|e| panic!("comment pattern: {e}"))
    });
    PATTERN
        .replace_all(source, |caps: &regex::Captures<'_>| {
            let s = &caps[0];
            if s.starts_with('/') {
                " ".to_string()
            } else {
                s.to_string()
            }
        })
        .into_owned()
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Comment,
    String,
    Indent,
    Newline,
    /// NL, NAME, NUMBER, OP, DEDENT, ERRORTOKEN, ENDMARKER: the reference treats them alike.
    Other,
}

struct Token {
    kind: Kind,
    text: String,
    start: (usize, usize),
    end: (usize, usize),
}

/// The Python branch of the reference: `None` where `tokenize` raises.
fn python_without_docstrings(source: &str) -> Option<String> {
    let tokens = tokenize(source)?;
    let mut out = String::with_capacity(source.len());
    let mut prev = Kind::Indent;
    let mut last_lineno: isize = -1;
    let mut last_col = 0usize;
    for tok in tokens {
        let (start_line, start_col) = tok.start;
        if start_line as isize > last_lineno {
            last_col = 0;
        }
        if start_col > last_col {
            out.extend(std::iter::repeat_n(' ', start_col - last_col));
        }
        match tok.kind {
            Kind::Comment => {}
            // A string right after an indent or a logical line, or at column 0, is taken
            // for a docstring.
            Kind::String => {
                if prev != Kind::Indent && prev != Kind::Newline && start_col > 0 {
                    out.push_str(&tok.text);
                }
            }
            _ => out.push_str(&tok.text),
        }
        prev = tok.kind;
        last_col = tok.end.1;
        last_lineno = tok.end.0 as isize;
    }
    Some(out)
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
    need_cont: bool,
}

/// `tokenize.generate_tokens(io.StringIO(source).readline)` (CPython 3.11), keeping what the
/// docstring remover looks at. `None` for the inputs where it raises (`TokenError`,
/// `IndentationError`).
fn tokenize(source: &str) -> Option<Vec<Token>> {
    let mut tokens = Vec::new();
    // StringIO.readline splits after each "\n" only.
    let mut lines = source
        .split_inclusive('\n')
        .map(|l| l.chars().collect::<Vec<char>>());
    let mut lnum = 0usize;
    let mut parenlev: isize = 0;
    let mut continued = false;
    let mut cont: Option<Cont> = None;
    let mut indents: Vec<usize> = vec![0];
    let mut line: Vec<char> = Vec::new();
    let mut last_line: Vec<char>;
    let text = |l: &[char], a: usize, b: usize| -> String {
        let b = b.min(l.len());
        l[a.min(b)..b].iter().collect()
    };
    loop {
        last_line = std::mem::take(&mut line);
        line = lines.next().unwrap_or_default();
        lnum += 1;
        let mut pos = 0usize;
        let max = line.len();

        if let Some(c) = cont.as_mut() {
            if line.is_empty() {
                return None; // EOF in multi-line string
            }
            if let Some(end) = c.end_pat.match_at(&line, 0) {
                pos = end;
                let mut t = std::mem::take(&mut c.text);
                t.extend(&line[..end]);
                tokens.push(Token {
                    kind: Kind::String,
                    text: t,
                    start: c.start,
                    end: (lnum, end),
                });
                cont = None;
            } else if c.need_cont
                && !line.ends_with(&['\\', '\n'])
                && !line.ends_with(&['\\', '\r', '\n'])
            {
                let mut t = std::mem::take(&mut c.text);
                t.extend(&line);
                tokens.push(Token {
                    kind: Kind::Other,
                    text: t,
                    start: c.start,
                    end: (lnum, line.len()),
                });
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
                    tokens.push(Token {
                        kind: Kind::Comment,
                        text: text(&line, pos, end),
                        start: (lnum, pos),
                        end: (lnum, end),
                    });
                    pos = end;
                }
                tokens.push(Token {
                    kind: Kind::Other,
                    text: text(&line, pos, max),
                    start: (lnum, pos),
                    end: (lnum, max),
                });
                continue;
            }
            if column > *indents.last().unwrap_or(&0) {
                indents.push(column);
                tokens.push(Token {
                    kind: Kind::Indent,
                    text: text(&line, 0, pos),
                    start: (lnum, 0),
                    end: (lnum, pos),
                });
            }
            while column < *indents.last().unwrap_or(&0) {
                if !indents.contains(&column) {
                    return None; // IndentationError: unindent does not match
                }
                indents.pop();
                tokens.push(Token {
                    kind: Kind::Other,
                    text: String::new(),
                    start: (lnum, pos),
                    end: (lnum, pos),
                });
            }
        } else {
            if line.is_empty() {
                return None; // EOF in multi-line statement
            }
            continued = false;
        }

        while pos < max {
            let Some((start, end)) = pseudo_token(&line, pos) else {
                tokens.push(Token {
                    kind: Kind::Other,
                    text: line[pos].to_string(),
                    start: (lnum, pos),
                    end: (lnum, pos + 1),
                });
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
                kind = Kind::Other;
            } else if initial == '\r' || initial == '\n' {
                kind = if parenlev > 0 {
                    Kind::Other
                } else {
                    Kind::Newline
                };
            } else if initial == '#' {
                kind = Kind::Comment;
            } else if let Some(q) = triple_quote(tok) {
                let end_pat = EndPat::Triple(q);
                if let Some(e) = end_pat.match_at(&line, pos) {
                    pos = e;
                    tokens.push(Token {
                        kind: Kind::String,
                        text: text(&line, start, pos),
                        start: spos,
                        end: (lnum, pos),
                    });
                } else {
                    cont = Some(Cont {
                        text: text(&line, start, max),
                        start: spos,
                        end_pat,
                        need_cont: false,
                    });
                    break;
                }
                continue;
            } else if let Some(q) = single_quote(tok) {
                if tok.last() == Some(&'\n') {
                    cont = Some(Cont {
                        text: text(&line, start, max),
                        start: spos,
                        end_pat: EndPat::Single(q),
                        need_cont: true,
                    });
                    break;
                }
                kind = Kind::String;
            } else if initial == '\\' {
                // Only `\` + newline gets here: a continued statement.
                continued = true;
                continue;
            } else {
                // NAME or OP; only the brackets matter.
                match initial {
                    '(' | '[' | '{' => parenlev += 1,
                    ')' | ']' | '}' => parenlev -= 1,
                    _ => {}
                }
                kind = Kind::Other;
            }
            tokens.push(Token {
                kind,
                text: tok.iter().collect(),
                start: spos,
                end: epos,
            });
        }
    }
    if !last_line.is_empty() && !matches!(last_line.last(), Some('\r' | '\n')) {
        let s: String = last_line.iter().collect();
        if !pyrt::strip(&s).starts_with('#') {
            tokens.push(Token {
                kind: Kind::Newline,
                text: String::new(),
                start: (lnum - 1, last_line.len()),
                end: (lnum - 1, last_line.len() + 1),
            });
        }
    }
    for _ in 1..indents.len() {
        tokens.push(Token {
            kind: Kind::Other,
            text: String::new(),
            start: (lnum, 0),
            end: (lnum, 0),
        });
    }
    tokens.push(Token {
        kind: Kind::Other,
        text: String::new(),
        start: (lnum, 0),
        end: (lnum, 0),
    });
    Some(tokens)
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
    while at(e).is_some_and(is_word) {
        e += 1;
    }
    (e > s).then_some((s, e))
}

/// `\w` of Python's `re` on `str`: `str.isalnum()` or `_`.
fn is_word(c: char) -> bool {
    static WORD: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"^[\p{L}\p{N}]$").unwrap_or_else(|e| panic!("word pattern: {e}"))
    });
    if c.is_ascii() {
        c.is_ascii_alphanumeric() || c == '_'
    } else {
        let mut buf = [0u8; 4];
        WORD.is_match(c.encode_utf8(&mut buf))
    }
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
    const OPS3: [&str; 5] = ["**=", "...", "//=", "<<=", ">>="];
    const OPS2: [&str; 19] = [
        "!=", "%=", "&=", "**", "*=", "+=", "-=", "->", "//", "/=", ":=", "<<", "<=", "==", ">=",
        ">>", "@=", "^=", "|=",
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
