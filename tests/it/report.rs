//! The dataset report: `codemine mine` draws the card's figures, `codemine report OUT --html`
//! redraws them and writes report.html. The numbers behind the figures (plots.json) are
//! checked against stats.json and against pyarrow reading the tables
//! (`tests/harness/report_check.py`); the images are checked as SVG and PNG files; the page
//! is opened in headless Chromium, which must load every figure.

use std::path::Path;
use std::process::Command;

use harness::*;
use serde_json::Value;

const SHAPES_PY: &str = include_str!("../fixtures/shapes.py");
const SHAPES_JAVA: &str = include_str!("../fixtures/Shapes.java");

fn mined(tmp: &Path) -> std::path::PathBuf {
    let mut r = RepoBuilder::init(&tmp.join("demo"));
    r.set_time(1_500_000_000); // 2017-07-14
    r.write("pkg/shapes.py", SHAPES_PY);
    r.commit("shapes");
    r.set_time(1_700_000_000); // 2023-11-14
                               // A copy in another folder: one exact-duplicate cluster per function.
    r.write("pkg/copy/shapes.py", SHAPES_PY)
        .write("src/main/java/org/example/Shapes.java", SHAPES_JAVA);
    r.commit("more");
    mine_into(&r.path, tmp, &[])
}

fn figures(out: &Path) -> Vec<Value> {
    let json: Value =
        serde_json::from_slice(&std::fs::read(out.join("plots.json")).unwrap()).unwrap();
    json["figures"].as_array().unwrap().clone()
}

fn figure<'a>(figs: &'a [Value], name: &str) -> &'a Value {
    figs.iter()
        .find(|f| f["name"] == name)
        .unwrap_or_else(|| panic!("no figure {name}"))
}

/// A figure's series as {name: values}.
fn series(f: &Value) -> Value {
    let mut m = serde_json::Map::new();
    for s in f["series"].as_array().unwrap() {
        m.insert(s["name"].as_str().unwrap().into(), s["values"].clone());
    }
    Value::Object(m)
}

#[test]
fn the_figures_show_the_numbers_of_the_tables() {
    let tmp = tempfile::tempdir().unwrap();
    let out = mined(tmp.path());
    let figs = figures(&out);
    let check = python_json(
        include_str!("../harness/report_check.py"),
        &[out.to_str().unwrap()],
    );
    for name in [
        "languages",
        "categories",
        "code_length",
        "docstring_length",
        "dates",
        "clusters",
    ] {
        let f = figure(&figs, name);
        let mut want = check[name].clone();
        // The figure lists categories in its own order (rules, categories in pipeline
        // order); compare as label -> values.
        let got_labels: Vec<&str> = f["labels"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l.as_str().unwrap())
            .collect();
        let got = series(f);
        let want_labels: Vec<String> = want["labels"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l.as_str().unwrap().to_string())
            .collect();
        let mut sorted_got = got_labels.clone();
        sorted_got.sort();
        let mut sorted_want: Vec<&str> = want_labels.iter().map(String::as_str).collect();
        sorted_want.sort();
        assert_eq!(sorted_got, sorted_want, "{name}: labels");
        for (s, values) in want["series"].as_object_mut().unwrap() {
            for (i, label) in want_labels.iter().enumerate() {
                let j = got_labels.iter().position(|l| l == label).unwrap();
                assert_eq!(got[s][j], values[i], "{name}: {s} of {label}");
            }
        }
    }
    // Two commit years, as written by the fixture.
    assert_eq!(
        figure(&figs, "dates")["labels"].as_array().unwrap().first(),
        Some(&Value::from("2017"))
    );
    // The funnel starts with every extracted function and ends with the rows written.
    let stats = stats(&out);
    let funnel = figure(&figs, "funnel");
    let values = &funnel["series"][0]["values"];
    assert_eq!(values[0], stats["stages"]["filter"]["input"]);
    let rows: u64 = stats["stages"]["write"]["csn_rows"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_u64().unwrap())
        .sum();
    assert_eq!(
        values.as_array().unwrap().last().unwrap(),
        &Value::from(rows)
    );
    assert!(rows > 0);

    // Every figure is drawn twice, and the card shows each one.
    let card = std::fs::read_to_string(out.join("README.md")).unwrap();
    for f in &figs {
        let name = f["name"].as_str().unwrap();
        let svg = std::fs::read_to_string(out.join(format!("plot_{name}.svg"))).unwrap();
        assert!(
            svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"),
            "{name}"
        );
        assert!(svg.contains(f["title"].as_str().unwrap().split(' ').next().unwrap()));
        let png = std::fs::read(out.join(format!("plot_{name}.png"))).unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "{name}");
        // IHDR: width 900.
        assert_eq!(u32::from_be_bytes(png[16..20].try_into().unwrap()), 900);
        assert!(card.contains(&format!("(plot_{name}.svg)")), "{name}");
    }
}

