//! The configuration (a table of codemine's filter TOML, `[pii]`) and the allow list it
//! compiles to: values that look like personal data or secrets but are known not to be.
//!
//! ```toml
//! [pii]
//! allow = ["AKIAEXAMPLEEXAMPLE12", "hunter2-fixture"]   # exact values, never reported
//! allow_patterns = ["^test_[a-z0-9]+$"]                 # regexes searched in a value
//! allow_email_domains = ["corp.invalid"]                 # addresses at these domains
//! builtin_allow = true                                   # the built-in list below
//! skip_kinds = ["ip_address"]                            # kinds not looked for at all
//! max_text_bytes = 16777216                              # longer texts are refused
//! ```
//!
//! The built-in list ([`BUILTIN_VALUES`], [`BUILTIN_EMAIL_DOMAINS`], [`BUILTIN_PATTERN`]):
//! the example keys of AWS's, GitHub's and Azure's documentation and jwt.io's sample token;
//! addresses at the domains RFC 2606 and RFC 6761 reserve for examples and tests; and, for
//! secrets only, values that say they are not real (`EXAMPLE`, `dummy`, `changeme`,
//! `your_api_key`, `xxxx`, `test`, `password`, ...).

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

use crate::kind::{Category, Kind};

/// The default of [`PiiConfig::max_text_bytes`]: 16 MiB, far above any function's text
/// (the miner splits larger files into windows), so that a caller never holds more than a
/// bounded amount of findings for one text.
pub const DEFAULT_MAX_TEXT_BYTES: usize = 16 * 1024 * 1024;

/// The most user patterns, and the largest compiled size of each (regex's size limit).
const MAX_PATTERNS: usize = 1000;
const PATTERN_SIZE_LIMIT: usize = 1 << 20;

/// What the `[pii]` table of a filter config holds. Every field has a default, so an
/// empty table (or none) is the built-in behaviour.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct PiiConfig {
    /// Values never reported, compared exactly with the finding's text.
    pub allow: Vec<String>,
    /// Regular expressions (Rust `regex` syntax); a finding whose text contains a match
    /// is not reported (anchor with `^...$` for whole values).
    pub allow_patterns: Vec<String>,
    /// E-mail domains whose addresses are not reported (a domain and its subdomains).
    pub allow_email_domains: Vec<String>,
    /// Whether the built-in allow list applies too.
    pub builtin_allow: bool,
    /// Kinds not looked for.
    pub skip_kinds: Vec<Kind>,
    /// Texts longer than this many bytes are refused ([`crate::PiiError::TooLarge`]).
    pub max_text_bytes: usize,
}

impl Default for PiiConfig {
    fn default() -> Self {
        PiiConfig {
            allow: Vec::new(),
            allow_patterns: Vec::new(),
            allow_email_domains: Vec::new(),
            builtin_allow: true,
            skip_kinds: Vec::new(),
            max_text_bytes: DEFAULT_MAX_TEXT_BYTES,
        }
    }
}

/// A configuration that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("pii.allow_patterns[{index}] `{pattern}` is not a valid regular expression: {source}")]
    BadPattern {
        index: usize,
        pattern: String,
        #[source]
        source: Box<regex::Error>,
    },
    #[error("pii.allow_patterns has {0} patterns; at most {MAX_PATTERNS} are allowed")]
    TooManyPatterns(usize),
    #[error("pii.max_text_bytes must be at least 1")]
    ZeroLimit,
    #[error("pii.allow_email_domains[{0}] is empty")]
    EmptyDomain(usize),
    /// A built-in automaton or pattern failed to build (a bug, never the input's fault).
    #[error("codemine-pii could not build its detector: {0}")]
    Internal(String),
}

/// Documentation example values, never real credentials.
pub const BUILTIN_VALUES: &[&str] = &[
    // AWS's documentation (IAM user guide, CLI configuration).
    "AKIAIOSFODNN7EXAMPLE",
    "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "AKIAI44QH8DHBEXAMPLE",
    "je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY",
    // GitHub's REST API documentation.
    "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
    // The Azure storage emulator's published account key (devstoreaccount1).
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==",
    // jwt.io's sample token.
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
    // Git hosts' SSH users (`git@github.com:owner/repo.git`) are not anyone's address.
    "git@github.com",
    "git@gitlab.com",
    "git@bitbucket.org",
];

/// RFC 2606 and RFC 6761 names reserved for examples, tests and local use.
pub const BUILTIN_EMAIL_DOMAINS: &[&str] = &[
    "example.com",
    "example.net",
    "example.org",
    "example",
    "test",
    "invalid",
    "localhost",
];

