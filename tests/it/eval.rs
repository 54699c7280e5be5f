//! End to end: `codemine eval` on a dataset mined from a fixture repository, its numbers
//! against the reference implementations (tests/harness/eval_reference.py `score`: nltk,
//! rouge-score, pycocoevalcap, rapidfuzz, CodeXGLUE's algorithm) on the same examples read
//! independently with pyarrow; prediction formats (JSONL, Parquet, id<TAB>text with row
//! numbers), `--by`, per-example output, and the id-mismatch error.

use std::path::{Path, PathBuf};
use std::process::Command;

use harness::*;
use serde_json::{json, Value};

const PY: &str = r#"import os


def add(a, b):
    """Return the sum of a and b.

    Both arguments must be numbers.
    """
    return a + b


def parse_config(path):
    """Parses the configuration file at path and returns a dict."""
    with open(path) as f:
        return dict(line.split("=", 1) for line in f)


def normalize_path(p):
    """Normalizes a file-system path: collapses `..` and `.` segments."""
    return os.path.normpath(p)


class Cache:
    def get(self, key):
        """Gets the cached value for key, or None."""
        return self.data.get(key)

    def put(self, key, value):
        """Stores value under key (überschreibt alte Werte)."""
        self.data[key] = value


def retry(fn, times=3):
    """Calls fn up to `times` times until it succeeds; re-raises the last error."""
    for i in range(times):
        try:
            return fn()
        except Exception:
            if i == times - 1:
                raise
"#;

const JAVA: &str = r#"package util;

public class Strings {
    /**
     * Reverses a string.
     * @param s the string
     */
    public static String reverse(String s) {
        return new StringBuilder(s).reverse().toString();
    }

    /** Returns true when s is null or empty. */
    public static boolean isEmpty(String s) {
        return s == null || s.isEmpty();
    }

    /** Joins the parts with a separator, e.g. join(",", a, b) gives "a,b". */
    public static String join(String sep, String... parts) {
        return String.join(sep, parts);
    }
}
"#;

const C: &str = r#"#include <string.h>

/* Returns the length of s, or 0 for NULL. */
int safe_len(const char *s) {
    return s ? (int)strlen(s) : 0;
}

/* Copies at most n bytes of src into dst and terminates it. */
void copy_n(char *dst, const char *src, int n) {
    strncpy(dst, src, n);
    dst[n] = 0;
    safe_len(dst);
}
"#;

fn mined() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let mut r = RepoBuilder::init(&tmp.path().join("evalfx"));
    r.write("pkg/util.py", PY);
    r.write("src/util/Strings.java", JAVA);
    r.write("c/str.c", C);
    r.commit("fixture");
    // Every repository in the test split, so the default `--split test` has all rows.
    let out = mine_into(&r.path, tmp.path(), &["--split", "0,0,100"]);
    (tmp, out)
}

/// Runs the reference aggregates on `cases` with `groups`.
fn reference_scores(tmp: &Path, task: &str, cases: &[(String, String)], groups: &Value) -> Value {
    let spec = json!({"task": task, "cases": cases, "groups": groups, "wordnet": wordnet_dir()});
    let f = tmp.join(format!("{task}-spec.json"));
    std::fs::write(&f, serde_json::to_vec(&spec).unwrap()).unwrap();
    let out = Command::new(python())
        .arg(workspace_root().join("tests/harness/eval_reference.py"))
        .arg("score")
        .arg(&f)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "eval_reference.py failed (run ./scripts/test.sh):\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn eval_json(args: &[&str], tmp: &Path) -> Value {
    let mut a = vec!["eval"];
    a.extend_from_slice(args);
    a.push("--json");
    let res = codemine(&a, &tmp.join("cache"));
    assert_success(&res);
    serde_json::from_slice(&res.stdout).unwrap()
}

fn assert_close(got: &Value, want: &Value, what: &str) {
    let want = want.as_object().unwrap();
    for (k, w) in want {
        let g = got[k]
            .as_f64()
            .unwrap_or_else(|| panic!("{what}: no {k} in {got}"));
        let w = w.as_f64().unwrap();
        assert!(
            (g - w).abs() < 1e-6,
            "{what} {k}: codemine {g}, reference {w}"
        );
    }
}

