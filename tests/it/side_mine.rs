//! SIDE curation in `codemine mine` (issue 17): `--side-model DIR` scores the (code,
//! docstring) pairs that survive the filters and dedup, `--min-side F` (TOML `min_side`)
//! drops those below F as a funnel rule.
//!
//! Expected scores come from `side/tests/data/reference.json`, which transformers computed
//! with SIDE's reference recipe on the committed tiny checkpoint (side/tests/make_tiny_model.py):
//! the fixture's Java methods are exactly that file's `pop()` and `add()` cases, so the mined
//! pairs must score what transformers scored. Shards are read back by pyarrow.

use std::path::{Path, PathBuf};
use std::process::Command;

use harness::{
    assert_success, binary, codemine, mine_into, python_json, read_shards, shard_rows, stats,
    workspace_root, RepoBuilder,
};
use serde_json::Value;

/// SIDE's README example, as reference.json has it (the method at column 0 of its class).
const POP: &str = "public Object pop() throws EmptyStackException {\n  try {\n    Object aObject = this.stackElements.get(stackElements.size() - 1);\n    stackElements.remove(stackElements.size() - 1);\n    return aObject;\n  } catch (Exception e) {\n    throw new EmptyStackException(e);\n  }\n}";
const ADD: &str = "static int add(int a, int b) { return a + b; }";

fn model() -> PathBuf {
    workspace_root().join("side/tests/data/tiny-st")
}

/// The transformers score of the reference case with this code and summary.
fn reference(code: &str, summary: &str) -> f64 {
    let path = workspace_root().join("side/tests/data/reference.json");
    let r: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    let case = r["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["code"] == code && p["summary"] == summary)
        .unwrap_or_else(|| panic!("no reference case for {summary:?}"));
    case["side"].as_f64().unwrap()
}

fn stack_java() -> String {
    format!(
        "class Stack {{\n/** pop the top of the stack */\n{POP}\n/** Adds two integers. */\n{ADD}\nint size() {{ return 0; }}\n}}\n"
    )
}

/// Stack.java (pop, add, an undocumented size) committed after Old.java, whose `add` is an
/// exact copy with another docstring: dedup keeps the newer one (Stack.add).
fn fixture(dir: &Path) -> PathBuf {
    let path = dir.join("stack");
    let mut b = RepoBuilder::init(&path);
    b.write(
        "src/Old.java",
        format!("class Old {{\n/** Sums two numbers. */\n{ADD}\n}}\n"),
    );
    b.commit("old");
    b.write("src/Stack.java", stack_java());
    b.commit("stack");
    path
}

fn node<'a>(nodes: &'a [Value], path: &str, name: &str) -> &'a Value {
    nodes
        .iter()
        .find(|n| n["path"] == path && n["qualified_name"] == name)
        .unwrap_or_else(|| panic!("no node {path}:{name}"))
}

fn close(got: &Value, want: f64) -> bool {
    got.as_f64().is_some_and(|g| (g - want).abs() <= 1e-5)
}

/// The CSN summary SIDE reads ("Adds two integers ." from CSN's docstring tokens) is the
/// reference's text to the model: the same token ids.
#[test]
fn the_mined_summary_tokenizes_as_the_reference_summary() {
    let side = codemine_side::Side::load(&model()).unwrap();
    assert_eq!(
        side.token_ids("Adds two integers .").unwrap(),
        side.token_ids("Adds two integers.").unwrap()
    );
}

