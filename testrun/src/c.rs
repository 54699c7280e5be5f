//! C and C++ suites: built with `--coverage` during setup; each test (a ctest test, or a
//! recipe's listed test) runs in its own sandboxed process with its own `GCOV_PREFIX`, so
//! its `.gcda` files land in a folder of its own; then gcov (inside the sandbox, on the
//! files the build and the tests wrote) turns each folder into JSON ([`GCOV_SCRIPT`]),
//! which the host reads: a line's hits are gcov's counts summed over tests, and a test
//! covers the lines it counted at least once. A suite that is one command (`make test`,
//! `make check`) is one test.

use std::path::{Component, Path, PathBuf};
use std::time::{Duration, Instant};

use serde::Deserialize;

use crate::coverage::Coverage;
use crate::recipe::{shell_quote, Runner};
use crate::{Error, RawRun, TestOutcome, TestResult, Workspace, OUT, TOOLS};

/// gcov's JSON for every `.gcda` under a `GCOV_PREFIX` folder (`$1`), one document per
/// line on stdout. gcov looks for each `.gcno` next to its `.gcda`, so links to the
/// build's notes (at the object's path without the prefix) are made first.
pub(crate) const GCOV_SCRIPT: &str = r#"#!/bin/sh
# codemine: gcov's JSON for every .gcda under a GCOV_PREFIX folder ($1), to stdout.
set -u
cd "$1" 2>/dev/null || exit 0
find . -name '*.gcda' -type f | while IFS= read -r f; do
  note="/${f#./}"
  note="${note%.gcda}.gcno"
  [ -f "$note" ] && ln -sf "$note" "${f%.gcda}.gcno"
done
find . -name '*.gcda' -type f -print0 | xargs -0 -r gcov --json-format --stdout 2>/dev/null
exit 0
"#;

/// A regular expression (CMake's syntax) matching exactly `name`.
fn ctest_exact(name: &str) -> String {
    let mut re = String::from("^");
    for c in name.chars() {
        if "[](){}.*+?^$|\\".contains(c) {
            re.push('\\');
        }
        re.push(c);
    }
    re.push('$');
    re
}

/// Test names from `ctest -N`'s listing (`  Test #3: name`).
fn parse_ctest_list(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| {
            let l = l.trim_start();
            let rest = l.strip_prefix("Test")?.trim_start().strip_prefix('#')?;
            let (num, name) = rest.split_once(':')?;
            num.trim().parse::<u32>().ok()?;
            let name = name.trim();
            (!name.is_empty()).then(|| name.to_string())
        })
        .collect()
}

/// Lexically normalises `path` (`.` and `..` resolved without touching the disk).
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            c => out.push(c.as_os_str()),
        }
    }
    out
}

#[derive(Deserialize)]
struct GcovDoc {
    #[serde(default)]
    current_working_directory: String,
    #[serde(default)]
    files: Vec<GcovFile>,
}

#[derive(Deserialize)]
struct GcovFile {
    file: String,
    #[serde(default)]
    lines: Vec<GcovLine>,
}

#[derive(Deserialize)]
struct GcovLine {
    line_number: u32,
    count: u64,
}

/// Adds one test's gcov JSON documents (one per line) to `cov`.
fn add_gcov(cov: &mut Coverage, ws: &Workspace, bytes: &[u8], test: u32) -> Result<(), Error> {
    for (n, line) in bytes.split(|&b| b == b'\n').enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let doc: GcovDoc = serde_json::from_slice(line).map_err(|e| Error::Report {
            name: format!("gcov JSON, document {}", n + 1),
            reason: e.to_string(),
        })?;
        for f in doc.files {
            let path = Path::new(&doc.current_working_directory).join(&f.file);
            let Some(rel) = ws.repo_relative(&normalize(&path).to_string_lossy()) else {
                continue; // a system header
            };
            for l in f.lines {
                cov.add(&rel, l.line_number, l.count, (l.count > 0).then_some(test));
            }
        }
    }
    Ok(())
}

/// The end of a test's output, for its failure message.
fn message_of(r: &codemine_sandbox::RunResult) -> String {
    let mut text = r.stdout.text().into_owned();
    text.push_str(&r.stderr.text());
    let mut cut = text.len().saturating_sub(2000);
    while !text.is_char_boundary(cut) {
        cut += 1;
    }
    text[cut..].to_string()
}

