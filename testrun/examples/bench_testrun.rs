//! A real repository's suite through codemine-testrun, and its agreement with the usual
//! coverage tools run by hand on the same prepared environment (in the sandbox too: the
//! repository's code never runs outside it).
//!
//! ```text
//! git --git-dir=/work/.mirror/psf+requests/repo archive v2.32.3 | tar -x -C /tmp/requests
//! cargo run --release -p codemine-testrun --example bench_testrun -- \
//!     --name psf/requests --commit v2.32.3 --tree /tmp/requests --cache /tmp/envs --reference
//! ```
//!
//! Prints: setup time (and whether the environment was reused), the suite's counts and
//! time, the functions (tree-sitter's `function_definition`s of the repository's non-test
//! files) with coverage and with at least one covering test, and with `--reference`:
//! - Python: pytest-cov (`--cov-context=test`, coverage.py's JSON report with contexts)
//!   against ours, per line: executable or not, executed or not, and the set of tests;
//! - C: gcov's text output (`gcov -t`) after one plain `ctest` run against ours, per line:
//!   executable or not, and the execution count (ours: the sum over per-test runs).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use codemine_sandbox::{Limits, Mount, Network, RunSpec, Sandbox, SandboxConfig};
use codemine_testrun::{Coverage, Language, Prepared, RepoSource, RunnerOptions, TestRunner};

struct Args {
    name: String,
    commit: String,
    tree: PathBuf,
    cache: PathBuf,
    reference: bool,
    /// Keep the reference's report here (`--keep-reference FILE`), to compare other
    /// columns with it (mine --run-tests's nodes, BENCHMARKS.md).
    keep: Option<PathBuf>,
}

fn args() -> Args {
    let mut a = Args {
        name: String::new(),
        commit: String::new(),
        tree: PathBuf::new(),
        cache: std::env::temp_dir().join("codemine-bench-envs"),
        reference: false,
        keep: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(k) = it.next() {
        match k.as_str() {
            "--name" => a.name = it.next().expect("--name NAME"),
            "--commit" => a.commit = it.next().expect("--commit REV"),
            "--tree" => a.tree = it.next().expect("--tree DIR").into(),
            "--cache" => a.cache = it.next().expect("--cache DIR").into(),
            "--reference" => a.reference = true,
            "--keep-reference" => a.keep = Some(it.next().expect("--keep-reference FILE").into()),
            other => panic!("unknown argument {other}"),
        }
    }
    assert!(
        !a.name.is_empty() && a.tree.is_dir(),
        "--name and --tree are required"
    );
    a
}

/// (path, start line, end line) of every function definition of the non-test source files.
fn function_spans(tree: &Path, language: Language) -> Vec<(String, u32, u32)> {
    let (lang, exts): (tree_sitter::Language, &[&str]) = match language {
        Language::Python => (tree_sitter_python::LANGUAGE.into(), &["py"]),
        Language::C => (tree_sitter_c::LANGUAGE.into(), &["c"]),
        Language::Javascript => panic!("no JavaScript grammar in this benchmark"),
    };
    let mut parser = tree_sitter::Parser::new();
    parser.set_language(&lang).unwrap();
    let mut out = Vec::new();
    let mut stack = vec![tree.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            let p = e.path();
            let rel = p.strip_prefix(tree).unwrap().to_string_lossy().into_owned();
            let ft = e.file_type().unwrap();
            if ft.is_dir() {
                let name = e.file_name().to_string_lossy().into_owned();
                if !name.starts_with('.')
                    && !["tests", "test", "docs", "fuzzing"].contains(&name.as_str())
                {
                    stack.push(p);
                }
                continue;
            }
            if !ft.is_file()
                || !exts.iter().any(|x| rel.ends_with(&format!(".{x}")))
                || rel == "test.c"
            {
                continue;
            }
            let src = std::fs::read(&p).unwrap();
            let t = parser.parse(&src, None).unwrap();
            let mut cursor = t.walk();
            // Preorder walk with a cursor (no recursion).
            'walk: loop {
                let n = cursor.node();
                if n.kind() == "function_definition" {
                    out.push((
                        rel.clone(),
                        n.start_position().row as u32 + 1,
                        n.end_position().row as u32 + 1,
                    ));
                }
                if cursor.goto_first_child() {
                    continue;
                }
                while !cursor.goto_next_sibling() {
                    if !cursor.goto_parent() {
                        break 'walk;
                    }
                }
            }
        }
    }
    out.sort();
    out
}