/// A prediction for example `i` of reference `r`: identical, edited, unrelated, empty, or
/// with words swapped for WordNet synonyms (METEOR's third stage).
fn predict(i: usize, r: &str) -> String {
    match i % 5 {
        0 => r.to_string(),
        1 => {
            let mut w: Vec<&str> = r.split_whitespace().collect();
            w.pop();
            w.push("value");
            w.join(" ")
        }
        2 => "Gibt den Wert zurück — 返回值 .".to_string(),
        3 => r
            .split_whitespace()
            .map(|w| match w.to_lowercase().as_str() {
                "return" | "returns" => "render",
                "sum" => "amount",
                "file" => "register",
                "parses" => "analyze",
                "value" => "economic_value",
                "number" => "figure",
                "numbers" => "figures",
                _ => w,
            })
            .collect::<Vec<_>>()
            .join(" "),
        _ => String::new(),
    }
}

#[test]
fn summarization_scores_match_the_references() {
    let (tmp, out) = mined();
    let rows = shard_rows(&out.join("csn"));
    assert!(rows.len() >= 10, "{} CSN rows", rows.len());
    let mut preds = String::new();
    let mut cases = Vec::new();
    let mut by_lang: serde_json::Map<String, Value> = serde_json::Map::new();
    for (i, row) in rows.iter().enumerate() {
        let toks: Vec<&str> = row["docstring_tokens"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_str().unwrap())
            .collect();
        let reference = toks.join(" ").replace('\n', "");
        let p = predict(i, &reference);
        preds.push_str(&format!("{}\n", json!({"id": row["url"], "prediction": p})));
        cases.push((p, reference));
        let lang = row["language"].as_str().unwrap().to_string();
        by_lang
            .entry(lang)
            .or_insert_with(|| json!([]))
            .as_array_mut()
            .unwrap()
            .push(json!(i));
    }
    let pf = tmp.path().join("preds.jsonl");
    std::fs::write(&pf, preds).unwrap();
    let per = tmp.path().join("per-example.jsonl");
    let got = eval_json(
        &[
            out.to_str().unwrap(),
            "--task",
            "summarization",
            "--predictions",
            pf.to_str().unwrap(),
            "--by",
            "language",
            "--per-example",
            per.to_str().unwrap(),
            "--wordnet",
            wordnet_dir().to_str().unwrap(),
        ],
        tmp.path(),
    );
    assert_eq!(got["notes"], json!([]));
    assert_eq!(got["wordnet"], json!(wordnet_dir().display().to_string()));
    let want = reference_scores(
        tmp.path(),
        "summarization",
        &cases,
        &Value::Object(by_lang.clone()),
    );
    assert_eq!(got["task"], "summarization");
    assert_eq!(got["examples"], rows.len());
    assert_close(&got["metrics"], &want["all"], "all");
    for (lang, _) in by_lang {
        let g = &got["by"]["language"][&lang];
        assert_close(&g["metrics"], &want["groups"][&lang], &lang);
    }
    // Without --wordnet, WordNet is found on nltk's data path, here nltk's zipped layout
    // (corpora/wordnet.zip with a wordnet/ folder, written by Python's zipfile).
    let nltk_data = tmp.path().join("nltk_data");
    let zip = nltk_data.join("corpora/wordnet.zip");
    python_json(
        "import os, sys, zipfile\n\
         src, dst = sys.argv[1], sys.argv[2]\n\
         os.makedirs(os.path.dirname(dst))\n\
         with zipfile.ZipFile(dst, 'w', zipfile.ZIP_DEFLATED) as z:\n\
         \x20   for f in sorted(os.listdir(src)):\n\
         \x20       if os.path.isfile(os.path.join(src, f)):\n\
         \x20           z.write(os.path.join(src, f), 'wordnet/' + f)\n\
         print('{}')",
        &[wordnet_dir().to_str().unwrap(), zip.to_str().unwrap()],
    );
    let res = Command::new(binary())
        .args(["eval", out.to_str().unwrap(), "--predictions"])
        .arg(&pf)
        .args(["-m", "meteor", "--json"])
        .env("NLTK_DATA", &nltk_data)
        .env("HOME", tmp.path())
        .env_remove("VIRTUAL_ENV")
        .env_remove("CODEMINE_WORDNET")
        .output()
        .unwrap();
    assert_success(&res);
    let found: Value = serde_json::from_slice(&res.stdout).unwrap();
    assert_eq!(found["wordnet"], json!(zip.display().to_string()));
    let (a, b) = (
        found["metrics"]["meteor"].as_f64().unwrap(),
        want["all"]["meteor"].as_f64().unwrap(),
    );
    assert!((a - b).abs() < 1e-9, "meteor from the zip {a}, nltk {b}");

    // METEOR asked for by name with a WordNet folder that has none: an error naming it.
    let missing = tmp.path().join("no-wordnet");
    let res = codemine(
        &[
            "eval",
            out.to_str().unwrap(),
            "--predictions",
            pf.to_str().unwrap(),
            "-m",
            "meteor",
            "--wordnet",
            missing.to_str().unwrap(),
        ],
        &tmp.path().join("cache"),
    );
    let stderr = String::from_utf8_lossy(&res.stderr);
    assert_eq!(res.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "--wordnet {}: no WordNet 3.0 database there",
            missing.display()
        )),
        "{stderr}"
    );
    // Per-example: one line per example, per-example metrics only.
    let lines: Vec<Value> = std::fs::read_to_string(&per)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), rows.len());
    assert!(lines[0]["smoothed_bleu"].is_number() && lines[0]["corpus_bleu"].is_null());
    assert_eq!(lines[0]["id"], rows[0]["url"]);

    // The same predictions as id<TAB>text lines keyed by row number (CodeXGLUE's layout).
    let tsv: String = cases
        .iter()
        .enumerate()
        .map(|(i, (p, _))| format!("{i}\t{p}\n"))
        .collect();
    let tf = tmp.path().join("preds.txt");
    std::fs::write(&tf, tsv).unwrap();
    let by_index = eval_json(
        &[
            out.join("csn").to_str().unwrap(),
            "-p",
            tf.to_str().unwrap(),
            "--id-column",
            "@index",
            "--metrics",
            "smoothed_bleu,corpus_bleu",
        ],
        tmp.path(),
    );
    for m in ["smoothed_bleu", "corpus_bleu"] {
        assert_eq!(
            by_index["metrics"][m], got["metrics"][m],
            "{m} by row number"
        );
    }
}

