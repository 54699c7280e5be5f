//! C# XML documentation comments (the C# specification's annex "Documentation comments"):
//! `<param name="x">`, `<returns>`, `<exception cref="T:E">` (the `T:` ID prefix dropped),
//! `<summary>` (the description, not a section), and every other top-level element
//! (`<remarks>`, `<typeparam name="T">`, `<value>`, `<example>`, `<seealso cref="X"/>`,
//! `<inheritdoc/>`) as `others`. Element text is rendered as a reader sees it: `<see
//! cref="X"/>` and `<paramref name="x"/>` give their target, `<c>` and `<code>` their
//! content, `<para>` and `<br/>` line breaks, entities decoded, lines trimmed.
//!
//! The scanner is tolerant, as doc comments are often not well-formed XML: a `<` that
//! opens no tag is text, a close tag without its open tag is ignored, an element left open
//! ends with the text. A comment without any element is read as Javadoc-style tags (some
//! C# projects write those), else it is plain.
//!
//! ```
//! use codemine_docstring::{parse, Language};
//!
//! let d = parse(
//!     "<summary>Parses.</summary>\n<param name=\"s\">The <see cref=\"string\"/> to read.</param>\n\
//!      <exception cref=\"T:System.FormatException\">Bad input.</exception>",
//!     Language::CSharp,
//! );
//! assert_eq!(d.params[0].description, "The string to read.");
//! assert_eq!(d.raises[0].type_name.as_deref(), Some("System.FormatException"));
//! ```

use crate::model::{DocstringParams, Other, Param, Raise, Returns, Style};

/// A piece of the comment.
#[derive(Debug, PartialEq, Eq)]
enum Token<'a> {
    Text(&'a str),
    Open {
        name: &'a str,
        attrs: Vec<(&'a str, String)>,
        empty: bool,
    },
    Close(&'a str),
}

/// The tokens of `s`, in one pass.
fn tokens(s: &str) -> Vec<Token<'_>> {
    let mut out = Vec::new();
    let mut text_start = 0usize;
    let mut i = 0usize;
    while let Some(off) = s[i..].find('<') {
        let at = i + off;
        let rest = &s[at..];
        // Comments and CDATA.
        let skip = if let Some(r) = rest.strip_prefix("<!--") {
            Some((r.find("-->").map_or(s.len(), |e| at + 4 + e + 3), None))
        } else if let Some(r) = rest.strip_prefix("<![CDATA[") {
            let end = r.find("]]>").map_or(r.len(), |e| e);
            Some((
                (at + 9 + end + 3).min(s.len()),
                Some(&s[at + 9..at + 9 + end]),
            ))
        } else {
            None
        };
        if let Some((end, cdata)) = skip {
            if text_start < at {
                out.push(Token::Text(&s[text_start..at]));
            }
            if let Some(c) = cdata {
                out.push(Token::Text(c));
            }
            i = end;
            text_start = end;
            continue;
        }
        match tag(rest) {
            Some((token, len)) => {
                if text_start < at {
                    out.push(Token::Text(&s[text_start..at]));
                }
                out.push(token);
                i = at + len;
                text_start = i;
            }
            None => i = at + 1,
        }
    }
    if text_start < s.len() {
        out.push(Token::Text(&s[text_start..]));
    }
    out
}

fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '-' | ':' | '.')
}

