//! Output tables of codemine: record types, their Arrow schemas, and the rolling Parquet
//! shard writer that every table uses.
//!
//! Each table implements [`Table`]: it declares its schema once, buffers rows in Arrow
//! builders and turns them into record batches. [`ShardWriter`] streams those batches into
//! Parquet files that roll over at a size limit, written under temporary names and renamed
//! to the Hugging Face `{split}-{index:05}-of-{count:05}.parquet` names only when the run
//! closes them, so an interrupted run never leaves a truncated file that looks complete.
//!
//! ```no_run
//! use codemine_schemas::{csn::{CsnRow, CsnTable}, ShardWriter, ShardOptions};
//! let mut w = ShardWriter::<CsnTable>::new("out/csn".as_ref(), "train", ShardOptions::default())?;
//! # let row: CsnRow = unimplemented!();
//! w.push(&row)?;
//! let files = w.finish(false)?; // renames the shards to train-00000-of-0000N.parquet
//! # Ok::<(), codemine_schemas::Error>(())
//! ```

pub mod callgraph;
pub mod completion;
pub mod csn;
pub mod dedup;
pub mod docstring_params;
pub mod dropped;
pub mod intern;
pub mod layout;
pub mod pii;
pub mod repo_completion;
pub mod repositories;
mod shard;
pub mod staged;
pub mod tasks;
pub mod tests;
pub mod tokens;
pub mod yabloco;

pub use shard::{
    clear_shards, encode, list_files, remove_files, shard_files, ShardOptions, ShardWriter, Table,
    ENCODE_BATCH_ROWS,
};

use std::path::PathBuf;

/// Errors of the write stage. Each names the file it concerns.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: parquet: {source}")]
    Parquet {
        path: PathBuf,
        #[source]
        source: parquet::errors::ParquetError,
    },
    #[error("{path}: {reason}")]
    BadFile { path: PathBuf, reason: String },
    #[error("arrow: {0}")]
    Arrow(#[from] arrow_schema::ArrowError),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The dataset split a row belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Split {
    Train,
    Valid,
    Test,
}

impl Split {
    pub const ALL: [Split; 3] = [Split::Train, Split::Valid, Split::Test];

    /// The split named `train`, `valid` or `test`.
    pub fn parse(name: &str) -> Option<Split> {
        Split::ALL.into_iter().find(|s| s.as_str() == name)
    }

    /// 0 train, 1 valid, 2 test.
    pub fn index(self) -> u8 {
        self as u8
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Split::Train => "train",
            Split::Valid => "valid",
            Split::Test => "test",
        }
    }
}
