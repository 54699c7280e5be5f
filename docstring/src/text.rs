//! Text helpers: Python's whitespace and `inspect.cleandoc` (which the Python conventions
//! are defined over, as docstring-parser applies them), the size limit, and the comment
//! markers a docstring may still carry (`//` in CodeSearchNet's Go text, `#` in raw Ruby).
//!
//! ```
//! use codemine_docstring::text::cleandoc;
//!
//! assert_eq!(cleandoc("Summary.\n\n    Args:\n        x: y\n    "), "Summary.\n\nArgs:\n    x: y");
//! ```

use std::borrow::Cow;

/// The longest text parsed, in bytes. A longer docstring is cut at its last line break
/// before the limit and the rest ignored, so a pathological docstring costs bounded time.
/// 64 KiB is far above real docstrings (CodeSearchNet's longest are a few KiB).
pub const MAX_DOCSTRING_BYTES: usize = 64 * 1024;

/// Python's `str.isspace` for one character: Unicode whitespace plus the information
/// separators U+001C..U+001F, which Python counts and Rust does not.
pub fn is_py_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Python's `str.strip()`.
pub fn py_strip(s: &str) -> &str {
    s.trim_matches(is_py_space)
}

/// Python's `str.lstrip()`.
pub fn py_lstrip(s: &str) -> &str {
    s.trim_start_matches(is_py_space)
}

/// Python's `str.rstrip()`.
pub fn py_rstrip(s: &str) -> &str {
    s.trim_end_matches(is_py_space)
}

/// Python's `str.split()` without arguments: the runs of non-whitespace.
pub fn py_words(s: &str) -> impl Iterator<Item = &str> {
    s.split(is_py_space).filter(|w| !w.is_empty())
}

/// `text` cut to [`MAX_DOCSTRING_BYTES`] at a line break (or a character boundary when the
/// first line alone is longer).
pub fn limit(text: &str) -> &str {
    if text.len() <= MAX_DOCSTRING_BYTES {
        return text;
    }
    let mut end = MAX_DOCSTRING_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let head = &text[..end];
    match head.rfind('\n') {
        Some(i) => &text[..i],
        None => head,
    }
}

/// Python's `str.expandtabs()` (tab size 8): the column restarts after `\n` and `\r`.
fn expandtabs(s: &str) -> Cow<'_, str> {
    if !s.contains('\t') {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 16);
    let mut col = 0usize;
    for c in s.chars() {
        match c {
            '\t' => {
                let n = 8 - col % 8;
                out.extend(std::iter::repeat_n(' ', n));
                col += n;
            }
            '\n' | '\r' => {
                out.push(c);
                col = 0;
            }
            _ => {
                out.push(c);
                col += 1;
            }
        }
    }
    Cow::Owned(out)
}

/// Python 3.11's `inspect.cleandoc`: tabs expanded, the first line left-stripped, the
/// smallest indentation of the later non-blank lines removed from all of them, leading and
/// trailing empty lines dropped. Lengths count characters, as Python's do.
pub fn cleandoc(doc: &str) -> String {
    let expanded = expandtabs(doc);
    let lines: Vec<&str> = expanded.split('\n').collect();
    let mut margin = usize::MAX;
    for line in lines.iter().skip(1) {
        let content = py_lstrip(line);
        if !content.is_empty() {
            let indent = line[..line.len() - content.len()].chars().count();
            margin = margin.min(indent);
        }
    }
    let mut out: Vec<&str> = Vec::with_capacity(lines.len());
    for (i, line) in lines.iter().enumerate() {
        if i == 0 {
            out.push(py_lstrip(line));
        } else if margin < usize::MAX {
            // Every character cut is whitespace: the margin is at most any non-blank line's
            // indentation, and a blank line is whitespace throughout.
            let cut = line
                .char_indices()
                .nth(margin)
                .map_or(line.len(), |(b, _)| b);
            out.push(&line[cut..]);
        } else {
            out.push(line);
        }
    }
    let end = out.iter().rposition(|l| !l.is_empty()).map_or(0, |i| i + 1);
    out.truncate(end);
    let start = out.iter().position(|l| !l.is_empty()).unwrap_or(out.len());
    out[start..].join("\n")
}

/// Which comment markers a language's docstring may carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Markers {
    /// Python: the text may still hold its string prefix and quotes (CodeSearchNet's
    /// published `r"""Raw text.`).
    PythonString,
    /// `/** */`, `/* */`, `///`, `//!`, `//`.
    CStyle,
    /// `#` (Ruby).
    Hash,
    /// Both (PHP).
    CStyleOrHash,
}

