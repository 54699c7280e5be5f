//! End to end: bad input gets a clear reason and nothing else is lost. Every broken
//! repository and file of docs/design.md's list sits next to a good one in the same run.

use std::fs;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use harness::*;
use serde_json::Value;

const GOOD_PY: &str = "def ok():\n    \"\"\"Still mined.\"\"\"\n    return 1\n";

fn run(args: &[&str], tmp: &Path) -> (std::path::PathBuf, std::process::Output) {
    let out = tmp.join("out");
    let mut all = vec!["mine", "--out", out.to_str().unwrap()];
    all.extend_from_slice(args);
    let res = codemine(&all, &tmp.join("cache"));
    (out, res)
}

fn by_kind<'a>(fails: &'a [Value], kind: &str) -> Vec<&'a Value> {
    fails.iter().filter(|f| f["kind"] == kind).collect()
}

#[test]
fn broken_repositories_are_recorded_and_the_rest_is_mined() {
    let tmp = tempfile::tempdir().unwrap();
    let mut good = RepoBuilder::init(&tmp.path().join("good"));
    good.write("a.py", GOOD_PY);
    good.commit("one");

    // Garbage in HEAD: libgit2 cannot open it.
    let mut corrupt = RepoBuilder::init(&tmp.path().join("corrupt"));
    corrupt.write("a.py", GOOD_PY);
    corrupt.commit("one");
    fs::write(corrupt.path.join(".git/HEAD"), "garbage\n").unwrap();

    // The tree object is gone: the commit resolves but cannot be listed.
    let mut missing = RepoBuilder::init(&tmp.path().join("missing"));
    missing.write("a.py", GOOD_PY);
    let c = missing.commit("one");
    let tree = missing.repo.find_commit(c).unwrap().tree_id().to_string();
    fs::remove_file(
        missing
            .path
            .join(format!(".git/objects/{}/{}", &tree[..2], &tree[2..])),
    )
    .unwrap();

    // No supported files: zero rows, not a failure.
    let mut docs = RepoBuilder::init(&tmp.path().join("docs-only"));
    docs.write("README.md", "# docs\n").write("notes.txt", "x");
    docs.commit("one");

    let empty = RepoBuilder::init(&tmp.path().join("no-commits"));

    let good_path = good.path.to_str().unwrap();
    let (out, res) = run(
        &[
            "--repo",
            "/definitely/not/here",
            "--repo",
            "file:///definitely/not/there.git",
            "--repo",
            &format!("{good_path}@no-such-branch"),
            "--repo",
            corrupt.path.to_str().unwrap(),
            "--repo",
            missing.path.to_str().unwrap(),
            "--repo",
            docs.path.to_str().unwrap(),
            "--repo",
            empty.path.to_str().unwrap(),
            "--repo",
            good_path,
        ],
        tmp.path(),
    );
    assert_success(&res);
    let fails = failures(&out);
    let kinds: Vec<&str> = fails.iter().map(|f| f["kind"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        [
            "path_not_found",
            "unreachable",
            "revision_not_found",
            "corrupt_repository",
            "corrupt_repository",
            "no_commits"
        ]
    );
    for f in &fails {
        assert_eq!(f["stage"], "source");
        assert!(f["path"].is_null());
        assert!(!f["reason"].as_str().unwrap().is_empty());
    }
    assert!(fails[0]["reason"]
        .as_str()
        .unwrap()
        .contains("/definitely/not/here"));
    assert!(fails[2]["reason"]
        .as_str()
        .unwrap()
        .contains("no-such-branch"));

    let rows = shard_rows(&out.join("csn"));
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["docstring"], "Still mined.");
    let stats = stats(&out);
    assert_eq!(stats["stages"]["source"]["repositories"], 8);
    assert_eq!(stats["stages"]["source"]["opened"], 2);
    let docs_stats = stats["repositories"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["repo"] == "docs-only")
        .unwrap();
    assert_eq!(docs_stats["status"], "mined");
    assert_eq!(docs_stats["totals"]["csn_rows"], 0);
    // Failures are reported on stderr too, by location.
    let stderr = String::from_utf8_lossy(&res.stderr);
    assert!(stderr.contains("/definitely/not/here failed"), "{stderr}");
}

