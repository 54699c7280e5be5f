//! A sample in place of its function: the file's text with the function's lines (its
//! span in the nodes table, 1-based and inclusive) rewritten.
//!
//! A sample is either a whole function or a body (docs/eval.md):
//! - Python: a sample whose first line (after removing the common indentation) starts with
//!   `def `, `async def ` or `@` is a whole function and replaces the span; anything else
//!   is a body and replaces the original's body (from the line where tree-sitter-python
//!   puts the `body` of the function starting in the span; the docstring is part of the
//!   body), keeping the original's decorators and signature. Either is re-indented to the
//!   original's indentation, so samples may come indented or not.
//! - Other languages: a sample is a whole function and replaces the span.

use tree_sitter::{Node, Parser};

/// Why a sample could not be put in place (the sample's outcome is then `error`).
#[derive(Debug, thiserror::Error)]
pub enum SpliceError {
    #[error("the function's lines {start}-{end} are not in the file ({lines} lines)")]
    Span { start: i64, end: i64, lines: usize },
    #[error("no Python function starts at line {0} of the file")]
    NoFunction(i64),
    #[error("the file could not be parsed")]
    Parse,
}

/// A sample in place, and the text of the original it stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spliced {
    /// The file with the sample in place.
    pub text: String,
    /// What exact match compares the sample with: for a whole function, the original's
    /// lines `start..=end`; for a Python body, the original's body from its first statement
    /// after the docstring (the docstring is the model's input, not its output).
    pub reference: String,
}

/// `original` with `sample` in place of the function at lines `start..=end`.
pub fn splice(
    original: &str,
    language: &str,
    start: i64,
    end: i64,
    sample: &str,
) -> Result<String, SpliceError> {
    splice_parts(original, language, start, end, sample).map(|s| s.text)
}

/// [`splice`], with the original's text the sample stands for.
pub fn splice_parts(
    original: &str,
    language: &str,
    start: i64,
    end: i64,
    sample: &str,
) -> Result<Spliced, SpliceError> {
    let lines: Vec<&str> = original.split_inclusive('\n').collect();
    let bad = || SpliceError::Span {
        start,
        end,
        lines: lines.len(),
    };
    let (Ok(s), Ok(e)) = (usize::try_from(start), usize::try_from(end)) else {
        return Err(bad());
    };
    if s == 0 || e < s || e > lines.len() {
        return Err(bad());
    }
    let (s, e) = (s - 1, e - 1);
    let newline = if original.contains("\r\n") {
        "\r\n"
    } else {
        "\n"
    };
    let head: String = lines[..s].concat();
    let mut tail: String = lines[e + 1..].concat();
    let last = lines[e];
    // The function's last line ends the file without a newline: so does the sample.
    let ends_with_newline = last.ends_with('\n');
    let python = language.eq_ignore_ascii_case("python");
    let (replaced, reference) = if python && !is_whole_python_function(sample) {
        python_body(original, &lines, s, e, sample, newline)?
    } else {
        let indent = indentation(lines[s]);
        (reindent(sample, indent, newline), lines[s..=e].concat())
    };
    let mut out = head;
    out.push_str(&replaced);
    if !ends_with_newline {
        while out.ends_with('\n') || out.ends_with('\r') {
            out.pop();
        }
    }
    out.push_str(&std::mem::take(&mut tail));
    Ok(Spliced {
        text: out,
        reference,
    })
}

/// Whether a Python sample is a whole function (a `def`, `async def` or a decorator first).
pub fn is_whole_python_function(sample: &str) -> bool {
    let first = sample
        .lines()
        .map(str::trim_start)
        .find(|l| !l.is_empty() && !l.starts_with('#'))
        .unwrap_or("");
    first.starts_with("def ") || first.starts_with("async def ") || first.starts_with('@')
}

