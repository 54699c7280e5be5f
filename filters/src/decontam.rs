//! Decontamination: which mined functions contain a benchmark's code. Benchmark items and
//! functions are compared on the same content tokens as dedup (identifiers, keywords,
//! literals; no comments, no layout), in two ways:
//!
//! - exact: the function and the item share runs of `ngram` consecutive tokens (13 by
//!   default, as BigCode and GPT-3 decontaminate), at least `min_coverage` of the item's
//!   distinct runs (a fifth by default: a copy, even with renamed variables, keeps most of
//!   its runs, an idiom that unrelated code shares with an item is one or two of dozens;
//!   0 makes one shared run a match, GPT-3's rule);
//!   an item shorter than that matches only a function whose content tokens are exactly
//!   its own (a whole-function copy): contained in longer code, a few tokens are no
//!   evidence (one token, `x`, is in most functions);
//! - near: MinHash LSH with the dedup parameters finds candidate items, kept when the exact
//!   Jaccard of the shingle sets is at least the threshold.
//!
//! The index holds every item of every benchmark once, so one pass over the corpus checks
//! them all.
//!
//! ```
//! use codemine_filters::decontam::{BenchItem, DecontamParams, Index, MatchKind};
//! let toks = |s: &str| s.split(' ').map(str::to_string).collect::<Vec<_>>();
//! let item = BenchItem {
//!     benchmark: "humaneval".into(),
//!     id: "HumanEval/0".into(),
//!     tokens: toks("def has_close_elements numbers threshold for idx elem in enumerate numbers for idx2 elem2 in enumerate numbers"),
//! };
//! let index = Index::build(vec![item], &DecontamParams::default());
//! let f = toks("import x def has_close_elements numbers threshold for idx elem in enumerate numbers for idx2 elem2 in enumerate numbers return False");
//! let refs: Vec<&str> = f.iter().map(String::as_str).collect();
//! let m = index.check(&refs).unwrap();
//! assert_eq!((m.item.as_str(), m.kind), ("HumanEval/0", MatchKind::Exact));
//! ```

use std::hash::{BuildHasherDefault, Hasher};

use xxhash_rust::xxh3::xxh3_64;

use serde::Serialize;

use crate::dedup::{band_hashes_into, jaccard, shingle_set_of_hashes, DedupParams};

/// Settings of the two tests.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DecontamParams {
    /// Tokens in a shared run that makes an exact match.
    pub ngram: usize,
    /// The least verified Jaccard of a near match.
    pub threshold: f64,
    /// Shingles, permutations and bands of the near test (the run's dedup parameters).
    pub dedup: DedupParams,
    /// A run found in more items than this is boilerplate (an idiom such as Go's
    /// table-test loop), no evidence of a copy: it makes no exact match. 0 keeps every run.
    pub max_run_items: usize,
    /// The least share of an item's distinct runs (those not taken for boilerplate) that a
    /// function must contain for an exact match; 0 takes any one shared run.
    pub min_coverage: f64,
}

/// The default [`DecontamParams::max_run_items`].
pub const DEFAULT_MAX_RUN_ITEMS: usize = 3;

/// The default [`DecontamParams::min_coverage`].
pub const DEFAULT_MIN_COVERAGE: f64 = 0.2;

impl Default for DecontamParams {
    fn default() -> Self {
        let dedup = DedupParams::bigcode();
        Self {
            ngram: 13,
            threshold: dedup.threshold,
            dedup,
            max_run_items: DEFAULT_MAX_RUN_ITEMS,
            min_coverage: DEFAULT_MIN_COVERAGE,
        }
    }
}

/// One benchmark item: its benchmark's name, its id there, and its content tokens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BenchItem {
    pub benchmark: String,
    pub id: String,
    pub tokens: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum MatchKind {
    Exact,
    Near,
}

impl MatchKind {
    pub fn as_str(self) -> &'static str {
        match self {
            MatchKind::Exact => "exact",
            MatchKind::Near => "near",
        }
    }
}

