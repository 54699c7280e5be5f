//! What a user can set: [`FilterConfig`] (TOML file or flags, every field optional so the
//! two can be layered) and [`FilterArgs`], the clap flags that produce one.
//!
//! Everything that can be checked while parsing is checked there, so a bad date, number,
//! language or glob on the command line is a usage error naming the flag before any work
//! starts; the rest (min above max, a preset's bound against an explicit one) is checked by
//! [`FilterConfig::compile`].

use std::fmt;
use std::path::{Path, PathBuf};

use crate::date::{DateSpec, DateZone};
use crate::error::FilterError;
use crate::filter::Filter;
use crate::rules::{canonical_language, normalize_glob, LANGUAGES};

/// A published dataset's filtering rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Preset {
    /// CodeSearchNet (Husain et al., 2019).
    Csn,
    /// CodeXGLUE code-to-text: CodeSearchNet's rules and a cleaner docstring.
    Codexglue,
    /// YABLoCo (long-context code generation benchmark).
    Yabloco,
}

impl Preset {
    /// The name used on the command line, in TOML and in stats.
    pub fn as_str(self) -> &'static str {
        match self {
            Preset::Csn => "csn",
            Preset::Codexglue => "codexglue",
            Preset::Yabloco => "yabloco",
        }
    }
}

impl fmt::Display for Preset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Everything a user can set, from flags or a TOML file; all optional so flags can
/// override the file. The TOML keys are the field names.
#[derive(Debug, Default, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FilterConfig {
    /// A published dataset's rules; explicit settings below win over the preset's.
    pub preset: Option<Preset>,
    /// Keep functions whose last commit is on or after this date.
    pub since: Option<DateSpec>,
    /// Keep functions whose last commit is on or before this date (a day: all of it).
    pub until: Option<DateSpec>,
    /// Keep functions with at least this many test-coverage hits (no coverage data fails).
    pub min_coverage_hits: Option<u64>,
    /// Minimum function length in lines (end - start + 1).
    pub min_lines: Option<u32>,
    /// Maximum function length in lines (end - start + 1).
    pub max_lines: Option<u32>,
    /// Minimum docstring summary tokens (CodeSearchNet tokenization).
    pub min_docstring_tokens: Option<usize>,
    /// Maximum docstring summary tokens (CodeSearchNet tokenization).
    pub max_docstring_tokens: Option<usize>,
    /// Drop functions without a docstring.
    pub require_docstring: Option<bool>,
    /// Keep only these languages (python, java, c, cpp, go, javascript, typescript, php,
    /// ruby).
    pub languages: Option<Vec<String>>,
    /// Drop files whose repository path matches one of these globs.
    #[serde(default)]
    pub exclude: Vec<String>,
    /// Whether the built-in excludes for vendored and generated code apply when filtering
    /// is active (default true).
    pub default_excludes: Option<bool>,
    /// Maximum number of distinct callers (YABLoCo's `calls_num`).
    pub max_calls_num: Option<u64>,
    /// The time zone of `YYYY-MM-DD` bounds and of the `dd.mm.YYYY` dates written (UTC).
    pub date_timezone: Option<DateZone>,
    /// Keep only functions whose file's license is one of these (SPDX ids, `permissive`,
    /// `copyleft`).
    pub licenses: Option<Vec<String>>,
    /// Benchmark files (`FILE` or `NAME=FILE`) whose code is removed from the dataset;
    /// the miner reads them (see `codemine mine --decontaminate`).
    #[serde(default)]
    pub decontaminate: Vec<String>,
    /// Drop (code, docstring) pairs whose SIDE score is below this (needs `--side-model`);
    /// applied after dedup, to the survivors only.
    pub min_side: Option<f64>,
    /// Extra outputs (`completion`); the miner reads them (see `codemine mine --emit`).
    #[serde(default)]
    pub emit: Vec<String>,
    /// The seed of the line-level completion cuts (`--completion-seed`).
    pub completion_seed: Option<u64>,
    /// Line-level completion cuts per file (`--completion-cuts`).
    pub completion_cuts: Option<u64>,
    /// A `literals.json` replacing the shipped ones (`--completion-literals`).
    pub completion_literals: Option<PathBuf>,
}

impl FilterConfig {
    /// Reads a TOML config. A bad date, number or unknown key is an error naming the file,
    /// the key and the line.
    pub fn from_toml_file(path: &Path) -> Result<Self, FilterError> {
        // Only a regular file, and a bounded one (a FIFO or /dev/zero named as the config
        // would hang or fill memory).
        let text =
            codemine_io::read_regular_string(path, codemine_io::MAX_TEXT_BYTES).map_err(|e| {
                FilterError::Read {
                    path: path.to_path_buf(),
                    source: e.into(),
                }
            })?;
        Self::from_toml_str(&text, path)
    }

