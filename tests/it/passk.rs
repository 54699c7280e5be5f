//! `eval --execute` end to end (issue 32): the Python fixture of `run_tests` (geometry), with
//! one more function whose only test fails, is mined with `--run-tests`, then samples written
//! here by hand are scored by running each function's covering tests in the sandbox: the gold
//! function passes, a stub fails, a body wrong in one case fails exactly the covering test
//! that checks that case, a syntax error is `syntax_error`, an endless loop `timeout`; a
//! covering test that failed in the mining run's suite is not run, and a function whose
//! covering tests all failed there is `error`; pass@k equals values computed by hand.
//!
//! Slow (not in `scripts/test.sh --fast`): it shares `run_tests`' cache, whose geometry
//! environment is prepared once (pytest and coverage from PyPI, inside the sandbox).

use std::collections::BTreeMap;

use harness::{assert_success, codemine, read_graph, shard_rows, RepoBuilder};
use serde_json::{json, Value};

use crate::run_tests::{
    cache, CALC_C, MAKEFILE, PYPROJECT, SHAPES_PY, TEST_ADD_C, TEST_MUL_C, TEST_SHAPES_PY,
};

/// geometry (run_tests' fixture), `cube`, whose one covering test fails on the original,
/// and a top-level call.
fn python_repo(dir: &std::path::Path) {
    let mut r = RepoBuilder::init(dir);
    r.write("pyproject.toml", PYPROJECT)
        .write("geometry/__init__.py", "")
        .write(
            "geometry/shapes.py",
            // Top-level code with a call: the module is a call-graph node of its own.
            format!("{SHAPES_PY}\n\ndef cube(x):\n    \"\"\"Volume of a cube.\"\"\"\n    return x * x * x\n\n\nTAU = float(6.28)\n"),
        )
        .write(
            "tests/test_shapes.py",
            format!("{TEST_SHAPES_PY}\n\ndef test_cube_wrong():\n    from geometry.shapes import cube\n    assert cube(2) == 9\n"),
        );
    r.commit("geometry");
}

/// Mines `repo` into `out` with its suite run (`--run-tests --no-dedup`); its YABLoCo rows
/// by `meta.fname`.
fn mine_with_tests(repo: &std::path::Path, out: &std::path::Path) -> BTreeMap<String, Value> {
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
    shard_rows(&out.join("yabloco"))
        .into_iter()
        .map(|r| (r["meta"]["fname"].as_str().unwrap().to_string(), r))
        .collect()
}

