//! Exact and near-duplicate removal across a whole corpus (MinHash LSH).
//!
//! [`dedup`] takes every function of a run as an [`Item`] (its parser tokens and the facts
//! the keeper rule needs) and returns, per item in input order, its cluster, whether it is
//! removed and the partition it belongs to ([`Outcome`]).
//!
//! # Algorithm
//! 1. Exact stage: items with the same token sequence (128-bit xxh3, length-prefixed
//!    tokens) are duplicates.
//! 2. Near stage, on one representative per exact group with at least `shingle` tokens
//!    (tiny items only go through the exact stage): `shingle`-token shingles hashed to u64
//!    (xxh3), a MinHash signature of `bands * rows` permutations (minhash-rs, pinned to
//!    [`MINHASH_RS_VERSION`]), one hash per band. Items sharing a band hash are candidate
//!    pairs; a pair is kept only when the exact Jaccard of the two shingle sets is at least
//!    `threshold`.
//! 3. Components are the connected components (union-find) of exact and verified near
//!    pairs. A component can chain items that are far apart (a and c each near b), so it
//!    is cut into clusters: its best item by the keeper rule keeps every member with the
//!    same tokens or within the threshold of it, and the rest form the next cluster the same
//!    way. Every removed item is thus a verified near-duplicate of its own keeper, and no
//!    two keepers of a component are near-duplicates of each other.
//!
//! Both pairwise definitions are computed without visiting every pair of a large
//! component (thousands of near-identical generated functions): a bucket's members are
//! checked against each other component of the bucket rather than each earlier member,
//! and a keeper's star is found through an inverted index of shingle prefixes (see
//! `component`). The clusters are the same; only `candidate_pairs` and `near_pairs`
//! count fewer checks.
//!
//! # Keeper rule
//! Keepers are chosen by a total order that depends only on the items: the one with
//! a docstring first, then the most recent `last_commit` (unknown dates last), then the
//! smallest id. Ids must be unique. The result is the same for any thread count and any
//! input order. Every member of a cluster takes the keeper's partition, so no cluster
//! spans train, valid and test.

mod component;
pub mod literal;
mod params;
mod shingle;
mod signature;

use std::cmp::Reverse;
use std::collections::BTreeMap;

use rayon::prelude::*;
use serde::Serialize;

use component::{stars_of, BucketJoiner, NearInput, PairCounts};
pub use params::DedupParams;
pub(crate) use shingle::shingle_set_of_hashes;
pub use shingle::{is_content_token, jaccard, sequence_hash, shingle_set};
pub(crate) use signature::band_hashes_into;
pub use signature::SUPPORTED_PERMUTATIONS;

/// The minhash-rs version the signatures come from (pinned with `=` in Cargo.toml; its
/// signatures changed between releases, so band hashes are only comparable within one).
pub const MINHASH_RS_VERSION: &str = "0.6.0";

/// Why dedup could not run.
#[derive(Debug, thiserror::Error)]
pub enum DedupError {
    /// A parameter combination that cannot be used (a usage error).
    #[error("invalid dedup parameters: {0}")]
    InvalidParams(String),
    /// Two items share an id: the keeper rule needs unique ids to be deterministic.
    #[error("function id {0} appears more than once")]
    DuplicateId(u64),
    /// The worker thread pool could not be started.
    #[error("could not start the dedup thread pool: {0}")]
    ThreadPool(#[from] rayon::ThreadPoolBuildError),
}

/// One function as dedup sees it. `T` is the token type: `String` from the parser, or
/// `&str` where tokens are borrowed from a shared vocabulary.
#[derive(Debug)]
pub struct Item<'a, T = String> {
    /// Stable, unique function id.
    pub id: u64,
    /// The parser's leaf tokens (identifiers, keywords, literals), in source order.
    pub tokens: &'a [T],
    pub has_docstring: bool,
    /// Unix seconds, UTC.
    pub last_commit: Option<i64>,
    /// 0 train, 1 valid, 2 test.
    pub partition: u8,
}

impl<T> Clone for Item<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Item<'_, T> {}

