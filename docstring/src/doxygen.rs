//! Doxygen (C and C++), commands written `@cmd` or `\cmd` at the start of a line:
//! `\param[in,out] name description` (the direction dropped; `\param x,y description`
//! documents both, as Doxygen allows), `\return` / `\returns` / `\result`, `\throw` /
//! `\throws` / `\exception Type description`. `\brief`, `\short` and `\details` are the
//! description, not sections; `\retval VALUE description`, `\tparam`, `\note`, `\see`,
//! `\pre`, `\code ... \endcode` and the other commands go to `others`. Javadoc-style
//! comments in C and C++ are Doxygen's `@` spelling and read the same.
//!
//! ```
//! use codemine_docstring::{parse, Language};
//!
//! let d = parse("\\brief Copies.\n\\param[out] dst where\n\\param[in] src what\n\\return bytes copied", Language::C);
//! assert_eq!(d.params[0].name, "dst");
//! assert_eq!(d.returns.unwrap().description, "bytes copied");
//! ```

use crate::model::{DocstringParams, Other, Param, Raise, Returns, Style};
use crate::tags::{self, delimited, param_name, word, Opener};

pub(crate) fn parse(text: &str) -> DocstringParams {
    let t = tags::split(text, Opener::AtOrBackslash);
    let mut out = DocstringParams::default();
    for b in &t.blocks {
        match b.tag {
            "param" => {
                // `[in]`, `[out]`, `[in,out]` right after the command.
                let body = match delimited(&b.body, '[', ']') {
                    Some((_, rest)) => rest,
                    None => b.body.as_str(),
                };
                let (names, desc) = word(body);
                let names = param_name(names);
                let mut any = false;
                for name in names.split(',').map(str::trim).filter(|n| !n.is_empty()) {
                    any = true;
                    out.params.push(Param {
                        name: name.to_string(),
                        type_name: None,
                        description: desc.to_string(),
                    });
                }
                if !any {
                    out.others.push(other(b.tag, &b.body));
                }
            }
            "return" | "returns" | "result" => out.push_return(
                b.tag,
                Returns {
                    type_name: None,
                    description: b.body.clone(),
                },
            ),
            "throw" | "throws" | "exception" => {
                let (ty, desc) = word(&b.body);
                out.raises.push(Raise {
                    type_name: (!ty.is_empty()).then(|| ty.to_string()),
                    description: desc.to_string(),
                });
            }
            "brief" | "short" | "details" => {}
            _ => out.others.push(other(b.tag, &b.body)),
        }
    }
    out.finish(Style::Doxygen)
}

fn other(section: &str, text: &str) -> Other {
    Other {
        section: section.to_string(),
        text: text.to_string(),
    }
}