/// `text` without the comment markers or string quotes it may still carry, else `text`
/// itself. Markers are removed only when the text opens with one (`/*`, `//`) or, for `#`,
/// when every non-blank line starts with one; lines are then trimmed. The text as codemine's
/// extraction cleans it (`Function::docstring`) has none and comes back unchanged.
pub fn strip_markers(text: &str, markers: Markers) -> Cow<'_, str> {
    let head = text.trim_start();
    match markers {
        Markers::PythonString => strip_python_quotes(text),
        Markers::CStyle if head.starts_with("/*") || head.starts_with("//") => {
            Cow::Owned(strip_c_style(text))
        }
        Markers::Hash if all_lines_start_with(text, '#') => Cow::Owned(strip_hash(text)),
        Markers::CStyleOrHash => {
            if head.starts_with("/*") || head.starts_with("//") {
                Cow::Owned(strip_c_style(text))
            } else if all_lines_start_with(text, '#') {
                Cow::Owned(strip_hash(text))
            } else {
                Cow::Borrowed(text)
            }
        }
        _ => Cow::Borrowed(text),
    }
}

fn all_lines_start_with(text: &str, c: char) -> bool {
    let mut any = false;
    for l in text.lines() {
        let l = l.trim();
        if l.is_empty() {
            continue;
        }
        if !l.starts_with(c) {
            return false;
        }
        any = true;
    }
    any
}

/// Per line: a trailing `*/`, then one leading `*`, `/**`, `/*!`, `/*`, `///`, `//!` or
/// `//` (codemine's `strip_comment_delimiters`, so both give the same text).
fn strip_c_style(text: &str) -> String {
    let mut lines = Vec::new();
    for line in text.split('\n') {
        let mut l = line.trim();
        if let Some(s) = l.strip_suffix("*/") {
            l = s;
        }
        l = if let Some(s) = l.strip_prefix('*') {
            s
        } else if let Some(s) = ["/**", "/*!", "/*", "///", "//!", "//"]
            .iter()
            .find_map(|p| l.strip_prefix(p))
        {
            s
        } else {
            l
        };
        lines.push(l.trim());
    }
    lines.join("\n").trim().to_string()
}

/// Per line: the `#` marks at both ends and whitespace (codemine's Ruby cleaning).
fn strip_hash(text: &str) -> String {
    let lines: Vec<&str> = text
        .lines()
        .map(|l| l.trim().trim_matches('#').trim())
        .collect();
    lines.join("\n").trim().to_string()
}

/// A Python literal's prefix and quotes, when the text still has them: an opening `"""` or
/// `'''`, or a string prefix (`r`, `u`, `rb`...) before a quote. A text that merely starts
/// with a quote is prose and stays.
fn strip_python_quotes(text: &str) -> Cow<'_, str> {
    let t = text.trim();
    let rest = t.trim_start_matches(['r', 'R', 'u', 'U']);
    let prefix_len = t.len() - rest.len();
    let quoted = if prefix_len == 0 {
        rest.starts_with("\"\"\"") || rest.starts_with("'''")
    } else {
        prefix_len <= 2 && (rest.starts_with('"') || rest.starts_with('\''))
    };
    if !quoted {
        return Cow::Borrowed(text);
    }
    Cow::Owned(rest.trim_matches('"').trim_matches('\'').trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Expected values worked out from CPython 3.11's `inspect.cleandoc` source.
    #[test]
    fn cleandoc_follows_python() {
        assert_eq!(cleandoc(""), "");
        assert_eq!(cleandoc("\n   Short\n"), "Short");
        assert_eq!(cleandoc("  a\n    b\n      c"), "a\nb\n  c");
        // Whitespace-only lines count as blank for the margin, and are cut by it.
        assert_eq!(cleandoc("a\n        \n    b"), "a\n    \nb");
        // A tab is 8 columns.
        assert_eq!(cleandoc("a\n\tb\n        c"), "a\nb\nc");
        assert_eq!(cleandoc("a\n\n\n"), "a");
    }

    #[test]
    fn markers_come_off_only_when_present() {
        assert_eq!(
            strip_markers("// Foo does.\n// More.", Markers::CStyle),
            "Foo does.\nMore."
        );
        assert_eq!(
            strip_markers("/* A block\n * x */", Markers::CStyle),
            "A block\nx"
        );
        assert_eq!(strip_markers("* `x` - y", Markers::CStyle), "* `x` - y");
        assert_eq!(
            strip_markers("# Sets.\n# @param a b", Markers::Hash),
            "Sets.\n@param a b"
        );
        assert_eq!(
            strip_markers("Sets.\n# not all", Markers::Hash),
            "Sets.\n# not all"
        );
        assert_eq!(
            strip_markers("r\"\"\"Raw text.", Markers::PythonString),
            "Raw text."
        );
        assert_eq!(
            strip_markers("\"quoted\" prose", Markers::PythonString),
            "\"quoted\" prose"
        );
        assert_eq!(strip_markers("really", Markers::PythonString), "really");
    }

    #[test]
    fn limit_cuts_at_a_line_break() {
        let long = format!("{}\n{}", "a".repeat(10), "b".repeat(MAX_DOCSTRING_BYTES));
        assert_eq!(limit(&long), "a".repeat(10));
        let one = "é".repeat(MAX_DOCSTRING_BYTES);
        assert!(limit(&one).len() <= MAX_DOCSTRING_BYTES);
    }
}
