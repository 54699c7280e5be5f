//! Javadoc (Java): block tags after the main description, per the JDK's Documentation
//! Comment Specification: `@param name description` (`@param <T>` for a type parameter),
//! `@return description`, `@throws Type description` and its synonym `@exception`, and
//! every other block tag (`@see`, `@since`, `@deprecated`, `@author`...) as `others`. The
//! inline `{@return description}` that opens a main description (JDK 16) is the return when
//! no `@return` block says it.
//!
//! ```
//! use codemine_docstring::{parse, Language};
//!
//! let d = parse("Adds.\n@param a the first\n@throws IOException on error", Language::Java);
//! assert_eq!(d.params[0].name, "a");
//! assert_eq!(d.raises[0].type_name.as_deref(), Some("IOException"));
//! ```

use crate::model::{DocstringParams, Other, Param, Raise, Returns, Style};
use crate::tags::{self, delimited, param_name, word, Opener};

pub(crate) fn parse(text: &str) -> DocstringParams {
    let t = tags::split(text, Opener::At);
    let mut out = DocstringParams::default();
    for b in &t.blocks {
        match b.tag {
            "param" => {
                let (name, desc) = word(&b.body);
                let name = param_name(name);
                if name.is_empty() {
                    out.others.push(other(b.tag, &b.body));
                } else {
                    out.params.push(Param {
                        name: name.to_string(),
                        type_name: None,
                        description: desc.to_string(),
                    });
                }
            }
            "return" | "returns" => out.push_return(
                b.tag,
                Returns {
                    type_name: None,
                    description: b.body.clone(),
                },
            ),
            "throws" | "exception" => {
                let (ty, desc) = word(&b.body);
                out.raises.push(Raise {
                    type_name: (!ty.is_empty()).then(|| ty.to_string()),
                    description: desc.to_string(),
                });
            }
            _ => out.others.push(other(b.tag, &b.body)),
        }
    }
    if out.returns.is_none() {
        if let Some(r) = inline_return(&t.description) {
            out.returns = Some(r);
        }
    }
    out.finish(Style::Javadoc)
}

fn other(section: &str, text: &str) -> Other {
    Other {
        section: section.to_string(),
        text: text.to_string(),
    }
}

/// `{@return description}` at the start of the main description.
fn inline_return(description: &[&str]) -> Option<Returns> {
    let joined = description.join("\n");
    let start = joined.trim_start();
    if !start.starts_with("{@return") {
        return None;
    }
    let (inner, _) = delimited(start, '{', '}')?;
    let desc = inner.strip_prefix("@return")?;
    Some(Returns {
        type_name: None,
        description: desc.trim().to_string(),
    })
}
