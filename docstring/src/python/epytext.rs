//! Epytext fields (`@param x: desc`, `@type x: int`, `@return: desc`, `@rtype: int`,
//! `@raise ValueError: desc`), as docstring-parser 0.18's `epydoc.py` reads them: the fields
//! start at the first line that opens with `@`; each field is recognised by the first of
//! its patterns found anywhere in it (param, attribute, raise, return, any other field);
//! `@type`/`@rtype` and their description fields are merged by name.

use std::collections::HashMap;
use std::sync::LazyLock;

use regex::Regex;

use super::{chunks, line_starts_with, tidy_lines, Failed, Meta};
use crate::text::{cleandoc, py_strip};

/// `[_A-z]` is docstring-parser's own class (it spans `[\]^_` and the backtick too);
/// Python's `\s` includes U+001C..1F.
fn pattern(p: &str) -> Regex {
    Regex::new(&p.replace(r"\s", r"[\s\x1c-\x1f]")).expect("a constant pattern")
}

static PARAM: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(param|keyword|type)(\s+[_A-z][_A-z0-9]*\??):"));
static ATTRIBUTE: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(ivar|cvar|var)(\s+[_A-z][_A-z0-9]*\??):"));
static RAISE: LazyLock<Regex> = LazyLock::new(|| pattern(r"(raise)(\s+[_A-z][_A-z0-9]*\??)?:"));
static RETURN: LazyLock<Regex> = LazyLock::new(|| pattern(r"(return|rtype|yield|ytype):"));
static META: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"([_A-z][_A-z0-9]+)((\s+[_A-z][_A-z0-9]*\??)*):"));

#[derive(Clone, Copy, PartialEq, Eq)]
enum Base {
    Param,
    Attribute,
    Raise,
    Return,
    Meta,
}

struct Field {
    base: Base,
    key: String,
    args: Vec<String>,
    desc: String,
}

/// What the fields say about one name (or `return`): merged across `@param`/`@type`.
#[derive(Default)]
struct Info {
    name: String,
    type_name: Option<String>,
    description: Option<String>,
    is_generator: Option<bool>,
    done: bool,
}

pub(super) fn parse(text: &str) -> Result<Vec<Meta>, Failed> {
    let text = cleandoc(text);
    let starts = line_starts_with(&text, '@');
    let mut stream: Vec<Field> = Vec::new();
    for chunk in chunks(&text, &starts) {
        let found = [
            (Base::Param, &*PARAM),
            (Base::Attribute, &*ATTRIBUTE),
            (Base::Raise, &*RAISE),
            (Base::Return, &*RETURN),
            (Base::Meta, &*META),
        ]
        .into_iter()
        .find_map(|(base, re)| re.captures(chunk).map(|c| (base, c)));
        let (base, c) = found.ok_or(Failed)?;
        let whole = c.get(0).ok_or(Failed)?;
        let key = c.get(1).map_or("", |m| m.as_str()).to_string();
        let group2 = c.get(2).map(|m| py_strip(m.as_str()).to_string());
        let args = match base {
            Base::Param | Base::Attribute => vec![group2.unwrap_or_default()],
            Base::Raise => group2.into_iter().collect(),
            Base::Return => Vec::new(),
            Base::Meta => {
                // A known field that only the catch-all pattern matched is malformed.
                const KNOWN: [&str; 10] = [
                    "param", "ivar", "cvar", "var", "keyword", "type", "return", "rtype", "yield",
                    "ytype",
                ];
                if KNOWN.contains(&key.as_str()) {
                    return Err(Failed);
                }
                group2
                    .map(|t| crate::text::py_words(&t).map(str::to_string).collect())
                    .unwrap_or_default()
            }
        };
        let desc = tidy_lines(py_strip(&chunk[whole.end()..]));
        stream.push(Field {
            base,
            key,
            args,
            desc,
        });
    }

    // Types and descriptions by name, `return` for the return.
    let mut infos = Infos::default();
    for f in &stream {
        if !matches!(f.base, Base::Param | Base::Attribute | Base::Return) {
            continue;
        }
        let name = f.args.first().map_or("return", String::as_str);
        let info = infos.get(name);
        if f.key.contains("type") {
            info.type_name = Some(f.desc.clone());
        } else {
            info.description = Some(f.desc.clone());
        }
        if f.base == Base::Return {
            let generator = matches!(f.key.as_str(), "ytype" | "yield");
            if *info.is_generator.get_or_insert(generator) != generator {
                return Err(Failed);
            }
        }
    }

    let mut metas = Vec::new();
    for f in &stream {
        match f.base {
            Base::Param | Base::Attribute => {
                let name = f.args.first().map_or("", String::as_str);
                let info = infos.get(name);
                if info.done {
                    continue;
                }
                info.done = true;
                let type_name = info
                    .type_name
                    .as_deref()
                    .filter(|t| !t.is_empty())
                    .map(|t| t.strip_suffix('?').unwrap_or(t).to_string());
                metas.push(Meta::Param {
                    key: if f.base == Base::Attribute {
                        f.key.clone()
                    } else {
                        param_key(&f.key)
                    },
                    name: info.name.clone(),
                    type_name,
                    desc: info.description.clone(),
                });
            }
            Base::Return => {
                let info = infos.get("return");
                if info.done {
                    continue;
                }
                info.done = true;
                metas.push(Meta::Returns {
                    key: f.key.clone(),
                    type_name: info.type_name.clone(),
                    desc: info.description.clone(),
                });
            }
            Base::Raise => metas.push(Meta::Raises {
                key: f.key.clone(),
                type_name: f.args.first().cloned(),
                desc: Some(f.desc.clone()),
            }),
            Base::Meta => {
                let mut section = vec![f.key.clone()];
                section.extend(f.args.iter().cloned());
                metas.push(Meta::Other {
                    section: section.join(" "),
                    desc: Some(f.desc.clone()),
                });
            }
        }
    }
    Ok(metas)
}

/// The key an epytext parameter field maps to: `@type x:` documents the parameter `x`.
fn param_key(key: &str) -> String {
    match key {
        "type" => "param".to_string(),
        k => k.to_string(),
    }
}

/// The infos by name, in a map so that many fields stay linear.
#[derive(Default)]
struct Infos {
    by_name: HashMap<String, Info>,
}

impl Infos {
    fn get(&mut self, name: &str) -> &mut Info {
        self.by_name
            .entry(name.to_string())
            .or_insert_with(|| Info {
                name: name.to_string(),
                ..Info::default()
            })
    }
}