/// The tag at the start of `s` (which starts with `<`) and its length, if it is one.
fn tag(s: &str) -> Option<(Token<'_>, usize)> {
    let body = &s[1..];
    if let Some(r) = body.strip_prefix('/') {
        let n = r.find(|c: char| !is_name_char(c)).unwrap_or(r.len());
        let after = r[n..].trim_start();
        if n == 0 || !after.starts_with('>') {
            return None;
        }
        let len = 1 + 1 + n + (r[n..].len() - after.len()) + 1;
        return Some((Token::Close(&r[..n]), len));
    }
    if !body.starts_with(|c: char| c.is_alphabetic()) {
        return None;
    }
    let n = body.find(|c: char| !is_name_char(c)).unwrap_or(body.len());
    let name = &body[..n];
    let mut attrs = Vec::new();
    let mut p = n;
    // Attributes, bounded by the text: every turn consumes at least one character.
    loop {
        let rest = &body[p..];
        let trimmed = rest.trim_start();
        p += rest.len() - trimmed.len();
        if trimmed.starts_with("/>") {
            return Some((
                Token::Open {
                    name,
                    attrs,
                    empty: true,
                },
                1 + p + 2,
            ));
        }
        if trimmed.starts_with('>') {
            return Some((
                Token::Open {
                    name,
                    attrs,
                    empty: false,
                },
                1 + p + 1,
            ));
        }
        let an = trimmed
            .find(|c: char| !is_name_char(c))
            .unwrap_or(trimmed.len());
        if an == 0 {
            return None;
        }
        let attr = &trimmed[..an];
        p += an;
        let rest = body[p..].trim_start();
        let Some(r) = rest.strip_prefix('=') else {
            // An attribute without a value.
            attrs.push((attr, String::new()));
            continue;
        };
        let r = r.trim_start();
        let quote = r.chars().next().filter(|&c| c == '"' || c == '\'')?;
        let inner = &r[1..];
        let close = inner.find(quote)?;
        attrs.push((attr, decode(&inner[..close])));
        let consumed = body[p..].len() - inner[close + 1..].len();
        p += consumed;
    }
}

