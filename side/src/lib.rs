//! SIDE (Mastropaolo et al., "Evaluating Code Summarization Techniques: A New Metric and an
//! Empirical Characterization", ICSE 2024): how well a summary matches its code, as the
//! cosine similarity of the two texts' embeddings under an MPNet sentence encoder fine-tuned
//! with a triplet loss. The embedding follows the reference recipe exactly: the checkpoint's
//! tokenizer (`<s>`/`</s>` added, truncation at `model_max_length`), `MPNetModel`, mean
//! pooling under the attention mask (special tokens included), L2 normalisation.
//!
//! Everything runs in Rust on the CPU ([`mpnet`]: weights read with candle, the forward pass
//! on `gemm`; the `tokenizers` crate); nothing is downloaded: a model is a local Hugging Face
//! checkpoint folder (`config.json`, `tokenizer.json`, `tokenizer_config.json`,
//! `model.safetensors` or `pytorch_model.bin`).
//!
//! ```no_run
//! let side = codemine_side::Side::load("models/side".as_ref())?;
//! let code = "public Object pop() { return stack.remove(stack.size() - 1); }";
//! let scores = side.score(&[(code, "pop the top of the stack")], 1)?;
//! println!("{:.3}", scores[0]);
//! # Ok::<(), codemine_side::SideError>(())
//! ```

//! The model needs candle and tokenizers (about 55 crates): they are the default cargo
//! feature `model`. Built without it, [`Side::load`] says so and nothing else changes.

#[cfg(not(feature = "model"))]
mod absent;
#[cfg(feature = "model")]
mod model;
#[cfg(feature = "model")]
pub mod mpnet;

#[cfg(not(feature = "model"))]
pub use absent::Side;
#[cfg(feature = "model")]
pub use model::Side;

use std::path::PathBuf;

/// What can go wrong loading or running a model; every variant names the file it is about.
#[derive(Debug, thiserror::Error)]
pub enum SideError {
    #[error("{}: missing (a SIDE model folder has config.json, tokenizer.json, tokenizer_config.json and model.safetensors or pytorch_model.bin)", .0.display())]
    Missing(PathBuf),
    /// The file is there but cannot be read: not a regular file (a FIFO, a device), too
    /// large, or unreadable.
    #[error("{}: {message}", path.display())]
    Unreadable { path: PathBuf, message: String },
    #[error("{}: {message}", path.display())]
    Malformed { path: PathBuf, message: String },
    #[error("{}: model_type is {found:?}; SIDE needs an MPNet checkpoint (model_type \"mpnet\")", path.display())]
    NotMpnet { path: PathBuf, found: String },
    #[error("{}: {message}", path.display())]
    Weights { path: PathBuf, message: String },
    #[error("tokenizing: {0}")]
    Tokenize(String),
    #[cfg(feature = "model")]
    #[error("running the model: {0}")]
    Inference(#[from] candle_core::Error),
    /// This build of codemine has no SIDE model (built without the cargo feature `model`
    /// of codemine-side, `side` of codemine).
    #[error("{}: this codemine was built without SIDE (cargo feature `side`)", .0.display())]
    NotBuilt(PathBuf),
}

/// The most bytes read of a model's JSON files (a large tokenizer.json is tens of MB).
pub const MAX_JSON_BYTES: u64 = 256 << 20;
/// The most bytes read of a weights file (MPNet base is 438 MB in float32).
pub const MAX_WEIGHTS_BYTES: u64 = 16 << 30;

/// Texts per forward pass at most.
pub const BATCH: usize = 32;

/// Tokens per forward pass at most (but one text): bounds a pass's buffers (about 32 MB
/// with a base-size model), while keeping its matrix products large enough to be efficient.
pub const TOKEN_BUDGET: usize = 1024;
