//! The decontamination index on token sequences: a verbatim copy, a copy inside a larger
//! function, a copy with one variable renamed, a function that shares only boilerplate, two
//! items that share boilerplate, a short item; expected matches written from the rules
//! (13-token runs; Jaccard of 5-token shingles at 0.7, computed here by brute force).

use std::collections::HashSet;

use codemine_filters::decontam::{BenchItem, DecontamParams, Index, MatchKind};

fn toks(s: &str) -> Vec<String> {
    s.split_whitespace().map(str::to_string).collect()
}

/// A 60-token function body in the style of a HumanEval solution.
const SOLUTION: &str = "def has_close_elements numbers threshold for idx elem in enumerate numbers \
    for idx2 elem2 in enumerate numbers if idx != idx2 distance = abs elem - elem2 if distance \
    < threshold return True return False def truncate_number number return number % 1.0 def \
    below_zero operations balance = 0 for op in operations balance += op if balance < 0 return True";

fn shingles(t: &[String]) -> HashSet<Vec<String>> {
    t.windows(5).map(|w| w.to_vec()).collect()
}

fn jaccard(a: &[String], b: &[String]) -> f64 {
    let (a, b) = (shingles(a), shingles(b));
    a.intersection(&b).count() as f64 / a.union(&b).count() as f64
}

/// The rule alone: one shared run is a match (no coverage asked).
fn one_run() -> DecontamParams {
    DecontamParams {
        min_coverage: 0.0,
        ..DecontamParams::default()
    }
}

fn index() -> Index {
    index_with(&DecontamParams::default())
}

fn index_with(params: &DecontamParams) -> Index {
    Index::build(
        vec![
            BenchItem {
                benchmark: "humaneval".into(),
                id: "HumanEval/0".into(),
                tokens: toks(SOLUTION),
            },
            BenchItem {
                benchmark: "tiny".into(),
                id: "t1".into(),
                tokens: toks("return x * y + 1"),
            },
        ],
        params,
    )
}

fn check(index: &Index, t: &[String]) -> Option<(String, MatchKind, f64)> {
    let refs: Vec<&str> = t.iter().map(String::as_str).collect();
    index.check(&refs).map(|m| (m.item, m.kind, m.score))
}

#[test]
fn copies_match_exactly() {
    let idx = index();
    let copy = toks(SOLUTION);
    assert_eq!(
        check(&idx, &copy),
        Some(("HumanEval/0".into(), MatchKind::Exact, 1.0))
    );
    // Any 13 consecutive tokens of it inside other code, under the one-run rule; at the
    // default coverage (half of the item's runs) that is no copy of the item.
    let mut inside = toks("class Helper def run self");
    inside.extend_from_slice(&copy[20..33]);
    inside.extend(toks("print done"));
    assert_eq!(check(&idx, &inside), None);
    let one = index_with(&one_run());
    assert_eq!(check(&one, &inside).map(|m| m.1), Some(MatchKind::Exact));
    // 12 shared tokens are not enough.
    let mut twelve = toks("class Helper def run self");
    twelve.extend_from_slice(&copy[20..32]);
    assert_eq!(check(&one, &twelve), None);
}

#[test]
fn a_renamed_copy_is_a_near_match_at_its_jaccard() {
    // At the defaults, breaking every 13-token run changes a 5-shingle set by more than 0.3,
    // so a near match that is not exact needs longer runs: 40 here.
    let params = DecontamParams {
        ngram: 40,
        ..DecontamParams::default()
    };
    let idx = Index::build(
        vec![BenchItem {
            benchmark: "humaneval".into(),
            id: "HumanEval/0".into(),
            tokens: toks(SOLUTION),
        }],
        &params,
    );
    // Token 30 of 60 renamed: every run of 40 contains it.
    let mut renamed = toks(SOLUTION);
    renamed[30] = "renamed".into();
    let j = jaccard(&renamed, &toks(SOLUTION));
    assert!(j >= 0.7, "{j}");
    let (item, kind, score) = check(&idx, &renamed).expect("a near match");
    assert_eq!((item.as_str(), kind), ("HumanEval/0", MatchKind::Near));
    assert!((score - j).abs() < 1e-9, "{score} vs {j}");
    // Renaming every 12th token leaves no 13-token run and too few shingles.
    let scattered: Vec<String> = toks(SOLUTION)
        .into_iter()
        .enumerate()
        .map(|(i, t)| if i % 12 == 6 { format!("{t}_x") } else { t })
        .collect();
    assert!(jaccard(&scattered, &toks(SOLUTION)) < 0.7);
    assert_eq!(check(&index(), &scattered), None);
}

#[test]
fn boilerplate_and_short_items() {
    let idx = index();
    // Shares `for idx elem in enumerate numbers` and little else.
    let other = toks("def count_words text words = text . split for idx elem in enumerate numbers print idx return len words");
    assert!(jaccard(&other, &toks(SOLUTION)) < 0.7);
    assert_eq!(check(&idx, &other), None);
    // An item shorter than 13 tokens matches only a function of exactly its tokens, never
    // one that contains them among others (issue 33: a one-token item matched a third of a
    // corpus).
    assert_eq!(idx.short_items(), 1);
    let whole = toks("return x * y + 1");
    assert_eq!(
        check(&idx, &whole),
        Some(("t1".into(), MatchKind::Exact, 1.0))
    );
    let f = toks("def mul x y return x * y + 1");
    assert_eq!(check(&idx, &f), None);
    let g = toks("return x * y + 2");
    assert_eq!(check(&idx, &g), None);
    let one = Index::build(
        vec![BenchItem {
            benchmark: "b".into(),
            id: "x".into(),
            tokens: toks("x"),
        }],
        &DecontamParams::default(),
    );
    assert_eq!(check(&one, &toks("def f x return x")), None);
    assert_eq!(check(&one, &toks("x")).map(|m| m.1), Some(MatchKind::Exact));
}

