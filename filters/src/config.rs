//! What a user can set: [`FilterConfig`], from a TOML file or from the command line's flags
//! (the CLI crate turns its flags into one), every field optional so the two can be layered.
//!
//! A bad date, number or glob in a file is an error naming the key; the rest (an unknown
//! language, min above max, a preset's bound against an explicit one) is checked by
//! [`crate::Filter::compile`].

use std::fmt;
use std::path::{Path, PathBuf};

use crate::date::{DateSpec, DateZone};
use crate::error::FilterError;

/// A published dataset's filtering rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
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
    /// Every preset, in the order help texts list them.
    pub const ALL: [Preset; 3] = [Preset::Csn, Preset::Codexglue, Preset::Yabloco];

    /// The name used on the command line, in TOML and in stats.
    pub fn as_str(self) -> &'static str {
        match self {
            Preset::Csn => "csn",
            Preset::Codexglue => "codexglue",
            Preset::Yabloco => "yabloco",
        }
    }
}

impl std::str::FromStr for Preset {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Preset::ALL
            .into_iter()
            .find(|p| p.as_str() == s)
            .ok_or_else(|| format!("unknown preset `{s}` (known: csn, codexglue, yabloco)"))
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
    /// Keep only functions whose docstring documents exactly the signature's parameters
    /// (rule `param_docs`).
    pub require_param_docs: Option<bool>,
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
    /// The personal-data and secrets scan's settings (allow list, kinds skipped); the
    /// miner reads them (see `codemine mine --pii`).
    pub pii: Option<codemine_pii::PiiConfig>,
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
            require_param_docs: overrides.require_param_docs.or(self.require_param_docs),
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
            pii: overrides.pii.or(self.pii),
        }
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
