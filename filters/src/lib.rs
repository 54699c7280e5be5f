//! The filter stage of codemine: named presets that reproduce published datasets' rules,
//! individual rules, the settings from a TOML file or the CLI's flags ([`FilterConfig`];
//! the languages it may name come from the miner's registry, [`KnownLanguages`]), and the funnel ([`Funnel`]) that stats.json reports.
//!
//! The caller describes each function with a [`FunctionView`] (the numbers it needs, such
//! as YABLoCo body lines and CodeSearchNet docstring tokens, are computed by the caller),
//! runs [`Filter::check_before_history`], computes `last_commit` only for the survivors
//! when [`Filter::needs_last_commit`], then runs [`Filter::check_history`]. A rejection
//! names the first rule that failed; [`Funnel::record`] counts it.
//!
//! # Nothing configured, nothing filtered
//! With no preset and no rule the filter is inactive ([`Filter::is_active`]) and keeps
//! every function (the CodeSearchNet shape still needs a docstring by definition; that is
//! the writer's business, not a rule).
//!
//! # Presets
//! - `csn`, CodeSearchNet (arXiv:1909.09436 §2.2 and github/CodeSearchNet's
//!   `function_parser`): docstring summary of at least 3 tokens (`docstring_tokens`),
//!   function of at least 3 lines (`lines`), no "test" in the simple name in any case
//!   (`test_in_name`; CodeSearchNet's plain substring test, so `get_latest` goes too), no
//!   constructors and standard methods (`special_method`): constructors, C++ destructors
//!   and operator overloads, Python `__x__` methods, and `toString`, `hashCode`, `equals`,
//!   `finalize`, `notify`, `notifyAll`, `clone` (Java; C++ methods). function_parser also
//!   skips whole files whose path contains "test" (`FILTER_PATHS`); the paper does not list
//!   that, and the preset does not do it (add `--exclude '**/*test*'` and
//!   `--exclude '**/*test*/**'` for it).
//! - `codexglue`, CodeXGLUE code-to-text: `csn`, plus docstring of 3 to 256 tokens,
//!   no URL (`http://`, `https://`, `www.`) or HTML tag in the docstring
//!   (`docstring_markup`), code without syntax errors (`syntax_error`), English docstrings
//!   only (`english`, see below).
//! - `yabloco`, YABLoCo's `generate_benchmark.py`: a docstring of more than 3 words without
//!   "Copyright", "====" or a C function definition (`yabloco_docstring`), body of 2 to 15
//!   lines (`body_lines`), "test" (case-sensitive) in neither the path nor the name
//!   (`test_in_path_or_name`), at most 7 callers (`calls_num`), test-coverage hits above 0
//!   (`coverage`; no coverage data fails), a known last-commit date (`known_last_commit`;
//!   unknown or shallow-clone-bounded dates fail).
//!
//! An explicit setting for the same rule wins over the preset's value: `csn` with
//! `min_lines = 5` keeps functions of 5 lines or more; `codexglue` with
//! `max_docstring_tokens = 512` allows 512. A minimum above the effective maximum (the
//! preset's included) is an error.
//!
//! # Rules
//! | rule | setting | keeps a function when |
//! |---|---|---|
//! | `languages` | `languages` | its language is listed (`python`, `java`, `c`, `cpp`, `go`, `javascript`, `typescript`, `php`, `ruby`; aliases such as `c++`, `js` accepted) |
//! | `path_exclude` | `exclude`, `default_excludes` | its path matches no exclude glob |
//! | `lines` | `min_lines`, `max_lines` | `end_line - start_line + 1` is within the bounds |
//! | `require_docstring` | `require_docstring` | it has a non-blank docstring |
//! | `docstring_tokens` | `min_docstring_tokens`, `max_docstring_tokens` | its summary's token count is within the bounds |
//! | `param_docs` | `require_param_docs` | it has a docstring whose documented parameters are the signature's (`codemine_docstring::params_match`: none missing, none extra; receivers and variadic `*args`/`...rest` need no entry) |
//! | `calls_num` | `max_calls_num` | it has at most that many distinct callers |
//! | `license` | `licenses` | its file's license expression is allowed (SPDX ids, `permissive`, `copyleft`; `A OR B` needs one, `A AND B` both; unknown fails) |
//! | `coverage` | `min_coverage_hits` | coverage data exists and has at least that many hits |
//! | `since` | `since` | its last commit is on or after the date |
//! | `until` | `until` | its last commit is on or before the date (a `YYYY-MM-DD` day counts whole) |
//!
//! Dates are `YYYY-MM-DD` (UTC) or RFC 3339 (`2021-06-30T12:00:00+02:00`). A date that is
//! only an upper bound (shallow clone) passes `until` when the bound does, and never
//! passes `since`. No date at all fails both.
//!
//! Evaluation order (rule names in stats and in dropped rows): `languages`,
//! `path_exclude`, `test_in_name`, `special_method`, `test_in_path_or_name`, `lines`,
//! `body_lines`, `require_docstring`, `docstring_tokens`, `yabloco_docstring`,
//! `docstring_markup`, `syntax_error`, `english`, `param_docs`, `calls_num`, `license`,
//! `coverage`; then the
//! history rules `known_last_commit`, `since`, `until`.
//!
//! # Path excludes
//! Globs match the '/'-separated repository path; `*` stays within a folder, `**` spans
//! folders. As in .gitignore, a pattern without `/` matches a file name at any depth
//! (`*_test.py`), a trailing `/` means a folder at any depth (`fixtures/`), and a leading
//! `/` anchors at the root (`/scripts/**`). The built-in [`DEFAULT_EXCLUDES`] (vendored
//! folders such as `vendor/`, `third_party/`, `node_modules/`; minified files; generated
//! code such as `generated/`, `*_pb2.py`, `*.pb.cc`, `*.pb.h`, lex/yacc output) apply,
//! case-insensitively, whenever any preset or rule is active, unless
//! `default_excludes = false` (`--no-default-excludes`). `deps/` and `external/` are not
//! in the list: some projects keep their own code there.
//!
//! # English detection
//! `whatlang` on the docstring's prose words (identifiers, tags and code removed; see
//! [`english`]). A docstring mostly in a non-Latin script (Chinese, Russian, ...) is not
//! English at any length. A Latin-script one is dropped when whatlang reliably names
//! another language on at least [`english::MIN_LATIN_LETTERS`] letters, or names another
//! language and the words carry accents (ü, é, ą) but no English function word ("the",
//! "of", "returns", ...). Anything else that whatlang does not call English is kept as
//! undecidable: on a few words it confuses English with Dutch or Catalan, so dropping on
//! its guess would lose English rows, and a short unaccented foreign docstring
//! ("Leert die Proxy-Liste.") gets through instead.

