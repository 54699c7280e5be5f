//! NumPy style (numpydoc): a section title underlined by as many dashes, key lines at the
//! left margin (`name : type, optional`) with their description indented below, as
//! docstring-parser 0.18's `numpydoc.py` reads it. It never rejects a text.

use std::sync::LazyLock;

use regex::Regex;

use super::Meta;
use crate::text::{cleandoc, is_py_space, py_rstrip, py_strip};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Param,
    Raises,
    Returns,
    Examples,
    Deprecation,
    Plain,
}

/// docstring-parser's `DEFAULT_SECTIONS`: title, meta key, kind.
const SECTIONS: [(&str, &str, Kind); 31] = [
    ("Parameters", "param", Kind::Param),
    ("Params", "param", Kind::Param),
    ("Arguments", "param", Kind::Param),
    ("Args", "param", Kind::Param),
    ("Other Parameters", "other_param", Kind::Param),
    ("Other Params", "other_param", Kind::Param),
    ("Other Arguments", "other_param", Kind::Param),
    ("Other Args", "other_param", Kind::Param),
    ("Receives", "receives", Kind::Param),
    ("Receive", "receives", Kind::Param),
    ("Raises", "raises", Kind::Raises),
    ("Raise", "raises", Kind::Raises),
    ("Warns", "warns", Kind::Raises),
    ("Warn", "warns", Kind::Raises),
    ("Attributes", "attribute", Kind::Param),
    ("Attribute", "attribute", Kind::Param),
    ("Returns", "returns", Kind::Returns),
    ("Return", "returns", Kind::Returns),
    ("Yields", "yields", Kind::Returns),
    ("Yield", "yields", Kind::Returns),
    ("Examples", "examples", Kind::Examples),
    ("Example", "examples", Kind::Examples),
    ("Warnings", "warnings", Kind::Plain),
    ("Warning", "warnings", Kind::Plain),
    ("See Also", "see_also", Kind::Plain),
    ("Related", "see_also", Kind::Plain),
    ("Notes", "notes", Kind::Plain),
    ("Note", "notes", Kind::Plain),
    ("References", "references", Kind::Plain),
    ("Reference", "references", Kind::Plain),
    ("deprecated", "deprecation", Kind::Deprecation),
];

/// `titles_re`: one alternative per section, in order (group `i + 1` is section `i`).
static TITLES: LazyLock<Regex> = LazyLock::new(|| {
    const S: &str = r"[\s\x1c-\x1f]";
    let alts: Vec<String> = SECTIONS
        .iter()
        .map(|(title, _, kind)| match kind {
            Kind::Deprecation => format!(r"^\.\.{S}*({}){S}*::", regex::escape(title)),
            _ => format!(
                r"^({}){S}*?\n{}{S}*$",
                regex::escape(title),
                "-".repeat(title.chars().count())
            ),
        })
        .collect();
    Regex::new(&format!("(?m){}", alts.join("|"))).expect("constant patterns")
});

pub(super) fn parse(text: &str) -> Vec<Meta> {
    let text = cleandoc(text);
    // (start, end, section) of every title.
    let titles: Vec<(usize, usize, usize)> = TITLES
        .captures_iter(&text)
        .filter_map(|c| {
            let whole = c.get(0)?;
            let section = (1..=SECTIONS.len()).find(|&g| c.get(g).is_some())? - 1;
            Some((whole.start(), whole.end(), section))
        })
        .collect();
    let mut metas = Vec::new();
    for (j, &(_, end, section)) in titles.iter().enumerate() {
        let stop = titles.get(j + 1).map_or(text.len(), |t| t.0);
        let body = &text[end..stop];
        let (_, key, kind) = SECTIONS[section];
        match kind {
            Kind::Param | Kind::Raises | Kind::Returns => {
                for (k, v) in key_values(body) {
                    metas.push(item(kind, key, k, &cleandoc(v)));
                }
            }
            Kind::Examples => examples(body, &mut metas),
            Kind::Deprecation => {
                let (version, desc) = match body.split_once('\n') {
                    Some((v, d)) => (v, clean(&cleandoc(d))),
                    None => (body, None),
                };
                let text = match (clean(version), desc) {
                    (Some(v), Some(d)) => Some(format!("{v}\n{d}")),
                    (v, d) => v.or(d),
                };
                metas.push(Meta::Other {
                    section: key.to_string(),
                    desc: text,
                });
            }
            Kind::Plain => metas.push(Meta::Other {
                section: key.to_string(),
                desc: clean(body),
            }),
        }
    }
    metas
}