/// `args` with the argument `from` replaced by `to`.
fn replace_arg<'a>(args: &[&'a str], from: &str, to: &'a str) -> Vec<&'a str> {
    args.iter()
        .map(|&a| if a == from { to } else { a })
        .collect()
}

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
    // The module's top-level code runs under every test that imports it, but it is no
    // function: a prediction for it is refused as no task.
    let graph = read_graph(&out);
    let module = graph["code_nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["kind"] == "module" && n["path"] == "geometry/shapes.py")
        .expect("the module node");
    assert!(!module["covering_tests"].as_array().unwrap().is_empty());
    let preds = tmp.path().join("module.jsonl");
    let module_id = format!("{:016X}", module["id"].as_u64().unwrap());
    std::fs::write(
        &preds,
        format!("{{\"id\": \"{module_id}\", \"prediction\": \"pass\"}}\n"),
    )
    .unwrap();
    let refused = codemine(
        &[
            "eval",
            out.to_str().unwrap(),
            "--execute",
            "-p",
            preds.to_str().unwrap(),
        ],
        &cache(),
    );
    assert!(!refused.status.success());
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(err.contains("no function with covering tests"), "{err}");

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
        // One of square's covering tests, test_wrong, fails in the mining run's suite
        // anyway: it is not run, so the gold body passes.
        json!({"id": id("square"), "samples": ["return x * x", "return x + x"]}),
        // cube's one covering test fails anyway: nothing can score it.
        json!({"id": id("cube"), "samples": ["return x ** 3"]}),
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
    // square(3) == 9 catches x + x (test_square); test_rectangle_square's square(2) does
    // not, test_circle's square(1) does.
    assert_eq!(outcomes("square"), ["pass", "fail"]);
    assert!(failing("square", 0).is_empty());
    assert_eq!(failing("square", 1), [t("test_circle"), t("test_square")]);
    assert_eq!(outcomes("cube"), ["error"]);
    let cube = &of("cube")[0];
    let why = cube["reason"].as_str().unwrap();
    assert!(
        why.contains("failed in the mining run's own suite") && why.contains("test_cube_wrong"),
        "{cube}"
    );
    for s in &samples {
        assert_eq!(s["repository"], "geometry");
        assert_eq!(s["language"], "python");
        assert!(s["seconds"].as_f64().unwrap() > 0.0);
    }

    // pass@k by hand: rectangle n=5, c=1; Circle.area n=1, c=1; square n=2, c=1; cube
    // n=1, c=0. pass@1 = c/n: (1/5 + 1 + 1/2 + 0) / 4. pass@2: rectangle 1 - C(4,2)/C(5,2)
    // = 1 - 6/10, square 1 - C(1,2)/C(2,2) = 1, over those two. pass@5: rectangle alone,
    // 1 - C(4,5)/C(5,5) = 1. pass@10: no task has 10 samples.
    let overall = &report["overall"];
    let close = |v: &Value, want: f64| (v.as_f64().unwrap() - want).abs() < 1e-12;
    assert!(
        close(&overall["pass_at"]["pass@1"], (0.2 + 1.0 + 0.5) / 4.0),
        "{report}"
    );
    assert!(close(&overall["pass_at"]["pass@2"], 1.4 / 2.0), "{report}");
    assert!(close(&overall["pass_at"]["pass@5"], 1.0), "{report}");
    assert!(overall["pass_at"].get("pass@10").is_none(), "{report}");
    assert_eq!(overall["pass_at_tasks"]["pass@2"], 2);
    assert_eq!(overall["tasks"], 4);
    assert_eq!(overall["samples"], 9);
    assert_eq!(
        overall["outcomes"],
        json!({"pass": 3, "fail": 3, "syntax_error": 1, "timeout": 1, "error": 1})
    );
    assert_eq!(
        report["by_repository"]["geometry"]["pass_at"],
        overall["pass_at"]
    );
    assert_eq!(
        report["by_language"]["python"]["pass_at"],
        overall["pass_at"]
    );

    // Killed part way (SIGKILL, one worker), then run again: the rerun resumes from the
    // journal next to its per-sample file, runs only what the killed run had not finished,
    // and gives what the uninterrupted run gave.
    let resumed = tmp.path().join("resumed.jsonl");
    let journal = tmp.path().join("resumed.jsonl.journal");
    let resumed_args = replace_arg(
        &args,
        per_sample.to_str().unwrap(),
        resumed.to_str().unwrap(),
    );
    let mut child = std::process::Command::new(harness::binary())
        .args(&resumed_args)
        .args(["-j", "1"])
        .env("CODEMINE_CACHE", cache())
        .env("CI", "1")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // The journal's first line names the run; two more are two finished jobs.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(300);
    loop {
        let lines = std::fs::read_to_string(&journal)
            .map(|t| t.lines().count())
            .unwrap_or(0);
        if lines >= 3 {
            break;
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended before two jobs were journaled"
        );
        assert!(
            std::time::Instant::now() < deadline,
            "no journal after 300 s"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(!resumed.exists(), "a killed run left a per-sample file");
    let journaled = std::fs::read_to_string(&journal).unwrap().lines().count() - 1;
    assert!((2..9).contains(&journaled), "{journaled} jobs journaled");
    let o = codemine(&resumed_args, &cache());
    assert_success(&o);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(&format!("resuming: {journaled} of 9 jobs")),
        "{err}"
    );
    assert!(!journal.exists(), "the journal outlived its run");
    let resumed_rows: Vec<Value> = std::fs::read_to_string(&resumed)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let same = |s: &Value| {
        let mut s = s.clone();
        let o = s.as_object_mut().unwrap();
        // The time a run took and the tail of its log are the run's own.
        o.remove("seconds");
        o.remove("log_tail");
        // pytest's reprs name objects by address, which differs between any two runs.
        if let Some(r) = o
            .get_mut("reason")
            .and_then(|r| r.as_str().map(str::to_string))
        {
            let mut clean = String::new();
            let mut rest = r.as_str();
            while let Some(at) = rest.find("0x") {
                clean.push_str(&rest[..at + 2]);
                rest = rest[at + 2..].trim_start_matches(|c: char| c.is_ascii_hexdigit());
            }
            clean.push_str(rest);
            o.insert("reason".into(), Value::String(clean));
        }
        s
    };
    assert_eq!(
        resumed_rows.iter().map(same).collect::<Vec<_>>(),
        samples.iter().map(same).collect::<Vec<_>>(),
        "the resumed run differs from the uninterrupted one"
    );
    let resumed_report: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(resumed_report["overall"], report["overall"]);

    // --validate: the original must pass and a stub must not. cube has no test left, so it
    // is not valid; --valid-only scores rectangle, Circle.area and square:
    // pass@1 = (1/5 + 1 + 1/2) / 3.
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&preds, text).unwrap();
    // This time the per-sample table is Parquet, read back by pyarrow: the same fields.
    let table_dir = tmp.path().join("per-sample");
    std::fs::create_dir(&table_dir).unwrap();
    let table = table_dir.join("samples.parquet");
    let mut validate = replace_arg(&args, per_sample.to_str().unwrap(), table.to_str().unwrap());
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
            (id("square"), (json!("pass"), json!("fail"), json!(true))),
            (id("cube"), (json!("error"), json!("error"), json!(false))),
        ])
    );
    let overall = &report["overall"];
    assert_eq!(report["valid_only"], true);
    assert_eq!(overall["tasks"], 3);
    assert!(
        close(&overall["pass_at"]["pass@1"], (0.2 + 1.0 + 0.5) / 3.0),
        "{report}"
    );
    let shards = harness::read_shards(&table_dir);
    assert_eq!(shards.as_object().unwrap().len(), 1, "{shards}");
    let names = |row: &Value| -> Vec<String> {
        row.as_object().unwrap().keys().cloned().collect::<Vec<_>>()
    };
    let schema: Vec<String> = shards["samples.parquet"]["schema"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f[0].as_str().unwrap().to_string())
        .collect();
    // The JSON lines' fields, in their order (serde_json keeps it: preserve_order is off,
    // so compare as sets and the Parquet order against the documented one).
    let mut json_fields = names(&samples[0]);
    json_fields.sort();
    let mut parquet_fields = schema.clone();
    parquet_fields.sort();
    assert_eq!(parquet_fields, json_fields);
    assert_eq!(
        schema,
        [
            "id",
            "sample",
            "repository",
            "language",
            "outcome",
            "seconds",
            "failing_tests",
            "reason",
            "log_tail",
            "task_valid",
            "category",
            "exact_match"
        ]
    );
    let again: Vec<Value> = shards["samples.parquet"]["rows"]
        .as_array()
        .unwrap()
        .clone();
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
    assert_eq!(marked.len(), 9);
    for (sid, valid) in marked {
        assert_eq!(valid, json!(sid != id("cube")), "{sid}");
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

/// A JavaScript package with mocha (testrun's fixture, with JSDoc so that its functions
/// are YABLoCo rows): a function declaration, a method and an arrow function.
const UTIL_JS: &str = "\
/** Adds one to x. */
function inc(x) {
  return x + 1;
}

/** The larger of a and b. */
function max({ a, b }) {
  return a > b ? a : b;
}

/** Twice x. */
const twice = (x) => 2 * x;

class Counter {
  /** Counts one more. */
  step() {
    this.n = (this.n || 0) + 1;
    return this.n;
  }
}

module.exports = { inc, max, twice, Counter };
";
const JS_TEST: &str = "\
const assert = require('assert');
const { inc, max, twice, Counter } = require('../lib/util');
describe('util', () => {
  it('inc adds one', () => assert.strictEqual(inc(1), 2));
  it('max', () => assert.strictEqual(max({ a: 1, b: 3 }), 3));
  it('twice', () => assert.strictEqual(twice(4), 8));
  it('step', () => assert.strictEqual(new Counter().step(), 1));
});
";
const JS_INC_TEST: &str = "\
const assert = require('assert');
const { inc } = require('../lib/util');
describe('inc', () => {
  it('of zero', () => assert.strictEqual(inc(0), 1));
});
";
const JS_PACKAGE: &str = r#"{
  "name": "util-passk",
  "version": "1.0.0",
  "private": true,
  "scripts": { "test": "mocha" },
  "devDependencies": { "mocha": "10.4.0" }
}
"#;

