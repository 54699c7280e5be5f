//! Fixture projects built by the tests (a C project with a make target, a CMake project
//! with ctest, a Python package with pytest, a JavaScript package with mocha), set up
//! and run in the sandbox: every function's covering tests are written out by hand below,
//! and so are the outcomes and the hits that follow from the code.
//!
//! The Python and JavaScript fixtures install pytest/coverage and mocha/c8 from PyPI and
//! npm during setup (inside the sandbox, with the network); their prepared environments
//! are kept in the target folder, keyed by the fixture's content, so later runs reuse them.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use codemine_sandbox::{Sandbox, SandboxConfig};
use codemine_testrun::{
    Error, FunctionCoverage, Language, Prepared, Recipe, RepoSource, Rewrite, RunnerOptions,
    TestOutcome, TestRunner,
};

fn runner() -> &'static TestRunner {
    static RUNNER: OnceLock<TestRunner> = OnceLock::new();
    RUNNER.get_or_init(|| {
        let sandbox = Arc::new(
            Sandbox::new(SandboxConfig::default()).expect("sandbox (bubblewrap, scripts/setup.sh)"),
        );
        let cache = Path::new(env!("CARGO_TARGET_TMPDIR")).join("testrun-cache");
        TestRunner::new(sandbox, cache, RunnerOptions::default()).expect("runner")
    })
}

/// Writes `files` into a new folder; the "commit" is a hash of the content, so a changed
/// fixture gets a new environment.
fn fixture(files: &[(&str, &str)]) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for (path, text) in files {
        let p = dir.path().join(path);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(&p, text).unwrap();
        for b in path.bytes().chain([0]).chain(text.bytes()).chain([0]) {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    (dir, format!("{h:016x}"))
}

fn prepare(name: &str, files: &[(&str, &str)], recipe: Option<&Recipe>) -> Prepared {
    let (dir, commit) = fixture(files);
    let repo = RepoSource {
        name,
        commit: &commit,
        tree: dir.path(),
    };
    match runner().prepare(&repo, recipe) {
        Ok(p) => p,
        Err(e) => panic!("{name}: {e}\n{}", e.log_tail().unwrap_or_default()),
    }
}

fn outcomes(tests: &[codemine_testrun::TestResult]) -> BTreeMap<String, TestOutcome> {
    tests.iter().map(|t| (t.id.clone(), t.outcome)).collect()
}

fn covering(f: Option<FunctionCoverage>) -> Vec<String> {
    f.expect("the file has coverage").covering_tests
}

/// Every file below `dir` with its content, to compare before and after.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).unwrap().flatten() {
            let m = fs::symlink_metadata(e.path()).unwrap();
            if m.is_dir() {
                stack.push(e.path());
            } else if m.is_file() {
                out.insert(e.path(), fs::read(e.path()).unwrap());
            }
        }
    }
    out
}

const CALC_C: &str = "\
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
const CALC_H: &str = "int add(int a, int b);\nint mul(int a, int b);\nint unused(int x);\n";
const TEST_ADD_C: &str =
    "#include \"calc.h\"\nint main(void) {\n    return add(2, 3) == 5 ? 0 : 1;\n}\n";
const TEST_MUL_C: &str =
    "#include \"calc.h\"\nint main(void) {\n    return mul(3, 4) == 12 ? 0 : 1;\n}\n";
const TEST_BAD_C: &str =
    "#include \"calc.h\"\nint main(void) {\n    return add(1, 1) == 3 ? 0 : 1;\n}\n";
const MAKEFILE: &str = "\
CC ?= cc
TESTS = test_add test_mul test_bad
all: $(TESTS)
test_%: tests/test_%.c src/calc.c src/calc.h
\t$(CC) -Isrc -o $@ tests/test_$*.c src/calc.c
test: all
\tfor t in $(TESTS); do ./$$t || exit 1; done
";