/// `_clean_str`: stripped, `None` when empty.
fn clean(s: &str) -> Option<String> {
    let s = py_strip(s);
    (!s.is_empty()).then(|| s.to_string())
}

/// `_KVSection`: every line that starts with a non-space character is a key; its value is
/// the text up to the next key line.
fn key_values(body: &str) -> Vec<(&str, &str)> {
    let mut keys: Vec<(usize, usize)> = Vec::new();
    let mut pos = 0usize;
    for line in body.split('\n') {
        if line.chars().next().is_some_and(|c| !is_py_space(c)) {
            keys.push((pos, pos + line.len()));
        }
        pos += line.len() + 1;
    }
    keys.iter()
        .enumerate()
        .map(|(i, &(s, e))| {
            let stop = keys.get(i + 1).map_or(body.len(), |k| k.0);
            (&body[s..e], &body[e..stop])
        })
        .collect()
}

/// `PARAM_KEY_REGEX` / `RETURN_KEY_REGEX`: the text before the first colon (right-trimmed)
/// and after it (left-trimmed), or the whole key and `None` without a colon.
fn split_key(key: &str) -> (&str, Option<&str>) {
    match key.split_once(':') {
        Some((name, t)) => (py_rstrip(name), Some(t.trim_start_matches(is_py_space))),
        None => (key, None),
    }
}

fn item(kind: Kind, key: &str, k: &str, value: &str) -> Meta {
    let desc = clean(value);
    match kind {
        Kind::Raises => Meta::Raises {
            key: key.to_string(),
            type_name: (!k.is_empty()).then(|| k.to_string()),
            desc,
        },
        Kind::Returns => {
            let (name, type_name) = split_key(k);
            // Without a colon the whole key is the type (`RETURN_KEY_REGEX`).
            let type_name = match type_name {
                Some(t) => t,
                None => name,
            };
            Meta::Returns {
                key: key.to_string(),
                type_name: Some(type_name.to_string()),
                desc,
            }
        }
        _ => {
            let (name, type_name) = split_key(k);
            Meta::Param {
                key: key.to_string(),
                name: name.to_string(),
                type_name: type_name.map(param_type),
                desc,
            }
        }
    }
}

/// The type without `, optional` / `(optional)` at its end (`PARAM_OPTIONAL_REGEX`), then
/// without what follows `, default` / `(default)` (`PARAM_DEFAULT_REGEX`).
fn param_type(t: &str) -> String {
    let t = t
        .strip_suffix(", optional")
        .or_else(|| t.strip_suffix("(optional)"))
        .unwrap_or(t);
    let cut = [t.find(", default"), t.find("(default)")]
        .into_iter()
        .flatten()
        .min();
    match cut {
        Some(i) => t[..i].to_string(),
        None => t.to_string(),
    }
}

/// `ExamplesSection`: the dedented lines in groups of `>>>` lines and the lines after them;
/// each group is one item (docstring-parser counts them so).
fn examples(body: &str, metas: &mut Vec<Meta>) {
    let dedented = dedent(body);
    let lines: Vec<&str> = py_strip(&dedented).lines().collect();
    let mut i = 0usize;
    while i < lines.len() {
        let start = i;
        while i < lines.len() && lines[i].starts_with(">>>") {
            i += 1;
        }
        while i < lines.len() && !lines[i].starts_with(">>>") {
            i += 1;
        }
        metas.push(Meta::Other {
            section: "examples".to_string(),
            desc: Some(lines[start..i].join("\n")),
        });
    }
}

/// `textwrap.dedent`: the longest common leading whitespace of the non-blank lines goes;
/// whitespace-only lines become empty.
fn dedent(s: &str) -> String {
    let lines: Vec<&str> = s.split('\n').collect();
    let mut common: Option<&str> = None;
    for l in &lines {
        if l.trim_matches([' ', '\t']).is_empty() {
            continue;
        }
        let ws = &l[..l.len() - l.trim_start_matches([' ', '\t']).len()];
        common = Some(match common {
            None => ws,
            Some(c) => {
                let n = c
                    .bytes()
                    .zip(ws.bytes())
                    .take_while(|(a, b)| a == b)
                    .count();
                &c[..n]
            }
        });
    }
    let c = common.unwrap_or("");
    lines
        .iter()
        .map(|l| {
            if l.trim_matches([' ', '\t']).is_empty() {
                ""
            } else {
                l.strip_prefix(c).unwrap_or(l)
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}