#[test]
fn a_copy_matches_its_own_item_over_one_that_shares_boilerplate_with_it() {
    let boilerplate =
        "def main argv parser = argparse ArgumentParser description args = parser parse_args argv";
    let a = toks(&format!(
        "{boilerplate} run_server args host args port return 0"
    ));
    let b = toks(&format!(
        "{boilerplate} for path in args files with open path as f print f read return 1"
    ));
    let items = [("first", &a), ("second", &b)].map(|(id, t)| BenchItem {
        benchmark: "b".into(),
        id: id.into(),
        tokens: t.clone(),
    });
    let idx = Index::build(items.to_vec(), &one_run());
    // Both items hold the 13-token boilerplate, so a copy of either shares a run with both.
    assert_eq!(toks(boilerplate).len(), 13);
    assert_eq!(
        check(&idx, &b),
        Some(("second".into(), MatchKind::Exact, 1.0))
    );
    assert_eq!(
        check(&idx, &a),
        Some(("first".into(), MatchKind::Exact, 1.0))
    );
    // The boilerplate alone is one run of each: a larger share of the shorter first item;
    // at the default coverage, too small a share of either.
    assert_eq!(
        check(&idx, &toks(boilerplate)),
        Some(("first".into(), MatchKind::Exact, 1.0))
    );
    let default = Index::build(items.to_vec(), &DecontamParams::default());
    assert_eq!(check(&default, &toks(boilerplate)), None);
    assert_eq!(check(&default, &a).map(|m| m.0), Some("first".into()));
}

#[test]
fn a_nested_function_matches_its_own_item_not_the_outer_one() {
    let inner =
        "def md5_utf8 x if isinstance x str x = x encode \"utf-8\" return hashlib md5 x hexdigest";
    let outer = toks(&format!(
        "def build_digest_header self method url {inner} hash_utf8 = md5_utf8 return hash_utf8 method"
    ));
    let items = [("outer", outer.clone()), ("inner", toks(inner))].map(|(id, tokens)| BenchItem {
        benchmark: "b".into(),
        id: id.into(),
        tokens,
    });
    let idx = Index::build(items.to_vec(), &DecontamParams::default());
    // The outer item holds every run of the inner one, and comes first.
    assert_eq!(
        check(&idx, &toks(inner)),
        Some(("inner".into(), MatchKind::Exact, 1.0))
    );
    assert_eq!(
        check(&idx, &outer),
        Some(("outer".into(), MatchKind::Exact, 1.0))
    );
}

/// A 13-token run that four items share (an idiom, as Go's table-test loop) is boilerplate
/// at the default `max_run_items` (3): a function holding only it matches no item. With
/// every run counted (0) it matches; a run of one item still matches at the default.
#[test]
fn a_run_shared_by_more_items_than_the_limit_is_boilerplate() {
    let idiom = "for _ tt range tests t Run tt name func t testing T";
    assert_eq!(toks(idiom).len(), 13);
    let items = |params: &DecontamParams| {
        let items = (0..4)
            .map(|i| BenchItem {
                benchmark: "go".into(),
                id: format!("t{i}"),
                tokens: toks(&format!(
                    "func TestCase{i} t testing T tests := cases{i} {idiom} got := run{i} tt in \
                     if got != tt want t Errorf {i}"
                )),
            })
            .collect();
        Index::build(items, params)
    };
    let function = toks(&format!(
        "func TestOther t testing T tests := mine {idiom} other tt"
    ));
    let default = items(&one_run());
    assert_eq!(DecontamParams::default().max_run_items, 3);
    assert_eq!(check(&default, &function), None);
    let every = items(&DecontamParams {
        max_run_items: 0,
        ..one_run()
    });
    assert_eq!(
        check(&every, &function).map(|(_, kind, _)| kind),
        Some(MatchKind::Exact)
    );
    // A copy of one item still matches it through its own runs.
    let copy = toks(&format!(
        "func TestCase2 t testing T tests := cases2 {idiom} got := run2 tt in if got != tt want \
         t Errorf 2"
    ));
    assert_eq!(
        check(&default, &copy),
        Some(("t2".into(), MatchKind::Exact, 1.0))
    );
}

#[test]
fn with_a_coverage_one_shared_run_is_not_a_copy() {
    // A function holding 13 tokens of the solution shares one of its runs; a copy of its
    // first tokens shares as many runs as it has.
    let copy = toks(SOLUTION);
    let runs = copy.len() - 13 + 1;
    let params = DecontamParams {
        min_coverage: 0.5,
        ..DecontamParams::default()
    };
    let idx = Index::build(
        vec![BenchItem {
            benchmark: "humaneval".into(),
            id: "HumanEval/0".into(),
            tokens: copy.clone(),
        }],
        &params,
    );
    let mut inside = toks("class Helper def run self");
    inside.extend_from_slice(&copy[20..33]);
    assert_eq!(check(&idx, &inside), None);
    assert_eq!(check(&idx, &copy).map(|m| m.1), Some(MatchKind::Exact));
    // Half of the runs, in a row: the first `runs / 2 + 12` tokens.
    let half = copy[..runs.div_ceil(2) + 12].to_vec();
    assert_eq!(check(&idx, &half).map(|m| m.1), Some(MatchKind::Exact));
    let less = copy[..runs.div_ceil(2) + 11].to_vec();
    assert_ne!(check(&idx, &less).map(|m| m.1), Some(MatchKind::Exact));
}
