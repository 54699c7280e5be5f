//! Dedup behaviour: exact and near duplicates, tiny functions, the keeper rule, partitions,
//! determinism and parameter errors.

use codemine_filters::dedup::{band_rows, dedup, DedupError, DedupParams, Item, Outcome};

fn toks(code: &str) -> Vec<String> {
    code.split_whitespace().map(String::from).collect()
}

/// A realistic function body of about 80 tokens, parametrised by the names in it.
fn body(name: &str, var: &str, other: &str) -> String {
    format!(
        "def {name} ( self , {var} , timeout = None ) : if {var} is None : raise ValueError ( \"missing\" ) \
         {other} = self . session . get ( {var} , timeout = timeout ) {other} . raise_for_status ( ) \
         data = {other} . json ( ) result = [ ] for entry in data [ \"items\" ] : if entry . get ( \"active\" ) : \
         result . append ( entry [ \"id\" ] ) self . cache [ {var} ] = result return result"
    )
}

fn item(id: u64, tokens: &[String]) -> Item<'_> {
    Item {
        id,
        tokens,
        has_docstring: false,
        last_commit: None,
        partition: 0,
    }
}

fn run(items: &[Item<'_>]) -> Outcome {
    dedup(items, &DedupParams::bigcode(), 2).expect("dedup")
}

#[test]
fn identical_functions_in_two_repositories_are_exact_duplicates() {
    let a = toks(&body("fetch", "url", "resp"));
    let b = a.clone();
    let out = run(&[item(10, &a), item(20, &b)]);
    assert_eq!(out.cluster_id, vec![Some(10), Some(10)]);
    assert_eq!(out.duplicate_of, vec![None, Some(10)]);
    assert_eq!(out.stats.exact_removed, 1);
    assert_eq!(out.stats.near_removed, 0);
    assert_eq!(out.stats.minhash_rs_version, "0.6.0");
}

#[test]
fn renamed_identifiers_are_near_duplicates() {
    let a = toks(&body("fetch", "url", "resp"));
    // Only the function name changes: one shingle window in ~75.
    let b = toks(&body("fetch_items", "url", "resp"));
    let out = run(&[item(1, &a), item(2, &b)]);
    assert_eq!(out.duplicate_of, vec![None, Some(1)]);
    assert_eq!(out.stats.near_removed, 1);
    assert_eq!(out.stats.exact_removed, 0);
}

#[test]
fn heavily_renamed_identifiers_are_not_merged() {
    // Every occurrence of two variables renamed: most shingles touch one of them.
    let a = toks(&body("fetch", "url", "resp"));
    let b = toks(&body("fetch", "address", "reply"));
    let out = run(&[item(1, &a), item(2, &b)]);
    let j = codemine_filters::dedup::jaccard(
        &codemine_filters::dedup::shingle_set(&a, 5),
        &codemine_filters::dedup::shingle_set(&b, 5),
    );
    assert!(j < 0.7, "{j}");
    assert_eq!(out.cluster_id, vec![None, None]);
}

#[test]
fn reordered_statements_are_near_duplicates() {
    let head = "def run ( self ) : ";
    let s1 = "self . a = compute_first ( self . x , self . y , 1 ) ; ";
    let s2 = "self . b = compute_second ( self . y , self . z , 2 ) ; ";
    let s3 = "self . c = compute_third ( self . z , self . x , 3 ) ; ";
    let s4 = "self . d = compute_fourth ( self . a , self . b , 4 ) ; ";
    let s5 = "self . e = compute_fifth ( self . c , self . d , 5 ) ; ";
    let tail = "return self . a + self . b + self . c + self . d + self . e";
    let a = toks(&format!("{head}{s1}{s2}{s3}{s4}{s5}{tail}"));
    let b = toks(&format!("{head}{s2}{s1}{s3}{s4}{s5}{tail}"));
    let out = run(&[item(1, &a), item(2, &b)]);
    assert_eq!(out.duplicate_of, vec![None, Some(1)]);
    assert_eq!(out.stats.near_removed, 1);
}

#[test]
fn vendored_copy_is_a_duplicate() {
    // src/http.py and vendor/lib/http.py: same function, a trailing comment-free edit.
    let a = toks(&body("fetch", "url", "resp"));
    let mut b = a.clone();
    b.push("# vendored".into());
    let out = run(&[item(1, &a), item(2, &b)]);
    assert_eq!(out.cluster_id, vec![Some(1), Some(1)]);
}

#[test]
fn unrelated_code_is_not_merged() {
    let a = toks(&body("fetch", "url", "resp"));
    let b = toks(
        "int main ( int argc , char * * argv ) { for ( int i = 0 ; i < argc ; i ++ ) \
         { printf ( \"%s\\n\" , argv [ i ] ) ; } if ( argc > 2 ) { return 1 ; } return 0 ; }",
    );
    let out = run(&[item(1, &a), item(2, &b)]);
    assert_eq!(out.cluster_id, vec![None, None]);
    assert_eq!(out.duplicate_of, vec![None, None]);
    assert_eq!(out.stats.cluster_sizes.get(&1), Some(&2));
}

#[test]
fn tiny_functions_only_go_through_the_exact_stage() {
    let a = toks("return x ;");
    let b = toks("return x ;");
    let c = toks("return y ;");
    let out = run(&[item(1, &a), item(2, &b), item(3, &c)]);
    assert_eq!(out.duplicate_of, vec![None, Some(1), None]);
    assert_eq!(out.cluster_id[2], None);
    assert_eq!(out.stats.tiny, 3);
    assert_eq!(out.stats.candidate_pairs, 0);
    // No band rows for tiny functions.
    assert!(band_rows(&[item(1, &a)], &DedupParams::bigcode())
        .expect("bands")
        .is_empty());
}

#[test]
fn keeper_prefers_docstring_then_recent_commit_then_smallest_id() {
    let a = toks(&body("fetch", "url", "resp"));
    let mk = |id, doc, date| Item {
        id,
        tokens: &a[..],
        has_docstring: doc,
        last_commit: date,
        partition: 0,
    };
    // Docstring wins over a newer commit and a smaller id.
    let out = run(&[mk(1, false, Some(900)), mk(5, true, Some(100))]);
    assert_eq!(out.duplicate_of, vec![Some(5), None]);
    // Then the most recent commit; unknown dates last.
    let out = run(&[
        mk(1, true, None),
        mk(7, true, Some(100)),
        mk(3, true, Some(200)),
    ]);
    assert_eq!(out.duplicate_of, vec![Some(3), Some(3), None]);
    // Then the smallest id.
    let out = run(&[mk(9, false, None), mk(4, false, None), mk(6, false, None)]);
    assert_eq!(out.duplicate_of, vec![Some(4), None, Some(4)]);
    assert_eq!(out.cluster_id, vec![Some(4); 3]);
}

#[test]
fn keeper_rule_spans_exact_and_near_members() {
    let a = toks(&body("fetch", "url", "resp"));
    let b = toks(&body("fetch_items", "url", "resp"));
    // The near copy (id 9) has the docstring, so it keeps; both exact copies go.
    let items = [
        item(1, &a),
        item(2, &a),
        Item {
            id: 9,
            tokens: &b,
            has_docstring: true,
            last_commit: None,
            partition: 0,
        },
    ];
    let out = run(&items);
    assert_eq!(out.duplicate_of, vec![Some(9), Some(9), None]);
    assert_eq!(out.stats.near_removed, 2);
    assert_eq!(out.stats.exact_removed, 0);
    assert_eq!(out.stats.cluster_sizes.get(&3), Some(&1));
}

#[test]
fn a_cluster_straddling_train_and_test_moves_to_the_keepers_partition() {
    let a = toks(&body("fetch", "url", "resp"));
    let b = toks(&body("fetch_items", "url", "resp"));
    let c = toks(&body("other", "address", "reply"));
    let items = [
        Item {
            id: 1,
            tokens: &a[..],
            has_docstring: false,
            last_commit: None,
            partition: 2,
        },
        Item {
            id: 2,
            tokens: &b[..],
            has_docstring: true,
            last_commit: None,
            partition: 0,
        },
        Item {
            id: 3,
            tokens: &c[..],
            has_docstring: false,
            last_commit: None,
            partition: 1,
        },
    ];
    let out = run(&items);
    assert_eq!(out.partition, vec![0, 0, 1]);
    assert_eq!(out.duplicate_of, vec![Some(2), None, None]);
}

/// A corpus with exact copies, near copies (single-token edits) and unrelated functions.
/// id, tokens, has_docstring, last_commit, partition.
type Row = (u64, Vec<String>, bool, Option<i64>, u8);

fn corpus() -> Vec<Row> {
    let mut out = Vec::new();
    let mut id = 1000u64;
    for f in 0..40 {
        let base = toks(&body(
            &format!("f{f}"),
            &format!("v{}", f % 7),
            &format!("w{f}"),
        ));
        for copy in 0..(f % 4 + 1) {
            let mut t = base.clone();
            if copy % 2 == 1 {
                let at = (copy * 17 + f) % t.len();
                t[at] = format!("edit{copy}");
            }
            id = id
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407)
                >> 11;
            out.push((
                id,
                t,
                (f + copy) % 3 == 0,
                Some(((f * 31 + copy * 7) % 5) as i64),
                (copy % 3) as u8,
            ));
        }
    }
    out
}

