//! Code → docstring metrics, each a port of the implementation papers report with, down to
//! its quirks:
//!
//! | function | reference | tokens |
//! |---|---|---|
//! | [`smoothed_bleu`] | CodeXGLUE Code-Text `evaluator.py` (MOSES `bleu.py`): sentence BLEU-4, +1 smoothing for n ≥ 2, averaged, × 100 | its own: strip, lowercase, `splitPuncts`, NIST `normalize` |
//! | [`corpus_bleu`] | `nltk.translate.bleu_score.corpus_bleu`, default weights, no smoothing | `str.split()`, case kept |
//! | [`rouge_l`] | `rouge_score.rouge_scorer.RougeScorer(["rougeL"], use_stemmer)`, F-measure | its default tokenizer: lowercase, `[a-z0-9]+` runs, optional Porter stemming of tokens longer than 3 |
//! | [`meteor`] | `nltk.translate.meteor_score.meteor_score`: exact, Porter-stem and WordNet synonym stages (or the first one or two) | `str.split()`, lowercased by METEOR |
//! | [`cider`] | `pycocoevalcap.cider.Cider` (the CIDEr-D formula: σ = 6 length penalty, clipped tf-idf, × 10) | `str.split()`, case kept, no PTB tokenizer |
//!
//! ```
//! use codemine_eval::summarization::{smoothed_bleu_sentence, rouge_l};
//! assert!((smoothed_bleu_sentence("Returns the sum", "returns  the sum") - 100.0).abs() < 1e-9);
//! assert_eq!(rouge_l("a b c", "a c", false), 0.8);
//! ```

use foldhash::{HashMap, HashMapExt};
use rayon::prelude::*;

use crate::porter;
use crate::pytext::{py_is_space, py_is_word, py_lower, py_split, py_strip};
use crate::wordnet::WordNet;

/// n-gram counts of `toks` for every order 1..=`max_n`, keyed by the n-gram's tokens.
fn ngram_counts<T: std::hash::Hash + Eq>(toks: &[T], max_n: usize) -> HashMap<&[T], u32> {
    let mut counts = HashMap::with_capacity(toks.len() * max_n);
    for n in 1..=max_n {
        for g in toks.windows(n) {
            *counts.entry(g).or_insert(0) += 1;
        }
    }
    counts
}

// ---------------------------------------------------------------------------------------
// CodeXGLUE smoothed sentence BLEU

/// CodeXGLUE's `splitPuncts`: `re.findall(r"[\w]+|[^\s\w]", line)` joined by spaces.
pub fn split_puncts(line: &str) -> String {
    let mut out = String::with_capacity(line.len() + 8);
    let mut in_word = false;
    for c in line.chars() {
        if py_is_word(c) {
            if !in_word && !out.is_empty() {
                out.push(' ');
            }
            in_word = true;
            out.push(c);
        } else {
            in_word = false;
            if !py_is_space(c) {
                if !out.is_empty() {
                    out.push(' ');
                }
                out.push(c);
            }
        }
    }
    out
}

/// The punctuation class of the first NIST rule: `[\{-\~\[-\` -\&\(-\+\:-\@\/]`.
fn nist_punct(c: char) -> bool {
    matches!(c, '{'..='~' | '['..='`' | ' '..='&' | '('..='+' | ':'..='@' | '/')
}

/// One left-to-right, non-overlapping pass of a two-character pattern `(A)(B)`, as
/// `re.sub` makes it, writing `pre A mid B post` for each match.
fn sub_pairs(
    s: &[char],
    a: impl Fn(char) -> bool,
    b: impl Fn(char) -> bool,
    lead: bool,
) -> Vec<char> {
    let mut out = Vec::with_capacity(s.len() + s.len() / 2);
    let mut i = 0;
    while i < s.len() {
        if i + 1 < s.len() && a(s[i]) && b(s[i + 1]) {
            if lead {
                // ` \1 \2`
                out.extend([' ', s[i], ' ', s[i + 1]]);
            } else {
                // `\1 \2 `
                out.extend([s[i], ' ', s[i + 1], ' ']);
            }
            i += 2;
        } else {
            out.push(s[i]);
            i += 1;
        }
    }
    out
}

