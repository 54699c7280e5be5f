//! Python suites: pytest with codemine's plugin ([`PLUGIN`]), which starts coverage.py
//! before any conftest is imported, switches its dynamic context to each test's node id
//! while the test runs (setup, call, teardown), limits each test's time with `SIGALRM`, and
//! writes one JSON line per test phase. A second sandboxed step ([`EXPORT`]) has
//! coverage.py write its own JSON report with the contexts of every line
//! (`json_report(show_contexts=True)`), including the repository's files no test
//! imported, as pytest-cov's reports list them.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::coverage::Coverage;
use crate::recipe::{shell_quote, Runner, VENV_PYTHON};
use crate::{Error, RawRun, TestOutcome, TestResult, TestRunner, Workspace, OUT, REPO, TOOLS};

/// The pytest plugin, loaded with `-p codemine_pytest` from the tools folder.
pub(crate) const PLUGIN: &str = r#""""codemine's pytest plugin: per-test coverage contexts, per-test time limits, results.

Loaded with -p, so this module is imported before any conftest.py: coverage starts here,
early enough to see the project's modules imported by conftests.
"""
import json
import os
import signal
import time

import pytest

_OUT = os.environ.get("CODEMINE_OUT", ".")
_REPO = os.environ.get("CODEMINE_REPO", "")
_TIMEOUT = float(os.environ.get("CODEMINE_TEST_TIMEOUT") or 0)

_cov = None
if os.environ.get("CODEMINE_COVERAGE") == "1":
    import coverage

    _cov = coverage.Coverage(
        data_file=os.path.join(_OUT, "coverage.db"), config_file=False, source=[_REPO]
    )
    _cov.start()

_results = open(os.path.join(_OUT, "results.jsonl"), "a", buffering=1, encoding="utf-8")
_select = None
if os.environ.get("CODEMINE_SELECT"):
    with open(os.environ["CODEMINE_SELECT"], encoding="utf-8") as _f:
        _select = set(line for line in _f.read().split("\n") if line)
_files = {}
_root = None
_deadline = None


class CodemineTimeout(BaseException):
    """A test ran past codemine's per-test time limit (BaseException: not swallowed by
    `except Exception` in the code under test)."""


def _emit(**kw):
    _results.write(json.dumps(kw) + "\n")


def _rel(path):
    if path is None:
        return None
    path = str(path)
    if _REPO and path.startswith(_REPO + os.sep):
        return path[len(_REPO) + 1:]
    return None


def _message(report):
    try:
        text = str(report.longrepr) if report.longrepr is not None else ""
    except Exception:
        text = "(unprintable failure)"
    return text[-2000:]


def _alarm(signum, frame):
    raise CodemineTimeout("the test ran past codemine's per-test limit of %s s" % _TIMEOUT)


def _arm():
    if _deadline is not None:
        signal.setitimer(signal.ITIMER_REAL, max(_deadline - time.monotonic(), 0.001))


def _disarm():
    if _TIMEOUT > 0:
        signal.setitimer(signal.ITIMER_REAL, 0)


def pytest_configure(config):
    global _root
    _root = str(getattr(config, "rootpath", None) or config.rootdir)
    if _TIMEOUT > 0:
        signal.signal(signal.SIGALRM, _alarm)


def pytest_collection_modifyitems(session, config, items):
    if _select is not None:
        keep = [i for i in items if i.nodeid in _select]
        drop = [i for i in items if i.nodeid not in _select]
        if drop:
            config.hook.pytest_deselected(items=drop)
        items[:] = keep
    for i in items:
        _files[i.nodeid] = _rel(getattr(i, "path", None) or i.fspath)


def pytest_collectreport(report):
    if report.failed:
        path = os.path.join(_root or "", report.nodeid.split("::")[0])
        _emit(collect_error=report.nodeid, file=_rel(path), message=_message(report))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    global _deadline
    if _cov is not None:
        _cov.switch_context(item.nodeid)
    _deadline = time.monotonic() + _TIMEOUT if _TIMEOUT > 0 else None
    yield
    _deadline = None
    if _cov is not None:
        _cov.switch_context("")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item):
    _arm()
    yield
    _disarm()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    _arm()
    yield
    _disarm()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item, nextitem):
    _arm()
    yield
    _disarm()


def pytest_runtest_logreport(report):
    message = _message(report) if report.failed else None
    _emit(
        nodeid=report.nodeid,
        file=_files.get(report.nodeid),
        when=report.when,
        outcome=report.outcome,
        duration=report.duration,
        xfail=hasattr(report, "wasxfail"),
        timeout=bool(message and "CodemineTimeout" in message),
        message=message,
    )


def pytest_unconfigure(config):
    if _cov is not None:
        _cov.stop()
        _cov.save()
    _results.flush()
"#;

/// Writes coverage.py's JSON report, with each line's contexts, of the run's data.
pub(crate) const EXPORT: &str = r#""""codemine: coverage.py's own JSON report (with contexts) of a pytest run's data."""
import os
import sys