#[test]
fn generation_scores_match_the_references_with_parquet_predictions() {
    let (tmp, out) = mined();
    let rows = shard_rows(&out.join("yabloco"));
    assert!(rows.len() >= 10, "{} YABLoCo rows", rows.len());
    let mut ids = Vec::new();
    let mut texts = Vec::new();
    let mut cases = Vec::new();
    let mut by_cat: serde_json::Map<String, Value> = serde_json::Map::new();
    for (i, row) in rows.iter().enumerate() {
        let reference = row["outputs"].as_str().unwrap().to_string();
        let p = match i % 3 {
            0 => format!("  {}\n", reference.replace("    ", "  ")),
            1 => reference.replacen("return", "yield", 1),
            _ => "pass".to_string(),
        };
        ids.push(row["meta"]["original_id"].clone());
        texts.push(p.clone());
        cases.push((p, reference));
        let m = &row["meta"];
        let cat = ["project", "same_package", "same_file", "stdlib"]
            .into_iter()
            .find(|k| m[*k].as_i64().unwrap() != 0)
            .unwrap_or("none");
        by_cat
            .entry(cat)
            .or_insert_with(|| json!([]))
            .as_array_mut()
            .unwrap()
            .push(json!(i));
    }
    // Predictions as Parquet, written by pyarrow.
    let pf = tmp.path().join("preds.parquet");
    let spec = tmp.path().join("preds.json");
    std::fs::write(
        &spec,
        serde_json::to_vec(&json!({"id": ids, "prediction": texts})).unwrap(),
    )
    .unwrap();
    python_json(
        "import json, sys, pyarrow as pa, pyarrow.parquet as pq\n\
         d = json.load(open(sys.argv[1]))\n\
         pq.write_table(pa.table(d), sys.argv[2])\n\
         print('{}')",
        &[spec.to_str().unwrap(), pf.to_str().unwrap()],
    );
    let per = tmp.path().join("per.parquet");
    let got = eval_json(
        &[
            out.to_str().unwrap(),
            "--task",
            "generation",
            "-p",
            pf.to_str().unwrap(),
            "--by",
            "category",
            "--by",
            "repository",
            "--per-example",
            per.to_str().unwrap(),
        ],
        tmp.path(),
    );
    let want = reference_scores(
        tmp.path(),
        "generation",
        &cases,
        &Value::Object(by_cat.clone()),
    );
    assert_eq!(got["task"], "generation");
    assert_close(&got["metrics"], &want["all"], "all");
    for (cat, _) in by_cat {
        assert_close(
            &got["by"]["category"][&cat]["metrics"],
            &want["groups"][&cat],
            &cat,
        );
    }
    assert_eq!(got["by"]["repository"]["evalfx"]["examples"], rows.len());
    let per_rows = python_json(
        "import json, sys, pyarrow.parquet as pq\n\
         print(json.dumps(pq.read_table(sys.argv[1]).to_pylist()))",
        &[per.to_str().unwrap()],
    );
    assert_eq!(per_rows.as_array().unwrap().len(), rows.len());
    assert!(per_rows[0]["edit_sim"].is_number() && per_rows[0]["exact_match"].is_number());
}

