//! Google style (`Args:`, `Returns:`, `Raises:` ... sections), as docstring-parser 0.18's
//! `google.py` reads it: a section title is a line `Title:` at the left margin, its body the
//! indented lines below it (up to a line at the margin); in a multiple section (`Args`,
//! `Raises`, `Attributes`) each item starts at the body's indentation and is `name (type):
//! description`; `Returns`/`Yields` is one item, typed when it starts with `type:`.

use std::sync::LazyLock;

use regex::Regex;

use super::{tidy_lines, Failed, Meta};
use crate::text::{cleandoc, is_py_space};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Singular,
    Multiple,
    SingularOrMultiple,
}

/// docstring-parser's `DEFAULT_SECTIONS`: title, meta key, kind.
const SECTIONS: [(&str, &str, Kind); 12] = [
    ("Arguments", "param", Kind::Multiple),
    ("Args", "param", Kind::Multiple),
    ("Parameters", "param", Kind::Multiple),
    ("Params", "param", Kind::Multiple),
    ("Raises", "raises", Kind::Multiple),
    ("Exceptions", "raises", Kind::Multiple),
    ("Except", "raises", Kind::Multiple),
    ("Attributes", "attribute", Kind::Multiple),
    ("Example", "examples", Kind::Singular),
    ("Examples", "examples", Kind::Singular),
    ("Returns", "returns", Kind::SingularOrMultiple),
    ("Yields", "yields", Kind::SingularOrMultiple),
];

/// `GOOGLE_TYPED_ARG_REGEX`, anchored as `re.match` is; Python's `\s` includes U+001C..1F.
static TYPED_ARG: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^[\s\x1c-\x1f]*(.+?)[\s\x1c-\x1f]*\([\s\x1c-\x1f]*(.*[^\s\x1c-\x1f]+)[\s\x1c-\x1f]*\)",
    )
    .expect("a constant pattern")
});

/// The section a line titles: `Title:` then only `[ \t\r\f\v]` (`titles_re`).
fn title(line: &str) -> Option<usize> {
    let t = line.trim_end_matches([' ', '\t', '\r', '\x0c', '\x0b']);
    let name = t.strip_suffix(':')?;
    SECTIONS.iter().position(|(title, _, _)| *title == name)
}

pub(super) fn parse(text: &str) -> Result<Vec<Meta>, Failed> {
    let text = cleandoc(text);
    // Title lines: byte offset of the line, of its end, and the section.
    let mut titles: Vec<(usize, usize, usize)> = Vec::new();
    let mut pos = 0usize;
    for line in text.split('\n') {
        if let Some(s) = title(line) {
            titles.push((pos, pos + line.len(), s));
        }
        pos += line.len() + 1;
    }
    // The chunks by section, a repeated title keeping its first place and taking the last
    // body (an OrderedDict assignment).
    let mut bodies: Vec<(usize, &str)> = Vec::new();
    for (j, &(_, end, section)) in titles.iter().enumerate() {
        let stop = titles.get(j + 1).map_or(text.len(), |t| t.0);
        let mut details = &text[end..stop];
        // Only the indented lines under the title: a line at the margin ends the section.
        if let Some(i) = newline_then_non_space(details) {
            details = &details[..i];
        }
        let body = details.trim_matches('\n');
        match bodies.iter_mut().find(|(s, _)| *s == section) {
            Some(e) => e.1 = body,
            None => bodies.push((section, body)),
        }
    }
    let mut metas = Vec::new();
    for (section, chunk) in bodies {
        let (_, _, kind) = SECTIONS[section];
        if kind != Kind::Multiple {
            metas.push(build(&cleandoc(chunk), section)?);
            continue;
        }
        let indent_len = chunk.len() - chunk.trim_start_matches(is_py_space).len();
        let indent = &chunk[..indent_len];
        let starts = item_starts(chunk, indent);
        if starts.is_empty() {
            return Err(Failed);
        }
        for (j, &start) in starts.iter().enumerate() {
            let end = starts.get(j + 1).map_or(chunk.len(), |&s| s - indent.len());
            let part = chunk[start..end].trim_matches('\n');
            metas.push(build(part, section)?);
        }
    }
    Ok(metas)
}