fn outcome_by_id(rows: &[Row], threads: usize) -> Vec<(u64, Option<u64>, Option<u64>, u8)> {
    let items: Vec<Item<'_>> = rows
        .iter()
        .map(|(id, t, d, c, p)| Item {
            id: *id,
            tokens: t,
            has_docstring: *d,
            last_commit: *c,
            partition: *p,
        })
        .collect();
    let out = dedup(&items, &DedupParams::bigcode(), threads).expect("dedup");
    let mut v: Vec<_> = (0..items.len())
        .map(|i| {
            (
                items[i].id,
                out.cluster_id[i],
                out.duplicate_of[i],
                out.partition[i],
            )
        })
        .collect();
    v.sort();
    v
}

#[test]
fn deterministic_across_thread_counts_and_input_order() {
    let rows = corpus();
    let reference = outcome_by_id(&rows, 1);
    assert!(reference.iter().filter(|r| r.2.is_some()).count() > 40);
    for threads in [2, 4] {
        assert_eq!(
            outcome_by_id(&rows, threads),
            reference,
            "threads {threads}"
        );
    }
    // Shuffled (a fixed permutation) and reversed input.
    let mut shuffled = rows.clone();
    let len = shuffled.len();
    for i in 0..len {
        shuffled.swap(i, (i * 37 + 11) % len);
    }
    assert_eq!(outcome_by_id(&shuffled, 2), reference);
    let mut reversed = rows;
    reversed.reverse();
    assert_eq!(outcome_by_id(&reversed, 4), reference);
}