/// The MOSES/NIST `normalize` of CodeXGLUE's `bleu.py` (with `nonorm = 0` and
/// `preserve_case = False`): language-independent clean-up, XML unescaping, lowercasing,
/// the four punctuation rules, then `split()`.
pub fn nist_normalize(s: &str) -> Vec<String> {
    let s = s
        .replace("<skipped>", "")
        .replace("-\n", "")
        .replace('\n', " ");
    // xml.sax.saxutils.unescape(s, {'&quot;': '"'}): &lt; &gt; the extra entity, &amp; last.
    let s = s
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&amp;", "&");
    let s = py_lower(&format!(" {s} "));
    let mut chars: Vec<char> = Vec::with_capacity(s.len() * 2);
    for c in s.chars() {
        if nist_punct(c) {
            chars.extend([' ', c, ' ']);
        } else {
            chars.push(c);
        }
    }
    let not_digit = |c: char| !c.is_ascii_digit();
    let period_comma = |c: char| c == '.' || c == ',';
    let chars = sub_pairs(&chars, not_digit, period_comma, false);
    let chars = sub_pairs(&chars, period_comma, not_digit, true);
    let chars = sub_pairs(&chars, |c| c.is_ascii_digit(), |c| c == '-', false);
    let s: String = chars.into_iter().collect();
    py_split(&s).into_iter().map(str::to_string).collect()
}

/// The tokens CodeXGLUE's evaluator scores a line as: `normalize(splitPuncts(line.strip().lower()))`.
pub fn codexglue_tokens(line: &str) -> Vec<String> {
    nist_normalize(&split_puncts(&py_lower(py_strip(line))))
}

/// `bleu([reference], prediction)[0]` of CodeXGLUE's `bleu.py` on already normalized
/// tokens: smoothed BLEU-4 of one sentence, in [0, 1].
pub fn smoothed_bleu_tokens(reference: &[String], prediction: &[String]) -> f64 {
    const N: usize = 4;
    let refmax = ngram_counts(reference, N);
    let mut correct = [0u64; N];
    for (g, c) in ngram_counts(prediction, N) {
        correct[g.len() - 1] += u64::from(c.min(refmax.get(g).copied().unwrap_or(0)));
    }
    let testlen = prediction.len();
    let reflen = reference.len();
    let mut logbleu = 0.0f64;
    for (k, &corr) in correct.iter().enumerate() {
        let guess = testlen.saturating_sub(k) as u64;
        let add = u64::from(k > 0);
        logbleu += ((corr + add) as f64 + f64::MIN_POSITIVE).ln()
            - ((guess + add) as f64 + f64::MIN_POSITIVE).ln();
    }
    logbleu /= N as f64;
    let bp = (1.0 - (reflen + 1) as f64 / (testlen + 1) as f64).min(0.0);
    (logbleu + bp).exp()
}

/// CodeXGLUE's smoothed sentence BLEU-4 of one prediction against one reference, × 100
/// (the scale its evaluator averages and prints).
pub fn smoothed_bleu_sentence(prediction: &str, reference: &str) -> f64 {
    smoothed_bleu_tokens(&codexglue_tokens(reference), &codexglue_tokens(prediction)) * 100.0
}

/// Per-example CodeXGLUE smoothed BLEU (× 100); their mean is the evaluator's score.
pub fn smoothed_bleu(predictions: &[String], references: &[String]) -> Vec<f64> {
    predictions
        .par_iter()
        .zip(references.par_iter())
        .map(|(p, r)| smoothed_bleu_sentence(p, r))
        .collect()
}

// ---------------------------------------------------------------------------------------
// nltk corpus BLEU

/// What nltk's `corpus_bleu` sums over the corpus for one hypothesis: clipped n-gram
/// matches and n-gram counts (at least 1) per order, the hypothesis length and the closest
/// reference length.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BleuStats {
    pub matches: [u64; 4],
    pub totals: [u64; 4],
    pub hyp_len: u64,
    pub ref_len: u64,
}

/// The `corpus_bleu` statistics of one hypothesis against one reference (tokens as given).
pub fn bleu_stats<T: std::hash::Hash + Eq>(reference: &[T], hypothesis: &[T]) -> BleuStats {
    let mut st = BleuStats {
        hyp_len: hypothesis.len() as u64,
        ref_len: reference.len() as u64,
        ..BleuStats::default()
    };
    let refc = ngram_counts(reference, 4);
    let mut total = [0u64; 4];
    for (g, c) in ngram_counts(hypothesis, 4) {
        let k = g.len() - 1;
        st.matches[k] += u64::from(c.min(refc.get(g).copied().unwrap_or(0)));
        total[k] += u64::from(c);
    }
    for (t, n) in st.totals.iter_mut().zip(total) {
        // nltk's modified_precision: the denominator is at least 1.
        *t = n.max(1);
    }
    st
}