/// The offset of the first `\n` followed by a non-space character (`re.search(r"\n\S")`).
fn newline_then_non_space(s: &str) -> Option<usize> {
    let mut it = s.char_indices().peekable();
    while let Some((i, c)) = it.next() {
        if c == '\n' {
            if let Some(&(_, next)) = it.peek() {
                if !is_py_space(next) {
                    return Some(i);
                }
            }
        }
    }
    None
}

/// The ends of the matches of `^indent(?=\S)` (multiline, non-overlapping): where each item
/// of a multiple section starts. `indent` may span lines when the body opens with a
/// whitespace-only line, as Python's pattern then does.
fn item_starts(chunk: &str, indent: &str) -> Vec<usize> {
    let mut out = Vec::new();
    let mut last_end = 0usize;
    let mut line_start = 0usize;
    loop {
        if line_start >= last_end {
            let at = &chunk[line_start..];
            if let Some(after) = at.strip_prefix(indent) {
                if after.chars().next().is_some_and(|c| !is_py_space(c)) {
                    let end = line_start + indent.len();
                    out.push(end);
                    last_end = end;
                }
            }
        }
        match chunk[line_start..].find('\n') {
            Some(i) => line_start += i + 1,
            None => break,
        }
    }
    out
}

/// `_build_meta`: one item of `section`.
fn build(text: &str, section: usize) -> Result<Meta, Failed> {
    let (_, key, kind) = SECTIONS[section];
    if kind == Kind::Singular || (kind == Kind::SingularOrMultiple && !multiple_pattern(text)) {
        return Ok(single(key, text));
    }
    let (before, desc) = text.split_once(':').ok_or(Failed)?;
    let before = match before.split_once('\n') {
        Some((first, rest)) => format!("{first}{}", cleandoc(rest)),
        None => before.to_string(),
    };
    let desc = if desc.is_empty() {
        String::new()
    } else {
        let d = desc.strip_prefix(' ').unwrap_or(desc);
        tidy_lines(d).trim_matches('\n').to_string()
    };
    Ok(multi(key, before, desc))
}

/// `MULTIPLE_PATTERN.match`: `(\s*[^:\s]+:)|([^:]*\]:.*)` at the start of `text`.
fn multiple_pattern(text: &str) -> bool {
    let t = text.trim_start_matches(is_py_space);
    let word = t
        .find(|c: char| c == ':' || is_py_space(c))
        .unwrap_or(t.len());
    if word > 0 && t[word..].starts_with(':') {
        return true;
    }
    // `[^:]*` stops at the first colon, which must follow a `]`.
    text.find(':').is_some_and(|i| text[..i].ends_with(']'))
}

fn single(key: &str, desc: &str) -> Meta {
    let desc = Some(desc.to_string());
    match key {
        "returns" | "yields" => Meta::Returns {
            key: key.to_string(),
            type_name: None,
            desc,
        },
        _ => Meta::Other {
            section: key.to_string(),
            desc,
        },
    }
}

fn multi(key: &str, before: String, desc: String) -> Meta {
    match key {
        "param" | "attribute" => {
            let (name, type_name) = match TYPED_ARG.captures(&before) {
                Some(c) => {
                    let name = c.get(1).map_or("", |m| m.as_str()).to_string();
                    let t = c.get(2).map_or("", |m| m.as_str());
                    let t = t
                        .strip_suffix(", optional")
                        .or_else(|| t.strip_suffix('?'))
                        .unwrap_or(t);
                    (name, Some(t.to_string()))
                }
                None => (before.clone(), None),
            };
            Meta::Param {
                key: key.to_string(),
                name,
                type_name,
                desc: Some(desc),
            }
        }
        "returns" | "yields" => Meta::Returns {
            key: key.to_string(),
            type_name: Some(before),
            desc: Some(desc),
        },
        "raises" => Meta::Raises {
            key: key.to_string(),
            type_name: Some(before),
            desc: Some(desc),
        },
        _ => Meta::Other {
            section: format!("{key} {before}"),
            desc: Some(desc),
        },
    }
}
