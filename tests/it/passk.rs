//! `eval --execute` end to end (issue 32): the Python fixture of `run_tests` (geometry) is
//! mined with `--run-tests`, then samples written here by hand are scored by running each
//! function's covering tests in the sandbox: the gold function passes, a stub fails, a body
//! wrong in one case fails exactly the covering test that checks that case, a syntax error
//! is `syntax_error`, an endless loop `timeout`; pass@k equals values computed by hand.
//!
//! Slow (not in `scripts/test.sh --fast`): it shares `run_tests`' cache, whose geometry
//! environment is prepared once (pytest and coverage from PyPI, inside the sandbox).

use std::collections::BTreeMap;

use harness::{assert_success, codemine, shard_rows, RepoBuilder};
use serde_json::{json, Value};

use crate::run_tests::{cache, python_repo, CALC_C, MAKEFILE, TEST_ADD_C, TEST_MUL_C};

fn t(name: &str) -> String {
    format!("tests/test_shapes.py::{name}")
}

#[test]
fn samples_pass_fail_time_out_or_do_not_parse_and_pass_at_k_is_chen_et_al() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("geometry");
    python_repo(&repo);
    let out = tmp.path().join("out");
    let mined = codemine(
        &[
            "mine",
            "--repo",
            repo.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--run-tests",
            "--no-dedup",
        ],
        &cache(),
    );
    assert_success(&mined);

    // The ids and gold functions of the YABLoCo rows.
    let rows: BTreeMap<String, Value> = shard_rows(&out.join("yabloco"))
        .into_iter()
        .map(|r| (r["meta"]["fname"].as_str().unwrap().to_string(), r))
        .collect();
    let id = |name: &str| {
        rows[name]["meta"]["original_id"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let gold_rectangle = rows["rectangle"]["outputs"].as_str().unwrap().to_string();
    assert!(
        gold_rectangle.starts_with("def rectangle(w, h):"),
        "{gold_rectangle}"
    );

    let rectangle_samples = [
        // The gold function, whole (YABLoCo's `outputs`).
        gold_rectangle.as_str(),
        // The stub.
        "raise NotImplementedError",
        // Wrong when w == h only: rectangle(2, 3) is still 6, rectangle(2, 2) is 5.
        "if w == h:\n    return w * h + 1\nreturn w * h",
        // Does not parse.
        "return w *",
        // Never ends: the per-test limit (2 s) stops it.
        "while True:\n    pass",
    ];
    let preds = tmp.path().join("predictions.jsonl");
    let lines = [
        json!({"id": id("rectangle"), "samples": rectangle_samples}),
        // A body, indented as a model may write it, as the one prediction.
        json!({"id": id("Circle.area").to_lowercase(), "prediction": "        return 3 * square(self.r)\n"}),
        // square's gold body fails: one of its covering tests, test_wrong, fails anyway.
        json!({"id": id("square"), "samples": ["return x * x", "return x * x"]}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&preds, text).unwrap();
    let per_sample = tmp.path().join("samples.jsonl");
    let args = [
        "eval",
        out.to_str().unwrap(),
        "--execute",
        "-p",
        preds.to_str().unwrap(),
        "--k",
        "1,2,5,10",
        "--timeout",
        "2",
        "--per-sample",
        per_sample.to_str().unwrap(),
        "--json",
    ];
    // Two workers here, one below: the same results.
    let mut parallel = args.to_vec();
    parallel.extend(["-j", "2"]);
    let o = codemine(&parallel, &cache());
    assert_success(&o);
    let report: Value = serde_json::from_slice(&o.stdout).unwrap();

    let samples: Vec<Value> = std::fs::read_to_string(&per_sample)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let of = |name: &str| -> Vec<&Value> {
        let want = id(name);
        samples
            .iter()
            .filter(|s| s["id"] == want.as_str())
            .collect()
    };
    let outcomes = |name: &str| -> Vec<String> {
        of(name)
            .iter()
            .map(|s| s["outcome"].as_str().unwrap().to_string())
            .collect()
    };
    let failing = |name: &str, k: usize| -> Vec<String> {
        of(name)[k]["failing_tests"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        outcomes("rectangle"),
        ["pass", "fail", "fail", "syntax_error", "timeout"],
        "{samples:#?}"
    );
    // rectangle's covering tests: test_rectangle and test_rectangle_square.
    assert!(failing("rectangle", 0).is_empty());
    assert_eq!(
        failing("rectangle", 1),
        [t("test_rectangle"), t("test_rectangle_square")]
    );
    assert_eq!(failing("rectangle", 2), [t("test_rectangle_square")]);
    let syntax = &of("rectangle")[3];
    assert!(
        syntax["reason"].as_str().unwrap().contains("SyntaxError"),
        "{syntax}"
    );
    assert_eq!(
        failing("rectangle", 4),
        [t("test_rectangle"), t("test_rectangle_square")]
    );
    assert_eq!(outcomes("Circle.area"), ["pass"]);
    assert_eq!(outcomes("square"), ["fail", "fail"]);
    assert_eq!(failing("square", 0), [t("test_wrong")]);
    for s in &samples {
        assert_eq!(s["repository"], "geometry");
        assert_eq!(s["language"], "python");
        assert!(s["seconds"].as_f64().unwrap() > 0.0);
    }

    // pass@k by hand: rectangle n=5, c=1; Circle.area n=1, c=1; square n=2, c=0.
    // pass@1 = c/n: (1/5 + 1 + 0) / 3. pass@2: rectangle 1 - C(4,2)/C(5,2) = 1 - 6/10,
    // square 0, over those two. pass@5: rectangle alone, 1 - C(4,5)/C(5,5) = 1. pass@10:
    // no task has 10 samples.
    let overall = &report["overall"];
    let close = |v: &Value, want: f64| (v.as_f64().unwrap() - want).abs() < 1e-12;
    assert!(
        close(&overall["pass_at"]["pass@1"], (0.2 + 1.0) / 3.0),
        "{report}"
    );
    assert!(close(&overall["pass_at"]["pass@2"], 0.4 / 2.0), "{report}");
    assert!(close(&overall["pass_at"]["pass@5"], 1.0), "{report}");
    assert!(overall["pass_at"].get("pass@10").is_none(), "{report}");
    assert_eq!(overall["pass_at_tasks"]["pass@2"], 2);
    assert_eq!(overall["tasks"], 3);
    assert_eq!(overall["samples"], 8);
    assert_eq!(
        overall["outcomes"],
        json!({"pass": 2, "fail": 4, "syntax_error": 1, "timeout": 1})
    );
    assert_eq!(
        report["by_repository"]["geometry"]["pass_at"],
        overall["pass_at"]
    );
    assert_eq!(
        report["by_language"]["python"]["pass_at"],
        overall["pass_at"]
    );

    // --validate: the original must pass and a stub must not. square's original fails
    // test_wrong, so square is not valid; --valid-only scores rectangle and Circle.area:
    // pass@1 = (1/5 + 1) / 2.
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&preds, text).unwrap();
    let mut validate = args.to_vec();
    validate.extend(["--validate", "--valid-only"]);
    let o = codemine(&validate, &cache());
    assert_success(&o);
    let report: Value = serde_json::from_slice(&o.stdout).unwrap();
    let verdicts: BTreeMap<String, (Value, Value, Value)> = report["validation"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            (
                v["id"].as_str().unwrap().to_string(),
                (v["gold"].clone(), v["stub"].clone(), v["valid"].clone()),
            )
        })
        .collect();
    assert_eq!(
        verdicts,
        BTreeMap::from([
            (id("rectangle"), (json!("pass"), json!("fail"), json!(true))),
            (
                id("Circle.area"),
                (json!("pass"), json!("fail"), json!(true))
            ),
            (id("square"), (json!("fail"), json!("fail"), json!(false))),
        ])
    );
    let overall = &report["overall"];
    assert_eq!(report["valid_only"], true);
    assert_eq!(overall["tasks"], 2);
    assert!(
        close(&overall["pass_at"]["pass@1"], (0.2 + 1.0) / 2.0),
        "{report}"
    );
    let again: Vec<Value> = std::fs::read_to_string(&per_sample)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .collect();
    let key = |s: &Value| {
        (
            s["id"].clone(),
            s["sample"].clone(),
            s["outcome"].clone(),
            s["failing_tests"].clone(),
        )
    };
    assert_eq!(
        again.iter().map(key).collect::<Vec<_>>(),
        samples.iter().map(key).collect::<Vec<_>>(),
        "-j 1 and -j 2 differ"
    );
    let marked: Vec<(String, Value)> = again
        .iter()
        .map(|s| {
            (
                s["id"].as_str().unwrap().to_string(),
                s["task_valid"].clone(),
            )
        })
        .collect();
    assert_eq!(marked.len(), 8);
    for (sid, valid) in marked {
        assert_eq!(valid, json!(sid != id("square")), "{sid}");
    }

    // The table names every k; an id the output does not know is refused by name.
    std::fs::write(&preds, format!("{}\n", lines[1])).unwrap();
    let table = codemine(&args[..args.len() - 3], &cache());
    assert_success(&table);
    let text = String::from_utf8_lossy(&table.stdout);
    assert!(
        text.contains("pass@1") && text.contains("repository=geometry"),
        "{text}"
    );
    std::fs::write(
        &preds,
        "{\"id\": \"0123456789ABCDEF\", \"prediction\": \"pass\"}\n",
    )
    .unwrap();
    let bad = codemine(&args, &cache());
    assert!(!bad.status.success());
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(err.contains("0123456789ABCDEF"), "{err}");
}

/// A C project whose tests a manifest recipe lists and runs, rebuilding what changed, so a
/// sample in `src/calc.c` is compiled into the test binaries. Samples are whole functions.
/// No network: the setup is `make`.
#[test]
fn c_samples_through_a_recipe_that_rebuilds() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("calc-passk");
    let mut r = RepoBuilder::init(&repo);
    r.write("src/calc.c", CALC_C)
        .write("tests/test_add.c", TEST_ADD_C)
        .write("tests/test_mul.c", TEST_MUL_C)
        .write("Makefile", MAKEFILE);
    r.commit("calc");
    let manifest = tmp.path().join("repos.toml");
    std::fs::write(
        &manifest,
        format!(
            "[[repos]]\nurl = {:?}\n\n[repos.tests]\nlanguage = \"c\"\nsetup = [\"make CC='cc --coverage -O0'\"]\nlist = \"printf 'test_add\\\\ntest_mul\\\\n'\"\ntest = \"make -s {{tests}} >&2 && ./{{tests}}\"\n",
            repo.to_str().unwrap()
        ),
    )
    .unwrap();
    let out = tmp.path().join("out");
    let m = manifest.to_str().unwrap();
    let mined = codemine(
        &[
            "mine",
            "--manifest",
            m,
            "--out",
            out.to_str().unwrap(),
            "--run-tests",
            "--no-dedup",
        ],
        &cache(),
    );
    assert_success(&mined);
    let add = shard_rows(&out.join("yabloco"))
        .into_iter()
        .find(|r| r["meta"]["fname"] == "add")
        .expect("a YABLoCo row for add");
    assert_eq!(
        add["meta"]["covering_tests"],
        json!(["test_add", "test_mul"])
    );
    let id = add["meta"]["original_id"].as_str().unwrap().to_string();
    let gold = add["outputs"].as_str().unwrap();
    let samples = [
        gold,
        // The stub: every call is wrong.
        "int add(int a, int b) {\n    return 0;\n}",
        // Wrong only when a is 0: add(2, 3) is still 5, mul(3, 4) starts from add(0, 3).
        "int add(int a, int b) {\n    return a == 0 ? b + 1 : a + b;\n}",
        // Never ends.
        "int add(int a, int b) {\n    for (;;) {}\n}",
        // Does not compile: C has no syntax check yet, the build in the test command fails.
        "int add(int a, int b) {\n    return a + ;\n}",
    ];
    let preds = tmp.path().join("predictions.jsonl");
    std::fs::write(
        &preds,
        format!("{}\n", json!({"id": id, "samples": samples})),
    )
    .unwrap();
    let per_sample = tmp.path().join("samples.jsonl");
    let args = [
        "eval",
        out.to_str().unwrap(),
        "--execute",
        "-p",
        preds.to_str().unwrap(),
        "--timeout",
        "2",
        "--per-sample",
        per_sample.to_str().unwrap(),
        "--json",
    ];
    // Without the manifest, the environment (keyed by its recipe) is not found: every
    // sample is an error that says why.
    let o = codemine(&args, &cache());
    assert_success(&o);
    let rows: Vec<Value> = std::fs::read_to_string(&per_sample)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(rows.iter().all(|r| r["outcome"] == "error"), "{rows:#?}");
    assert!(
        rows[0]["reason"].as_str().unwrap().contains("--manifest"),
        "{}",
        rows[0]
    );

    let mut with_manifest = args.to_vec();
    with_manifest.extend(["--manifest", m]);
    let o = codemine(&with_manifest, &cache());
    assert_success(&o);
    let rows: Vec<Value> = std::fs::read_to_string(&per_sample)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let got: Vec<(&str, Vec<&str>)> = rows
        .iter()
        .map(|r| {
            (
                r["outcome"].as_str().unwrap(),
                r["failing_tests"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|t| t.as_str().unwrap())
                    .collect(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("pass", vec![]),
            ("fail", vec!["test_add", "test_mul"]),
            ("fail", vec!["test_mul"]),
            ("timeout", vec!["test_add", "test_mul"]),
            ("fail", vec!["test_add", "test_mul"]),
        ],
        "{rows:#?}"
    );
    // n = 5, c = 1: pass@1 = 1/5, pass@5 = 1.
    let report: Value = serde_json::from_slice(&o.stdout).unwrap();
    let p = &report["by_language"]["c"]["pass_at"];
    assert!(
        (p["pass@1"].as_f64().unwrap() - 0.2).abs() < 1e-12,
        "{report}"
    );
    assert_eq!(p["pass@5"], 1.0);

    // The C stub (`__builtin_trap()`) fails both tests; the original passes.
    std::fs::write(
        &preds,
        format!("{}\n", json!({"id": id, "prediction": gold})),
    )
    .unwrap();
    with_manifest.push("--validate");
    let o = codemine(&with_manifest, &cache());
    assert_success(&o);
    let report: Value = serde_json::from_slice(&o.stdout).unwrap();
    let v = &report["validation"][0];
    assert_eq!(
        (&v["gold"], &v["stub"], &v["valid"]),
        (&json!("pass"), &json!("fail"), &json!(true)),
        "{report}"
    );
}
