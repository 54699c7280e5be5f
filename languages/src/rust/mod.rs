//! Rust: extraction (`extract.rs`, The Vault's rules: every `fn` with a body, methods named
//! `Type.method` and `Trait.method`, outer doc comments as docstrings), resolution through
//! modules (the file tree under each crate's `src/`), `use` declarations,
//! `crate::`/`self::`/`super::` paths, workspace crates by their `Cargo.toml` names, `Self`
//! and `self`, and variables whose type is declared or obvious (`resolve.rs`), and the
//! standard library's names (`stdlib.rs`, generated from its documentation).

mod extract;
mod resolve;
pub(crate) mod stdlib;

use codemine_filters::dedup::literal::Spelling;

use crate::resolve::SourceUnit;
use crate::{Language, Resolver};

pub struct Rust;

impl Language for Rust {
    fn aliases(&self) -> &'static [&'static str] {
        &["rs"]
    }
    fn display_name(&self) -> &'static str {
        "Rust"
    }
    fn extensions(&self) -> &'static [&'static str] {
        &["rs"]
    }
    fn literal_spelling(&self) -> Spelling {
        Spelling::UnderscoreDigits
    }
    fn resolver<'u>(&self, units: &'u [SourceUnit]) -> Box<dyn Resolver + 'u> {
        Box::new(resolve::Index::new(units, &[]))
    }
    /// `Cargo.toml`: each crate's name and folder, and the crates it depends on.
    fn project_files(&self) -> &'static [&'static str] {
        &["Cargo.toml"]
    }
    fn resolver_with<'u>(
        &self,
        units: &'u [SourceUnit],
        files: &'u [(String, String)],
    ) -> Box<dyn Resolver + 'u> {
        Box::new(resolve::Index::new(units, files))
    }
}