fn c_files() -> Vec<(&'static str, &'static str)> {
    vec![
        ("src/calc.c", CALC_C),
        ("src/calc.h", CALC_H),
        ("tests/test_add.c", TEST_ADD_C),
        ("tests/test_mul.c", TEST_MUL_C),
        ("tests/test_bad.c", TEST_BAD_C),
        ("Makefile", MAKEFILE),
    ]
}

#[test]
fn c_make_project_with_listed_tests() {
    let recipe = Recipe {
        language: Some(Language::C),
        setup: vec!["make CC='cc --coverage -O0'".into()],
        list: Some("printf 'test_add\\ntest_mul\\ntest_bad\\n'".into()),
        test: Some("./{tests}".into()),
        ..Recipe::default()
    };
    let p = prepare("fixture/c-make", &c_files(), Some(&recipe));
    let run = runner().run_suite(&p).unwrap();
    assert_eq!(
        outcomes(&run.tests),
        BTreeMap::from([
            ("test_add".to_string(), TestOutcome::Passed),
            ("test_mul".to_string(), TestOutcome::Passed),
            ("test_bad".to_string(), TestOutcome::Failed),
        ])
    );
    assert_eq!(
        (run.stats.tests_run, run.stats.passed, run.stats.failed),
        (3, 2, 1)
    );
    let cov = run.coverage.as_ref().expect("gcov coverage");
    // By hand: add is called by all three tests (mul calls it), mul by test_mul only,
    // unused by none; each test's main belongs to its test.
    assert_eq!(
        covering(cov.function("src/calc.c", 1, 3)),
        ["test_add", "test_bad", "test_mul"]
    );
    assert_eq!(covering(cov.function("src/calc.c", 4, 9)), ["test_mul"]);
    let unused = cov.function("src/calc.c", 10, 12).unwrap();
    assert!(unused.covering_tests.is_empty());
    assert_eq!(unused.covered_lines, 0);
    assert!(unused.coverable_lines >= 2, "{unused:?}");
    assert_eq!(
        covering(cov.function("tests/test_mul.c", 2, 4)),
        ["test_mul"]
    );
    // mul(3, 4): the loop body runs 4 times; add runs 4 times from mul, once in each of
    // test_add and test_bad.
    assert_eq!(cov.line("src/calc.c", 7).unwrap().hits, 4);
    assert_eq!(cov.line("src/calc.c", 2).unwrap().hits, 6);
    assert_eq!(
        cov.tests_of_line("src/calc.c", 2),
        ["test_add", "test_mul", "test_bad"]
    );
    // A system header never shows up as a repository file.
    assert!(cov.files.keys().all(|f| !f.starts_with('/')));
}

#[test]
fn c_make_recipe_rebuilds_a_rewritten_file() {
    // The same project with a test command that rebuilds first (as `make test` does).
    let recipe = Recipe {
        language: Some(Language::C),
        setup: vec!["make CC='cc --coverage -O0'".into()],
        list: Some("printf 'test_add\\ntest_mul\\n'".into()),
        test: Some("make CC='cc --coverage -O0' {tests} >&2 && ./{tests}".into()),
        ..Recipe::default()
    };
    let p = prepare("fixture/c-make-rebuild", &c_files(), Some(&recipe));
    let before = snapshot(&p.repo_dir());
    let ok = runner()
        .run_selected(&p, &["test_mul".into(), "test_add".into()], &[])
        .unwrap();
    assert!(ok.passed(), "{:?}\n{}", ok.tests, ok.log_tail);
    let wrong = Rewrite {
        path: "src/calc.c".into(),
        content: CALC_C
            .replace("r = add(r, a);", "r = add(r, b);")
            .into_bytes(),
    };
    let bad = runner()
        .run_selected(&p, &["test_mul".into(), "test_add".into()], &[wrong])
        .unwrap();
    assert_eq!(
        outcomes(&bad.tests)["test_mul"],
        TestOutcome::Failed,
        "{}",
        bad.log_tail
    );
    assert_eq!(
        outcomes(&bad.tests)["test_add"],
        TestOutcome::Passed,
        "{}",
        bad.log_tail
    );
    let syntax = Rewrite {
        path: "src/calc.c".into(),
        content: b"int add(int a, int b) { return a + ; }\n".to_vec(),
    };
    let broken = runner()
        .run_selected(&p, &["test_add".into()], &[syntax])
        .unwrap();
    assert_eq!(broken.tests[0].outcome, TestOutcome::Failed);
    // The rebuilds happened in the runs' copies: the prepared tree is as it was.
    assert_eq!(snapshot(&p.repo_dir()), before);
}

