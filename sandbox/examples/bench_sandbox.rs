//! What the sandbox costs: the time it adds per started process tree, and the share it
//! adds to a suite's own time, each against the same command run directly (a plain
//! `std::process::Command`, no limits) and without namespaces (`no_sandbox`: cgroups and
//! rlimits only).
//!
//! ```text
//! cargo run --release -p codemine-sandbox --example bench_sandbox [-- RUNS]
//! ```
//!
//! Workloads (each a "suite" of the kind a test run is made of):
//! - `true`: an empty process tree (the fixed cost per start),
//! - `python`: one Python process importing and computing for about a second,
//! - `processes`: a shell starting 400 short processes (a `make test` of many binaries),
//! - `files`: 4000 small files written, read back and removed in the writable folder,
//! - `cpython`: with `--python-suite PYTHON`, seven modules of CPython's own test suite
//!   (`PYTHON -m test test_json test_difflib ...`, about 1,000 tests) — a real suite that is
//!   not a mined repository's, so it may also run outside the sandbox for the comparison.
//!   The interpreter's prefix is bound read-only when it is not under `/usr`.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use codemine_sandbox::{Limits, Mount, RunSpec, Sandbox, SandboxConfig};

const PYTHON: &str = "import json, re, decimal, fractions, statistics\n\
s = 0\n\
for i in range(300000):\n    s += len(json.dumps({'a': i, 'b': [i, str(i)]}))\n\
print(s)";
const PROCESSES: &str = "i=0; while [ $i -lt 400 ]; do /bin/true; i=$((i+1)); done";
const FILES: &str = "cd \"$WORK\" && i=0; while [ $i -lt 4000 ]; do echo $i > f$i; i=$((i+1)); done; cat f* > /dev/null; rm f*";

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn p95(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[(v.len() * 95 / 100).min(v.len() - 1)]
}

fn direct(argv: &[&str], work: &Path) -> Duration {
    let start = Instant::now();
    let st = Command::new(argv[0])
        .args(&argv[1..])
        .env_clear()
        .env("PATH", codemine_sandbox::DEFAULT_PATH)
        .env("WORK", work)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .expect("runs");
    assert!(
        st.status.success(),
        "{argv:?}: {}",
        String::from_utf8_lossy(&st.stderr)
    );
    start.elapsed()
}

fn boxed(sb: &Sandbox, argv: &[&str], work: &Path, inside: &str, extra: &[Mount]) -> Duration {
    let mut spec = RunSpec::new(argv.iter().copied()).limits(Limits {
        wall: Duration::from_secs(600),
        ..Limits::default()
    });
    if sb.info().sandboxed {
        spec.mounts.extend(extra.iter().cloned());
    }
    if sb.info().sandboxed {
        spec = spec
            .mount(Mount::writable(work, inside))
            .env("WORK", inside);
    } else {
        spec = spec.env("WORK", work);
    }
    let start = Instant::now();
    let r = sb.run(&spec).expect("runs");
    let t = start.elapsed();
    assert!(
        r.outcome.success(),
        "{argv:?}: {} {}",
        r.outcome,
        r.stderr.text()
    );
    t
}

fn main() {
    let mut runs: usize = 20;
    let mut python_suite: Option<String> = None;
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--python-suite" => python_suite = it.next(),
            n => runs = n.parse().expect("RUNS or --python-suite PYTHON"),
        }
    }
    let sandboxed = Sandbox::new(SandboxConfig::default()).expect("sandbox");
    let unsandboxed = Sandbox::new(SandboxConfig {
        no_sandbox: true,
        ..SandboxConfig::default()
    })
    .expect("no sandbox");
    println!("{:?}", sandboxed.info());
    let work = tempfile::tempdir().expect("tempdir");
    sandboxed.hand_over(work.path(), true).expect("hand over");
    let inside = "/work/scratch";

    let mut workloads: Vec<(&str, Vec<&str>, usize, Vec<Mount>)> = vec![
        ("true", vec!["/bin/true"], runs * 5, vec![]),
        (
            "python",
            vec!["python3", "-c", PYTHON],
            runs.div_ceil(2),
            vec![],
        ),
        (
            "processes",
            vec!["/bin/sh", "-c", PROCESSES],
            runs.div_ceil(2),
            vec![],
        ),
        (
            "files",
            vec!["/bin/sh", "-c", FILES],
            runs.div_ceil(2),
            vec![],
        ),
    ];
    if let Some(py) = &python_suite {
        let real = std::fs::canonicalize(py).expect("the Python exists");
        let prefix = real
            .parent()
            .and_then(Path::parent)
            .expect("PREFIX/bin/python")
            .to_path_buf();
        let mounts = if prefix.starts_with("/usr") {
            vec![]
        } else {
            vec![Mount::read_only(&prefix, &prefix)]
        };
        let argv = [
            py.as_str(),
            "-m",
            "test",
            "-q",
            "test_json",
            "test_difflib",
            "test_textwrap",
            "test_statistics",
            "test_re",
            "test_csv",
            "test_fractions",
        ];
        workloads.push(("cpython", argv.to_vec(), runs.div_ceil(4).max(3), mounts));
    }
    println!(
        "{:<10} {:>5} {:>12} {:>12} {:>12} {:>12} {:>10} {:>12}",
        "workload",
        "runs",
        "direct ms",
        "no_sandbox",
        "sandboxed",
        "added ms",
        "added %",
        "added p95"
    );
    for (name, argv, n, mounts) in workloads {
        // Interleaved, so that the machine's load drifts the same for the three.
        let (mut d, mut u, mut s) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..n {
            d.push(direct(&argv, work.path()));
            u.push(boxed(&unsandboxed, &argv, work.path(), inside, &mounts));
            s.push(boxed(&sandboxed, &argv, work.path(), inside, &mounts));
        }
        let (dm, um, sm) = (median(d.clone()), median(u), median(s.clone()));
        let added = sm.as_secs_f64() - dm.as_secs_f64();
        let pairs: Vec<Duration> = s
            .iter()
            .zip(&d)
            .map(|(s, d)| s.saturating_sub(*d))
            .collect();
        println!(
            "{:<10} {:>5} {:>12.1} {:>12.1} {:>12.1} {:>12.1} {:>9.1}% {:>12.1}",
            name,
            n,
            dm.as_secs_f64() * 1e3,
            um.as_secs_f64() * 1e3,
            sm.as_secs_f64() * 1e3,
            added * 1e3,
            100.0 * added / dm.as_secs_f64(),
            p95(pairs).as_secs_f64() * 1e3
        );
    }
}