#[test]
fn mismatched_ids_are_counted_and_named() {
    let (tmp, out) = mined();
    let rows = shard_rows(&out.join("csn"));
    let mut preds = String::new();
    for row in &rows[1..] {
        preds.push_str(&format!(
            "{}\n",
            json!({"id": row["url"], "prediction": "x"})
        ));
    }
    preds.push_str(&format!(
        "{}\n",
        json!({"id": "no-such-row", "prediction": "y"})
    ));
    let pf = tmp.path().join("preds.jsonl");
    std::fs::write(&pf, preds).unwrap();
    let res = codemine(
        &[
            "eval",
            out.join("csn").to_str().unwrap(),
            "-p",
            pf.to_str().unwrap(),
        ],
        &tmp.path().join("cache"),
    );
    assert_eq!(res.status.code(), Some(1));
    let err = String::from_utf8_lossy(&res.stderr);
    assert!(err.contains("1 dataset rows have no prediction"), "{err}");
    assert!(err.contains(rows[0]["url"].as_str().unwrap()), "{err}");
    assert!(
        err.contains("1 predictions match no dataset row, e.g. \"no-such-row\""),
        "{err}"
    );
    assert!(err.contains("--intersection"), "{err}");

    let got = eval_json(
        &[
            out.join("csn").to_str().unwrap(),
            "-p",
            pf.to_str().unwrap(),
            "--intersection",
        ],
        tmp.path(),
    );
    assert_eq!(got["join"]["scored"], rows.len() - 1);
    assert_eq!(got["join"]["missing_predictions"], 1);
    assert_eq!(got["join"]["extra_predictions"], 1);

    // Usage errors exit with 2.
    let res = codemine(
        &[
            "eval",
            out.join("csn").to_str().unwrap(),
            "-p",
            pf.to_str().unwrap(),
            "--metrics",
            "bleurt",
        ],
        &tmp.path().join("cache"),
    );
    assert_eq!(
        res.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&res.stderr)
    );
}

