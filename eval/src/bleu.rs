//! The BLEU variants of code-summarization papers, each a port of its own implementation,
//! as Shi et al. (ICSE 2022, DeepSoftwareAnalytics/CodeSumEvaluation `metrics/evaluate.py`)
//! name and compute them:
//!
//! | variant | per example | aggregate (× 100) |
//! |---|---|---|
//! | BLEU-DCOM | nltk `sentence_bleu`, no smoothing ([`nltk_sentence_bleu`], method 0) | `np.mean` |
//! | BLEU-FC | — | nltk `corpus_bleu` ([`crate::summarization::corpus_bleu`]) |
//! | BLEU-DC | nltk `sentence_bleu` with `SmoothingFunction().method4` | running sum / count |
//! | BLEU-CN | CodeNN's smoothed BLEU ([`codenn_bleu`], on NIST-normalized text) | running sum × 100 / count, over the examples with tokens on both sides |
//! | BLEU-NCS | Google's `compute_bleu(smooth=True)` on one example ([`google_bleu`]) | `np.mean` |
//! | BLEU-RC | Rencos's (pycocoevalcap's) per-example BLEU-4 ([`rencos_bleu4`]) | `np.mean` |
//!
//! Tokens are `str.split()` tokens, as the script reads its files. Every float operation
//! follows the Python it ports, in the same order (nltk's exact `Fraction` arithmetic of
//! smoothing methods 5–7 included, with [`np_mean`] as numpy's pairwise sum), so the values
//! agree to the last bit or nearly.
//!
//! ```
//! use codemine_eval::bleu::{nltk_sentence_bleu, Smoothing};
//! let r = ["returns", "the", "sum", "of", "two", "numbers"];
//! let h = ["returns", "the", "sum"];
//! // No 4-gram match: nltk's method 0 gives almost 0, method 4 smooths it.
//! assert!(nltk_sentence_bleu(&r, &h, Smoothing::Method0) < 1e-70);
//! assert!(nltk_sentence_bleu(&r, &h, Smoothing::Method4) > 0.1);
//! ```

use foldhash::{HashMap, HashMapExt};

use crate::summarization::{fsum, nist_normalize};

/// One of nltk's `SmoothingFunction` methods (default parameters: ε 0.1, α 5, k 5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Smoothing {
    Method0,
    Method1,
    Method2,
    Method3,
    Method4,
    Method5,
    Method6,
    Method7,
}

impl Smoothing {
    /// The method with nltk's number (0–7).
    pub fn from_number(n: u8) -> Option<Self> {
        Some(match n {
            0 => Self::Method0,
            1 => Self::Method1,
            2 => Self::Method2,
            3 => Self::Method3,
            4 => Self::Method4,
            5 => Self::Method5,
            6 => Self::Method6,
            7 => Self::Method7,
            _ => return None,
        })
    }

    /// nltk's number of the method.
    pub fn number(self) -> u8 {
        self as u8
    }
}

/// What every BLEU here needs of one example: clipped n-gram matches for n = 1..=5 (one
/// reference, so nltk's, Google's and the MOSES clipping agree) and the two lengths.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Matches {
    pub matches: [u64; 5],
    pub hyp_len: u64,
    pub ref_len: u64,
}

impl Matches {
    /// Counts `hypothesis`'s n-grams found in `reference`, each at most as often as there.
    pub fn new<T: std::hash::Hash + Eq>(reference: &[T], hypothesis: &[T]) -> Self {
        let mut m = Matches {
            hyp_len: hypothesis.len() as u64,
            ref_len: reference.len() as u64,
            ..Matches::default()
        };
        if hypothesis.is_empty() || reference.is_empty() {
            return m;
        }
        let mut refc: HashMap<&[T], u32> = HashMap::with_capacity(reference.len() * 5);
        for n in 1..=5 {
            for g in reference.windows(n) {
                *refc.entry(g).or_insert(0) += 1;
            }
        }
        let mut hypc: HashMap<&[T], u32> = HashMap::with_capacity(hypothesis.len() * 5);
        for n in 1..=5 {
            for g in hypothesis.windows(n) {
                *hypc.entry(g).or_insert(0) += 1;
            }
        }
        for (g, c) in hypc {
            if let Some(&r) = refc.get(g) {
                m.matches[g.len() - 1] += u64::from(c.min(r));
            }
        }
        m
    }

    /// The hypothesis's n-grams of order `n` (0 when it is shorter).
    fn guess(&self, n: u64) -> u64 {
        (self.hyp_len + 1).saturating_sub(n)
    }
}

