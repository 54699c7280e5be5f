//! What the pipeline knows of a language, without knowing which languages there are: the
//! [`Language`] trait (on top of the walker's [`LanguageSpec`]) and [`Lang`], a handle on a
//! registered language. The registry itself (the list, `Lang::Python`, `Lang::ALL`,
//! `Lang::from_path`) lives in the crate `codemine-lang`, which implements these traits; this core
//! module and the walker below it never name a language, so the languages depend on the
//! core and never the other way round.
//!
//! A handle rather than an enum: an enum here would list the languages in the core. The
//! handle carries its definition (`&'static dyn Language`), so the core reaches each
//! language's rules through the trait, and its place in the registry, by which handles
//! compare, hash and sort (the registry's order: stats and tables keyed by language keep
//! the order the enum gave them).

use std::fmt;
use std::hash::{Hash, Hasher};

use codemine_filters::dedup::literal::Spelling;

use super::{CodeNodes, Resolver, SourceUnit};
use crate::extract::{FileInfo, Function, LanguageSpec};

/// What codemine needs to know about a language besides how to extract its functions
/// ([`LanguageSpec`], the supertrait, which also gives its name). Defaults fit most languages.
pub trait Language: LanguageSpec {
    /// Other spellings `--languages` accepts (`py`, `c++`), lower case.
    fn aliases(&self) -> &'static [&'static str] {
        &[]
    }

    /// The name as people write it (`Python`, `C++`): YABLoCo's `inputs.language`.
    fn display_name(&self) -> &'static str;

    /// File extensions, without the dot.
    fn extensions(&self) -> &'static [&'static str];

    /// Which literal spellings dedup treats as one (quote style, prefix case, number case).
    fn literal_spelling(&self) -> Spelling;

    /// The resolver that serves this language, built once per repository over all its
    /// units (it picks out the units of the languages it serves).
    fn resolver<'u>(&self, units: &'u [SourceUnit]) -> Box<dyn Resolver + 'u>;

    /// Names of project files (not source files) that the resolver reads, such as
    /// TypeScript's `tsconfig.json`; the pipeline reads every file of the repository with
    /// one of these names and hands them to [`Language::resolver_with`].
    fn project_files(&self) -> &'static [&'static str] {
        &[]
    }

    /// [`Language::resolver`] with the project files the language asked for (path and
    /// text); by default they are not used.
    fn resolver_with<'u>(
        &self,
        units: &'u [SourceUnit],
        _files: &'u [(String, String)],
    ) -> Box<dyn Resolver + 'u> {
        self.resolver(units)
    }

    /// Languages whose units one resolver serves together share a family (C and C++);
    /// by default each language is its own.
    fn resolver_family(&self) -> &'static str {
        self.name()
    }

    /// Whether two files of the repository are in the same package, for the `same_package`
    /// category. By default: the same directory.
    fn same_package(&self, a: &SourceUnit, b: &SourceUnit) -> bool {
        super::dir_of(&a.path) == super::dir_of(&b.path)
    }

    /// Whether a function's body is delimited by `{` and `}` (YABLoCo's signature and body
    /// length rules); otherwise the body is what follows the signature (Python, Ruby).
    fn braced_body(&self) -> bool {
        true
    }

    /// The part of a cleaned docstring whose tokens are CSN's `docstring_tokens`. By default
    /// function_parser's rule ([`crate::extract::tokens::docstring_summary`]).
    fn docstring_summary<'a>(&self, docstring: &'a str) -> &'a str {
        crate::extract::tokens::docstring_summary(docstring)
    }

    /// The call-graph nodes of an extracted file that are no functions (Python: its
    /// module's top-level code and its lambdas), with their calls; a call that such a node
    /// makes inside a function leaves that function's calls. None by default.
    fn code_nodes(&self, _functions: &mut [Function], _info: &FileInfo, _src: &str) -> CodeNodes {
        Default::default()
    }
}

/// A registered language: its definition and its place in the registry. Made by the
/// registry (`codemine-lang`) only; compared, hashed and ordered by that place.
#[derive(Clone, Copy)]
pub struct Lang {
    rank: u8,
    /// The registry's identifier (`Python`, `Cpp`): what `{:?}` prints, as the enum did.
    ident: &'static str,
    def: &'static dyn Language,
}

impl Lang {
    /// The handle of the `rank`-th language of the registry (its `languages!` list). For the
    /// registry only (`codemine-lang`): a handle made elsewhere would share a rank with a
    /// registered language and compare equal to it.
    pub const fn registered(rank: u8, ident: &'static str, def: &'static dyn Language) -> Lang {
        Lang { rank, ident, def }
    }

    /// The language's definition.
    pub fn def(self) -> &'static dyn Language {
        self.def
    }

    /// The extraction rules.
    pub fn spec(self) -> &'static dyn LanguageSpec {
        self.def
    }

    /// The language's name in output rows (`python`, `java`, `c`, `cpp`).
    pub fn name(self) -> &'static str {
        self.def.name()
    }

    /// Which literal spellings dedup treats as one (quote style, prefix case, number case).
    pub fn literal_spelling(self) -> Spelling {
        self.def.literal_spelling()
    }
}

/// The walker takes a language as its rules.
impl From<Lang> for &'static dyn LanguageSpec {
    fn from(l: Lang) -> Self {
        l.def
    }
}

impl PartialEq for Lang {
    fn eq(&self, other: &Lang) -> bool {
        self.rank == other.rank
    }
}

impl Eq for Lang {}

impl Hash for Lang {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.rank.hash(state);
    }
}

impl PartialOrd for Lang {
    fn partial_cmp(&self, other: &Lang) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Lang {
    fn cmp(&self, other: &Lang) -> std::cmp::Ordering {
        self.rank.cmp(&other.rank)
    }
}

impl fmt::Debug for Lang {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.ident)
    }
}

/// Serialised by its name (`python`, `cpp`), as in output rows.
impl serde::Serialize for Lang {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}
