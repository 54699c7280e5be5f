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

pub mod mpnet;

use std::path::{Path, PathBuf};

use std::sync::atomic::{AtomicUsize, Ordering};

use candle_core::{DType, Device};
use candle_nn::VarBuilder;
use rayon::prelude::*;
use tokenizers::{Tokenizer, TruncationParams};

use mpnet::{Config, MpNet, Scratch};

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
    #[error("running the model: {0}")]
    Inference(#[from] candle_core::Error),
}

/// A loaded SIDE model (or any MPNet sentence-transformers model).
pub struct Side {
    model: MpNet,
    tokenizer: Tokenizer,
    max_len: usize,
    digest: String,
}

/// The most bytes read of a model's JSON files (a large tokenizer.json is tens of MB).
pub const MAX_JSON_BYTES: u64 = 256 << 20;
/// The most bytes read of a weights file (MPNet base is 438 MB in float32).
pub const MAX_WEIGHTS_BYTES: u64 = 16 << 30;

/// A model file, opened as a regular file of at most `limit` bytes.
fn open_file(p: &Path, limit: u64) -> Result<std::fs::File, SideError> {
    let unreadable = |message: String| SideError::Unreadable {
        path: p.to_path_buf(),
        message,
    };
    let file = codemine_io::open_regular(p, codemine_io::Follow::Yes).map_err(|e| match e {
        codemine_io::ReadError::Io(e) if e.kind() == std::io::ErrorKind::NotFound => {
            SideError::Missing(p.to_path_buf())
        }
        other => unreadable(other.to_string()),
    })?;
    let len = file
        .metadata()
        .map_err(|e| unreadable(e.to_string()))?
        .len();
    if len > limit {
        return Err(unreadable(format!(
            "{len} bytes, over the limit of {limit}"
        )));
    }
    Ok(file)
}

/// A model file's bytes (see [`open_file`]).
fn read_file(p: &Path, limit: u64) -> Result<Vec<u8>, SideError> {
    let file = open_file(p, limit)?;
    codemine_io::read_file(file, limit).map_err(|e| SideError::Unreadable {
        path: p.to_path_buf(),
        message: e.to_string(),
    })
}

/// Feeds an open file's bytes to `digest`, in pieces.
fn hash_file(
    file: &std::fs::File,
    p: &Path,
    digest: &mut xxhash_rust::xxh3::Xxh3,
) -> Result<(), SideError> {
    use std::io::Read;
    let name = p
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    digest.update(name.as_bytes());
    digest.update(&len.to_le_bytes());
    let mut buf = vec![0u8; 1 << 20];
    let mut r = file;
    loop {
        match r.read(&mut buf) {
            Ok(0) => return Ok(()),
            Ok(n) => digest.update(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => {
                return Err(SideError::Unreadable {
                    path: p.to_path_buf(),
                    message: e.to_string(),
                })
            }
        }
    }
}

/// The path through which the open `file` itself is reopened: `/proc/self/fd/N` on Linux,
/// so that a file swapped in after the check is not the one read; else `p`.
fn pinned_path(file: &std::fs::File, p: &Path) -> PathBuf {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        let fd = PathBuf::from(format!("/proc/self/fd/{}", file.as_raw_fd()));
        if fd.exists() {
            return fd;
        }
    }
    let _ = file;
    p.to_path_buf()
}

/// Texts per forward pass at most.
pub const BATCH: usize = 32;

/// Tokens per forward pass at most (but one text): bounds a pass's buffers (about 32 MB
/// with a base-size model), while keeping its matrix products large enough to be efficient.
pub const TOKEN_BUDGET: usize = 1024;

