//! MPNet's encoder (Song et al., 2020) as Hugging Face `transformers` implements
//! `MPNetModel`, for inference on the CPU: embeddings with position ids counted past the
//! padding index, post-norm transformer layers, and one relative-position bias (32 buckets,
//! log-spaced up to distance 128) computed once and shared by every layer.
//!
//! Weights are read with candle's `VarBuilder` under the names `transformers` saves
//! (`embeddings.*`, `encoder.layer.N.*`, `encoder.relative_attention_bias.weight`), with or
//! without an `mpnet.` prefix, then kept as plain `f32` arrays: the forward pass is written
//! here on `gemm` (one thread per pass; callers run passes side by side, which beats
//! splitting small matrix products between threads), with the query, key and value
//! projections fused into one product, and no padding at all: the texts of a pass are
//! packed one after the other, and each attends only to itself. A padded token changes
//! nothing of the others in the reference either (the mask adds `f32::MIN` to its scores and
//! mean pooling leaves it out), so the result is the reference's.

use candle_core::Tensor;
use candle_nn::VarBuilder;
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

/// Calls the AVX2 build of an elementwise loop (module `avx2`) when the CPU has AVX2, else
/// the baseline one.
macro_rules! wide {
    ($f:ident($($arg:expr),*)) => {{
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU has AVX2, checked just above.
                unsafe { avx2::$f($($arg),*) }
            } else {
                $f($($arg),*)
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            $f($($arg),*)
        }
    }};
}

/// A linear layer: `y = x W^T + b`, `W` as saved (`[out, in]`, row-major).
struct Dense {
    w: Vec<f32>,
    b: Vec<f32>,
    inp: usize,
    out: usize,
}

impl Dense {
    fn load(vb: &VarBuilder, inp: usize, out: usize) -> candle_core::Result<Self> {
        Ok(Self {
            w: flat(vb.get((out, inp), "weight")?)?,
            b: flat(vb.get(out, "bias")?)?,
            inp,
            out,
        })
    }

    /// Several layers of the same input as one (their outputs side by side).
    fn concat(parts: Vec<Dense>) -> Self {
        let inp = parts.first().map_or(0, |d| d.inp);
        let mut w = Vec::new();
        let mut b = Vec::new();
        let mut out = 0;
        for d in parts {
            w.extend_from_slice(&d.w);
            b.extend_from_slice(&d.b);
            out += d.out;
        }
        Self { w, b, inp, out }
    }

    /// `dst[t] = x[t] W^T + b (+ dst[t] when `add`)` for the `rows` rows of `x`.
    fn apply(&self, x: &[f32], rows: usize, dst: &mut [f32], add: bool) {
        let dst = &mut dst[..rows * self.out];
        for row in dst.chunks_exact_mut(self.out) {
            if add {
                row.iter_mut().zip(&self.b).for_each(|(d, b)| *d += b);
            } else {
                row.copy_from_slice(&self.b);
            }
        }
        // rhs = W^T: element (i, o) is w[o * inp + i].
        matmul(
            Mat::rows(dst, self.out),
            Src::new(x, self.inp as isize, 1),
            Src::new(&self.w, 1, self.inp as isize),
            (rows, self.out, self.inp),
            1.0,
            true,
        );
    }
}

struct Norm {
    g: Vec<f32>,
    b: Vec<f32>,
    eps: f32,
}

impl Norm {
    fn load(vb: &VarBuilder, size: usize, eps: f64) -> candle_core::Result<Self> {
        Ok(Self {
            g: flat(vb.get(size, "weight")?)?,
            b: flat(vb.get(size, "bias")?)?,
            eps: eps as f32,
        })
    }

    /// `LayerNorm` of every row of `x`, in place.
    fn apply(&self, x: &mut [f32]) {
        wide!(layer_norm_rows(x, &self.g, &self.b, self.eps))
    }
}

#[inline(always)]
fn layer_norm_rows(x: &mut [f32], g: &[f32], b: &[f32], eps: f32) {
    let n = g.len();
    for row in x.chunks_exact_mut(n) {
        let mean = sum(row) / n as f32;
        for v in row.iter_mut() {
            *v -= mean;
        }
        let var = sum_sq(row) / n as f32;
        let inv = 1.0 / (var + eps).sqrt();
        for ((v, g), b) in row.iter_mut().zip(g).zip(b) {
            *v = *v * inv * g + b;
        }
    }
}