/// What a function matched: among exact matches, the item with the largest share of its
/// distinct runs in the function, then the most shared runs, then the first by index order
/// (so a copy names its own item rather than another that shares a stretch of boilerplate
/// with it, or an outer function that holds it nested); else the near match with the
/// highest Jaccard (ties: the first item).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Match {
    pub benchmark: String,
    pub item: String,
    pub kind: MatchKind,
    /// 1 for exact matches; the verified Jaccard for near ones.
    pub score: f64,
}

/// Every item of every benchmark, indexed by token n-grams and LSH bands.
pub struct Index {
    params: DecontamParams,
    /// The benchmarks' names, once each.
    benchmarks: Vec<String>,
    /// Each item's benchmark (an index into `benchmarks`) and id.
    items: Vec<(u32, String)>,
    /// Hash of each `ngram`-token run (or of a whole shorter item) to the first item with it.
    runs: HashMap<u64, u32>,
    /// The further items of the runs that more than one item has.
    more_runs: HashMap<u64, Vec<u32>>,
    /// Distinct runs of each item.
    run_counts: Vec<u32>,
    /// Lengths of the items shorter than `ngram`: a function of one of these lengths is
    /// looked up whole.
    short_lengths: Vec<usize>,
    /// Items shorter than `ngram` (not empty).
    short_items: u64,
    /// One map per band: band hash to the items in that bucket.
    bands: Vec<HashMap<u64, Vec<u32>>>,
    shingles: Vec<Vec<u64>>,
    /// Every shingle of every item: a function with too few of them cannot be near any
    /// item, and skips the MinHash signature.
    all_shingles: HashSet<u64>,
}

/// Each token's hash: runs are hashed from these fixed-size words, so a token is hashed
/// once however many runs it is in.
fn token_hashes<T: AsRef<str>>(tokens: &[T]) -> Vec<u64> {
    tokens
        .iter()
        .map(|t| xxh3_64(t.as_ref().as_bytes()))
        .collect()
}

/// The hash of a run from its tokens' hashes (and its length, so that runs of different
/// lengths differ).
fn run_hash(words: &[u64], buf: &mut Vec<u8>) -> u64 {
    buf.clear();
    buf.extend_from_slice(&(words.len() as u64).to_le_bytes());
    for w in words {
        buf.extend_from_slice(&w.to_le_bytes());
    }
    xxh3_64(buf)
}

/// The band hashes of a shingle set, as dedup's `prepare` computes them (none for an empty
/// set).
fn band_keys(set: &[u64], params: &DedupParams) -> Vec<u64> {
    let mut bands = Vec::new();
    if !set.is_empty() {
        bands.resize(params.bands, 0);
        band_hashes_into(set, params.rows, &mut bands);
    }
    bands
}

/// Keys here are already hashes (xxh3): the map uses them as they are.
#[derive(Default, Clone, Copy)]
struct Prehashed(u64);