/// Python's `math.fsum`: the correctly rounded sum (Shewchuk's partials, as CPython's
/// `msum`).
pub fn fsum(values: impl IntoIterator<Item = f64>) -> f64 {
    let mut partials: Vec<f64> = Vec::new();
    for mut x in values {
        let mut i = 0;
        for j in 0..partials.len() {
            let mut y = partials[j];
            if x.abs() < y.abs() {
                std::mem::swap(&mut x, &mut y);
            }
            let hi = x + y;
            let lo = y - (hi - x);
            if lo != 0.0 {
                partials[i] = lo;
                i += 1;
            }
            x = hi;
        }
        partials.truncate(i);
        if x != 0.0 {
            partials.push(x);
        }
    }
    // Sum the partials from the top, with CPython's half-way correction.
    let mut n = partials.len();
    if n == 0 {
        return 0.0;
    }
    n -= 1;
    let mut hi = partials[n];
    let mut lo = 0.0;
    while n > 0 {
        let x = hi;
        n -= 1;
        let y = partials[n];
        hi = x + y;
        let yr = hi - x;
        lo = y - yr;
        if lo != 0.0 {
            break;
        }
    }
    if n > 0 && ((lo < 0.0 && partials[n - 1] < 0.0) || (lo > 0.0 && partials[n - 1] > 0.0)) {
        let y = lo * 2.0;
        let x = hi + y;
        let yr = x - hi;
        if y == yr {
            hi = x;
        }
    }
    hi
}

/// nltk's `corpus_bleu` (weights 0.25 each, `method0`, no re-weighting) from summed
/// statistics, in [0, 1].
pub fn corpus_bleu_from_stats<'a>(stats: impl IntoIterator<Item = &'a BleuStats>) -> f64 {
    let mut sum = BleuStats::default();
    for s in stats {
        for (a, b) in sum.matches.iter_mut().zip(s.matches) {
            *a += b;
        }
        for (a, b) in sum.totals.iter_mut().zip(s.totals) {
            *a += b;
        }
        sum.hyp_len += s.hyp_len;
        sum.ref_len += s.ref_len;
    }
    if sum.matches[0] == 0 {
        return 0.0;
    }
    let bp = if sum.hyp_len > sum.ref_len {
        1.0
    } else if sum.hyp_len == 0 {
        0.0
    } else {
        (1.0 - sum.ref_len as f64 / sum.hyp_len as f64).exp()
    };
    let logs = (0..4).map(|k| {
        // method0: a zero count becomes sys.float_info.min.
        let p = if sum.matches[k] == 0 {
            f64::MIN_POSITIVE
        } else {
            sum.matches[k] as f64 / sum.totals[k] as f64
        };
        0.25 * p.ln()
    });
    bp * fsum(logs).exp()
}

/// Per-example `corpus_bleu` statistics over `str.split()` tokens.
pub fn corpus_bleu_stats(predictions: &[String], references: &[String]) -> Vec<BleuStats> {
    predictions
        .par_iter()
        .zip(references.par_iter())
        .map(|(p, r)| bleu_stats(&py_split(r), &py_split(p)))
        .collect()
}

/// nltk's `corpus_bleu` over `str.split()` tokens, in [0, 1].
pub fn corpus_bleu(predictions: &[String], references: &[String]) -> f64 {
    corpus_bleu_from_stats(&corpus_bleu_stats(predictions, references))
}

// ---------------------------------------------------------------------------------------
// ROUGE-L (rouge-score)

/// rouge-score's default tokenizer: lowercase, runs of `[a-z0-9]`, tokens longer than
/// three characters Porter-stemmed when `stem`.
pub fn rouge_tokens(text: &str, stem: bool) -> Vec<String> {
    let lower = py_lower(text);
    lower
        .split(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit()))
        .filter(|t| !t.is_empty())
        .map(|t| {
            if stem && t.len() > 3 {
                porter::stem(t)
            } else {
                t.to_string()
            }
        })
        .collect()
}