struct Layer {
    /// Query, key and value projections as one product: `[t, 3 * hidden]`.
    qkv: Dense,
    o: Dense,
    attn_norm: Norm,
    intermediate: Dense,
    output: Dense,
    out_norm: Norm,
}

pub struct MpNet {
    word: Vec<f32>,
    position: Vec<f32>,
    emb_norm: Norm,
    layers: Vec<Layer>,
    /// Per head, the bias of every relative distance `k - q` in `-max_len..=max_len`, at
    /// `k - q + max_len`.
    rel_bias: Vec<Vec<f32>>,
    hidden: usize,
    heads: usize,
    head_dim: usize,
    intermediate: usize,
    vocab: usize,
    /// The longest text the position table has room for.
    max_len: usize,
    pad: u32,
}

/// Reusable buffers of one pass (so that a pass does not fault in fresh pages).
#[derive(Default)]
pub struct Scratch {
    x: Vec<f32>,
    qkv: Vec<f32>,
    ctx: Vec<f32>,
    tmp: Vec<f32>,
    inter: Vec<f32>,
    scores: Vec<f32>,
}

fn flat(t: Tensor) -> candle_core::Result<Vec<f32>> {
    t.to_dtype(candle_core::DType::F32)?
        .flatten_all()?
        .to_vec1()
}

impl MpNet {
    pub fn load(vb: VarBuilder, cfg: &Config) -> candle_core::Result<Self> {
        let vb = if vb.contains_tensor("mpnet.embeddings.word_embeddings.weight") {
            vb.pp("mpnet")
        } else {
            vb
        };
        let h = cfg.hidden_size;
        let eps = cfg.layer_norm_eps;
        let e = vb.pp("embeddings");
        let word = flat(e.pp("word_embeddings").get((cfg.vocab_size, h), "weight")?)?;
        let position = flat(
            e.pp("position_embeddings")
                .get((cfg.max_position_embeddings, h), "weight")?,
        )?;
        let emb_norm = Norm::load(&e.pp("LayerNorm"), h, eps)?;
        let enc = vb.pp("encoder");
        let mut layers = Vec::with_capacity(cfg.num_hidden_layers);
        for i in 0..cfg.num_hidden_layers {
            let l = enc.pp(format!("layer.{i}"));
            let a = l.pp("attention");
            let qkv = Dense::concat(vec![
                Dense::load(&a.pp("attn.q"), h, h)?,
                Dense::load(&a.pp("attn.k"), h, h)?,
                Dense::load(&a.pp("attn.v"), h, h)?,
            ]);
            layers.push(Layer {
                qkv,
                o: Dense::load(&a.pp("attn.o"), h, h)?,
                attn_norm: Norm::load(&a.pp("LayerNorm"), h, eps)?,
                intermediate: Dense::load(&l.pp("intermediate.dense"), h, cfg.intermediate_size)?,
                output: Dense::load(&l.pp("output.dense"), cfg.intermediate_size, h)?,
                out_norm: Norm::load(&l.pp("output.LayerNorm"), h, eps)?,
            });
        }
        let buckets = cfg.relative_attention_num_buckets;
        let heads = cfg.num_attention_heads;
        let table = candle_nn::embedding(buckets, heads, enc.pp("relative_attention_bias"))?;
        let table = flat(table.embeddings().clone())?;
        // Positions run from pad + 1, so a text has room for max_positions - pad - 1 tokens.
        let max_len = cfg
            .max_position_embeddings
            .saturating_sub(cfg.pad_token_id as usize + 1);
        let rel_bias = (0..heads)
            .map(|hd| {
                (-(max_len as i64)..=max_len as i64)
                    .map(|d| table[relative_position_bucket(d, buckets) as usize * heads + hd])
                    .collect()
            })
            .collect();
        Ok(Self {
            word,
            position,
            emb_norm,
            layers,
            rel_bias,
            hidden: h,
            heads,
            head_dim: h / heads,
            intermediate: cfg.intermediate_size,
            vocab: cfg.vocab_size,
            max_len,
            pad: cfg.pad_token_id,
        })
    }