/// Decodes the XML entities and character references; an unknown `&` stays.
fn decode(s: &str) -> String {
    if !s.contains('&') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        let semi = after.find(';').filter(|&j| j <= 10);
        let decoded = semi.and_then(|j| {
            let e = &after[..j];
            let c = match e {
                "lt" => Some('<'),
                "gt" => Some('>'),
                "amp" => Some('&'),
                "quot" => Some('"'),
                "apos" => Some('\''),
                _ => {
                    let num = e.strip_prefix('#')?;
                    let code = match num.strip_prefix(['x', 'X']) {
                        Some(h) => u32::from_str_radix(h, 16).ok()?,
                        None => num.parse().ok()?,
                    };
                    char::from_u32(code)
                }
            }?;
            Some((c, j))
        });
        match decoded {
            Some((c, j)) => {
                out.push(c);
                rest = &after[j + 1..];
            }
            None => {
                out.push('&');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// A top-level element: its name, attributes and rendered text.
struct Element<'a> {
    name: &'a str,
    attrs: Vec<(&'a str, String)>,
    text: String,
}

impl Element<'_> {
    fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// What an inline element shows in place of its (empty) content.
fn inline_target(name: &str, attrs: &[(&str, String)]) -> Option<String> {
    let key = match name {
        "see" | "seealso" => ["cref", "langword", "href"]
            .iter()
            .find_map(|k| attrs.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str())),
        "paramref" | "typeparamref" => attrs
            .iter()
            .find(|(n, _)| *n == "name")
            .map(|(_, v)| v.as_str()),
        _ => None,
    }?;
    Some(strip_id_prefix(key).to_string())
}

/// `T:System.String` → `System.String` (a documentation ID's kind prefix).
fn strip_id_prefix(s: &str) -> &str {
    let b = s.as_bytes();
    if b.len() > 2 && b[1] == b':' && b[0].is_ascii_uppercase() {
        &s[2..]
    } else {
        s
    }
}

/// How deep elements nest before further ones count as text only: doc comments nest a few
/// levels, and the bound keeps a close tag's search for its open tag short.
const MAX_DEPTH: usize = 32;

/// The top-level elements of the comment; text outside them is ignored.
fn elements(s: &str) -> Vec<Element<'_>> {
    let mut out: Vec<Element> = Vec::new();
    // Names of the open elements, innermost last; the top-level one is `out.last()`.
    let mut stack: Vec<&str> = Vec::new();
    for t in tokens(s) {
        match t {
            Token::Text(x) => {
                if !stack.is_empty() {
                    if let Some(e) = out.last_mut() {
                        e.text.push_str(&decode(x));
                    }
                }
            }
            Token::Open { name, attrs, empty } => {
                if stack.is_empty() {
                    out.push(Element {
                        name,
                        attrs,
                        text: String::new(),
                    });
                    if !empty {
                        stack.push(name);
                    }
                    continue;
                }
                let Some(e) = out.last_mut() else { continue };
                if matches!(name, "para" | "br" | "p") {
                    e.text.push('\n');
                }
                if empty {
                    if let Some(x) = inline_target(name, &attrs) {
                        e.text.push_str(&x);
                    }
                } else if stack.len() < MAX_DEPTH {
                    // An inline element with content: its text joins the top-level one's.
                    stack.push(name);
                }
            }
            Token::Close(name) => {
                // Close up to the matching open element; a stray close tag is ignored.
                if let Some(pos) = stack.iter().rposition(|n| *n == name) {
                    stack.truncate(pos);
                    if matches!(name, "para" | "p") {
                        if let Some(e) = out.last_mut() {
                            e.text.push('\n');
                        }
                    }
                }
            }
        }
    }
    for e in out.iter_mut() {
        e.text = tidy(&e.text);
    }
    out
}

/// Lines trimmed, runs of blank lines made one, surrounding blank lines dropped.
fn tidy(s: &str) -> String {
    let mut lines: Vec<&str> = Vec::new();
    for l in s.lines().map(str::trim) {
        if l.is_empty() && lines.last().is_none_or(|p| p.is_empty()) {
            continue;
        }
        lines.push(l);
    }
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    lines.join("\n")
}

/// Parses an XML documentation comment; `None` when it holds no element at all.
pub(crate) fn parse(text: &str) -> Option<DocstringParams> {
    let elements = elements(text);
    if elements.is_empty() {
        return None;
    }
    let mut out = DocstringParams::default();
    for e in &elements {
        let lower = e.name.to_ascii_lowercase();
        match lower.as_str() {
            "summary" => {}
            "param" => out.params.push(Param {
                name: e.attr("name").unwrap_or_default().to_string(),
                type_name: None,
                description: e.text.clone(),
            }),
            "returns" => out.push_return(
                e.name,
                Returns {
                    type_name: None,
                    description: e.text.clone(),
                },
            ),
            "exception" => out.raises.push(Raise {
                type_name: e.attr("cref").map(|c| strip_id_prefix(c).to_string()),
                description: e.text.clone(),
            }),
            "typeparam" => out.others.push(Other {
                section: e.name.to_string(),
                text: format!("{}: {}", e.attr("name").unwrap_or_default(), e.text)
                    .trim_end()
                    .to_string(),
            }),
            _ => {
                let text = if e.text.is_empty() {
                    inline_target(&lower, &e.attrs).unwrap_or_default()
                } else {
                    e.text.clone()
                };
                out.others.push(Other {
                    section: e.name.to_string(),
                    text,
                });
            }
        }
    }
    Some(out.finish(Style::XmlDoc))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tolerant_scanning() {
        let e = elements(
            "<summary>a < b &amp; c</summary><param name='x'>one<para/>two</param></bogus>",
        );
        assert_eq!(e.len(), 2);
        assert_eq!(e[0].text, "a < b & c");
        assert_eq!(e[1].attr("name"), Some("x"));
        assert_eq!(e[1].text, "one\ntwo");
        // Left open: the element ends with the text.
        let e = elements("<returns>the <c>count</c>");
        assert_eq!(e[0].text, "the count");
        assert_eq!(decode("&#65;&#x42;&bogus;&"), "AB&bogus;&");
    }
}