impl Side {
    /// Loads a checkpoint folder; missing or malformed files are errors naming the file and
    /// the reason. Every file is read once, as a regular file of bounded size (a FIFO or a
    /// link to a device is refused as what it is, not waited on or read without end), and
    /// hashed as it is read ([`Side::digest`]).
    pub fn load(dir: &Path) -> Result<Self, SideError> {
        let mut digest = xxhash_rust::xxh3::Xxh3::new();
        let mut read = |name: &str, limit: u64| -> Result<(PathBuf, Vec<u8>), SideError> {
            let p = dir.join(name);
            let bytes = read_file(&p, limit)?;
            digest.update(name.as_bytes());
            digest.update(&(bytes.len() as u64).to_le_bytes());
            digest.update(&bytes);
            Ok((p, bytes))
        };
        let json = |p: &Path, bytes: &[u8]| -> Result<serde_json::Value, SideError> {
            serde_json::from_slice(bytes).map_err(|e| SideError::Malformed {
                path: p.to_path_buf(),
                message: format!("not JSON: {e}"),
            })
        };
        let (config_path, bytes) = read("config.json", MAX_JSON_BYTES)?;
        let raw = json(&config_path, &bytes)?;
        let found = raw
            .get("model_type")
            .and_then(|v| v.as_str())
            .unwrap_or("")
            .to_string();
        if found != "mpnet" {
            return Err(SideError::NotMpnet {
                path: config_path,
                found,
            });
        }
        let cfg: Config = serde_json::from_value(raw).map_err(|e| SideError::Malformed {
            path: config_path.clone(),
            message: e.to_string(),
        })?;
        let bad_config = |message: String| SideError::Malformed {
            path: config_path.clone(),
            message,
        };
        if cfg.hidden_act != "gelu" {
            return Err(bad_config(format!(
                "hidden_act {:?} (MPNet uses \"gelu\")",
                cfg.hidden_act
            )));
        }
        if cfg.num_attention_heads == 0 || !cfg.hidden_size.is_multiple_of(cfg.num_attention_heads)
        {
            return Err(bad_config(
                "hidden_size is not a multiple of num_attention_heads".into(),
            ));
        }
        // Positions run from pad + 1: a text has room for max_positions - pad - 1 tokens.
        let positions = cfg
            .max_position_embeddings
            .checked_sub(cfg.pad_token_id as usize + 1)
            .filter(|&n| n >= 2)
            .ok_or_else(|| {
                bad_config(format!(
                    "max_position_embeddings {} leaves no room for a text after pad_token_id {}",
                    cfg.max_position_embeddings, cfg.pad_token_id
                ))
            })?;

        let (tok_path, bytes) = read("tokenizer.json", MAX_JSON_BYTES)?;
        let mut tokenizer = Tokenizer::from_bytes(&bytes).map_err(|e| SideError::Malformed {
            path: tok_path.clone(),
            message: e.to_string(),
        })?;
        drop(bytes);
        let (tc_path, bytes) = read("tokenizer_config.json", MAX_JSON_BYTES)?;
        let tc = json(&tc_path, &bytes)?;
        // transformers' default when the config has none (a huge sentinel) means: the model's
        // positions decide.
        let max_len = match tc.get("model_max_length").and_then(|v| v.as_f64()) {
            Some(m) if (1.0..1e12).contains(&m) => {
                let m = m as usize;
                // A longer text would index past the position table, as it does in
                // transformers: refused here, before any work, not after a whole mining run.
                if m > positions {
                    return Err(SideError::Malformed {
                        path: tc_path,
                        message: format!(
                            "model_max_length {m} is beyond the model's {positions} positions \
                             (config.json: max_position_embeddings {} less pad_token_id {} + 1)",
                            cfg.max_position_embeddings, cfg.pad_token_id
                        ),
                    });
                }
                m
            }
            _ => positions,
        };
        // The file's own padding and truncation settings are not the reference's.
        tokenizer.with_padding(None);
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: max_len,
                ..Default::default()
            }))
            .map_err(|e| SideError::Malformed {
                path: tok_path,
                message: e.to_string(),
            })?;

        let device = Device::Cpu;
        // The open weights file outlives the model's loading: candle reopens it per tensor.
        let mut _weights_file = None;
        // model.safetensors when the folder has one (of whatever type: a FIFO named so is
        // an error about it), else pytorch_model.bin.
        let st = dir.join("model.safetensors");
        let bin = dir.join("pytorch_model.bin");
        let (weights, vb) = if std::fs::symlink_metadata(&st).is_ok() {
            let (st, data) = read("model.safetensors", MAX_WEIGHTS_BYTES)?;
            let vb = VarBuilder::from_buffered_safetensors(data, DType::F32, &device);
            (st, vb)
        } else if std::fs::symlink_metadata(&bin).is_ok() {
            // candle reads the zip archive itself, by path: the file is checked and hashed
            // first, and on Linux candle opens that very file through /proc/self/fd.
            let file = open_file(&bin, MAX_WEIGHTS_BYTES)?;
            hash_file(&file, &bin, &mut digest)?;
            let pinned = pinned_path(&file, &bin);
            let vb = VarBuilder::from_pth(&pinned, DType::F32, &device);
            _weights_file = Some(file);
            (bin, vb)
        } else {
            return Err(SideError::Missing(st));
        };
        let vb = vb.map_err(|e| SideError::Weights {
            path: weights.clone(),
            message: e.to_string(),
        })?;
        let model = MpNet::load(vb, &cfg).map_err(|e| SideError::Weights {
            path: weights,
            message: e.to_string(),
        })?;
        Ok(Self {
            model,
            tokenizer,
            max_len,
            digest: format!("{:032x}", digest.digest128()),
        })
    }

    /// xxh3-128 of every file the model was loaded from (config, tokenizer, tokenizer
    /// config, weights: names, sizes and bytes), as hex: another checkpoint in the same
    /// folder has another digest.
    pub fn digest(&self) -> &str {
        &self.digest
    }

    /// The longest input in tokens (`<s>` and `</s>` included); text past it is not seen.
    pub fn max_len(&self) -> usize {
        self.max_len
    }

    /// The token ids of a text as the reference tokenizes it.
    pub fn token_ids(&self, text: &str) -> Result<Vec<u32>, SideError> {
        self.tokenizer
            .encode(text, true)
            .map(|e| e.get_ids().to_vec())
            .map_err(|e| SideError::Tokenize(e.to_string()))
    }

    /// The normalised embeddings of `texts`, in order. Texts are grouped by length into
    /// passes of at most `batch` texts and [`TOKEN_BUDGET`] tokens (but one text), and the
    /// passes run side by side on the current rayon pool, one thread each (see [`mpnet`]).
    pub fn embed(&self, texts: &[&str], batch: usize) -> Result<Vec<Vec<f32>>, SideError> {
        let ids: Vec<Vec<u32>> = texts
            .iter()
            .map(|t| self.token_ids(t))
            .collect::<Result<_, _>>()?;
        // Longest first, so that the last passes to start are the short ones.
        let mut order: Vec<usize> = (0..ids.len()).collect();
        order.sort_by_key(|&i| (std::cmp::Reverse(ids[i].len()), i));
        let mut passes: Vec<&[usize]> = Vec::new();
        let mut start = 0;
        while start < order.len() {
            let mut end = start;
            let mut tokens = 0;
            while end < order.len()
                && end - start < batch.max(1)
                && (end == start || tokens + ids[order[end]].len() <= TOKEN_BUDGET)
            {
                tokens += ids[order[end]].len();
                end += 1;
            }
            passes.push(&order[start..end]);
            start = end;
        }
        let next = AtomicUsize::new(0);
        let workers = rayon::current_num_threads().clamp(1, passes.len().max(1));
        let run = |_| -> Result<Vec<(usize, Vec<f32>)>, SideError> {
            let mut scratch = Scratch::default();
            let mut done = Vec::new();
            loop {
                let p = next.fetch_add(1, Ordering::Relaxed);
                let Some(pass) = passes.get(p) else {
                    return Ok(done);
                };
                let texts: Vec<&[u32]> = pass.iter().map(|&i| ids[i].as_slice()).collect();
                let emb = self.model.embed(&texts, &mut scratch)?;
                done.extend(pass.iter().copied().zip(emb));
            }
        };
        let results: Vec<_> = (0..workers).into_par_iter().map(run).collect();
        let mut out: Vec<Vec<f32>> = vec![Vec::new(); ids.len()];
        for r in results {
            for (i, e) in r? {
                out[i] = e;
            }
        }
        Ok(out)
    }

    /// SIDE of each (code, summary) pair: the cosine similarity of their embeddings, in
    /// [-1, 1] (the paper's human-rated summaries have median 0.85, first quartile 0.65).
    pub fn score(&self, pairs: &[(&str, &str)], batch: usize) -> Result<Vec<f32>, SideError> {
        let texts: Vec<&str> = pairs.iter().flat_map(|(c, s)| [*c, *s]).collect();
        let emb = self.embed(&texts, batch)?;
        Ok(emb
            .chunks(2)
            .map(|p| p[0].iter().zip(&p[1]).map(|(a, b)| a * b).sum())
            .collect())
    }
}