/// The `codebleu` package's scores (tests/harness/codebleu_reference.py) of `cases`
/// (reference, prediction) in one language: per example and over all of them.
fn codebleu_reference(tmp: &Path, lang: &str, cases: &[(String, String)]) -> Value {
    let spec = json!({
        "lang": lang,
        "cases": cases.iter().map(|(r, p)| json!({"refs": [r], "pred": p})).collect::<Vec<_>>(),
    });
    let f = tmp.join(format!("codebleu-{lang}.json"));
    std::fs::write(&f, serde_json::to_vec(&spec).unwrap()).unwrap();
    let out = Command::new(python())
        .arg(workspace_root().join("tests/harness/codebleu_reference.py"))
        .arg(&f)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "codebleu_reference.py failed (run ./scripts/test.sh):\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Our metric names for the package's keys.
const CODEBLEU_KEYS: [(&str, &str); 5] = [
    ("codebleu", "codebleu"),
    ("codebleu_ngram", "ngram_match_score"),
    ("codebleu_weighted_ngram", "weighted_ngram_match_score"),
    ("codebleu_syntax", "syntax_match_score"),
    ("codebleu_dataflow", "dataflow_match_score"),
];

fn assert_codebleu(got: &Value, want: &Value, what: &str) {
    for (ours, theirs) in CODEBLEU_KEYS {
        let g = got[ours]
            .as_f64()
            .unwrap_or_else(|| panic!("{what}: no {ours} in {got}"));
        let w = want[theirs].as_f64().unwrap();
        assert!(
            (g - w).abs() < 1e-6,
            "{what} {ours}: codemine {g}, codebleu package {w}"
        );
    }
}

/// A dataset row index, its reference and the prediction.
type Case = (usize, String, String);

#[test]
fn codebleu_matches_the_package_per_language_and_per_example() {
    let (tmp, out) = mined();
    let rows = shard_rows(&out.join("yabloco"));
    let mut preds = String::new();
    // (language, [(row index, reference, prediction)]) in dataset order.
    let mut by_lang: Vec<(String, Vec<Case>)> = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        let reference = row["outputs"].as_str().unwrap().to_string();
        let p = match i % 3 {
            0 => reference.clone(),
            1 => reference.replacen("return", "return 1 +", 1),
            _ => "x = 0".to_string(),
        };
        preds.push_str(&format!(
            "{}\n",
            json!({"id": row["meta"]["original_id"], "prediction": p})
        ));
        let lang = row["inputs"]["language"].as_str().unwrap().to_lowercase();
        match by_lang.iter_mut().find(|(l, _)| *l == lang) {
            Some((_, v)) => v.push((i, reference, p)),
            None => by_lang.push((lang, vec![(i, reference, p)])),
        }
    }
    assert!(by_lang.len() >= 3, "languages: {by_lang:?}");
    let pf = tmp.path().join("preds.jsonl");
    std::fs::write(&pf, preds).unwrap();
    let per = tmp.path().join("per.jsonl");
    let metrics = CODEBLEU_KEYS.map(|(k, _)| k).join(",");
    let got = eval_json(
        &[
            out.to_str().unwrap(),
            "-p",
            pf.to_str().unwrap(),
            "--metrics",
            &metrics,
            "--by",
            "inputs.language",
            "--per-example",
            per.to_str().unwrap(),
        ],
        tmp.path(),
    );
    let per_rows: Vec<Value> = std::fs::read_to_string(&per)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(per_rows.len(), rows.len());
    for (lang, cases) in &by_lang {
        let pairs: Vec<(String, String)> = cases
            .iter()
            .map(|(_, r, p)| (r.clone(), p.clone()))
            .collect();
        let want = codebleu_reference(tmp.path(), lang, &pairs);
        let label = row_label(&rows, lang);
        assert_codebleu(
            &got["by"]["inputs.language"][&label]["metrics"],
            &want["corpus"],
            lang,
        );
        for ((i, _, _), w) in cases.iter().zip(want["examples"].as_array().unwrap()) {
            let row = &per_rows[*i];
            assert_eq!(row["id"], rows[*i]["meta"]["original_id"]);
            assert_codebleu(row, w, &format!("{lang} example {i}"));
        }
    }

    // Other weights: the combination of the package's components by the spec's formula
    // (a data-flow match of 0 counts as 1).
    let weighted = eval_json(
        &[
            out.to_str().unwrap(),
            "-p",
            pf.to_str().unwrap(),
            "--metrics",
            &metrics,
            "--codebleu-weights",
            "0.1,0.2,0.3,0.4",
        ],
        tmp.path(),
    );
    let m = &weighted["metrics"];
    let df = m["codebleu_dataflow"].as_f64().unwrap();
    let want = 0.1 * m["codebleu_ngram"].as_f64().unwrap()
        + 0.2 * m["codebleu_weighted_ngram"].as_f64().unwrap()
        + 0.3 * m["codebleu_syntax"].as_f64().unwrap()
        + 0.4 * if df == 0.0 { 1.0 } else { df };
    assert!((m["codebleu"].as_f64().unwrap() - want).abs() < 1e-9, "{m}");
    for bad in ["0.5,0.5", "a,b,c,d", "-1,1,1,1"] {
        let res = codemine(
            &[
                "eval",
                out.to_str().unwrap(),
                "-p",
                pf.to_str().unwrap(),
                "--codebleu-weights",
                bad,
            ],
            &tmp.path().join("cache"),
        );
        assert_eq!(res.status.code(), Some(2), "weights {bad}");
        let err = String::from_utf8_lossy(&res.stderr);
        assert!(err.contains("--codebleu-weights"), "{err}");
    }
}

