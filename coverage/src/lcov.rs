//! LCOV tracefiles (lcov/geninfo, `llvm-cov export -format=lcov`, coverage.py, gcovr):
//! `SF:` opens a record, `DA:line,hits[,checksum]` gives a line, `end_of_record` closes
//! it. Every other key is ignored. Parsed byte by byte: tracefiles of large C projects run
//! to hundreds of megabytes.

use super::{eof_line, preview, Fail, FileHits};

/// The record being read.
struct Record {
    path: String,
    /// The line of its `SF:`.
    opened_at: usize,
    lines: Vec<(u32, u64)>,
}

/// The records of a tracefile, in order.
pub(super) fn parse(data: &[u8]) -> Result<Vec<FileHits>, Fail> {
    let mut files = Vec::new();
    let mut open: Option<Record> = None;
    for (i, raw) in data.split(|&b| b == b'\n').enumerate() {
        let line_no = i + 1;
        let line = raw.trim_ascii();
        if line.is_empty() {
            continue;
        }
        if let Some(value) = line.strip_prefix(b"DA:") {
            let Some(record) = open.as_mut() else {
                return Err(Fail::new(
                    line_no,
                    "DA: outside a record (no SF: before it)",
                ));
            };
            let (line, hits) = parse_da(value).map_err(|why| Fail::new(line_no, why))?;
            // Line 0 is not a source line (some gcov versions attribute compiler-made
            // code to it); it can be part of no function.
            if line > 0 {
                record.lines.push((line, hits));
            }
        } else if let Some(value) = line.strip_prefix(b"SF:") {
            if let Some(record) = &open {
                return Err(Fail::new(
                    line_no,
                    format!(
                        "SF: before the end_of_record of the record for {} (SF: at line {})",
                        record.path, record.opened_at
                    ),
                ));
            }
            let path = std::str::from_utf8(value)
                .map_err(|_| Fail::new(line_no, "SF: path is not valid UTF-8"))?;
            if path.is_empty() {
                return Err(Fail::new(line_no, "SF: with an empty path"));
            }
            open = Some(Record {
                path: path.to_string(),
                opened_at: line_no,
                lines: Vec::new(),
            });
        } else if line == b"end_of_record" {
            let Some(record) = open.take() else {
                return Err(Fail::new(
                    line_no,
                    "end_of_record without a record (no SF: before it)",
                ));
            };
            files.push(FileHits::new(record.path, record.lines));
        } else if !is_key_line(line) {
            return Err(Fail::new(
                line_no,
                format!("not an LCOV line: {:?}", preview(line)),
            ));
        }
    }
    if let Some(record) = open {
        return Err(Fail::new(
            eof_line(data),
            format!(
                "unexpected end of file: the record for {} (SF: at line {}) has no end_of_record",
                record.path, record.opened_at
            ),
        ));
    }
    Ok(files)
}

/// `KEY:...` with an upper-case key (TN, FN, FNDA, BRDA, LF, VER, ...): ignored.
fn is_key_line(line: &[u8]) -> bool {
    match line.iter().position(|&b| b == b':') {
        Some(colon) if colon > 0 => line[..colon].iter().all(u8::is_ascii_uppercase),
        _ => false,
    }
}

/// `line,hits[,checksum]`.
fn parse_da(value: &[u8]) -> Result<(u32, u64), String> {
    let mut parts = value.splitn(3, |&b| b == b',');
    let line = parts.next().unwrap_or_default();
    let Some(hits) = parts.next() else {
        return Err(format!(
            "DA:{} has no hit count",
            String::from_utf8_lossy(value)
        ));
    };
    let line = digits(line)
        .and_then(|n| u32::try_from(n).ok())
        .ok_or_else(|| {
            format!(
                "DA: line number {:?} is not a non-negative integer",
                String::from_utf8_lossy(line)
            )
        })?;
    let hits = digits(hits).ok_or_else(|| {
        format!(
            "DA: hit count {:?} is not a non-negative integer",
            String::from_utf8_lossy(hits)
        )
    })?;
    Ok((line, hits))
}

/// A non-empty run of ASCII digits as u64, None on anything else or on overflow.
fn digits(bytes: &[u8]) -> Option<u64> {
    if bytes.is_empty() {
        return None;
    }
    let mut n: u64 = 0;
    for &b in bytes {
        if !b.is_ascii_digit() {
            return None;
        }
        n = n.checked_mul(10)?.checked_add(u64::from(b - b'0'))?;
    }
    Some(n)
}
