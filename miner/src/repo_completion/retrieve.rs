//! Retrieval over one repository snapshot, CrossCodeEval's recipe: every file cut into
//! fixed-size line chunks (a window of `chunk_lines` lines every `stride` lines), the query
//! the last non-empty lines before the cursor, the top k chunks of *other* files by BM25
//! and by token Jaccard. One inverted index per repository serves every query.
//!
//! Tokens are the word runs of the text (Python's `re.findall(r"\w+", text)`: letters,
//! digits and `_`). BM25 is `rank_bm25`'s `BM25Okapi` (k1 1.5, b 0.75, epsilon 0.25: a
//! negative idf becomes epsilon times the mean idf), over all chunks of the repository;
//! Jaccard is |Q ∩ C| / |Q ∪ C| of the token sets. Ties go to the earlier chunk (path, then
//! line), so results never depend on thread count.

use std::collections::HashMap;

/// `rank_bm25`'s defaults.
pub const K1: f64 = 1.5;
pub const B: f64 = 0.75;
pub const EPSILON: f64 = 0.25;

/// The word runs of `text`, as Python's `re.findall(r"\w+", text)` finds them.
pub fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
}

/// A chunk of a file: 1-based inclusive lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    pub file: u32,
    pub start_line: u32,
    pub end_line: u32,
}

/// The chunks of a text with `lines` lines per window, a new window every `stride` lines;
/// windows without a word are left out.
pub fn chunk_lines(text: &str, lines: usize, stride: usize) -> Vec<(u32, u32, &str)> {
    let lines = lines.max(1);
    let stride = stride.max(1);
    // Byte offsets of line starts.
    let mut starts = vec![0usize];
    starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
    if starts.last() == Some(&text.len()) && starts.len() > 1 {
        // A final newline does not start a line.
        starts.pop();
    }
    let n = starts.len();
    let mut out = Vec::new();
    let mut s = 0;
    while s < n {
        let e = (s + lines).min(n);
        let end_byte = if e < n { starts[e] } else { text.len() };
        let body = &text[starts[s]..end_byte];
        if words(body).next().is_some() {
            // The window's lines without the last one's line break.
            out.push((
                s as u32 + 1,
                e as u32,
                body.strip_suffix('\n').unwrap_or(body),
            ));
        }
        if e == n {
            break;
        }
        s += stride;
    }
    out
}

/// One result: the chunk's index and its score.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit {
    pub chunk: usize,
    pub score: f64,
}

/// A term's idf and its (chunk, term frequency) list, chunks ascending.
type Posting = (f64, Vec<(u32, u32)>);

/// The inverted index of a repository's chunks.
pub struct Index {
    pub chunks: Vec<Chunk>,
    /// Term to its number, and each term's [`Posting`].
    ids: HashMap<Box<str>, u32>,
    postings: Vec<Posting>,
    /// Per chunk: BM25's length normalisation `k1 (1 - b + b dl / avgdl)`, and its
    /// distinct-token count.
    norm: Vec<f64>,
    distinct: Vec<u32>,
}

/// Per-thread buffers of a search, one slot per chunk (a query touches many chunks of a
/// large repository: dense arrays beat maps there).
pub struct Scratch {
    scores: Vec<f64>,
    shared: Vec<u32>,
    touched: Vec<u32>,
}

impl Scratch {
    pub fn new(index: &Index) -> Self {
        Self {
            scores: vec![0.0; index.chunks.len()],
            shared: vec![0; index.chunks.len()],
            touched: Vec::new(),
        }
    }
}

