//! C: a thin spec over [`crate::cfamily`], which holds what C and C++ share (the
//! extraction helpers, the standard headers and library, the resolver that serves both):
//! here, what a C function is (`extract.rs`) and what the registry needs to know.

mod extract;

use codemine_filters::dedup::literal::Spelling;

use crate::{Language, Resolver};
use crate::resolve::SourceUnit;

pub struct C;

impl Language for C {
    fn display_name(&self) -> &'static str {
        "C"
    }
    /// `.h` may be C++ too: see [`crate::extract::is_ambiguous_header`].
    fn extensions(&self) -> &'static [&'static str] {
        &["c", "h"]
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