/// Values of secrets that say they are fixtures or placeholders (case-insensitive).
pub const BUILTIN_PATTERN: &str = concat!(
    r"(?i)example|dummy|placeholder|changeme|change_me|fixme|redacted|fake|sample",
    r"|your[_-]?(?:api[_-]?)?(?:key|token|secret|password)|^x{4,}|x{8,}|\*{3,}",
    r"|^(?:test|testing|tests|password|passwd|pass|secret|token|key|foo|bar|baz|foobar|qwerty",
    r"|none|null|nil|true|false|undefined|empty|default|admin|root|user|guest|letmein)\d*$",
);

/// The compiled allow list.
#[derive(Debug)]
pub(crate) struct Allow {
    values: HashSet<String>,
    patterns: Vec<regex::Regex>,
    secret_pattern: Option<regex::Regex>,
    email_domains: Vec<String>,
}

impl Allow {
    pub(crate) fn new(config: &PiiConfig) -> Result<Allow, ConfigError> {
        if config.max_text_bytes == 0 {
            return Err(ConfigError::ZeroLimit);
        }
        if config.allow_patterns.len() > MAX_PATTERNS {
            return Err(ConfigError::TooManyPatterns(config.allow_patterns.len()));
        }
        let patterns = config
            .allow_patterns
            .iter()
            .enumerate()
            .map(|(index, p)| {
                regex::RegexBuilder::new(p)
                    .size_limit(PATTERN_SIZE_LIMIT)
                    .build()
                    .map_err(|e| ConfigError::BadPattern {
                        index,
                        pattern: p.clone(),
                        source: Box::new(e),
                    })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let mut email_domains = Vec::new();
        for (i, d) in config.allow_email_domains.iter().enumerate() {
            let d = d
                .trim()
                .trim_start_matches('@')
                .trim_start_matches('.')
                .to_ascii_lowercase();
            if d.is_empty() {
                return Err(ConfigError::EmptyDomain(i));
            }
            email_domains.push(d);
        }
        let mut values: HashSet<String> = config.allow.iter().cloned().collect();
        let mut secret_pattern = None;
        if config.builtin_allow {
            values.extend(BUILTIN_VALUES.iter().map(|v| v.to_string()));
            email_domains.extend(BUILTIN_EMAIL_DOMAINS.iter().map(|d| d.to_string()));
            // A constant pattern, checked by the tests: it always compiles.
            secret_pattern = regex::Regex::new(BUILTIN_PATTERN).ok();
        }
        Ok(Allow {
            values,
            patterns,
            secret_pattern,
            email_domains,
        })
    }

    /// Whether a finding of `kind` with text `value` is known not to be sensitive.
    pub(crate) fn allows(&self, kind: Kind, value: &str) -> bool {
        if self.values.contains(value) || self.patterns.iter().any(|p| p.is_match(value)) {
            return true;
        }
        match kind.category() {
            Category::Secret => self
                .secret_pattern
                .as_ref()
                .is_some_and(|p| p.is_match(value)),
            Category::PersonalData if kind == Kind::Email => {
                let domain = value.rsplit('@').next().unwrap_or("").to_ascii_lowercase();
                self.email_domains.iter().any(|d| {
                    domain == *d
                        || domain
                            .strip_suffix(d.as_str())
                            .is_some_and(|p| p.ends_with('.'))
                })
            }
            Category::PersonalData => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_pattern_compiles_and_means_what_it_says() {
        let allow = Allow::new(&PiiConfig::default()).unwrap();
        assert!(allow.allows(Kind::AwsAccessKeyId, "AKIAIOSFODNN7EXAMPLE"));
        assert!(allow.allows(Kind::Password, "changeme"));
        assert!(allow.allows(Kind::Password, "test123"));
        assert!(allow.allows(Kind::Secret, "your_api_key_here"));
        assert!(!allow.allows(Kind::Password, "hunter22"));
        assert!(allow.allows(Kind::Email, "jane@example.com"));
        assert!(allow.allows(Kind::Email, "jane@mail.example.org"));
        assert!(!allow.allows(Kind::Email, "jane@myexample.com"));
        // The secret patterns do not hide personal data.
        assert!(!allow.allows(Kind::Email, "sample@corp.io"));
    }

    #[test]
    fn errors() {
        let bad = PiiConfig {
            allow_patterns: vec!["(".into()],
            ..PiiConfig::default()
        };
        let e = Allow::new(&bad).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("pii.allow_patterns[0] `(` is not a valid"),
            "{e}"
        );
        let zero = PiiConfig {
            max_text_bytes: 0,
            ..PiiConfig::default()
        };
        assert!(matches!(Allow::new(&zero), Err(ConfigError::ZeroLimit)));
    }
}