    /// The longest text in tokens the model's positions allow.
    pub fn max_len(&self) -> usize {
        self.max_len
    }

    /// The mean-pooled, L2-normalised embeddings of `texts` (token ids, `<s>`/`</s>`
    /// included), computed in one single-threaded pass: `MPNetModel(...)[0]`, masked mean
    /// pooling and `F.normalize`, as the reference recipe.
    pub fn embed(
        &self,
        texts: &[&[u32]],
        scratch: &mut Scratch,
    ) -> candle_core::Result<Vec<Vec<f32>>> {
        let h = self.hidden;
        let total: usize = texts.iter().map(|t| t.len()).sum();
        for t in texts {
            if t.len() > self.max_len {
                return Err(candle_core::Error::msg(format!(
                    "a text of {} tokens, past the model's {} positions",
                    t.len(),
                    self.max_len
                )));
            }
            if let Some(&id) = t.iter().find(|&&id| id as usize >= self.vocab) {
                return Err(candle_core::Error::msg(format!(
                    "token id {id} past the model's vocabulary of {}",
                    self.vocab
                )));
            }
        }
        let longest = texts.iter().map(|t| t.len()).max().unwrap_or(0);
        let s = scratch;
        grow(&mut s.x, total * h);
        grow(&mut s.qkv, total * 3 * h);
        grow(&mut s.ctx, total * h);
        grow(&mut s.tmp, total * h);
        grow(&mut s.inter, total * self.intermediate);
        grow(&mut s.scores, longest * longest);

        // `create_position_ids_from_input_ids`: tokens other than the padding id count from
        // padding_idx + 1; a literal padding id (`<pad>` in the text) sits at padding_idx.
        let mut row = 0;
        for t in texts {
            let mut n = self.pad;
            for &id in t.iter() {
                let pos = if id == self.pad {
                    self.pad
                } else {
                    n += 1;
                    n
                } as usize;
                let dst = &mut s.x[row * h..(row + 1) * h];
                let w = &self.word[id as usize * h..(id as usize + 1) * h];
                let p = &self.position[pos * h..(pos + 1) * h];
                for ((d, a), b) in dst.iter_mut().zip(w).zip(p) {
                    *d = a + b;
                }
                row += 1;
            }
        }
        self.emb_norm.apply(&mut s.x[..total * h]);

        for l in &self.layers {
            l.qkv.apply(&s.x, total, &mut s.qkv, false);
            let mut start = 0;
            for t in texts {
                self.attention(&s.qkv, start, t.len(), &mut s.scores, &mut s.ctx);
                start += t.len();
            }
            // attn = LayerNorm(ctx W_o^T + b + x)
            s.tmp[..total * h].copy_from_slice(&s.x[..total * h]);
            l.o.apply(&s.ctx, total, &mut s.tmp, true);
            l.attn_norm.apply(&mut s.tmp[..total * h]);
            std::mem::swap(&mut s.x, &mut s.tmp);
            // x = LayerNorm(gelu(attn W_i^T + b) W_out^T + b + attn)
            l.intermediate.apply(&s.x, total, &mut s.inter, false);
            wide!(gelu_slice(&mut s.inter[..total * self.intermediate]));
            s.tmp[..total * h].copy_from_slice(&s.x[..total * h]);
            l.output.apply(&s.inter, total, &mut s.tmp, true);
            l.out_norm.apply(&mut s.tmp[..total * h]);
            std::mem::swap(&mut s.x, &mut s.tmp);
        }

        let mut out = Vec::with_capacity(texts.len());
        let mut start = 0;
        for t in texts {
            let mut mean = vec![0f32; h];
            for r in start..start + t.len() {
                mean.iter_mut()
                    .zip(&s.x[r * h..(r + 1) * h])
                    .for_each(|(m, v)| *m += v);
            }
            start += t.len();
            // torch.clamp(mask.sum(1), min=1e-9), then F.normalize: x / max(||x||, 1e-12).
            let count = (t.len() as f32).max(1e-9);
            mean.iter_mut().for_each(|m| *m /= count);
            let norm = sum_sq(&mean).sqrt().max(1e-12);
            mean.iter_mut().for_each(|m| *m /= norm);
            out.push(mean);
        }
        Ok(out)
    }