#[test]
fn c_makefile_and_configure_layouts_are_detected() {
    // A Makefile with a test target: the whole `make test` is one test (it fails: test_bad).
    let p = prepare("fixture/c-makefile", &c_files(), None);
    let run = runner().run_suite(&p).unwrap();
    assert_eq!(
        outcomes(&run.tests),
        BTreeMap::from([("make test".to_string(), TestOutcome::Failed)]),
        "{}",
        run.log_tail
    );
    let cov = run.coverage.as_ref().unwrap();
    assert_eq!(covering(cov.function("src/calc.c", 4, 9)), ["make test"]);
    assert!(covering(cov.function("src/calc.c", 10, 12)).is_empty());
    // The loop stops at test_bad (the last), after mul(3, 4) ran in test_mul.
    assert_eq!(cov.line("src/calc.c", 7).unwrap().hits, 4);

    // A configure script (as autotools leave one) and `make check`.
    let mut files = c_files();
    files.retain(|(p, _)| *p != "Makefile" && *p != "tests/test_bad.c");
    files.push((
        "configure",
        "#!/bin/sh\nfor a in \"$@\"; do case $a in CFLAGS=*) echo \"$a\" >> config.mk;; LDFLAGS=*) echo \"$a\" >> config.mk;; esac; done\n",
    ));
    files.push((
        "Makefile",
        "include config.mk\nall: test_add test_mul\ntest_%: tests/test_%.c src/calc.c\n\tcc $(CFLAGS) $(LDFLAGS) -Isrc -o $@ tests/test_$*.c src/calc.c\ncheck: all\n\t./test_add && ./test_mul\n",
    ));
    let p = prepare("fixture/c-configure", &files, None);
    let run = runner().run_suite(&p).unwrap();
    assert_eq!(
        outcomes(&run.tests),
        BTreeMap::from([("make check".to_string(), TestOutcome::Passed)]),
        "{}",
        run.log_tail
    );
    let cov = run.coverage.as_ref().unwrap();
    assert_eq!(covering(cov.function("src/calc.c", 1, 3)), ["make check"]);
    assert_eq!(cov.line("src/calc.c", 2).unwrap().hits, 5);
    let r = runner()
        .run_selected(&p, &["make check".to_string()], &[])
        .unwrap();
    assert!(r.passed(), "{:?}", r.tests);
}

const CMAKELISTS: &str = "\
cmake_minimum_required(VERSION 3.13)
project(calc C)
enable_testing()
add_library(calc src/calc.c)
target_include_directories(calc PUBLIC src)
add_executable(test_add tests/test_add.c)
target_link_libraries(test_add calc)
add_executable(test_mul tests/test_mul.c)
target_link_libraries(test_mul calc)
add_test(NAME adds COMMAND test_add)
add_test(NAME multiplies COMMAND test_mul)
";