// ---------------------------------------------------------------------------------------
// nltk sentence_bleu

/// A value of nltk's smoothing arithmetic: an exact `Fraction` (numerator, denominator) or
/// a float, combined as Python combines them (a float anywhere makes the result a float).
/// Exact arithmetic that would overflow u128 (hypotheses of millions of tokens) goes to
/// floats instead, within an ulp or so of nltk.
#[derive(Debug, Clone, Copy)]
enum Num {
    Frac(u128, u128),
    Float(f64),
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// `Fraction(n, d)` in lowest terms.
fn frac(n: u128, d: u128) -> Num {
    let g = gcd(n, d).max(1);
    Num::Frac(n / g, d / g)
}

impl Num {
    fn int(n: u64) -> Num {
        Num::Frac(u128::from(n), 1)
    }

    /// `float(x)`: a `Fraction` correctly rounded, as CPython's int true division.
    fn f(self) -> f64 {
        match self {
            Num::Frac(n, d) => ratio_to_f64(n, d),
            Num::Float(x) => x,
        }
    }

    fn is_zero(self) -> bool {
        match self {
            Num::Frac(n, _) => n == 0,
            Num::Float(x) => x == 0.0,
        }
    }

    fn positive(self) -> bool {
        match self {
            Num::Frac(n, _) => n > 0,
            Num::Float(x) => x > 0.0,
        }
    }

    fn add(self, o: Num) -> Num {
        if let (Num::Frac(a, b), Num::Frac(c, d)) = (self, o) {
            let exact = (|| {
                let g = gcd(b, d).max(1);
                let num = a.checked_mul(d / g)?.checked_add(c.checked_mul(b / g)?)?;
                Some(frac(num, b.checked_mul(d / g)?))
            })();
            if let Some(v) = exact {
                return v;
            }
        }
        Num::Float(self.f() + o.f())
    }

    fn mul(self, o: Num) -> Num {
        if let (Num::Frac(a, b), Num::Frac(c, d)) = (self, o) {
            if let Some(v) = a
                .checked_mul(c)
                .and_then(|n| b.checked_mul(d).map(|d| frac(n, d)))
            {
                return v;
            }
        }
        Num::Float(self.f() * o.f())
    }

