//! Rust doc comments: Markdown, whose headings name the sections the API guidelines and
//! the standard library use (`# Arguments`, `# Returns`, `# Errors`, `# Panics`,
//! `# Safety`, `# Examples`). `# Arguments` (or `Parameters`, `Args`, `Params`) is a list
//! of ``* `name` - description`` items (`-`, `*` or `+` bullets; `-`, `:` or a dash
//! between name and description; backticks optional). `# Returns` is the return. `# Errors`
//! gives one raise per list item, typed by the item's leading code span or link
//! (``* [`Error::NotFound`] if ...``), or one untyped raise for prose; `# Panics` one raise
//! of type `panic`. Other headings go to `others` under their title. Headings inside code
//! fences (a doctest's hidden `# use x;` lines) are code.
//!
//! ```
//! use codemine_docstring::{parse, Language};
//!
//! let d = parse("Opens.\n\n# Arguments\n\n* `path` - where\n\n# Errors\n\n* [`io::Error`] if it cannot", Language::Rust);
//! assert_eq!(d.params[0].name, "path");
//! assert_eq!(d.raises[0].type_name.as_deref(), Some("io::Error"));
//! ```

use crate::model::{DocstringParams, Other, Param, Raise, Returns, Style};
use crate::tags::drop_separator;

/// A heading's title: `#` to `######`, a space, the title (closing `#`s dropped).
fn heading(line: &str) -> Option<&str> {
    let hashes = line.len() - line.trim_start_matches('#').len();
    if !(1..=6).contains(&hashes) {
        return None;
    }
    let rest = &line[hashes..];
    if !rest.starts_with([' ', '\t']) {
        return None;
    }
    let title = rest.trim().trim_end_matches('#').trim();
    (!title.is_empty()).then_some(title)
}

pub(crate) fn parse(text: &str) -> DocstringParams {
    // Sections: title and lines, outside code fences.
    let mut sections: Vec<(&str, Vec<&str>)> = Vec::new();
    let mut fence = false;
    for raw in text.lines() {
        let line = raw.trim();
        if line.starts_with("```") || line.starts_with("~~~") {
            fence = !fence;
        }
        let title = if fence { None } else { heading(line) };
        match (title, sections.last_mut()) {
            (Some(t), _) => sections.push((t, Vec::new())),
            (None, Some((_, lines))) => lines.push(line),
            (None, None) => {}
        }
    }
    let mut out = DocstringParams::default();
    for (title, lines) in sections {
        let body = lines.join("\n").trim().to_string();
        match title.trim_end_matches(':').to_ascii_lowercase().as_str() {
            "arguments" | "parameters" | "args" | "params" => {
                let items = list_items(&lines);
                let params: Vec<Param> = items.iter().filter_map(|i| param(i)).collect();
                if params.is_empty() {
                    out.others.push(Other {
                        section: title.to_string(),
                        text: body,
                    });
                } else {
                    out.params.extend(params);
                }
            }
            "returns" | "return" | "return value" | "return values" => out.push_return(
                title,
                Returns {
                    type_name: None,
                    description: body,
                },
            ),
            "errors" => {
                let items = list_items(&lines);
                if items.is_empty() {
                    out.raises.push(Raise {
                        type_name: None,
                        description: body,
                    });
                } else {
                    out.raises.extend(items.iter().map(|i| error(i)));
                }
            }
            "panics" => out.raises.push(Raise {
                type_name: Some("panic".to_string()),
                description: body,
            }),
            _ => out.others.push(Other {
                section: title.to_string(),
                text: body,
            }),
        }
    }
    out.finish(Style::Rustdoc)
}

/// The Markdown list items of a section: a bullet line and the lines after it up to the
/// next bullet or a blank line (the lines are trimmed, so indentation cannot say more).
fn list_items(lines: &[&str]) -> Vec<String> {
    let mut items: Vec<Vec<&str>> = Vec::new();
    let mut open = false;
    for line in lines {
        let bullet = ["* ", "- ", "+ "].iter().find_map(|b| line.strip_prefix(b));
        match bullet {
            Some(rest) => {
                items.push(vec![rest.trim()]);
                open = true;
            }
            None if line.is_empty() => open = false,
            None if open => {
                if let Some(item) = items.last_mut() {
                    item.push(line);
                }
            }
            None => {}
        }
    }
    items.into_iter().map(|i| i.join("\n")).collect()
}

/// A leading `` `code` `` or ``[`link`]`` / ``[text](url)`` and the rest of the item.
fn leading_name(item: &str) -> Option<(&str, &str)> {
    if let Some(rest) = item.strip_prefix('`') {
        let end = rest.find('`')?;
        return Some((&rest[..end], &rest[end + 1..]));
    }
    if let Some(rest) = item.strip_prefix('[') {
        let end = rest.find(']')?;
        let name = rest[..end].trim_matches('`');
        let mut after = &rest[end + 1..];
        // A link target: `(url)` or `[ref]`.
        if let Some(t) = after.strip_prefix('(') {
            after = t.find(')').map_or(after, |i| &t[i + 1..]);
        } else if let Some(t) = after.strip_prefix('[') {
            after = t.find(']').map_or(after, |i| &t[i + 1..]);
        }
        return Some((name, after));
    }
    None
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_')
}

/// ``* `name` - description`` (or `name: description`): a parameter if the name is an
/// identifier.
fn param(item: &str) -> Option<Param> {
    let (name, rest) = match leading_name(item) {
        Some(x) => x,
        None => {
            let end = item
                .find(|c: char| c == ':' || c.is_whitespace())
                .unwrap_or(item.len());
            (&item[..end], &item[end..])
        }
    };
    let name = name
        .trim()
        .trim_start_matches('&')
        .trim_start_matches("mut ");
    if !is_identifier(name) {
        return None;
    }
    Some(Param {
        name: name.to_string(),
        type_name: None,
        description: drop_separator(rest).trim().to_string(),
    })
}

fn error(item: &str) -> Raise {
    match leading_name(item) {
        Some((name, rest)) if !name.trim().is_empty() => Raise {
            type_name: Some(name.trim().to_string()),
            description: drop_separator(rest).trim().to_string(),
        },
        _ => Raise {
            type_name: None,
            description: item.trim().to_string(),
        },
    }
}