#[test]
fn csn_rows_and_nodes_get_the_reference_scores() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = fixture(tmp.path());
    let out = mine_into(
        &repo,
        tmp.path(),
        &["--side-model", model().to_str().unwrap()],
    );
    let shards = read_shards(&out.join("csn"));
    for (name, shard) in shards.as_object().unwrap() {
        let fields: Vec<&str> = shard["schema"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f[0].as_str().unwrap())
            .collect();
        assert_eq!(fields.last(), Some(&"side_score"), "{name}: {fields:?}");
        let ty = shard["schema"].as_array().unwrap().last().unwrap()[1].clone();
        assert_eq!(ty, "float", "{name}");
    }
    let rows = shard_rows(&out.join("csn"));
    assert_eq!(rows.len(), 2, "pop and the kept add: {rows:?}");
    let pop = rows.iter().find(|r| r["func_name"] == "Stack.pop").unwrap();
    let add = rows.iter().find(|r| r["func_name"] == "Stack.add").unwrap();
    assert_eq!(pop["code"], POP);
    assert_eq!(add["code"], ADD);
    let (want_pop, want_add) = (
        reference(POP, "pop the top of the stack"),
        reference(ADD, "Adds two integers."),
    );
    assert!(
        close(&pop["side_score"], want_pop),
        "{} vs {want_pop}",
        pop["side_score"]
    );
    assert!(
        close(&add["side_score"], want_add),
        "{} vs {want_add}",
        add["side_score"]
    );

    let nodes = shard_rows(&out.join("callgraph/nodes"));
    let nodes: Vec<Value> = nodes
        .into_iter()
        .filter(|n| n.get("kind").is_some())
        .collect();
    assert!(close(
        &node(&nodes, "src/Stack.java", "Stack.pop")["side_score"],
        want_pop
    ));
    assert!(close(
        &node(&nodes, "src/Stack.java", "Stack.add")["side_score"],
        want_add
    ));
    // No docstring: no pair.
    assert!(node(&nodes, "src/Stack.java", "Stack.size")["side_score"].is_null());
    // Removed by dedup before scoring.
    let old = node(&nodes, "src/Old.java", "Old.add");
    assert!(!old["duplicate_of"].is_null(), "{old}");
    assert!(old["side_score"].is_null(), "{old}");

    // The documented promise: `codemine eval -m side_reference` on the published rows
    // gives each row's side_score.
    let per_example = tmp.path().join("per-example.jsonl");
    let res = codemine(
        &[
            "eval",
            out.to_str().unwrap(),
            "--split",
            "all",
            "--prediction-column",
            "docstring",
            "-m",
            "side_reference",
            "--side-model",
            model().to_str().unwrap(),
            "--per-example",
            per_example.to_str().unwrap(),
        ],
        &tmp.path().join("cache"),
    );
    assert_success(&res);
    let lines = std::fs::read_to_string(&per_example).unwrap();
    assert_eq!(lines.lines().count(), 2);
    for line in lines.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        let row = rows.iter().find(|r| r["url"] == v["id"]).unwrap();
        assert!(
            close(&row["side_score"], v["side_reference"].as_f64().unwrap()),
            "{v}"
        );
    }

    let s = stats(&out);
    let side = &s["stages"]["side"];
    assert_eq!(side["model"], "tiny-st");
    assert_eq!(side["pairs"], 2);
    assert_eq!(side["dropped_min_side"], 0);
    assert!(side["pairs_per_s"].as_f64().unwrap() > 0.0);
    assert!(s["stages"]["filter"]["removed"].get("min_side").is_none());

    // The card declares the scored column, so the real `datasets` loads the CSN config
    // (it refuses files with a column the features do not name).
    let got = python_json(
        r#"
import json, os, sys
os.environ["HF_DATASETS_OFFLINE"] = "1"
os.environ["HF_HOME"] = sys.argv[2]
import datasets
d = datasets.load_dataset(sys.argv[1], "csn")
print(json.dumps({split: [ds.num_rows, ds.features["side_score"].dtype]
                  for split, ds in d.items()}))
"#,
        &[
            out.to_str().unwrap(),
            tmp.path().join("hf").to_str().unwrap(),
        ],
    );
    let loaded: u64 = got
        .as_object()
        .unwrap()
        .values()
        .map(|v| {
            assert_eq!(v[1], "float32", "{got}");
            v[0].as_u64().unwrap()
        })
        .sum();
    assert_eq!(loaded, 2, "{got}");
}