/// Length of the longest common subsequence of two token lists.
fn lcs_len<T: PartialEq>(a: &[T], b: &[T]) -> usize {
    if a.is_empty() || b.is_empty() {
        return 0;
    }
    let mut row = vec![0usize; b.len() + 1];
    for x in a {
        let mut diag = 0;
        for (j, y) in b.iter().enumerate() {
            let up = row[j + 1];
            row[j + 1] = if x == y { diag + 1 } else { up.max(row[j]) };
            diag = up;
        }
    }
    row[b.len()]
}

/// rouge-score's ROUGE-L F-measure of `prediction` against `reference` (`target`).
pub fn rouge_l(prediction: &str, reference: &str, stem: bool) -> f64 {
    let t = rouge_tokens(reference, stem);
    let p = rouge_tokens(prediction, stem);
    if t.is_empty() || p.is_empty() {
        return 0.0;
    }
    let lcs = lcs_len(&t, &p) as f64;
    let precision = lcs / p.len() as f64;
    let recall = lcs / t.len() as f64;
    if precision + recall > 0.0 {
        2.0 * precision * recall / (precision + recall)
    } else {
        0.0
    }
}

/// Per-example ROUGE-L F-measure.
pub fn rouge_l_all(predictions: &[String], references: &[String], stem: bool) -> Vec<f64> {
    predictions
        .par_iter()
        .zip(references.par_iter())
        .map(|(p, r)| rouge_l(p, r, stem))
        .collect()
}

// ---------------------------------------------------------------------------------------
// METEOR (nltk)

/// Which alignment stages METEOR runs. nltk's `meteor_score` runs exact, Porter stem and
/// WordNet synonym matching; the other two are nltk with an empty WordNet, and that with an
/// identity stemmer too.
#[derive(Debug, Clone, Copy)]
pub enum MeteorStages<'a> {
    /// Exact matches only.
    Exact,
    /// Exact, then Porter-stem matches.
    ExactStem,
    /// Exact, Porter-stem, then WordNet synonym matches: nltk's default.
    WordNet(&'a WordNet),
}

/// Each word's positions in `words`, ascending: both matching stages take the highest
/// unused one.
fn word_positions(words: &[(usize, String)]) -> HashMap<&str, Vec<usize>> {
    let mut positions: HashMap<&str, Vec<usize>> = HashMap::new();
    for (j, (_, w)) in words.iter().enumerate() {
        positions.entry(w.as_str()).or_default().push(j);
    }
    positions
}

/// nltk's `_match_enums`: from the last hypothesis word back, each takes the highest
/// still-unused reference position of the same word. Returns (hyp, ref) original indices
/// and removes the matched words from both lists.
fn match_enums(
    hyp: &mut Vec<(usize, String)>,
    reference: &mut Vec<(usize, String)>,
) -> Vec<(usize, usize)> {
    let mut positions = word_positions(reference);
    let mut matched_h = vec![false; hyp.len()];
    let mut matched_r = vec![false; reference.len()];
    let mut out = Vec::new();
    for i in (0..hyp.len()).rev() {
        if let Some(j) = positions.get_mut(hyp[i].1.as_str()).and_then(Vec::pop) {
            matched_h[i] = true;
            matched_r[j] = true;
            out.push((hyp[i].0, reference[j].0));
        }
    }
    drop(positions);
    let mut k = 0;
    hyp.retain(|_| {
        k += 1;
        !matched_h[k - 1]
    });
    let mut k = 0;
    reference.retain(|_| {
        k += 1;
        !matched_r[k - 1]
    });
    out
}

/// nltk's `_enum_wordnetsyn_match`: from the last hypothesis word back, each takes the
/// highest still-unused reference position whose word is the hypothesis word or one of its
/// WordNet synonyms.
fn synonym_matches(
    hyp: &[(usize, String)],
    reference: &[(usize, String)],
    wordnet: &WordNet,
) -> Vec<(usize, usize)> {
    let mut positions = word_positions(reference);
    let mut out = Vec::new();
    for (i, word) in hyp.iter().rev() {
        if positions.is_empty() {
            break;
        }
        // Distinct words hold distinct positions, so the best one is unique.
        let mut best: Option<(usize, &str)> = None;
        let mut consider = |w: &str| {
            if let Some((&j, key)) = positions
                .get_key_value(w)
                .and_then(|(k, p)| p.last().map(|j| (j, *k)))
            {
                if best.is_none_or(|(b, _)| j > b) {
                    best = Some((j, key));
                }
            }
        };
        consider(word.as_str());
        wordnet.for_each_synonym(word, &mut consider);
        if let Some((j, key)) = best {
            if let Some(p) = positions.get_mut(key) {
                p.pop();
                if p.is_empty() {
                    positions.remove(key);
                }
            }
            out.push((*i, reference[j].0));
        }
    }
    out
}