    fn div(self, o: Num) -> Num {
        if let (Num::Frac(a, b), Num::Frac(c, d)) = (self, o) {
            if c != 0 {
                if let Some(v) = a
                    .checked_mul(d)
                    .and_then(|n| b.checked_mul(c).map(|d| frac(n, d)))
                {
                    return v;
                }
            }
        }
        Num::Float(self.f() / o.f())
    }
}

fn bit_len(x: u128) -> u32 {
    128 - x.leading_zeros()
}

/// `n / d` correctly rounded (half to even), as Python's `int / int` and `float(Fraction)`.
fn ratio_to_f64(n: u128, d: u128) -> f64 {
    const EXACT: u128 = 1 << 53;
    if n == 0 || d == 0 {
        return if n == 0 { 0.0 } else { f64::INFINITY };
    }
    if n <= EXACT && d <= EXACT {
        // Both exact as doubles: one IEEE division is correctly rounded.
        return n as f64 / d as f64;
    }
    // Long division to at least 55 significant bits, then round with a sticky bit.
    let mut q = n / d;
    let mut r = n % d;
    let mut exp: i32 = 0;
    while bit_len(q) < 55 {
        // r < d <= u128::MAX / 2 is not guaranteed: shift in steps that cannot overflow.
        let carry = r >> 127 != 0;
        r <<= 1;
        q <<= 1;
        if carry || r >= d {
            r = r.wrapping_sub(d);
            q |= 1;
        }
        exp -= 1;
    }
    let extra = bit_len(q) - 53;
    let low = q & ((1u128 << extra) - 1);
    let half = 1u128 << (extra - 1);
    let mut m = q >> extra;
    exp += extra as i32;
    if low > half || (low == half && (r != 0 || m & 1 == 1)) {
        m += 1;
    }
    m as f64 * 2f64.powi(exp)
}

/// nltk 3.10.4's `sentence_bleu([reference], hypothesis, smoothing_function=method)` with
/// the default weights (0.25 each, no `auto_reweigh`), from the example's [`Matches`].
/// NaN where nltk raises instead (method 6 on a hypothesis without a trigram match).
pub fn nltk_sentence_bleu_from(m: &Matches, method: Smoothing) -> f64 {
    // No unigram match (an empty hypothesis included): nltk returns 0 before smoothing.
    if m.matches[0] == 0 {
        return 0.0;
    }
    let hyp_len = m.hyp_len;
    // modified_precision: Fraction(matches, max(1, n-grams)), kept unnormalized.
    let den = |n: u64| m.guess(n).max(1);
    let orig: [(u64, u64); 5] = std::array::from_fn(|i| (m.matches[i], den(i as u64 + 1)));
    let mut p: Vec<Num> = orig[..4]
        .iter()
        .map(|&(c, d)| Num::Frac(u128::from(c), u128::from(d)))
        .collect();
    let method4 = |p: &mut Vec<Num>| {
        let mut inc = 1u32;
        for (i, &(c, d)) in orig[..4].iter().enumerate() {
            // A one-token hypothesis keeps its zero precisions: nltk then skips them in the
            // geometric mean (nltk issue 2204).
            if c == 0 && hyp_len > 1 {
                let k = (2u64.pow(inc) * 5) as f64;
                let numerator = 1.0 / (k / (hyp_len as f64).ln());
                p[i] = Num::Float(numerator / d as f64);
                inc += 1;
            }
        }
    };
    let method5 = |p: &mut Vec<Num>| {
        // p_n_plus1 is a copy taken before the loop, with the 5-gram precision appended.
        let plus: Vec<Num> = p
            .iter()
            .copied()
            .chain([Num::Frac(u128::from(orig[4].0), u128::from(orig[4].1))])
            .collect();
        let mut prev = p[0].add(Num::int(1));
        for i in 0..4 {
            let v = prev.add(p[i]).add(plus[i + 1]).div(Num::int(3));
            p[i] = v;
            prev = v;
        }
    };
    match method {
        Smoothing::Method0 => {
            for (i, &(c, _)) in orig[..4].iter().enumerate() {
                if c == 0 {
                    // nltk warns, then puts the smallest float in (so log gives ~-708).
                    p[i] = Num::Float(f64::MIN_POSITIVE);
                }
            }
        }
        Smoothing::Method1 => {
            for (i, &(c, d)) in orig[..4].iter().enumerate() {
                if c == 0 {
                    p[i] = Num::Float((c as f64 + 0.1) / d as f64);
                }
            }
        }
        Smoothing::Method2 => {
            for (i, &(c, d)) in orig[..4].iter().enumerate().skip(1) {
                p[i] = Num::Frac(u128::from(c) + 1, u128::from(d) + 1);
            }
        }
        Smoothing::Method3 => {
            let mut inc = 1u32;
            for (i, &(c, d)) in orig[..4].iter().enumerate() {
                if c == 0 {
                    p[i] = Num::Float(ratio_to_f64(1, (1u128 << inc) * u128::from(d)));
                    inc += 1;
                }
            }
        }
        Smoothing::Method4 => method4(&mut p),
        Smoothing::Method5 => method5(&mut p),
        Smoothing::Method6 => {
            // `assert p_n[2]`: nltk raises on a zero trigram precision.
            if orig[2].0 == 0 {
                return f64::NAN;
            }
            for i in 2..4 {
                let pi0 = if p[i - 2].is_zero() {
                    None
                } else {
                    Some(p[i - 1].mul(p[i - 1]).div(p[i - 2]))
                };
                let l = m.guess(i as u64 + 1);
                let mi = orig[i].0;
                p[i] = match pi0 {
                    // int / int: a float in Python.
                    None => Num::Float(mi as f64 / (l + 5) as f64),
                    Some(pi0) => Num::int(mi).add(Num::int(5).mul(pi0)).div(Num::int(l + 5)),
                };
            }
        }
        Smoothing::Method7 => {
            method4(&mut p);
            method5(&mut p);
        }
    }
    let bp = brevity_penalty(m.ref_len, hyp_len);
    let s = fsum(p.iter().filter(|x| x.positive()).map(|x| 0.25 * x.f().ln()));
    bp * s.exp()
}

/// nltk's `brevity_penalty(closest_ref_len, hyp_len)`.
fn brevity_penalty(r: u64, h: u64) -> f64 {
    if h > r {
        1.0
    } else if h == 0 {
        0.0
    } else {
        (1.0 - r as f64 / h as f64).exp()
    }
}

/// nltk's `sentence_bleu([reference], hypothesis, smoothing_function=method)` on tokens.
pub fn nltk_sentence_bleu<T: std::hash::Hash + Eq>(
    reference: &[T],
    hypothesis: &[T],
    method: Smoothing,
) -> f64 {
    nltk_sentence_bleu_from(&Matches::new(reference, hypothesis), method)
}

// ---------------------------------------------------------------------------------------
// CodeNN (MOSES bleu.py as CodeNN and CodeSumEvaluation's codenn_bleu.py run it)

/// CodeNN's smoothed BLEU-4 (`bleu([reference], hypothesis)[0]` of its `bleu.py`): NIST
/// normalization (lowercased), +1 smoothing for n ≥ 2, brevity penalty
/// `min(0, 1 - (r+1)/(t+1))`, in [0, 1]. `None` where it raises: a hypothesis that
/// normalizes to nothing (`math.log(0)`), which makes `codenn_smooth_bleu` fail as a whole.
pub fn codenn_bleu(reference: &str, hypothesis: &str) -> Option<f64> {
    let r = nist_normalize(reference);
    let t = nist_normalize(hypothesis);
    if t.is_empty() {
        return None;
    }
    let m = Matches::new(&r, &t);
    let mut logbleu = 0.0f64;
    for k in 0..4 {
        let add = u64::from(k > 0);
        let correct = (m.matches[k] + add) as f64 + f64::MIN_POSITIVE;
        let guess = (m.guess(k as u64 + 1) + add) as f64;
        logbleu += correct.ln() - guess.ln();
    }
    logbleu /= 4.0;
    let bp = (1.0 - (m.ref_len + 1) as f64 / (m.hyp_len + 1) as f64).min(0.0);
    Some((logbleu + bp).exp())
}

/// `codenn_smooth_bleu(...)[0]` of `evaluate.py` over the examples with `str.split()`
/// tokens on both sides (`per_example[i]` `None` for the others): their running sum × 100 /
/// their count; 0 where the script's `try` catches an error (no such example, or one whose
/// hypothesis normalizes to nothing).
pub fn codenn_aggregate<'a>(per_example: impl IntoIterator<Item = &'a CodennValue>) -> f64 {
    let mut sum = 0.0;
    let mut num = 0.0;
    for v in per_example {
        match v {
            CodennValue::Skipped => {}
            CodennValue::Fails => return 0.0,
            CodennValue::Score(s) => {
                sum += s;
                num += 1.0;
            }
        }
    }
    if num == 0.0 {
        return 0.0;
    }
    sum * 100.0 / num
}