/// A sandboxed shell in the prepared environment (a copy-on-write view of the repository,
/// the environment read-only, `/codemine/out` writable), for the reference tools.
fn reference_run(sb: &Sandbox, p: &Prepared, script: &str, out: &Path, scratch: &Path) -> String {
    let path = format!("/codemine/env/venv/bin:{}", codemine_sandbox::DEFAULT_PATH);
    let spec = RunSpec::new(["/bin/sh", "-c", script])
        .cwd("/codemine/repo")
        .env("PATH", path)
        .env("HOME", "/codemine/home")
        .env("LANG", "C.UTF-8")
        .mount(Mount::overlay(p.repo_dir(), scratch, "/codemine/repo"))
        .mount(Mount::read_only(p.env_dir(), "/codemine/env"))
        .mount(Mount::writable(out, "/codemine/out"))
        .mount(Mount::tmpfs("/codemine/home"))
        .network(Network::None)
        .limits(Limits {
            wall: Duration::from_secs(3600),
            ..Limits::default()
        });
    let r = sb.run(&spec).expect("reference run");
    format!("{}: {}{}", r.outcome, r.stdout.text(), r.stderr.text())
}

fn python_reference(sb: &Sandbox, p: &Prepared, ours: &Coverage, keep: Option<&Path>) {
    let tmp = tempfile::tempdir().unwrap();
    let (out, scratch) = (tmp.path().join("out"), tmp.path().join("scratch"));
    std::fs::create_dir(&out).unwrap();
    std::fs::create_dir(&scratch).unwrap();
    sb.hand_over(&out, true).unwrap();
    std::fs::write(out.join("rc"), "[json]\nshow_contexts = True\n").unwrap();
    let pkg = p.repo.rsplit('/').next().unwrap();
    let t = Instant::now();
    let log = reference_run(
        sb,
        p,
        &format!(
            "python -m pytest -q -p no:cacheprovider --cov={pkg} --cov-context=test --cov-config=/codemine/out/rc \
             --cov-report=json:/codemine/out/ref.json"
        ),
        &out,
        &scratch,
    );
    println!(
        "reference pytest-cov run: {:.1} s",
        t.elapsed().as_secs_f64()
    );
    let Ok(bytes) = std::fs::read(out.join("ref.json")) else {
        println!(
            "no reference report: {}",
            &log[log.len().saturating_sub(3000)..]
        );
        return;
    };
    if let Some(keep) = keep {
        std::fs::write(keep, &bytes).unwrap();
    }
    let json: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
    let files = json["files"].as_object().unwrap();
    let (mut lines, mut coverable_same, mut executed_same, mut tests_same, mut tested_lines) =
        (0, 0, 0, 0, 0);
    let mut examples = Vec::new();
    for (path, f) in files {
        let executed: BTreeSet<u64> = f["executed_lines"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|v| v.as_u64())
            .collect();
        let missing: BTreeSet<u64> = f["missing_lines"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|v| v.as_u64())
            .collect();
        let contexts = f["contexts"].as_object();
        for &line in executed.union(&missing) {
            lines += 1;
            let mine = ours.line(path, line as u32);
            coverable_same += u32::from(mine.is_some());
            executed_same += u32::from(mine.map(|l| l.hits > 0) == Some(executed.contains(&line)));
            let theirs: BTreeSet<String> = contexts
                .and_then(|c| c.get(&line.to_string()))
                .and_then(|v| v.as_array())
                .map(|a| {
                    a.iter()
                        .filter_map(|c| c.as_str())
                        .filter(|c| !c.is_empty())
                        .map(|c| c.rsplit_once('|').map_or(c, |(id, _)| id).to_string())
                        .collect()
                })
                .unwrap_or_default();
            let mine_tests: BTreeSet<String> = ours
                .tests_of_line(path, line as u32)
                .into_iter()
                .map(str::to_string)
                .collect();
            if !theirs.is_empty() || !mine_tests.is_empty() {
                tested_lines += 1;
                if theirs == mine_tests {
                    tests_same += 1;
                } else if examples.len() < 5 {
                    let only_theirs: Vec<_> = theirs.difference(&mine_tests).take(3).collect();
                    let only_mine: Vec<_> = mine_tests.difference(&theirs).take(3).collect();
                    examples.push(format!(
                        "{path}:{line}: only pytest-cov {only_theirs:?}, only ours {only_mine:?}"
                    ));
                }
            }
        }
    }
    println!(
        "agreement with pytest-cov over {} files, {lines} executable lines: executable {coverable_same} ({:.2}%), \
         executed {executed_same} ({:.2}%); lines run by a test: {tested_lines}, same set of tests {tests_same} ({:.2}%)",
        files.len(),
        100.0 * f64::from(coverable_same) / f64::from(lines.max(1)),
        100.0 * f64::from(executed_same) / f64::from(lines.max(1)),
        100.0 * f64::from(tests_same) / f64::from(tested_lines.max(1)),
    );
    for e in examples {
        println!("  {e}");
    }
}

