//! Structured docstrings: a docstring's parameters, return, raises and other sections, in
//! the convention of its language, for the `docstring_params` column of CSN and call-graph
//! node rows (issue 36), and The Vault's rule that the documented parameters are the
//! signature's ([`params_match`]).
//!
//! ```
//! use codemine_docstring::{parse, params_match, Language, Style};
//!
//! let d = parse(
//!     "Adds two numbers.\n\n    Args:\n        a (int): the first\n        b (int): the second\n\n    Returns:\n        int: the sum",
//!     Language::Python,
//! );
//! assert_eq!(d.style, Style::Google);
//! assert_eq!(d.params[1].name, "b");
//! assert_eq!(d.returns.as_ref().unwrap().type_name.as_deref(), Some("int"));
//! assert!(params_match(&d, &["a", "b"]));
//! ```
//!
//! Parsing never fails and never panics: what a convention does not recognise is left out,
//! a text with nothing recognised is [`Style::Plain`], an empty one [`Style::None`]. Work is
//! linear in the text, which is cut at [`MAX_DOCSTRING_BYTES`]; nothing recurses. The
//! conventions, the output shape and where they differ from The Vault and docstring-parser
//! on purpose are in docs/docstrings.md.
//!
//! | language | conventions (style) |
//! |---|---|
//! | Python | reST/Sphinx (`rest`), Google (`google`), NumPy (`numpy`), Epytext (`epytext`), detected as docstring-parser 0.18's autodetection does |
//! | Java | Javadoc (`javadoc`) |
//! | JavaScript, TypeScript | JSDoc (`jsdoc`) |
//! | PHP | PHPDoc (`phpdoc`) |
//! | Ruby | YARD (`yard`) |
//! | Go | prose; a `Deprecated:` paragraph (`godoc`) |
//! | Rust | Markdown sections (`rustdoc`) |
//! | C# | XML doc comments (`xml_doc`), else Javadoc-style tags |
//! | C, C++ | Doxygen (`doxygen`) |
//!
//! # How the extraction calls it
//!
//! Per function, with the docstring text the extraction already holds and the row's
//! `language` name:
//!
//! ```text
//! let params = codemine_docstring::parse(&f.docstring, Language::from_name(lang.name()));
//! let consistent = codemine_docstring::params_match(&params, &signature_param_names);
//! ```
//!
//! The text is `Function::docstring` of the miner's `extract` (the cleaned text), not the
//! CSN `docstring` column, though both work. Per language, that text is
//! (`miner/src/lang/*/extract.rs`, docs/languages.md):
//!
//! - **python**: the string literal without its quotes and prefix, trimmed; the lines
//!   after the first keep their indentation, which the parser removes as Python's
//!   `inspect.cleandoc` does (docstring-parser works on that text).
//! - **java**, **php**, **c**, **cpp**, **go**: the comment with its delimiters stripped
//!   line by line (`/**`, `/*!`, `/*`, `*`, `*/`, `///`, `//!`, `//`) and every line trimmed
//!   (`tokens::strip_comment_delimiters`); for Go, the run of `//` comments joined by
//!   newlines; for PHP, a `#` comment without its `#`; for C and C++ the block of comments
//!   before the definition.
//! - **javascript**, **typescript**: function_parser's cleaning of each comment (`*`,
//!   `/**`, `*/` and `//` removed per line, lines trimmed; a `/*` opener stays) and the
//!   comments before the function joined by a space.
//! - **ruby**: each comment line stripped of its `#` marks and whitespace (an
//!   `=begin`/`=end` block: its inner lines).
//! - **rust**, **csharp** (issue 36; not extracted yet): `///` and `//!` lines or a
//!   `/** */` block stripped the same way, which keeps a Rust heading's `#` and C#'s XML.
//!
//! The CSN column's text is accepted too: comment markers still there (Go's `//`, a
//! Java `/*`, raw `#` lines) and a Python literal's prefix and quotes (`r"""Text.`) are
//! removed first ([`text::strip_markers`]). Per-line trimming loses indentation, so no
//! convention but Python's relies on it: a tag or list item runs to the next one.
//!
//! The signature's parameter names go to [`params_match`] as the signature writes them
//! (tree-sitter's parameter nodes: `*args`, `$x`, `&mut self` are all fine; a variadic
//! given with its `*`/`...` need not be documented); see [`consistency`].

pub mod consistency;
pub mod model;
pub mod text;

mod doxygen;
mod godoc;
mod javadoc;
mod jsdoc;
mod phpdoc;
mod python;
mod rustdoc;
mod tags;
mod xmldoc;
mod yard;

pub use consistency::{check_params, normalize_param_name, params_match, ParamCheck};
pub use model::{DocstringParams, Other, Param, Raise, Returns, Style};
pub use text::MAX_DOCSTRING_BYTES;

use text::{strip_markers, Markers};

/// The language hint: which conventions a docstring may follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Language {
    Python,
    Java,
    JavaScript,
    TypeScript,
    Php,
    Ruby,
    Go,
    C,
    Cpp,
    Rust,
    CSharp,
    /// Unknown: the convention is guessed from the text among all of them.
    Other,
}