#[test]
fn report_redraws_and_the_page_loads_in_chromium() {
    let tmp = tempfile::tempdir().unwrap();
    let out = mined(tmp.path());
    let before = figures(&out);
    for f in &before {
        std::fs::remove_file(out.join(format!("plot_{}.svg", f["name"].as_str().unwrap())))
            .unwrap();
    }
    let card_before = std::fs::read_to_string(out.join("README.md")).unwrap();
    let res = codemine(
        &["report", out.to_str().unwrap(), "--html"],
        &tmp.path().join("cache"),
    );
    assert_success(&res);
    assert_eq!(figures(&out), before);
    for f in &before {
        assert!(out
            .join(format!("plot_{}.svg", f["name"].as_str().unwrap()))
            .exists());
    }
    // The card's figures section is replaced, not repeated.
    let card = std::fs::read_to_string(out.join("README.md")).unwrap();
    assert_eq!(card, card_before);
    assert_eq!(card.matches("## Figures").count(), 1);

    let chromium = ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|c| Command::new(c).arg("--version").output().is_ok())
        .expect("Chromium is needed for this test: run scripts/setup.sh test");
    let profile = tmp.path().join("chromium-profile");
    let page = format!("file://{}", out.join("report.html").display());
    let run = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--enable-logging=stderr",
            "--v=0",
            "--virtual-time-budget=5000",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("--dump-dom")
        .arg(&page)
        .output()
        .unwrap();
    let dom = String::from_utf8_lossy(&run.stdout);
    let log = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "chromium failed:\n{log}");
    let n = before.len();
    assert!(n >= 7, "{n} figures");
    assert!(
        dom.contains(&format!("data-figures=\"{n}\""))
            && dom.contains(&format!("data-figures-loaded=\"{n}\"")),
        "not every figure loaded: {}",
        dom.lines().find(|l| l.contains("<body")).unwrap_or("")
    );
    assert!(!log.contains("Uncaught"), "script error:\n{log}");
}

#[test]
fn report_names_a_folder_that_is_not_an_output() {
    let tmp = tempfile::tempdir().unwrap();
    let res = codemine(
        &["report", tmp.path().to_str().unwrap()],
        &tmp.path().join("cache"),
    );
    assert_eq!(res.status.code(), Some(1));
    let err = String::from_utf8_lossy(&res.stderr);
    assert!(err.contains("stats.json"), "{err}");
}

/// Python module code and lambdas (call-graph nodes, not functions), a filter rule that
/// removes something, exact duplicates, a coverage report and two repositories: every
/// figure has something to count.
const APP_PY: &str = r#"import os

def helper(x):
    """Double a number."""
    return x * 2

def main(args):
    """Run the app."""
    key = lambda a: a[0]
    return sorted(args, key=key) + [helper(len(args))]

def tiny(): return 1

square = lambda v: v * v
print(main(os.environ), square(3))
"#;

const CALC_C: &str = "/* Add two numbers. */\nint add(int a, int b) {\n    return a + b;\n}\n\n/* Twice a number. */\nint twice(int a) {\n    return add(a, a);\n}\n";