impl Index {
    /// Indexes the chunks (in the order given: callers pass files by path) with their
    /// texts.
    pub fn new<'a>(chunks: impl IntoIterator<Item = (Chunk, &'a str)>) -> Self {
        // Terms are numbered in order of first appearance (chunk by chunk, word by word), the
        // order of rank_bm25's document-frequency dict: the idf sum below adds in that order,
        // so the scores do not depend on a hash map's iteration order.
        let mut ids: HashMap<Box<str>, u32> = HashMap::new();
        let mut postings: Vec<Posting> = Vec::new();
        let mut all = Vec::new();
        let mut len = Vec::new();
        let mut distinct = Vec::new();
        let mut tf: HashMap<&str, u32> = HashMap::new();
        let mut order: Vec<&str> = Vec::new();
        for (i, (chunk, text)) in chunks.into_iter().enumerate() {
            tf.clear();
            order.clear();
            let mut n = 0u32;
            for w in words(text) {
                let c = tf.entry(w).or_default();
                if *c == 0 {
                    order.push(w);
                }
                *c += 1;
                n += 1;
            }
            for w in &order {
                let c = tf.get(w).copied().unwrap_or_default();
                let id = match ids.get(*w) {
                    Some(&id) => id,
                    None => {
                        let id = postings.len() as u32;
                        ids.insert(Box::from(*w), id);
                        postings.push((0.0, Vec::new()));
                        id
                    }
                };
                postings[id as usize].1.push((i as u32, c));
            }
            len.push(n);
            distinct.push(order.len() as u32);
            all.push(chunk);
        }
        let size = all.len() as f64;
        let total: f64 = len.iter().map(|&l| f64::from(l)).sum();
        let avgdl = if all.is_empty() { 0.0 } else { total / size };
        // rank_bm25's _calc_idf, in its order of operations.
        let mut idf_sum = 0.0;
        let mut negative = false;
        for (idf, p) in &mut postings {
            let freq = p.len() as f64;
            *idf = (size - freq + 0.5).ln() - (freq + 0.5).ln();
            idf_sum += *idf;
            negative |= *idf < 0.0;
        }
        if negative {
            let eps = EPSILON * (idf_sum / postings.len() as f64);
            for (idf, _) in &mut postings {
                if *idf < 0.0 {
                    *idf = eps;
                }
            }
        }
        let norm = len
            .iter()
            .map(|&dl| K1 * (1.0 - B + B * f64::from(dl) / avgdl))
            .collect();
        Self {
            chunks: all,
            ids,
            postings,
            norm,
            distinct,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.chunks.is_empty()
    }

    /// The best `k` chunks outside file `exclude` by BM25 (`BM25Okapi.get_scores`: every
    /// query token counts, a repeated one again) and by Jaccard of the token sets, among
    /// the chunks that share a token with the query; best first, ties to the earlier chunk.
    pub fn search(
        &self,
        query: &[&str],
        exclude: u32,
        k: usize,
        scratch: &mut Scratch,
    ) -> (Vec<Hit>, Vec<Hit>) {
        // Distinct query tokens in order of first appearance, with their counts.
        let mut terms: Vec<(&str, u32)> = Vec::new();
        let mut at: HashMap<&str, usize> = HashMap::new();
        for q in query {
            match at.get(q) {
                Some(&i) => terms[i].1 += 1,
                None => {
                    at.insert(q, terms.len());
                    terms.push((q, 1));
                }
            }
        }
        let Scratch {
            scores,
            shared,
            touched,
        } = scratch;
        for (q, m) in &terms {
            let Some((idf, p)) = self
                .ids
                .get(*q)
                .and_then(|&i| self.postings.get(i as usize))
            else {
                continue;
            };
            for &(c, f) in p {
                let c = c as usize;
                if shared[c] == 0 {
                    touched.push(c as u32);
                }
                shared[c] += 1;
                let f = f64::from(f);
                scores[c] += f64::from(*m) * (idf * (f * (K1 + 1.0) / (f + self.norm[c])));
            }
        }
        let q = terms.len() as u32;
        let mut bm25 = Vec::with_capacity(touched.len());
        let mut jaccard = Vec::with_capacity(touched.len());
        for &c in touched.iter() {
            let ci = c as usize;
            if self.chunks[ci].file != exclude {
                bm25.push(Hit {
                    chunk: ci,
                    score: scores[ci],
                });
                let i = shared[ci];
                let union = q + self.distinct[ci] - i;
                jaccard.push(Hit {
                    chunk: ci,
                    score: f64::from(i) / f64::from(union),
                });
            }
            scores[ci] = 0.0;
            shared[ci] = 0;
        }
        touched.clear();
        (best(bm25, k), best(jaccard, k))
    }
}

