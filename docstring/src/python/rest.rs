//! reST/Sphinx field lists (`:param int x: desc`, `:type x: int`, `:returns: desc`,
//! `:rtype: int`, `:raises ValueError: desc`), as docstring-parser 0.18's `rest.py` reads
//! them: the fields start at the first line that opens with `:`, each field runs to the
//! next such line, `:type` and `:rtype` fill in the types of the parameters and the return.

use std::collections::HashMap;

use super::{chunks, line_starts_with, tidy_lines, Failed, Meta};
use crate::text::{cleandoc, py_strip, py_words};

const PARAM_KEYWORDS: [&str; 7] = [
    "param",
    "parameter",
    "arg",
    "argument",
    "attribute",
    "key",
    "keyword",
];
const RETURN_KEYWORDS: [&str; 4] = ["return", "returns", "yield", "yields"];
const RAISE_KEYWORDS: [&str; 4] = ["raises", "raise", "except", "exception"];

pub(super) fn parse(text: &str) -> Result<Vec<Meta>, Failed> {
    let text = cleandoc(text);
    let starts = line_starts_with(&text, ':');
    let mut metas = Vec::new();
    let mut types: HashMap<String, String> = HashMap::new();
    // `:rtype:` by return name, in the order first given (a dict); reST returns have no
    // name, so only the unnamed one is looked up.
    let mut rtypes: Vec<(Option<String>, String)> = Vec::new();
    for chunk in chunks(&text, &starts) {
        let (args_chunk, desc_chunk) = chunk
            .trim_start_matches(':')
            .split_once(':')
            .ok_or(Failed)?;
        let args: Vec<&str> = py_words(args_chunk).collect();
        let desc = tidy_lines(py_strip(desc_chunk));
        match args.as_slice() {
            ["type", name] => {
                types.insert(name.to_string(), desc);
            }
            ["rtype"] => set(&mut rtypes, None, desc),
            ["rtype", name] => set(&mut rtypes, Some(name.to_string()), desc),
            _ => metas.push(build(&args, desc)?),
        }
    }
    for m in metas.iter_mut() {
        match m {
            Meta::Param {
                name, type_name, ..
            } if type_name.is_none() => {
                *type_name = types.get(name.as_str()).cloned();
            }
            Meta::Returns { type_name, .. } if type_name.is_none() => {
                *type_name = rtypes
                    .iter()
                    .find(|(n, _)| n.is_none())
                    .map(|(_, t)| t.clone());
            }
            _ => {}
        }
    }
    if !metas.iter().any(|m| matches!(m, Meta::Returns { .. })) {
        for (_, t) in rtypes {
            metas.push(Meta::Returns {
                key: "rtype".to_string(),
                type_name: Some(t),
                desc: None,
            });
        }
    }
    Ok(metas)
}

/// A dict assignment: a key seen again keeps its place and takes the new value. The keys
/// are `:rtype` names, which a docstring has one or two of.
fn set(map: &mut Vec<(Option<String>, String)>, key: Option<String>, value: String) {
    match map.iter_mut().find(|(k, _)| *k == key) {
        Some(e) => e.1 = value,
        None => map.push((key, value)),
    }
}

/// `rest.py`'s `_build_meta`.
fn build(args: &[&str], desc: String) -> Result<Meta, Failed> {
    // `args` is empty for a line such as `: text`; docstring-parser then fails with an
    // IndexError (not a ParseError), which here simply rejects the style.
    let key = *args.first().ok_or(Failed)?;
    if PARAM_KEYWORDS.contains(&key) {
        let (name, type_name) = match args {
            [_, t, n] => (
                n.to_string(),
                Some(t.strip_suffix('?').unwrap_or(t).to_string()),
            ),
            [_, n] => (n.to_string(), None),
            _ => return Err(Failed),
        };
        return Ok(Meta::Param {
            key: key.to_string(),
            name,
            type_name,
            desc: Some(desc),
        });
    }
    if RETURN_KEYWORDS.contains(&key) {
        let type_name = match args {
            [_, t] => Some(t.to_string()),
            [_] => None,
            _ => return Err(Failed),
        };
        return Ok(Meta::Returns {
            key: key.to_string(),
            type_name,
            desc: Some(desc),
        });
    }
    if RAISE_KEYWORDS.contains(&key) {
        let type_name = match args {
            [_, t] => Some(t.to_string()),
            [_] => None,
            _ => return Err(Failed),
        };
        return Ok(Meta::Raises {
            key: key.to_string(),
            type_name,
            desc: Some(desc),
        });
    }
    Ok(Meta::Other {
        section: args.join(" "),
        desc: Some(desc),
    })
}
