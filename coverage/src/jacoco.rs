//! JaCoCo XML: `<report><package name="org/foo"><sourcefile name="Foo.java">
//! <line nr="N" mi="M" ci="C" mb=".." cb=".."/>`, optionally inside `<group>`s. JaCoCo
//! counts instructions, not executions, so a line gets 1 hit when any of its instructions
//! ran (`ci > 0`) and 0 when none did but some exist (`mi > 0`); see the module docs.

use quick_xml::events::{BytesStart, Event};

use super::xml::{self, Xml};
use super::{Fail, FileHits};

/// One record per `<sourcefile>`, its path `package/name`.
pub(super) fn parse(data: &[u8]) -> Result<Vec<FileHits>, Fail> {
    let mut xml = Xml::new(data)?;
    // Open element names, and the package and sourcefile being read.
    let mut stack: Vec<String> = Vec::new();
    let mut package: Option<String> = None;
    let mut source: Option<(String, Vec<(u32, u64)>)> = None;
    let mut files = Vec::new();
    loop {
        let (event, line) = xml.next()?;
        match event {
            Event::Start(e) => {
                open(&e, line, &package, &mut source, &mut files)?;
                if e.local_name().as_ref() == "package" {
                    package = Some(xml::required(&e, "name", line)?.into_owned());
                }
                stack.push(xml::tag_name(&e));
            }
            Event::Empty(e) => {
                open(&e, line, &package, &mut source, &mut files)?;
                close(
                    e.local_name().as_ref(),
                    &mut package,
                    &mut source,
                    &mut files,
                );
            }
            Event::End(e) => {
                stack.pop();
                close(
                    e.local_name().as_ref(),
                    &mut package,
                    &mut source,
                    &mut files,
                );
            }
            Event::Eof => {
                if let Some(innermost) = stack.last() {
                    return Err(xml::unexpected_eof(data, innermost));
                }
                return Ok(files);
            }
            _ => {}
        }
    }
}

fn open(
    e: &BytesStart<'_>,
    line: usize,
    package: &Option<String>,
    source: &mut Option<(String, Vec<(u32, u64)>)>,
    files: &mut Vec<FileHits>,
) -> Result<(), Fail> {
    match e.local_name().as_ref() {
        "sourcefile" => {
            let name = xml::required(e, "name", line)?;
            let Some(package) = package else {
                return Err(Fail::new(line, "<sourcefile> outside a <package>"));
            };
            // The default package has an empty name.
            let path = if package.is_empty() {
                name.into_owned()
            } else {
                format!("{package}/{name}")
            };
            finish(source, files);
            *source = Some((path, Vec::new()));
        }
        "line" => {
            if let Some((_, lines)) = source.as_mut() {
                let nr: u32 = xml::number(e, "nr", line)?;
                let missed: u64 = xml::number(e, "mi", line)?;
                let covered: u64 = xml::number(e, "ci", line)?;
                if nr > 0 && covered > 0 {
                    lines.push((nr, 1));
                } else if nr > 0 && missed > 0 {
                    lines.push((nr, 0));
                }
            }
        }
        _ => {}
    }
    Ok(())
}

fn close(
    name: &str,
    package: &mut Option<String>,
    source: &mut Option<(String, Vec<(u32, u64)>)>,
    files: &mut Vec<FileHits>,
) {
    match name {
        "sourcefile" => finish(source, files),
        "package" => *package = None,
        _ => {}
    }
}

fn finish(source: &mut Option<(String, Vec<(u32, u64)>)>, files: &mut Vec<FileHits>) {
    if let Some((path, lines)) = source.take() {
        files.push(FileHits::new(path, lines));
    }
}