/// nltk's `single_meteor_score` (alpha 0.9, beta 3, gamma 0.5) over `str.split()` tokens.
pub fn meteor(prediction: &str, reference: &str, stages: MeteorStages) -> f64 {
    const ALPHA: f64 = 0.9;
    const BETA: f64 = 3.0;
    const GAMMA: f64 = 0.5;
    let mut hyp: Vec<(usize, String)> = py_split(prediction)
        .into_iter()
        .map(py_lower)
        .enumerate()
        .collect();
    let mut refs: Vec<(usize, String)> = py_split(reference)
        .into_iter()
        .map(py_lower)
        .enumerate()
        .collect();
    let translation_length = hyp.len();
    let reference_length = refs.len();
    let mut matches = match_enums(&mut hyp, &mut refs);
    if !matches!(stages, MeteorStages::Exact) {
        // nltk hands the stemmed words on: the synonym stage looks up stems.
        let stem = |v: Vec<(usize, String)>| -> Vec<(usize, String)> {
            v.into_iter().map(|(i, w)| (i, porter::stem(&w))).collect()
        };
        hyp = stem(hyp);
        refs = stem(refs);
        matches.extend(match_enums(&mut hyp, &mut refs));
        if let MeteorStages::WordNet(wn) = stages {
            matches.extend(synonym_matches(&hyp, &refs, wn));
        }
    }
    matches.sort_by_key(|m| m.0);
    let m = matches.len();
    if translation_length == 0 || reference_length == 0 || m == 0 {
        return 0.0;
    }
    let precision = m as f64 / translation_length as f64;
    let recall = m as f64 / reference_length as f64;
    let fmean = (precision * recall) / (ALPHA * precision + (1.0 - ALPHA) * recall);
    let mut chunks = 1usize;
    for w in matches.windows(2) {
        if !(w[1].0 == w[0].0 + 1 && w[1].1 == w[0].1 + 1) {
            chunks += 1;
        }
    }
    let frag = chunks as f64 / m as f64;
    let penalty = GAMMA * frag.powf(BETA);
    (1.0 - penalty) * fmean
}

/// Per-example METEOR.
pub fn meteor_all(predictions: &[String], references: &[String], stages: MeteorStages) -> Vec<f64> {
    predictions
        .par_iter()
        .zip(references.par_iter())
        .map(|(p, r)| meteor(p, r, stages))
        .collect()
}

// ---------------------------------------------------------------------------------------
// CIDEr (pycocoevalcap)

/// An n-gram (n ≤ 4) of interned token ids (each ≥ 1), packed 32 bits a token; its order
/// is the number of non-zero ids.
type Gram = u128;

fn gram(ids: &[u32]) -> Gram {
    ids.iter()
        .enumerate()
        .fold(0, |k, (i, &id)| k | (u128::from(id) << (32 * i)))
}

/// n-gram counts (orders 1..=4) in pycocoevalcap's `precook` order: all unigrams in order
/// of first appearance, then bigrams, and so on. Returns (n-gram, order - 1, count).
fn precook(ids: &[u32]) -> Vec<(Gram, usize, u32)> {
    let mut index: HashMap<Gram, usize> = HashMap::with_capacity(ids.len() * 4);
    let mut out: Vec<(Gram, usize, u32)> = Vec::with_capacity(ids.len() * 4);
    for n in 1..=4 {
        for g in ids.windows(n) {
            let k = gram(g);
            match index.get(&k) {
                Some(&i) => out[i].2 += 1,
                None => {
                    index.insert(k, out.len());
                    out.push((k, n - 1, 1));
                }
            }
        }
    }
    out
}

/// The tf-idf vectors of one sentence (`counts2vec`): per order the n-gram weights (in
/// `precook` order), the norms, and the "length", which pycocoevalcap counts as the number
/// of bigrams.
struct CiderVec {
    weights: [Vec<(Gram, f64)>; 4],
    norm: [f64; 4],
    length: u64,
}