/// What dedup did, for stats.json.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DedupStats {
    pub functions: u64,
    /// Removed items whose token sequence equals their keeper's.
    pub exact_removed: u64,
    /// Removed items that differ from their keeper (joined by near-duplicate pairs).
    pub near_removed: u64,
    /// Clusters of two or more items.
    pub clusters: u64,
    /// Items with fewer tokens than one shingle (exact stage only).
    pub tiny: u64,
    /// Candidate pairs whose Jaccard was computed.
    pub candidate_pairs: u64,
    /// Candidate pairs at or above the threshold.
    pub near_pairs: u64,
    /// Cluster size -> number of clusters of that size (size 1: items without duplicates).
    pub cluster_sizes: BTreeMap<usize, u64>,
    pub params: DedupParams,
    pub minhash_rs_version: &'static str,
}

/// Per input item, in input order.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// The id of the cluster's keeper (the keeper included); `None` for singletons.
    pub cluster_id: Vec<Option<u64>>,
    /// The keeper's id for removed items; `None` for keepers and singletons.
    pub duplicate_of: Vec<Option<u64>>,
    /// The keeper's partition for every cluster member; the item's own for singletons.
    pub partition: Vec<u8>,
    /// Whether the item's token sequence equals its keeper's (true for keepers and
    /// singletons): a removed item with `true` is an exact duplicate, else a near one.
    pub exact: Vec<bool>,
    pub stats: DedupStats,
}