#[test]
fn min_side_drops_the_pairs_below_it_as_a_funnel_rule() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = fixture(tmp.path());
    let (pop, add) = (
        reference(POP, "pop the top of the stack"),
        reference(ADD, "Adds two integers."),
    );
    // A threshold between the two scores, from the TOML key.
    assert!(pop < add);
    let threshold = (pop + add) / 2.0;
    let config = tmp.path().join("filters.toml");
    std::fs::write(&config, format!("min_side = {threshold}\n")).unwrap();
    let out = mine_into(
        &repo,
        tmp.path(),
        &[
            "--side-model",
            model().to_str().unwrap(),
            "--filter-config",
            config.to_str().unwrap(),
            "--explain",
        ],
    );
    let rows = shard_rows(&out.join("csn"));
    let names: Vec<&str> = rows
        .iter()
        .map(|r| r["func_name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Stack.add"]);
    assert!(close(&rows[0]["side_score"], add));

    let yabloco = shard_rows(&out.join("yabloco"));
    let fnames: Vec<&str> = yabloco
        .iter()
        .map(|r| r["meta"]["fname"].as_str().unwrap())
        .collect();
    assert!(!fnames.contains(&"Stack.pop"), "{fnames:?}");
    assert!(fnames.contains(&"Stack.add"), "{fnames:?}");

    let nodes = shard_rows(&out.join("callgraph/nodes"));
    let nodes: Vec<Value> = nodes
        .into_iter()
        .filter(|n| n.get("kind").is_some())
        .collect();
    let pop_node = node(&nodes, "src/Stack.java", "Stack.pop");
    assert_eq!(pop_node["dropped_by"], "min_side");
    assert!(close(&pop_node["side_score"], pop));
    assert!(node(&nodes, "src/Stack.java", "Stack.add")["dropped_by"].is_null());

    let dropped = shard_rows(&out.join("dropped"));
    let by_side: Vec<&Value> = dropped.iter().filter(|r| r["rule"] == "min_side").collect();
    assert_eq!(by_side.len(), 1, "{dropped:?}");
    let d = by_side[0];
    assert_eq!(d["qualified_name"], "Stack.pop");
    assert_eq!(d["path"], "src/Stack.java");
    assert_eq!(
        (d["start_line"].as_i64(), d["end_line"].as_i64()),
        (Some(3), Some(11))
    );
    assert_eq!(d["code"], POP);
    assert_eq!(d["docstring"], pop_node["docstring"]);

    let s = stats(&out);
    let f = &s["stages"]["filter"];
    assert_eq!(f["removed"]["min_side"], 1);
    assert_eq!(
        (f["input"].as_u64(), f["kept"].as_u64()),
        (Some(4), Some(3))
    );
    assert_eq!(f["by_language"]["java"]["removed"]["min_side"], 1);
    assert_eq!(f["by_repository"]["stack"]["removed"]["min_side"], 1);
    assert_eq!(f["rules"].as_array().unwrap().last().unwrap(), "min_side");
    assert_eq!(s["stages"]["side"]["dropped_min_side"], 1);
    assert_eq!(s["stages"]["write"]["dropped_rows"], 1);
    let total: u64 = s["stages"]["write"]["csn_rows"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_u64().unwrap())
        .sum();
    assert_eq!(total, 1);
}

#[test]
fn without_a_model_csn_keeps_its_shape_and_nodes_have_null_scores() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = fixture(tmp.path());
    let out = mine_into(&repo, tmp.path(), &[]);
    for (name, shard) in read_shards(&out.join("csn")).as_object().unwrap() {
        let fields: Vec<&str> = shard["schema"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f[0].as_str().unwrap())
            .collect();
        assert_eq!(
            fields,
            [
                "repo",
                "path",
                "func_name",
                "original_string",
                "language",
                "code",
                "code_tokens",
                "docstring",
                "docstring_tokens",
                "sha",
                "url",
                "partition"
            ],
            "{name}"
        );
    }
    let nodes = shard_rows(&out.join("callgraph/nodes"));
    let nodes: Vec<&Value> = nodes.iter().filter(|n| n.get("kind").is_some()).collect();
    assert_eq!(nodes.len(), 4);
    for n in nodes {
        assert!(n.as_object().unwrap().contains_key("side_score"), "{n}");
        assert!(n["side_score"].is_null(), "{n}");
    }
    assert!(stats(&out)["stages"].get("side").is_none());
}

#[test]
fn a_bad_model_folder_is_a_usage_error_naming_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = fixture(tmp.path());
    let out = tmp.path().join("out");
    let run = |extra: &[&str]| {
        let mut args = vec![
            "mine",
            "--repo",
            repo.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        codemine(&args, &tmp.path().join("cache"))
    };
    let missing = tmp.path().join("no-such-model");
    let res = run(&["--side-model", missing.to_str().unwrap()]);
    assert_eq!(res.status.code(), Some(2));
    let err = String::from_utf8_lossy(&res.stderr);
    assert!(
        err.contains(&missing.join("config.json").display().to_string()),
        "{err}"
    );
    assert!(!out.exists(), "nothing is mined before the model loads");

    // A folder without its tokenizer.
    let half = tmp.path().join("half");
    std::fs::create_dir_all(&half).unwrap();
    std::fs::copy(model().join("config.json"), half.join("config.json")).unwrap();
    let res = run(&["--side-model", half.to_str().unwrap()]);
    assert_eq!(res.status.code(), Some(2));
    let err = String::from_utf8_lossy(&res.stderr);
    assert!(err.contains("tokenizer.json"), "{err}");

    let res = run(&["--min-side", "0.5"]);
    assert_eq!(res.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&res.stderr).contains("--side-model"));
    let res = run(&[
        "--side-model",
        model().to_str().unwrap(),
        "--min-side",
        "1.5",
    ]);
    assert_eq!(res.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&res.stderr).contains("min_side"));
    assert!(!out.exists());
}