    /// Self-attention of the `len` tokens from row `start` (one text), every head: softmax(Q
    /// K^T / sqrt(d) + relative bias) V, into the same rows of `ctx`.
    fn attention(
        &self,
        qkv: &[f32],
        start: usize,
        len: usize,
        scores: &mut [f32],
        ctx: &mut [f32],
    ) {
        let h = self.hidden;
        let d = self.head_dim;
        let stride = 3 * h;
        let scale = 1.0 / (d as f32).sqrt();
        let scores = &mut scores[..len * len];
        let base = &qkv[start * stride..(start + len) * stride];
        for hd in 0..self.heads {
            let bias = &self.rel_bias[hd];
            for (q, row) in scores.chunks_exact_mut(len).enumerate() {
                // k - q for k in 0..len, offset by max_len.
                let from = self.max_len - q;
                row.copy_from_slice(&bias[from..from + len]);
            }
            let q = &base[hd * d..];
            let k = &base[h + hd * d..];
            let v = &base[2 * h + hd * d..];
            // scores += scale * Q K^T (K^T element (j, key) is k[key * stride + j]).
            matmul(
                Mat::rows(scores, len),
                Src::new(q, stride as isize, 1),
                Src::new(k, 1, stride as isize),
                (len, len, d),
                scale,
                true,
            );
            wide!(softmax_rows(scores, len));
            // ctx[:, head] = P V, written into the head's columns of the text's rows.
            let dst = &mut ctx[start * h + hd * d..(start + len) * h];
            matmul(
                Mat::rows(dst, h),
                Src::new(scores, len as isize, 1),
                Src::new(v, stride as isize, 1),
                (len, d, len),
                1.0,
                false,
            );
        }
    }
}

fn grow(v: &mut Vec<f32>, len: usize) {
    if v.len() < len {
        v.resize(len, 0.0);
    }
}

/// A row-major destination: rows `rs` apart, columns contiguous.
struct Mat<'a> {
    data: &'a mut [f32],
    rs: isize,
}

impl<'a> Mat<'a> {
    fn rows(data: &'a mut [f32], rs: usize) -> Self {
        Self {
            data,
            rs: rs as isize,
        }
    }
}

/// A strided source matrix: element (r, c) at `r * rs + c * cs`.
struct Src<'a> {
    data: &'a [f32],
    rs: isize,
    cs: isize,
}

impl<'a> Src<'a> {
    fn new(data: &'a [f32], rs: isize, cs: isize) -> Self {
        Self { data, rs, cs }
    }

    /// One past the largest offset an `r x c` view reads.
    fn extent(&self, r: usize, c: usize) -> usize {
        if r == 0 || c == 0 {
            0
        } else {
            (r - 1) * self.rs as usize + (c - 1) * self.cs as usize + 1
        }
    }
}

/// `dst = alpha * lhs rhs (+ dst when `add`)` for an `m x k` lhs and a `k x n` rhs,
/// single-threaded; the views are checked against their slices first.
fn matmul(dst: Mat, lhs: Src, rhs: Src, (m, n, k): (usize, usize, usize), alpha: f32, add: bool) {
    let dst_extent = if m == 0 || n == 0 {
        0
    } else {
        (m - 1) * dst.rs as usize + n
    };
    assert!(
        dst.data.len() >= dst_extent,
        "matmul: destination too small"
    );
    assert!(lhs.data.len() >= lhs.extent(m, k), "matmul: lhs too small");
    assert!(rhs.data.len() >= rhs.extent(k, n), "matmul: rhs too small");
    if m == 0 || n == 0 {
        return;
    }
    // SAFETY: every offset gemm reads or writes lies within the extents checked above, and
    // `dst` is an exclusive borrow distinct from the shared `lhs` and `rhs`.
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            dst.data.as_mut_ptr(),
            1,
            dst.rs,
            add,
            lhs.data.as_ptr(),
            lhs.cs,
            lhs.rs,
            rhs.data.as_ptr(),
            rhs.cs,
            rhs.rs,
            1.0,
            alpha,
            false,
            false,
            false,
            gemm::Parallelism::None,
        )
    }
}

