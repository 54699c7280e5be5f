//! The two steps of clustering whose work grows with a component's size: joining the
//! members of an LSH bucket, and cutting a component into stars around keepers.
//!
//! Both give exactly what the pairwise definitions give (see the parent module), with work
//! close to linear in the component for the large components of generated code and
//! vendored copies (thousands of near-identical functions):
//! - [`BucketJoiner`] keeps a bucket's members grouped by component as it walks them, so a
//!   member is checked once against each *other* component of the bucket (usually none)
//!   instead of against every earlier member.
//! - [`stars_of`] finds the members within the threshold of a keeper through an inverted
//!   index of shingle prefixes (prefix filtering, exact: two sets with Jaccard >= t share
//!   an element of their prefixes), instead of comparing the keeper with every remaining
//!   member.

use foldhash::{HashMap, HashMapExt, HashSet};

use super::shingle::jaccard_at_least;
use super::{Prepared, UnionFind};

/// Components smaller than this are cut by comparing the keeper with every remaining
/// member: cheaper than building an index, and the same result.
const INDEX_FROM: usize = 64;

/// Pair counts of the near stage (for stats.json).
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct PairCounts {
    /// Pairs whose Jaccard was computed.
    pub candidate: u64,
    /// Of those, pairs at or above the threshold.
    pub near: u64,
}

/// Joins the members of LSH buckets into components; holds buffers reused across buckets.
#[derive(Default)]
pub(super) struct BucketJoiner {
    /// The bucket's members seen so far, one list per component (first `used` lists; a list
    /// emptied by a merge is skipped).
    groups: Vec<Vec<u32>>,
    /// Groups the current member was found connected to.
    joined: Vec<usize>,
}

/// What one bucket is checked against: the representatives' item indices and shingle sets.
pub(super) struct NearInput<'a> {
    pub reps: &'a [u32],
    pub sets: &'a [&'a [u64]],
    pub threshold: f64,
}

impl BucketJoiner {
    /// Joins the members of one bucket (representative indices, ascending) that have a
    /// verified pair. Afterwards every two members at or above the threshold are in one
    /// component, as if every pair had been checked: when a member is reached, each other
    /// component of the bucket is tried member by member until one pair verifies, and a
    /// component already holding the member needs no check. `rejected` remembers pairs
    /// below the threshold across bands, keyed by [`pair_key`].
    pub(super) fn join(
        &mut self,
        bucket: impl Iterator<Item = u32>,
        input: &NearInput<'_>,
        uf: &mut UnionFind,
        rejected: &mut HashSet<u64>,
        counts: &mut PairCounts,
    ) {
        let mut used = 0;
        for a in bucket {
            let ia = input.reps[a as usize] as usize;
            self.joined.clear();
            for (g, members) in self.groups[..used].iter().enumerate() {
                let Some(&first) = members.first() else {
                    continue;
                };
                // Groups are distinct components, so at most one can already hold `a`.
                if uf.find(input.reps[first as usize] as usize) == uf.find(ia) {
                    self.joined.push(g);
                    continue;
                }
                for &b in members {
                    // Members are walked in ascending order, so `b < a`.
                    if rejected.contains(&pair_key(b, a)) {
                        continue;
                    }
                    counts.candidate += 1;
                    if jaccard_at_least(
                        input.sets[b as usize],
                        input.sets[a as usize],
                        input.threshold,
                    ) {
                        counts.near += 1;
                        uf.union(ia, input.reps[b as usize] as usize);
                        self.joined.push(g);
                        break;
                    }
                    rejected.insert(pair_key(b, a));
                }
            }
            // `a` and the groups it reached are now one component: one group again.
            let target = self
                .joined
                .iter()
                .copied()
                .max_by_key(|&g| self.groups[g].len());
            match target {
                Some(target) => {
                    for &g in &self.joined {
                        if g != target {
                            let moved = std::mem::take(&mut self.groups[g]);
                            self.groups[target].extend(moved);
                        }
                    }
                    self.groups[target].push(a);
                }
                None => {
                    if used == self.groups.len() {
                        self.groups.push(Vec::new());
                    }
                    self.groups[used].clear();
                    self.groups[used].push(a);
                    used += 1;
                }
            }
        }
    }
}

