//! YARD (Ruby): `@param name [Types] description`, or with the types first
//! (`@param [Types] name description`), both of which YARD reads; `@return [Types]
//! description`; `@raise [ExceptionClass] description` (and `@raises`, `@throws`, which
//! some projects write). A types list is kept as written inside its brackets
//! (`String, nil`). `@yield`, `@yieldparam` and `@yieldreturn` describe the block the method
//! calls, not its parameters or return, and go to `others` with `@option`, `@example`,
//! `@note`, `@see`, directives (`@!attribute`) and the rest.
//!
//! ```
//! use codemine_docstring::{parse, Language};
//!
//! let d = parse("Converts.\n@param format [Symbol] the format\n@return [String, nil] the text", Language::Ruby);
//! assert_eq!(d.params[0].type_name.as_deref(), Some("Symbol"));
//! assert_eq!(d.returns.unwrap().type_name.as_deref(), Some("String, nil"));
//! ```

use crate::model::{DocstringParams, Other, Param, Raise, Returns, Style};
use crate::tags::{self, delimited, param_name, word, Opener};

pub(crate) fn parse(text: &str) -> DocstringParams {
    let t = tags::split(text, Opener::AtOrDirective);
    let mut out = DocstringParams::default();
    for b in &t.blocks {
        match b.tag {
            "param" => match param(&b.body) {
                Some(p) => out.params.push(p),
                None => out.others.push(other(b.tag, &b.body)),
            },
            "return" | "returns" => {
                let (type_name, desc) = types(&b.body);
                out.push_return(
                    b.tag,
                    Returns {
                        type_name,
                        description: desc.to_string(),
                    },
                );
            }
            "raise" | "raises" | "throws" | "throw" => {
                let (type_name, desc) = types(&b.body);
                out.raises.push(Raise {
                    type_name,
                    description: desc.to_string(),
                });
            }
            _ => out.others.push(other(b.tag, &b.body)),
        }
    }
    out.finish(Style::Yard)
}

fn other(section: &str, text: &str) -> Other {
    Other {
        section: section.to_string(),
        text: text.to_string(),
    }
}

/// A leading `[Types]` list and the rest.
fn types(body: &str) -> (Option<String>, &str) {
    match delimited(body, '[', ']') {
        Some((t, rest)) => ((!t.is_empty()).then(|| t.to_string()), rest),
        None => (None, body.trim()),
    }
}

fn param(body: &str) -> Option<Param> {
    let (type_name, name, desc) = if body.trim_start().starts_with('[') {
        let (t, rest) = types(body);
        let (name, desc) = word(rest);
        (t, name, desc)
    } else {
        let (name, rest) = word(body);
        let (t, desc) = types(rest);
        (t, name, desc)
    };
    let name = param_name(name);
    if name.is_empty() {
        return None;
    }
    Some(Param {
        name: name.to_string(),
        type_name,
        description: desc.to_string(),
    })
}
