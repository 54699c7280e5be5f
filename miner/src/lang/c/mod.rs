//! C: extraction (`extract.rs`: functions, prototypes, macros, includes), the C-family
//! resolver that serves C and C++ together (`resolve.rs`: includes, linkage, macro
//! expansion, C++ scopes and classes), and the C standard library, POSIX and system
//! headers (`stdlib.rs`).

pub(crate) mod extract;
mod resolve;
pub(crate) mod stdlib;

use codemine_filters::dedup::literal::Spelling;

use crate::lang::{Language, Resolver};
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
        c_family_resolver(units)
    }
    fn resolver_family(&self) -> &'static str {
        "c"
    }
}

/// The resolver of C and C++ units together (a C++ file calls C functions and the other
/// way round through headers).
pub(crate) fn c_family_resolver<'u>(units: &'u [SourceUnit]) -> Box<dyn Resolver + 'u> {
    Box::new(resolve::Index::new(units))
}