/// The key of a pair of representatives in the rejected set: one u64, hashed in one step
/// (the set takes tens of millions of pairs on large, varied components).
pub(super) fn pair_key(smaller: u32, larger: u32) -> u64 {
    u64::from(smaller) << 32 | u64::from(larger)
}

/// Whether `m` joins the star of keeper `k`: the keeper's tokens, or both have shingles and
/// their Jaccard is at least the threshold.
fn near_keeper(m: &Prepared, k: &Prepared, threshold: f64) -> bool {
    m.exact == k.exact
        || (!m.shingles.is_empty()
            && !k.shingles.is_empty()
            && jaccard_at_least(&m.shingles, &k.shingles, threshold))
}

/// Cuts one component (its members sorted by the keeper rule, best first) into stars, as
/// (member, keeper) pairs: the best remaining member keeps every remaining member near it
/// ([`near_keeper`]), and the rest are cut the same way.
pub(super) fn stars_of(items: &[Prepared], group: &[usize], threshold: f64) -> Vec<(usize, usize)> {
    if group.len() < INDEX_FROM {
        stars_by_comparison(items, group, threshold)
    } else {
        stars_by_index(items, group, threshold)
    }
}

/// [`stars_of`] by comparing each keeper with every remaining member (quadratic when a
/// component has many stars).
pub(super) fn stars_by_comparison(
    items: &[Prepared],
    group: &[usize],
    threshold: f64,
) -> Vec<(usize, usize)> {
    let mut out = Vec::with_capacity(group.len());
    let mut remaining: Vec<usize> = group.to_vec();
    while let Some((&keeper, rest)) = remaining.split_first() {
        out.push((keeper, keeper));
        let k = &items[keeper];
        let mut next = Vec::new();
        for &m in rest {
            if near_keeper(&items[m], k, threshold) {
                out.push((m, keeper));
            } else {
                next.push(m);
            }
        }
        remaining = next;
    }
    out
}

/// How many of a set's elements, rarest first, two sets with Jaccard >= `threshold` must
/// share one of: `|x| - ceil(t|x|) + 1`. Jaccard >= t implies `|x ∩ y| >= t |x|`, and the
/// rarest shared element then lies within both prefixes. The small margin makes the
/// prefix one longer rather than one too short when `t|x|` rounds.
fn prefix_len(len: usize, threshold: f64) -> usize {
    let needed = (threshold * len as f64 - 1e-6).ceil().max(0.0) as usize;
    (len + 1).saturating_sub(needed).clamp(1, len)
}

