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

/// The inverted index of a repository's chunks.
pub struct Index {
    pub chunks: Vec<Chunk>,
    /// Term to (chunk, term frequency), chunks ascending.
    postings: HashMap<Box<str>, Vec<(u32, u32)>>,
    /// Per chunk: its token count and its distinct-token count.
    len: Vec<u32>,
    distinct: Vec<u32>,
    avgdl: f64,
    idf: HashMap<Box<str>, f64>,
}

impl Index {
    /// Indexes the chunks (in the order given: callers pass files by path) with their
    /// texts.
    pub fn new<'a>(chunks: impl IntoIterator<Item = (Chunk, &'a str)>) -> Self {
        let mut postings: HashMap<Box<str>, Vec<(u32, u32)>> = HashMap::new();
        let mut all = Vec::new();
        let mut len = Vec::new();
        let mut distinct = Vec::new();
        let mut tf: HashMap<&str, u32> = HashMap::new();
        for (i, (chunk, text)) in chunks.into_iter().enumerate() {
            tf.clear();
            let mut n = 0u32;
            for w in words(text) {
                *tf.entry(w).or_default() += 1;
                n += 1;
            }
            for (w, &c) in &tf {
                postings
                    .entry(Box::from(*w))
                    .or_default()
                    .push((i as u32, c));
            }
            len.push(n);
            distinct.push(tf.len() as u32);
            all.push(chunk);
        }
        let size = all.len() as f64;
        let total: f64 = len.iter().map(|&l| f64::from(l)).sum();
        let avgdl = if all.is_empty() { 0.0 } else { total / size };
        // rank_bm25's _calc_idf, in its order of operations.
        let mut idf = HashMap::with_capacity(postings.len());
        let mut idf_sum = 0.0;
        let mut negative = Vec::new();
        for (w, p) in &postings {
            let freq = p.len() as f64;
            let v = (size - freq + 0.5).ln() - (freq + 0.5).ln();
            idf_sum += v;
            if v < 0.0 {
                negative.push(w.clone());
            }
            idf.insert(w.clone(), v);
        }
        if !idf.is_empty() {
            let eps = EPSILON * (idf_sum / idf.len() as f64);
            for w in negative {
                idf.insert(w, eps);
            }
        }
        Self {
            chunks: all,
            postings,
            len,
            distinct,
            avgdl,
            idf,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.chunks.is_empty()
    }

    /// BM25 scores of every chunk that shares a term with the query (`BM25Okapi.get_scores`:
    /// each query token counts, repeated ones again).
    pub fn bm25(&self, query: &[&str]) -> HashMap<u32, f64> {
        let mut scores: HashMap<u32, f64> = HashMap::new();
        for q in query {
            let (Some(p), Some(&idf)) = (self.postings.get(*q), self.idf.get(*q)) else {
                continue;
            };
            for &(c, f) in p {
                let f = f64::from(f);
                let dl = f64::from(self.len[c as usize]);
                let s = idf * (f * (K1 + 1.0) / (f + K1 * (1.0 - B + B * dl / self.avgdl)));
                *scores.entry(c).or_insert(0.0) += s;
            }
        }
        scores
    }

    /// Jaccard similarity of the query's token set with each chunk's that shares a token.
    pub fn jaccard(&self, query: &[&str]) -> HashMap<u32, f64> {
        let mut set: Vec<&str> = query.to_vec();
        set.sort_unstable();
        set.dedup();
        let mut inter: HashMap<u32, u32> = HashMap::new();
        for q in &set {
            if let Some(p) = self.postings.get(*q) {
                for &(c, _) in p {
                    *inter.entry(c).or_default() += 1;
                }
            }
        }
        inter
            .into_iter()
            .map(|(c, i)| {
                let union = set.len() as u32 + self.distinct[c as usize] - i;
                (c, f64::from(i) / f64::from(union))
            })
            .collect()
    }

    /// The best `k` of `scores` whose chunk is not in file `exclude`, best first; ties to
    /// the earlier chunk.
    pub fn top(&self, scores: HashMap<u32, f64>, exclude: u32, k: usize) -> Vec<Hit> {
        let mut hits: Vec<Hit> = scores
            .into_iter()
            .filter(|(c, _)| self.chunks[*c as usize].file != exclude)
            .map(|(c, score)| Hit {
                chunk: c as usize,
                score,
            })
            .collect();
        hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.chunk.cmp(&b.chunk)));
        hits.truncate(k);
        hits
    }
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
    fn bm25_by_hand() {
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
        let s = idx.bm25(&["x"]);
        assert!((s[&0] - eps * term(1.0, 2.0)).abs() < 1e-12);
        assert!((s[&1] - eps * term(2.0, 3.0)).abs() < 1e-12);
        assert!(!s.contains_key(&2));
        let j = idx.jaccard(&["x", "z", "x"]);
        // {x, z} against {x, y}: 1 / 3; {x, z}: 1; {z}: 1 / 2.
        assert_eq!((j[&0], j[&1], j[&2]), (1.0 / 3.0, 1.0, 0.5));
        let top = idx.top(j, 1, 5);
        assert_eq!(
            top.iter().map(|h| h.chunk).collect::<Vec<_>>(),
            vec![2, 0],
            "file 1 is the query's own"
        );
    }

    #[test]
    fn the_query_is_the_last_non_empty_lines() {
        assert_eq!(query("a b\n\nc\n  \nd e\n    ", 2), vec!["c", "d", "e"]);
    }
}
