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
}

/// Texts per forward pass at most.
pub const BATCH: usize = 32;

/// Tokens per forward pass at most (but one text): bounds a pass's buffers (about 32 MB
/// with a base-size model), while keeping its matrix products large enough to be efficient.
pub const TOKEN_BUDGET: usize = 1024;

impl Side {
    /// Loads a checkpoint folder; missing or malformed files are errors naming the file.
    pub fn load(dir: &Path) -> Result<Self, SideError> {
        let need = |name: &str| {
            let p = dir.join(name);
            if p.is_file() {
                Ok(p)
            } else {
                Err(SideError::Missing(p))
            }
        };
        let read_json = |p: &Path| -> Result<serde_json::Value, SideError> {
            let bytes = std::fs::read(p).map_err(|e| SideError::Malformed {
                path: p.to_path_buf(),
                message: e.to_string(),
            })?;
            serde_json::from_slice(&bytes).map_err(|e| SideError::Malformed {
                path: p.to_path_buf(),
                message: format!("not JSON: {e}"),
            })
        };
        let config_path = need("config.json")?;
        let raw = read_json(&config_path)?;
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
        if cfg.hidden_act != "gelu" {
            return Err(SideError::Malformed {
                path: config_path,
                message: format!("hidden_act {:?} (MPNet uses \"gelu\")", cfg.hidden_act),
            });
        }
        if cfg.num_attention_heads == 0 || !cfg.hidden_size.is_multiple_of(cfg.num_attention_heads)
        {
            return Err(SideError::Malformed {
                path: config_path,
                message: "hidden_size is not a multiple of num_attention_heads".into(),
            });
        }

        let tok_path = need("tokenizer.json")?;
        let mut tokenizer = Tokenizer::from_file(&tok_path).map_err(|e| SideError::Malformed {
            path: tok_path.clone(),
            message: e.to_string(),
        })?;
        let tc_path = need("tokenizer_config.json")?;
        let tc = read_json(&tc_path)?;
        // transformers' default when the config has none (a huge sentinel) means: the model's
        // positions decide.
        let max_len = tc
            .get("model_max_length")
            .and_then(|v| v.as_f64())
            .filter(|m| (1.0..1e12).contains(m))
            .map(|m| m as usize)
            .unwrap_or(cfg.max_position_embeddings - cfg.pad_token_id as usize - 1);
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
        let st = dir.join("model.safetensors");
        let bin = dir.join("pytorch_model.bin");
        let (weights, vb) = if st.is_file() {
            let data = std::fs::read(&st).map_err(|e| SideError::Weights {
                path: st.clone(),
                message: e.to_string(),
            })?;
            let vb = VarBuilder::from_buffered_safetensors(data, DType::F32, &device);
            (st, vb)
        } else if bin.is_file() {
            let vb = VarBuilder::from_pth(&bin, DType::F32, &device);
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
        })
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
