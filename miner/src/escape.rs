//! Text from input (repository names, paths, function names, license and benchmark names,
//! error messages that quote them) as it is written where it could otherwise act as
//! something else: a log line ([`log`]: a newline in a name would start a fake line), the
//! dataset card's Markdown ([`markdown`]: `<script>`, a `|` that splits a table cell, a
//! backtick, the card's own markers), HTML ([`html`]) and the figures' labels ([`visible`]).
//!
//! Every escape starts from [`visible`]: control characters (C0, DEL, C1), the line and
//! paragraph separators and the bidirectional controls (which can make text read as other
//! text) become Rust-style escapes (`\n`, `\0`, `\u{1b}`), so what is written is one line
//! of printable text that shows what the input held.
//!
//! ```
//! use miner::escape::{markdown, visible};
//! assert_eq!(visible("a\nb\0"), "a\\nb\\0");
//! assert_eq!(markdown("<script>|x"), "&lt;script&gt;\\|x");
//! ```

use std::borrow::Cow;

/// Whether `c` is escaped by [`visible`].
fn hidden(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{2028}' | '\u{2029}' | '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'
                ..='\u{202e}' | '\u{2066}'..='\u{2069}'
        )
}

/// `s` with every control, separator and bidirectional-control character written as an
/// escape (`\n`, `\r`, `\t`, `\0`, else `\u{hex}`); borrowed when there is none.
pub fn visible(s: &str) -> Cow<'_, str> {
    if !s.chars().any(hidden) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\0' => out.push_str("\\0"),
            c if hidden(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Writes one line to the log (stderr). Every log line goes through here, so no text in
/// it, whatever it quotes, can end the line or start another.
pub fn log(line: &str) {
    eprintln!("{}", visible(line));
}

/// `s` as inline Markdown text that renders as itself, in a table cell or after a list
/// marker: [`visible`] first (so it is one line), then `&`, `<`, `>` as character
/// references (no HTML, no autolink, no `<!--` marker can come from data), the inline
/// markup characters (`\`, `` ` ``, `*`, `_`, `[`, `]`, `|`, `~`) backslash-escaped, and
/// what would start a block at the start of a line (`#`, `-`, `+`, `=`, `1.`, leading
/// spaces) escaped too.
pub fn markdown(s: &str) -> String {
    let v = visible(s);
    let mut out = String::with_capacity(v.len() + 8);
    let lead = v.len() - v.trim_start_matches(' ').len();
    for _ in 0..lead {
        out.push_str("&#32;");
    }
    let rest = &v[lead..];
    // An ordered-list marker: digits then `.` or `)`.
    let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    for (i, c) in rest.char_indices() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\\' | '`' | '*' | '_' | '[' | ']' | '|' | '~' => {
                out.push('\\');
                out.push(c);
            }
            '#' | '-' | '+' | '=' if i == 0 => {
                out.push('\\');
                out.push(c);
            }
            '.' | ')' if digits > 0 && i == digits => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// `s` as HTML text or a double- or single-quoted attribute value: [`visible`], then `&`,
/// `<`, `>`, `"` and `'` as character references.
pub fn html(s: &str) -> String {
    let v = visible(s);
    let mut out = String::with_capacity(v.len() + 8);
    for c in v.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_names_are_unchanged() {
        for s in ["psf/requests", "google/gson", "redis", "a.b-c"] {
            assert!(matches!(visible(s), Cow::Borrowed(_)));
            assert_eq!(markdown(s), s);
            assert_eq!(html(s), s);
        }
    }

    #[test]
    fn hostile_names_are_one_line_of_text() {
        assert_eq!(
            visible("x\r\ny\u{1b}[2J\u{202e}"),
            "x\\r\\ny\\u{1b}[2J\\u{202e}"
        );
        assert_eq!(
            markdown("<!-- codemine:figures -->"),
            "&lt;!-- codemine:figures --&gt;"
        );
        assert_eq!(markdown("# h"), "\\# h");
        assert_eq!(markdown("12. x"), "12\\. x");
        assert_eq!(markdown("  - x"), "&#32;&#32;\\- x");
        assert_eq!(markdown("a`b`|[c](d)"), "a\\`b\\`\\|\\[c\\](d)");
        assert_eq!(html("<b a='1'>\n"), "&lt;b a=&#39;1&#39;&gt;\\n");
    }
}