#[test]
fn c_cmake_project_is_detected_and_run_with_ctest() {
    let mut files = c_files();
    files.retain(|(p, _)| *p != "Makefile" && *p != "tests/test_bad.c");
    files.push(("CMakeLists.txt", CMAKELISTS));
    let p = prepare("fixture/c-cmake", &files, None);
    assert_eq!(p.plan.language, Language::C);
    let run = runner().run_suite(&p).unwrap();
    assert_eq!(
        outcomes(&run.tests),
        BTreeMap::from([
            ("adds".to_string(), TestOutcome::Passed),
            ("multiplies".to_string(), TestOutcome::Passed)
        ])
    );
    let cov = run.coverage.as_ref().unwrap();
    assert_eq!(
        covering(cov.function("src/calc.c", 1, 3)),
        ["adds", "multiplies"]
    );
    assert_eq!(covering(cov.function("src/calc.c", 4, 9)), ["multiplies"]);
    assert!(covering(cov.function("src/calc.c", 10, 12)).is_empty());
    assert_eq!(cov.line("src/calc.c", 7).unwrap().hits, 4);
    assert_eq!(cov.line("src/calc.c", 2).unwrap().hits, 5);

    // pass@k: ctest runs what is built, so a rewrite is built first.
    let both = ["multiplies".to_string(), "adds".to_string()];
    let wrong = Rewrite {
        path: "src/calc.c".into(),
        content: CALC_C
            .replace("r = add(r, a);", "r = add(r, b);")
            .into_bytes(),
    };
    let r = runner().run_selected(&p, &both, &[wrong]).unwrap();
    assert_eq!(
        outcomes(&r.tests),
        BTreeMap::from([
            ("adds".to_string(), TestOutcome::Passed),
            ("multiplies".to_string(), TestOutcome::Failed)
        ]),
        "{}",
        r.log_tail
    );
    assert_eq!(r.build_failed, None);
    let syntax = Rewrite {
        path: "src/calc.c".into(),
        content: b"int add(int a, int b) { return a + ; }\n".to_vec(),
    };
    let r = runner().run_selected(&p, &both, &[syntax]).unwrap();
    assert!(
        r.build_failed
            .as_deref()
            .is_some_and(|m| m.contains("expected expression")),
        "{:?}",
        r.build_failed
    );
    assert!(
        r.tests.iter().all(|t| t.outcome == TestOutcome::Error),
        "{:?}",
        r.tests
    );
    assert!(
        r.tests[0]
            .message
            .as_deref()
            .unwrap()
            .contains("build failed"),
        "{:?}",
        r.tests
    );
    let unknown = runner()
        .run_selected(&p, &["no such test".to_string()], &[])
        .unwrap();
    assert_eq!(unknown.tests[0].outcome, TestOutcome::Error);
}

const MATHX_PY: &str = "\
def double(x):
    return 2 * x


def triple(x):
    return 3 * x


def never(x):
    return x
";
const TEST_MATHX_PY: &str = "\
from pkg.mathx import double, triple


def test_double():
    assert double(2) == 4


def test_both():
    assert triple(double(1)) == 6


def test_fails():
    assert double(1) == 3


def test_loops():
    while True:
        pass