/// The id of a suite that is one command: the command without its placeholder and without
/// the variable assignments that follow its words (`make test CC='cc --coverage'` is
/// `make test`).
pub(crate) fn whole_suite_id(test: &str) -> String {
    let test = test.replace(" {tests}", "").replace("{tests}", "");
    let b = test.as_bytes();
    let mut cut = b.len();
    for i in 0..b.len() {
        if b[i] != b' ' {
            continue;
        }
        let word: Vec<u8> = b[i + 1..]
            .iter()
            .copied()
            .take_while(|c| *c != b'=' && *c != b' ')
            .collect();
        let assigns = b.get(i + 1 + word.len()) == Some(&b'=');
        let name = !word.is_empty()
            && !word[0].is_ascii_digit()
            && word.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_');
        if assigns && name {
            cut = i;
            break;
        }
    }
    test[..cut].trim().to_string()
}

pub(crate) fn run(
    ws: &Workspace,
    selected: Option<&[String]>,
    coverage: bool,
) -> Result<RawRun, Error> {
    let plan = &ws.prepared.plan;
    // The ids to run: the selection as given (a selected id that does not exist leaves no
    // result), or the listing.
    let ids: Vec<String> = match (selected, &plan.runner) {
        (Some(sel), _) => sel.to_vec(),
        (None, Runner::Ctest { build_dir }) => {
            let r = ws.sh(
                "ctest -N",
                &format!("cd {} && ctest -N", shell_quote(build_dir)),
                &[],
                Duration::from_secs(120),
            )?;
            if !r.outcome.success() {
                return Err(Error::Suite {
                    reason: format!("ctest could not list the tests ({})", r.outcome),
                    log_tail: String::new(),
                });
            }
            parse_ctest_list(&r.stdout.text())
        }
        (
            None,
            Runner::Command {
                list: Some(list), ..
            },
        ) => {
            let r = ws.sh("list tests", list, &[], Duration::from_secs(300))?;
            if !r.outcome.success() {
                return Err(Error::Suite {
                    reason: format!("the list command failed ({})", r.outcome),
                    log_tail: String::new(),
                });
            }
            r.stdout
                .text()
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .take(100_000)
                .map(str::to_string)
                .collect()
        }
        (None, Runner::Command { test, list: None }) => vec![whole_suite_id(test)],
        (None, other) => return Err(Error::Request(format!("{other:?} is not a C runner"))),
    };
    // (test id, shell script, time limit)
    let mut jobs: Vec<(String, String, Duration)> = Vec::new();
    for id in ids {
        match &plan.runner {
            Runner::Ctest { build_dir } => {
                let script = format!(
                    "cd {} && ctest -R {} --output-on-failure --no-tests=error --timeout {}",
                    shell_quote(build_dir),
                    shell_quote(&ctest_exact(&id)),
                    ws.per_test().as_secs()
                );
                jobs.push((id, script, ws.per_test() + Duration::from_secs(30)));
            }
            Runner::Command {
                test,
                list: Some(_),
            } => {
                let script = test.replace("{tests}", &shell_quote(&id));
                jobs.push((id, script, ws.per_test()));
            }
            Runner::Command { test, list: None } if id == whole_suite_id(test) => {
                jobs.push((id, test.replace("{tests}", ""), ws.suite_time()));
            }
            Runner::Command { .. } => {} // not a test of this suite: no result
            other => return Err(Error::Request(format!("{other:?} is not a C runner"))),
        }
    }
    if jobs.is_empty() {
        return Err(Error::Suite {
            reason: "no test to run".into(),
            log_tail: String::new(),
        });
    }
    // ctest runs what is built: after a rewrite, build again (incrementally) first. A build
    // that fails is every selected test's error. (`make test`/`make check` and recipes'
    // test commands build themselves.)
    if let (true, Runner::Ctest { build_dir }) = (ws.rewritten, &plan.runner) {
        let r = ws.sh(
            "rebuild",
            &format!("cmake --build {} -j 2", shell_quote(build_dir)),
            &[],
            ws.suite_time(),
        )?;
        if !r.outcome.success() {
            let message = format!(
                "the build failed after the rewrite ({}): {}",
                r.outcome,
                message_of(&r)
            );
            return Ok(RawRun {
                tests: jobs
                    .into_iter()
                    .map(|(id, _, _)| TestResult {
                        id,
                        file: None,
                        outcome: TestOutcome::Error,
                        seconds: 0.0,
                        message: Some(message.clone()),
                    })
                    .collect(),
                coverage: None,
                outcome: r.outcome,
                build_failed: Some(message),
            });
        }
    }

    let deadline = Instant::now() + ws.suite_time();
    let mut tests = Vec::new();
    let mut last = codemine_sandbox::Outcome::Exited { code: 0 };
    if coverage {
        ws.out_dir("gcov")?;
    }
    for (i, (id, script, limit)) in jobs.iter().enumerate() {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            tests.push(TestResult {
                id: id.clone(),
                file: None,
                outcome: TestOutcome::Timeout,
                seconds: 0.0,
                message: Some("the suite's time limit was used up before this test".into()),
            });
            continue;
        }
        let mut env: Vec<(&str, String)> = Vec::new();
        if coverage {
            ws.out_dir(&format!("gcov/{i}"))?;
            env.push(("GCOV_PREFIX", format!("{OUT}/gcov/{i}")));
            env.push(("GCOV_PREFIX_STRIP", "0".into()));
        }
        let t = Instant::now();
        let r = ws.sh(id, script, &env, (*limit).min(left))?;
        last = r.outcome;
        let out = r.stdout.text();
        let outcome = match r.outcome {
            codemine_sandbox::Outcome::Timeout => TestOutcome::Timeout,
            _ if out.contains("***Timeout") => TestOutcome::Timeout,
            _ if out.contains("***Not Run") => TestOutcome::Error,
            // --no-tests=error: the id names no test of the suite.
            _ if r.stderr.text().contains("No tests were found")
                || out.contains("No tests were found") =>
            {
                TestOutcome::Error
            }
            o if o.success() => TestOutcome::Passed,
            _ => TestOutcome::Failed,
        };
        tests.push(TestResult {
            id: id.clone(),
            file: None,
            outcome,
            seconds: t.elapsed().as_secs_f64(),
            message: (outcome != TestOutcome::Passed).then(|| message_of(&r)),
        });
    }

    let mut cov = None;
    if coverage {
        let script = format!(
            "i=0; while [ $i -lt {n} ]; do sh {TOOLS}/codemine_gcov.sh {OUT}/gcov/$i > {OUT}/gcov/$i.json; i=$((i+1)); done",
            n = jobs.len()
        );
        let r = ws.sh("gcov", &script, &[], ws.suite_time())?;
        if r.outcome.success() {
            let mut c = Coverage::with_tests(jobs.iter().map(|(id, _, _)| id.clone()).collect());
            for i in 0..jobs.len() {
                if let Some(bytes) = ws.read_out(&format!("gcov/{i}.json"))? {
                    add_gcov(&mut c, ws, &bytes, i as u32)?;
                }
            }
            cov = Some(c);
        } else {
            ws.note(&format!("codemine: gcov failed ({})", r.outcome));
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
    fn ctest_listing_and_exact_names() {
        let text = "Test project /codemine/repo/build\n  Test #1: unit.a\n  Test  #2: b c\n\nTotal Tests: 2\n";
        assert_eq!(parse_ctest_list(text), ["unit.a", "b c"]);
        assert_eq!(ctest_exact("unit.a+[x]"), r"^unit\.a\+\[x\]$");
    }

    #[test]
    fn a_whole_suite_is_named_by_its_command_words() {
        assert_eq!(
            whole_suite_id("make test CC='cc --coverage -O0 -g' CXX='c++ -O0'"),
            "make test"
        );
        assert_eq!(whole_suite_id("make check"), "make check");
        assert_eq!(whole_suite_id("./run.sh {tests}"), "./run.sh");
        assert_eq!(whole_suite_id("./t --opt=1 X=2"), "./t --opt=1");
    }

    #[test]
    fn paths_are_normalised_lexically() {
        assert_eq!(
            normalize(Path::new("/codemine/repo/build/../src/./a.c")),
            Path::new("/codemine/repo/src/a.c")
        );
    }
}
