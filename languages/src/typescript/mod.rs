//! TypeScript: JavaScript's extraction rules and resolver ([`crate::javascript`])
//! with TypeScript's grammars: `.tsx` files are parsed with the TSX grammar (JSX allowed,
//! `<T>x` casts not), the others with the TypeScript one. Bodiless signatures (overloads,
//! interface and abstract methods) are no functions; types give receivers their class
//! (`x: C`, `constructor(private c: C)`).

mod extract;

use codemine_filters::dedup::literal::Spelling;

use crate::{Language, Resolver};
use crate::resolve::SourceUnit;

pub struct TypeScript;

impl Language for TypeScript {
    fn aliases(&self) -> &'static [&'static str] {
        &["ts"]
    }
    fn display_name(&self) -> &'static str {
        "TypeScript"
    }
    fn extensions(&self) -> &'static [&'static str] {
        &["ts", "tsx", "mts", "cts"]
    }
    fn literal_spelling(&self) -> Spelling {
        Spelling::UnderscoreDigits
    }
    fn resolver<'u>(&self, units: &'u [SourceUnit]) -> Box<dyn Resolver + 'u> {
        Box::new(crate::javascript::resolve::Index::new(units))
    }
    /// `compilerOptions.paths` and `baseUrl` aliases.
    fn project_files(&self) -> &'static [&'static str] {
        crate::javascript::resolve::CONFIG_FILES
    }
    fn resolver_with<'u>(
        &self,
        units: &'u [SourceUnit],
        files: &'u [(String, String)],
    ) -> Box<dyn Resolver + 'u> {
        Box::new(crate::javascript::resolve::Index::with_config(units, files))
    }
    fn resolver_family(&self) -> &'static str {
        "javascript"
    }
}