#[test]
fn broken_files_are_recorded_and_the_rest_is_mined() {
    let tmp = tempfile::tempdir().unwrap();
    let mut r = RepoBuilder::init(&tmp.path().join("files"));
    r.write("good.py", GOOD_PY)
        .write("latin1.py", b"def f():\n    \"\"\"Caf\xe9.\"\"\"\n    return 1\n")
        .write("big.py", format!("{GOOD_PY}# {}\n", "x".repeat(4000)))
        .write("blob.c", b"\x7fELF\x02\x01\x01\x00\x00\x00int main(void) { return 0; }\n")
        .write("partial.java", "class A {\n  /** Fine. */\n  int ok() { return 1; }\n  /** Broken. */\n  int bad() { return (; }\n  /** Bad signature. */\n  int sig(int a,, int b) { return a; }\n}\n")
        .symlink("escape.py", "/etc/passwd")
        .symlink("inside.py", "good.py");
    r.commit("one");
    let (out, res) = run(
        &["--max-file-bytes", "1K", "--repo", r.path.to_str().unwrap()],
        tmp.path(),
    );
    assert_success(&res);
    let fails = failures(&out);
    let found = |kind: &str| {
        let f = by_kind(&fails, kind);
        assert_eq!(f.len(), 1, "{kind}: {fails:?}");
        (
            f[0]["path"].as_str().unwrap().to_string(),
            f[0]["reason"].as_str().unwrap().to_string(),
        )
    };
    let (path, reason) = found("non_utf8");
    assert_eq!(path, "latin1.py");
    // 0xE9 follows `def f():\n` (9 bytes), 4 spaces, `"""` and `Caf`: offset 19.
    assert!(reason.contains("offset 19"), "{reason}");
    let (path, reason) = found("too_large");
    assert_eq!(path, "big.py");
    assert!(reason.contains("1024"), "{reason}");
    assert_eq!(found("binary").0, "blob.c");
    assert_eq!(fails.len(), 3);
    for f in &fails {
        assert_eq!(f["stage"], "extract");
        assert_eq!(f["repo"], "files");
    }

    let rows = shard_rows(&out.join("csn"));
    let mut names: Vec<&str> = rows
        .iter()
        .map(|r| r["func_name"].as_str().unwrap())
        .collect();
    names.sort();
    // The symlinks are not followed (one would duplicate good.py, one leaves the repo).
    // `A.bad` has a syntax error in its body only: kept. `A.sig`'s signature is broken.
    assert_eq!(names, ["A.bad", "A.ok", "ok"]);
    let stats = stats(&out);
    assert_eq!(stats["stages"]["source"]["skipped"]["symlinks"], 2);
    assert_eq!(stats["stages"]["extract"]["files_failed"]["non_utf8"], 1);
    assert_eq!(stats["stages"]["extract"]["files_failed"]["too_large"], 1);
    assert_eq!(stats["stages"]["extract"]["files_failed"]["binary"], 1);
    assert_eq!(stats["stages"]["extract"]["dropped_syntax_error"], 1);
    assert_eq!(
        stats["stages"]["extract"]["functions_with_syntax_errors"],
        1
    );
    assert_eq!(stats["languages"]["java"]["files_with_syntax_errors"], 1);
}

#[test]
fn deeply_nested_code_does_not_crash() {
    let tmp = tempfile::tempdir().unwrap();
    let mut r = RepoBuilder::init(&tmp.path().join("deep"));
    let depth = 50_000;
    let c = format!(
        "/* Deep. */\nint deep(void) {{\n{}return 1;{}\n}}\n",
        "{".repeat(depth),
        "}".repeat(depth)
    );
    let py = format!(
        "def deep():\n    \"\"\"Deep.\"\"\"\n    return {}1{}\n",
        "(".repeat(depth),
        ")".repeat(depth)
    );
    r.write("deep.c", c)
        .write("deep.py", py)
        .write("good.py", GOOD_PY);
    r.commit("one");
    let (out, res) = run(
        &[
            "--max-file-bytes",
            "10M",
            "--repo",
            r.path.to_str().unwrap(),
        ],
        tmp.path(),
    );
    assert_success(&res);
    let rows = shard_rows(&out.join("csn"));
    let c_row = find_row(&rows, "language", "c");
    assert_eq!(c_row["func_name"], "deep");
    assert_eq!(
        c_row["code_tokens"].as_array().unwrap().len(),
        2 * depth + 10
    );
    assert!(rows.iter().any(|r| r["func_name"] == "ok"));
}

