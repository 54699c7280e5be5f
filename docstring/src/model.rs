//! The output shape: a docstring's parts, as the `docstring_params` column holds them.
//!
//! Field names are part of the data contract (docs/docstrings.md): `params` (`name`, `type`,
//! `description`), `returns` (`type`, `description`), `raises` (`type`, `description`),
//! `others` (`section`, `text`) and `style`. Serialised with serde, `type_name` is `type`.
//!
//! ```
//! use codemine_docstring::{parse, Language, Style};
//!
//! let d = parse("Adds.\n\n:param a: the first\n:rtype: int", Language::Python);
//! assert_eq!(d.style, Style::Rest);
//! assert_eq!(d.params[0].name, "a");
//! assert_eq!(d.returns.unwrap().type_name.as_deref(), Some("int"));
//! ```

use serde::{Deserialize, Serialize};

/// A docstring's structured parts. Parsing never fails: a text with nothing recognised has
/// every list empty and [`Style::Plain`] (or [`Style::None`] when it is empty).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DocstringParams {
    /// Documented parameters, in the order written.
    pub params: Vec<Param>,
    /// The first documented return (or generator yield, for Python and JSDoc); later ones
    /// are kept in [`DocstringParams::others`] under their own section name.
    pub returns: Option<Returns>,
    /// Documented exceptions: Python's raises, Javadoc's and PHPDoc's `@throws` and
    /// `@exception`, YARD's `@raise`, C#'s `<exception>`, Doxygen's `\throws`, rustdoc's
    /// `# Errors` and `# Panics`. One list for every language (the issue's "raises/throws").
    pub raises: Vec<Raise>,
    /// Every other section or tag (`see`, `since`, `examples`, `notes`, `deprecated`, ...).
    pub others: Vec<Other>,
    /// The convention recognised.
    pub style: Style,
}

/// A documented parameter.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Param {
    /// The name as written, without JSDoc's optional brackets or PHP's `$`.
    pub name: String,
    /// The type the docstring gives, if any (the signature's is not consulted).
    #[serde(rename = "type")]
    pub type_name: Option<String>,
    /// The description; empty when the docstring gives none.
    pub description: String,
}

/// The documented return value.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Returns {
    #[serde(rename = "type")]
    pub type_name: Option<String>,
    pub description: String,
}

/// A documented exception (or error, or panic).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Raise {
    #[serde(rename = "type")]
    pub type_name: Option<String>,
    pub description: String,
}

/// Any other section: its name as the convention spells it (a tag without `@`, a heading, a
/// Python section key) and its text.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Other {
    pub section: String,
    pub text: String,
}

/// The docstring convention recognised, serialised in snake_case (`rest`, `xml_doc`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Style {
    /// Nothing to parse: the text is empty (or only whitespace and comment markers).
    #[default]
    None,
    /// Prose: no section or tag of the language's conventions was found.
    Plain,
    /// Python reST/Sphinx fields (`:param x:`, `:returns:`, `:raises E:`).
    Rest,
    /// Python Google style (`Args:`, `Returns:`, `Raises:` sections).
    Google,
    /// Python NumPy style (`Parameters` underlined with dashes).
    Numpy,
    /// Python Epytext (`@param x:`, `@return:`).
    Epytext,
    /// Java's Javadoc block tags (`@param`, `@return`, `@throws`).
    Javadoc,
    /// JavaScript and TypeScript JSDoc (`@param {T} name`).
    Jsdoc,
    /// PHPDoc (`@param T $name`).
    Phpdoc,
    /// Ruby's YARD (`@param name [T]`, `@return [T]`, `@raise [E]`).
    Yard,
    /// Go's doc comments: prose, where a `Deprecated:` paragraph is the only structure.
    Godoc,
    /// Rust doc sections (`# Arguments`, `# Returns`, `# Errors`, `# Panics`).
    Rustdoc,
    /// C#'s XML documentation comments (`<param>`, `<returns>`, `<exception>`).
    XmlDoc,
    /// Doxygen commands for C and C++ (`@param`, `\param`, `\return`, `\throws`).
    Doxygen,
}

impl Style {
    /// Every style, in declaration order.
    pub const ALL: [Style; 14] = [
        Style::None,
        Style::Plain,
        Style::Rest,
        Style::Google,
        Style::Numpy,
        Style::Epytext,
        Style::Javadoc,
        Style::Jsdoc,
        Style::Phpdoc,
        Style::Yard,
        Style::Godoc,
        Style::Rustdoc,
        Style::XmlDoc,
        Style::Doxygen,
    ];

    /// The serialised name (`rest`, `xml_doc`): what the `style` field holds.
    pub fn as_str(self) -> &'static str {
        match self {
            Style::None => "none",
            Style::Plain => "plain",
            Style::Rest => "rest",
            Style::Google => "google",
            Style::Numpy => "numpy",
            Style::Epytext => "epytext",
            Style::Javadoc => "javadoc",
            Style::Jsdoc => "jsdoc",
            Style::Phpdoc => "phpdoc",
            Style::Yard => "yard",
            Style::Godoc => "godoc",
            Style::Rustdoc => "rustdoc",
            Style::XmlDoc => "xml_doc",
            Style::Doxygen => "doxygen",
        }
    }

    /// The style of a serialised name ([`Style::as_str`]).
    pub fn from_name(name: &str) -> Option<Style> {
        Style::ALL.into_iter().find(|s| s.as_str() == name)
    }
}

impl std::fmt::Display for Style {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl DocstringParams {
    /// Whether anything beyond the style was found.
    pub fn is_empty(&self) -> bool {
        self.params.is_empty()
            && self.returns.is_none()
            && self.raises.is_empty()
            && self.others.is_empty()
    }

    /// An empty result of `style`.
    pub(crate) fn of(style: Style) -> Self {
        DocstringParams {
            style,
            ..Default::default()
        }
    }

    /// Sets `returns` if it is still empty, else keeps the return in `others` under
    /// `section` (a second numpy return, a JSDoc `@yields` after `@returns`).
    pub(crate) fn push_return(&mut self, section: &str, r: Returns) {
        if self.returns.is_none() {
            self.returns = Some(r);
            return;
        }
        let text = match &r.type_name {
            Some(t) if r.description.is_empty() => t.clone(),
            Some(t) => format!("{t}: {}", r.description),
            None => r.description,
        };
        self.others.push(Other {
            section: section.to_string(),
            text,
        });
    }

    /// `Plain` for a result where nothing was found, else `style`.
    pub(crate) fn finish(mut self, style: Style) -> Self {
        self.style = if self.is_empty() { Style::Plain } else { style };
        self
    }
}