/// Per (file, line): the count of `gcov -t`'s text output, summed over objects.
fn parse_gcov_text(text: &str) -> BTreeMap<(String, u32), u64> {
    let mut out = BTreeMap::new();
    let mut file: Option<String> = None;
    for l in text.lines() {
        let mut parts = l.splitn(3, ':');
        let (Some(count), Some(line), rest) = (parts.next(), parts.next(), parts.next()) else {
            continue;
        };
        let (count, line) = (count.trim(), line.trim());
        if line == "0" {
            if let Some(src) = rest.and_then(|r| r.strip_prefix("Source:")) {
                file = Some(src.to_string());
            }
            continue;
        }
        let (Some(f), Ok(line)) = (&file, line.parse::<u32>()) else {
            continue;
        };
        let hits = match count {
            "-" => continue,
            "#####" | "=====" => 0,
            c => c.trim_end_matches('*').parse().unwrap_or(0),
        };
        *out.entry((f.clone(), line)).or_insert(0) += hits;
    }
    out
}

fn c_reference(sb: &Sandbox, p: &Prepared, ours: &Coverage) {
    let tmp = tempfile::tempdir().unwrap();
    let (out, scratch) = (tmp.path().join("out"), tmp.path().join("scratch"));
    std::fs::create_dir(&out).unwrap();
    std::fs::create_dir(&scratch).unwrap();
    sb.hand_over(&out, true).unwrap();
    let t = Instant::now();
    let log = reference_run(
        sb,
        p,
        "cd build-codemine && ctest > /codemine/out/ctest.txt 2>&1; \
         find . -name '*.gcda' | while read -r f; do (cd \"$(dirname \"$f\")\" && gcov -t \"$(basename \"$f\")\" 2>/dev/null); done \
         > /codemine/out/ref.gcov.txt",
        &out,
        &scratch,
    );
    println!(
        "reference ctest + gcov run: {:.1} s ({})",
        t.elapsed().as_secs_f64(),
        log.lines().next().unwrap_or("")
    );
    let text = std::fs::read_to_string(out.join("ref.gcov.txt")).unwrap_or_default();
    let reference = parse_gcov_text(&text);
    let (mut lines, mut coverable_same, mut counts_same) = (0, 0, 0);
    let mut examples = Vec::new();
    for ((file, line), hits) in &reference {
        let Some(rel) = file.strip_prefix("/codemine/repo/") else {
            continue;
        };
        lines += 1;
        let mine = ours.line(rel, *line);
        coverable_same += u32::from(mine.is_some());
        if mine.map(|l| l.hits) == Some(*hits) {
            counts_same += 1;
        } else if examples.len() < 5 {
            examples.push(format!(
                "{rel}:{line}: gcov {hits}, ours {:?}",
                mine.map(|l| l.hits)
            ));
        }
    }
    println!(
        "agreement with gcov over {lines} executable lines: executable {coverable_same} ({:.2}%), same count {counts_same} ({:.2}%)",
        100.0 * f64::from(coverable_same) / f64::from(lines.max(1)),
        100.0 * f64::from(counts_same) / f64::from(lines.max(1)),
    );
    for e in examples {
        println!("  {e}");
    }
}

