//! What C and C++ share, in one place so that neither language imports the other: the
//! extraction helpers (`extract.rs`: declarators, comment docstrings, calls, locals, file
//! items, macro bodies, C++ scope names), the standard library, POSIX, system and C++
//! standard headers (`stdlib.rs` and `data/`), and the resolver that serves C and C++
//! units together (`resolve.rs`: includes, linkage, macro expansion, C++ scopes and
//! classes). Not a language of the registry: `c/` and `cpp/` are thin specs
//! over it.

pub(crate) mod extract;
mod resolve;
pub(crate) mod stdlib;

use crate::resolve::SourceUnit;
use crate::Resolver;

/// The resolver of C and C++ units together (a C++ file calls C functions and the other
/// way round through headers).
pub(crate) fn resolver<'u>(units: &'u [SourceUnit]) -> Box<dyn Resolver + 'u> {
    Box::new(resolve::Index::new(units))
}
