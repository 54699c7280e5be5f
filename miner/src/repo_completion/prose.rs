//! Which lines of a source file lie inside a string literal or a comment that began on an
//! earlier line (a docstring's lines, a doctest's output, a `/* */` block, a heredoc): such
//! a line is text, not code, and is never a completion target, nor are the names it
//! mentions uses. One pass over the text, linear in its length.

/// How a language writes comments and strings, as far as the scan needs.
struct Syntax {
    line_comments: &'static [&'static str],
    block_comment: bool,
    /// Quotes whose literal may span lines (`"""`, `` ` ``); listed longest first.
    multi: &'static [&'static str],
    /// Quotes whose literal ends at the line's end if not closed.
    single: &'static [&'static str],
    /// Ruby's `=begin`/`=end` at the start of a line.
    begin_end: bool,
    /// Ruby's `<<~ID` and PHP's `<<<ID` heredocs: the lines after the opening one, up to
    /// the one that is `ID`, are text.
    heredoc: Option<&'static str>,
}

fn syntax(lang: &str) -> Syntax {
    let c_like = Syntax {
        line_comments: &["//"],
        block_comment: true,
        multi: &[],
        single: &["\"", "'"],
        begin_end: false,
        heredoc: None,
    };
    match lang {
        "python" => Syntax {
            line_comments: &["#"],
            block_comment: false,
            multi: &["\"\"\"", "'''"],
            single: &["\"", "'"],
            ..c_like
        },
        "java" => Syntax {
            multi: &["\"\"\""],
            ..c_like
        },
        "javascript" | "typescript" | "go" => Syntax {
            multi: &["`"],
            ..c_like
        },
        "php" => Syntax {
            line_comments: &["//", "#"],
            multi: &["\"", "'"],
            single: &[],
            heredoc: Some("<<<"),
            ..c_like
        },
        "ruby" => Syntax {
            line_comments: &["#"],
            block_comment: false,
            multi: &["\"", "'"],
            single: &[],
            begin_end: true,
            heredoc: Some("<<"),
        },
        _ => c_like,
    }
}

/// Per line (index = 1-based line; index 0 unused): whether the line begins inside a
/// string literal, a block comment or a heredoc opened on an earlier line.
pub fn text_lines(text: &str, lang: &str) -> Vec<bool> {
    let sx = syntax(lang);
    let lines: Vec<&str> = text.split('\n').collect();
    let mut out = vec![false; lines.len() + 1];
    // What is open at the start of the next line.
    let mut open: Option<&str> = None; // a quote, "*/", "=end", or a heredoc's end word
    let mut heredoc: Option<String> = None;
    let mut pending_heredoc: Option<String> = None;
    for (n, line) in lines.iter().enumerate() {
        // Every delimiter is ASCII: the scan works on bytes, so that no index can fall
        // inside a character.
        let line = line.trim_end_matches('\r');
        if let Some(end) = &heredoc {
            out[n + 1] = true;
            if line.trim() == end || line.trim().trim_end_matches(';') == end {
                heredoc = None;
            }
            continue;
        }
        out[n + 1] = open.is_some();
        let b = line.as_bytes();
        let at = |i: usize, p: &str| b.get(i..).is_some_and(|r| r.starts_with(p.as_bytes()));
        let mut i = 0;
        if sx.begin_end {
            if open == Some("=end") {
                if line.starts_with("=end") {
                    open = None;
                }
                continue;
            }
            if line.starts_with("=begin") {
                open = Some("=end");
                continue;
            }
        }
        while i < b.len() {
            if let Some(end) = open {
                match find(b, i, end) {
                    Some(k) if end == "*/" || !escaped(b, k) => {
                        i = k + end.len();
                        open = None;
                    }
                    Some(k) => i = k + end.len(),
                    None => break,
                }
                continue;
            }
            if sx.line_comments.iter().any(|c| at(i, c)) {
                break;
            }
            if sx.block_comment && at(i, "/*") {
                open = Some("*/");
                i += 2;
                continue;
            }
            if let Some(h) = sx.heredoc.filter(|h| at(i, h)) {
                if let Some(word) = heredoc_word(&b[i + h.len()..], h == "<<") {
                    pending_heredoc = Some(word);
                }
                i += h.len();
                continue;
            }
            if let Some(q) = sx.multi.iter().find(|q| at(i, q)) {
                open = Some(*q);
                i += q.len();
                continue;
            }
            if let Some(q) = sx.single.iter().find(|q| at(i, q)) {
                // To its closing quote on this line, else to the line's end.
                let mut j = i + q.len();
                while j < b.len() && !at(j, q) {
                    j += if b[j] == b'\\' { 2 } else { 1 };
                }
                i = j + q.len();
                continue;
            }
            i += 1;
        }
        if let Some(word) = pending_heredoc.take() {
            heredoc = Some(word);
        }
    }
    out
}

/// The first occurrence of `pat` in `b` at or after `from`.
fn find(b: &[u8], from: usize, pat: &str) -> Option<usize> {
    let p = pat.as_bytes();
    (from..b.len().saturating_sub(p.len() - 1)).find(|&k| b[k..].starts_with(p))
}

/// Whether the byte at `at` is preceded by an odd number of backslashes.
fn escaped(b: &[u8], at: usize) -> bool {
    b[..at].iter().rev().take_while(|&&c| c == b'\\').count() % 2 == 1
}

/// The end word of a heredoc opening (`~EOS`, `-EOS`, `'EOS'`, `"EOS"`, `EOS`); Ruby's must
/// start with a capital letter or a quote, so that `a << b` is no heredoc.
fn heredoc_word(after: &[u8], ruby: bool) -> Option<String> {
    let after = std::str::from_utf8(after).unwrap_or("");
    let s = if ruby {
        after.strip_prefix(['~', '-']).unwrap_or(after)
    } else {
        after.trim_start()
    };
    let s = s.trim_start_matches(['\'', '"']);
    let word: String = s
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    let first = word.chars().next()?;
    (!ruby || first.is_ascii_uppercase()).then_some(word)
}

#[cfg(test)]
mod tests {
    use super::text_lines;

    fn marked(text: &str, lang: &str) -> Vec<usize> {
        text_lines(text, lang)
            .iter()
            .enumerate()
            .filter(|(_, t)| **t)
            .map(|(n, _)| n)
            .collect()
    }

    #[test]
    fn docstrings_comments_and_heredocs_are_text() {
        // No index falls inside a character.
        assert_eq!(marked("x = ('\\✓', \"\\é\")\n'''a\n'''\n", "python"), [3]);
        let py = "def f():\n    \"\"\"Doc.\n\n    >>> f()\n    <Response [200]>\n    \"\"\"\n    return g('\"\"\"')\n";
        assert_eq!(marked(py, "python"), [3, 4, 5, 6]);
        let java = "int f() {\n  /* a\n   b */ g();\n  String s = \"/*\";\n  h();\n}\n";
        assert_eq!(marked(java, "java"), [3]);
        let js = "const s = `a\nb ${x}`;\nf();\n";
        assert_eq!(marked(js, "javascript"), [2]);
        let rb = "def f\n  s = <<~EOS\n    text\n  EOS\n  a << b\n  g\nend\n=begin\nx\n=end\n";
        assert_eq!(marked(rb, "ruby"), [3, 4, 9, 10]);
        let php = "<?php\n$s = <<<EOT\nhi\nEOT;\n$t = 'a\nb';\n";
        assert_eq!(marked(php, "php"), [3, 4, 6]);
    }
}
