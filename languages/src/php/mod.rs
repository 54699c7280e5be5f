//! PHP: extraction (`extract.rs`, CodeSearchNet's rules for class and trait methods,
//! extended to free functions, interfaces, enums and anonymous classes), resolution
//! through namespaces, `use` imports, declared types and class hierarchies (`resolve.rs`),
//! and PHP's internal functions and classes (`stdlib.rs`).

mod extract;
mod resolve;
pub(crate) mod stdlib;

use codemine_filters::dedup::literal::Spelling;

use crate::{Language, Resolver};
use crate::resolve::SourceUnit;

pub struct Php;

impl Language for Php {
    fn display_name(&self) -> &'static str {
        "PHP"
    }
    /// `.php` only, as function_parser: `.phtml` files are view templates, HTML with
    /// PHP snippets, which hardly ever define a function.
    fn extensions(&self) -> &'static [&'static str] {
        &["php"]
    }
    fn literal_spelling(&self) -> Spelling {
        Spelling::UnderscoreDigits
    }
    fn resolver<'u>(&self, units: &'u [SourceUnit]) -> Box<dyn Resolver + 'u> {
        Box::new(resolve::Index::new(units))
    }
    /// A package is the declared namespace (`namespace A\B;`); a file without one is in
    /// the global namespace, where the directory decides, as for most languages.
    fn same_package(&self, a: &SourceUnit, b: &SourceUnit) -> bool {
        match (&a.info.package, &b.info.package) {
            (None, None) => crate::resolve::dir_of(&a.path) == crate::resolve::dir_of(&b.path),
            (x, y) => x.as_deref().map(str::to_ascii_lowercase)
                == y.as_deref().map(str::to_ascii_lowercase),
        }
    }
}
