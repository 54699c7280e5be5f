//! MPNet's encoder (Song et al., 2020) as Hugging Face `transformers` implements
//! `MPNetModel`, for inference on the CPU: embeddings with position ids counted past the
//! padding index, post-norm transformer layers, and one relative-position bias (32 buckets,
//! log-spaced up to distance 128) computed once and shared by every layer.
//!
//! Weights are read with candle's `VarBuilder` under the names `transformers` saves
//! (`embeddings.*`, `encoder.layer.N.*`, `encoder.relative_attention_bias.weight`), with or
//! without an `mpnet.` prefix.

use candle_core::{DType, Device, IndexOp, Module, Tensor, D};
use candle_nn::{embedding, layer_norm, linear, Embedding, LayerNorm, Linear, VarBuilder};
use serde::Deserialize;

/// The parts of `config.json` an `MPNetModel` is built from.
#[derive(Debug, Clone, Deserialize)]
pub struct Config {
    #[serde(default)]
    pub model_type: Option<String>,
    pub vocab_size: usize,
    pub hidden_size: usize,
    pub num_hidden_layers: usize,
    pub num_attention_heads: usize,
    pub intermediate_size: usize,
    #[serde(default = "default_act")]
    pub hidden_act: String,
    pub max_position_embeddings: usize,
    #[serde(default = "default_buckets")]
    pub relative_attention_num_buckets: usize,
    #[serde(default = "default_eps")]
    pub layer_norm_eps: f64,
    #[serde(default = "default_pad")]
    pub pad_token_id: u32,
}

fn default_act() -> String {
    "gelu".into()
}
fn default_buckets() -> usize {
    32
}
fn default_eps() -> f64 {
    1e-5
}
fn default_pad() -> u32 {
    1
}

/// The largest relative distance with a bucket of its own range (`max_distance` in
/// `MPNetEncoder.relative_position_bucket`).
const MAX_DISTANCE: f64 = 128.0;

struct Layer {
    q: Linear,
    k: Linear,
    v: Linear,
    o: Linear,
    attn_norm: LayerNorm,
    intermediate: Linear,
    output: Linear,
    out_norm: LayerNorm,
}

pub struct MpNet {
    word: Embedding,
    position: Embedding,
    emb_norm: LayerNorm,
    layers: Vec<Layer>,
    relative_bias: Embedding,
    heads: usize,
    head_dim: usize,
    buckets: usize,
    pad: u32,
    device: Device,
}

impl MpNet {
    pub fn load(vb: VarBuilder, cfg: &Config) -> candle_core::Result<Self> {
        let vb = if vb.contains_tensor("mpnet.embeddings.word_embeddings.weight") {
            vb.pp("mpnet")
        } else {
            vb
        };
        let h = cfg.hidden_size;
        let e = vb.pp("embeddings");
        let word = embedding(cfg.vocab_size, h, e.pp("word_embeddings"))?;
        let position = embedding(cfg.max_position_embeddings, h, e.pp("position_embeddings"))?;
        let emb_norm = layer_norm(h, cfg.layer_norm_eps, e.pp("LayerNorm"))?;
        let enc = vb.pp("encoder");
        let mut layers = Vec::with_capacity(cfg.num_hidden_layers);
        for i in 0..cfg.num_hidden_layers {
            let l = enc.pp(format!("layer.{i}"));
            let a = l.pp("attention");
            layers.push(Layer {
                q: linear(h, h, a.pp("attn.q"))?,
                k: linear(h, h, a.pp("attn.k"))?,
                v: linear(h, h, a.pp("attn.v"))?,
                o: linear(h, h, a.pp("attn.o"))?,
                attn_norm: layer_norm(h, cfg.layer_norm_eps, a.pp("LayerNorm"))?,
                intermediate: linear(h, cfg.intermediate_size, l.pp("intermediate.dense"))?,
                output: linear(cfg.intermediate_size, h, l.pp("output.dense"))?,
                out_norm: layer_norm(h, cfg.layer_norm_eps, l.pp("output.LayerNorm"))?,
            });
        }
        let relative_bias = embedding(
            cfg.relative_attention_num_buckets,
            cfg.num_attention_heads,
            enc.pp("relative_attention_bias"),
        )?;
        Ok(Self {
            word,
            position,
            emb_norm,
            layers,
            relative_bias,
            heads: cfg.num_attention_heads,
            head_dim: h / cfg.num_attention_heads,
            buckets: cfg.relative_attention_num_buckets,
            pad: cfg.pad_token_id,
            device: vb.device().clone(),
        })
    }

