//! The two n-gram components, as the reference computes them: `bleu.py` (nltk's corpus BLEU:
//! clipped n-gram precision, closest-reference brevity penalty, "method1" smoothing adding 0.1
//! to zero counts) and `weighted_ngram_match.py`, its keyword-weighted variant.
//!
//! The weighted variant is a *recall*: it clips each reference n-gram's count by the
//! hypothesis count and divides by the reference counts, summed over references (not the
//! maximum). Unigram counts are weighted (1 for a keyword, 0.2 otherwise). Its brevity
//! penalty takes `len()` of a `[tokens, weights]` pair for the reference length, which is 2
//! for every reference: the hypotheses are only penalised when they have at most two tokens
//! per example on average. Both quirks are reproduced.
//!
//! Sums are accumulated in the reference's order (first occurrence of each n-gram), so the
//! floating-point weighted counts come out bit for bit the same.

use super::pyrt::FxHashMap;
use crate::summarization::fsum;

/// Sufficient statistics of one BLEU variant: numerators and denominators of the four
/// n-gram orders, hypothesis length and closest reference length, summed over examples.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct BleuStats {
    pub(crate) numerators: [f64; 4],
    pub(crate) denominators: [f64; 4],
    pub(crate) hyp_len: u64,
    pub(crate) ref_len: u64,
}

impl BleuStats {
    /// Adds another example's statistics (the reference's `Counter` updates, in order).
    pub(crate) fn add(&mut self, other: &BleuStats) {
        for n in 0..4 {
            self.numerators[n] += other.numerators[n];
            self.denominators[n] += other.denominators[n];
        }
        self.hyp_len += other.hyp_len;
        self.ref_len += other.ref_len;
    }

    /// `corpus_bleu`'s final formula on the summed statistics.
    pub(crate) fn score(&self) -> f64 {
        if self.numerators[0] == 0.0 {
            return 0.0;
        }
        let bp = if self.hyp_len > self.ref_len {
            1.0
        } else if self.hyp_len == 0 {
            0.0
        } else {
            (1.0 - self.ref_len as f64 / self.hyp_len as f64).exp()
        };
        let logs: Vec<f64> = (0..4)
            .map(|n| {
                let num = if self.numerators[n] == 0.0 {
                    0.1
                } else {
                    self.numerators[n]
                };
                0.25 * (num / self.denominators[n]).ln()
            })
            .collect();
        bp * fsum(logs).exp()
    }
}

/// Token ids of one example: the hypothesis and its references, split on Python whitespace
/// and numbered in a table shared by all of them.
pub(crate) struct Tokenized {
    pub(crate) hyp: Vec<u32>,
    pub(crate) refs: Vec<Vec<u32>>,
    /// Whether each token id is a keyword of the language.
    pub(crate) keyword: Vec<bool>,
}

impl Tokenized {
    pub(crate) fn new(hyp: &str, refs: &[&str], is_keyword: impl Fn(&str) -> bool) -> Self {
        let mut ids: FxHashMap<&str, u32> = FxHashMap::default();
        let mut keyword = Vec::new();
        let mut id = |tok| {
            *ids.entry(tok).or_insert_with(|| {
                keyword.push(is_keyword(tok));
                (keyword.len() - 1) as u32
            })
        };
        let hyp = super::pyrt::split(hyp).map(&mut id).collect();
        let refs = refs
            .iter()
            .map(|r| super::pyrt::split(r).map(&mut id).collect())
            .collect();
        Self { hyp, refs, keyword }
    }
}

/// N-grams with their counts in order of first occurrence, and where each one is in it.
type NgramCounts<'a> = (Vec<(&'a [u32], u32)>, FxHashMap<&'a [u32], usize>);

/// The n-grams of `tokens` with their counts, in order of first occurrence.
fn ngram_counts(tokens: &[u32], n: usize) -> NgramCounts<'_> {
    let mut order: Vec<(&[u32], u32)> = Vec::new();
    let mut index: FxHashMap<&[u32], usize> = FxHashMap::default();
    if tokens.len() >= n {
        for gram in tokens.windows(n) {
            match index.get(gram) {
                Some(&i) => order[i].1 += 1,
                None => {
                    index.insert(gram, order.len());
                    order.push((gram, 1));
                }
            }
        }
    }
    (order, index)
}

/// `closest_ref_length`: the reference length nearest the hypothesis length, the shorter
/// one on ties.
fn closest_ref_len(ref_lens: impl Iterator<Item = usize>, hyp_len: usize) -> usize {
    ref_lens
        .min_by_key(|&r| (r.abs_diff(hyp_len), r))
        .unwrap_or(0)
}

/// One example's statistics for `bleu.corpus_bleu` (`modified_precision`).
pub(crate) fn ngram_stats(t: &Tokenized) -> BleuStats {
    let mut s = BleuStats::default();
    for n in 1..=4 {
        let (hyp_counts, _) = ngram_counts(&t.hyp, n);
        let ref_indexes: Vec<_> = t.refs.iter().map(|r| ngram_counts(r, n)).collect();
        let mut numerator = 0u64;
        let mut total = 0u64;
        for &(gram, count) in &hyp_counts {
            let max_ref = ref_indexes
                .iter()
                .map(|(counts, index)| index.get(gram).map_or(0, |&i| counts[i].1))
                .max()
                .unwrap_or(0);
            numerator += u64::from(count.min(max_ref));
            total += u64::from(count);
        }
        s.numerators[n - 1] = numerator as f64;
        s.denominators[n - 1] = total.max(1) as f64;
    }
    s.hyp_len = t.hyp.len() as u64;
    s.ref_len = closest_ref_len(t.refs.iter().map(Vec::len), t.hyp.len()) as u64;
    s
}

/// One example's statistics for `weighted_ngram_match.corpus_bleu` (`modified_recall`).
pub(crate) fn weighted_ngram_stats(t: &Tokenized) -> BleuStats {
    let mut s = BleuStats::default();
    let weight = |tok: u32| {
        if t.keyword[tok as usize] {
            1.0
        } else {
            0.2
        }
    };
    for n in 1..=4 {
        let (hyp_counts, hyp_index) = ngram_counts(&t.hyp, n);
        let mut numerator = 0.0f64;
        let mut denominator = 0.0f64;
        for r in &t.refs {
            let (ref_counts, _) = ngram_counts(r, n);
            let clipped = |gram: &[u32], count: u32| {
                count.min(hyp_index.get(gram).map_or(0, |&i| hyp_counts[i].1))
            };
            if n == 1 {
                // `weighted_sum` over the reference's unigrams, in their dict order.
                let mut clipped_sum = 0.0f64;
                let mut ref_sum = 0.0f64;
                for &(gram, count) in &ref_counts {
                    let w = weight(gram[0]);
                    clipped_sum += f64::from(clipped(gram, count)) * w;
                    ref_sum += f64::from(count) * w;
                }
                numerator += clipped_sum;
                denominator += ref_sum.max(1.0);
            } else {
                let clipped_sum: u64 = ref_counts
                    .iter()
                    .map(|&(g, c)| u64::from(clipped(g, c)))
                    .sum();
                let ref_sum: u64 = ref_counts.iter().map(|&(_, c)| u64::from(c)).sum();
                numerator += clipped_sum as f64;
                denominator += ref_sum.max(1) as f64;
            }
        }
        s.numerators[n - 1] = numerator;
        s.denominators[n - 1] = denominator;
    }
    s.hyp_len = t.hyp.len() as u64;
    // `len([tokens, weights])` of every reference.
    s.ref_len = closest_ref_len(t.refs.iter().map(|_| 2), t.hyp.len()) as u64;
    s
}