#[test]
fn band_rows_are_sorted_and_complete() {
    let a = toks(&body("fetch", "url", "resp"));
    let b = toks(&body("other", "address", "reply"));
    let rows = band_rows(&[item(7, &b), item(3, &a)], &DedupParams::datatrove()).expect("bands");
    assert_eq!(rows.len(), 28);
    assert_eq!(rows[0].0, 3);
    assert_eq!(rows[14], (7, 0, rows[14].2));
    assert!(rows.windows(2).all(|w| w[0] < w[1]));
}

#[test]
fn invalid_params_and_duplicate_ids_are_errors() {
    let a = toks(&body("fetch", "url", "resp"));
    let bad = DedupParams {
        bands: 20,
        rows: 7,
        ..DedupParams::bigcode()
    };
    assert!(matches!(
        dedup(&[item(1, &a)], &bad, 1),
        Err(DedupError::InvalidParams(_))
    ));
    assert!(matches!(
        band_rows(&[item(1, &a)], &bad),
        Err(DedupError::InvalidParams(_))
    ));
    let zero = DedupParams {
        threshold: 0.0,
        ..DedupParams::bigcode()
    };
    assert!(dedup(&[item(1, &a)], &zero, 1).is_err());
    assert!(matches!(
        dedup(&[item(1, &a), item(1, &a)], &DedupParams::bigcode(), 1),
        Err(DedupError::DuplicateId(1))
    ));
    // Empty input is fine.
    let out = dedup::<String>(&[], &DedupParams::datatrove(), 0).expect("empty");
    assert_eq!(out.stats.functions, 0);
}

