//! PHPDoc (PSR-5 draft, phpDocumentor): `@param Type $name description` (the type may be
//! left out, `&$name` is by reference, `...$name` variadic; the name is kept without `$`,
//! `&` and `...`), `@return Type description`, `@throws Type description` (and
//! `@exception`). Types may hold spaces inside brackets (`array<int, string>`,
//! `array{a: int}`) and PHPStan's callable types (`callable(int): bool`). Other tags
//! (`@var`, `@see`, `@since`, `@deprecated`, `@inheritDoc`...) go to `others`.
//!
//! ```
//! use codemine_docstring::{parse, Language};
//!
//! let d = parse("Sends.\n@param array<string, mixed> $options the options\n@return void", Language::Php);
//! assert_eq!(d.params[0].name, "options");
//! assert_eq!(d.params[0].type_name.as_deref(), Some("array<string, mixed>"));
//! ```

use crate::model::{DocstringParams, Other, Param, Raise, Returns, Style};
use crate::tags::{self, type_token, word, Opener};

pub(crate) fn parse(text: &str) -> DocstringParams {
    let t = tags::split(text, Opener::At);
    let mut out = DocstringParams::default();
    for b in &t.blocks {
        match b.tag {
            "param" => match param(&b.body) {
                Some(p) => out.params.push(p),
                None => out.others.push(other(b.tag, &b.body)),
            },
            "return" | "returns" => {
                let (type_name, desc) = php_type(&b.body);
                out.push_return(
                    b.tag,
                    Returns {
                        type_name,
                        description: desc.to_string(),
                    },
                );
            }
            "throws" | "throw" | "exception" => {
                let (type_name, desc) = php_type(&b.body);
                out.raises.push(Raise {
                    type_name,
                    description: desc.to_string(),
                });
            }
            _ => out.others.push(other(b.tag, &b.body)),
        }
    }
    out.finish(Style::Phpdoc)
}

fn other(section: &str, text: &str) -> Other {
    Other {
        section: section.to_string(),
        text: text.to_string(),
    }
}

fn is_variable(token: &str) -> bool {
    token
        .trim_start_matches('&')
        .trim_start_matches("...")
        .starts_with('$')
}

/// The type at the start of `body` and the rest; a callable's return type after `:` is
/// part of it (`callable(int): bool`).
fn php_type(body: &str) -> (Option<String>, &str) {
    let (ty, rest) = type_token(body);
    if ty.ends_with(':') && !rest.is_empty() {
        let (ret, after) = type_token(rest);
        return (Some(format!("{ty} {ret}")), after);
    }
    ((!ty.is_empty()).then(|| ty.to_string()), rest)
}

/// `Type $name desc` or `$name desc`; `None` without a `$name`.
fn param(body: &str) -> Option<Param> {
    let (first, _) = word(body);
    let (type_name, rest) = if is_variable(first) {
        (None, body)
    } else {
        php_type(body)
    };
    let (var, desc) = word(rest);
    if !is_variable(var) {
        return None;
    }
    let name = tags::param_name(var)
        .trim_start_matches('&')
        .trim_start_matches("...")
        .trim_start_matches('$');
    Some(Param {
        name: name.to_string(),
        type_name,
        description: desc.to_string(),
    })
}