/// [`stars_of`] through an index: each member's prefix (its rarest shingles within the
/// component, ties by hash) is listed under those shingles, and a keeper's candidates are
/// the remaining members listed under its own prefix; exact copies are found by their
/// token hash (tiny members have no shingles). The candidates are verified as in
/// [`stars_by_comparison`], so the stars are the same.
fn stars_by_index(items: &[Prepared], group: &[usize], threshold: f64) -> Vec<(usize, usize)> {
    let n = group.len();
    let mut by_exact: HashMap<u128, Vec<u32>> = HashMap::new();
    let mut freq: HashMap<u64, u32> = HashMap::new();
    for (local, &i) in group.iter().enumerate() {
        by_exact
            .entry(items[i].exact)
            .or_default()
            .push(local as u32);
        for &s in &items[i].shingles {
            *freq.entry(s).or_default() += 1;
        }
    }
    // Prefixes, flat: member `m`'s are prefixes[starts[m]..starts[m + 1]].
    let mut prefixes: Vec<u64> = Vec::new();
    let mut starts: Vec<usize> = Vec::with_capacity(n + 1);
    let mut postings: HashMap<u64, Vec<u32>> = HashMap::new();
    let mut keyed: Vec<(u32, u64)> = Vec::new();
    for (local, &i) in group.iter().enumerate() {
        starts.push(prefixes.len());
        let set = &items[i].shingles;
        if set.is_empty() {
            continue;
        }
        keyed.clear();
        keyed.extend(set.iter().map(|s| (freq.get(s).copied().unwrap_or(0), *s)));
        let p = prefix_len(set.len(), threshold);
        if p < keyed.len() {
            keyed.select_nth_unstable(p - 1);
        }
        for &(_, s) in &keyed[..p] {
            prefixes.push(s);
            postings.entry(s).or_default().push(local as u32);
        }
    }
    starts.push(prefixes.len());
    drop(freq);

    let mut out = Vec::with_capacity(n);
    let mut assigned = vec![false; n];
    // The keeper a member was last checked against, so each is verified once per keeper.
    let mut checked = vec![u32::MAX; n];
    for k in 0..n {
        if assigned[k] {
            continue;
        }
        assigned[k] = true;
        let keeper = group[k];
        out.push((keeper, keeper));
        if let Some(copies) = by_exact.get(&items[keeper].exact) {
            for &m in copies {
                if !assigned[m as usize] {
                    assigned[m as usize] = true;
                    out.push((group[m as usize], keeper));
                }
            }
        }
        for &s in &prefixes[starts[k]..starts[k + 1]] {
            let Some(list) = postings.get_mut(&s) else {
                continue;
            };
            // Assigned members never come back: drop them so later keepers skip them.
            list.retain(|&m| !assigned[m as usize]);
            for &m in list.iter() {
                let m = m as usize;
                if assigned[m] || checked[m] == k as u32 {
                    continue;
                }
                checked[m] = k as u32;
                if near_keeper(&items[group[m]], &items[keeper], threshold) {
                    assigned[m] = true;
                    out.push((group[m], keeper));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_len_keeps_the_rarest_shared_element() {
        // t = 0.7: 10 elements need 7 shared, so 4 rarest suffice.
        assert_eq!(prefix_len(10, 0.7), 4);
        assert_eq!(prefix_len(1, 0.7), 1);
        assert_eq!(prefix_len(3, 1.0), 1);
        assert_eq!(prefix_len(5, 0.0), 5);
    }

    /// A component of sliding windows over one token stream (each near its neighbours,
    /// far from distant ones), with exact copies and tiny members: the index must cut it
    /// exactly as comparing every member does.
    #[test]
    fn index_and_comparison_give_the_same_stars() {
        let stream: Vec<u64> = (0..4000u64).map(|x| x.wrapping_mul(0x9E37_79B9)).collect();
        let mut items = Vec::new();
        for i in 0..300u64 {
            let start = (i as usize * 7) % 3000;
            let mut shingles = stream[start..start + 60].to_vec();
            shingles.sort_unstable();
            let copy = i % 10 == 3;
            let tiny = i % 37 == 5;
            items.push(Prepared {
                id: i,
                exact: if tiny {
                    1
                } else if copy {
                    start as u128 + 10
                } else {
                    1000 + u128::from(i)
                },
                shingles: if tiny { Vec::new() } else { shingles },
                has_docstring: i % 3 == 0,
                last_commit: Some((i * 7919 % 101) as i64),
                partition: 0,
            });
        }
        let mut group: Vec<usize> = (0..items.len()).collect();
        group.sort_by_key(|&i| items[i].keeper_key());
        for t in [0.5, 0.7, 0.9] {
            let mut a = stars_by_index(&items, &group, t);
            let mut b = stars_by_comparison(&items, &group, t);
            a.sort_unstable();
            b.sort_unstable();
            assert_eq!(a, b, "threshold {t}");
            assert!(
                a.iter().filter(|(m, k)| m == k).count() > 5,
                "several stars"
            );
        }
    }
}
