//! The XML reading shared by the Cobertura and JaCoCo parsers: quick-xml events with the
//! line each starts on, attribute values, and root-element detection.
//!
//! quick-xml has no DTD support at all: a `DOCTYPE` (with or without an internal subset
//! declaring entities) is one event that is skipped, nothing is ever fetched, and a
//! reference to any entity beyond XML's five predefined ones and character references
//! is an error here, never an expansion.

use std::borrow::Cow;

use quick_xml::events::{BytesRef, BytesStart, Event};
use quick_xml::{Reader, XmlVersion};

use super::{utf8, Fail, Format};

/// A quick-xml reader over a whole report that knows line numbers.
pub(super) struct Xml<'a> {
    reader: Reader<&'a [u8]>,
    data: &'a [u8],
    /// Newlines are counted up to this byte offset...
    counted: usize,
    /// ...which is on this 1-based line.
    line: usize,
}

impl<'a> Xml<'a> {
    pub(super) fn new(data: &'a [u8]) -> Result<Self, Fail> {
        let text = utf8(data)?;
        let mut reader = Reader::from_str(text);
        // Whitespace is kept as text events, so an element's event starts at its `<`.
        reader.config_mut().trim_text(false);
        Ok(Xml {
            reader,
            data,
            counted: 0,
            line: 1,
        })
    }

    /// The next event and the line it starts on.
    pub(super) fn next(&mut self) -> Result<(Event<'a>, usize), Fail> {
        let start = usize::try_from(self.reader.buffer_position()).unwrap_or(usize::MAX);
        match self.reader.read_event() {
            Ok(event) => {
                let line = self.line_at(start);
                Ok((event, line))
            }
            Err(e) => {
                let pos = usize::try_from(self.reader.error_position()).unwrap_or(usize::MAX);
                Err(Fail::new(self.line_at(pos), format!("malformed XML: {e}")))
            }
        }
    }

    /// The line of byte offset `pos`, counting forward from the last query.
    fn line_at(&mut self, pos: usize) -> usize {
        let pos = pos.min(self.data.len());
        if pos < self.counted {
            self.counted = 0;
            self.line = 1;
        }
        self.line += self.data[self.counted..pos]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        self.counted = pos;
        self.line
    }
}

/// The value of attribute `name` of `element`, entities resolved (predefined ones and
/// character references only).
pub(super) fn attr<'e>(
    element: &'e BytesStart<'_>,
    name: &str,
    line: usize,
) -> Result<Option<Cow<'e, str>>, Fail> {
    for attribute in element.attributes() {
        let attribute = attribute.map_err(|e| {
            Fail::new(
                line,
                format!("malformed attributes of <{}>: {e}", tag_name(element)),
            )
        })?;
        if attribute.key.as_ref() == name {
            let value = attribute
                .normalized_value(XmlVersion::Implicit1_0)
                .map_err(|e| {
                    Fail::new(
                        line,
                        format!(
                            "attribute {name} of <{}>: {e} (only XML's predefined entities and character references are read; external entities never are)",
                            tag_name(element)
                        ),
                    )
                })?;
            return Ok(Some(value));
        }
    }
    Ok(None)
}

/// Attribute `name`, which must be present.
pub(super) fn required<'e>(
    element: &'e BytesStart<'_>,
    name: &str,
    line: usize,
) -> Result<Cow<'e, str>, Fail> {
    attr(element, name, line)?.ok_or_else(|| {
        Fail::new(
            line,
            format!("<{}> without the {name} attribute", tag_name(element)),
        )
    })
}

/// Attribute `name` as a non-negative integer, which must be present.
pub(super) fn number<T: std::str::FromStr>(
    element: &BytesStart<'_>,
    name: &str,
    line: usize,
) -> Result<T, Fail> {
    let value = required(element, name, line)?;
    value.trim().parse().map_err(|_| {
        Fail::new(
            line,
            format!(
                "attribute {name}=\"{value}\" of <{}> is not a non-negative integer",
                tag_name(element)
            ),
        )
    })
}