import coverage

out = os.environ["CODEMINE_OUT"]
repo = os.environ["CODEMINE_REPO"]
data = os.path.join(out, "coverage.db")
if not os.path.exists(data):
    sys.exit("no coverage data: the test run did not save any")
os.chdir(repo)
cov = coverage.Coverage(data_file=data, config_file=False, source=[repo])
cov.load()
cov.json_report(outfile=os.path.join(out, "coverage.json"), show_contexts=True, ignore_errors=True)
"#;

/// Pytest plugins that change the command line when the environment has them.
const PLUGINS: &[&str] = &["pytest_cov", "xdist"];

/// Which of [`PLUGINS`] the prepared virtualenv has.
pub(crate) fn probe_plugins(
    runner: &TestRunner,
    mounts: &[codemine_sandbox::Mount],
    env: &[(std::ffi::OsString, std::ffi::OsString)],
) -> Result<Vec<String>, Error> {
    let code = format!(
        "import importlib.util as u\nfor m in {:?}:\n    print(m if u.find_spec(m) else '')",
        PLUGINS
    );
    let spec = codemine_sandbox::RunSpec {
        argv: vec![VENV_PYTHON.into(), "-c".into(), code.into()],
        cwd: REPO.into(),
        env: env.to_vec(),
        mounts: mounts.to_vec(),
        network: codemine_sandbox::Network::None,
        limits: codemine_sandbox::Limits {
            wall: std::time::Duration::from_secs(120),
            ..codemine_sandbox::Limits::default()
        },
        tail_bytes: 4096,
    };
    let r = runner.sandbox.run(&spec)?;
    if !r.outcome.success() {
        return Err(Error::Setup {
            command: format!("{VENV_PYTHON} (finding pytest plugins)"),
            outcome: r.outcome.to_string(),
            log_tail: r.stderr.text().into_owned(),
        });
    }
    Ok(r.stdout
        .text()
        .lines()
        .map(str::trim)
        .filter(|m| PLUGINS.contains(m))
        .map(str::to_string)
        .collect())
}

#[derive(Deserialize)]
struct Line {
    nodeid: Option<String>,
    collect_error: Option<String>,
    file: Option<String>,
    when: Option<String>,
    outcome: Option<String>,
    #[serde(default)]
    duration: f64,
    #[serde(default)]
    timeout: bool,
    message: Option<String>,
}

#[derive(Default)]
struct Phases {
    file: Option<String>,
    setup: Option<String>,
    call: Option<String>,
    teardown: Option<String>,
    timeout: bool,
    seconds: f64,
    message: Option<String>,
}

/// Test results from the plugin's JSON lines, in the order tests first appear. A test
/// with no call phase (the run ended during it) is an error, or a timeout when the run
/// ended by its time limit.
fn parse_results(bytes: &[u8], run_timed_out: bool) -> Vec<TestResult> {
    let mut order: Vec<String> = Vec::new();
    let mut phases: BTreeMap<String, Phases> = BTreeMap::new();
    let mut out = Vec::new();
    for line in bytes.split(|&b| b == b'\n') {
        let Ok(l) = serde_json::from_slice::<Line>(line) else {
            continue;
        };
        if let Some(id) = l.collect_error {
            out.push(TestResult {
                id,
                file: l.file,
                outcome: TestOutcome::Error,
                seconds: 0.0,
                message: l.message,
            });
            continue;
        }
        let Some(id) = l.nodeid else { continue };
        let p = phases.entry(id.clone()).or_insert_with(|| {
            order.push(id.clone());
            Phases::default()
        });
        p.file = p.file.take().or(l.file);
        p.seconds += l.duration;
        p.timeout |= l.timeout;
        if p.message.is_none() {
            p.message = l.message;
        }
        let outcome = l.outcome.unwrap_or_default();
        match l.when.as_deref() {
            Some("setup") => p.setup = Some(outcome),
            Some("call") => p.call = Some(outcome),
            Some("teardown") => p.teardown = Some(outcome),
            _ => {}
        }
    }
    for id in order {
        let p = phases.remove(&id).unwrap_or_default();
        let is = |o: &Option<String>, v: &str| o.as_deref() == Some(v);
        let outcome = if p.timeout {
            TestOutcome::Timeout
        } else if is(&p.call, "failed") {
            TestOutcome::Failed
        } else if is(&p.setup, "failed") || is(&p.teardown, "failed") {
            TestOutcome::Error
        } else if is(&p.setup, "skipped") || is(&p.call, "skipped") {
            TestOutcome::Skipped
        } else if is(&p.call, "passed") {
            TestOutcome::Passed
        } else if run_timed_out {
            TestOutcome::Timeout
        } else {
            TestOutcome::Error
        };
        let message = match outcome {
            TestOutcome::Passed | TestOutcome::Skipped => None,
            _ if p.message.is_none() && p.call.is_none() => {
                Some("the test left no result (the run ended during it)".into())
            }
            _ => p.message,
        };
        out.push(TestResult {
            id,
            file: p.file,
            outcome,
            seconds: p.seconds,
            message,
        });
    }
    out
}

