//! Every metric against its reference implementation, run in the test set-up
//! (`tests/harness/eval_reference.py` with nltk, rouge-score, pycocoevalcap, rapidfuzz and
//! fuzzywuzzy from tests/requirements.txt): hundreds of generated cases per metric (empty
//! strings, unicode, one-token outputs, identical strings, no overlap, punctuation-heavy,
//! long), agreement to 1e-6, integer scores exactly.

use crate::support;

use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;
use support::python;

use codemine_eval::generation as gen;
use codemine_eval::metric::{scorer, Batch};
use codemine_eval::summarization::{self as sum, MeteorStages};
use serde_json::Value;

fn reference(args: &[&str]) -> Value {
    let script =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/harness/eval_reference.py");
    let out = Command::new(python())
        .arg(script)
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "the reference script failed (are tests/requirements.txt installed? run ./scripts/test.sh):\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn cases(v: &Value) -> (Vec<String>, Vec<String>) {
    v["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c[0].as_str().unwrap().to_string(),
                c[1].as_str().unwrap().to_string(),
            )
        })
        .unzip()
}

fn floats(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

fn indices(v: &Value) -> Vec<usize> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap() as usize)
        .collect()
}

/// Asserts agreement to `tol`, printing the first disagreements with their cases.
fn check(name: &str, got: &[f64], want: &[f64], preds: &[String], refs: &[String], tol: f64) {
    assert_eq!(got.len(), want.len(), "{name}: counts");
    let bad: Vec<String> = (0..got.len())
        .filter(|&i| {
            let d = (got[i] - want[i]).abs();
            d.is_nan() || d > tol
        })
        .take(5)
        .map(|i| {
            let case = if preds.len() == got.len() {
                format!(" prediction {:?} reference {:?}", preds[i], refs[i])
            } else {
                String::new()
            };
            format!("#{i}: got {} want {}{case}", got[i], want[i])
        })
        .collect();
    assert!(
        bad.is_empty(),
        "{name} disagrees with its reference:\n{}",
        bad.join("\n")
    );
}

const N_SUM: &str = "600";

fn summarization_reference() -> Arc<Value> {
    use std::sync::OnceLock;
    static REF: OnceLock<Arc<Value>> = OnceLock::new();
    REF.get_or_init(|| Arc::new(reference(&["summarization", "20240115", N_SUM])))
        .clone()
}

#[test]
fn smoothed_bleu_matches_codexglue() {
    let r = summarization_reference();
    let (p, g) = cases(&r);
    check(
        "smoothed_bleu",
        &sum::smoothed_bleu(&p, &g),
        &floats(&r["smoothed_bleu"]),
        &p,
        &g,
        1e-6,
    );
}

#[test]
fn rouge_l_matches_rouge_score() {
    let r = summarization_reference();
    let (p, g) = cases(&r);
    check(
        "rouge_l",
        &sum::rouge_l_all(&p, &g, false),
        &floats(&r["rouge_l"]),
        &p,
        &g,
        1e-9,
    );
    check(
        "rouge_l_stem",
        &sum::rouge_l_all(&p, &g, true),
        &floats(&r["rouge_l_stem"]),
        &p,
        &g,
        1e-9,
    );
}

/// nltk's default METEOR, WordNet stage included, on cases that swap words for synonyms
/// and inflect them (regularly and by WordNet's exception lists), read by nltk's own
/// WordNet reader from the database codemine finds (Debian's wordnet-base in CI).
#[test]
fn meteor_with_wordnet_matches_nltk() {
    let dir = codemine_eval::wordnet::discover().expect("scripts/test.sh installs WordNet");
    let wn = codemine_eval::wordnet::WordNet::load(&dir).unwrap();
    let r = reference(&["meteor", dir.to_str().unwrap(), "11", "800"]);
    let (p, g) = cases(&r);
    let want = floats(&r["meteor"]);
    let got = sum::meteor_all(&p, &g, MeteorStages::WordNet(&wn));
    check("meteor", &got, &want, &p, &g, 1e-9);
    // The cases reach the synonym stage: without it, many scores differ.
    let stem = floats(&r["meteor_stem"]);
    let differ = (0..want.len())
        .filter(|&i| (want[i] - stem[i]).abs() > 1e-9)
        .count();
    assert!(
        differ > 200,
        "only {differ} of {} cases use synonyms",
        want.len()
    );
    check(
        "meteor_stem",
        &sum::meteor_all(&p, &g, MeteorStages::ExactStem),
        &stem,
        &p,
        &g,
        1e-9,
    );
}

#[test]
fn meteor_matches_nltk() {
    let r = summarization_reference();
    let (p, g) = cases(&r);
    let got = sum::meteor_all(&p, &g, MeteorStages::ExactStem);
    check(
        "meteor_stem",
        &got,
        &floats(&r["meteor_stem"]),
        &p,
        &g,
        1e-9,
    );
    let got = sum::meteor_all(&p, &g, MeteorStages::Exact);
    check(
        "meteor_exact",
        &got,
        &floats(&r["meteor_exact"]),
        &p,
        &g,
        1e-9,
    );
}

