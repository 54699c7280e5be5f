//! JavaScript and TypeScript suites: one sandboxed run per test file, so that V8's
//! coverage of each run belongs to one test file. jest measures it itself
//! (`--coverage --coverageProvider=v8`, which maps its transforms back to the sources);
//! mocha runs under c8 (installed in the environment, not the repository). Both write
//! istanbul's `coverage-final.json`, read here the way istanbul computes line coverage: a
//! line's count is the largest count of the statements that start on it.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use serde::Deserialize;

use crate::coverage::Coverage;
use crate::recipe::{shell_quote, Runner};
use crate::{Error, RawRun, TestOutcome, TestResult, Workspace, ENV, OUT, REPO};

#[derive(Deserialize)]
struct Pos {
    line: u32,
}

#[derive(Deserialize)]
struct Span {
    start: Pos,
}

#[derive(Deserialize)]
struct IstanbulFile {
    #[serde(rename = "statementMap", default)]
    statement_map: BTreeMap<String, Span>,
    #[serde(default)]
    s: BTreeMap<String, u64>,
}

/// Adds one test file's `coverage-final.json` to `cov`.
fn add_istanbul(cov: &mut Coverage, ws: &Workspace, bytes: &[u8], test: u32) -> Result<(), Error> {
    let files: BTreeMap<String, IstanbulFile> =
        serde_json::from_slice(bytes).map_err(|e| Error::Report {
            name: "coverage-final.json".into(),
            reason: e.to_string(),
        })?;
    for (path, f) in files {
        let Some(rel) = ws.repo_relative(&path) else {
            continue;
        };
        let mut lines: BTreeMap<u32, u64> = BTreeMap::new();
        for (id, span) in &f.statement_map {
            let count = f.s.get(id).copied().unwrap_or(0);
            let l = lines.entry(span.start.line).or_insert(0);
            *l = (*l).max(count);
        }
        for (line, count) in lines {
            cov.add(&rel, line, count, (count > 0).then_some(test));
        }
    }
    Ok(())
}

#[derive(Deserialize)]
struct JestReport {
    #[serde(rename = "testResults", default)]
    test_results: Vec<JestFile>,
}

#[derive(Deserialize)]
struct JestFile {
    #[serde(default)]
    status: String,
    #[serde(default)]
    message: String,
    #[serde(rename = "assertionResults", default)]
    assertions: Vec<JestAssertion>,
}

#[derive(Deserialize)]
struct JestAssertion {
    #[serde(default)]
    status: String,
}

fn jest_outcome(bytes: &[u8]) -> (TestOutcome, Option<String>) {
    let Ok(r) = serde_json::from_slice::<JestReport>(bytes) else {
        return (
            TestOutcome::Error,
            Some("jest's JSON report is malformed".into()),
        );
    };
    let Some(f) = r.test_results.first() else {
        return (TestOutcome::Error, Some("jest ran no test file".into()));
    };
    let msg = (!f.message.is_empty()).then(|| f.message.chars().take(2000).collect());
    match f.status.as_str() {
        "passed"
            if f.assertions
                .iter()
                .all(|a| a.status == "pending" || a.status == "skipped" || a.status == "todo") =>
        {
            (TestOutcome::Skipped, None)
        }
        "passed" => (TestOutcome::Passed, None),
        // A file whose suite failed to run has a message and no assertions.
        "failed" if f.assertions.is_empty() => (TestOutcome::Error, msg),
        "failed" => (TestOutcome::Failed, msg),
        _ => (TestOutcome::Skipped, None),
    }
}

#[derive(Deserialize)]
struct MochaReport {
    stats: MochaStats,
    #[serde(default)]
    failures: Vec<serde_json::Value>,
    #[serde(default)]
    tests: Vec<MochaTest>,
}

#[derive(Deserialize)]
struct MochaStats {
    #[serde(default)]
    tests: u64,
    #[serde(default)]
    failures: u64,
    #[serde(default)]
    pending: u64,
}

#[derive(Deserialize)]
struct MochaTest {
    #[serde(default)]
    file: Option<String>,
}

