//! Cobertura XML (coverage.py's `coverage xml`, `gcovr --xml`):
//! `<coverage><sources><source>ROOT</source></sources><packages><package><classes>
//! <class filename="..."><methods>...</methods><lines><line number="N" hits="H"/>`.
//! Only a class's own `<lines>` are read: each method's `<lines>` repeat some of them.

use quick_xml::events::{BytesStart, Event};

use super::xml::{self, Xml};
use super::{Fail, FileHits};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Sources,
    Source,
    Class,
    Lines,
    Other,
}

struct Open {
    kind: Kind,
    name: String,
}

/// The classes (one record each) and the `<source>` roots of a Cobertura report.
pub(super) fn parse(data: &[u8]) -> Result<(Vec<FileHits>, Vec<String>), Fail> {
    let mut xml = Xml::new(data)?;
    let mut stack: Vec<Open> = Vec::new();
    let mut files = Vec::new();
    let mut roots = Vec::new();
    let mut class: Option<(String, Vec<(u32, u64)>)> = None;
    let mut source = String::new();
    loop {
        let (event, line) = xml.next()?;
        match event {
            Event::Start(e) => {
                let kind = open(&e, line, &stack, &mut class, &mut files)?;
                if kind == Kind::Source {
                    source.clear();
                }
                stack.push(Open {
                    kind,
                    name: xml::tag_name(&e),
                });
            }
            Event::Empty(e) => {
                let kind = open(&e, line, &stack, &mut class, &mut files)?;
                if kind == Kind::Class {
                    close_class(&mut class, &mut files);
                }
            }
            Event::End(_) => match stack.pop().map(|o| o.kind) {
                Some(Kind::Class) => close_class(&mut class, &mut files),
                Some(Kind::Source) if in_sources(&stack) => {
                    let root = source.trim();
                    if !root.is_empty() {
                        roots.push(root.to_string());
                    }
                }
                _ => {}
            },
            Event::Text(t) if top(&stack) == Some(Kind::Source) => {
                source.push_str(&t.xml_content(quick_xml::XmlVersion::Implicit1_0));
            }
            Event::CData(t) if top(&stack) == Some(Kind::Source) => {
                source.push_str(&t.xml_content(quick_xml::XmlVersion::Implicit1_0));
            }
            Event::GeneralRef(r) if top(&stack) == Some(Kind::Source) => {
                source.push_str(&xml::reference(&r, line)?);
            }
            Event::Eof => {
                if let Some(innermost) = stack.last() {
                    return Err(xml::unexpected_eof(data, &innermost.name));
                }
                return Ok((files, roots));
            }
            _ => {}
        }
    }
}

/// Handles an opening (or empty) element and says what kind it is.
fn open(
    e: &BytesStart<'_>,
    line: usize,
    stack: &[Open],
    class: &mut Option<(String, Vec<(u32, u64)>)>,
    files: &mut Vec<FileHits>,
) -> Result<Kind, Fail> {
    let kind = match e.local_name().as_ref() {
        "sources" => Kind::Sources,
        "source" => Kind::Source,
        "class" => {
            let filename = xml::required(e, "filename", line)?;
            // A class inside a class is not Cobertura; keep what the outer one had.
            close_class(class, files);
            *class = Some((filename.into_owned(), Vec::new()));
            Kind::Class
        }
        "lines" => Kind::Lines,
        "line" => {
            let direct = matches!(
                stack,
                [.., parent, child] if parent.kind == Kind::Class && child.kind == Kind::Lines
            );
            if direct {
                let number: u32 = xml::number(e, "number", line)?;
                let hits: u64 = xml::number(e, "hits", line)?;
                if let Some((_, lines)) = class.as_mut() {
                    if number > 0 {
                        lines.push((number, hits));
                    }
                }
            }
            Kind::Other
        }
        _ => Kind::Other,
    };
    Ok(kind)
}

fn close_class(class: &mut Option<(String, Vec<(u32, u64)>)>, files: &mut Vec<FileHits>) {
    if let Some((path, lines)) = class.take() {
        files.push(FileHits::new(path, lines));
    }
}

fn top(stack: &[Open]) -> Option<Kind> {
    stack.last().map(|o| o.kind)
}

/// Whether the element just closed sat directly in `<sources>`.
fn in_sources(stack: &[Open]) -> bool {
    top(stack) == Some(Kind::Sources)
}