/// The original's lines up to its body, then the sample as the body; and the original's
/// body after its docstring.
fn python_body(
    original: &str,
    lines: &[&str],
    s: usize,
    e: usize,
    sample: &str,
    newline: &str,
) -> Result<(String, String), SpliceError> {
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_python::LANGUAGE.into())
        .map_err(|_| SpliceError::Parse)?;
    let tree = parser.parse(original, None).ok_or(SpliceError::Parse)?;
    let def = find_function(tree.root_node(), s, e).ok_or(SpliceError::NoFunction(s as i64 + 1))?;
    let body = def
        .child_by_field_name("body")
        .ok_or(SpliceError::NoFunction(s as i64 + 1))?;
    let row = body.start_position().row;
    let reference = body_after_docstring(original, body);
    let mut out = String::new();
    let header_indent = indentation(lines[def.start_position().row.min(lines.len() - 1)]);
    if row > def.start_position().row && row <= e {
        // The body on lines of its own: keep every line before it.
        out.push_str(&lines[s..row].concat());
        let indent = indentation(lines[row]).to_string();
        out.push_str(&reindent(sample, &indent, newline));
    } else {
        // `def f(x): return x`: the header up to the body, then the body on new lines.
        let line_start: usize = lines[..row].iter().map(|l| l.len()).sum();
        let from = lines[..s].iter().map(|l| l.len()).sum::<usize>();
        let cut = body.start_byte().max(line_start).max(from);
        out.push_str(original[from..cut].trim_end());
        out.push_str(newline);
        let indent = format!("{header_indent}    ");
        out.push_str(&reindent(sample, &indent, newline));
    }
    Ok((out, reference))
}

/// The text of a Python function's `body` from its first statement that is not the
/// docstring (a string expression first in the body) to its end.
fn body_after_docstring(original: &str, body: Node<'_>) -> String {
    let mut cursor = body.walk();
    let first = body.named_children(&mut cursor).find(|c| {
        !(c.kind() == "expression_statement"
            && c.named_child(0).is_some_and(|s| s.kind() == "string"))
    });
    match first {
        Some(f) => original
            .get(f.start_byte()..body.end_byte())
            .unwrap_or_default()
            .to_string(),
        None => String::new(),
    }
}