";
const PYPROJECT: &str = "\
[build-system]
requires = [\"setuptools>=61\"]
build-backend = \"setuptools.build_meta\"

[project]
name = \"pkg\"
version = \"0.1\"

[tool.setuptools]
packages = [\"pkg\"]
";

fn python_files() -> Vec<(&'static str, &'static str)> {
    vec![
        ("pyproject.toml", PYPROJECT),
        ("pkg/__init__.py", ""),
        ("pkg/mathx.py", MATHX_PY),
        ("tests/test_mathx.py", TEST_MATHX_PY),
    ]
}

fn python_recipe() -> Recipe {
    Recipe {
        per_test_timeout: Some(3),
        ..Recipe::default()
    }
}

fn python_fixture() -> Prepared {
    prepare("fixture/python", &python_files(), Some(&python_recipe()))
}

#[test]
fn python_package_with_pytest() {
    let p = python_fixture();
    assert_eq!(p.plan.language, Language::Python);
    let run = runner().run_suite(&p).unwrap();
    let t = |n: &str| format!("tests/test_mathx.py::{n}");
    assert_eq!(
        outcomes(&run.tests),
        BTreeMap::from([
            (t("test_double"), TestOutcome::Passed),
            (t("test_both"), TestOutcome::Passed),
            (t("test_fails"), TestOutcome::Failed),
            (t("test_loops"), TestOutcome::Timeout),
        ]),
        "{}",
        run.log_tail
    );
    assert!(run
        .tests
        .iter()
        .all(|r| r.file.as_deref() == Some("tests/test_mathx.py")));
    let fails = run.tests.iter().find(|r| r.id == t("test_fails")).unwrap();
    assert!(
        fails
            .message
            .as_deref()
            .unwrap_or_default()
            .contains("assert 2 == 3"),
        "{fails:?}"
    );
    assert_eq!(
        (
            run.stats.tests_run,
            run.stats.passed,
            run.stats.failed,
            run.stats.timeouts
        ),
        (4, 2, 1, 1)
    );

    let cov = run.coverage.as_ref().expect("coverage.py coverage");
    assert_eq!(
        covering(cov.function("pkg/mathx.py", 1, 2)),
        [t("test_both"), t("test_double"), t("test_fails")]
    );
    assert_eq!(
        covering(cov.function("pkg/mathx.py", 5, 6)),
        [t("test_both")]
    );
    let never = cov.function("pkg/mathx.py", 9, 10).unwrap();
    assert!(never.covering_tests.is_empty());
    // The def line runs at import (outside any test), the body never: coverage.py counts 1
    // per executed line.
    assert_eq!(
        (
            never.covered_lines,
            never.coverable_lines,
            never.test_cov_hits
        ),
        (1, 2, 1)
    );
    let double = cov.function("pkg/mathx.py", 1, 2).unwrap();
    assert_eq!(
        (
            double.covered_lines,
            double.coverable_lines,
            double.test_cov_hits
        ),
        (2, 2, 2)
    );
    assert_eq!(
        covering(cov.function("tests/test_mathx.py", 15, 17)),
        [t("test_loops")]
    );
}

#[test]
fn python_selected_tests_against_rewritten_files() {
    let p = python_fixture();
    let before = snapshot(&p.repo_dir());
    let t = |n: &str| format!("tests/test_mathx.py::{n}");
    let gold = runner()
        .run_selected(&p, &[t("test_double"), t("test_both")], &[])
        .unwrap();
    assert!(gold.passed(), "{:?}\n{}", gold.tests, gold.log_tail);
    assert_eq!(gold.tests.len(), 2);

    // A body wrong in one case fails exactly the test that checks that case.
    let wrong = Rewrite {
        path: "pkg/mathx.py".into(),
        content: MATHX_PY
            .replace("return 3 * x", "return 3 + x")
            .into_bytes(),
    };
    let r = runner()
        .run_selected(&p, &[t("test_double"), t("test_both")], &[wrong])
        .unwrap();
    assert_eq!(
        outcomes(&r.tests),
        BTreeMap::from([
            (t("test_double"), TestOutcome::Passed),
            (t("test_both"), TestOutcome::Failed)
        ])
    );

    // A syntax error: the test module cannot import it, so its tests error.
    let syntax = Rewrite {
        path: "pkg/mathx.py".into(),
        content: b"def double(x):\n    return 2 *\n".to_vec(),
    };
    let r = runner()
        .run_selected(&p, &[t("test_double")], &[syntax])
        .unwrap();
    assert_eq!(r.tests[0].outcome, TestOutcome::Error, "{:?}", r.tests);

    // An endless loop is a timeout (the per-test limit of 3 s).
    let endless = Rewrite {
        path: "pkg/mathx.py".into(),
        content: MATHX_PY
            .replace("return 2 * x", "while True:\n        pass")
            .into_bytes(),
    };
    let r = runner()
        .run_selected(&p, &[t("test_double")], &[endless])
        .unwrap();
    assert_eq!(r.tests[0].outcome, TestOutcome::Timeout);

    // A test rewritten to attack the prepared environment: it writes into the shared
    // files in place, deletes them, and leaves a daemon behind. Its copy is its own.
    let hostile = Rewrite {
        path: "tests/test_mathx.py".into(),
        content: br##"import os, subprocess


def test_double():
    for p in ["pkg/mathx.py", "pyproject.toml"]:
        with open(p, "a") as f:
            f.write("# pwned")
        os.remove(p)
    subprocess.Popen(["sh", "-c", "sleep 3; echo late >> pkg/__init__.py"], start_new_session=True)
    with open("pkg/new.py", "w") as f:
        f.write("x = 1")
"##
        .to_vec(),
    };
    let r = runner()
        .run_selected(&p, &[t("test_double")], &[hostile])
        .unwrap();
    assert_eq!(r.tests[0].outcome, TestOutcome::Passed, "{}", r.log_tail);
    std::thread::sleep(std::time::Duration::from_secs(4));
    assert_eq!(snapshot(&p.repo_dir()), before);

    let e = runner().run_selected(
        &p,
        &[t("test_double")],
        &[Rewrite {
            path: "../x".into(),
            content: vec![],
        }],
    );
    assert!(matches!(e, Err(Error::Request(_))));
    let e = runner().run_selected(
        &p,
        &[t("test_double")],
        &[Rewrite {
            path: "pkg/none.py".into(),
            content: vec![],
        }],
    );
    assert!(matches!(e, Err(Error::Request(_))));
}

#[test]
fn prepared_environments_are_reused() {
    let p = python_fixture();
    let again = python_fixture();
    assert!(again.reused);
    assert_eq!(again.key, p.key);
    assert_eq!(again.dir, p.dir);
    // Found without the tree (the pipeline can skip the checkout), and only for the same
    // recipe.
    let found = runner()
        .find_prepared(&p.repo, &p.commit, Some(&python_recipe()))
        .unwrap()
        .unwrap();
    assert_eq!(found.dir, p.dir);
    assert!(runner()
        .find_prepared(&p.repo, &p.commit, None)
        .unwrap()
        .is_none());
}

#[test]
fn a_suite_that_cannot_be_set_up_is_an_error_value() {
    let recipe = Recipe {
        language: Some(Language::C),
        setup: vec!["echo building; exit 7".into()],
        test: Some("true".into()),
        ..Recipe::default()
    };
    let (dir, commit) = fixture(&[("README", "nothing\n")]);
    let repo = RepoSource {
        name: "fixture/broken",
        commit: &commit,
        tree: dir.path(),
    };
    let e = runner().prepare(&repo, Some(&recipe)).unwrap_err();
    assert_eq!(e.kind(), "setup_failed");
    assert!(e.to_string().contains("exit 7"), "{e}");
    assert!(e.log_tail().unwrap().contains("building"), "{e:?}");
    // Remembered: the second attempt does not run the setup again.
    let again = runner().prepare(&repo, Some(&recipe)).unwrap_err();
    assert!(again.to_string().contains("remembered"), "{again}");

    let e = runner().prepare(&repo, None).unwrap_err();
    assert_eq!(e.kind(), "no_suite");
}

const UTIL_JS: &str = "\
function inc(x) {
  return x + 1;
}
function dec(x) {
  return x - 1;
}
function unused() {
  return 0;
}
module.exports = { inc, dec, unused };
";
const INC_TEST_JS: &str = "\
const assert = require('assert');
const { inc } = require('../lib/util');
describe('inc', () => {
  it('adds one', () => assert.strictEqual(inc(1), 2));
});
";
const DEC_TEST_JS: &str = "\
const assert = require('assert');
const { inc, dec } = require('../lib/util');
describe('dec', () => {
  it('undoes inc', () => assert.strictEqual(dec(inc(1)), 1));
  it('is wrong', () => assert.strictEqual(dec(1), 1));
});
";
const PACKAGE_JSON: &str = r#"{
  "name": "fixture-js",
  "version": "1.0.0",
  "private": true,
  "scripts": { "test": "mocha" },
  "devDependencies": { "mocha": "10.4.0" }
}
"#;

