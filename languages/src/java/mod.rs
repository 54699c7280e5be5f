//! Java: extraction (`extract.rs`, CodeSearchNet's rules), resolution through packages,
//! imports, declared types and class hierarchies (`resolve.rs`), and the JDK's packages and
//! `java.lang` types (`stdlib.rs`).

mod extract;
mod resolve;
pub(crate) mod stdlib;

use codemine_filters::dedup::literal::Spelling;

use crate::{Language, Resolver};
use crate::resolve::SourceUnit;

pub struct Java;

impl Language for Java {
    fn display_name(&self) -> &'static str {
        "Java"
    }
    fn extensions(&self) -> &'static [&'static str] {
        &["java"]
    }
    fn literal_spelling(&self) -> Spelling {
        Spelling::UnderscoreDigits
    }
    fn resolver<'u>(&self, units: &'u [SourceUnit]) -> Box<dyn Resolver + 'u> {
        Box::new(resolve::Index::new(units))
    }
    /// Java's packages are declared, not directories.
    fn same_package(&self, a: &SourceUnit, b: &SourceUnit) -> bool {
        a.info.package == b.info.package
    }
}
