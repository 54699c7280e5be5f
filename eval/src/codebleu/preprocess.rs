//! The reference's `remove_comments_and_docstrings`, which both the syntax and the data-flow
//! match apply to every prediction and reference before parsing.
//!
//! - Python: a re-tokenisation with the standard library's `tokenize` module (the pure-Python
//!   tokenizer of CPython 3.11, ported in [`crate::pytokenize`]), dropping comments and the strings it takes for
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
use crate::pytokenize::{generate_tokens, Kind};

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

/// The Python branch of the reference: `None` where `tokenize` raises.
fn python_without_docstrings(source: &str) -> Option<String> {
    let tokens = generate_tokens(source).ok()?;
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
            // NL, NAME, NUMBER, OP, DEDENT, ERRORTOKEN, ENDMARKER: the reference treats them
            // alike.
            _ => out.push_str(&tok.text),
        }
        prev = tok.kind;
        last_col = tok.end.1;
        last_lineno = tok.end.0 as isize;
    }
    Some(out)
}