/// What CodeSumEvaluation's BLEU-CN makes of one example.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CodennValue {
    /// Left out: no token on one side.
    Skipped,
    /// Its hypothesis normalizes to nothing: CodeNN's `bleu` raises.
    Fails,
    Score(f64),
}

/// BLEU-CN of one example as `evaluate.py` prepares it: tokens joined by single spaces.
pub fn codenn_example(reference: &[&str], hypothesis: &[&str]) -> CodennValue {
    if reference.is_empty() || hypothesis.is_empty() {
        return CodennValue::Skipped;
    }
    match codenn_bleu(&reference.join(" "), &hypothesis.join(" ")) {
        Some(s) => CodennValue::Score(s),
        None => CodennValue::Fails,
    }
}

// ---------------------------------------------------------------------------------------
// Google compute_bleu (NeuralCodeSum)

/// `compute_bleu([[reference]], [hypothesis], smooth=True)[0]` of Google's `bleu.py` (as
/// NeuralCodeSum copies it): +1 smoothing of every order, brevity penalty
/// `exp(1 - 1/ratio)`, 0 for an empty reference or hypothesis. In [0, 1].
pub fn google_bleu_from(m: &Matches) -> f64 {
    let mut p_log_sum = 0.0;
    for k in 0..4 {
        let p = (m.matches[k] as f64 + 1.0) / (m.guess(k as u64 + 1) as f64 + 1.0);
        // Python's builtin sum: one addition after another (3.11; 3.12 compensates).
        p_log_sum += 0.25 * p.ln();
    }
    let geo_mean = p_log_sum.exp();
    let ratio = if m.ref_len == 0 {
        // ZeroDivisionError, caught: ratio = 0.
        0.0
    } else {
        m.hyp_len as f64 / m.ref_len as f64
    };
    let bp = if ratio > 1.0 {
        1.0
    } else if ratio < f64::MIN_POSITIVE {
        0.0
    } else {
        (1.0 - 1.0 / ratio).exp()
    };
    geo_mean * bp
}

/// Google's smoothed `compute_bleu` of one example, on tokens.
pub fn google_bleu<T: std::hash::Hash + Eq>(reference: &[T], hypothesis: &[T]) -> f64 {
    google_bleu_from(&Matches::new(reference, hypothesis))
}

// ---------------------------------------------------------------------------------------
// Rencos (pycocoevalcap's bleu_scorer.py with option "closest")

