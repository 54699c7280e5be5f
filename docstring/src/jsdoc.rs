//! JSDoc (JavaScript and TypeScript, TSDoc too): `@param {Type} name description`, with the
//! type optional, the name in brackets when optional (`[name]`, `[name=default]`), and an
//! optional `-` before the description; `@arg` and `@argument` are synonyms. `@returns` /
//! `@return {Type} description`, `@yields` (a generator's values: the return when there is
//! no `@returns`), `@throws` / `@exception {Type} description` (a free-text `@throws`
//! has no type). A Closure-style optional type (`{string=}`) loses its `=`. `@property`,
//! `@typedef`, `@example` and the other tags go to `others`; `@description`, `@desc` and
//! `@summary` are the main description, not a section.
//!
//! ```
//! use codemine_docstring::{parse, Language};
//!
//! let d = parse("@param {string} [name=\"x\"] - who\n@returns {Promise<void>} done", Language::JavaScript);
//! assert_eq!(d.params[0].name, "name");
//! assert_eq!(d.params[0].type_name.as_deref(), Some("string"));
//! assert_eq!(d.returns.unwrap().type_name.as_deref(), Some("Promise<void>"));
//! ```

use crate::model::{DocstringParams, Other, Param, Raise, Returns, Style};
use crate::tags::{self, delimited, drop_separator, param_name, word, Opener};

pub(crate) fn parse(text: &str) -> DocstringParams {
    let t = tags::split(text, Opener::At);
    let mut out = DocstringParams::default();
    for b in &t.blocks {
        match b.tag {
            "param" | "arg" | "argument" => match param(&b.body) {
                Some(p) => out.params.push(p),
                None => out.others.push(other(b.tag, &b.body)),
            },
            "returns" | "return" | "yields" | "yield" => {
                let (type_name, desc) = typed(&b.body);
                out.push_return(
                    b.tag,
                    Returns {
                        type_name,
                        description: drop_separator(desc).to_string(),
                    },
                );
            }
            "throws" | "exception" => {
                let (type_name, desc) = typed(&b.body);
                out.raises.push(Raise {
                    type_name,
                    description: drop_separator(desc).to_string(),
                });
            }
            "description" | "desc" | "summary" => {}
            _ => out.others.push(other(b.tag, &b.body)),
        }
    }
    out.finish(Style::Jsdoc)
}

fn other(section: &str, text: &str) -> Other {
    Other {
        section: section.to_string(),
        text: text.to_string(),
    }
}

/// A leading `{Type}` and the rest. `{@link E}` (TSDoc's `@throws {@link E}`) names `E`.
fn typed(body: &str) -> (Option<String>, &str) {
    match delimited(body, '{', '}') {
        Some((t, rest)) => {
            let t = t.strip_prefix("@link").map_or(t, str::trim);
            let t = t.strip_suffix('=').unwrap_or(t).trim();
            ((!t.is_empty()).then(|| t.to_string()), rest)
        }
        None => (None, body),
    }
}

/// `{Type} name desc`, `{Type} [name=default] - desc`, `name desc`.
fn param(body: &str) -> Option<Param> {
    let (type_name, rest) = typed(body);
    let (name, desc) = if rest.starts_with('[') {
        let (inner, desc) = delimited(rest, '[', ']')?;
        let name = inner.split_once('=').map_or(inner, |(n, _)| n).trim();
        (name, desc)
    } else {
        let (name, desc) = word(rest);
        (param_name(name), desc)
    };
    if name.is_empty() {
        return None;
    }
    Some(Param {
        name: name.to_string(),
        type_name,
        description: drop_separator(desc).to_string(),
    })
}
