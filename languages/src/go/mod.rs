//! Go: extraction (`extract.rs`, CodeSearchNet's rules: top-level functions and methods
//! named `Type.Method`, the `//` comment block above as docstring), resolution through
//! packages (directories), import paths under the repository's module path, and receivers
//! and variables whose type is declared or obvious (`resolve.rs`), and the standard
//! library's packages and builtins (`stdlib.rs`).

mod extract;
mod resolve;
pub(crate) mod stdlib;

use codemine_filters::dedup::literal::Spelling;

use crate::{Language, Resolver};
use crate::resolve::SourceUnit;

pub struct Go;

impl Language for Go {
    fn aliases(&self) -> &'static [&'static str] {
        &["golang"]
    }
    fn display_name(&self) -> &'static str {
        "Go"
    }
    fn extensions(&self) -> &'static [&'static str] {
        &["go"]
    }
    fn literal_spelling(&self) -> Spelling {
        Spelling::UnderscoreDigits
    }
    fn resolver<'u>(&self, units: &'u [SourceUnit]) -> Box<dyn Resolver + 'u> {
        Box::new(resolve::Index::new(units))
    }
    /// `go.mod`: the module path that makes an import path a folder of the repository.
    fn project_files(&self) -> &'static [&'static str] {
        &["go.mod"]
    }
    fn resolver_with<'u>(
        &self,
        units: &'u [SourceUnit],
        files: &'u [(String, String)],
    ) -> Box<dyn Resolver + 'u> {
        Box::new(resolve::Index::with_modules(units, resolve::modules(files)))
    }
    /// function_parser takes the summary of the comment text before cleaning it, where an
    /// empty `//` line is `//`, not a blank line: only an `@` ends the summary (a blank line
    /// inside a `/* */` comment would too; cleaning hides it, and Go rarely has one).
    fn docstring_summary<'a>(&self, docstring: &'a str) -> &'a str {
        match docstring.find('@') {
            Some(i) => &docstring[..i],
            None => docstring,
        }
    }
}
