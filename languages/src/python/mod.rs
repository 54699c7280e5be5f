//! Python: extraction (`extract.rs`, CodeSearchNet's rules), name resolution through
//! imports, classes and constructor-typed locals (`resolve.rs`), and the standard library
//! (`stdlib.rs`: `sys.stdlib_module_names` and the builtins), value flow (`facts.rs`,
//! `flow.rs`), and the call-graph nodes of module code and lambdas (`nodes.rs`).

mod extract;
mod facts;
mod flow;
mod nodes;
mod resolve;
pub(crate) mod stdlib;

pub use facts::Facts;

use codemine_filters::dedup::literal::Spelling;

use crate::{Language, Resolver};
use crate::resolve::SourceUnit;

pub struct Python;

impl Language for Python {
    fn aliases(&self) -> &'static [&'static str] {
        &["py"]
    }
    fn display_name(&self) -> &'static str {
        "Python"
    }
    fn extensions(&self) -> &'static [&'static str] {
        &["py"]
    }
    fn literal_spelling(&self) -> Spelling {
        Spelling::Python
    }
    fn resolver<'u>(&self, units: &'u [SourceUnit]) -> Box<dyn Resolver + 'u> {
        Box::new(resolve::Index::new(units))
    }
    fn braced_body(&self) -> bool {
        false
    }
    fn code_nodes(
        &self,
        functions: &mut [crate::extract::Function],
        info: &crate::extract::FileInfo,
        src: &str,
    ) -> crate::resolve::CodeNodes {
        nodes::code_nodes(functions, info, src)
    }
}
