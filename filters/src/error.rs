//! The one error type of the crate: every variant names where the problem is (the config
//! file and its key, or the option), because these errors end up in front of a user who
//! has to fix a flag or a line of TOML.

use std::path::PathBuf;

/// A filter configuration that cannot be read or does not make sense.
#[derive(Debug, thiserror::Error)]
pub enum FilterError {
    /// The config file could not be read at all.
    #[error("{}: {source}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The config file is not valid TOML, or a key's value does not fit (bad date, bad
    /// number, unknown key). `key` is empty when the problem is not under one key (a TOML
    /// syntax error, an unknown top-level key: the message then names it).
    #[error("{}: {}{message}{}", path.display(), key_prefix(key), line_suffix(*line))]
    Config {
        path: PathBuf,
        key: String,
        message: String,
        line: Option<usize>,
    },
    /// A setting that parses but cannot be used: an invalid glob, min above max, an unknown
    /// language. `option` is the TOML key (the flag is the same name with dashes).
    #[error("{option}: {message}")]
    Invalid { option: String, message: String },
}

fn key_prefix(key: &str) -> String {
    if key.is_empty() {
        String::new()
    } else {
        format!("{key}: ")
    }
}

fn line_suffix(line: Option<usize>) -> String {
    line.map(|l| format!(" (line {l})")).unwrap_or_default()
}

impl FilterError {
    pub(crate) fn invalid(option: &str, message: impl Into<String>) -> Self {
        FilterError::Invalid {
            option: option.to_string(),
            message: message.into(),
        }
    }
}
