//! Ruby: extraction (`extract.rs`, CodeSearchNet's rules: methods with the `#` comment block
//! above them), resolution through classes and modules reopened across files, mixins,
//! `require`/`require_relative` and receivers of obvious class (`resolve.rs`), and Ruby's
//! core and standard library (`stdlib.rs`).
//!
//! Files are `.rb` and `.rake` (detection goes by extension, so `Rakefile` and `Gemfile`,
//! which have none, are not mined).

mod extract;
mod resolve;
pub(crate) mod stdlib;

use codemine_filters::dedup::literal::Spelling;

use crate::{Language, Resolver};
use crate::resolve::SourceUnit;

pub struct Ruby;

impl Language for Ruby {
    fn aliases(&self) -> &'static [&'static str] {
        &["rb"]
    }
    fn display_name(&self) -> &'static str {
        "Ruby"
    }
    fn extensions(&self) -> &'static [&'static str] {
        &["rb", "rake"]
    }
    /// `1_000` is `1000`; single- and double-quoted strings differ (interpolation), so
    /// quotes are not unified.
    fn literal_spelling(&self) -> Spelling {
        Spelling::UnderscoreDigits
    }
    fn resolver<'u>(&self, units: &'u [SourceUnit]) -> Box<dyn Resolver + 'u> {
        Box::new(resolve::Index::new(units))
    }
    /// A method's body follows its signature up to `end`, without braces.
    fn braced_body(&self) -> bool {
        false
    }
}
