//! Block tags shared by the `@tag` conventions (Javadoc, JSDoc, PHPDoc, YARD, Doxygen): the
//! split of a docstring into its description and one block per tag, and the small token
//! readers their tag bodies need (a word, a `{braced}` or `[bracketed]` type).
//!
//! A block tag starts a line (after the comment markers and indentation, which the text
//! no longer has) and runs to the next one, as the Javadoc specification has it; `@`
//! elsewhere (`{@link x}`, `a@b.c`) is text. Lines inside `<pre>`, a ``` fence or Doxygen's
//! `@code`/`@verbatim` blocks never start a tag, so an annotation in a code sample
//! (`@Override`) stays code.

/// Which characters open a tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Opener {
    /// `@tag`.
    At,
    /// `@tag` and YARD's directives `@!tag`.
    AtOrDirective,
    /// Doxygen: `@cmd` and `\cmd`.
    AtOrBackslash,
}

/// One block tag: its name without the opener (`param`, `!macro`) and its text, lines
/// trimmed and joined by newlines, surrounding blank lines removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Block<'a> {
    pub tag: &'a str,
    pub body: String,
}

/// Where a docstring's description ends and its tags.
#[derive(Debug, Default)]
pub(crate) struct Tagged<'a> {
    /// The lines before the first tag.
    pub description: Vec<&'a str>,
    pub blocks: Vec<Block<'a>>,
}

/// The tag name a trimmed line opens, and the rest of the line, if it opens one.
fn tag_start(line: &str, opener: Opener) -> Option<(&str, &str)> {
    let rest = match opener {
        Opener::At | Opener::AtOrDirective => line.strip_prefix('@')?,
        Opener::AtOrBackslash => line.strip_prefix('@').or_else(|| line.strip_prefix('\\'))?,
    };
    let bang = opener == Opener::AtOrDirective && rest.starts_with('!');
    let name_from = usize::from(bang);
    let first = rest[name_from..].chars().next()?;
    if !first.is_ascii_alphabetic() {
        return None;
    }
    let len = rest[name_from..]
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
        .map_or(rest.len(), |i| i + name_from);
    Some((&rest[..len], &rest[len..]))
}

/// Tracks code regions whose lines never open a tag.
#[derive(Default)]
struct Code {
    pre: bool,
    fence: bool,
    doxygen: Option<&'static str>,
}

impl Code {
    /// Whether `line` (trimmed) lies in code, updating the state for the next line.
    fn inside(&mut self, line: &str, opener: Opener) -> bool {
        if line.starts_with("```") || line.starts_with("~~~") {
            self.fence = !self.fence;
            return true;
        }
        if self.fence {
            return true;
        }
        if let Some(end) = self.doxygen {
            if line.contains(end) {
                self.doxygen = None;
            }
            return true;
        }
        let lower_pre = line.contains("<pre") || line.contains("<PRE");
        let close_pre = line.contains("</pre>") || line.contains("</PRE>");
        if self.pre {
            if close_pre {
                self.pre = false;
            }
            return true;
        }
        if lower_pre && !close_pre {
            self.pre = true;
            // The opening line itself may start a tag (`@example <pre>`): it is not code yet.
            return false;
        }
        if opener == Opener::AtOrBackslash {
            for (open, close) in [("code", "endcode"), ("verbatim", "endverbatim")] {
                if let Some((name, _)) = tag_start(line, opener) {
                    if name == open {
                        self.doxygen = Some(close);
                        return false;
                    }
                }
            }
        }
        false
    }
}

/// Splits `text` (comment markers already gone) into its description and block tags.
pub(crate) fn split(text: &str, opener: Opener) -> Tagged<'_> {
    let mut out = Tagged::default();
    let mut code = Code::default();
    let mut current: Option<(&str, Vec<&str>)> = None;
    for raw in text.lines() {
        let line = raw.trim();
        let in_code = code.inside(line, opener);
        let start = if in_code {
            None
        } else {
            tag_start(line, opener)
        };
        match start {
            Some((tag, rest)) => {
                if let Some((t, lines)) = current.take() {
                    out.blocks.push(block(t, &lines));
                }
                current = Some((tag, vec![rest.trim()]));
            }
            None => match current.as_mut() {
                Some((_, lines)) => lines.push(line),
                None => out.description.push(line),
            },
        }
    }
    if let Some((t, lines)) = current {
        out.blocks.push(block(t, &lines));
    }
    out
}