#[test]
fn prepared_items_cluster_as_dedup_does() {
    use codemine_filters::dedup::{cluster, prepare, BandTable};
    let texts = [
        body("fetch", "url", "resp"),
        body("fetch", "url", "resp"),
        body("fetch", "address", "resp"),
        body("store", "key", "value"),
        "def tiny ( )".to_string(),
        "def tiny ( )".to_string(),
    ];
    let tokens: Vec<Vec<String>> = texts.iter().map(|t| toks(t)).collect();
    let items: Vec<Item<'_>> = tokens
        .iter()
        .enumerate()
        .map(|(i, t)| item(100 - i as u64, t))
        .collect();
    let params = DedupParams::bigcode();
    let whole = dedup(&items, &params, 1).expect("dedup");
    // Prepared one by one (as the mining step does), their band rows reversed in order
    // (as band files read back in any order would be), then clustered.
    let (prepared, rows): (Vec<_>, Vec<_>) = items.iter().map(|i| prepare(i, &params)).unzip();
    let mut table = BandTable::new(prepared.len(), params.bands);
    for (i, row) in rows.iter().enumerate().rev() {
        for (band, &hash) in row.iter().enumerate().rev() {
            table.set(i, band, hash);
        }
    }
    assert_eq!(rows[4].len(), 0, "tiny items have no bands");
    let split = cluster(&prepared, &table, &params, 2).expect("cluster");
    assert_eq!(split, whole);
    // Ids run downwards, so the later copy has the smaller id and is kept.
    assert_eq!(whole.duplicate_of[0], Some(99));
    assert_eq!(whole.duplicate_of[4], Some(95));
    assert!(whole.exact[0]);
    // A band table of the wrong shape is refused rather than read out of bounds.
    let short = BandTable::new(prepared.len() - 1, params.bands);
    assert!(cluster(&prepared, &short, &params, 1).is_err());
}

#[test]
fn content_tokens_leave_out_punctuation_and_operators() {
    use codemine_filters::dedup::is_content_token;
    for t in [
        "x", "_", "__init__", "return", "42", "\"+\"", "'('", "`a`", "0x1F", "é",
    ] {
        assert!(is_content_token(t), "{t}");
    }
    for t in ["(", ")", ",", "+=", "->", "::", "...", "{", "}", ";", ""] {
        assert!(!is_content_token(t), "{t}");
    }
}

#[test]
fn chains_are_cut_so_every_removal_is_near_its_keeper() {
    use codemine_filters::dedup::{cluster, jaccard, BandTable, Prepared};
    // a ~ b and b ~ c are above the threshold, a ~ c is not.
    let set = |from: u64| (from..from + 100).collect::<Vec<u64>>();
    let (a, b, c) = (set(0), set(15), set(30));
    assert!(jaccard(&a, &b) >= 0.7 && jaccard(&b, &c) >= 0.7 && jaccard(&a, &c) < 0.7);
    let item = |id, shingles: Vec<u64>, doc, partition| Prepared {
        id,
        exact: u128::from(id),
        shingles,
        has_docstring: doc,
        last_commit: None,
        partition,
    };
    let items = vec![
        item(3, a, true, 0),
        item(1, b, false, 0),
        item(2, c, false, 2),
    ];
    let params = DedupParams::bigcode();
    let mut bands = BandTable::new(3, params.bands);
    for i in 0..3 {
        bands.set(i, 0, 42); // all three are candidates of each other
        for band in 1..params.bands {
            bands.set(i, band, (i * 100 + band) as u64);
        }
    }
    let out = cluster(&items, &bands, &params, 1).expect("cluster");
    // a keeps b; c is not within the threshold of a, so it stays, alone, in its partition.
    assert_eq!(out.cluster_id, vec![Some(3), Some(3), None]);
    assert_eq!(out.duplicate_of, vec![None, Some(3), None]);
    assert_eq!(out.partition, vec![0, 0, 2]);
    assert_eq!(out.stats.near_pairs, 2);
    assert_eq!(out.stats.cluster_sizes.get(&2), Some(&1));
    assert_eq!(out.stats.cluster_sizes.get(&1), Some(&1));
}