#[test]
fn corpus_bleu_matches_nltk() {
    let r = summarization_reference();
    let (p, g) = cases(&r);
    let s = scorer("corpus_bleu").unwrap();
    let langs = vec![None; p.len()];
    let scores = s
        .score(&Batch {
            predictions: &p,
            references: &g,
            languages: &langs,
            codes: &[],
        })
        .unwrap();
    let groups = r["corpus_bleu"].as_array().unwrap();
    assert!(groups.len() > 600);
    let mut got = Vec::new();
    let mut want = Vec::new();
    for grp in groups {
        got.push(scores.aggregate(&indices(&grp[0])));
        want.push(grp[1].as_f64().unwrap());
    }
    check("corpus_bleu", &got, &want, &[], &[], 1e-9);
}

#[test]
fn cider_matches_pycocoevalcap() {
    let r = summarization_reference();
    let (p, g) = cases(&r);
    let mut checked = 0;
    for grp in r["cider"].as_array().unwrap() {
        let idx = indices(&grp[0]);
        let gp: Vec<String> = idx.iter().map(|&i| p[i].clone()).collect();
        let gg: Vec<String> = idx.iter().map(|&i| g[i].clone()).collect();
        let got = sum::cider(&gp, &gg);
        check("cider", &got, &floats(&grp[2]), &gp, &gg, 1e-6);
        let mean = got.iter().sum::<f64>() / got.len() as f64;
        assert!((mean - grp[1].as_f64().unwrap()).abs() < 1e-6, "cider mean");
        checked += got.len();
    }
    assert!(checked >= 1000, "{checked} CIDEr values checked");
}

#[test]
fn generation_metrics_match_rapidfuzz_fuzzywuzzy_and_codexglue() {
    let r = reference(&["generation", "20240116", "500"]);
    let (p, g) = cases(&r);
    check(
        "exact_match",
        &gen::per_example(&p, &g, gen::exact_match),
        &floats(&r["exact_match"]),
        &p,
        &g,
        0.0,
    );
    check(
        "edit_sim",
        &gen::per_example(&p, &g, gen::edit_sim),
        &floats(&r["edit_sim"]),
        &p,
        &g,
        1e-9,
    );
    check(
        "edit_sim_fuzzywuzzy",
        &gen::per_example(&p, &g, gen::edit_sim_fuzzywuzzy),
        &floats(&r["edit_sim_fuzzywuzzy"]),
        &p,
        &g,
        0.0,
    );
}

#[test]
fn porter_matches_nltk() {
    let r = reference(&["porter", "7", "4000"]);
    let words: Vec<&str> = r["words"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect();
    let stems: Vec<&str> = r["stems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect();
    let bad: Vec<String> = words
        .iter()
        .zip(&stems)
        .filter(|(w, s)| codemine_eval::porter::stem(w) != **s)
        .take(10)
        .map(|(w, s)| format!("{w:?}: got {:?} want {s:?}", codemine_eval::porter::stem(w)))
        .collect();
    assert!(words.len() >= 4000);
    assert!(bad.is_empty(), "stems differ:\n{}", bad.join("\n"));
}

/// Python's whitespace and `\w` classes, code point by code point. Characters assigned
/// after the Python build's Unicode version may differ; none may differ at or below it.
#[test]
fn python_character_classes() {
    let r = reference(&["classes"]);
    let space: std::collections::HashSet<u32> =
        indices(&r["space"]).into_iter().map(|c| c as u32).collect();
    let word: std::collections::HashSet<u32> =
        indices(&r["word"]).into_iter().map(|c| c as u32).collect();
    let mut space_diff = Vec::new();
    let mut word_diff = Vec::new();
    for cp in 0..0x110000u32 {
        let Some(c) = char::from_u32(cp) else {
            continue;
        };
        if codemine_eval::pytext::py_is_space(c) != space.contains(&cp) {
            space_diff.push(cp);
        }
        if codemine_eval::pytext::py_is_word(c) != word.contains(&cp) {
            word_diff.push(cp);
        }
    }
    assert!(
        space_diff.is_empty(),
        "whitespace differs at {space_diff:x?}"
    );
    // Rust's tables may be of a newer Unicode version than Python's: only characters that
    // Python's Unicode version has not assigned may differ.
    let unassigned: std::collections::HashSet<u32> = indices(&r["unassigned"])
        .into_iter()
        .map(|c| c as u32)
        .collect();
    let assigned_diff: Vec<&u32> = word_diff
        .iter()
        .filter(|cp| !unassigned.contains(cp))
        .collect();
    assert!(
        assigned_diff.is_empty(),
        "\\w differs from Python {} at {} assigned code points, e.g. {:x?}",
        r["unicode"],
        assigned_diff.len(),
        &assigned_diff[..assigned_diff.len().min(10)]
    );
}
