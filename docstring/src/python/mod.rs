//! Python docstrings: reST/Sphinx, Google, NumPy and Epytext, ported from docstring-parser
//! 0.18 (rr-/docstring_parser, `rest.py`, `google.py`, `numpydoc.py`, `epydoc.py`), and its
//! `autodetect` rule (`parser.py`'s `parse` with `DocstringStyle.AUTO`): every parser runs,
//! those that fail drop out, the one that found the most parts wins, ties going to the
//! earlier of reST, Google, NumPy, Epytext. A docstring where nothing was found is
//! [`Style::Plain`] (docstring-parser calls it reST).
//!
//! Each parser yields docstring-parser's list of "meta" items (whose count decides the
//! autodetection), which [`to_params`] maps onto the output: parameters, the first return,
//! raises, and everything else as `others`. On purpose, attributes (`:ivar:`, Google's and
//! NumPy's `Attributes`), NumPy's `Receives` and `Warns` go to `others`, where
//! docstring-parser lists them as parameters and raises: they are not the function's
//! parameters nor its exceptions.

mod epytext;
mod google;
mod numpy;
mod rest;

use crate::model::{DocstringParams, Other, Param, Raise, Returns, Style};
use crate::text::py_strip;

/// One of docstring-parser's meta items.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Meta {
    /// `DocstringParam`: `key` is its `args[0]` (`param`, `attribute`, `other_param`).
    Param {
        key: String,
        name: String,
        type_name: Option<String>,
        desc: Option<String>,
    },
    /// `DocstringReturns` (yields too: `key` says which).
    Returns {
        key: String,
        type_name: Option<String>,
        desc: Option<String>,
    },
    /// `DocstringRaises` (NumPy's `Warns` too: `key` says which).
    Raises {
        key: String,
        type_name: Option<String>,
        desc: Option<String>,
    },
    /// Any other item: `section` is its `args` joined by spaces.
    Other {
        section: String,
        desc: Option<String>,
    },
}

/// A parser's `ParseError`: the style does not fit the text, autodetection moves on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Failed;

/// The four Python styles, in docstring-parser's order (which breaks ties).
pub(crate) const STYLES: [Style; 4] = [Style::Rest, Style::Google, Style::Numpy, Style::Epytext];

/// The items `style`'s parser finds in `text`, or [`Failed`].
pub(crate) fn parse_style(text: &str, style: Style) -> Result<Vec<Meta>, Failed> {
    match style {
        Style::Rest => rest::parse(text),
        Style::Google => google::parse(text),
        Style::Numpy => Ok(numpy::parse(text)),
        Style::Epytext => epytext::parse(text),
        _ => Err(Failed),
    }
}

/// docstring-parser's autodetection over `text`: the style and its items.
pub(crate) fn autodetect(text: &str) -> (Style, Vec<Meta>) {
    let mut best: Option<(Style, Vec<Meta>)> = None;
    for style in STYLES {
        if let Ok(metas) = parse_style(text, style) {
            // Strictly more wins: on a tie the earlier style stays, as Python's stable sort
            // (reverse=True keeps equal items in order) leaves it first.
            if best.as_ref().is_none_or(|(_, b)| metas.len() > b.len()) {
                best = Some((style, metas));
            }
        }
    }
    best.unwrap_or((Style::Plain, Vec::new()))
}

/// Parses a Python docstring (the literal's value, or codemine's cleaned text).
pub(crate) fn parse(text: &str) -> DocstringParams {
    if py_strip(text).is_empty() {
        return DocstringParams::of(Style::None);
    }
    let (style, metas) = autodetect(text);
    to_params(&metas).finish(style)
}

/// Parses `text` in one Python style; a text the style rejects gives [`Style::Plain`] with
/// nothing found.
pub(crate) fn parse_as(text: &str, style: Style) -> DocstringParams {
    if py_strip(text).is_empty() {
        return DocstringParams::of(Style::None);
    }
    match parse_style(text, style) {
        Ok(metas) => to_params(&metas).finish(style),
        Err(Failed) => DocstringParams::of(Style::Plain),
    }
}

/// Parameter keys that document something other than the function's parameters.
fn is_attribute(key: &str) -> bool {
    matches!(key, "attribute" | "ivar" | "cvar" | "var" | "receives")
}

fn clean_type(t: &Option<String>) -> Option<String> {
    t.as_deref()
        .map(py_strip)
        .filter(|t| !t.is_empty())
        .map(str::to_string)
}

/// docstring-parser's items as the output shape.
pub(crate) fn to_params(metas: &[Meta]) -> DocstringParams {
    let mut out = DocstringParams::default();
    for m in metas {
        match m {
            Meta::Param {
                key,
                name,
                type_name,
                desc,
            } => {
                let type_name = clean_type(type_name);
                let description = desc.clone().unwrap_or_default();
                if is_attribute(key) {
                    let text = match &type_name {
                        Some(t) => format!("{name} ({t}): {description}"),
                        None => format!("{name}: {description}"),
                    };
                    out.others.push(Other {
                        section: key.clone(),
                        text: text.trim_end().to_string(),
                    });
                } else {
                    out.params.push(Param {
                        name: name.clone(),
                        type_name,
                        description,
                    });
                }
            }
            Meta::Returns {
                key,
                type_name,
                desc,
            } => out.push_return(
                key,
                Returns {
                    type_name: clean_type(type_name),
                    description: desc.clone().unwrap_or_default(),
                },
            ),
            Meta::Raises {
                key,
                type_name,
                desc,
            } => {
                let r = Raise {
                    type_name: clean_type(type_name),
                    description: desc.clone().unwrap_or_default(),
                };
                if key == "warns" {
                    let text = match &r.type_name {
                        Some(t) => format!("{t}: {}", r.description),
                        None => r.description,
                    };
                    out.others.push(Other {
                        section: key.clone(),
                        text: text.trim_end().to_string(),
                    });
                } else {
                    out.raises.push(r);
                }
            }
            Meta::Other { section, desc } => out.others.push(Other {
                section: section.clone(),
                text: desc.clone().unwrap_or_default(),
            }),
        }
    }
    out
}

/// `first + "\n" + cleandoc(rest)` when `desc` has more than one line: how every parser
/// of docstring-parser tidies a multi-line description.
pub(crate) fn tidy_lines(desc: &str) -> String {
    match desc.split_once('\n') {
        Some((first, rest)) => format!("{first}\n{}", crate::text::cleandoc(rest)),
        None => desc.to_string(),
    }
}

/// Byte offsets of the lines of `text` that start with `c` (docstring-parser's
/// `(^c.*?)(?=^c|\Z)` chunks start there).
pub(crate) fn line_starts_with(text: &str, c: char) -> Vec<usize> {
    let mut out = Vec::new();
    let mut pos = 0usize;
    for line in text.split('\n') {
        if line.starts_with(c) {
            out.push(pos);
        }
        pos += line.len() + 1;
    }
    out
}

/// The chunks of `text` from each offset in `starts` to the next (the last to the end).
pub(crate) fn chunks<'a>(text: &'a str, starts: &[usize]) -> Vec<&'a str> {
    starts
        .iter()
        .enumerate()
        .map(|(i, &s)| {
            let end = starts.get(i + 1).copied().unwrap_or(text.len());
            &text[s..end]
        })
        .collect()
}