fn mocha_outcome(bytes: &[u8]) -> (TestOutcome, Option<String>) {
    let Ok(r) = serde_json::from_slice::<MochaReport>(bytes) else {
        return (
            TestOutcome::Error,
            Some("mocha's JSON report is malformed".into()),
        );
    };
    if r.stats.failures > 0 {
        let msg = r
            .failures
            .first()
            .and_then(|f| f.get("err"))
            .and_then(|e| e.get("message"))
            .and_then(|m| m.as_str())
            .map(|m| m.chars().take(2000).collect());
        return (TestOutcome::Failed, msg);
    }
    if r.stats.tests == 0 {
        return (TestOutcome::Error, Some("mocha ran no test".into()));
    }
    if r.stats.tests == r.stats.pending {
        return (TestOutcome::Skipped, None);
    }
    (TestOutcome::Passed, None)
}

/// Test files as repository-relative paths, from absolute paths inside the sandbox.
fn relative_files(ws: &Workspace, abs: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut out: Vec<String> = abs
        .into_iter()
        .filter_map(|p| ws.repo_relative(&p))
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The test files the runner finds, repository-relative.
fn list_files(ws: &Workspace, runner: &Runner, bin: &str) -> Result<Vec<String>, Error> {
    let files = match runner {
        Runner::Jest => {
            let r = ws.sh(
                "jest --listTests",
                &format!("{bin}/jest --listTests --json > {OUT}/list.json"),
                &[],
                Duration::from_secs(300),
            )?;
            let list = ws.read_out("list.json")?.unwrap_or_default();
            let files: Vec<String> = serde_json::from_slice(&list).map_err(|e| Error::Suite {
                reason: format!("jest could not list its tests ({}; {e})", r.outcome),
                log_tail: String::new(),
            })?;
            relative_files(ws, files)
        }
        Runner::Mocha => {
            let r = ws.sh(
                "mocha --dry-run",
                &format!("{bin}/mocha --dry-run --reporter json --reporter-option output={OUT}/list.json"),
                &[],
                Duration::from_secs(300),
            )?;
            let list = ws.read_out("list.json")?.unwrap_or_default();
            let report: MochaReport = serde_json::from_slice(&list).map_err(|e| Error::Suite {
                reason: format!("mocha could not list its tests ({}; {e})", r.outcome),
                log_tail: String::new(),
            })?;
            relative_files(ws, report.tests.into_iter().filter_map(|t| t.file))
        }
        Runner::Command {
            list: Some(list), ..
        } => {
            let r = ws.sh("list tests", list, &[], Duration::from_secs(300))?;
            r.stdout
                .text()
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(str::to_string)
                .collect()
        }
        Runner::Command { test, list: None } => vec![crate::c::whole_suite_id(test)],
        other => {
            return Err(Error::Request(format!(
                "{other:?} is not a JavaScript runner"
            )))
        }
    };
    Ok(files)
}

pub(crate) fn run(
    ws: &Workspace,
    selected: Option<&[String]>,
    coverage: bool,
) -> Result<RawRun, Error> {
    let runner = ws.prepared.plan.runner.clone();
    let bin = format!("{REPO}/node_modules/.bin");
    // With a selection the files are the selected ids (a missing one leaves no result);
    // otherwise the runner lists them.
    let is_file = |f: &String| {
        crate::tree::checked_relative(f)
            .is_some_and(|r| crate::tree::is_plain_file(&ws.prepared.repo_dir(), &r))
    };
    let files: Vec<String> = match (selected, &runner) {
        (Some(sel), Runner::Command { list: Some(_), .. }) => sel.to_vec(),
        (Some(sel), Runner::Command { test, list: None }) => {
            let whole = crate::c::whole_suite_id(test);
            sel.iter().filter(|s| **s == whole).cloned().collect()
        }
        (Some(sel), _) => sel.iter().filter(|f| is_file(f)).cloned().collect(),
        (None, _) => list_files(ws, &runner, &bin)?,
    };
    let per_file = matches!(runner, Runner::Jest | Runner::Mocha);
    if files.is_empty() {
        return Err(Error::Suite {
            reason: "no test file to run".into(),
            log_tail: String::new(),
        });
    }
    let c8 = format!("{ENV}/tools/node_modules/.bin/c8");
    let has_c8 = ws
        .prepared
        .dir
        .join("env/tools/node_modules/.bin/c8")
        .exists();
    ws.out_dir("res")?;
    ws.out_dir("cov")?;
    let deadline = Instant::now() + ws.suite_time();
    let mut tests = Vec::new();
    let mut cov = coverage.then(|| Coverage::with_tests(files.clone()));
    let mut last = codemine_sandbox::Outcome::Exited { code: 0 };
    for (i, file) in files.iter().enumerate() {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            tests.push(TestResult {
                id: file.clone(),
                file: per_file.then(|| file.clone()),
                outcome: TestOutcome::Timeout,
                seconds: 0.0,
                message: Some("the suite's time limit was used up before this test file".into()),
            });
            continue;
        }
        let path = shell_quote(&format!("{REPO}/{file}"));
        let (res, covdir) = (format!("{OUT}/res/{i}.json"), format!("{OUT}/cov/{i}"));
        let script = match &runner {
            Runner::Jest => {
                let cov_args = if coverage {
                    format!("--coverage --coverageProvider=v8 --coverageReporters=json --coverageDirectory={covdir}")
                } else {
                    "--coverage=false".into()
                };
                format!("{bin}/jest --ci --runInBand --watchman=false {cov_args} --json --outputFile={res} --runTestsByPath {path}")
            }
            Runner::Mocha => {
                let mocha =
                    format!("{bin}/mocha --reporter json --reporter-option output={res} {path}");
                if coverage {
                    format!("{c8} --reporter=json --report-dir={covdir} --temp-directory={OUT}/c8tmp-{i} {mocha}")
                } else {
                    mocha
                }
            }
            Runner::Command { test, list } => {
                let cmd = if list.is_some() {
                    test.replace("{tests}", &shell_quote(file))
                } else {
                    test.replace("{tests}", "")
                };
                if coverage && has_c8 {
                    format!("{c8} --reporter=json --report-dir={covdir} --temp-directory={OUT}/c8tmp-{i} {cmd}")
                } else {
                    cmd
                }
            }
            Runner::Pytest { .. } | Runner::Ctest { .. } => {
                return Err(Error::Request(format!(
                    "{runner:?} is not a JavaScript runner"
                )))
            }
        };
        let t = Instant::now();
        let r = ws.sh(file, &script, &[], ws.per_test().min(left))?;
        last = r.outcome;
        let report = ws.read_out(&format!("res/{i}.json"))?;
        let (outcome, message) = match (&runner, r.outcome, report) {
            (_, codemine_sandbox::Outcome::Timeout, _) => (
                TestOutcome::Timeout,
                Some("the test file ran past its time limit".into()),
            ),
            (Runner::Jest, _, Some(b)) => jest_outcome(&b),
            (Runner::Mocha, _, Some(b)) => mocha_outcome(&b),
            (Runner::Command { .. }, o, _) if o.success() => (TestOutcome::Passed, None),
            (Runner::Command { .. }, o, _) => (
                TestOutcome::Failed,
                Some(format!("{o}: {}", r.stderr.text())),
            ),
            (_, o, _) => (
                TestOutcome::Error,
                Some(format!("no report ({o}): {}", r.stderr.text())),
            ),
        };
        tests.push(TestResult {
            id: file.clone(),
            file: per_file.then(|| file.clone()),
            outcome,
            seconds: t.elapsed().as_secs_f64(),
            message,
        });
        if let Some(c) = cov.as_mut() {
            if let Some(bytes) = ws.read_out(&format!("cov/{i}/coverage-final.json"))? {
                add_istanbul(c, ws, &bytes, i as u32)?;
            }
        }
    }
    Ok(RawRun {
        tests,
        coverage: cov,
        outcome: last,
        build_failed: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jest_and_mocha_reports_give_one_outcome_per_file() {
        let passed = br#"{"testResults":[{"status":"passed","message":"","assertionResults":[{"status":"passed"}]}]}"#;
        assert_eq!(jest_outcome(passed).0, TestOutcome::Passed);
        let failed = br#"{"testResults":[{"status":"failed","message":"boom","assertionResults":[{"status":"failed"}]}]}"#;
        assert_eq!(
            jest_outcome(failed),
            (TestOutcome::Failed, Some("boom".into()))
        );
        let broken = br#"{"testResults":[{"status":"failed","message":"SyntaxError","assertionResults":[]}]}"#;
        assert_eq!(jest_outcome(broken).0, TestOutcome::Error);
        assert_eq!(jest_outcome(b"nope").0, TestOutcome::Error);
        let m = br#"{"stats":{"tests":2,"failures":1,"pending":0},"failures":[{"err":{"message":"expected 1"}}]}"#;
        assert_eq!(
            mocha_outcome(m),
            (TestOutcome::Failed, Some("expected 1".into()))
        );
        let m = br#"{"stats":{"tests":2,"failures":0,"pending":0}}"#;
        assert_eq!(mocha_outcome(m).0, TestOutcome::Passed);
    }
}