/// pass@k's per-sample cost: 20 passing tests, each run alone with one file rewritten (to
/// its own content), as `eval --execute` will: the call's time against the sandboxed
/// command's own, and against the test's own duration as its runner reports it.
fn pass_at_k_overhead(runner: &TestRunner, p: &Prepared, suite: &codemine_testrun::SuiteRun) {
    // The largest covered source file (not a test, not setup.py) is the one rewritten.
    let rewrite_path = suite.coverage.as_ref().and_then(|c| {
        c.files
            .iter()
            .filter(|(f, _)| {
                !f.starts_with("test") && !f.ends_with("setup.py") && p.repo_dir().join(f).is_file()
            })
            .max_by_key(|(_, lines)| lines.len())
            .map(|(f, _)| f.clone())
    });
    let Some(path) = rewrite_path else { return };
    let content = std::fs::read(p.repo_dir().join(&path)).unwrap();
    let picks: Vec<_> = suite
        .tests
        .iter()
        .filter(|t| t.outcome == codemine_testrun::TestOutcome::Passed)
        .step_by((suite.tests.len() / 20).max(1))
        .take(20)
        .collect();
    let (mut total, mut beyond_command, mut beyond_test) = (Vec::new(), Vec::new(), Vec::new());
    for t in &picks {
        let rw = codemine_testrun::Rewrite {
            path: path.clone(),
            content: content.clone(),
        };
        let r = runner
            .run_selected(p, std::slice::from_ref(&t.id), &[rw])
            .unwrap();
        assert!(r.passed(), "{}: {:?}\n{}", t.id, r.tests, r.log_tail);
        total.push(r.seconds);
        beyond_command.push(r.seconds - r.command_seconds);
        beyond_test.push(r.seconds - r.tests[0].seconds);
    }
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied().unwrap_or(0.0) * 1e3
    };
    println!(
        "pass@k samples ({} tests alone, {path} rewritten): median {:.0} ms per sample; beyond the sandboxed \
         commands {:.1} ms; beyond the test's own reported time {:.0} ms",
        picks.len(),
        median(total),
        median(beyond_command),
        median(beyond_test)
    );
}

fn main() {
    let a = args();
    let sandbox = Arc::new(Sandbox::new(SandboxConfig::default()).expect("sandbox"));
    let runner = TestRunner::new(sandbox.clone(), a.cache.clone(), RunnerOptions::default())
        .expect("runner");
    let repo = RepoSource {
        name: &a.name,
        commit: &a.commit,
        tree: &a.tree,
    };
    let t = Instant::now();
    let prepared = match runner.prepare(&repo, None) {
        Ok(p) => p,
        Err(e) => panic!("{e}\n{}", e.log_tail().unwrap_or_default()),
    };
    println!(
        "{} at {}: {:?} {:?}, prepared in {:.1} s (setup {:.1} s, reused: {})",
        a.name,
        a.commit,
        prepared.plan.language,
        prepared.plan.runner,
        t.elapsed().as_secs_f64(),
        prepared.setup_seconds,
        prepared.reused
    );
    let t = Instant::now();
    let suite = match runner.run_suite(&prepared) {
        Ok(s) => s,
        Err(e) => panic!("{e}\n{}", e.log_tail().unwrap_or_default()),
    };
    let s = &suite.stats;
    println!(
        "suite: {:.1} s; tests run {}, passed {}, failed {}, errors {}, timeouts {}, skipped {}",
        t.elapsed().as_secs_f64(),
        s.tests_run,
        s.passed,
        s.failed,
        s.errors,
        s.timeouts,
        s.skipped
    );
    let mut secs: Vec<f64> = suite.tests.iter().map(|t| t.seconds).collect();
    secs.sort_by(f64::total_cmp);
    println!(
        "per test: median {:.3} s, max {:.3} s, sum {:.1} s",
        secs.get(secs.len() / 2).copied().unwrap_or(0.0),
        secs.last().copied().unwrap_or(0.0),
        secs.iter().sum::<f64>()
    );
    for f in suite
        .tests
        .iter()
        .filter(|t| {
            t.outcome != codemine_testrun::TestOutcome::Passed
                && t.outcome != codemine_testrun::TestOutcome::Skipped
        })
        .take(8)
    {
        let msg = f
            .message
            .as_deref()
            .unwrap_or("")
            .lines()
            .last()
            .unwrap_or("");
        println!(
            "  {:?} {}: {}",
            f.outcome,
            f.id,
            msg.chars().take(160).collect::<String>()
        );
    }
    let Some(cov) = &suite.coverage else {
        println!("no coverage");
        return;
    };
    let spans = function_spans(&a.tree, prepared.plan.language);
    let figures = cov.functions(spans.iter().map(|(p, s, e)| (p.as_str(), *s, *e)));
    let with_cov = figures.iter().filter(|f| f.is_some()).count();
    let covered = figures
        .iter()
        .flatten()
        .filter(|f| !f.covering_tests.is_empty())
        .count();
    println!(
        "functions: {}, in files with coverage {}, with at least one covering test {} ({:.1}%)",
        spans.len(),
        with_cov,
        covered,
        100.0 * covered as f64 / spans.len().max(1) as f64
    );
    pass_at_k_overhead(&runner, &prepared, &suite);
    if a.reference {
        match prepared.plan.language {
            Language::Python => python_reference(&sandbox, &prepared, cov, a.keep.as_deref()),
            Language::C => c_reference(&sandbox, &prepared, cov),
            Language::Javascript => println!("no reference for JavaScript here"),
        }
    }
}