#[derive(Deserialize)]
struct CovJson {
    files: BTreeMap<String, CovFile>,
}

#[derive(Deserialize)]
struct CovFile {
    #[serde(default)]
    executed_lines: Vec<u32>,
    #[serde(default)]
    missing_lines: Vec<u32>,
    #[serde(default)]
    contexts: BTreeMap<String, Vec<String>>,
}

/// Per-line coverage from coverage.py's JSON report: an executed line has 1 hit, a
/// missing one 0; a line's tests are its non-empty contexts (the empty one is code run
/// outside any test, such as imports during collection).
fn parse_coverage(bytes: &[u8], tests: &[TestResult]) -> Result<Coverage, Error> {
    let json: CovJson = serde_json::from_slice(bytes).map_err(|e| Error::Report {
        name: "coverage.json".into(),
        reason: e.to_string(),
    })?;
    let mut cov = Coverage::with_tests(Vec::new());
    let mut index = BTreeMap::new();
    for t in tests {
        cov.test_index(&t.id, &mut index);
    }
    for (path, f) in json.files {
        let Some(rel) = crate::tree::checked_relative(&path) else {
            continue;
        };
        let rel = rel.to_string_lossy().into_owned();
        for &line in &f.missing_lines {
            cov.add(&rel, line, 0, None);
        }
        for &line in &f.executed_lines {
            cov.set_hits(&rel, line, 1);
        }
        for (line, ctxs) in f.contexts {
            let Ok(line) = line.parse::<u32>() else {
                continue;
            };
            // pytest-cov's contexts end in |setup, |run or |teardown; ours are bare ids.
            let mut tests: Vec<u32> = ctxs
                .iter()
                .filter(|c| !c.is_empty())
                .map(|c| c.rsplit_once('|').map_or(c.as_str(), |(id, _)| id))
                .map(|id| cov.test_index(id, &mut index))
                .collect();
            // coverage.py keys contexts by the raw lines the tracer saw, which include the
            // continuation lines of a multi-line statement; only statements (executed or
            // missing lines) are executable, as in its own report.
            let Some(l) = cov.files.get_mut(&rel).and_then(|f| f.get_mut(&line)) else {
                continue;
            };
            // Sorted once per line: linear in the line's tests, however many there are.
            tests.append(&mut l.tests);
            tests.sort_unstable();
            tests.dedup();
            l.tests = tests;
        }
    }
    Ok(cov)
}

