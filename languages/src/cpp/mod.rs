//! C++: a thin spec over [`crate::cfamily`] (the helpers, headers and resolver it
//! shares with C): its extraction (`extract.rs`: namespaces, classes, out-of-class
//! definitions, operators, templates) and what the registry needs to know.

mod extract;

use codemine_filters::dedup::literal::Spelling;

use crate::{Language, Resolver};
use crate::resolve::SourceUnit;

pub struct Cpp;

impl Language for Cpp {
    fn aliases(&self) -> &'static [&'static str] {
        &["c++", "cxx"]
    }
    fn display_name(&self) -> &'static str {
        "C++"
    }
    fn extensions(&self) -> &'static [&'static str] {
        &[
            "cc", "cpp", "cxx", "c++", "hpp", "hh", "hxx", "h++", "ipp", "tpp", "inl",
        ]
    }
    fn literal_spelling(&self) -> Spelling {
        Spelling::QuoteDigits
    }
    fn resolver<'u>(&self, units: &'u [SourceUnit]) -> Box<dyn Resolver + 'u> {
        crate::cfamily::resolver(units)
    }
    fn resolver_family(&self) -> &'static str {
        "c"
    }
}
