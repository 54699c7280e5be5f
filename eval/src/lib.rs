//! `codemine eval`: scores predictions against the references of a mined dataset with
//! the metrics the field reports, matching the reference implementations' numbers.
//!
//! - [`summarization`]: code → docstring metrics (CodeXGLUE smoothed BLEU, nltk corpus
//!   BLEU, ROUGE-L, METEOR, CIDEr); [`wordnet`]: the WordNet database of METEOR's synonym
//!   stage; [`bleu`]: the six BLEU variants code-summarization papers report (Shi et al.,
//!   ICSE 2022) and nltk's sentence BLEU with each smoothing method.
//! - [`generation`]: docstring + context → body metrics (exact match, edit similarity).
//! - [`codebleu`]: CodeBLEU for Python, Java, C and C++.
//! - [`repo_completion`]: repository-level completion rows: CrossCodeEval's identifier
//!   exact match and F1, recall@k of the gold cross-file context.
//! - [`pytext`], [`pytokenize`]: the parts of CPython the references depend on (string
//!   methods, `re` classes, the `tokenize` module), also used by the miner's completion
//!   outputs.
//! - [`metric`]: the registry every metric plugs into ([`metric::Scorer`]).
//! - [`dataset`]: reading the dataset's Parquet shards and the predictions, and joining
//!   them by row id; [`report`]: the terminal table, JSON and per-example output.
//!
//! ```no_run
//! use codemine_eval::{evaluate, EvalOptions, Task};
//! let opts = EvalOptions {
//!     data: vec!["out".into()],
//!     task: Some(Task::Summarization),
//!     predictions: Some("predictions.jsonl".into()),
//!     ..EvalOptions::default()
//! };
//! let ev = evaluate(&opts)?;
//! println!("{}", codemine_eval::report::table(&ev));
//! # Ok::<(), codemine_eval::Error>(())
//! ```

use std::path::PathBuf;

pub mod bleu;
pub mod codebleu;
pub mod dataset;
pub mod generation;
pub mod metric;
pub mod porter;
pub mod pytext;
pub mod pytokenize;
pub mod repo_completion;
pub mod report;
pub mod summarization;
pub mod wordnet;

pub use dataset::{evaluate, EvalOptions, Evaluation};

/// What is being evaluated: it decides the default files, columns and metrics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Task {
    /// Code → docstring, on the CodeSearchNet-shaped table.
    Summarization,
    /// Docstring + context → function body, on the YABLoCo-shaped table.
    Generation,
}

impl Task {
    pub fn as_str(self) -> &'static str {
        match self {
            Task::Summarization => "summarization",
            Task::Generation => "generation",
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: {source}")]
    Parquet {
        path: PathBuf,
        #[source]
        source: parquet::errors::ParquetError,
    },
    #[error("{path}: {source}")]
    Arrow {
        path: PathBuf,
        #[source]
        source: arrow_schema::ArrowError,
    },
    /// A predictions file that cannot be read (1-based line, or 0 for the whole file).
    #[error("{path}:{line}: {message}")]
    Predictions {
        path: PathBuf,
        line: usize,
        message: String,
    },
    /// A WordNet database file that cannot be read (1-based line, or 0 for the whole file).
    #[error("{path}:{line}: {message}")]
    WordNet {
        path: PathBuf,
        line: usize,
        message: String,
    },
    /// Options that do not fit the data (unknown metric or column, no files, ...).
    #[error("{0}")]
    Usage(String),
    /// Dataset and predictions ids that do not match.
    #[error("{0}")]
    Mismatch(String),
    /// A dataset whose contents cannot be scored (a column of an unsupported type, ids
    /// that repeat, ...).
    #[error("{0}")]
    Data(String),
}
