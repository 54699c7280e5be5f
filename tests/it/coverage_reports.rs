//! Coverage reports made by the real tools at test time, read by `miner::coverage` and
//! checked against an independent reference from the same run:
//! - C: gcc `--coverage`, then `gcov --json-format`, gcovr's `--xml` (Cobertura) and
//!   `--lcov`, all against the per-line counts of gcov's own text output (`*.gcov`);
//! - C: gcovr's `--json` against the same;
//! - Python: coverage.py's `lcov`, `xml` and `json` reports against its own analysis of the
//!   data file (`Coverage.analysis2`: statements and missing lines);
//! - Java: JaCoCo's agent and XML report writer (Debian's libjacoco-java) against the
//!   lines the test's Java source marks as run or not run.
//!
//! Then each real report is cut short or corrupted, and the error must name the file and
//! the line. A missing tool fails the test with what to install; nothing is skipped.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use miner::coverage::{read_report, CoverageError, Format, FunctionCoverage, RepoCoverage, Report};

// ---------------------------------------------------------------- helpers

/// Runs `program args` in `dir`, panicking with its output unless it succeeds; a missing
/// program fails with `hint`.
fn run(dir: &Path, program: impl AsRef<std::ffi::OsStr>, args: &[&str], hint: &str) -> String {
    let program = program.as_ref();
    let out = Command::new(program)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {program:?} ({e}): {hint}"));
    assert!(
        out.status.success(),
        "{program:?} {args:?} failed ({:?}): {hint}\n--- stdout\n{}\n--- stderr\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

const PY_HINT: &str = "coverage and gcovr come from tests/requirements.txt: run scripts/setup.sh test (or set CODEMINE_PYTHON to a Python that has them)";

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn read(path: &Path) -> Report {
    read_report(path).unwrap_or_else(|e| panic!("{e}"))
}

/// The line hits of every record of `report` whose path ends with `suffix`, merged.
fn hits_of(report: &Report, suffix: &str) -> BTreeMap<u32, u64> {
    let mut out = BTreeMap::new();
    let mut found = false;
    for f in &report.files {
        if f.path.replace('\\', "/").ends_with(suffix) {
            found = true;
            for &(line, hits) in &f.lines {
                *out.entry(line).or_insert(0) += hits;
            }
        }
    }
    let paths: Vec<&str> = report.files.iter().map(|f| f.path.as_str()).collect();
    assert!(
        found,
        "{}: no record for {suffix}; have {paths:?}",
        report.path.display()
    );
    out
}

/// What a range of a reference line map adds up to.
fn expected(reference: &BTreeMap<u32, u64>, start: u32, end: u32) -> FunctionCoverage {
    let lines: Vec<u64> = reference.range(start..=end).map(|(_, &h)| h).collect();
    FunctionCoverage {
        hits: lines.iter().sum(),
        covered_lines: lines.iter().filter(|&&h| h > 0).count() as u32,
        coverable_lines: lines.len() as u32,
    }
}

/// Writes `bytes` as `name` in `dir` and asserts that reading it fails at `line`, with a
/// message that starts with the file and the line.
fn assert_fails_at(dir: &Path, name: &str, bytes: &[u8], line: usize) -> String {
    let path = dir.join(name);
    fs::write(&path, bytes).unwrap();
    match read_report(&path) {
        Ok(r) => panic!("{name} was read: {} records", r.files.len()),
        Err(e) => {
            let msg = e.to_string();
            assert!(matches!(e, CoverageError::Parse { .. }), "{msg}");
            let head = format!("{}:{line}: ", path.display());
            assert!(msg.starts_with(&head), "expected {head:?}...\ngot {msg}");
            msg
        }
    }
}

/// The 1-based number of the first line of `text` that contains `needle`.
fn line_with(text: &str, needle: &str) -> usize {
    text.lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no line with {needle:?}"))
        + 1
}

/// The 1-based line of byte offset `pos` of `text`.
fn line_at(text: &str, pos: usize) -> usize {
    text[..pos].matches('\n').count() + 1
}

/// The line of the last non-blank character: where a report cut short ends.
fn last_line(text: &str) -> usize {
    let trimmed = text.trim_end();
    line_at(trimmed, trimmed.len())
}

/// gzip and gunzip through Python's gzip module, so the test needs no Rust gzip code.
fn gunzip(path: &Path) -> String {
    let script = "import gzip, sys; sys.stdout.write(gzip.open(sys.argv[1], 'rt').read())";
    run(
        Path::new("."),
        harness::python(),
        &["-c", script, path.to_str().unwrap()],
        PY_HINT,
    )
}

fn gzip_to(text: &str, path: &Path) {
    let plain = path.with_extension("plain");
    fs::write(&plain, text).unwrap();
    let script = "import gzip, sys; open(sys.argv[2], 'wb').write(gzip.compress(open(sys.argv[1], 'rb').read()))";
    run(
        Path::new("."),
        harness::python(),
        &[
            "-c",
            script,
            plain.to_str().unwrap(),
            path.to_str().unwrap(),
        ],
        PY_HINT,
    );
}

// ---------------------------------------------------------------- C: gcc, gcov, gcovr

const PROG_C: &str = r#"#include <stdio.h>
#include "util.h"

static int sq(int x) { return x * x; } static int cube(int x) { return x * x * x; }

int collatz(int n) {
    int steps = 0;
    while (n != 1) {
        if (n % 2 == 0)
            n /= 2;
        else
            n = 3 * n + 1;
        steps++;
    }
    return steps;
}

int never(int a) {
    int b = a + 1;
    return b * 2;
}

int main(int argc, char **argv) {
    int total = 0;
    for (int i = 1; i <= 10; i++)
        total += collatz(i);
    total += sq(3) + cube(2) + clamp(total, 0, 50) + clamp(-4, 0, 50);
    if (argc > 5)
        total += never(argc);
    printf("%d\n", total);
    return 0;
}
"#;

const UTIL_H: &str = "int clamp(int v, int lo, int hi);\n";

const UTIL_C: &str = r#"#include "util.h"

int clamp(int v, int lo, int hi) {
    if (v < lo)
        return lo;
    if (v > hi)
        return hi;
    return v;
}
"#;

/// (file, name, first line, last line) of the functions above, read off the sources.
const C_FUNCTIONS: &[(&str, &str, u32, u32)] = &[
    ("src/prog.c", "sq", 4, 4),
    ("src/prog.c", "collatz", 6, 16),
    ("src/prog.c", "never", 18, 21),
    ("src/prog.c", "main", 23, 32),
    ("src/util.c", "clamp", 3, 9),
];

/// Per-line counts from gcov's text output (`-` lines are not executable, `#####` and
/// `=====` ran zero times, a `*` marks a partly run line). When several functions share a
/// line, gcov prints the line's total first and then one block per function, which
/// repeat its number and are skipped.
fn gcov_text_counts(text: &str) -> BTreeMap<u32, u64> {
    let mut counts = BTreeMap::new();
    let mut last = 0;
    for row in text.lines() {
        let mut parts = row.splitn(3, ':');
        let (Some(count), Some(line), Some(_)) = (parts.next(), parts.next(), parts.next()) else {
            continue;
        };
        let Ok(line) = line.trim().parse::<u32>() else {
            continue;
        };
        if line == 0 || line <= last {
            continue;
        }
        last = line;
        let count = count.trim().trim_end_matches('*');
        match count {
            "-" => {}
            "#####" | "=====" => {
                counts.insert(line, 0);
            }
            n => {
                let n: u64 = n.parse().unwrap_or_else(|_| panic!("gcov count {n:?}"));
                counts.insert(line, n);
            }
        }
    }
    counts
}

#[test]
fn c_reports_from_gcov_and_gcovr_agree_with_gcov_text() {
    let tmp = tempfile::tempdir().unwrap();
    let proj = tmp.path().join("proj");
    let build = proj.join("build");
    write(&proj.join("src/prog.c"), PROG_C);
    write(&proj.join("src/util.h"), UTIL_H);
    write(&proj.join("src/util.c"), UTIL_C);
    fs::create_dir_all(&build).unwrap();
    for (file, name, start, end) in C_FUNCTIONS {
        let src = if *file == "src/prog.c" {
            PROG_C
        } else {
            UTIL_C
        };
        let lines: Vec<&str> = src.lines().collect();
        assert!(
            lines[*start as usize - 1].contains(&format!("{name}(")),
            "{name}"
        );
        assert!(lines[*end as usize - 1].trim_end().ends_with('}'), "{name}");
    }

    let gcc_hint = "gcc and gcov are needed: scripts/setup.sh test installs them";
    for (src, obj) in [("../src/prog.c", "prog.o"), ("../src/util.c", "util.o")] {
        run(
            &build,
            "gcc",
            &["--coverage", "-O0", "-c", src, "-o", obj],
            gcc_hint,
        );
    }
    run(
        &build,
        "gcc",
        &["--coverage", "prog.o", "util.o", "-o", "prog"],
        gcc_hint,
    );
    let printed = run(&build, "./prog", &[], "the test program must run");
    // 67 collatz steps for 1..=10, sq(3), cube(2), clamp(67) and clamp(-4).
    assert_eq!(printed.trim(), "134");

    run(
        &build,
        "gcov",
        &["--json-format", "prog.gcda", "util.gcda"],
        gcc_hint,
    );
    run(&build, "gcov", &["prog.gcda", "util.gcda"], gcc_hint);
    let reference: BTreeMap<&str, BTreeMap<u32, u64>> = [
        (
            "src/prog.c",
            gcov_text_counts(&fs::read_to_string(build.join("prog.c.gcov")).unwrap()),
        ),
        (
            "src/util.c",
            gcov_text_counts(&fs::read_to_string(build.join("util.c.gcov")).unwrap()),
        ),
    ]
    .into();
    // The reference itself: line 4 holds sq and cube (1 + 1), never() did not run.
    assert_eq!(reference["src/prog.c"].get(&4), Some(&2));
    assert_eq!(reference["src/prog.c"].get(&19), Some(&0));
    assert_eq!(reference["src/util.c"].get(&5), Some(&1));

    let py = harness::python();
    run(
        &proj,
        &py,
        &[
            "-m",
            "gcovr",
            "--root",
            ".",
            "--xml",
            "../gcovr.xml",
            "--lcov",
            "../gcovr.info",
            "--json",
            "../gcovr.json",
            "build",
        ],
        PY_HINT,
    );

    let gcov_prog = read(&build.join("prog.gcov.json.gz"));
    let gcov_util = read(&build.join("util.gcov.json.gz"));
    let cobertura = read(&tmp.path().join("gcovr.xml"));
    let lcov = read(&tmp.path().join("gcovr.info"));
    let gcovr_json = read(&tmp.path().join("gcovr.json"));
    assert_eq!(gcovr_json.format, Format::GcovrJson);
    assert_eq!(gcov_prog.format, Format::GcovJson);
    assert_eq!(gcov_prog.roots.len(), 1);
    assert!(
        gcov_prog.roots[0].ends_with("/proj/build"),
        "{:?}",
        gcov_prog.roots
    );
    assert_eq!(cobertura.format, Format::Cobertura);
    assert_eq!(lcov.format, Format::Lcov);

    for (report, file) in [
        (&gcov_prog, "src/prog.c"),
        (&gcov_util, "src/util.c"),
        (&cobertura, "src/prog.c"),
        (&cobertura, "src/util.c"),
        (&lcov, "src/prog.c"),
        (&lcov, "src/util.c"),
        (&gcovr_json, "src/prog.c"),
        (&gcovr_json, "src/util.c"),
    ] {
        assert_eq!(
            hits_of(report, file),
            reference[file],
            "{} ({}) vs gcov's text for {file}",
            report.path.display(),
            report.format.name()
        );
    }

    // Decoys with the same file names elsewhere, listed first: the longer suffix wins.
    let repo = [
        "tests/prog.c",
        "examples/util.c",
        "src/prog.c",
        "src/util.c",
        "src/util.h",
    ];
    let reports = [
        gcov_prog.clone(),
        gcov_util.clone(),
        cobertura.clone(),
        lcov.clone(),
        gcovr_json.clone(),
    ];
    for one in &reports {
        let cov = RepoCoverage::build(std::slice::from_ref(one), &repo, &[]);
        assert_eq!(cov.stats.unmapped_files, 0, "{:?}", cov.stats);
        assert_eq!(cov.stats.ambiguous_files, 0, "{:?}", cov.stats);
        for (file, name, start, end) in C_FUNCTIONS {
            if one.format == Format::GcovJson
                && !one.files.iter().any(|f| f.path.ends_with(&file[4..]))
            {
                continue;
            }
            assert_eq!(
                cov.function(file, *start, *end),
                Some(expected(&reference[file], *start, *end)),
                "{name} from {}",
                one.path.display()
            );
        }
        assert_eq!(cov.function("tests/prog.c", 1, 100), None);
    }
    // All five together: every line counted once per format (four formats).
    let cov = RepoCoverage::build(&reports, &repo, &[]);
    assert_eq!(cov.stats.reports, 5);
    assert_eq!(cov.stats.formats.get("gcov-json"), Some(&2));
    assert_eq!(cov.stats.formats.get("gcovr-json"), Some(&1));
    assert_eq!(cov.stats.mapped_files, cov.stats.report_files);
    let collatz = expected(&reference["src/prog.c"], 6, 16);
    assert_eq!(
        cov.function("src/prog.c", 6, 16),
        Some(FunctionCoverage {
            hits: 4 * collatz.hits,
            ..collatz
        })
    );
    assert_eq!(
        cov.function("src/prog.c", 18, 21)
            .map(|f| (f.hits, f.covered_lines)),
        Some((0, 0))
    );

    // Cut short and corrupted copies of the real reports.
    let bad = tmp.path().join("bad");
    fs::create_dir_all(&bad).unwrap();
    let info = fs::read_to_string(tmp.path().join("gcovr.info")).unwrap();
    let keep = info.lines().count() - 1; // everything but the last end_of_record
    let cut: String = info.lines().take(keep).map(|l| format!("{l}\n")).collect();
    let msg = assert_fails_at(&bad, "gcovr.info", cut.as_bytes(), keep);
    assert!(msg.contains("end_of_record"), "{msg}");
    let da = line_with(&info, "DA:");
    let corrupt: String = info
        .lines()
        .enumerate()
        .map(|(i, l)| {
            if i + 1 == da {
                "DA:5,lots\n".to_string()
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    assert_fails_at(&bad, "gcovr.info", corrupt.as_bytes(), da);

    let xml = fs::read_to_string(tmp.path().join("gcovr.xml")).unwrap();
    let cut = &xml[..xml.find("<line number=\"9\"").unwrap()];
    let msg = assert_fails_at(&bad, "gcovr.xml", cut.as_bytes(), last_line(cut));
    assert!(msg.contains("unexpected end of file inside <"), "{msg}");
    // The first hits of a class's own <lines> (those inside <methods> are not read).
    let hits = xml.find("</methods>").unwrap();
    let hits = hits + xml[hits..].find(" hits=\"").unwrap();
    let rest = xml[hits + 7..].split_once('"').unwrap().1;
    let corrupt = format!("{} hits=\"-3\"{rest}", &xml[..hits]);
    let msg = assert_fails_at(&bad, "gcovr.xml", corrupt.as_bytes(), line_at(&xml, hits));
    assert!(msg.contains("hits=\"-3\""), "{msg}");

    let json = gunzip(&build.join("prog.gcov.json.gz"));
    let cut = &json[..json.len() / 2];
    gzip_to(cut, &bad.join("prog.gcov.json.gz"));
    let bytes = fs::read(bad.join("prog.gcov.json.gz")).unwrap();
    assert_fails_at(&bad, "prog.gcov.json.gz", &bytes, line_at(cut, cut.len()));
    let corrupt = json.replacen("\"line_number\": ", "\"line_number\": -", 1);
    gzip_to(&corrupt, &bad.join("neg.gcov.json.gz"));
    let bytes = fs::read(bad.join("neg.gcov.json.gz")).unwrap();
    let msg = assert_fails_at(&bad, "neg.gcov.json.gz", &bytes, 1);
    assert!(msg.contains("column"), "{msg}");
}

// ---------------------------------------------------------------- Python: coverage.py

const MOD_PY: &str = r#""""A module under test."""


def classify(n):
    """Sign of n as a word."""
    if n < 0:
        return "negative"
    if n == 0:
        return "zero"
    return "positive"


def unused(x):
    y = x * 2
    return y + 1


class Counter:
    def __init__(self):
        self.n = 0

    def bump(self, k=1):
        for _ in range(k):
            self.n += 1
        return self.n
"#;

const RUN_PY: &str = r#"from pkg.mod import Counter, classify

for v in (3, 0):
    classify(v)
c = Counter()
c.bump(2)
"#;

const PY_FUNCTIONS: &[(&str, u32, u32)] = &[
    ("classify", 4, 10),
    ("unused", 13, 15),
    ("Counter", 18, 25),
    ("Counter.bump", 22, 25),
];

#[test]
fn python_reports_from_coverage_py_agree_with_its_analysis() {
    let tmp = tempfile::tempdir().unwrap();
    let proj = tmp.path().join("proj");
    write(&proj.join("pkg/__init__.py"), "");
    write(&proj.join("pkg/mod.py"), MOD_PY);
    write(&proj.join("run.py"), RUN_PY);
    let lines: Vec<&str> = MOD_PY.lines().collect();
    for (name, start, _) in PY_FUNCTIONS {
        let short = name.rsplit('.').next().unwrap();
        assert!(lines[*start as usize - 1].contains(short), "{name}");
    }

    let py = harness::python();
    run(&proj, &py, &["-m", "coverage", "run", "run.py"], PY_HINT);
    run(
        &proj,
        &py,
        &["-m", "coverage", "lcov", "-o", "../cov.info"],
        PY_HINT,
    );
    run(
        &proj,
        &py,
        &["-m", "coverage", "xml", "-o", "../cov.xml"],
        PY_HINT,
    );
    run(
        &proj,
        &py,
        &["-m", "coverage", "json", "-o", "../cov.json"],
        PY_HINT,
    );

    // The reference: coverage.py's own analysis of its data file (statements and the
    // missing ones), read through its API, not through any report.
    let analysis = run(
        &proj,
        &py,
        &[
            "-c",
            "import coverage, json\n\
             cov = coverage.Coverage()\n\
             cov.load()\n\
             _, statements, _, missing, _ = cov.analysis2('pkg/mod.py')\n\
             print(json.dumps({'statements': statements, 'missing': missing}))",
        ],
        PY_HINT,
    );
    let analysis: serde_json::Value = serde_json::from_str(&analysis).unwrap();
    let missing: Vec<u64> = analysis["missing"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_u64().unwrap())
        .collect();
    let mut reference: BTreeMap<u32, u64> = BTreeMap::new();
    for l in analysis["statements"].as_array().unwrap() {
        let l = l.as_u64().unwrap();
        reference.insert(l as u32, u64::from(!missing.contains(&l)));
    }
    // The reference itself: the negative branch and unused()'s body never ran.
    assert_eq!(reference.get(&7), Some(&0));
    assert_eq!(reference.get(&14), Some(&0));
    assert_eq!(reference.get(&24), Some(&1));

    let lcov = read(&tmp.path().join("cov.info"));
    let xml = read(&tmp.path().join("cov.xml"));
    let json = read(&tmp.path().join("cov.json"));
    assert_eq!(json.format, Format::CoveragePyJson);
    assert_eq!(lcov.format, Format::Lcov);
    assert_eq!(xml.format, Format::Cobertura);
    assert_eq!(xml.roots.len(), 1);
    assert!(xml.roots[0].ends_with("/proj"), "{:?}", xml.roots);
    assert_eq!(hits_of(&lcov, "pkg/mod.py"), reference);
    assert_eq!(hits_of(&xml, "pkg/mod.py"), reference);
    assert_eq!(hits_of(&json, "pkg/mod.py"), reference);
    assert_eq!(hits_of(&lcov, "pkg/__init__.py"), BTreeMap::new());
    assert_eq!(hits_of(&json, "pkg/__init__.py"), BTreeMap::new());

    let repo = [
        "pkg/__init__.py",
        "pkg/mod.py",
        "run.py",
        "tests/test_mod.py",
    ];
    for report in [&lcov, &xml, &json] {
        let cov = RepoCoverage::build(std::slice::from_ref(report), &repo, &[]);
        assert_eq!(cov.stats.mapped_files, 3, "{:?}", cov.stats);
        for (name, start, end) in PY_FUNCTIONS {
            assert_eq!(
                cov.function("pkg/mod.py", *start, *end),
                Some(expected(&reference, *start, *end)),
                "{name} from {}",
                report.path.display()
            );
        }
        // The file is covered and has no coverable line: zeros, not null.
        assert_eq!(
            cov.function("pkg/__init__.py", 1, 1),
            Some(FunctionCoverage::default())
        );
        assert_eq!(cov.function("tests/test_mod.py", 1, 10), None);
    }

    let bad = tmp.path().join("bad");
    fs::create_dir_all(&bad).unwrap();
    let text = fs::read_to_string(tmp.path().join("cov.xml")).unwrap();
    let keep = line_with(&text, "<line number=\"8\"");
    let cut: String = text.lines().take(keep).map(|l| format!("{l}\n")).collect();
    let msg = assert_fails_at(&bad, "cov.xml", cut.as_bytes(), keep);
    assert!(
        msg.ends_with("unexpected end of file inside <lines>"),
        "{msg}"
    );
    let at = line_with(&text, "<line number=\"9\"");
    let corrupt = text.replace(
        "<line number=\"9\" hits=\"1\"",
        "<line number=\"9\" hits=\"one\"",
    );
    let msg = assert_fails_at(&bad, "cov.xml", corrupt.as_bytes(), at);
    assert!(msg.contains("hits=\"one\""), "{msg}");

    // coverage.py writes its JSON on one line: the error gives the column too.
    let text = fs::read_to_string(tmp.path().join("cov.json")).unwrap();
    let cut = &text[..text.find("\"missing_lines\"").unwrap()];
    let msg = assert_fails_at(&bad, "cov.json", cut.as_bytes(), 1);
    assert!(msg.contains("invalid coverage.py JSON (column "), "{msg}");

    let info = fs::read_to_string(tmp.path().join("cov.info")).unwrap();
    let keep = line_with(&info, "DA:10,");
    let cut: String = info.lines().take(keep).map(|l| format!("{l}\n")).collect();
    assert_fails_at(&bad, "cov.info", cut.as_bytes(), keep);
    let corrupt = info.replace("DA:10,1", "DA:10,1.5");
    let msg = assert_fails_at(&bad, "cov.info", corrupt.as_bytes(), keep);
    assert!(msg.contains("1.5"), "{msg}");
}

// ---------------------------------------------------------------- Java: JaCoCo

/// Every line with code ends in `// hit` (JaCoCo must see some instruction of it run) or
/// `// miss` (it has instructions and none ran). The class lines carry the implicit
/// constructor, which nothing calls; a method's closing brace carries its `return`.
const FOO_JAVA: &str = r#"package org.foo;

import org.foo.util.Helper;

public class Foo { // miss
    static int twice(int x) {
        return 2 * x; // hit
    }

    static int unused(int x) {
        int y = x + 1; // miss
        return y * 3; // miss
    }

    public static void main(String[] args) {
        int s = 0; // hit
        for (int i = 0; i < 3; i++) { // hit
            s += twice(i); // hit
        }
        if (s > 100) { // hit
            s = unused(s); // miss
        }
        System.out.println(Helper.describe(s)); // hit
    } // hit
}
"#;

const HELPER_JAVA: &str = r#"package org.foo.util;

public class Helper { // miss
    public static String describe(int s) {
        String kind = s % 2 == 0 ? "even" : "odd"; // hit
        return kind + " " + s; // hit
    }

    public static String never() {
        return "never"; // miss
    }
}
"#;

const JAVA_FUNCTIONS: &[(&str, &str, u32, u32)] = &[
    ("src/main/java/org/foo/Foo.java", "twice", 6, 8),
    ("src/main/java/org/foo/Foo.java", "unused", 10, 13),
    ("src/main/java/org/foo/Foo.java", "main", 15, 24),
    ("src/main/java/org/foo/util/Helper.java", "describe", 4, 7),
    ("src/main/java/org/foo/util/Helper.java", "never", 9, 11),
];

/// What JaCoCo's command-line `report` command does (org.jacoco.cli is not packaged by
/// Debian): load the exec file, analyse the classes, write the XML report. `agent DEST`
/// extracts the agent jar that org.jacoco.agent.jar carries.
const JACOCO_XML_JAVA: &str = r#"import java.io.File;
import java.io.FileOutputStream;
import org.jacoco.core.analysis.Analyzer;
import org.jacoco.core.analysis.CoverageBuilder;
import org.jacoco.core.tools.ExecFileLoader;
import org.jacoco.report.DirectorySourceFileLocator;
import org.jacoco.report.IReportVisitor;
import org.jacoco.report.xml.XMLFormatter;

public class JacocoXml {
    public static void main(String[] a) throws Exception {
        if (a[0].equals("agent")) {
            org.jacoco.agent.AgentJar.extractTo(new File(a[1]));
            return;
        }
        ExecFileLoader loader = new ExecFileLoader();
        loader.load(new File(a[1]));
        CoverageBuilder builder = new CoverageBuilder();
        new Analyzer(loader.getExecutionDataStore(), builder).analyzeAll(new File(a[2]));
        try (FileOutputStream out = new FileOutputStream(a[3])) {
            IReportVisitor v = new XMLFormatter().createVisitor(out);
            v.visitInfo(loader.getSessionInfoStore().getInfos(), loader.getExecutionDataStore().getContents());
            v.visitBundle(builder.getBundle("demo"), new DirectorySourceFileLocator(new File(a[4]), "utf-8", 4));
            v.visitEnd();
        }
    }
}
"#;

/// Debian's libjacoco-java (and the ASM jars it depends on).
fn jacoco_classpath() -> String {
    let jars = [
        "org.jacoco.core.jar",
        "org.jacoco.report.jar",
        "org.jacoco.agent.jar",
        "asm.jar",
        "asm-commons.jar",
        "asm-tree.jar",
    ];
    let dir = PathBuf::from("/usr/share/java");
    for jar in jars {
        assert!(
            dir.join(jar).exists(),
            "{} not found: JaCoCo comes from Debian's libjacoco-java (scripts/setup.sh test installs it)",
            dir.join(jar).display()
        );
    }
    jars.map(|j| dir.join(j).display().to_string()).join(":")
}

/// (line, 1 or 0) for each `// hit` and `// miss` line of a source.
fn marked_lines(src: &str) -> BTreeMap<u32, u64> {
    let mut out = BTreeMap::new();
    for (i, l) in src.lines().enumerate() {
        if l.ends_with("// hit") {
            out.insert(i as u32 + 1, 1);
        } else if l.ends_with("// miss") {
            out.insert(i as u32 + 1, 0);
        }
    }
    out
}

#[test]
fn java_report_from_jacoco_agrees_with_the_marked_lines() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let src = dir.join("src/main/java");
    write(&src.join("org/foo/Foo.java"), FOO_JAVA);
    write(&src.join("org/foo/util/Helper.java"), HELPER_JAVA);
    write(&dir.join("tool/JacocoXml.java"), JACOCO_XML_JAVA);
    for (file, name, start, end) in JAVA_FUNCTIONS {
        let text = if file.ends_with("Foo.java") {
            FOO_JAVA
        } else {
            HELPER_JAVA
        };
        let lines: Vec<&str> = text.lines().collect();
        assert!(
            lines[*start as usize - 1].contains(&format!(" {name}(")),
            "{name}"
        );
        assert!(
            lines[*end as usize - 1].trim_start().starts_with('}'),
            "{name}"
        );
    }

    let cp = jacoco_classpath();
    let java_hint = "a JDK (javac, java) is needed";
    // Class files of Java 11: JaCoCo 0.8.6 predates Java 17's class-file version.
    run(
        dir,
        "javac",
        &[
            "--release",
            "11",
            "-d",
            "classes",
            "src/main/java/org/foo/Foo.java",
            "src/main/java/org/foo/util/Helper.java",
        ],
        java_hint,
    );
    run(
        dir,
        "javac",
        &["-cp", &cp, "-d", "tool", "tool/JacocoXml.java"],
        java_hint,
    );
    let tool_cp = format!("{cp}:tool");
    run(
        dir,
        "java",
        &["-cp", &tool_cp, "JacocoXml", "agent", "jacocoagent.jar"],
        java_hint,
    );
    let printed = run(
        dir,
        "java",
        &[
            "-javaagent:jacocoagent.jar=destfile=jacoco.exec",
            "-cp",
            "classes",
            "org.foo.Foo",
        ],
        java_hint,
    );
    assert_eq!(printed.trim(), "even 6");
    run(
        dir,
        "java",
        &[
            "-cp",
            &tool_cp,
            "JacocoXml",
            "report",
            "jacoco.exec",
            "classes",
            "jacoco.xml",
            "src/main/java",
        ],
        java_hint,
    );

    let report = read(&dir.join("jacoco.xml"));
    assert_eq!(report.format, Format::Jacoco);
    let mut paths: Vec<&str> = report.files.iter().map(|f| f.path.as_str()).collect();
    paths.sort_unstable();
    assert_eq!(paths, ["org/foo/Foo.java", "org/foo/util/Helper.java"]);
    let foo = marked_lines(FOO_JAVA);
    let helper = marked_lines(HELPER_JAVA);
    assert_eq!(hits_of(&report, "org/foo/Foo.java"), foo);
    assert_eq!(hits_of(&report, "org/foo/util/Helper.java"), helper);

    // JaCoCo's package path is a suffix of the repository path; a Foo.java in another
    // package, listed first, shares only the file name.
    let repo = [
        "src/test/java/org/bar/Foo.java",
        "src/main/java/org/foo/Foo.java",
        "src/main/java/org/foo/util/Helper.java",
        "src/test/java/org/foo/FooTest.java",
    ];
    let cov = RepoCoverage::build(std::slice::from_ref(&report), &repo, &[]);
    assert_eq!(cov.stats.mapped_files, 2, "{:?}", cov.stats);
    assert_eq!(cov.function("src/test/java/org/bar/Foo.java", 1, 100), None);
    for (file, name, start, end) in JAVA_FUNCTIONS {
        let reference = if file.ends_with("Foo.java") {
            &foo
        } else {
            &helper
        };
        let want = expected(reference, *start, *end);
        // JaCoCo: hits are the number of covered lines.
        assert_eq!(want.hits, u64::from(want.covered_lines));
        assert_eq!(cov.function(file, *start, *end), Some(want), "{name}");
    }

    let bad = dir.join("bad");
    fs::create_dir_all(&bad).unwrap();
    let xml = fs::read_to_string(dir.join("jacoco.xml")).unwrap();
    let cut = &xml[..xml.find("<sourcefile name=\"Foo.java\">").unwrap() + 40];
    assert_fails_at(&bad, "jacoco.xml", cut.as_bytes(), last_line(cut));
    let at = xml.find(" ci=\"").unwrap();
    let corrupt = format!("{} ci=\"x{}", &xml[..at], &xml[at + 5..]);
    let msg = assert_fails_at(&bad, "jacoco.xml", corrupt.as_bytes(), line_at(&xml, at));
    assert!(msg.contains("ci="), "{msg}");
}