/// The best `k` hits, best first; ties to the earlier chunk.
fn best(mut hits: Vec<Hit>, k: usize) -> Vec<Hit> {
    let order = |a: &Hit, b: &Hit| b.score.total_cmp(&a.score).then(a.chunk.cmp(&b.chunk));
    if hits.len() > k && k > 0 {
        hits.select_nth_unstable_by(k - 1, order);
        hits.truncate(k);
    }
    hits.truncate(k);
    hits.sort_by(order);
    hits
}

/// The query for a cursor: the words of the last `n` non-empty lines of `prefix`.
pub fn query(prefix: &str, n: usize) -> Vec<&str> {
    let lines: Vec<&str> = prefix
        .lines()
        .rev()
        .filter(|l| !l.trim().is_empty())
        .take(n)
        .collect();
    lines.into_iter().rev().flat_map(words).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_are_windows_with_a_stride() {
        let text = "a\nb\nc\nd\ne\n";
        let c = chunk_lines(text, 2, 2);
        assert_eq!(c, vec![(1, 2, "a\nb"), (3, 4, "c\nd"), (5, 5, "e")]);
        let c = chunk_lines(text, 3, 2);
        assert_eq!(c, vec![(1, 3, "a\nb\nc"), (3, 5, "c\nd\ne")]);
        // Windows without words are left out.
        assert_eq!(chunk_lines("\n\n+\n", 1, 1), vec![]);
    }

    #[test]
    fn bm25_and_jaccard_by_hand() {
        // Three chunks; the query word `x` is in two of them.
        let chunks = [("x y", 0), ("x x z", 1), ("z", 2)];
        let idx = Index::new(chunks.iter().map(|(t, f)| {
            (
                Chunk {
                    file: *f,
                    start_line: 1,
                    end_line: 1,
                },
                *t,
            )
        }));
        // idf(x) = ln(3 - 2 + .5) - ln(2 + .5) < 0; idf(y) = ln(2.5) - ln(1.5);
        // idf(z) = idf(x); mean = (2 idf(x) + idf(y)) / 3; idf(x) := 0.25 mean.
        let ix = (1.5f64).ln() - (2.5f64).ln();
        let iy = (2.5f64).ln() - (1.5f64).ln();
        let eps = 0.25 * ((ix + iy + ix) / 3.0);
        let avgdl = 6.0 / 3.0;
        let term = |f: f64, dl: f64| f * 2.5 / (f + 1.5 * (1.0 - 0.75 + 0.75 * dl / avgdl));
        let mut scratch = Scratch::new(&idx);
        // File 9 excludes nothing; `x` twice counts twice.
        let (b, j) = idx.search(&["x", "x"], 9, 5, &mut scratch);
        let s: Vec<(usize, f64)> = b.iter().map(|h| (h.chunk, h.score)).collect();
        // The mean idf is negative here, so is epsilon: the chunk with more `x` scores lower.
        assert!(eps < 0.0);
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].0, 0);
        assert!((s[0].1 - 2.0 * eps * term(1.0, 2.0)).abs() < 1e-12);
        assert!((s[1].1 - 2.0 * eps * term(2.0, 3.0)).abs() < 1e-12);
        assert_eq!(j.iter().map(|h| h.chunk).collect::<Vec<_>>(), vec![0, 1]);
        // {x, z} against {x, y}: 1 / 3; {x, z}: 1; {z}: 1 / 2; file 1 is the query's own.
        let (_, j) = idx.search(&["x", "z", "x"], 1, 5, &mut scratch);
        let s: Vec<(usize, f64)> = j.iter().map(|h| (h.chunk, h.score)).collect();
        assert_eq!(s, vec![(2, 0.5), (0, 1.0 / 3.0)]);
        // The scratch is clean after each search.
        assert!(scratch.scores.iter().all(|&v| v == 0.0));
        assert!(scratch.shared.iter().all(|&v| v == 0));
        let (b, _) = idx.search(&["x"], 9, 1, &mut scratch);
        assert_eq!(b.len(), 1);
    }

    #[test]
    fn the_query_is_the_last_non_empty_lines() {
        assert_eq!(query("a b\n\nc\n  \nd e\n    ", 2), vec!["c", "d", "e"]);
    }
}
