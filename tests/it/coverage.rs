//! Coverage end to end: a C fixture built with `gcc --coverage` and run, its
//! `gcov --json-format` report attached with `--coverage` and in a manifest, and every
//! function's hits, covered and coverable lines checked against gcov's own text output
//! (`gcov -t`), the independent reference. A truncated report fails that repository's
//! coverage only, with the file and line named, and the run goes on.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use harness::{codemine, failures, read_graph, shard_rows, stats, RepoBuilder};
use serde_json::Value;

const CALC: &str = r#"#include <stdio.h>

/* Adds the numbers below n. */
static int sum_below(int n)
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s += i;
    return s;
}

/* Never called by main. */
int unused(int x)
{
    return x * 2;
}

int main(void)
{
    printf("%d\n", sum_below(5));
    return 0;
}
"#;

fn run(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Builds the fixture, compiles it with coverage in `build/`, runs it, and returns the
/// gcov JSON report and gcov's per-line text counts (line -> Some(count) for executable
/// lines).
fn covered_fixture(tmp: &Path) -> (std::path::PathBuf, BTreeMap<u32, Option<u64>>) {
    let repo = tmp.join("calc");
    let mut r = RepoBuilder::init(&repo);
    r.write("src/calc.c", CALC);
    r.commit("calc");
    let build = tmp.join("build");
    std::fs::create_dir_all(&build).unwrap();
    let src = repo.join("src/calc.c");
    run(Command::new("gcc")
        .current_dir(&build)
        .args(["--coverage", "-O0", "-c", "-o", "calc.o"])
        .arg(&src));
    run(Command::new("gcc")
        .current_dir(&build)
        .args(["--coverage", "calc.o", "-o", "calc"]));
    assert_eq!(
        run(Command::new(build.join("calc")).current_dir(&build)),
        "10\n"
    );
    run(Command::new("gcov")
        .current_dir(&build)
        .args(["--json-format", "--object-directory", "."])
        .arg(&src));
    let text = run(Command::new("gcov")
        .current_dir(&build)
        .args(["-t", "--object-directory", "."])
        .arg(&src));
    // "        5:    7:        s += i;", "    #####:   15:...", "        -:    1:..."
    let mut lines = BTreeMap::new();
    for l in text.lines() {
        let mut parts = l.splitn(3, ':');
        let (Some(count), Some(line)) = (parts.next(), parts.next()) else {
            continue;
        };
        let Ok(line) = line.trim().parse::<u32>() else {
            continue;
        };
        let count = count.trim().trim_end_matches('*');
        let value = match count {
            "-" => None,
            "#####" | "=====" => Some(0),
            n => match n.parse::<u64>() {
                Ok(v) => Some(v),
                Err(_) => continue,
            },
        };
        if line > 0 {
            lines.insert(line, value);
        }
    }
    let json = build.join("calc.gcov.json.gz");
    assert!(json.exists(), "gcov wrote no JSON report");
    (json, lines)
}

/// (hits, covered, coverable) of lines start..=end from gcov's text.
fn expected(lines: &BTreeMap<u32, Option<u64>>, start: u32, end: u32) -> (i64, i64, i64) {
    let counts: Vec<u64> = (start..=end)
        .filter_map(|l| lines.get(&l).copied().flatten())
        .collect();
    (
        counts.iter().sum::<u64>() as i64,
        counts.iter().filter(|c| **c > 0).count() as i64,
        counts.len() as i64,
    )
}

/// Mines the calc fixture with `report` attached and `extra` flags into `tmp/{out}`.
fn mine_calc(tmp: &Path, report: &Path, out: &str, extra: &[&str]) -> std::path::PathBuf {
    let out = tmp.join(out);
    let repo = tmp.join("calc");
    let mut args = vec![
        "mine",
        "--repo",
        repo.to_str().unwrap(),
        "--coverage",
        report.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    harness::assert_success(&codemine(&args, &tmp.join("cache")));
    out
}

fn node<'a>(graph: &'a Value, name: &str) -> &'a Value {
    graph["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["qualified_name"] == name)
        .unwrap()
}

#[test]
fn gcov_report_gives_each_function_its_hits() {
    let tmp = tempfile::tempdir().unwrap();
    let (report, lines) = covered_fixture(tmp.path());
    let out = mine_calc(tmp.path(), &report, "out", &[]);
    let graph = read_graph(&out);
    for (name, start, end) in [("sum_below", 4, 10), ("unused", 13, 16), ("main", 18, 22)] {
        let n = node(&graph, name);
        assert_eq!(
            (n["start_line"].as_u64(), n["end_line"].as_u64()),
            (Some(start), Some(end))
        );
        let (hits, covered, coverable) = expected(&lines, start as u32, end as u32);
        assert_eq!(n["test_cov_hits"].as_i64(), Some(hits), "{name}");
        assert_eq!(n["covered_lines"].as_i64(), Some(covered), "{name}");
        assert_eq!(n["coverable_lines"].as_i64(), Some(coverable), "{name}");
    }
    assert_eq!(node(&graph, "unused")["test_cov_hits"], 0);
    assert!(node(&graph, "sum_below")["test_cov_hits"].as_i64().unwrap() > 5);
    // YABLoCo carries the same hits.
    let rows = shard_rows(&out.join("yabloco"));
    let main = rows.iter().find(|r| r["meta"]["fname"] == "main").unwrap();
    assert_eq!(
        main["meta"]["test_cov_hits"],
        node(&graph, "main")["test_cov_hits"]
    );
    let s = stats(&out);
    let c = &s["stages"]["enrich"]["coverage"];
    assert_eq!(
        (c["reports"].as_u64(), c["mapped_files"].as_u64()),
        (Some(1), Some(1))
    );
    assert_eq!(c["functions"], 3);

    // A coverage rule keeps what the tests ran.
    let out2 = mine_calc(tmp.path(), &report, "out2", &["--min-coverage-hits", "1"]);
    let mut kept: Vec<String> = shard_rows(&out2.join("yabloco"))
        .iter()
        .map(|r| r["meta"]["fname"].as_str().unwrap().to_string())
        .collect();
    kept.sort();
    assert_eq!(kept, vec!["main", "sum_below"]);

    // YABLoCo's rules: main has no docstring, unused a one-line body; sum_below passes
    // (5-word docstring, 4 body lines, hits, one caller, a known date).
    let out3 = mine_calc(
        tmp.path(),
        &report,
        "out3",
        &["--preset", "yabloco", "--explain"],
    );
    let rows = shard_rows(&out3.join("yabloco"));
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["meta"]["fname"], "sum_below");
    assert_eq!(rows[0]["meta"]["last_commit"], "15.01.2024");
    let mut dropped: Vec<(String, String)> = shard_rows(&out3.join("dropped"))
        .iter()
        .map(|r| {
            (
                r["qualified_name"].as_str().unwrap().to_string(),
                r["rule"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    dropped.sort();
    assert_eq!(
        dropped,
        vec![
            ("main".to_string(), "yabloco_docstring".to_string()),
            ("unused".to_string(), "body_lines".to_string())
        ]
    );
}

#[test]
fn manifest_reports_and_a_truncated_one() {
    let tmp = tempfile::tempdir().unwrap();
    let (report, lines) = covered_fixture(tmp.path());
    // An LCOV report written by hand from gcov's counts, with a relative path, and a
    // second repository whose report is cut off inside a record.
    let mut lcov = String::from("TN:\nSF:src/calc.c\n");
    for (l, c) in &lines {
        if let Some(c) = c {
            lcov.push_str(&format!("DA:{l},{c}\n"));
        }
    }
    lcov.push_str("end_of_record\n");
    std::fs::write(tmp.path().join("calc.info"), &lcov).unwrap();
    std::fs::write(
        tmp.path().join("cut.info"),
        "TN:\nSF:src/calc.c\nDA:4,1\nDA:6,",
    )
    .unwrap();
    let mut other = RepoBuilder::init(&tmp.path().join("other"));
    other.write("src/calc.c", CALC);
    other.commit("copy");
    let manifest = tmp.path().join("repos.jsonl");
    std::fs::write(
        &manifest,
        format!(
            "{{\"url\": \"calc\", \"coverage\": [\"calc.info\", \"{}\"]}}\n{{\"url\": \"other\", \"coverage\": \"cut.info\"}}\n",
            report.display()
        ),
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
        ],
        &tmp.path().join("cache"),
    );
    harness::assert_success(&res);
    let graph = read_graph(&out);
    // Two reports of the same run: hits add up.
    let (hits, _, coverable) = expected(&lines, 4, 10);
    let sum_below = graph["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["repository"] == "calc" && n["qualified_name"] == "sum_below")
        .unwrap();
    assert_eq!(sum_below["test_cov_hits"].as_i64(), Some(2 * hits));
    assert_eq!(sum_below["coverable_lines"].as_i64(), Some(coverable));
    // The truncated report: named with its line, the repository mined without coverage.
    let f = failures(&out);
    let bad: Vec<&Value> = f.iter().filter(|f| f["kind"] == "coverage_error").collect();
    assert_eq!(bad.len(), 1, "{f:#?}");
    let reason = bad[0]["reason"].as_str().unwrap();
    assert!(reason.contains("cut.info:4"), "{reason}");
    assert_eq!(bad[0]["repo"], "other");
    for n in graph["nodes"].as_array().unwrap() {
        if n["repository"] == "other" {
            assert!(n["test_cov_hits"].is_null(), "{n:#}");
        }
    }
    assert_eq!(stats(&out)["stages"]["source"]["opened"], 2);
}