    /// The last hidden states `[batch, len, hidden]` of a padded batch of token ids
    /// (`mask` 1 for tokens, 0 for padding), as `MPNetModel(...)[0]`.
    pub fn forward(&self, ids: &[Vec<u32>], mask: &[Vec<u32>]) -> candle_core::Result<Tensor> {
        let batch = ids.len();
        let len = ids.first().map_or(0, Vec::len);
        let flat_ids: Vec<u32> = ids.iter().flatten().copied().collect();
        // `create_position_ids_from_input_ids`: tokens other than the padding id count
        // from padding_idx + 1; padding ids sit at padding_idx (a literal `<pad>` in the
        // text too, though the attention mask keeps it).
        let mut positions = Vec::with_capacity(batch * len);
        for row in ids {
            let mut n = 0u32;
            for &t in row {
                if t == self.pad {
                    positions.push(self.pad);
                } else {
                    n += 1;
                    positions.push(n + self.pad);
                }
            }
        }
        let ids_t = Tensor::from_vec(flat_ids, (batch, len), &self.device)?;
        let pos_t = Tensor::from_vec(positions, (batch, len), &self.device)?;
        let x = (self.word.forward(&ids_t)? + self.position.forward(&pos_t)?)?;
        let mut x = self.emb_norm.forward(&x)?;

        // The additive mask `(1 - mask) * finfo(float32).min`, as `get_extended_attention_mask`.
        let flat_mask: Vec<f32> = mask
            .iter()
            .flatten()
            .map(|&m| if m == 0 { f32::MIN } else { 0.0 })
            .collect();
        let add_mask = Tensor::from_vec(flat_mask, (batch, 1, 1, len), &self.device)?;
        let bias = self.position_bias(len)?.broadcast_add(&add_mask)?;

        let scale = 1.0 / (self.head_dim as f64).sqrt();
        for l in &self.layers {
            let split = |t: Tensor| -> candle_core::Result<Tensor> {
                t.reshape((batch, len, self.heads, self.head_dim))?
                    .transpose(1, 2)?
                    .contiguous()
            };
            let q = split(l.q.forward(&x)?)?;
            let k = split(l.k.forward(&x)?)?;
            let v = split(l.v.forward(&x)?)?;
            let scores = (q.matmul(&k.t()?)? * scale)?.broadcast_add(&bias)?;
            let probs = candle_nn::ops::softmax_last_dim(&scores)?;
            let ctx = probs.matmul(&v)?.transpose(1, 2)?.reshape((
                batch,
                len,
                self.heads * self.head_dim,
            ))?;
            let attn = l.attn_norm.forward(&(l.o.forward(&ctx)? + &x)?)?;
            let inter = l.intermediate.forward(&attn)?.gelu_erf()?;
            x = l.out_norm.forward(&(l.output.forward(&inter)? + attn)?)?;
        }
        Ok(x)
    }

    /// `compute_position_bias`: `[1, heads, len, len]`.
    fn position_bias(&self, len: usize) -> candle_core::Result<Tensor> {
        let mut buckets = Vec::with_capacity(len * len);
        for q in 0..len as i64 {
            for k in 0..len as i64 {
                buckets.push(relative_position_bucket(k - q, self.buckets));
            }
        }
        let b = Tensor::from_vec(buckets, (len, len), &self.device)?;
        // [len, len, heads] -> [1, heads, len, len]
        self.relative_bias
            .forward(&b)?
            .permute((2, 0, 1))?
            .unsqueeze(0)?
            .contiguous()
    }
}

/// `MPNetEncoder.relative_position_bucket(memory - context, num_buckets, 128)`: half the
/// buckets for each sign, exact below a quarter of them, log-spaced up to the maximum
/// distance beyond.
pub fn relative_position_bucket(relative: i64, num_buckets: usize) -> u32 {
    let half = (num_buckets / 2) as i64;
    let n = -relative;
    let mut ret = if n < 0 { half } else { 0 };
    let n = n.abs();
    let max_exact = half / 2;
    if n < max_exact {
        ret += n;
    } else {
        // torch's float32 arithmetic (the Python-float `math.log` term rounded to float32),
        // truncated toward zero by `.to(torch.long)`.
        let denom = (MAX_DISTANCE / max_exact as f64).ln() as f32;
        let ratio = (n as f32 / max_exact as f32).ln() / denom * (half - max_exact) as f32;
        let large = max_exact + ratio as i64;
        ret += large.min(half - 1);
    }
    ret as u32
}

/// Mean of the token states under the mask, L2-normalised: `[batch, hidden]`.
pub fn mean_pool_normalize(states: &Tensor, mask: &[Vec<u32>]) -> candle_core::Result<Tensor> {
    let (batch, len, _) = states.dims3()?;
    let m: Vec<f32> = mask.iter().flatten().map(|&v| v as f32).collect();
    let m = Tensor::from_vec(m, (batch, len, 1), states.device())?;
    let summed = states.broadcast_mul(&m)?.sum(1)?;
    let counts = m.sum(1)?.clamp(1e-9, f64::MAX)?;
    let mean = summed.broadcast_div(&counts)?;
    // F.normalize(p=2, dim=1): x / max(||x||, 1e-12).
    let norm = mean
        .sqr()?
        .sum_keepdim(D::Minus1)?
        .sqrt()?
        .clamp(1e-12, f64::MAX)?;
    mean.broadcast_div(&norm)
}

/// Row `i` of a `[batch, hidden]` tensor as a vector.
pub fn row(t: &Tensor, i: usize) -> candle_core::Result<Vec<f32>> {
    t.i(i)?.to_dtype(DType::F32)?.to_vec1()
}

#[cfg(test)]
mod tests {
    use super::relative_position_bucket;

    /// Values of `MPNetEncoder.relative_position_bucket(torch.arange(-200, 201), 32, 128)`,
    /// written from the formula: exact below 8, log buckets up to 15 beyond, +16 for
    /// positive relative positions (memory after context).
    #[test]
    fn buckets_follow_the_formula() {
        assert_eq!(relative_position_bucket(0, 32), 0);
        assert_eq!(relative_position_bucket(-1, 32), 1);
        assert_eq!(relative_position_bucket(-7, 32), 7);
        assert_eq!(relative_position_bucket(1, 32), 17);
        assert_eq!(relative_position_bucket(7, 32), 23);
        // n = 8: 8 + floor(ln(1) / ln(16) * 8) = 8.
        assert_eq!(relative_position_bucket(-8, 32), 8);
        // n = 16: 8 + floor(ln 2 / ln 16 * 8) = 8 + 2 = 10.
        assert_eq!(relative_position_bucket(-16, 32), 10);
        // n = 127: 8 + floor(ln(15.875) / ln 16 * 8) = 8 + 7 = 15.
        assert_eq!(relative_position_bucket(-127, 32), 15);
        assert_eq!(relative_position_bucket(-1000, 32), 15);
        assert_eq!(relative_position_bucket(1000, 32), 31);
    }
}
