//! The predictions of an execution run: JSON lines `{"id": ..., "samples": ["...", ...]}`
//! (or `"prediction": "..."` for one sample), read one line at a time from a regular file of
//! bounded size. Every line's id must be new; an id is compared without regard to case
//! (YABLoCo ids are hexadecimal).

use std::io::{BufRead, BufReader};
use std::path::Path;

use serde_json::Value;

use crate::Error;

/// Largest predictions file.
pub const MAX_BYTES: u64 = 4 << 30;

/// One line: an id (upper case) and its samples, with the line's number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prediction {
    pub id: String,
    pub samples: Vec<String>,
    pub line: usize,
}

/// Reads every prediction of `path`.
pub fn read(path: &Path) -> Result<Vec<Prediction>, Error> {
    let f = codemine_io::open_regular(path, codemine_io::Follow::Yes).map_err(|e| Error::Io {
        path: path.to_path_buf(),
        what: "opening",
        source: e.into(),
    })?;
    let limited = codemine_io::Limited::new(f, MAX_BYTES);
    let mut out: Vec<Prediction> = Vec::new();
    let mut seen = std::collections::HashMap::new();
    for (i, line) in BufReader::new(limited).split(b'\n').enumerate() {
        let n = i + 1;
        let err = |reason: String| Error::Predictions {
            path: path.to_path_buf(),
            line: n,
            reason,
        };
        let bytes = line.map_err(|e| Error::Io {
            path: path.to_path_buf(),
            what: "reading",
            source: codemine_io::ReadError::from_stream(e).into(),
        })?;
        let text = String::from_utf8(bytes).map_err(|_| err("not UTF-8".into()))?;
        if text.trim().is_empty() {
            continue;
        }
        let v: Value = serde_json::from_str(&text).map_err(|e| err(format!("not JSON: {e}")))?;
        let id = match v.get("id") {
            Some(Value::String(s)) => s.to_ascii_uppercase(),
            Some(other) => return Err(err(format!("`id` is {other}, not a string"))),
            None => return Err(err("no `id` field".into())),
        };
        let samples = match (v.get("samples"), v.get("prediction")) {
            (Some(Value::Array(a)), None) => a
                .iter()
                .enumerate()
                .map(|(k, s)| match s {
                    Value::String(s) => Ok(s.clone()),
                    other => Err(err(format!("sample {k} is {other}, not a string"))),
                })
                .collect::<Result<Vec<_>, _>>()?,
            (None, Some(Value::String(s))) => vec![s.clone()],
            (Some(_), Some(_)) => {
                return Err(err("both `samples` and `prediction`: give one".into()))
            }
            (Some(other), None) => {
                return Err(err(format!("`samples` is {other}, not a list of strings")))
            }
            (None, Some(other)) => {
                return Err(err(format!("`prediction` is {other}, not a string")))
            }
            (None, None) => return Err(err("no `samples` (or `prediction`) field".into())),
        };
        if samples.is_empty() {
            return Err(err("`samples` is empty".into()));
        }
        if let Some(first) = seen.insert(id.clone(), n) {
            return Err(err(format!("id {id} again (first at line {first})")));
        }
        out.push(Prediction {
            id,
            samples,
            line: n,
        });
    }
    Ok(out)
}
