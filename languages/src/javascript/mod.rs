//! JavaScript: extraction (`extract.rs`, CodeSearchNet's rules; shared with TypeScript),
//! resolution through ES module and CommonJS imports, `index` files, classes and
//! `this` (`resolve.rs`, one resolver for JavaScript and TypeScript together), and Node's
//! built-in modules and the JavaScript/DOM globals (`stdlib.rs`).

pub(crate) mod extract;
pub(crate) mod resolve;
pub(crate) mod stdlib;

use codemine_filters::dedup::literal::Spelling;

use crate::{Language, Resolver};
use crate::resolve::SourceUnit;

pub struct JavaScript;

impl Language for JavaScript {
    fn aliases(&self) -> &'static [&'static str] {
        &["js"]
    }
    fn display_name(&self) -> &'static str {
        "JavaScript"
    }
    fn extensions(&self) -> &'static [&'static str] {
        &["js", "jsx", "mjs", "cjs"]
    }
    fn literal_spelling(&self) -> Spelling {
        Spelling::UnderscoreDigits
    }
    fn resolver<'u>(&self, units: &'u [SourceUnit]) -> Box<dyn Resolver + 'u> {
        Box::new(resolve::Index::new(units))
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
        Box::new(resolve::Index::with_config(units, files))
    }
    fn resolver_family(&self) -> &'static str {
        "javascript"
    }
}