    /// Parses TOML text; `path` is only used in error messages.
    pub fn from_toml_str(text: &str, path: &Path) -> Result<Self, FilterError> {
        let error = |key: String, e: toml::de::Error| {
            let line = e.span().map(|s| line_of(text, s.start));
            // A TOML syntax error (`since = 2021-13-01` is one) has no serde path: name
            // the key its line assigns, if it does.
            let key = match (key.is_empty(), line) {
                (true, Some(l)) => key_on_line(text, l).unwrap_or_default(),
                _ => key,
            };
            FilterError::Config {
                path: path.to_path_buf(),
                key,
                message: e.message().trim().to_string(),
                line,
            }
        };
        let de = toml::Deserializer::parse(text).map_err(|e| error(String::new(), e))?;
        serde_path_to_error::deserialize(de).map_err(|e| {
            let key = e.path().to_string();
            // The root path prints as "."; an unknown key's message names the key itself.
            let key = if key == "." { String::new() } else { key };
            error(key, e.into_inner())
        })
    }

    /// This config with `overrides` laid over it: every field set in `overrides` wins, and
    /// the exclude lists are concatenated (this config's first).
    pub fn merged(self, overrides: FilterConfig) -> FilterConfig {
        let mut exclude = self.exclude;
        exclude.extend(overrides.exclude);
        let mut decontaminate = self.decontaminate;
        decontaminate.extend(overrides.decontaminate);
        let mut emit = self.emit;
        for e in overrides.emit {
            if !emit.contains(&e) {
                emit.push(e);
            }
        }
        FilterConfig {
            preset: overrides.preset.or(self.preset),
            since: overrides.since.or(self.since),
            until: overrides.until.or(self.until),
            min_coverage_hits: overrides.min_coverage_hits.or(self.min_coverage_hits),
            min_lines: overrides.min_lines.or(self.min_lines),
            max_lines: overrides.max_lines.or(self.max_lines),
            min_docstring_tokens: overrides.min_docstring_tokens.or(self.min_docstring_tokens),
            max_docstring_tokens: overrides.max_docstring_tokens.or(self.max_docstring_tokens),
            require_docstring: overrides.require_docstring.or(self.require_docstring),
            languages: overrides.languages.or(self.languages),
            exclude,
            default_excludes: overrides.default_excludes.or(self.default_excludes),
            max_calls_num: overrides.max_calls_num.or(self.max_calls_num),
            date_timezone: overrides.date_timezone.or(self.date_timezone),
            licenses: overrides.licenses.or(self.licenses),
            decontaminate,
            min_side: overrides.min_side.or(self.min_side),
            emit,
            completion_seed: overrides.completion_seed.or(self.completion_seed),
            completion_cuts: overrides.completion_cuts.or(self.completion_cuts),
            completion_literals: overrides.completion_literals.or(self.completion_literals),
        }
    }

    /// Checks the settings and builds the rule list. Errors name the option: an invalid
    /// glob, an unknown language, a minimum above its maximum (the preset's bound included).
    pub fn compile(&self) -> Result<Filter, FilterError> {
        Filter::compile(self)
    }
}

/// The bare key a `key = value` line assigns.
fn key_on_line(text: &str, line: usize) -> Option<String> {
    let (key, _) = text.lines().nth(line.checked_sub(1)?)?.split_once('=')?;
    let key = key.trim();
    let bare = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    bare.then(|| key.to_string())
}

fn line_of(text: &str, offset: usize) -> usize {
    let end = offset.min(text.len());
    text.as_bytes()[..end]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

// The filter flags of `codemine mine`; `to_config` turns them into a `FilterConfig`.
// (A plain comment: clap would make a doc comment the `about` of the command that
// flattens these flags.) Their help headings are among those `codemine mine --help`
// groups its flags by (miner's cli.rs, `heading`; a test there checks them).
#[derive(Debug, Clone, Default, clap::Args)]
#[command(next_help_heading = "Filtering")]
pub struct FilterArgs {
    /// Apply a published dataset's rules (explicit flags win over the preset's values).
    #[arg(long, value_enum, value_name = "PRESET")]
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

fn parse_date(s: &str) -> Result<DateSpec, String> {
    s.parse().map_err(|e: crate::date::DateError| e.to_string())
}

fn parse_zone(s: &str) -> Result<DateZone, String> {
    s.parse().map_err(|e: crate::date::ZoneError| e.to_string())
}

fn parse_language(s: &str) -> Result<String, String> {
    canonical_language(s)
        .map(str::to_string)
        .ok_or_else(|| format!("unknown language (known: {})", LANGUAGES.join(", ")))
}

fn parse_glob(s: &str) -> Result<String, String> {
    normalize_glob(s).map(|_| s.to_string())
}