fn block<'a>(tag: &'a str, lines: &[&str]) -> Block<'a> {
    Block {
        tag,
        body: lines.join("\n").trim().to_string(),
    }
}

/// The first whitespace-separated word of `s` and the rest, trimmed.
pub(crate) fn word(s: &str) -> (&str, &str) {
    let s = s.trim_start();
    match s.find(char::is_whitespace) {
        Some(i) => (&s[..i], s[i..].trim()),
        None => (s, ""),
    }
}

/// If `s` starts with `open`, the text up to its matching `close` (nesting counted) and the
/// rest, trimmed: `{Array.<{a: number}>} x` gives `Array.<{a: number}>` and `x`.
pub(crate) fn delimited(s: &str, open: char, close: char) -> Option<(&str, &str)> {
    let s = s.trim_start();
    let inner = s.strip_prefix(open)?;
    let mut depth = 1usize;
    for (i, c) in inner.char_indices() {
        if c == open {
            depth += 1;
        } else if c == close {
            depth -= 1;
            if depth == 0 {
                return Some((inner[..i].trim(), inner[i + c.len_utf8()..].trim()));
            }
        }
    }
    None
}

/// A type written before a name, which may hold spaces inside brackets
/// (`array<int, string> $x`, `array{a: int} $x`): the text up to the first whitespace
/// outside `<>`, `()`, `[]` and `{}`, and the rest, trimmed.
pub(crate) fn type_token(s: &str) -> (&str, &str) {
    let s = s.trim_start();
    let mut depth = 0usize;
    for (i, c) in s.char_indices() {
        match c {
            '<' | '(' | '[' | '{' => depth += 1,
            '>' | ')' | ']' | '}' => depth = depth.saturating_sub(1),
            c if c.is_whitespace() && depth == 0 => return (&s[..i], s[i..].trim()),
            _ => {}
        }
    }
    (s, "")
}

/// A parameter name as a tag writes it, without the colon some authors put after it
/// (`@param name: description`).
pub(crate) fn param_name(s: &str) -> &str {
    s.strip_suffix(':').unwrap_or(s)
}

/// `s` without one leading separator between a name and its description (`- desc`,
/// `: desc`, `— desc`), as JSDoc and rustdoc lists write them.
pub(crate) fn drop_separator(s: &str) -> &str {
    let t = s.trim_start();
    for sep in ["-", ":", "\u{2013}", "\u{2014}"] {
        if let Some(rest) = t.strip_prefix(sep) {
            if rest.is_empty() || rest.starts_with(char::is_whitespace) {
                return rest.trim_start();
            }
        }
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_run_to_the_next_tag() {
        let t = split(
            "Adds.\n\nMore.\n@param a the first\n  and more\n@return the sum\n@see {@link X}",
            Opener::At,
        );
        assert_eq!(t.description, ["Adds.", "", "More."]);
        let tags: Vec<(&str, &str)> = t.blocks.iter().map(|b| (b.tag, b.body.as_str())).collect();
        assert_eq!(
            tags,
            [
                ("param", "a the first\nand more"),
                ("return", "the sum"),
                ("see", "{@link X}")
            ]
        );
    }

    #[test]
    fn code_never_opens_a_tag() {
        let t = split(
            "Use:\n<pre>{@code\n@Override\n}</pre>\n@since 1.2",
            Opener::At,
        );
        assert_eq!(t.blocks.len(), 1);
        assert_eq!(t.blocks[0].tag, "since");
        let d = split(
            "\\code\n@param x\n\\endcode\n\\param y why",
            Opener::AtOrBackslash,
        );
        let tags: Vec<&str> = d.blocks.iter().map(|b| b.tag).collect();
        assert_eq!(tags, ["code", "param"]);
        assert_eq!(d.blocks[0].body, "@param x\n\\endcode");
    }

    #[test]
    fn token_readers() {
        assert_eq!(
            delimited("{Array.<{a: number}>} x - y", '{', '}'),
            Some(("Array.<{a: number}>", "x - y"))
        );
        assert_eq!(delimited("{unclosed x", '{', '}'), None);
        assert_eq!(
            type_token("array<int, string> $x desc"),
            ("array<int, string>", "$x desc")
        );
        assert_eq!(word("  a  b c"), ("a", "b c"));
        assert_eq!(drop_separator("- the x"), "the x");
        assert_eq!(drop_separator("-1 is bad"), "-1 is bad");
    }
}