fn counts2vec(counts: &[(Gram, usize, u32)], df: &HashMap<Gram, u32>, ref_len: f64) -> CiderVec {
    let mut v = CiderVec {
        weights: Default::default(),
        norm: [0.0; 4],
        length: 0,
    };
    for &(g, n, tf) in counts {
        let d = f64::from(df.get(&g).copied().unwrap_or(0)).max(1.0).ln();
        let w = f64::from(tf) * (ref_len - d);
        v.weights[n].push((g, w));
        v.norm[n] += w.powi(2);
        if n == 1 {
            v.length += u64::from(tf);
        }
    }
    for x in &mut v.norm {
        *x = x.sqrt();
    }
    v
}

/// Token ids (from 1) of every sentence, new tokens added to `vocab`.
fn intern<'a>(sentences: &[Vec<&'a str>], vocab: &mut HashMap<&'a str, u32>) -> Vec<Vec<u32>> {
    sentences
        .iter()
        .map(|t| {
            t.iter()
                .map(|&w| {
                    let next = vocab.len() as u32 + 1;
                    *vocab.entry(w).or_insert(next)
                })
                .collect()
        })
        .collect()
}

/// pycocoevalcap's per-example CIDEr (its CIDEr-D formula, n = 4, σ = 6, × 10) with one
/// reference per example; the document frequencies come from all the references given.
/// Their mean is `Cider().compute_score(...)[0]`. Tokens are `str.split()` words, compared
/// as interned ids.
pub fn cider(predictions: &[String], references: &[String]) -> Vec<f64> {
    const SIGMA: f64 = 6.0;
    let hyp_toks: Vec<Vec<&str>> = predictions.par_iter().map(|p| py_split(p)).collect();
    let ref_toks: Vec<Vec<&str>> = references.par_iter().map(|r| py_split(r)).collect();
    let mut vocab: HashMap<&str, u32> = HashMap::new();
    let hyp_ids = intern(&hyp_toks, &mut vocab);
    let ref_ids = intern(&ref_toks, &mut vocab);
    let hyp_counts: Vec<Vec<(Gram, usize, u32)>> = hyp_ids.par_iter().map(|t| precook(t)).collect();
    let ref_counts: Vec<Vec<(Gram, usize, u32)>> = ref_ids.par_iter().map(|t| precook(t)).collect();
    let mut df: HashMap<Gram, u32> = HashMap::new();
    for rc in &ref_counts {
        for &(g, _, _) in rc {
            *df.entry(g).or_insert(0) += 1;
        }
    }
    let ref_len = (references.len() as f64).ln();
    hyp_counts
        .par_iter()
        .zip(ref_counts.par_iter())
        .map(|(hc, rc)| {
            let h = counts2vec(hc, &df, ref_len);
            let r = counts2vec(rc, &df, ref_len);
            let delta = h.length as f64 - r.length as f64;
            let mut sum = 0.0;
            for (n, hw) in h.weights.iter().enumerate() {
                let rmap: HashMap<Gram, f64> = r.weights[n].iter().copied().collect();
                let mut val = 0.0;
                for &(g, wh) in hw {
                    let wr = rmap.get(&g).copied().unwrap_or(0.0);
                    val += wh.min(wr) * wr;
                }
                if h.norm[n] != 0.0 && r.norm[n] != 0.0 {
                    val /= h.norm[n] * r.norm[n];
                }
                val *= std::f64::consts::E.powf(-(delta.powi(2)) / (2.0 * SIGMA.powi(2)));
                sum += val;
            }
            sum / 4.0 * 10.0
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalize_quirks() {
        assert_eq!(split_puncts("foo_bar(x).y"), "foo_bar ( x ) . y");
        // The NIST rules split `_`, and keep periods between digits.
        assert_eq!(
            nist_normalize("foo_bar 1.5 a.b"),
            ["foo", "_", "bar", "1.5", "a", ".", "b"]
        );
    }

    #[test]
    fn fsum_is_exact() {
        assert_eq!(fsum([1e100, 1.0, -1e100, 1e-100]), 1.0);
        assert_eq!(fsum([0.1; 10]), 1.0);
        assert_eq!(
            fsum([1e100, 1.0, -1e100, 1e-100, 1e50, -1.0, -1e50]),
            1e-100
        );
        assert_eq!(fsum([1e-16, 1.0, 1e16]), 10000000000000002.0);
        assert_eq!(fsum([]), 0.0);
    }
}
