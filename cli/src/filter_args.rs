//! The filter flags of `codemine mine` ([`FilterArgs`]): each is checked while the command
//! line is parsed (a bad date, number, language or glob is a usage error naming the flag
//! before any work starts) and laid over a `--filter-config` file into a [`FilterConfig`].

use std::path::PathBuf;

use codemine_filters::rules::normalize_glob;
use codemine_filters::{
    DateError, DateSpec, DateZone, FilterConfig, FilterError, Preset, ZoneError,
};
use miner::lang::{Lang, Registry};

// The filter flags of `codemine mine`; `to_config` turns them into a `FilterConfig`.
// (A plain comment: clap would make a doc comment the `about` of the command that
// flattens these flags.) Their help headings are among those `codemine mine --help`
// groups its flags by (`heading` in help.rs; a test there checks them).
#[derive(Debug, Clone, Default, clap::Args)]
#[command(next_help_heading = "Filtering")]
pub struct FilterArgs {
    /// Apply a published dataset's rules (explicit flags win over the preset's values).
    #[arg(long, value_name = "PRESET", value_parser = preset_parser())]
    pub preset: Option<Preset>,
    /// Read filter settings from a TOML file; flags given here override it.
    #[arg(long, value_name = "FILE")]
    pub filter_config: Option<PathBuf>,
    /// Keep functions last changed on or after DATE (YYYY-MM-DD, a day of --date-timezone;
    /// or RFC 3339).
    #[arg(long, value_name = "DATE", value_parser = parse_date)]
    pub since: Option<DateSpec>,
    /// Keep functions last changed on or before DATE (a YYYY-MM-DD day counts whole).
    #[arg(long, value_name = "DATE", value_parser = parse_date)]
    pub until: Option<DateSpec>,
    /// Keep functions with at least N test-coverage hits (no coverage data: dropped).
    #[arg(long, value_name = "N")]
    pub min_coverage_hits: Option<u64>,
    /// Keep functions of at least N lines (end - start + 1).
    #[arg(long, value_name = "N")]
    pub min_lines: Option<u32>,
    /// Keep functions of at most N lines (end - start + 1).
    #[arg(long, value_name = "N")]
    pub max_lines: Option<u32>,
    /// Keep functions whose docstring summary has at least N tokens.
    #[arg(long, value_name = "N")]
    pub min_docstring_tokens: Option<usize>,
    /// Keep functions whose docstring summary has at most N tokens.
    #[arg(long, value_name = "N")]
    pub max_docstring_tokens: Option<usize>,
    /// Drop functions without a docstring.
    #[arg(long)]
    pub require_docstring: bool,
    /// Keep only functions whose docstring documents exactly the signature's parameters
    /// (none missing, none that the signature lacks; receivers and variadic `*args`,
    /// `...rest` need no entry): rule `param_docs` (docs/docstrings.md).
    #[arg(long)]
    pub require_param_docs: bool,
    /// Keep only these languages (comma-separated: python, java, c, cpp, go, javascript,
    /// typescript, php, ruby; aliases py, c++, golang, js, ts, rb).
    #[arg(long, value_name = "LANG,...", value_delimiter = ',', value_parser = parse_language)]
    pub languages: Option<Vec<String>>,
    /// Drop files whose repository path matches GLOB (repeatable). A pattern without `/`
    /// matches a file name in any folder; `dir/` means that folder at any depth.
    #[arg(long = "exclude", value_name = "GLOB", value_parser = parse_glob)]
    pub exclude: Vec<String>,
    /// Do not apply the built-in excludes for vendored and generated code.
    #[arg(long)]
    pub no_default_excludes: bool,
    /// Keep functions with at most N distinct callers.
    #[arg(long, value_name = "N")]
    pub max_calls_num: Option<u64>,
    /// The time zone of the dd.mm.YYYY dates written (YABLoCo's last_commit) and of
    /// YYYY-MM-DD days in --since/--until: an IANA name (Europe/Moscow) or a fixed offset
    /// (+03:00). Default UTC.
    #[arg(long, value_name = "TZ", value_parser = parse_zone, help_heading = "History and coverage")]
    pub date_timezone: Option<DateZone>,
    /// Keep only functions whose file's license is allowed: SPDX ids and the groups
    /// `permissive` and `copyleft` (comma-separated); unknown licenses are dropped.
    #[arg(long, value_name = "LICENSE,...", value_delimiter = ',')]
    pub licenses: Option<Vec<String>>,
    /// Remove functions that copy an item of this benchmark (JSONL, JSON or Parquet;
    /// NAME=FILE names it, default the file stem). Repeatable.
    #[arg(long, value_name = "[NAME=]FILE", help_heading = "Decontamination")]
    pub decontaminate: Vec<String>,
    /// Drop (code, docstring) pairs whose SIDE score (--side-model) is below F, in [-1, 1];
    /// scored after dedup, on the survivors only.
    #[arg(long, value_name = "F", help_heading = "SIDE")]
    pub min_side: Option<f64>,
}

impl FilterArgs {
    /// The `--filter-config` file (if any) with the flags laid over it.
    pub fn to_config(&self) -> Result<FilterConfig, FilterError> {
        let file = match &self.filter_config {
            Some(path) => FilterConfig::from_toml_file(path)?,
            None => FilterConfig::default(),
        };
        Ok(file.merged(self.flags_config()))
    }

    /// The flags alone, as a config (unset flags are `None`).
    pub fn flags_config(&self) -> FilterConfig {
        FilterConfig {
            preset: self.preset,
            since: self.since.clone(),
            until: self.until.clone(),
            min_coverage_hits: self.min_coverage_hits,
            min_lines: self.min_lines,
            max_lines: self.max_lines,
            min_docstring_tokens: self.min_docstring_tokens,
            max_docstring_tokens: self.max_docstring_tokens,
            // A switch can only turn a rule on; `false` would override a file's `true`.
            require_docstring: self.require_docstring.then_some(true),
            require_param_docs: self.require_param_docs.then_some(true),
            languages: self.languages.clone(),
            exclude: self.exclude.clone(),
            default_excludes: self.no_default_excludes.then_some(false),
            max_calls_num: self.max_calls_num,
            date_timezone: self.date_timezone.clone(),
            licenses: self.licenses.clone(),
            decontaminate: self.decontaminate.clone(),
            min_side: self.min_side,
            // The miner's own flags (`--emit`, `--completion-*`) are laid over by the miner.
            ..FilterConfig::default()
        }
    }
}

fn preset_parser() -> impl clap::builder::TypedValueParser<Value = Preset> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(Preset::ALL.map(|p| p.as_str()))
        .try_map(|s| s.parse::<Preset>())
}

fn parse_date(s: &str) -> Result<DateSpec, String> {
    s.parse().map_err(|e: DateError| e.to_string())
}

fn parse_zone(s: &str) -> Result<DateZone, String> {
    s.parse().map_err(|e: ZoneError| e.to_string())
}

/// A language by the registry's names and aliases, so a typo is a usage error before any
/// work starts.
fn parse_language(s: &str) -> Result<String, String> {
    Lang::from_name(s)
        .map(|l| l.name().to_string())
        .ok_or_else(|| format!("unknown language (known: {})", Lang::known().names()))
}

fn parse_glob(s: &str) -> Result<String, String> {
    normalize_glob(s).map(|_| s.to_string())
}