impl Hasher for Prehashed {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        // Not called for u64 keys; fold anything else in.
        for b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(*b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

type HashMap<K, V> = std::collections::HashMap<K, V, BuildHasherDefault<Prehashed>>;
type HashSet<K> = std::collections::HashSet<K, BuildHasherDefault<Prehashed>>;

/// Builds an [`Index`] one item at a time, so that a benchmark is indexed as it is read and
/// no item's tokens outlive their turn.
pub struct IndexBuilder {
    params: DecontamParams,
    n: usize,
    benchmarks: Vec<String>,
    items: Vec<(u32, String)>,
    runs: HashMap<u64, u32>,
    more_runs: HashMap<u64, Vec<u32>>,
    run_counts: Vec<u32>,
    short_lengths: Vec<usize>,
    short_items: u64,
    bands: Vec<HashMap<u64, Vec<u32>>>,
    shingles: Vec<Vec<u64>>,
    all_shingles: HashSet<u64>,
    buf: Vec<u8>,
}

impl IndexBuilder {
    pub fn new(params: &DecontamParams) -> Self {
        Self {
            params: params.clone(),
            n: params.ngram.max(1),
            benchmarks: Vec::new(),
            items: Vec::new(),
            runs: HashMap::default(),
            more_runs: HashMap::default(),
            run_counts: Vec::new(),
            short_lengths: Vec::new(),
            short_items: 0,
            bands: vec![HashMap::default(); params.dedup.bands],
            shingles: Vec::new(),
            all_shingles: HashSet::default(),
            buf: Vec::new(),
        }
    }

    /// Items added so far.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Items added so far that are shorter than the n-gram size (and not empty).
    pub fn short_items(&self) -> u64 {
        self.short_items
    }

    /// Adds the next item: its benchmark's name, its id and its content tokens.
    pub fn add<T: AsRef<str>>(&mut self, benchmark: &str, id: String, toks: &[T]) {
        let k = self.items.len() as u32;
        let b = match self.benchmarks.iter().rposition(|n| n == benchmark) {
            Some(b) => b,
            None => {
                self.benchmarks.push(benchmark.to_string());
                self.benchmarks.len() - 1
            }
        } as u32;
        self.items.push((b, id));
        if toks.is_empty() {
            self.run_counts.push(0);
            self.shingles.push(Vec::new());
            return;
        }
        let n = self.n;
        let words = token_hashes(toks);
        let buf = &mut self.buf;
        let mut own: Vec<u64> = if toks.len() < n {
            self.short_items += 1;
            if !self.short_lengths.contains(&toks.len()) {
                self.short_lengths.push(toks.len());
            }
            vec![run_hash(&words, buf)]
        } else {
            words.windows(n).map(|w| run_hash(w, buf)).collect()
        };
        own.sort_unstable();
        own.dedup();
        self.run_counts.push(own.len() as u32);
        for h in own {
            let first = *self.runs.entry(h).or_insert(k);
            if first != k {
                self.more_runs.entry(h).or_default().push(k);
            }
        }
        let set = shingle_set_of_hashes(&words, self.params.dedup.shingle);
        let band_hashes = band_keys(&set, &self.params.dedup);
        self.all_shingles.extend(set.iter().copied());
        for (b, h) in band_hashes.into_iter().enumerate() {
            if let Some(map) = self.bands.get_mut(b) {
                map.entry(h).or_default().push(k);
            }
        }
        set_shrunk(&mut self.shingles, set);
    }

    /// The index: the runs found in more items than `max_run_items` are dropped as
    /// boilerplate.
    pub fn finish(mut self) -> Index {
        self.short_lengths.sort_unstable();
        if self.params.max_run_items > 0 {
            let common: Vec<u64> = self
                .more_runs
                .iter()
                .filter(|(_, more)| more.len() + 1 > self.params.max_run_items)
                .map(|(h, _)| *h)
                .collect();
            for h in common {
                let first = self.runs.remove(&h);
                let more = self.more_runs.remove(&h).unwrap_or_default();
                for k in first.into_iter().chain(more) {
                    if let Some(c) = self.run_counts.get_mut(k as usize) {
                        *c = c.saturating_sub(1);
                    }
                }
            }
        }
        Index {
            params: self.params,
            benchmarks: self.benchmarks,
            items: self.items,
            runs: self.runs,
            more_runs: self.more_runs,
            run_counts: self.run_counts,
            short_lengths: self.short_lengths,
            short_items: self.short_items,
            bands: self.bands,
            shingles: self.shingles,
            all_shingles: self.all_shingles,
        }
    }
}

/// Pushes a shingle set without spare capacity (it is kept for the whole run).
fn set_shrunk(sets: &mut Vec<Vec<u64>>, mut set: Vec<u64>) {
    set.shrink_to_fit();
    sets.push(set);
}

impl Index {
    pub fn build(items: Vec<BenchItem>, params: &DecontamParams) -> Self {
        let mut b = IndexBuilder::new(params);
        for item in items {
            b.add(&item.benchmark, item.id, &item.tokens);
        }
        b.finish()
    }

    /// Items shorter than the n-gram size (not empty): each matches only a function whose
    /// content tokens are exactly its own.
    pub fn short_items(&self) -> u64 {
        self.short_items
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The id of item `k` (in the order given to [`Index::build`]); empty past the end.
    pub fn item(&self, k: usize) -> &str {
        self.items.get(k).map_or("", |(_, id)| id.as_str())
    }

    fn found(&self, k: u32, kind: MatchKind, score: f64) -> Match {
        let (benchmark, item) = &self.items[k as usize];
        Match {
            benchmark: self.benchmarks[*benchmark as usize].clone(),
            item: item.clone(),
            kind,
            score,
        }
    }

    /// The benchmark item a function's content tokens contain, if any.
    pub fn check<T: AsRef<str>>(&self, tokens: &[T]) -> Option<Match> {
        let n = self.params.ngram.max(1);
        // Exact: the item with the largest share of its runs in the function (see `Match`).
        let mut hits: Vec<u64> = Vec::new();
        let mut consider = |h: u64| {
            if self.runs.contains_key(&h) {
                hits.push(h);
            }
        };
        let words = token_hashes(tokens);
        let mut buf = Vec::with_capacity(8 * (n + 1));
        if words.len() >= n {
            for w in words.windows(n) {
                consider(run_hash(w, &mut buf));
            }
        }
        // A function as long as a short item is looked up whole (a shorter one has no
        // `ngram`-token run to find).
        if words.len() < n && self.short_lengths.binary_search(&words.len()).is_ok() {
            consider(run_hash(&words, &mut buf));
        }
        if !hits.is_empty() {
            hits.sort_unstable();
            hits.dedup();
            let mut shared: std::collections::HashMap<u32, u32> = Default::default();
            for h in &hits {
                let first = self.runs.get(h).copied();
                let more = self.more_runs.get(h).into_iter().flatten().copied();
                for k in first.into_iter().chain(more) {
                    *shared.entry(k).or_default() += 1;
                }
            }
            let total = |k: u32| u64::from(self.run_counts[k as usize].max(1));
            let better = |(k, c): (u32, u32), (bk, bc): (u32, u32)| {
                // c / total(k) against bc / total(bk), without division.
                let (share, best) = (u64::from(c) * total(bk), u64::from(bc) * total(k));
                (share, c, std::cmp::Reverse(k)) > (best, bc, std::cmp::Reverse(bk))
            };
            let mut best: Option<(u32, u32)> = None;
            let covered =
                |k: u32, c: u32| f64::from(c) >= self.params.min_coverage * total(k) as f64;
            for (k, c) in shared.into_iter().filter(|&(k, c)| covered(k, c)) {
                if best.is_none_or(|b| better((k, c), b)) {
                    best = Some((k, c));
                }
            }
            if let Some((k, _)) = best {
                return Some(self.found(k, MatchKind::Exact, 1.0));
            }
        }
        // Near: LSH candidates verified by Jaccard. A Jaccard of t with an item needs at
        // least t * |set| of the function's shingles in that item, so a function with fewer
        // in all items together is near none (most unrelated code stops here).
        let set = shingle_set_of_hashes(&words, self.params.dedup.shingle);
        if set.is_empty() {
            return None;
        }
        let present = set.iter().filter(|h| self.all_shingles.contains(h)).count();
        if (present as f64) < self.params.threshold * set.len() as f64 {
            return None;
        }
        let band_hashes = band_keys(&set, &self.params.dedup);
        let mut cands: Vec<u32> = band_hashes
            .iter()
            .zip(&self.bands)
            .filter_map(|(h, map)| map.get(h))
            .flatten()
            .copied()
            .collect();
        cands.sort_unstable();
        cands.dedup();
        let mut near: Option<(f64, u32)> = None;
        for k in cands {
            let s = &self.shingles[k as usize];
            if s.is_empty() {
                continue;
            }
            let j = jaccard(&set, s);
            if j >= self.params.threshold && near.is_none_or(|(bj, _)| j > bj) {
                near = Some((j, k));
            }
        }
        near.map(|(j, k)| self.found(k, MatchKind::Near, j))
    }
}