#[test]
fn an_interrupted_run_leaves_no_shard_that_looks_complete() {
    let tmp = tempfile::tempdir().unwrap();
    let mut r = RepoBuilder::init(&tmp.path().join("big"));
    for i in 0..400 {
        let body: String = (0..40)
            .map(|j| format!("def f{j}(x):\n    \"\"\"Doc {i} {j} of a function.\"\"\"\n    return x + {j}\n\n"))
            .collect();
        r.write(&format!("m{i}.py"), body);
    }
    r.commit("one");
    let out = tmp.path().join("out");
    for delay_ms in [50u64, 300, 800] {
        let mut child = Command::new(binary())
            .args([
                "mine",
                "-j",
                "1",
                "--shard-rows",
                "2000",
                // Every file holds the same 40 functions: dedup would keep one copy.
                "--no-dedup",
                "--out",
                out.to_str().unwrap(),
                "--repo",
            ])
            .arg(&r.path)
            .env("CODEMINE_CACHE", tmp.path().join("cache"))
            .env("CI", "1")
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(delay_ms));
        child.kill().unwrap();
        child.wait().unwrap();
        // Whatever was on disk when the process died: every *.parquet reads completely.
        let csn = out.join("csn");
        if csn.exists() {
            let shards = read_shards(&csn);
            for (name, s) in shards.as_object().unwrap() {
                assert_eq!(
                    s["rows"].as_array().unwrap().len() as u64,
                    s["num_rows"].as_u64().unwrap(),
                    "{name}"
                );
            }
        }
    }
    // A rerun replaces whatever the killed runs left.
    let (out, res) = run(
        &[
            "--shard-rows",
            "2000",
            "--no-dedup",
            "--repo",
            r.path.to_str().unwrap(),
        ],
        tmp.path(),
    );
    assert_success(&res);
    assert_eq!(shard_rows(&out.join("csn")).len(), 400 * 40);
    let leftovers: Vec<_> = fs::read_dir(out.join("csn"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.ends_with(".parquet"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

/// A blob's or a tree's sha given as `@REV` names an object that exists: the failure says
/// it is not a commit (`git rev-parse` tells the object type) rather than "not found".
#[test]
fn a_blob_or_tree_revision_is_not_a_commit() {
    let tmp = tempfile::tempdir().unwrap();
    let mut r = RepoBuilder::init(&tmp.path().join("objs"));
    r.write("a.py", GOOD_PY);
    r.commit("one");
    let blob = git(&r.path, &["rev-parse", "HEAD:a.py"]);
    let tree = git(&r.path, &["rev-parse", "HEAD^{tree}"]);
    assert_eq!(git(&r.path, &["cat-file", "-t", &blob]), "blob");
    assert_eq!(git(&r.path, &["cat-file", "-t", &tree]), "tree");
    let p = r.path.to_str().unwrap();
    let (out, res) = run(
        &[
            "--repo",
            &format!("{p}@{blob}"),
            "--repo",
            &format!("{p}@{}", &tree[..10]),
            "--repo",
            p,
        ],
        tmp.path(),
    );
    assert_success(&res);
    let fails = failures(&out);
    assert_eq!(fails.len(), 2, "{fails:?}");
    for (f, (sha, kind)) in fails
        .iter()
        .zip([(&blob[..], "blob"), (&tree[..10], "tree")])
    {
        assert_eq!(f["kind"], "revision_not_a_commit");
        assert_eq!(f["stage"], "source");
        let reason = f["reason"].as_str().unwrap();
        assert!(
            reason.contains(sha) && reason.contains(&format!("a {kind}, not a commit")),
            "{reason}"
        );
    }
}

/// A FIFO and a character device in a plain folder are listed as special files and never
/// opened: the run neither blocks on the FIFO nor reads the endless device, and the regular
/// file next to them is mined. (The run is killed after 60 s, so a regression fails instead
/// of hanging.)
#[test]
fn special_files_are_skipped_without_being_opened() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("special");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("ok.py"),
        "def ok():\n    \"\"\"Fine.\"\"\"\n    return 1\n",
    )
    .unwrap();
    let made = |cmd: &mut Command| cmd.status().map(|s| s.success()).unwrap_or(false);
    assert!(made(Command::new("mkfifo").arg(dir.join("x.py"))), "mkfifo");
    // /dev/zero's numbers; mknod needs root (the tests run as root here and in CI).
    let device = made(
        Command::new("mknod")
            .arg(dir.join("zero.c"))
            .args(["c", "1", "5"]),
    );
    if !device {
        eprintln!("mknod not permitted: the device part is not checked");
    }
    let out = tmp.path().join("out");
    let mut child = Command::new(binary())
        .args([
            "mine",
            "--repo",
            dir.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ])
        .args(["--cache", tmp.path().join("cache").to_str().unwrap()])
        .args(["--max-file-bytes", "1048576", "--no-dedup"])
        .env("CI", "1")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed().as_secs() > 60 {
            child.kill().unwrap();
            panic!("codemine mine did not finish within 60 s on a folder with special files");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    assert!(status.success());
    let rows = shard_rows(&out.join("csn"));
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["func_name"], "ok");
    let skipped = &stats(&out)["stages"]["source"]["skipped"];
    assert_eq!(skipped["special"], if device { 2 } else { 1 });
}

/// Peak resident memory (KiB) of `codemine ARGS`, measured from outside: a Python parent
/// runs it and reads `getrusage(RUSAGE_CHILDREN).ru_maxrss`. Returns the peak and whether
/// the run succeeded.
fn mine_measured(args: &[&str], cache: &Path) -> (u64, bool) {
    let script = "import json, resource, subprocess, sys\n\
                  code = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode\n\
                  peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n\
                  print(json.dumps({'peak_kib': peak, 'code': code}))";
    let bin = binary();
    let mut all = vec!["-c", script, bin.to_str().unwrap()];
    all.extend_from_slice(args);
    let out = Command::new(python())
        .args(&all)
        .env("CODEMINE_CACHE", cache)
        .env("CI", "1")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    (v["peak_kib"].as_u64().unwrap(), v["code"] == 0)
}

/// A gzip bomb (3 GiB of zeros in about 3 MB, written as concatenated gzip members, which
/// gunzip reads as one stream) attached as a coverage report is refused at the default
/// 1 GiB limit with a `coverage_too_large` failure naming it and the limit, and the run
/// never holds the inflated text: its peak memory stays far below the bomb's size. The
/// repository itself is mined. A plain report over `--max-report-bytes` is refused the
/// same way, and one under it is read.
#[test]
fn a_coverage_gzip_bomb_is_refused_in_bounded_memory() {
    use std::io::Write;
    let tmp = tempfile::tempdir().unwrap();
    let mut repo = RepoBuilder::init(&tmp.path().join("calc"));
    repo.write("calc.py", GOOD_PY);
    repo.commit("one");
    let bomb = tmp.path().join("bomb.info.gz");
    {
        let mut member = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        let zeros = vec![0u8; 1 << 20];
        for _ in 0..64 {
            member.write_all(&zeros).unwrap();
        }
        let member = member.finish().unwrap();
        let mut file = std::io::BufWriter::new(fs::File::create(&bomb).unwrap());
        for _ in 0..48 {
            file.write_all(&member).unwrap();
        }
        file.flush().unwrap();
    }
    let bomb_size = fs::metadata(&bomb).unwrap().len();
    assert!(bomb_size < 8 << 20, "{bomb_size}");
    let out = tmp.path().join("out");
    let (peak_kib, ok) = mine_measured(
        &[
            "mine",
            "--repo",
            repo.path.to_str().unwrap(),
            "--coverage",
            bomb.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--no-dedup",
        ],
        &tmp.path().join("cache"),
    );
    eprintln!("peak memory refusing the bomb: {} MiB", peak_kib >> 10);
    assert!(ok, "the run failed");
    let fails = failures(&out);
    let too_large = by_kind(&fails, "coverage_too_large");
    assert_eq!(too_large.len(), 1, "{fails:?}");
    assert_eq!(too_large[0]["path"], bomb.to_str().unwrap());
    assert_eq!(too_large[0]["stage"], "enrich");
    let reason = too_large[0]["reason"].as_str().unwrap();
    assert!(
        reason.contains(bomb.to_str().unwrap())
            && reason.contains("larger than the limit of 1073741824 bytes (--max-report-bytes)"),
        "{reason}"
    );
    // 3 GiB inflated; the run must stay within a small fraction of it.
    assert!(
        peak_kib < 256 << 10,
        "peak memory {} MiB while refusing a 3 GiB bomb",
        peak_kib >> 10
    );
    let rows = shard_rows(&out.join("csn"));
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["func_name"], "ok");

    // The flag: a 36-byte LCOV report over a 32-byte limit, then under a 1K one.
    let report = tmp.path().join("calc.info");
    fs::write(&report, "TN:\nSF:calc.py\nDA:3,2\nend_of_record\n").unwrap();
    assert_eq!(fs::metadata(&report).unwrap().len(), 36);
    for (limit, refused) in [("32", true), ("1K", false)] {
        let out = tmp.path().join(format!("out-{limit}"));
        let res = codemine(
            &[
                "mine",
                "--repo",
                repo.path.to_str().unwrap(),
                "--coverage",
                report.to_str().unwrap(),
                "--max-report-bytes",
                limit,
                "--out",
                out.to_str().unwrap(),
                "--no-dedup",
            ],
            &tmp.path().join("cache"),
        );
        assert_success(&res);
        let fails = failures(&out);
        let node = &read_graph(&out)["nodes"][0];
        if refused {
            assert_eq!(by_kind(&fails, "coverage_too_large").len(), 1, "{fails:?}");
            assert!(fails[0]["reason"]
                .as_str()
                .unwrap()
                .contains("larger than the limit of 32 bytes"));
            assert!(node["test_cov_hits"].is_null());
        } else {
            assert!(fails.is_empty(), "{fails:?}");
            // Line 3 (`return 1`) ran twice.
            assert_eq!(node["test_cov_hits"], 2);
        }
    }
}