/// `--validate` in JavaScript: the original of each function passes its covering tests,
/// the stub (`throw new Error(...)` as the body; an expression that throws for the arrow)
/// fails them; a body wrong for one input fails exactly the test file that checks it.
#[test]
fn javascript_tasks_are_validated_with_a_stub_that_throws() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("util-passk");
    let mut r = RepoBuilder::init(&repo);
    r.write("package.json", JS_PACKAGE)
        .write("lib/util.js", UTIL_JS)
        .write("test/util.test.js", JS_TEST)
        .write("test/inc.test.js", JS_INC_TEST);
    r.commit("util");
    let out = tmp.path().join("out");
    let rows = mine_with_tests(&repo, &out);
    let covering = |name: &str| rows[name]["meta"]["covering_tests"].clone();
    assert_eq!(
        covering("inc"),
        json!(["test/inc.test.js", "test/util.test.js"]),
        "{rows:#?}"
    );
    assert_eq!(covering("max"), json!(["test/util.test.js"]));
    // Line coverage as c8 counts it (v8-to-istanbul): a line is not run only when a range
    // that was not run spans all of it. Loading the module runs the arrow function's line
    // and the method's first line (its range starts after the indentation), so both are
    // covered by either file; `max`'s range starts at column 0.
    for name in ["twice", "Counter.step"] {
        assert_eq!(
            covering(name),
            json!(["test/inc.test.js", "test/util.test.js"]),
            "{name}"
        );
    }
    let id = |name: &str| rows[name]["meta"]["original_id"].as_str().unwrap();
    let preds = tmp.path().join("predictions.jsonl");
    let lines = [
        // Wrong for 0 only: inc(1) is still 2.
        json!({"id": id("inc"), "samples": [
            "function inc(x) {\n  return x === 0 ? 2 : x + 1;\n}"
        ]}),
        json!({"id": id("max"), "prediction": rows["max"]["outputs"]}),
        json!({"id": id("twice"), "prediction": "const twice = (x) => x + x;"}),
        json!({"id": id("Counter.step"), "prediction": rows["Counter.step"]["outputs"]}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&preds, text).unwrap();
    let per_sample = tmp.path().join("samples.jsonl");
    let o = codemine(
        &[
            "eval",
            out.to_str().unwrap(),
            "--execute",
            "-p",
            preds.to_str().unwrap(),
            "--timeout",
            "20",
            "--per-sample",
            per_sample.to_str().unwrap(),
            "--validate",
            "--json",
        ],
        &cache(),
    );
    assert_success(&o);
    let report: Value = serde_json::from_slice(&o.stdout).unwrap();
    let validation: BTreeMap<String, &Value> = report["validation"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| (v["id"].as_str().unwrap().to_string(), v))
        .collect();
    for name in ["inc", "max", "twice", "Counter.step"] {
        let v = validation[id(name)];
        assert_eq!(
            (&v["gold"], &v["stub"], &v["valid"]),
            (&json!("pass"), &json!("fail"), &json!(true)),
            "{name}: {report:#}"
        );
    }
    let samples: BTreeMap<String, Value> = std::fs::read_to_string(&per_sample)
        .unwrap()
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            (v["id"].as_str().unwrap().to_string(), v)
        })
        .collect();
    let inc = &samples[id("inc")];
    assert_eq!(inc["outcome"], "fail", "{inc}");
    assert_eq!(inc["failing_tests"], json!(["test/inc.test.js"]), "{inc}");
    for name in ["max", "twice", "Counter.step"] {
        assert_eq!(samples[id(name)]["outcome"], "pass", "{name}: {samples:#?}");
        assert_eq!(samples[id(name)]["language"], "javascript");
    }
}