/// A run killed right after the SIDE step wrote its first scores resumes: the rerun scores
/// only the rest, and the output is the same.
#[test]
fn a_killed_side_step_resumes_after_its_last_scores() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = two_repositories(tmp.path());
    let out = tmp.path().join("out");
    let cache = tmp.path().join("cache");
    let model = model();
    let args = [
        "mine",
        "--repo",
        a.to_str().unwrap(),
        "--repo",
        b.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--side-model",
        model.to_str().unwrap(),
        "--checkpoint-repos",
        "1",
        "-j",
        "1",
    ];
    let traced = Command::new(binary())
        .args(args)
        .env("CODEMINE_CACHE", &cache)
        .env("CI", "1")
        .env("CODEMINE_FAULT_TRACE", "1")
        .output()
        .unwrap();
    assert_success(&traced);
    let trace = String::from_utf8_lossy(&traced.stderr);
    let first = trace
        .lines()
        .find(|l| l.ends_with(": side part written"))
        .and_then(|l| l.strip_prefix("codemine: fault point "))
        .and_then(|l| l.split(':').next())
        .unwrap_or_else(|| panic!("no side fault point in\n{trace}"))
        .to_string();
    assert_eq!(trace.matches(": side part written").count(), 2, "{trace}");
    std::fs::remove_dir_all(&out).unwrap();

    let killed = Command::new(binary())
        .args(args)
        .env("CODEMINE_CACHE", &cache)
        .env("CI", "1")
        .env("CODEMINE_FAULT", &first)
        .output()
        .unwrap();
    assert!(!killed.status.success());
    assert!(!out.join("stats.json").exists());
    let res = codemine(&args, &cache);
    assert_success(&res);
    let s = stats(&out);
    assert_eq!(
        (
            s["stages"]["side"]["pairs"].as_u64(),
            s["stages"]["side"]["scored"].as_u64()
        ),
        (Some(2), Some(1))
    );
    let rows = shard_rows(&out.join("csn"));
    let score =
        |name: &str| rows.iter().find(|r| r["func_name"] == name).unwrap()["side_score"].clone();
    assert!(close(
        &score("Stack.pop"),
        reference(POP, "pop the top of the stack")
    ));
    assert!(close(
        &score("Calc.add"),
        reference(ADD, "Adds two integers.")
    ));
}

/// The sharded flow: ranks record the model, `codemine finalize -j 1` runs the SIDE step
/// with it.
#[test]
fn finalize_scores_a_sharded_run() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = two_repositories(tmp.path());
    let out = tmp.path().join("out");
    let cache = tmp.path().join("cache");
    let model = model();
    for rank in ["0", "1"] {
        let res = codemine(
            &[
                "mine",
                "--repo",
                a.to_str().unwrap(),
                "--repo",
                b.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
                "--side-model",
                model.to_str().unwrap(),
                "--rank",
                rank,
                "--world-size",
                "2",
            ],
            &cache,
        );
        assert_success(&res);
    }
    assert_success(&codemine(
        &["cluster", "--out", out.to_str().unwrap()],
        &cache,
    ));
    assert_success(&codemine(
        &["finalize", "--out", out.to_str().unwrap(), "-j", "1"],
        &cache,
    ));
    let rows = shard_rows(&out.join("csn"));
    let score =
        |name: &str| rows.iter().find(|r| r["func_name"] == name).unwrap()["side_score"].clone();
    assert!(close(
        &score("Stack.pop"),
        reference(POP, "pop the top of the stack")
    ));
    assert!(close(
        &score("Calc.add"),
        reference(ADD, "Adds two integers.")
    ));
    let side = &stats(&out)["stages"]["side"];
    assert_eq!(
        (side["pairs"].as_u64(), side["threads"].as_u64()),
        (Some(2), Some(1))
    );
}

/// Two repositories of one reference pair each: `a` with `Stack.pop`, `b` with `Calc.add`.
fn two_repositories(dir: &Path) -> (PathBuf, PathBuf) {
    let (a, b) = (dir.join("a"), dir.join("b"));
    let mut ra = RepoBuilder::init(&a);
    ra.write(
        "Stack.java",
        format!("class Stack {{\n/** pop the top of the stack */\n{POP}\n}}\n"),
    );
    ra.commit("a");
    let mut rb = RepoBuilder::init(&b);
    rb.write(
        "Calc.java",
        format!("class Calc {{\n/** Adds two integers. */\n{ADD}\n}}\n"),
    );
    rb.commit("b");
    (a, b)
}