/// Large components cut into many stars, checked against a brute-force reference computed
/// here from the definitions (every pair's Jaccard by set intersection, components by
/// flood fill, stars by the keeper rule), not from the tool's own output. Band 0 puts every
/// item in one bucket, so every pair is a candidate and the reference components are
/// exact; band 1 makes smaller, overlapping buckets that are joined across components.
#[test]
fn large_components_are_clustered_as_brute_force_jaccard_says() {
    use codemine_filters::dedup::{cluster, BandTable, Prepared};
    use std::collections::HashSet;

    // Three token streams; an item is a window of 17, 20 or 24 shingles of one of them, at
    // a multiple of 3. Windows of 17, 3 apart, are exactly at the threshold (14/20 = 0.7);
    // longer windows reach further: chains of a few hundred items in which a keeper only
    // holds its near neighbours, with many pairs at or just below the threshold.
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let streams: Vec<Vec<u64>> = (0..3)
        .map(|_| (0..2400).map(|_| next()).collect())
        .collect();
    let mut items: Vec<Prepared> = Vec::new();
    for i in 0..900u64 {
        let r = next();
        let stream = (i % 3) as usize;
        let start = (r % 60) as usize * 3;
        let len = [17, 20, 24][(r >> 32) as usize % 3];
        let window = &streams[stream][start..start + len];
        let tiny = r % 41 == 0;
        let mut shingles = window.to_vec();
        shingles.sort_unstable();
        items.push(Prepared {
            id: next(),
            // Equal windows have equal tokens: exact copies. Tiny items share three keys.
            exact: if tiny {
                u128::MAX - u128::from(r % 3)
            } else {
                (stream as u128) << 64 | (start as u128) << 8 | len as u128
            },
            shingles: if tiny { Vec::new() } else { shingles },
            has_docstring: r % 4 != 0,
            last_commit: (r % 5 != 0).then_some((r >> 8) as i64 % 50),
            partition: (r % 3) as u8,
        });
    }
    let params = DedupParams::bigcode();
    let mut bands = BandTable::new(items.len(), params.bands);
    for (i, item) in items.iter().enumerate() {
        bands.set(i, 0, 7);
        bands.set(i, 1, item.id % 5);
        for band in 2..params.bands {
            bands.set(i, band, item.id.wrapping_add(band as u64));
        }
    }

    // Reference. Near: shared * 10 >= 7 * union (threshold 0.7, exact in integers).
    let sets: Vec<HashSet<u64>> = items
        .iter()
        .map(|it| it.shingles.iter().copied().collect())
        .collect();
    let near = |a: usize, b: usize| {
        items[a].exact == items[b].exact
            || (!sets[a].is_empty() && !sets[b].is_empty() && {
                let shared = sets[a].intersection(&sets[b]).count();
                let union = sets[a].len() + sets[b].len() - shared;
                shared * 10 >= 7 * union
            })
    };
    let n = items.len();
    let mut component = vec![usize::MAX; n];
    for s in 0..n {
        if component[s] != usize::MAX {
            continue;
        }
        component[s] = s;
        let mut stack = vec![s];
        while let Some(a) = stack.pop() {
            for (b, c) in component.iter_mut().enumerate() {
                if *c == usize::MAX && near(a, b) {
                    *c = s;
                    stack.push(b);
                }
            }
        }
    }
    // Keeper rule: docstring first, then the latest commit (unknown last), then smallest id.
    let rank = |i: usize| {
        let it = &items[i];
        (
            !it.has_docstring,
            it.last_commit.map_or(i64::MAX, |t| -t),
            it.id,
        )
    };
    let mut keeper = vec![usize::MAX; n];
    let mut largest = 0;
    for c in (0..n).filter(|&c| component[c] == c) {
        let mut members: Vec<usize> = (0..n).filter(|&i| component[i] == c).collect();
        largest = largest.max(members.len());
        members.sort_by_key(|&i| rank(i));
        for (pos, &k) in members.iter().enumerate() {
            if keeper[k] != usize::MAX {
                continue;
            }
            for &m in &members[pos..] {
                if keeper[m] == usize::MAX && (m == k || near(m, k)) {
                    keeper[m] = k;
                }
            }
        }
    }
    let mut size = vec![0usize; n];
    for &k in &keeper {
        size[k] += 1;
    }
    let expected_cluster: Vec<Option<u64>> = (0..n)
        .map(|i| (size[keeper[i]] >= 2).then_some(items[keeper[i]].id))
        .collect();
    let expected_duplicate: Vec<Option<u64>> = (0..n)
        .map(|i| (keeper[i] != i).then_some(items[keeper[i]].id))
        .collect();
    let expected_partition: Vec<u8> = (0..n).map(|i| items[keeper[i]].partition).collect();
    let stars = (0..n).filter(|&i| keeper[i] == i && size[i] >= 2).count();
    assert!(
        largest >= 150,
        "a component large enough for the index: {largest}"
    );
    assert!(stars >= 50, "many stars per component: {stars}");

    let out = cluster(&items, &bands, &params, 2).expect("cluster");
    for i in 0..n {
        assert_eq!(
            out.cluster_id[i], expected_cluster[i],
            "cluster of item {i}"
        );
        assert_eq!(
            out.duplicate_of[i], expected_duplicate[i],
            "keeper of item {i}"
        );
        assert_eq!(
            out.partition[i], expected_partition[i],
            "partition of item {i}"
        );
        assert_eq!(out.exact[i], items[i].exact == items[keeper[i]].exact);
    }
}