pub mod config;
pub mod date;
pub mod decontam;
pub mod dedup;
pub mod english;
mod error;
mod filter;
mod funnel;
pub mod license;
pub mod rules;

pub use config::{FilterConfig, Preset};
pub use date::{DateError, DateSpec, DateZone, ZoneError};
pub use error::FilterError;
pub use filter::{Filter, MIN_SIDE, PARAM_DOCS};
pub use funnel::{Funnel, FunnelCounts};
pub use rules::{KnownLanguages, DEFAULT_EXCLUDES};

/// What kind of callable a function is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Function,
    Method,
    Constructor,
}

/// What the filter needs to know about one function; everything is computed by the caller.
#[derive(Debug, Clone, Copy)]
pub struct FunctionView<'a> {
    pub repository: &'a str,
    /// '/'-separated path inside the repository.
    pub path: &'a str,
    /// "python", "java", "c" or "cpp".
    pub language: &'a str,
    /// Simple name: "toString", "__init__", "~Foo", "operator+".
    pub name: &'a str,
    pub qualified_name: &'a str,
    pub kind: Kind,
    /// 1-based, inclusive.
    pub start_line: u32,
    /// 1-based, inclusive.
    pub end_line: u32,
    /// YABLoCo body lines: lines of the text between the first '{' and the last '}'
    /// (Python: after the signature), trimmed.
    pub body_lines: u32,
    pub docstring: Option<&'a str>,
    /// CodeSearchNet tokens of the docstring summary.
    pub docstring_tokens: usize,
    pub syntax_error: bool,
    /// Distinct callers.
    pub calls_num: u64,
    pub test_cov_hits: Option<i64>,
    /// Unix seconds, UTC.
    pub last_commit: Option<i64>,
    /// Shallow clone: `last_commit` is only an upper bound of the true date.
    pub last_commit_bounded: bool,
    /// The SPDX expression of the file's license, when one was found.
    pub license: Option<&'a str>,
    /// The signature's parameter names as it spells them (`*args`, `$x`, `...rest`): what
    /// `param_docs` compares the docstring's documented parameters with.
    pub param_names: &'a [String],
}