/// Sums in eight lanes, so that the loop vectorises.
#[inline(always)]
fn sum(x: &[f32]) -> f32 {
    let mut acc = [0f32; 8];
    let chunks = x.chunks_exact(8);
    let rest = chunks.remainder();
    for c in chunks {
        for i in 0..8 {
            acc[i] += c[i];
        }
    }
    acc.iter().sum::<f32>() + rest.iter().sum::<f32>()
}

#[inline(always)]
fn sum_sq(x: &[f32]) -> f32 {
    let mut acc = [0f32; 8];
    let chunks = x.chunks_exact(8);
    let rest = chunks.remainder();
    for c in chunks {
        for i in 0..8 {
            acc[i] += c[i] * c[i];
        }
    }
    acc.iter().sum::<f32>() + rest.iter().map(|v| v * v).sum::<f32>()
}

#[inline(always)]
fn max(x: &[f32]) -> f32 {
    let mut acc = [f32::NEG_INFINITY; 8];
    let chunks = x.chunks_exact(8);
    let rest = chunks.remainder();
    for c in chunks {
        for i in 0..8 {
            acc[i] = if c[i] > acc[i] { c[i] } else { acc[i] };
        }
    }
    acc.iter()
        .chain(rest)
        .fold(f32::NEG_INFINITY, |m, &v| m.max(v))
}

/// Softmax of each row of `len` values, in place.
#[inline(always)]
fn softmax_rows(x: &mut [f32], len: usize) {
    for row in x.chunks_exact_mut(len) {
        let m = max(row);
        for v in row.iter_mut() {
            *v = exp(*v - m);
        }
        let inv = 1.0 / sum(row);
        for v in row.iter_mut() {
            *v *= inv;
        }
    }
}

/// `exp` in f32 without a libm call (so that loops of it vectorise): Cody-Waite reduction
/// by ln 2 and Cephes' `expf` polynomial, within 2 ulp; below -87.3 (where the result is
/// under f32's normal range) it gives about 1e-38 instead of a denormal or 0.
#[inline(always)]
pub fn exp(x: f32) -> f32 {
    const MAGIC: f32 = 12_582_912.0; // 1.5 * 2^23: adding it rounds to an integer
    let x = x.clamp(-87.3, 88.3);
    let n = (x * std::f32::consts::LOG2_E + MAGIC) - MAGIC;
    let r = x - n * 0.693_359_4 - n * -2.121_944_4e-4;
    let mut p = 1.987_569_1e-4;
    p = p * r + 1.398_199_9e-3;
    p = p * r + 8.333_452e-3;
    p = p * r + 4.166_579_6e-2;
    p = p * r + 0.166_666_65;
    p = p * r + 0.5;
    p = p * r * r + r + 1.0;
    p * f32::from_bits(((n as i32 + 127) << 23) as u32)
}

/// `erf` in f32 without a libm call or a branch (so that loops of it vectorise): below 1,
/// `z P(z^2)`; from 1 on, `1 - exp(-z^2) Q(1/z)` (`Q` approximating `erfc(z) exp(z^2)`);
/// the polynomials are least-squares fits with f32 coefficients made for this crate. Within
/// 1e-7 of erf everywhere (about 2 ulp), against libm's `erff` within 1 ulp.
#[inline(always)]
pub fn erf(x: f32) -> f32 {
    let z = x.abs().min(4.0);
    let zz = z * z;
    let mut p = 1.037_066_25e-4;
    p = p * zz + -8.816_491_5e-4;
    p = p * zz + 5.287_24e-3;
    p = p * zz + -2.691_165_2e-2;
    p = p * zz + 0.112_852_1;
    p = p * zz + -0.376_128_17;
    p = p * zz + std::f32::consts::FRAC_2_SQRT_PI;
    let small = p * z;
    let t = 1.0 / z.max(1.0);
    let mut q = 2.822_523e-2;
    q = q * t + -0.165_872_77;
    q = q * t + 0.404_825_6;
    q = q * t + -0.491_051_58;
    q = q * t + 0.198_870_72;
    q = q * t + 0.252_388_87;
    q = q * t + -0.383_797_65;
    q = q * t + 2.232_069_3e-2;
    q = q * t + 0.561_540_96;
    q = q * t + 1.335_118_3e-4;
    let large = 1.0 - q * exp(-zz);
    let r = if z < 1.0 { small } else { large };
    r.copysign(x)
}