/// The dataset's spelling of a normalized language (the `--by` groups use the column's
/// values as they are).
fn row_label(rows: &[Value], lang: &str) -> String {
    rows.iter()
        .map(|r| r["inputs"]["language"].as_str().unwrap().to_string())
        .find(|l| l.to_lowercase() == lang)
        .unwrap()
}

#[test]
fn codebleu_needs_a_language_it_knows() {
    // A plain table without a language column: CodeBLEU asks for --language, and with it
    // scores as the package does.
    let tmp = tempfile::tempdir().unwrap();
    let refs = [
        "def add(a, b):\n    return a + b\n",
        "def first(xs):\n    for x in xs:\n        return x\n    return None\n",
    ];
    let preds = [
        "def add(a, b):\n    return b + a\n",
        "def first(xs):\n    return xs[0]\n",
    ];
    let data = tmp.path().join("table.parquet");
    let pf = tmp.path().join("preds.parquet");
    let spec = tmp.path().join("spec.json");
    std::fs::write(
        &spec,
        serde_json::to_vec(&json!({"refs": refs, "preds": preds})).unwrap(),
    )
    .unwrap();
    python_json(
        "import json, sys, pyarrow as pa, pyarrow.parquet as pq\n\
         d = json.load(open(sys.argv[1]))\n\
         pq.write_table(pa.table({'key': ['a', 'b'], 'body': d['refs']}), sys.argv[2])\n\
         pq.write_table(pa.table({'id': ['a', 'b'], 'prediction': d['preds']}), sys.argv[3])\n\
         print('{}')",
        &[
            spec.to_str().unwrap(),
            data.to_str().unwrap(),
            pf.to_str().unwrap(),
        ],
    );
    let base = [
        "eval",
        data.to_str().unwrap(),
        "--task",
        "generation",
        "--id-column",
        "key",
        "--reference-column",
        "body",
        "-p",
        pf.to_str().unwrap(),
    ];
    let res = codemine(&base, &tmp.path().join("cache"));
    assert_eq!(res.status.code(), Some(1));
    let err = String::from_utf8_lossy(&res.stderr);
    assert!(
        err.contains("2 of 2 examples") && err.contains("--language"),
        "{err}"
    );

    // Per-example scores through a symlink: written through it, the link stays.
    let target = tmp.path().join("scores.jsonl");
    let link = tmp.path().join("link.jsonl");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let mut args: Vec<&str> = base[1..].to_vec();
    args.extend([
        "--language",
        "Python",
        "--metrics",
        "codebleu,codebleu_syntax,codebleu_ngram,codebleu_weighted_ngram,codebleu_dataflow",
        "--per-example",
        link.to_str().unwrap(),
    ]);
    let got = eval_json(&args, tmp.path());
    let link_type = std::fs::symlink_metadata(&link).unwrap().file_type();
    assert!(link_type.is_symlink());
    assert_eq!(std::fs::read_to_string(&target).unwrap().lines().count(), 2);
    let cases: Vec<(String, String)> = refs
        .iter()
        .zip(preds)
        .map(|(r, p)| (r.to_string(), p.to_string()))
        .collect();
    let want = codebleu_reference(tmp.path(), "python", &cases);
    assert_codebleu(&got["metrics"], &want["corpus"], "python table");
}