/// Finds exact and near-duplicate clusters and their keepers. `threads` sizes the worker
/// pool (0: one per core); the result does not depend on it.
pub fn dedup<T: AsRef<str> + Sync>(
    items: &[Item<'_, T>],
    params: &DedupParams,
    threads: usize,
) -> Result<Outcome, DedupError> {
    params.validate()?;
    check_unique_ids(items.iter().map(|item| item.id))?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()?;
    Ok(pool.install(|| {
        let (prepared, bands): (Vec<Prepared>, Vec<Vec<u64>>) =
            items.par_iter().map(|item| prepare(item, params)).unzip();
        let table = BandTable::from_rows(&bands, params.bands);
        run(&prepared, &table, params)
    }))
}

/// One function reduced to what clustering needs: the exact key, the shingle set and the
/// keeper facts. [`prepare`] makes it where the function is mined; [`cluster`] groups them
/// later, possibly in another process (the `dedup/` tables carry them in between).
#[derive(Debug, Clone, PartialEq)]
pub struct Prepared {
    pub id: u64,
    /// 128-bit xxh3 of the length-prefixed token sequence (the exact-duplicate key).
    pub exact: u128,
    /// Sorted, deduplicated shingle hashes; empty for tiny items (exact stage only).
    pub shingles: Vec<u64>,
    pub has_docstring: bool,
    /// Unix seconds, UTC.
    pub last_commit: Option<i64>,
    /// 0 train, 1 valid, 2 test.
    pub partition: u8,
}

impl Prepared {
    /// Sort key of the keeper rule: smallest is kept.
    fn keeper_key(&self) -> (bool, Reverse<Option<i64>>, u64) {
        // `None < Some` for Option, so under `Reverse` unknown dates sort last.
        (!self.has_docstring, Reverse(self.last_commit), self.id)
    }
}

/// Reduces an item to its exact key and shingle set, and computes its LSH band hashes
/// (`params.bands` of them; none for a tiny item). `params` must be valid.
pub fn prepare<T: AsRef<str>>(item: &Item<'_, T>, params: &DedupParams) -> (Prepared, Vec<u64>) {
    let shingles = shingle::shingle_set(item.tokens, params.shingle);
    let mut bands = Vec::new();
    if !shingles.is_empty() {
        bands.resize(params.bands, 0);
        signature::band_hashes_into(&shingles, params.rows, &mut bands);
    }
    let prepared = Prepared {
        id: item.id,
        exact: shingle::sequence_hash(item.tokens),
        shingles,
        has_docstring: item.has_docstring,
        last_commit: item.last_commit,
        partition: item.partition,
    };
    (prepared, bands)
}

/// The band hashes of prepared items, `bands` per item in item order (rows of tiny items
/// are never read).
pub struct BandTable {
    bands: usize,
    hashes: Vec<u64>,
}

impl BandTable {
    /// An all-zero table for `items` items; fill it with [`BandTable::set`].
    #[must_use]
    pub fn new(items: usize, bands: usize) -> Self {
        Self {
            bands,
            hashes: vec![0; items.saturating_mul(bands)],
        }
    }

    /// From per-item band rows as [`prepare`] returns them (empty rows for tiny items).
    #[must_use]
    pub fn from_rows(rows: &[Vec<u64>], bands: usize) -> Self {
        let mut table = Self::new(rows.len(), bands);
        for (i, row) in rows.iter().enumerate() {
            for (band, &hash) in row.iter().enumerate() {
                table.set(i, band, hash);
            }
        }
        table
    }

    /// Sets item `item`'s hash for `band`; out-of-range positions are ignored.
    pub fn set(&mut self, item: usize, band: usize, hash: u64) {
        if band < self.bands {
            if let Some(slot) = self.hashes.get_mut(item * self.bands + band) {
                *slot = hash;
            }
        }
    }

    fn get(&self, item: usize, band: usize) -> u64 {
        self.hashes[item * self.bands + band]
    }
}

/// Clusters prepared items whose band hashes are in `bands` (one row per item, in item
/// order): the second half of [`dedup`], for when items were prepared elsewhere.
pub fn cluster(
    items: &[Prepared],
    bands: &BandTable,
    params: &DedupParams,
    threads: usize,
) -> Result<Outcome, DedupError> {
    params.validate()?;
    check_unique_ids(items.iter().map(|item| item.id))?;
    if bands.bands != params.bands || bands.hashes.len() != items.len() * params.bands {
        return Err(DedupError::InvalidParams(format!(
            "the band table has {} rows of {} bands for {} items of {} bands",
            bands.hashes.len() / bands.bands.max(1),
            bands.bands,
            items.len(),
            params.bands
        )));
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()?;
    Ok(pool.install(|| run(items, bands, params)))
}

/// Band hashes of every item with at least one shingle, as (id, band, band hash) rows
/// sorted by id and band: the input a distributed engine needs to group the same
/// candidates (`DIR/dedup/bands/bands-*.parquet`).
pub fn band_rows<T: AsRef<str> + Sync>(
    items: &[Item<'_, T>],
    params: &DedupParams,
) -> Result<Vec<(u64, u32, u64)>, DedupError> {
    params.validate()?;
    let mut rows: Vec<(u64, u32, u64)> = items
        .par_iter()
        .flat_map_iter(|item| {
            let (_, bands) = prepare(item, params);
            bands
                .into_iter()
                .enumerate()
                .map(move |(band, hash)| (item.id, band as u32, hash))
        })
        .collect();
    rows.par_sort_unstable();
    Ok(rows)
}

fn check_unique_ids(ids: impl Iterator<Item = u64>) -> Result<(), DedupError> {
    let mut ids: Vec<u64> = ids.collect();
    ids.sort_unstable();
    match ids.windows(2).find(|w| w[0] == w[1]) {
        Some(w) => Err(DedupError::DuplicateId(w[0])),
        None => Ok(()),
    }
}

fn run(items: &[Prepared], band_table: &BandTable, params: &DedupParams) -> Outcome {
    let n = items.len();
    let mut uf = UnionFind::new(n);

    // Exact stage: group by sequence hash, joining each entry to the previous one; the
    // group's first entry represents it (any member would do: they have the same tokens).
    let mut by_hash: Vec<(u128, u32)> = (0..n).map(|i| (items[i].exact, i as u32)).collect();
    by_hash.par_sort_unstable();
    let mut reps: Vec<u32> = Vec::new();
    for (k, &(hash, i)) in by_hash.iter().enumerate() {
        match k.checked_sub(1).map(|p| by_hash[p]) {
            Some((prev_hash, prev)) if prev_hash == hash => uf.union(prev as usize, i as usize),
            _ => {
                if !items[i as usize].shingles.is_empty() {
                    reps.push(i);
                }
            }
        }
    }
    drop(by_hash);

    // Near stage over the representatives.
    let sets: Vec<&[u64]> = reps
        .iter()
        .map(|&i| items[i as usize].shingles.as_slice())
        .collect();
    let mut rejected: foldhash::HashSet<u64> = foldhash::HashSet::default();
    let mut counts = PairCounts::default();
    let mut joiner = BucketJoiner::default();
    let input = NearInput {
        reps: &reps,
        sets: &sets,
        threshold: params.threshold,
    };
    let mut bucket_keys: Vec<(u64, u32)> = Vec::with_capacity(reps.len());
    for band in 0..params.bands {
        bucket_keys.clear();
        bucket_keys.extend(
            reps.iter()
                .enumerate()
                .map(|(r, &i)| (band_table.get(i as usize, band), r as u32)),
        );
        bucket_keys.par_sort_unstable();
        for bucket in bucket_keys.chunk_by(|a, b| a.0 == b.0) {
            if bucket.len() >= 2 {
                let members = bucket.iter().map(|&(_, r)| r);
                joiner.join(members, &input, &mut uf, &mut rejected, &mut counts);
            }
        }
    }
    let PairCounts {
        candidate: candidate_pairs,
        near: near_pairs,
    } = counts;
    drop(sets);

    // Clusters and keepers. A component can chain functions that are far apart (a and c
    // each near b); it is cut into stars: the best member by the keeper rule keeps every
    // member within the threshold of it (or with its exact tokens), and the rest form the
    // next star. Every removal is then a verified near-duplicate of its keeper, and no two
    // keepers of a component are near-duplicates of each other.
    let roots: Vec<usize> = (0..n).map(|i| uf.find(i)).collect();
    let mut order: Vec<usize> = (0..n).collect();
    order.par_sort_unstable_by_key(|&i| (roots[i], items[i].keeper_key()));
    let groups: Vec<&[usize]> = order
        .chunk_by(|a, b| roots[*a] == roots[*b])
        .filter(|g| g.len() >= 2)
        .collect();
    let stars: Vec<Vec<(usize, usize)>> = groups
        .par_iter()
        .map(|group| stars_of(items, group, params.threshold))
        .collect();
    let mut keeper_of: Vec<usize> = (0..n).collect();
    for (member, keeper) in stars.into_iter().flatten() {
        keeper_of[member] = keeper;
    }
    let mut size_of_keeper: Vec<usize> = vec![0; n];
    for &k in &keeper_of {
        size_of_keeper[k] += 1;
    }

    let mut cluster_id = Vec::with_capacity(n);
    let mut duplicate_of = Vec::with_capacity(n);
    let mut partition = Vec::with_capacity(n);
    let mut exact = Vec::with_capacity(n);
    let (mut exact_removed, mut near_removed) = (0u64, 0u64);
    for (i, item) in items.iter().enumerate() {
        let keeper = keeper_of[i];
        let same = item.exact == items[keeper].exact;
        exact.push(same);
        if size_of_keeper[keeper] < 2 {
            cluster_id.push(None);
            duplicate_of.push(None);
            partition.push(item.partition);
            continue;
        }
        cluster_id.push(Some(items[keeper].id));
        partition.push(items[keeper].partition);
        if keeper == i {
            duplicate_of.push(None);
        } else {
            duplicate_of.push(Some(items[keeper].id));
            if same {
                exact_removed += 1;
            } else {
                near_removed += 1;
            }
        }
    }
    let mut cluster_sizes: BTreeMap<usize, u64> = BTreeMap::new();
    let mut clusters = 0u64;
    for (k, &size) in size_of_keeper.iter().enumerate() {
        if size > 0 && keeper_of[k] == k {
            *cluster_sizes.entry(size).or_default() += 1;
            if size >= 2 {
                clusters += 1;
            }
        }
    }
    let tiny = items.iter().filter(|item| item.shingles.is_empty()).count() as u64;

    Outcome {
        cluster_id,
        duplicate_of,
        partition,
        exact,
        stats: DedupStats {
            functions: n as u64,
            exact_removed,
            near_removed,
            clusters,
            tiny,
            candidate_pairs,
            near_pairs,
            cluster_sizes,
            params: params.clone(),
            minhash_rs_version: MINHASH_RS_VERSION,
        },
    }
}

/// Union-find with path halving and union by size.
struct UnionFind {
    parent: Vec<usize>,
    size: Vec<u32>,
}

impl UnionFind {
    fn new(n: usize) -> Self {
        Self {
            parent: (0..n).collect(),
            size: vec![1; n],
        }
    }

    fn find(&mut self, mut x: usize) -> usize {
        while self.parent[x] != x {
            self.parent[x] = self.parent[self.parent[x]];
            x = self.parent[x];
        }
        x
    }

    fn union(&mut self, a: usize, b: usize) {
        let (mut ra, mut rb) = (self.find(a), self.find(b));
        if ra == rb {
            return;
        }
        if self.size[ra] < self.size[rb] {
            std::mem::swap(&mut ra, &mut rb);
        }
        self.parent[rb] = ra;
        self.size[ra] += self.size[rb];
    }
}