/// The per-example BLEU-4 of Rencos's `Bleu(4).compute_score` (`scores[3][i]`): the product
/// of `(matches + 1e-15) / (n-grams + 1e-9)` over n = 1..4, to the power 1/4, times
/// `exp(1 - 1/ratio)` when `ratio = (t + 1e-15) / (r + 1e-9)` is below 1. In [0, 1].
pub fn rencos_bleu4_from(m: &Matches) -> f64 {
    const TINY: f64 = 1e-15;
    const SMALL: f64 = 1e-9;
    let mut bleu = 1.0f64;
    for k in 0..4 {
        bleu *= (m.matches[k] as f64 + TINY) / (m.guess(k as u64 + 1) as f64 + SMALL);
    }
    let mut b4 = bleu.powf(0.25);
    let ratio = (m.hyp_len as f64 + TINY) / (m.ref_len as f64 + SMALL);
    if ratio < 1.0 {
        b4 *= (1.0 - 1.0 / ratio).exp();
    }
    b4
}

/// Rencos's per-example BLEU-4, on tokens.
pub fn rencos_bleu4<T: std::hash::Hash + Eq>(reference: &[T], hypothesis: &[T]) -> f64 {
    rencos_bleu4_from(&Matches::new(reference, hypothesis))
}

// ---------------------------------------------------------------------------------------
// numpy's mean

/// numpy's pairwise sum of a float64 array (`pairwise_sum_DOUBLE`: blocks of 128 summed in
/// eight lanes, larger arrays split in halves at a multiple of 8).
fn pairwise_sum(a: &[f64]) -> f64 {
    let n = a.len();
    if n < 8 {
        let mut res = 0.0;
        for &x in a {
            res += x;
        }
        res
    } else if n <= 128 {
        let mut r: [f64; 8] = std::array::from_fn(|j| a[j]);
        let mut i = 8;
        while i < n - n % 8 {
            for (j, rj) in r.iter_mut().enumerate() {
                *rj += a[i + j];
            }
            i += 8;
        }
        let mut res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for &x in &a[i..] {
            res += x;
        }
        res
    } else {
        let mut n2 = n / 2;
        n2 -= n2 % 8;
        pairwise_sum(&a[..n2]) + pairwise_sum(&a[n2..])
    }
}

/// `np.mean` of a list of floats (0 for none, where numpy would give NaN and a warning).
pub fn np_mean(values: &[f64]) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    // np.add.reduce starts from the identity 0.0.
    (0.0 + pairwise_sum(values)) / values.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratio_rounds_like_python() {
        // Values from Python: (10**20 + 1) / 3, 1 / 3 ** 40, (2**54 + k) / 1.
        assert_eq!(
            ratio_to_f64(100_000_000_000_000_000_001, 3),
            3.333333333333333e19
        );
        assert_eq!(ratio_to_f64(1, 3u128.pow(40)), 8.225263339969959e-20);
        assert_eq!(ratio_to_f64(7, 8), 0.875);
        // Doubles are 4 apart there: + 1 rounds down, + 2 ties to even, + 3 rounds up.
        assert_eq!(ratio_to_f64((1 << 54) + 1, 1), 18014398509481984.0);
        assert_eq!(ratio_to_f64((1 << 54) + 2, 1), 18014398509481984.0);
        assert_eq!(ratio_to_f64((1 << 54) + 3, 1), 18014398509481988.0);
    }

    #[test]
    fn pairwise_sum_blocks() {
        let v: Vec<f64> = (0..1000).map(|i| 0.1 * i as f64).collect();
        let naive: f64 = v.iter().sum();
        assert!((pairwise_sum(&v) - naive).abs() < 1e-9);
        assert_eq!(np_mean(&[]), 0.0);
    }

    #[test]
    fn short_hypotheses_follow_nltk() {
        let r = ["a", "b", "c", "d"];
        // One token that matches: method 4 cannot smooth (ln 1 = 0) and nltk skips the
        // zero precisions: BLEU is the brevity penalty times p1 ** 0.25.
        let got = nltk_sentence_bleu(&r, &["a"], Smoothing::Method4);
        assert!((got - (1.0f64 - 4.0).exp()).abs() < 1e-15);
        assert_eq!(nltk_sentence_bleu(&r, &["x"], Smoothing::Method4), 0.0);
        assert_eq!(nltk_sentence_bleu::<&str>(&r, &[], Smoothing::Method0), 0.0);
        assert!(nltk_sentence_bleu(&r, &["a", "x"], Smoothing::Method6).is_nan());
    }
}