#[test]
fn javascript_package_with_mocha() {
    let files = [
        ("package.json", PACKAGE_JSON),
        ("lib/util.js", UTIL_JS),
        ("test/inc.test.js", INC_TEST_JS),
        ("test/dec.test.js", DEC_TEST_JS),
    ];
    let p = prepare("fixture/js-mocha", &files, None);
    assert_eq!(p.plan.language, Language::Javascript);
    let run = runner().run_suite(&p).unwrap();
    assert_eq!(
        outcomes(&run.tests),
        BTreeMap::from([
            ("test/dec.test.js".to_string(), TestOutcome::Failed),
            ("test/inc.test.js".to_string(), TestOutcome::Passed),
        ]),
        "{}",
        run.log_tail
    );
    let cov = run.coverage.as_ref().expect("c8 coverage");
    assert_eq!(
        covering(cov.function("lib/util.js", 1, 3)),
        ["test/dec.test.js", "test/inc.test.js"]
    );
    assert_eq!(
        covering(cov.function("lib/util.js", 4, 6)),
        ["test/dec.test.js"]
    );
    let unused = cov.function("lib/util.js", 7, 9).unwrap();
    assert!(unused.covering_tests.is_empty());
    assert_eq!(unused.covered_lines, 0);
    // dec runs twice in dec.test.js (both cases); inc once in each file.
    assert_eq!(cov.line("lib/util.js", 5).unwrap().hits, 2);
    assert_eq!(cov.line("lib/util.js", 2).unwrap().hits, 2);

    let fixed = Rewrite {
        path: "test/dec.test.js".into(),
        content: DEC_TEST_JS.replace("dec(1), 1", "dec(1), 0").into_bytes(),
    };
    let r = runner()
        .run_selected(&p, &["test/dec.test.js".into()], &[fixed])
        .unwrap();
    assert!(r.passed(), "{:?}\n{}", r.tests, r.log_tail);
}