impl Language {
    /// The language of a `language` column value of codemine's tables (`python`, `cpp`,
    /// `csharp`...) or a common alias (`py`, `c++`, `c#`, `golang`, `js`, `ts`, `rb`, `rs`);
    /// [`Language::Other`] for anything else. Case-blind.
    pub fn from_name(name: &str) -> Language {
        match name.trim().to_ascii_lowercase().as_str() {
            "python" | "py" => Language::Python,
            "java" => Language::Java,
            "javascript" | "js" => Language::JavaScript,
            "typescript" | "ts" => Language::TypeScript,
            "php" => Language::Php,
            "ruby" | "rb" => Language::Ruby,
            "go" | "golang" => Language::Go,
            "c" => Language::C,
            "cpp" | "c++" | "cxx" => Language::Cpp,
            "rust" | "rs" => Language::Rust,
            "csharp" | "c#" | "c_sharp" | "cs" => Language::CSharp,
            _ => Language::Other,
        }
    }

    /// The styles a docstring of this language can be recognised as (besides `none` and
    /// `plain`), in the order ties are broken.
    pub fn styles(self) -> &'static [Style] {
        match self {
            Language::Python => &python::STYLES,
            Language::Java => &[Style::Javadoc],
            Language::JavaScript | Language::TypeScript => &[Style::Jsdoc],
            Language::Php => &[Style::Phpdoc],
            Language::Ruby => &[Style::Yard],
            Language::Go => &[Style::Godoc],
            Language::C | Language::Cpp => &[Style::Doxygen],
            Language::Rust => &[Style::Rustdoc],
            Language::CSharp => &[Style::XmlDoc, Style::Javadoc],
            Language::Other => &[
                Style::Rest,
                Style::Google,
                Style::Numpy,
                Style::Epytext,
                Style::XmlDoc,
                Style::Jsdoc,
                Style::Doxygen,
                Style::Rustdoc,
            ],
        }
    }

    fn markers(self) -> Markers {
        match self {
            Language::Python => Markers::PythonString,
            Language::Ruby => Markers::Hash,
            Language::Php | Language::Other => Markers::CStyleOrHash,
            _ => Markers::CStyle,
        }
    }
}

/// Parses a docstring of `language` (the text with or without its comment markers; see the
/// crate documentation for what the extraction passes).
pub fn parse(text: &str, language: Language) -> DocstringParams {
    let text = strip_markers(text::limit(text), language.markers());
    if text.trim().is_empty() {
        return DocstringParams::of(Style::None);
    }
    match language {
        Language::Python => python::parse(&text),
        Language::Java => javadoc::parse(&text),
        Language::JavaScript | Language::TypeScript => jsdoc::parse(&text),
        Language::Php => phpdoc::parse(&text),
        Language::Ruby => yard::parse(&text),
        Language::Go => godoc::parse(&text),
        Language::C | Language::Cpp => doxygen::parse(&text),
        Language::Rust => rustdoc::parse(&text),
        Language::CSharp => xmldoc::parse(&text).unwrap_or_else(|| javadoc::parse(&text)),
        Language::Other => guess(&text),
    }
}

/// Parses `text` as `style` whatever its language: a text the style does not fit gives
/// [`Style::Plain`] with nothing found. [`Style::None`] and [`Style::Plain`] parse nothing.
pub fn parse_as(text: &str, style: Style) -> DocstringParams {
    let markers = match style {
        Style::Rest | Style::Google | Style::Numpy | Style::Epytext => Markers::PythonString,
        Style::Yard => Markers::Hash,
        _ => Markers::CStyleOrHash,
    };
    let text = strip_markers(text::limit(text), markers);
    if text.trim().is_empty() {
        return DocstringParams::of(Style::None);
    }
    match style {
        Style::None | Style::Plain => DocstringParams::of(Style::Plain),
        Style::Rest | Style::Google | Style::Numpy | Style::Epytext => {
            python::parse_as(&text, style)
        }
        Style::Javadoc => javadoc::parse(&text),
        Style::Jsdoc => jsdoc::parse(&text),
        Style::Phpdoc => phpdoc::parse(&text),
        Style::Yard => yard::parse(&text),
        Style::Godoc => godoc::parse(&text),
        Style::Rustdoc => rustdoc::parse(&text),
        Style::XmlDoc => xmldoc::parse(&text).unwrap_or_else(|| DocstringParams::of(Style::Plain)),
        Style::Doxygen => doxygen::parse(&text),
    }
}

/// How much a parse found: the tie-breaking measure of [`Language::Other`].
fn found(d: &DocstringParams) -> usize {
    d.params.len() + d.raises.len() + d.others.len() + usize::from(d.returns.is_some())
}

/// Every convention's parse, the one that found most (the earlier on a tie).
fn guess(text: &str) -> DocstringParams {
    let mut best = DocstringParams::of(Style::Plain);
    for &style in Language::Other.styles() {
        let d = parse_as(text, style);
        if found(&d) > found(&best) {
            best = d;
        }
    }
    best
}