/// A CMake project as codemine detects it (no recipe), built with `-Werror`: a static
/// helper that only `scale` calls, and a parameter only its body reads.
const SCALE_C: &str = "\
static int twice(int v) {
    return 2 * v;
}
int scale(int x, int k) {
    return twice(x) * k;
}
int add(int a, int b) {
    return a + b;
}
";
const SCALE_CMAKE: &str = "\
cmake_minimum_required(VERSION 3.13)
project(scale C)
set(CMAKE_C_FLAGS \"${CMAKE_C_FLAGS} -Wall -Wextra -Werror\")
enable_testing()
add_library(scale src/scale.c)
add_executable(test_scale tests/test_scale.c)
target_link_libraries(test_scale scale)
add_executable(test_add tests/test_add.c)
target_link_libraries(test_add scale)
add_test(NAME scales COMMAND test_scale)
add_test(NAME adds COMMAND test_add)
";

/// ctest runs what is built, so each sample is built into the tests first: a wrong body
/// fails the test that checks it, one that does not compile is `syntax_error` with the
/// compiler's message, and under `-Werror` the stub still builds (it keeps the static
/// helper and the parameters used) and fails.
#[test]
fn c_cmake_samples_are_built_and_one_that_does_not_compile_is_a_syntax_error() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("scale-cmake");
    let mut r = RepoBuilder::init(&repo);
    r.write("CMakeLists.txt", SCALE_CMAKE)
        .write("src/scale.c", SCALE_C)
        .write(
            "tests/test_scale.c",
            "int scale(int x, int k);\nint main(void) {\n    return scale(3, 2) == 12 ? 0 : 1;\n}\n",
        )
        .write("tests/test_add.c", TEST_ADD_C);
    r.commit("scale");
    let out = tmp.path().join("out");
    let rows = mine_with_tests(&repo, &out);
    let scale = &rows["scale"];
    assert_eq!(
        scale["meta"]["covering_tests"],
        json!(["scales"]),
        "{rows:#?}"
    );
    assert_eq!(rows["add"]["meta"]["covering_tests"], json!(["adds"]));
    let id = scale["meta"]["original_id"].as_str().unwrap();
    let samples = [
        scale["outputs"].as_str().unwrap(),
        // 6 + 2 = 8, not 12 (and `twice` is still used: -Werror would reject it unused).
        "int scale(int x, int k) {\n    return twice(x) + k;\n}",
        "int scale(int x, int k) {\n    return x * ;\n}",
    ];
    let preds = tmp.path().join("predictions.jsonl");
    std::fs::write(
        &preds,
        format!("{}\n", json!({"id": id, "samples": samples})),
    )
    .unwrap();
    let per_sample = tmp.path().join("samples.jsonl");
    let o = codemine(
        &[
            "eval",
            out.to_str().unwrap(),
            "--execute",
            "-p",
            preds.to_str().unwrap(),
            "--timeout",
            "20",
            "--per-sample",
            per_sample.to_str().unwrap(),
            "--validate",
            "--json",
        ],
        &cache(),
    );
    assert_success(&o);
    let report: Value = serde_json::from_slice(&o.stdout).unwrap();
    let v = &report["validation"][0];
    assert_eq!(
        (&v["gold"], &v["stub"], &v["valid"]),
        (&json!("pass"), &json!("fail"), &json!(true)),
        "{report:#}"
    );
    let rows: Vec<Value> = std::fs::read_to_string(&per_sample)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let outcomes: Vec<&str> = rows
        .iter()
        .map(|r| r["outcome"].as_str().unwrap())
        .collect();
    assert_eq!(outcomes, ["pass", "fail", "syntax_error"], "{rows:#?}");
    assert_eq!(rows[1]["failing_tests"], json!(["scales"]));
    let reason = rows[2]["reason"].as_str().unwrap();
    assert!(reason.contains("expected expression"), "{reason}");
}