/// YABLoCo's exact match (`metrics.py` of yabloco-benchmark): the prediction is not empty
/// and, with every run of non-word characters removed (Python's `re.sub(r'\W+', "", s)`),
/// equals the reference. Word characters are Unicode letters, digits and `_`.
pub fn exact_match(prediction: &str, reference: &str) -> bool {
    let words = |s: &str| -> String {
        s.chars()
            .filter(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    !prediction.is_empty() && words(prediction) == words(reference)
}

/// The outermost function definition that ends at row `e` and starts at or after row `s`
/// (a decorated function's span may start at its decorators), found with a cursor walk
/// (no recursion).
fn find_function(root: Node<'_>, s: usize, e: usize) -> Option<Node<'_>> {
    let mut cursor = root.walk();
    loop {
        let n = cursor.node();
        let (ns, ne) = (n.start_position().row, n.end_position().row);
        if n.kind() == "function_definition" && ns >= s && ne == e {
            return Some(n);
        }
        // Descend only into nodes that overlap the span.
        let overlaps = ns <= e && ne >= s;
        if overlaps && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return None;
            }
        }
    }
}

/// The leading spaces and tabs of a line.
fn indentation(line: &str) -> &str {
    &line[..line.len() - line.trim_start_matches([' ', '\t']).len()]
}

/// `sample` with its common indentation removed and `indent` put before every non-blank
/// line; every line ends with `newline`.
fn reindent(sample: &str, indent: &str, newline: &str) -> String {
    let lines: Vec<&str> = sample.lines().collect();
    // Leading and trailing blank lines are not part of the code.
    let first = lines.iter().position(|l| !l.trim().is_empty());
    let last = lines.iter().rposition(|l| !l.trim().is_empty());
    let (Some(first), Some(last)) = (first, last) else {
        return format!("{indent}pass{newline}");
    };
    let lines = &lines[first..=last];
    let common = lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| indentation(l))
        .reduce(|a, b| {
            let n = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
            &a[..n]
        })
        .unwrap_or("");
    let mut out = String::new();
    for l in lines {
        if !l.trim().is_empty() {
            out.push_str(indent);
            out.push_str(l.strip_prefix(common).unwrap_or(l).trim_end_matches('\r'));
        }
        out.push_str(newline);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "import os\n\n\n@deco\ndef f(x,\n      y):\n    \"\"\"Doc.\"\"\"\n    return x + y\n\n\nclass C:\n    def m(self): return 1\n\n    def n(self):\n        return 2\n";

    #[test]
    fn a_body_replaces_the_body_and_keeps_decorators_and_signature() {
        // f spans its decorator (line 4) to line 8.
        let got = splice(FILE, "python", 4, 8, "return x * y").unwrap();
        assert_eq!(
            got,
            "import os\n\n\n@deco\ndef f(x,\n      y):\n    return x * y\n\n\nclass C:\n    def m(self): return 1\n\n    def n(self):\n        return 2\n"
        );
        // Indented bodies are re-indented to the method's.
        let got = splice(
            FILE,
            "python",
            14,
            15,
            "    a = 3\n    if a:\n        return a\n",
        )
        .unwrap();
        assert!(
            got.ends_with("    def n(self):\n        a = 3\n        if a:\n            return a\n"),
            "{got}"
        );
    }

    #[test]
    fn a_one_line_function_gets_its_body_on_new_lines() {
        let got = splice(FILE, "python", 12, 12, "return 5").unwrap();
        assert!(
            got.contains("    def m(self):\n        return 5\n\n    def n"),
            "{got}"
        );
    }

    #[test]
    fn a_whole_function_replaces_the_span() {
        let got = splice(FILE, "python", 14, 15, "def n(self):\n    return 7").unwrap();
        assert!(
            got.ends_with("    def n(self):\n        return 7\n"),
            "{got}"
        );
        assert!(is_whole_python_function("\n  @x\n  def f(): pass"));
        assert!(!is_whole_python_function("return definitely"));
        // C: always a whole function.
        let c = "int a(void) {\n  return 1;\n}\nint b;\n";
        assert_eq!(
            splice(c, "c", 1, 3, "int a(void) { return 2; }").unwrap(),
            "int a(void) { return 2; }\nint b;\n"
        );
    }

    #[test]
    fn the_reference_of_exact_match_is_the_part_the_sample_replaces() {
        // A body: f's body after its docstring.
        let got = splice_parts(FILE, "python", 4, 8, "return x * y").unwrap();
        assert_eq!(got.reference, "return x + y");
        // A whole function: the span.
        let got = splice_parts(FILE, "python", 14, 15, "def n(self):\n    return 7").unwrap();
        assert_eq!(got.reference, "    def n(self):\n        return 2\n");
        // A one-line function's body.
        let got = splice_parts(FILE, "python", 12, 12, "return 5").unwrap();
        assert_eq!(got.reference, "return 1");
        // yabloco-benchmark's metrics.py: re.sub(r'\W+', "", ...) on both sides.
        assert!(exact_match("return  x+y", "return x + y"));
        assert!(exact_match("return x * y", "return x + y"));
        assert!(!exact_match("return x - z", "return x + y"));
        assert!(!exact_match("", ""));
        assert!(exact_match("ä_1", "(ä _1)"));
    }

    #[test]
    fn a_span_outside_the_file_is_an_error() {
        assert!(matches!(
            splice(FILE, "python", 14, 99, "pass"),
            Err(SpliceError::Span { .. })
        ));
        assert!(matches!(
            splice(FILE, "python", 2, 2, "pass"),
            Err(SpliceError::NoFunction(2))
        ));
    }
}