/// Every predictions format refuses what JSON lines refuse, and says where: a null or
/// numeric prediction in Parquet (written by pyarrow) is an error naming the file and the
/// row; a repeated id names its line and the first one's; a non-UTF-8 line is named.
#[test]
fn bad_predictions_are_errors_naming_their_line_in_every_format() {
    let (tmp, out) = mined();
    let rows = shard_rows(&out.join("csn"));
    let ids: Vec<&str> = rows.iter().map(|r| r["url"].as_str().unwrap()).collect();
    let run = |pf: &Path| {
        let res = codemine(
            &[
                "eval",
                out.join("csn").to_str().unwrap(),
                "-p",
                pf.to_str().unwrap(),
            ],
            &tmp.path().join("cache"),
        );
        assert_eq!(
            res.status.code(),
            Some(1),
            "{}",
            String::from_utf8_lossy(&res.stderr)
        );
        String::from_utf8_lossy(&res.stderr).into_owned()
    };
    let parquet = |name: &str, code: &str| {
        let pf = tmp.path().join(name);
        let spec = tmp.path().join(format!("{name}.json"));
        std::fs::write(&spec, serde_json::to_vec(&json!({"id": ids})).unwrap()).unwrap();
        python_json(
            &format!(
                "import json, sys, math, pyarrow as pa, pyarrow.parquet as pq\n\
                 ids = json.load(open(sys.argv[1]))['id']\n{code}\n\
                 pq.write_table(t, sys.argv[2])\nprint('{{}}')"
            ),
            &[spec.to_str().unwrap(), pf.to_str().unwrap()],
        );
        pf
    };
    // Row 2 (1-based) has a null prediction.
    let pf = parquet(
        "null.parquet",
        "t = pa.table({'id': ids, 'prediction': ['x', None] + ['y'] * (len(ids) - 2)})",
    );
    let err = run(&pf);
    assert!(
        err.contains("null.parquet:2:") && err.contains("null `prediction`"),
        "{err}"
    );
    // A float column (NaN and numbers) is not text.
    let pf = parquet(
        "nan.parquet",
        "t = pa.table({'id': ids, 'prediction': [math.nan] + [1.5] * (len(ids) - 1)})",
    );
    let err = run(&pf);
    assert!(
        err.contains("nan.parquet") && err.contains("not text"),
        "{err}"
    );

    // JSON lines: the repeat of line 1's id on line 3.
    let pf = tmp.path().join("dup.jsonl");
    let mut text = String::new();
    for id in [ids[0], ids[1], ids[0]] {
        text.push_str(&format!("{}\n", json!({"id": id, "prediction": "x"})));
    }
    std::fs::write(&pf, text).unwrap();
    let err = run(&pf);
    assert!(
        err.contains("dup.jsonl:3:") && err.contains("line 1"),
        "{err}"
    );

    // A tab-separated file whose line 2 is not UTF-8.
    let pf = tmp.path().join("latin1.tsv");
    let mut bytes = format!("{}\tfine\n", ids[0]).into_bytes();
    bytes.extend_from_slice(format!("{}\tcaf", ids[1]).as_bytes());
    bytes.extend_from_slice(&[0xE9, b'\n']);
    std::fs::write(&pf, bytes).unwrap();
    let err = run(&pf);
    assert!(
        err.contains("latin1.tsv:2:") && err.contains("not UTF-8"),
        "{err}"
    );
}