/// `mine --run-tests --validate-tasks`: the verdicts `eval --validate` gives, in the
/// `tasks` table, for every kept function with covering tests outside the test files.
/// By hand: each function of `geometry/shapes.py` that a passing test calls passes them
/// as mined and fails them as `raise NotImplementedError`; `cube`'s one covering test
/// fails in the suite itself, so nothing can judge it; `unused` has no covering test;
/// the functions of `tests/test_shapes.py` are the tests.
#[test]
fn mine_validate_tasks_writes_the_verdicts() {
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
            "--validate-tasks",
            "--no-dedup",
        ],
        &cache(),
    );
    assert_success(&mined);
    let yabloco: BTreeMap<String, String> = shard_rows(&out.join("yabloco"))
        .into_iter()
        .map(|r| {
            (
                r["meta"]["original_id"].as_str().unwrap().to_string(),
                r["meta"]["fname"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let tasks: BTreeMap<String, Value> = shard_rows(&out.join("tasks"))
        .into_iter()
        .map(|r| {
            let name = yabloco[r["id"].as_str().unwrap()].clone();
            (name, r)
        })
        .collect();
    let names: Vec<&str> = tasks.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        [
            "Circle.__init__",
            "Circle.area",
            "cube",
            "rectangle",
            "square"
        ],
        "{tasks:#?}"
    );
    for name in ["Circle.__init__", "Circle.area", "rectangle", "square"] {
        let r = &tasks[name];
        assert_eq!(
            (&r["gold"], &r["stub"], &r["valid"]),
            (&json!("pass"), &json!("fail"), &json!(true)),
            "{name}: {r:#}"
        );
        assert_eq!(r["path"], "geometry/shapes.py");
    }
    // square's covering test test_wrong fails in the suite: it is not one of the task's.
    assert_eq!(
        tasks["square"]["tests"],
        json!([
            t("test_circle"),
            t("test_rectangle_square"),
            t("test_square")
        ])
    );
    let cube = &tasks["cube"];
    assert_eq!(
        (&cube["gold"], &cube["valid"]),
        (&json!("error"), &json!(false))
    );
    assert!(
        cube["reason"].as_str().unwrap().contains("test_cube_wrong"),
        "{cube:#}"
    );
    let stats: Value =
        serde_json::from_slice(&std::fs::read(out.join("stats.json")).unwrap()).unwrap();
    let v = &stats["stages"]["tests"]["tasks"];
    assert_eq!(
        (
            &v["validated"],
            &v["gold_passed"],
            &v["stub_failed"],
            &v["valid"]
        ),
        (&json!(5), &json!(4), &json!(5), &json!(4)),
        "{v}"
    );
    assert_eq!(stats["stages"]["write"]["tasks_rows"], 5);
    let card = std::fs::read_to_string(out.join("README.md")).unwrap();
    assert!(card.contains("config_name: tasks"), "{card}");
    assert!(
        card.contains("5 functions with covering tests validated"),
        "{card}"
    );
}