pub(crate) fn run(
    ws: &Workspace,
    tests: Option<&[String]>,
    coverage: bool,
) -> Result<RawRun, Error> {
    let prepared = ws.prepared;
    let command = match &prepared.plan.runner {
        Runner::Pytest { command } => command.clone(),
        _ => None,
    };
    let mut addopts = "-p codemine_pytest -p no:cacheprovider -p no:randomly --continue-on-collection-errors -q -rN".to_string();
    if prepared.python_plugins.iter().any(|p| p == "pytest_cov") {
        // The project's own coverage options (--cov in addopts) would fight ours.
        addopts.push_str(" --no-cov");
    }
    if prepared.python_plugins.iter().any(|p| p == "xdist") {
        // One process: our coverage contexts and results are per process.
        addopts.push_str(" -n 0");
    }
    let mut pythonpath = TOOLS.to_string();
    if let Some(p) = prepared.plan.env.get("PYTHONPATH") {
        pythonpath = format!("{pythonpath}:{p}");
    }
    let mut env: Vec<(&str, String)> = vec![
        ("CODEMINE_COVERAGE", if coverage { "1" } else { "0" }.into()),
        ("CODEMINE_TEST_TIMEOUT", ws.per_test().as_secs().to_string()),
        ("PYTEST_ADDOPTS", addopts),
        ("PYTHONPATH", pythonpath),
    ];
    let mut args: Vec<String> = Vec::new();
    if let Some(sel) = tests {
        ws.write_out("select.txt", sel.join("\n").as_bytes())?;
        env.push(("CODEMINE_SELECT", format!("{OUT}/select.txt")));
        // Collect only the selected tests' files (absolute: pytest's rootdir may not be the
        // repository's root); the plugin keeps the selected ids among them.
        let mut files: Vec<String> = Vec::new();
        for id in sel {
            let file = id.split("::").next().unwrap_or_default();
            if let Some(rel) = crate::tree::checked_relative(file) {
                if crate::tree::is_plain_file(&ws.prepared.repo_dir(), &rel) {
                    let abs = format!("{REPO}/{}", rel.display());
                    if !files.contains(&abs) {
                        files.push(abs);
                    }
                    continue;
                }
            }
            // A test whose file is not found so: collect everything and filter.
            files.clear();
            break;
        }
        args = files;
    }
    let quoted: Vec<String> = args.iter().map(|a| shell_quote(a)).collect();
    let script = match command {
        Some(c) => c.replace("{tests}", &quoted.join(" ")),
        None => format!("{VENV_PYTHON} -m pytest {}", quoted.join(" ")),
    };
    let r = ws.sh("pytest", &script, &env, ws.suite_time())?;
    let timed_out = r.outcome == codemine_sandbox::Outcome::Timeout;
    let results = ws.read_out("results.jsonl")?.unwrap_or_default();
    let tests_run = parse_results(&results, timed_out);
    if tests_run.is_empty() {
        return Err(Error::Suite {
            reason: format!("pytest reported no test ({})", r.outcome),
            log_tail: String::new(),
        });
    }
    let mut cov = None;
    if coverage {
        let e = ws.sh(
            "coverage report",
            &format!("{VENV_PYTHON} {TOOLS}/codemine_cov_export.py"),
            &[],
            ws.suite_time(),
        )?;
        match ws.read_out("coverage.json")? {
            Some(bytes) if e.outcome.success() => cov = Some(parse_coverage(&bytes, &tests_run)?),
            _ => ws.note(&format!("codemine: no coverage report ({})", e.outcome)),
        }
    }
    Ok(RawRun {
        tests: tests_run,
        coverage: cov,
        outcome: r.outcome,
        build_failed: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contexts_of_continuation_lines_add_no_executable_line() {
        // `x = f(\n    1)` at lines 2-3: coverage.py reports line 2 as the statement and
        // may key a context by line 3 too (Python 3.11+ traces it).
        let json = br#"{"files": {"m.py": {"executed_lines": [1, 2], "missing_lines": [5],
            "contexts": {"1": [""], "2": ["t.py::a"], "3": ["t.py::a", "t.py::b"]}}}}"#;
        let tests = [];
        let cov = parse_coverage(json, &tests).unwrap();
        assert!(cov.line("m.py", 3).is_none());
        let f = cov.function("m.py", 1, 5).unwrap();
        assert_eq!(
            (f.covered_lines, f.coverable_lines, f.test_cov_hits),
            (2, 3, 2)
        );
        assert_eq!(f.covering_tests, ["t.py::a"]);
    }

    #[test]
    fn phases_make_one_outcome_per_test() {
        let lines = br#"{"nodeid":"t.py::a","file":"t.py","when":"setup","outcome":"passed","duration":0.5}
{"nodeid":"t.py::a","when":"call","outcome":"passed","duration":1.0}
{"nodeid":"t.py::a","when":"teardown","outcome":"passed","duration":0.25}
{"nodeid":"t.py::b","when":"setup","outcome":"failed","duration":0,"message":"fixture broke"}
{"nodeid":"t.py::b","when":"teardown","outcome":"passed","duration":0}
{"nodeid":"t.py::c","when":"setup","outcome":"passed","duration":0}
{"nodeid":"t.py::c","when":"call","outcome":"failed","duration":0,"timeout":true,"message":"CodemineTimeout"}
{"nodeid":"t.py::d","when":"setup","outcome":"skipped","duration":0}
{"collect_error":"u.py","file":"u.py","message":"SyntaxError"}
{"nodeid":"t.py::e","when":"setup","outcome":"passed","duration":0}
not json
"#;
        let r = parse_results(lines, false);
        let got: Vec<(&str, TestOutcome)> = r.iter().map(|t| (t.id.as_str(), t.outcome)).collect();
        assert_eq!(
            got,
            [
                ("u.py", TestOutcome::Error),
                ("t.py::a", TestOutcome::Passed),
                ("t.py::b", TestOutcome::Error),
                ("t.py::c", TestOutcome::Timeout),
                ("t.py::d", TestOutcome::Skipped),
                ("t.py::e", TestOutcome::Error),
            ]
        );
        assert_eq!(r[1].seconds, 1.75);
        assert_eq!(r[1].file.as_deref(), Some("t.py"));
        assert_eq!(r[2].message.as_deref(), Some("fixture broke"));
        assert_eq!(parse_results(lines, true)[5].outcome, TestOutcome::Timeout);
    }
}