/// The text an entity or character reference stands for; any other entity (one declared
/// in a DTD, possibly external) is an error.
pub(super) fn reference(r: &BytesRef<'_>, line: usize) -> Result<String, Fail> {
    let name = r.xml_content(XmlVersion::Implicit1_0);
    if let Ok(Some(c)) = r.resolve_char_ref() {
        return Ok(c.to_string());
    }
    match quick_xml::escape::resolve_predefined_entity(&name) {
        Some(text) => Ok(text.to_string()),
        None => Err(Fail::new(
            line,
            format!(
                "reference to entity &{name}; which is not predefined (entities declared in a DTD are never expanded)"
            ),
        )),
    }
}

/// An element's name as text, for messages.
pub(super) fn tag_name(element: &BytesStart<'_>) -> String {
    element.name().as_ref().to_string()
}

/// Cobertura or JaCoCo, from the root element's name. Read from the raw bytes, so a
/// report cut off or broken later is still recognised and its parser names the line.
pub(super) fn detect(data: &[u8]) -> Result<Format, String> {
    let root = root_tag(data).ok_or("XML without a root element")?;
    let name_len = root
        .iter()
        .position(|b| b.is_ascii_whitespace() || matches!(b, b'/' | b'>'))
        .unwrap_or(root.len());
    let name = String::from_utf8_lossy(&root[..name_len]);
    // A prefix (`ns:coverage`) does not change what the element is.
    match name.rsplit(':').next().unwrap_or_default() {
        // Clover's XML also has a <coverage> root, with a clover attribute.
        "coverage" if contains(root, b"clover=") => Err("Clover XML".into()),
        "coverage" => Ok(Format::Cobertura),
        "report" => Ok(Format::Jacoco),
        _ => Err(format!("XML whose root element is <{name}>")),
    }
}

/// The bytes of the root element's start tag after its `<`, up to its `>` or the end of
/// the data: the declaration, comments, processing instructions and the DOCTYPE (with
/// its internal subset) are skipped.
fn root_tag(data: &[u8]) -> Option<&[u8]> {
    let mut rest = data;
    loop {
        rest = rest.trim_ascii_start();
        if let Some(r) = rest.strip_prefix(b"<?") {
            rest = after(r, b"?>")?;
        } else if let Some(r) = rest.strip_prefix(b"<!--") {
            rest = after(r, b"-->")?;
        } else if let Some(r) = rest.strip_prefix(b"<!") {
            rest = after_declaration(r)?;
        } else if let Some(r) = rest.strip_prefix(b"<") {
            let end = r.iter().position(|&b| b == b'>').unwrap_or(r.len());
            return Some(&r[..end]);
        } else {
            return None;
        }
    }
}

/// What follows the first `needle` in `hay`.
fn after<'a>(hay: &'a [u8], needle: &[u8]) -> Option<&'a [u8]> {
    let at = hay.windows(needle.len()).position(|w| w == needle)?;
    Some(&hay[at + needle.len()..])
}

/// What follows a `<!DOCTYPE ...>`: its `>` outside quotes and outside `[...]`.
fn after_declaration(hay: &[u8]) -> Option<&[u8]> {
    let mut depth = 0usize;
    let mut quote = None;
    for (i, &b) in hay.iter().enumerate() {
        match (quote, b) {
            (Some(q), _) if b == q => quote = None,
            (Some(_), _) => {}
            (None, b'"' | b'\'') => quote = Some(b),
            (None, b'[') => depth += 1,
            (None, b']') => depth = depth.saturating_sub(1),
            (None, b'>') if depth == 0 => return Some(&hay[i + 1..]),
            _ => {}
        }
    }
    None
}

/// Where an XML report ends early: the innermost open element is named.
pub(super) fn unexpected_eof(data: &[u8], open: &str) -> Fail {
    Fail::new(
        super::eof_line(data),
        format!("unexpected end of file inside <{open}>"),
    )
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}
