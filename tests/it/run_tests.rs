//! `mine --run-tests` end to end (issue 31): fixture repositories built here are mined with
//! their own test suites run in the sandbox (bubblewrap), and every function's
//! `covering_tests` is written out by hand below (which test calls which function), read
//! back by pyarrow from the nodes and the YABLoCo rows. A repository whose setup fails sits
//! next to one that works: the good one has its columns, the bad one a failures.jsonl entry
//! and null columns. Reports given with `--coverage` win over the run's own figures.
//!
//! Slow (not in `scripts/test.sh --fast`): the Python fixture's setup installs pytest and
//! coverage from PyPI inside the sandbox, as testrun's own fixtures do; the prepared
//! environments are kept under the target folder (fixture commits are deterministic), so
//! later runs reuse them. The C fixture needs no network.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;

use harness::{assert_success, codemine, failures, shard_rows, stats, RepoBuilder};
use serde_json::Value;

/// The clone cache of these tests (and of passk's): prepared environments live in its
/// `test-envs/`.
pub(crate) fn cache() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("run-tests-cache")
}

pub(crate) const PYPROJECT: &str = "\
[build-system]
requires = [\"setuptools>=61\"]
build-backend = \"setuptools.build_meta\"

[project]
name = \"geometry\"
version = \"0.1\"

[tool.setuptools]
packages = [\"geometry\"]
";

pub(crate) const SHAPES_PY: &str = r#""""Shapes."""


def square(x):
    """Area of a square."""
    return x * x


def rectangle(w, h):
    """Area of a rectangle."""
    if w == h:
        return square(w)
    return w * h


class Circle:
    """A circle."""

    def __init__(self, r):
        """Make one."""
        self.r = r

    def area(self):
        """Its area, roughly."""
        return 3 * square(self.r)


def unused(x):
    """Called by no test."""
    return -x
"#;

pub(crate) const TEST_SHAPES_PY: &str = r#"from geometry.shapes import Circle, rectangle, square


def test_square():
    assert square(3) == 9


def test_rectangle():
    assert rectangle(2, 3) == 6


def test_rectangle_square():
    assert rectangle(2, 2) == 4


def test_circle():
    assert Circle(1).area() == 3


def test_wrong():
    assert square(2) == 5
"#;

pub(crate) fn python_repo(dir: &Path) {
    let mut r = RepoBuilder::init(dir);
    r.write("pyproject.toml", PYPROJECT)
        .write("geometry/__init__.py", "")
        .write("geometry/shapes.py", SHAPES_PY)
        .write("tests/test_shapes.py", TEST_SHAPES_PY);
    r.commit("geometry");
}

/// A repository whose suite cannot be set up: its recipe's setup fails.
fn broken_repo(dir: &Path) {
    let mut r = RepoBuilder::init(dir);
    r.write(
        "lib.py",
        "def half(x):\n    \"\"\"Half of x.\"\"\"\n    return x / 2\n",
    )
    .write(
        "test_lib.py",
        "from lib import half\n\n\ndef test_half():\n    assert half(4) == 2\n",
    );
    r.commit("broken");
}

fn t(name: &str) -> String {
    format!("tests/test_shapes.py::{name}")
}

/// The function nodes of `repo` (not modules) by qualified name.
fn nodes_of(out: &Path, repo: &str) -> BTreeMap<String, Value> {
    nodes_by(out, repo, |n| {
        n["qualified_name"].as_str().unwrap().to_string()
    })
}

fn nodes_by(out: &Path, repo: &str, key: impl Fn(&Value) -> String) -> BTreeMap<String, Value> {
    shard_rows(&out.join("callgraph/nodes"))
        .into_iter()
        .filter(|n| {
            n["repository"] == repo && n["kind"] != "module" && n["qualified_name"] != "<module>"
        })
        .map(|n| (key(&n), n))
        .collect()
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap_or_else(|| panic!("not a list: {v}"))
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect()
}

fn mine(args: &[&str]) -> Output {
    let out = codemine(args, &cache());
    assert_success(&out);
    out
}

#[test]
fn python_suite_gives_covering_tests_and_a_broken_setup_stops_only_its_repository() {
    let tmp = tempfile::tempdir().unwrap();
    let (good, bad) = (tmp.path().join("geometry"), tmp.path().join("broken"));
    python_repo(&good);
    broken_repo(&bad);
    let manifest = tmp.path().join("repos.toml");
    std::fs::write(
        &manifest,
        format!(
            "[[repos]]\nurl = {:?}\n\n[[repos]]\nurl = {:?}\n\n[repos.tests]\nlanguage = \"python\"\nsetup = [\"echo no compiler here >&2; exit 3\"]\n",
            good.to_str().unwrap(),
            bad.to_str().unwrap()
        ),
    )
    .unwrap();
    let out = tmp.path().join("out");
    mine(&[
        "mine",
        "--manifest",
        manifest.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--run-tests",
        "--no-dedup",
    ]);

    // Which test calls which function, by hand from the code above.
    let want: BTreeMap<&str, Vec<String>> = BTreeMap::from([
        (
            "square",
            vec![
                t("test_circle"),
                t("test_rectangle_square"),
                t("test_square"),
                t("test_wrong"),
            ],
        ),
        (
            "rectangle",
            vec![t("test_rectangle"), t("test_rectangle_square")],
        ),
        ("Circle.__init__", vec![t("test_circle")]),
        ("Circle.area", vec![t("test_circle")]),
        ("unused", vec![]),
        ("test_square", vec![t("test_square")]),
        ("test_rectangle", vec![t("test_rectangle")]),
        ("test_rectangle_square", vec![t("test_rectangle_square")]),
        ("test_circle", vec![t("test_circle")]),
        ("test_wrong", vec![t("test_wrong")]),
    ]);
    let nodes = nodes_of(&out, "geometry");
    let got: BTreeMap<&str, Vec<String>> = nodes
        .iter()
        .map(|(name, n)| (name.as_str(), strings(&n["covering_tests"])))
        .collect();
    assert_eq!(got, want);
    // coverage.py records whether a line ran (1 hit), not how often; a docstring is no
    // statement. `square`: its def (at import) and its return; `unused`: its def only.
    // `rectangle`: def, if, both returns.
    for (name, hits, covered, coverable) in [
        ("square", 2, 2, 2),
        ("unused", 1, 1, 2),
        ("rectangle", 4, 4, 4),
    ] {
        let n = &nodes[name];
        assert_eq!(
            (
                n["test_cov_hits"].as_i64(),
                n["covered_lines"].as_i64(),
                n["coverable_lines"].as_i64()
            ),
            (Some(hits), Some(covered), Some(coverable)),
            "{name}: {n}"
        );
    }

    // The YABLoCo rows carry the same lists in `meta`.
    let yabloco = shard_rows(&out.join("yabloco"));
    for (name, tests) in &want {
        let row = yabloco
            .iter()
            .find(|r| r["meta"]["repository"] == "geometry" && r["meta"]["fname"] == *name)
            .unwrap_or_else(|| panic!("no YABLoCo row for {name}"));
        assert_eq!(&strings(&row["meta"]["covering_tests"]), tests, "{name}");
    }

    // The tests table: one row per test, with its outcome.
    let tests = shard_rows(&out.join("tests"));
    let outcomes: BTreeMap<String, (String, String)> = tests
        .iter()
        .map(|r| {
            (
                r["test_id"].as_str().unwrap().to_string(),
                (
                    r["outcome"].as_str().unwrap().to_string(),
                    r["file"].as_str().unwrap().to_string(),
                ),
            )
        })
        .collect();
    let file = "tests/test_shapes.py".to_string();
    assert_eq!(
        outcomes,
        BTreeMap::from([
            (t("test_square"), ("passed".into(), file.clone())),
            (t("test_rectangle"), ("passed".into(), file.clone())),
            (t("test_rectangle_square"), ("passed".into(), file.clone())),
            (t("test_circle"), ("passed".into(), file.clone())),
            (t("test_wrong"), ("failed".into(), file.clone())),
        ])
    );
    assert!(tests.iter().all(|r| r["repository"] == "geometry"));

    // The broken repository: mined, its test columns null, its failure recorded.
    let broken = nodes_of(&out, "broken");
    let half = &broken["half"];
    assert!(half["covering_tests"].is_null(), "{half}");
    assert!(half["test_cov_hits"].is_null(), "{half}");
    let f = failures(&out);
    let setup: Vec<&Value> = f
        .iter()
        .filter(|f| f["kind"] == "tests_setup_failed")
        .collect();
    assert_eq!(setup.len(), 1, "{f:?}");
    assert_eq!(setup[0]["repo"], "broken");
    assert_eq!(setup[0]["stage"], "tests");
    assert!(
        setup[0]["reason"].as_str().unwrap().contains("exit 3"),
        "{}",
        setup[0]
    );
    assert!(
        setup[0]["log_tail"]
            .as_str()
            .unwrap()
            .contains("no compiler here"),
        "{}",
        setup[0]
    );

    // Stats: per repository and for the run.
    let s = stats(&out);
    let repo = |name: &str| {
        s["repositories"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["repo"] == name)
            .unwrap()["tests"]
            .clone()
    };
    let g = repo("geometry");
    assert_eq!(g["status"], "ran");
    assert_eq!(g["language"], "python");
    assert_eq!(
        (&g["tests_run"], &g["passed"], &g["failed"]),
        (&Value::from(5), &Value::from(4), &Value::from(1))
    );
    assert_eq!(g["sandboxed"], true);
    assert_eq!(g["functions_covered"], 9);
    assert_eq!(repo("broken")["status"], "setup_failed");
    let stage = &s["stages"]["tests"];
    assert_eq!(stage["sandboxed"], true);
    assert_eq!(stage["repositories_run"], 1);
    assert_eq!(stage["setup_failed"], 1);
    assert_eq!(stage["rows"], 5);
    assert!(stage["sandbox"]["mechanism"]
        .as_str()
        .unwrap()
        .starts_with("bubblewrap"));
    let card = std::fs::read_to_string(out.join("README.md")).unwrap();
    assert!(
        card.contains("test suites (`--run-tests`, sandboxed): 1 repositories ran theirs (1 could not be set up"),
        "{card}"
    );

    // A report given with --coverage wins for the figures; covering_tests still come from
    // the run (a report has no tests). The report lists square's two lines only.
    let report = tmp.path().join("coverage.json");
    std::fs::write(
        &report,
        r#"{"meta": {"format": 2, "version": "7.4.0"}, "files": {"geometry/shapes.py": {"executed_lines": [4, 6], "missing_lines": [], "excluded_lines": [], "summary": {"covered_lines": 2}}}}"#,
    )
    .unwrap();
    let out2 = tmp.path().join("out2");
    mine(&[
        "mine",
        "--repo",
        good.to_str().unwrap(),
        "--coverage",
        report.to_str().unwrap(),
        "--out",
        out2.to_str().unwrap(),
        "--run-tests",
        "--no-dedup",
    ]);
    let nodes = nodes_of(&out2, "geometry");
    // The report covers lines 4 and 6 only: square has both; none of rectangle's lines
    // (9-13) are in it, where the run measured 4 of 4.
    assert_eq!(nodes["square"]["covered_lines"], 2);
    assert_eq!(nodes["square"]["coverable_lines"], 2);
    assert_eq!(nodes["rectangle"]["coverable_lines"], 0);
    assert_eq!(
        strings(&nodes["rectangle"]["covering_tests"]),
        want["rectangle"]
    );
    let s = stats(&out2);
    assert_eq!(s["repositories"][0]["tests"]["reports_win"], true);
    assert_eq!(s["repositories"][0]["tests"]["environment_reused"], true);
}

pub(crate) const CALC_C: &str = "\
int add(int a, int b) {
    return a + b;
}
int mul(int a, int b) {
    int r = 0;
    for (int i = 0; i < b; i++)
        r = add(r, a);
    return r;
}
int unused(int x) {
    return x * 42;
}
";
pub(crate) const TEST_ADD_C: &str =
    "int add(int a, int b);\nint main(void) {\n    return add(2, 3) == 5 ? 0 : 1;\n}\n";
pub(crate) const TEST_MUL_C: &str =
    "int mul(int a, int b);\nint main(void) {\n    return mul(3, 4) == 12 ? 0 : 1;\n}\n";
pub(crate) const MAKEFILE: &str = "\
TESTS = test_add test_mul
all: $(TESTS)
test_%: tests/test_%.c src/calc.c
\t$(CC) -o $@ tests/test_$*.c src/calc.c
test: all
\tfor t in $(TESTS); do ./$$t || exit 1; done
";

/// A C project with a make test target, its tests listed by a manifest recipe so that each
/// gets its own coverage; mined in two ranks with a broken project next to it.
#[test]
fn c_suite_in_a_sharded_run() {
    let tmp = tempfile::tempdir().unwrap();
    let (good, bad) = (tmp.path().join("calc"), tmp.path().join("nobuild"));
    let mut r = RepoBuilder::init(&good);
    r.write("src/calc.c", CALC_C)
        .write("tests/test_add.c", TEST_ADD_C)
        .write("tests/test_mul.c", TEST_MUL_C)
        .write("Makefile", MAKEFILE);
    r.commit("calc");
    let mut r = RepoBuilder::init(&bad);
    r.write("src/calc.c", CALC_C)
        .write("Makefile", "test:\n\tcc -o t does_not_exist.c && ./t\n");
    r.commit("nobuild");
    let manifest = tmp.path().join("repos.toml");
    std::fs::write(
        &manifest,
        format!(
            "[[repos]]\nurl = {:?}\n\n[repos.tests]\nlanguage = \"c\"\nsetup = [\"make CC='cc --coverage -O0'\"]\nlist = \"printf 'test_add\\\\ntest_mul\\\\n'\"\ntest = \"./{{tests}}\"\n\n[[repos]]\nurl = {:?}\n",
            good.to_str().unwrap(),
            bad.to_str().unwrap()
        ),
    )
    .unwrap();
    let out = tmp.path().join("out");
    let o = out.to_str().unwrap();
    for rank in ["0", "1"] {
        mine(&[
            "mine",
            "--manifest",
            manifest.to_str().unwrap(),
            "--out",
            o,
            "--run-tests",
            "--rank",
            rank,
            "--world-size",
            "2",
        ]);
    }
    mine(&["cluster", "--out", o]);
    mine(&["finalize", "--out", o]);

    // By hand: add is called by both tests (mul calls it), mul by test_mul, unused by none;
    // each test's main by its own test.
    let nodes = nodes_by(&out, "calc", |n| {
        format!(
            "{}:{}",
            n["path"].as_str().unwrap(),
            n["qualified_name"].as_str().unwrap()
        )
    });
    let got: BTreeMap<String, Vec<String>> = nodes
        .iter()
        .map(|(k, n)| (k.clone(), strings(&n["covering_tests"])))
        .collect();
    let v = |ids: &[&str]| ids.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(
        got,
        BTreeMap::from([
            ("src/calc.c:add".to_string(), v(&["test_add", "test_mul"])),
            ("src/calc.c:mul".to_string(), v(&["test_mul"])),
            ("src/calc.c:unused".to_string(), v(&[])),
            ("tests/test_add.c:main".to_string(), v(&["test_add"])),
            ("tests/test_mul.c:main".to_string(), v(&["test_mul"])),
        ])
    );
    // gcov counts executions: add runs once in test_add and 4 times from mul(3, 4), so each
    // of its executable lines has 5 hits; unused's have none.
    let add = &nodes["src/calc.c:add"];
    let coverable = add["coverable_lines"].as_i64().unwrap();
    assert!(coverable >= 2, "{add}");
    assert_eq!(add["covered_lines"].as_i64(), Some(coverable));
    assert_eq!(add["test_cov_hits"].as_i64(), Some(5 * coverable));
    let unused = &nodes["src/calc.c:unused"];
    assert_eq!(unused["test_cov_hits"], 0);
    assert_eq!(unused["covered_lines"], 0);
    let tests = shard_rows(&out.join("tests"));
    let ids: Vec<(&str, &str)> = tests
        .iter()
        .map(|r| {
            (
                r["test_id"].as_str().unwrap(),
                r["outcome"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(ids, [("test_add", "passed"), ("test_mul", "passed")]);
    // The make-test project fails to build in setup: its own failure, in the other rank.
    let f = failures(&out);
    assert!(
        f.iter()
            .any(|f| f["repo"] == "nobuild" && f["kind"] == "tests_setup_failed"),
        "{f:?}"
    );
    assert!(nodes_of(&out, "nobuild")["add"]["covering_tests"].is_null());
    let s = stats(&out);
    assert_eq!(s["stages"]["tests"]["repositories_run"], 1);
    assert_eq!(s["stages"]["tests"]["setup_failed"], 1);
}

/// `--no-sandbox` is refused (the runner needs the sandbox's mount namespace) before anything
/// is mined, and means nothing without `--run-tests`.
#[test]
fn no_sandbox_is_refused_before_mining() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("geometry");
    python_repo(&repo);
    let out = tmp.path().join("out");
    let (r, o) = (repo.to_str().unwrap(), out.to_str().unwrap());
    let res = codemine(
        &[
            "mine",
            "--repo",
            r,
            "--out",
            o,
            "--run-tests",
            "--no-sandbox",
        ],
        &tmp.path().join("cache"),
    );
    assert_eq!(res.status.code(), Some(2));
    let err = String::from_utf8_lossy(&res.stderr);
    assert!(
        err.contains("--no-sandbox") && err.contains("not supported yet"),
        "{err}"
    );
    assert!(!out.join("stats.json").exists());
    let res = codemine(
        &["mine", "--repo", r, "--out", o, "--no-sandbox"],
        &tmp.path().join("cache"),
    );
    assert_eq!(res.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&res.stderr).contains("--run-tests"));
}

/// `--offline` reaches no network, so no test environment is made: a repository without one
/// prepared by an earlier run gets a setup failure saying so (and is mined all the same);
/// with one, the offline run reuses it.
#[test]
fn offline_runs_only_reuse_environments_prepared_before() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("geometry");
    python_repo(&repo);
    let r = format!("{}=geometry", repo.display());
    let fresh = tmp.path().join("out-fresh");
    let res = codemine(
        &[
            "mine",
            "--repo",
            &r,
            "--out",
            fresh.to_str().unwrap(),
            "--run-tests",
            "--offline",
        ],
        &tmp.path().join("empty-cache"),
    );
    assert_success(&res);
    let f = failures(&fresh);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0]["kind"], "tests_setup_failed");
    let reason = f[0]["reason"].as_str().unwrap();
    assert!(
        reason.contains("--offline") && reason.contains("run once without --offline"),
        "{reason}"
    );
    let nodes = nodes_of(&fresh, "geometry");
    assert!(!nodes.is_empty());
    assert!(nodes.values().all(|n| n["covering_tests"].is_null()));

    // Prepared once with the network, then reused offline: the same covering tests.
    let online = tmp.path().join("out-online");
    let offline = tmp.path().join("out-offline");
    for (out, extra) in [(&online, None), (&offline, Some("--offline"))] {
        let mut args = vec![
            "mine",
            "--repo",
            &r,
            "--out",
            out.to_str().unwrap(),
            "--run-tests",
        ];
        args.extend(extra);
        mine(&args);
    }
    let covering = |out: &Path| -> BTreeMap<String, Value> {
        nodes_of(out, "geometry")
            .into_iter()
            .map(|(k, n)| (k, n["covering_tests"].clone()))
            .collect()
    };
    let a = covering(&online);
    assert!(a
        .values()
        .any(|c| c.as_array().is_some_and(|c| !c.is_empty())));
    assert_eq!(a, covering(&offline));
    assert!(failures(&offline).is_empty(), "{:?}", failures(&offline));
}