const JEST_PACKAGE_JSON: &str = r#"{
  "name": "fixture-jest",
  "version": "1.0.0",
  "private": true,
  "scripts": { "test": "jest" },
  "devDependencies": { "jest": "29.7.0" }
}
"#;
const SUM_TEST_JS: &str = "\
const { inc } = require('../lib/util');
test('inc adds one', () => {
  expect(inc(41)).toBe(42);
});
";
const BROKEN_TEST_JS: &str = "\
const { dec } = require('../lib/util');
test('dec is wrong here', () => {
  expect(dec(1)).toBe(7);
});
";

#[test]
fn javascript_package_with_jest() {
    let files = [
        ("package.json", JEST_PACKAGE_JSON),
        ("lib/util.js", UTIL_JS),
        ("__tests__/sum.test.js", SUM_TEST_JS),
        ("__tests__/broken.test.js", BROKEN_TEST_JS),
    ];
    let p = prepare("fixture/js-jest", &files, None);
    assert_eq!(p.plan.runner, codemine_testrun::Runner::Jest);
    let run = runner().run_suite(&p).unwrap();
    assert_eq!(
        outcomes(&run.tests),
        BTreeMap::from([
            ("__tests__/broken.test.js".to_string(), TestOutcome::Failed),
            ("__tests__/sum.test.js".to_string(), TestOutcome::Passed),
        ]),
        "{}",
        run.log_tail
    );
    let cov = run.coverage.as_ref().expect("jest's V8 coverage");
    assert_eq!(
        covering(cov.function("lib/util.js", 1, 3)),
        ["__tests__/sum.test.js"]
    );
    assert_eq!(
        covering(cov.function("lib/util.js", 4, 6)),
        ["__tests__/broken.test.js"]
    );
    assert!(covering(cov.function("lib/util.js", 7, 9)).is_empty());
    assert_eq!(cov.line("lib/util.js", 2).unwrap().hits, 1);
}