/// The exact GELU, `x/2 (1 + erf(x / sqrt 2))` (`hidden_act: "gelu"`), in place.
#[inline(always)]
fn gelu_slice(x: &mut [f32]) {
    // Plain loops rather than `for_each`, which is not always inlined into the AVX2 copy.
    for v in x.iter_mut() {
        *v = 0.5 * *v * (1.0 + erf(*v * std::f32::consts::FRAC_1_SQRT_2));
    }
}

/// The elementwise loops compiled for AVX2 as well as for the baseline target (SSE2), and
/// chosen when the program runs: 8 lanes instead of 4. The same operations in the same
/// order, so the results are the same.
#[cfg(target_arch = "x86_64")]
mod avx2 {
    #[target_feature(enable = "avx2")]
    pub fn layer_norm_rows(x: &mut [f32], g: &[f32], b: &[f32], eps: f32) {
        super::layer_norm_rows(x, g, b, eps)
    }
    #[target_feature(enable = "avx2")]
    pub fn softmax_rows(x: &mut [f32], len: usize) {
        super::softmax_rows(x, len)
    }
    #[target_feature(enable = "avx2")]
    pub fn gelu_slice(x: &mut [f32]) {
        super::gelu_slice(x)
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

#[cfg(test)]
mod tests {
    use super::{erf, exp, relative_position_bucket};

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

    /// The AVX2 copies of the elementwise loops give the baseline's results, bit for bit.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx2_loops_equal_the_baseline() {
        if !std::arch::is_x86_feature_detected!("avx2") {
            return;
        }
        // A fixed pseudo-random sequence in [-8, 8).
        let mut state = 17u32;
        let data: Vec<f32> = (0..3 * 37 * 37)
            .map(|_| {
                state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                (state >> 8) as f32 / (1u32 << 24) as f32 * 16.0 - 8.0
            })
            .collect();
        let (g, b) = (&data[..37], &data[37..74]);
        let mut x = data.clone();
        let mut y = data.clone();
        super::gelu_slice(&mut x);
        // SAFETY: the CPU has AVX2, checked above.
        unsafe { super::avx2::gelu_slice(&mut y) };
        assert_eq!(x, y);
        super::softmax_rows(&mut x, 37);
        unsafe { super::avx2::softmax_rows(&mut y, 37) };
        assert_eq!(x, y);
        super::layer_norm_rows(&mut x, g, b, 1e-5);
        unsafe { super::avx2::layer_norm_rows(&mut y, g, b, 1e-5) };
        assert_eq!(x, y);
    }

    /// erf by its Maclaurin series in f64 (exact to about 1e-11 on [-4, 4]).
    fn erf_series(x: f64) -> f64 {
        let mut term = x;
        let mut total = x;
        for n in 1..200 {
            term *= -x * x / n as f64;
            total += term / (2 * n + 1) as f64;
        }
        total * 2.0 / std::f64::consts::PI.sqrt()
    }

    #[test]
    fn erf_is_within_f32_accuracy() {
        for i in -60_000..=60_000 {
            let x = i as f32 / 10_000.0;
            // Past 4, erf is within 1.6e-8 of ±1.
            let want = if x.abs() > 4.0 {
                x.signum() as f64
            } else {
                erf_series(x as f64)
            };
            let got = erf(x) as f64;
            assert!((got - want).abs() < 1e-7, "erf({x}) = {got}, want {want}");
            assert!(
                (got - want).abs() <= 1.6e-7 * want.abs(),
                "erf({x}) = {got}, want {want}"
            );
        }
    }

    #[test]
    fn exp_is_within_f32_accuracy() {
        for i in -87_000..=88_000 {
            let x = i as f32 / 1000.0;
            let want = (x as f64).exp();
            let got = exp(x) as f64;
            assert!(
                ((got - want) / want).abs() < 3e-7,
                "exp({x}) = {got}, want {want}"
            );
        }
        assert!(exp(-1e30) < 1e-37);
        assert!(exp(-200.0) < 1e-37);
    }
}
