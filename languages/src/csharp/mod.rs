//! C#: extraction (`extract.rs`: methods, constructors, local functions and properties
//! with a body, `Class.Method`, `///` XML doc comments) and resolution through the
//! repository's types, base types, `using` directives and declared types of receivers
//! (`resolve.rs`), and the base class library's type names (`stdlib.rs`).

mod extract;
mod resolve;
pub(crate) mod stdlib;

use codemine_filters::dedup::literal::Spelling;

use crate::resolve::SourceUnit;
use crate::{Language, Resolver};

pub struct CSharp;

impl Language for CSharp {
    fn aliases(&self) -> &'static [&'static str] {
        &["c#", "cs", "c_sharp"]
    }
    fn display_name(&self) -> &'static str {
        "C#"
    }
    fn extensions(&self) -> &'static [&'static str] {
        &["cs"]
    }
    fn literal_spelling(&self) -> Spelling {
        Spelling::UnderscoreDigits
    }
    fn resolver<'u>(&self, units: &'u [SourceUnit]) -> Box<dyn Resolver + 'u> {
        Box::new(resolve::Index::new(units))
    }
    /// `docstring_tokens` come from the text of the XML's `<summary>` element (the whole
    /// docstring when it has none).
    fn docstring_summary<'a>(&self, docstring: &'a str) -> &'a str {
        let Some(start) = docstring.find("<summary>") else {
            return docstring;
        };
        let inner = &docstring[start + "<summary>".len()..];
        match inner.find("</summary>") {
            Some(end) => &inner[..end],
            None => inner,
        }
    }
}