/// Issue 33, items 1 and 7: a broken item costs only itself, and functions nested beyond the
/// limit are counted with a named failure. The functions after `int broken( {` were written
/// by hand from the file; before the fix all five of them were lost and none was counted.
#[test]
fn a_syntax_error_costs_only_its_item() {
    let tmp = tempfile::tempdir().unwrap();
    let mut r = RepoBuilder::init(&tmp.path().join("errs"));
    // The CSN rows keep documented functions only: each has a comment.
    let c = "/* First. */\nint first(void) { return 1; }\n\nint broken( {\n\n\
             /* One. */\nint one(int a) { return a; }\n\n/* Two. */\nstatic int two(void) { return 2; }\n\n\
             struct s { int x; };\n\n/* Three. */\nint three(void) { return one(3); }\n\n\
             /** Four. */\nchar *four(char *s) { return s; }\n\n// Five.\nint five(void) { return 5; }\n";
    let js = "/** First. */\nfunction first() { return 1; }\n\nfunction broken( {\n\n\
              /** After. */\nfunction after(a) { return first(a); }\n\nclass K {\n  /** M. */\n  m() { return 2; }\n}\n";
    let depth = 20;
    let deep: String = (0..depth)
        .map(|i| format!("/** Doc {i}. */\nfunction f{i}() {{\n"))
        .collect::<String>()
        + &"}\n".repeat(depth);
    r.write("probe.c", c)
        .write("probe.js", js)
        .write("deep.js", deep);
    r.commit("one");
    let (out, res) = run(&["--repo", r.path.to_str().unwrap()], tmp.path());
    assert_success(&res);
    let rows = shard_rows(&out.join("csn"));
    let names = |path: &str| -> Vec<String> {
        let mut n: Vec<String> = rows
            .iter()
            .filter(|r| r["path"] == path)
            .map(|r| r["func_name"].as_str().unwrap().to_string())
            .collect();
        n.sort();
        n
    };
    assert_eq!(
        names("probe.c"),
        ["first", "five", "four", "one", "three", "two"]
    );
    assert_eq!(names("probe.js"), ["K.m", "after", "first"]);
    let four = rows.iter().find(|r| r["func_name"] == "four").unwrap();
    assert_eq!(four["docstring"], "Four.");
    assert!(
        four["url"].as_str().unwrap().ends_with("/probe.c#L18-L18"),
        "{}",
        four["url"]
    );
    let stats = stats(&out);
    assert_eq!(stats["languages"]["c"]["dropped_syntax_error"], 1);
    assert_eq!(stats["languages"]["javascript"]["dropped_syntax_error"], 1);
    // Nested 20 deep: 16 functions (near-duplicates of each other, so dedup keeps few of
    // them as rows), 4 counted, one failure line naming the file.
    assert_eq!(stats["languages"]["javascript"]["functions"], 3 + 16);
    assert_eq!(
        stats["languages"]["javascript"]["dropped_nesting"],
        depth - 16
    );
    let fails = failures(&out);
    let deep_fail = by_kind(&fails, "nesting_too_deep");
    assert_eq!(deep_fail.len(), 1, "{fails:?}");
    assert_eq!(deep_fail[0]["path"], "deep.js");
    assert!(deep_fail[0]["reason"]
        .as_str()
        .unwrap()
        .starts_with("4 functions"));
}