/// Each figure's numbers against stats.json's (the counts every other part of the run
/// states): the dates and coverage figures count functions, not Python's `<module>` and
/// `<lambda>` call-graph nodes. A figure this test does not know fails it, so a new figure
/// comes with its check.
#[test]
fn every_figure_counts_what_stats_json_counts() {
    let tmp = tempfile::tempdir().unwrap();
    let mut one = RepoBuilder::init(&tmp.path().join("one"));
    one.write("pkg/app.py", APP_PY)
        .write("pkg/copy/app.py", APP_PY)
        .write("src/calc.c", CALC_C);
    one.commit("one");
    let mut two = RepoBuilder::init(&tmp.path().join("two"));
    two.write("src/main/java/org/example/Shapes.java", SHAPES_JAVA);
    two.commit("two");
    let lcov = tmp.path().join("calc.info");
    std::fs::write(&lcov, "TN:\nSF:src/calc.c\nDA:3,4\nDA:8,0\nend_of_record\n").unwrap();
    let manifest = tmp.path().join("repos.toml");
    std::fs::write(
        &manifest,
        "[[repos]]\nurl = \"one\"\ncoverage = \"calc.info\"\n\n[[repos]]\nurl = \"two\"\n",
    )
    .unwrap();
    let out = tmp.path().join("out");
    let res = codemine(
        &[
            "mine",
            "--manifest",
            manifest.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--min-lines",
            "2",
        ],
        &tmp.path().join("cache"),
    );
    assert_success(&res);
    let stats = stats(&out);
    let n = |v: &Value| v.as_u64().unwrap_or_else(|| panic!("not a count: {v}"));
    let sum = |v: &Value| -> u64 { v.as_array().unwrap().iter().map(n).sum() };
    let st = &stats["stages"];
    let functions = n(&st["extract"]["functions"]);
    let rows: u64 = st["write"]["csn_rows"]
        .as_object()
        .unwrap()
        .values()
        .map(n)
        .sum();
    // The fixture's module code and lambdas are nodes of the call graph beyond the functions.
    assert!(n(&st["write"]["callgraph_nodes"]) > functions);
    assert!(n(&st["filter"]["removed"]["lines"]) > 0);
    assert!(n(&st["dedup"]["exact_removed"]) > 0 && rows > 0);

    let figs = figures(&out);
    let mut seen = Vec::new();
    for f in &figs {
        let name = f["name"].as_str().unwrap();
        seen.push(name);
        let labels: Vec<&str> = f["labels"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l.as_str().unwrap())
            .collect();
        let s = series(f);
        let at = |series: &str, label: &str| {
            let i = labels
                .iter()
                .position(|l| *l == label)
                .unwrap_or_else(|| panic!("{name}: no bar {label}"));
            n(&s[series][i])
        };
        match name {
            "languages" => {
                let langs = stats["languages"].as_object().unwrap();
                assert_eq!(labels.len(), langs.len(), "{name}");
                for (l, c) in langs {
                    assert_eq!(at("functions", l), n(&c["functions"]), "{name}: {l}");
                    assert_eq!(at("csn rows", l), n(&c["csn_rows"]), "{name}: {l}");
                }
                assert_eq!(sum(&s["functions"]), functions, "{name}");
                assert_eq!(sum(&s["csn rows"]), rows, "{name}");
            }
            "repositories" => {
                for r in stats["repositories"].as_array().unwrap() {
                    let repo = r["repo"].as_str().unwrap();
                    assert_eq!(
                        at("functions", repo),
                        n(&r["totals"]["functions"]),
                        "{repo}"
                    );
                    assert_eq!(at("csn rows", repo), n(&r["totals"]["csn_rows"]), "{repo}");
                }
                assert_eq!(sum(&s["functions"]), functions, "{name}");
                assert_eq!(sum(&s["csn rows"]), rows, "{name}");
            }
            "code_length" | "docstring_length" => {
                assert_eq!(sum(&s["count"]), rows, "{name}")
            }
            "funnel" => {
                let f = &st["filter"];
                assert_eq!(at("functions", "extracted"), functions, "{name}");
                assert_eq!(n(&f["input"]), functions, "{name}");
                for (rule, removed) in f["removed"].as_object().unwrap() {
                    assert_eq!(at("functions", &format!("removed: {rule}")), n(removed));
                }
                assert_eq!(at("functions", "kept by the filters"), n(&f["kept"]));
                let d = &st["dedup"];
                assert_eq!(
                    at("functions", "removed: exact duplicate"),
                    n(&d["exact_removed"])
                );
                assert_eq!(
                    at("functions", "removed: near duplicate"),
                    n(&d["near_removed"])
                );
                assert_eq!(at("functions", "csn rows (with a docstring)"), rows);
            }
            "categories" => {
                let by = st["resolve"]["by_category"].as_object().unwrap();
                assert_eq!(labels.len(), by.len(), "{name}");
                for (c, v) in by {
                    assert_eq!(at("call sites", c), n(v), "{name}: {c}");
                }
                assert_eq!(sum(&s["call sites"]), n(&st["resolve"]["calls"]), "{name}");
            }
            "dates" => {
                assert_eq!(sum(&s["functions"]), functions, "{name}");
                let dated = n(&st["enrich"]["history"]["dated"]);
                let unknown = labels
                    .iter()
                    .position(|l| *l == "unknown")
                    .map_or(0, |i| n(&s["functions"][i]));
                assert_eq!(unknown, functions - dated, "{name}");
            }
            "coverage" => {
                assert_eq!(sum(&s["functions"]), functions, "{name}");
                assert_eq!(
                    at("functions", "covered (hits > 0)") + at("functions", "not covered (0 hits)"),
                    n(&st["enrich"]["coverage"]["functions"]),
                    "{name}"
                );
            }
            "clusters" => {
                let sizes = st["dedup"]["cluster_sizes"].as_object().unwrap();
                assert_eq!(at("count", "1"), n(&sizes["1"]), "{name}");
                assert_eq!(
                    sum(&s["count"]) - at("count", "1"),
                    n(&st["dedup"]["clusters"])
                );
            }
            other => panic!("figure {other}: this test does not check it yet"),
        }
    }
    for want in [
        "languages",
        "repositories",
        "funnel",
        "dates",
        "coverage",
        "clusters",
    ] {
        assert!(seen.contains(&want), "no {want} figure in {seen:?}");
    }
}