/// `side` and `side_reference` score each joined example's prediction (and reference)
/// against that example's `code`: the values equal the SIDE library's on the same texts
/// (whose agreement with transformers is side/tests/reference.rs's), per example and on
/// average; without a model, the metric is a usage error.
#[test]
fn side_scores_predictions_and_references_against_the_code() {
    let (tmp, out) = mined();
    let rows = shard_rows(&out.join("csn"));
    let model = workspace_root().join("side/tests/data/tiny-st");
    let mut preds = String::new();
    let mut expect = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        let p = if i % 2 == 0 {
            "returns the length".to_string()
        } else {
            format!("{} twice", row["docstring"].as_str().unwrap())
        };
        preds.push_str(&format!("{}\n", json!({"id": row["url"], "prediction": p})));
        expect.push((
            row["code"].as_str().unwrap().to_string(),
            p,
            row["docstring_tokens"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t.as_str().unwrap())
                .collect::<Vec<_>>()
                .join(" "),
        ));
    }
    let pf = tmp.path().join("preds.jsonl");
    std::fs::write(&pf, preds).unwrap();
    let per = tmp.path().join("per.jsonl");
    let got = eval_json(
        &[
            out.join("csn").to_str().unwrap(),
            "-p",
            pf.to_str().unwrap(),
            "-m",
            "side,side_reference",
            "--side-model",
            model.to_str().unwrap(),
            "--per-example",
            per.to_str().unwrap(),
        ],
        tmp.path(),
    );
    let side = codemine_side::Side::load(&model).unwrap();
    let pred_pairs: Vec<(&str, &str)> = expect
        .iter()
        .map(|(c, p, _)| (c.as_str(), p.as_str()))
        .collect();
    let ref_pairs: Vec<(&str, &str)> = expect
        .iter()
        .map(|(c, _, r)| (c.as_str(), r.as_str()))
        .collect();
    let want_pred = side.score(&pred_pairs, 1).unwrap();
    let want_ref = side.score(&ref_pairs, 1).unwrap();
    let lines: Vec<Value> = std::fs::read_to_string(&per)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), rows.len());
    for (i, line) in lines.iter().enumerate() {
        let k = rows.iter().position(|r| r["url"] == line["id"]).unwrap();
        assert!(
            (line["side"].as_f64().unwrap() - want_pred[k] as f64).abs() < 1e-5,
            "row {i}"
        );
        assert!(
            (line["side_reference"].as_f64().unwrap() - want_ref[k] as f64).abs() < 1e-5,
            "row {i}"
        );
    }
    let mean = |v: &[f32]| v.iter().map(|&x| x as f64).sum::<f64>() / v.len() as f64;
    assert!((got["metrics"]["side"].as_f64().unwrap() - mean(&want_pred)).abs() < 1e-5);
    assert!((got["metrics"]["side_reference"].as_f64().unwrap() - mean(&want_ref)).abs() < 1e-5);

    // (The flag's environment variable would give a model.)
    let res = Command::new(binary())
        .args(["eval", out.join("csn").to_str().unwrap()])
        .args(["-p", pf.to_str().unwrap(), "-m", "side"])
        .env_remove("CODEMINE_SIDE_MODEL")
        .output()
        .unwrap();
    assert_eq!(res.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&res.stderr).contains("--side-model"));
}

/// A line-level completion set from `mine --emit completion` is scored directly: its rows
/// joined by `id`, `gt` the reference, `exact_match` and `edit_sim` as CodeXGLUE's
/// line-completion evaluator computes them (the reference harness).
#[test]
fn completion_line_sets_are_scored_against_gt_by_id() {
    let tmp = tempfile::tempdir().unwrap();
    let mut r = RepoBuilder::init(&tmp.path().join("evalfx"));
    r.write("pkg/util.py", PY);
    r.write("src/util/Strings.java", JAVA);
    r.commit("fixture");
    let out = mine_into(
        &r.path,
        tmp.path(),
        &[
            "--split",
            "0,0,100",
            "--emit",
            "completion",
            "--completion-cuts",
            "4",
        ],
    );
    let rows = shard_rows(&out.join("completion/line"))
        .into_iter()
        .filter(|r| r.get("gt").is_some())
        .collect::<Vec<_>>();
    assert!(rows.len() >= 6, "{} line rows", rows.len());
    let mut lines = String::new();
    let mut cases = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        let gt = row["gt"].as_str().unwrap().to_string();
        let p = match i % 3 {
            0 => gt.clone(),
            1 => format!("{gt} extra"),
            _ => "x".to_string(),
        };
        lines.push_str(&json!({"id": row["id"], "prediction": p}).to_string());
        lines.push('\n');
        cases.push((p, gt));
    }
    let preds = tmp.path().join("preds.jsonl");
    std::fs::write(&preds, lines).unwrap();
    let got = eval_json(
        &[
            out.join("completion").to_str().unwrap(),
            "--split",
            "test",
            "-m",
            "exact_match,edit_sim",
            "-p",
            preds.to_str().unwrap(),
        ],
        tmp.path(),
    );
    let want = reference_scores(tmp.path(), "generation", &cases, &json!({}));
    assert_eq!(got["task"], "generation");
    assert_eq!(got["join"]["scored"], rows.len(), "{got}");
    assert_close(&got["metrics"], &want["all"], "all");
}
