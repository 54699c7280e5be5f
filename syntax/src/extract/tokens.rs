//! CodeSearchNet's text rules: docstring cleaning, the docstring summary, and the docstring
//! tokenizer, ported from `function_parser` (github/CodeSearchNet) so that rows compare
//! one-to-one with the published dataset.

use std::sync::LazyLock;

use regex::Regex;

/// `DOCSTRING_REGEX_TOKENIZER` of function_parser. Python's `\s` (str patterns) also matches
/// the separators U+001C..U+001F, which Rust's `\s` does not, so they are added explicitly.
/// Both engines take the first alternative that matches (leftmost-first), so results agree.
static DOCSTRING_TOKEN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r#"[^\s\x1c-\x1f,'"`.():\[\]=*;>{\}+-/\\]+"#,
        r#"|\\+|\.+|\(\)|\{\}|\[\]|\(+|\)+|:+|\[+|\]+|\{+|\}+|=+|\*+|;+|>+|\++|-+|/+"#
    ))
    .expect("the docstring tokenizer pattern is valid")
});

/// Tokens of a docstring (function_parser's `tokenize_docstring`).
pub fn tokenize_docstring(text: &str) -> Vec<String> {
    DOCSTRING_TOKEN
        .find_iter(text)
        .map(|m| m.as_str().to_string())
        .collect()
}

/// The summary of a docstring (function_parser's `get_docstring_summary`): the text before
/// the first blank line (`\n\n`), else before the first `@`, else the whole docstring.
pub fn docstring_summary(docstring: &str) -> &str {
    if let Some(i) = docstring.find("\n\n") {
        &docstring[..i]
    } else if let Some(i) = docstring.find('@') {
        &docstring[..i]
    } else {
        docstring
    }
}

/// Strips comment delimiters line by line (function_parser's
/// `strip_c_style_comment_delimiters`), extended with the delimiters it missed: `/*`, `/*!`,
/// and Doxygen's `///` and `//!`. The result is trimmed of surrounding blank lines.
pub fn strip_comment_delimiters(comment: &str) -> String {
    let mut lines = Vec::new();
    for line in comment.split('\n') {
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

/// Python's `str.strip()`: what `process.py` does to every docstring before CodeSearchNet
/// published it. Python's whitespace is Unicode's plus the separators U+001C..U+001F.
pub fn py_strip(s: &str) -> &str {
    s.trim_matches(|c: char| c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c))
}

/// function_parser's `strip_c_style_comment_delimiters`, exactly: per line, a trailing `*/`
/// and then one leading `*`, `/**` or `//` go; `/*` stays (`/* x */` gives `/* x`), and the
/// result is not trimmed. The published `docstring` of Java, PHP and JavaScript is this
/// text after `process.py`'s `.strip()` ([`py_strip`]).
pub fn fp_strip_c_style(comment: &str) -> String {
    let mut out = String::with_capacity(comment.len());
    for (i, line) in comment.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let mut l = py_strip(line);
        if let Some(s) = l.strip_suffix("*/") {
            l = s;
        }
        l = l
            .strip_prefix('*')
            .or_else(|| l.strip_prefix("/**"))
            .or_else(|| l.strip_prefix("//"))
            .unwrap_or(l);
        out.push_str(py_strip(l));
    }
    out
}

/// The docstring CodeSearchNet published for a Python string literal: function_parser's
/// `strip().strip('"').strip("'")`, then `process.py`'s `.strip()`. A prefix stays
/// (`r"""x"""` gives `r"""x`), as it did in the published rows.
pub fn fp_python_docstring(literal: &str) -> String {
    py_strip(py_strip(literal).trim_matches('"').trim_matches('\'')).to_string()
}

/// Cleans the source text of a Python string literal used as a docstring: surrounding
/// whitespace and quotes go (function_parser's `strip().strip('"').strip("'")`), and so does
/// a string prefix such as `r` or `u`, which function_parser kept by mistake.
pub fn clean_python_docstring(literal: &str) -> String {
    let s = literal.trim();
    let s = s.trim_start_matches(['r', 'R', 'u', 'U']);
    s.trim_matches('"').trim_matches('\'').trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<&str> {
        DOCSTRING_TOKEN.find_iter(s).map(|m| m.as_str()).collect()
    }

    #[test]
    fn tokenizer_follows_function_parser() {
        // Expected values worked out by hand from the regex's alternatives.
        assert_eq!(
            toks("Returns the sum of a and b."),
            ["Returns", "the", "sum", "of", "a", "and", "b", "."]
        );
        assert_eq!(
            toks("foo(bar) -> {baz}"),
            ["foo", "(", "bar", ")", "-", ">", "{", "baz", "}"]
        );
        assert_eq!(toks("call f() with []"), ["call", "f", "()", "with", "[]"]);
        assert_eq!(
            toks("a+b, c/d; e=f..."),
            ["a", "+", "b", "c", "/", "d", ";", "e", "=", "f", "..."]
        );
        assert_eq!(toks("it's `x`"), ["it", "s", "x"]);
        assert_eq!(toks("C:\\\\path"), ["C", ":", "\\\\", "path"]);
        assert_eq!(toks("a\u{1c}b"), ["a", "b"]);
        assert_eq!(toks("x ** 2 >>= y"), ["x", "**", "2", ">>", "=", "y"]);
        assert_eq!(toks("<p>hi</p>"), ["<p", ">", "hi<", "/", "p", ">"]);
    }

    #[test]
    fn summary_rules() {
        assert_eq!(docstring_summary("First.\n\nMore."), "First.");
        assert_eq!(docstring_summary("First.\n@param x y"), "First.\n");
        assert_eq!(docstring_summary("First\nsecond"), "First\nsecond");
        // The blank line wins over an earlier '@'.
        assert_eq!(docstring_summary("mail a@b\n\nrest"), "mail a@b");
    }

    #[test]
    fn comment_delimiters() {
        assert_eq!(
            strip_comment_delimiters("/**\n * Adds two.\n *\n * @param a x\n */"),
            "Adds two.\n\n@param a x"
        );
        assert_eq!(strip_comment_delimiters("/* one line */"), "one line");
        assert_eq!(strip_comment_delimiters("/// doxygen"), "doxygen");
        assert_eq!(strip_comment_delimiters("// a\n// b"), "a\nb");
    }

    /// Expected values from function_parser's `strip_c_style_comment_delimiters` and
    /// `PythonParser.get_docstring`, and Python's `str.strip`, worked by hand.
    #[test]
    fn published_docstrings_follow_function_parser() {
        assert_eq!(py_strip("\u{1c} x \n\u{a0}"), "x");
        assert_eq!(fp_strip_c_style("/**\n * Adds.\n */"), "\nAdds.\n");
        assert_eq!(fp_strip_c_style("/* x */"), "/* x");
        assert_eq!(fp_strip_c_style("# hash"), "# hash");
        assert_eq!(fp_strip_c_style("// line"), "line");
        assert_eq!(fp_python_docstring("r\"\"\"Raw.\"\"\""), "r\"\"\"Raw.");
        assert_eq!(fp_python_docstring("'''Doc.\n    '''"), "Doc.");
        assert_eq!(fp_python_docstring("\"\"\"It's'\"\"\""), "It's");
    }

    #[test]
    fn python_docstrings() {
        assert_eq!(
            clean_python_docstring("\"\"\"Doc.\n    more\n    \"\"\""),
            "Doc.\n    more"
        );
        assert_eq!(clean_python_docstring("r'''raw \\d'''"), "raw \\d");
        assert_eq!(clean_python_docstring("'single'"), "single");
    }
}
