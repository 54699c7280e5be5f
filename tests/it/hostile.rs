//! Issue 33, a hostile user's second round: names that are markup or fake log lines, special
//! files where an output folder, a benchmark, predictions or a model should be, counts that
//! are not counts, benchmarks that are short, deep, truncated or bombs, a resumed SIDE run
//! with other weights, and `--offline` with a repository that is not in the cache. Every
//! test runs the real binary on real files, FIFOs and symbolic links.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use harness::*;
use serde_json::Value;

/// Runs `codemine ARGS` (private cache, no terminal), killing it and failing the test if it
/// has not ended within `secs`: a hang on a FIFO fails here rather than hanging the suite.
fn run_within(args: &[&str], cache: &Path, secs: u64) -> Output {
    let mut child = Command::new(binary())
        .args(args)
        .env("CODEMINE_CACHE", cache)
        .env("CI", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        if start.elapsed() > Duration::from_secs(secs) {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "codemine {args:?} still running after {secs} s (blocked?)\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The peak resident memory (VmHWM, bytes) of `codemine ARGS` and its output.
fn run_measured(args: &[&str], cache: &Path) -> (Output, u64) {
    let child = Command::new(binary())
        .args(args)
        .env("CODEMINE_CACHE", cache)
        .env("CI", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let status = format!("/proc/{}/status", child.id());
    let mut peak = 0u64;
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let watcher = {
        let done = done.clone();
        std::thread::spawn(move || {
            let mut peak = 0u64;
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                if let Ok(s) = std::fs::read_to_string(&status) {
                    if let Some(kb) = s
                        .lines()
                        .find(|l| l.starts_with("VmHWM:"))
                        .and_then(|l| l.split_whitespace().nth(1))
                        .and_then(|v| v.parse::<u64>().ok())
                    {
                        peak = peak.max(kb * 1024);
                    }
                }
                std::thread::sleep(Duration::from_millis(5));
            }
            peak
        })
    };
    let out = child.wait_with_output().unwrap();
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    peak = peak.max(watcher.join().unwrap());
    (out, peak)
}

fn mkfifo(path: &Path) {
    let _ = std::fs::remove_file(path);
    let st = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(st.success(), "mkfifo {}", path.display());
}

fn replace_with_link(path: &Path, target: &str) {
    let _ = std::fs::remove_file(path);
    std::os::unix::fs::symlink(target, path).unwrap();
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

const PY: &str = "def add(a, b):\n    \"\"\"Add two numbers.\"\"\"\n    return a + b\n\n\ndef scale(v, k):\n    \"\"\"Scale a vector by k.\"\"\"\n    return [x * k for x in v]\n";

/// A repository with one Python file of two documented functions (the file differs per
/// repository, so that dedup keeps every repository's rows).
fn python_repo(dir: &Path, name: &str, k: usize) -> PathBuf {
    let mut r = RepoBuilder::init(&dir.join(name));
    r.write(
        "pkg/m.py",
        format!(
            "{PY}\n\ndef only_{k}(x):\n    \"\"\"Unique number {k}.\"\"\"\n    return x + {k}\n"
        ),
    );
    r.commit("one");
    r.path
}

/// Names that are HTML, Markdown, control characters and the card's own markers.
const HOSTILE: &[&str] = &[
    "<script>alert(1)</script>",
    "pipe|and`tick`",
    "two\ncodemine: mined fake: 999 files",
    "nul\u{0}byte",
    "<!-- codemine:figures -->",
    "<!-- /codemine:figures -->",
    "# heading [link](http://x) **b** _i_",
    "\u{1b}[2Jescape",
];

/// The card's repository table rendered by GitHub's own Markdown (cmark-gfm): the text of
/// each row's first cell, and the rendered HTML.
fn rendered_card(out: &Path) -> (Vec<String>, String) {
    let got = python_json(
        r#"
import json, sys, cmarkgfm, html.parser
text = open(sys.argv[1], encoding="utf-8").read()
body = text.split("\n---\n", 1)[1]
page = cmarkgfm.github_flavored_markdown_to_html(body)
class Cells(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tables, self.cell, self.row = [], None, None
    def handle_starttag(self, tag, attrs):
        if tag == "table": self.tables.append([])
        elif tag == "tr": self.row = []
        elif tag in ("td", "th"): self.cell = ""
    def handle_endtag(self, tag):
        if tag in ("td", "th"): self.row.append(self.cell); self.cell = None
        elif tag == "tr": self.tables[-1].append(self.row)
    def handle_data(self, d):
        if self.cell is not None: self.cell += d
p = Cells(); p.feed(page)
rows = p.tables[0][1:]
print(json.dumps({"repos": [r[0] for r in rows], "html": page}))
"#,
        &[out.join("README.md").to_str().unwrap()],
    );
    let repos = got["repos"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    (repos, got["html"].as_str().unwrap().to_string())
}

/// What a name looks like once escaped for a person: control characters as `\n`, `\0`,
/// `\u{1b}` (Rust's escapes), the rest as it is.
fn shown(name: &str) -> String {
    let mut s = String::new();
    for c in name.chars() {
        match c {
            '\n' => s.push_str("\\n"),
            '\0' => s.push_str("\\0"),
            c if c.is_control() => s.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => s.push(c),
        }
    }
    s
}

/// Items 2 and 14: hostile repository names go through `mine` and `report --html`: the
/// card's table has every repository, each shown as its name (GitHub's renderer agrees),
/// nothing becomes markup, `report` finds its own section and keeps every row, the page and
/// the figures hold no raw control character, and no name starts a log line of its own.
#[test]
fn hostile_names_are_text_in_the_card_the_page_the_figures_and_the_log() {
    let tmp = tempfile::tempdir().unwrap();
    let mut manifest = String::new();
    for (k, name) in HOSTILE.iter().enumerate() {
        let path = python_repo(tmp.path(), &format!("r{k}"), k);
        manifest += &serde_json::json!({"url": path, "name": name}).to_string();
        manifest.push('\n');
    }
    let m = tmp.path().join("repos.jsonl");
    std::fs::write(&m, manifest).unwrap();
    let out = tmp.path().join("out");
    let cache = tmp.path().join("cache");
    let res = codemine(
        &[
            "mine",
            "--manifest",
            m.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--verbose",
        ],
        &cache,
    );
    assert_success(&res);
    let log = stderr(&res);
    assert!(
        !log.lines().any(|l| l.starts_with("codemine: mined fake")),
        "a name started a log line:\n{log}"
    );
    assert!(log.contains("two\\ncodemine: mined fake"), "{log}");
    assert!(!log.contains('\u{1b}') && !log.contains('\0'), "{log:?}");

    let check = |when: &str| {
        let card = std::fs::read_to_string(out.join("README.md")).unwrap();
        assert!(!card.contains('\0') && !card.contains('\u{1b}'), "{when}");
        let (repos, page) = rendered_card(&out);
        let mut want: Vec<String> = HOSTILE.iter().map(|n| shown(n)).collect();
        let mut got = repos.clone();
        want.sort();
        got.sort();
        assert_eq!(got, want, "{when}: the card's repositories");
        assert!(!page.contains("<script"), "{when}: {page}");
        assert!(!page.contains("<h1>heading"), "{when}: {page}");
        // Markdown's link syntax makes no link (GitHub still links a bare URL it shows, as
        // it does in any text), nor emphasis.
        assert!(!page.contains(">link</a>"), "{when}: {page}");
        assert!(
            !page.contains("<strong>") && !page.contains("<em>"),
            "{when}: {page}"
        );
        let begins = card
            .lines()
            .filter(|l| *l == "<!-- codemine:figures -->")
            .count();
        let ends = card
            .lines()
            .filter(|l| *l == "<!-- /codemine:figures -->")
            .count();
        assert_eq!((begins, ends), (1, 1), "{when}:\n{card}");
    };
    check("after mine");
    let res = codemine(&["report", out.to_str().unwrap(), "--html"], &cache);
    assert_success(&res);
    check("after report");
    let res = codemine(&["report", out.to_str().unwrap()], &cache);
    assert_success(&res);
    check("after a second report");

    let page = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(!page.contains("<script>alert"), "report.html");
    assert!(
        !page.chars().any(|c| c.is_control() && c != '\n'),
        "report.html"
    );
    // Every figure is well-formed XML (a NUL would make it unreadable).
    let svgs: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "svg"))
        .map(|p| p.to_str().unwrap().to_string())
        .collect();
    assert!(!svgs.is_empty());
    let mut args = vec![];
    for s in &svgs {
        args.push(s.as_str());
    }
    let parsed = python_json(
        "import json, sys, xml.etree.ElementTree as E\nprint(json.dumps([E.parse(p).getroot().tag for p in sys.argv[1:]]))",
        &args,
    );
    assert_eq!(parsed.as_array().unwrap().len(), svgs.len());
}

/// A small mined output folder.
fn mined(tmp: &Path) -> PathBuf {
    let repo = python_repo(tmp, "plain", 0);
    mine_into(&repo, tmp, &[])
}

/// Item 12: a stats.json whose counts are negative, past 2^53 or strings is an error that
/// names the field, not a report of zeros.
#[test]
fn report_names_a_count_that_is_not_a_count() {
    let tmp = tempfile::tempdir().unwrap();
    let out = mined(tmp.path());
    let good: Value = stats(&out);
    for (field, value, says) in [
        ("kept", serde_json::json!(-5), "negative"),
        ("kept", serde_json::json!("12"), "string"),
        ("kept", serde_json::json!(1e30), "floating point"),
        ("input", serde_json::json!(1u64 << 60), "more than 2^53"),
    ] {
        let mut s = good.clone();
        s["stages"]["filter"][field] = value;
        std::fs::write(out.join("stats.json"), serde_json::to_vec(&s).unwrap()).unwrap();
        let res = codemine(
            &["report", out.to_str().unwrap()],
            &tmp.path().join("cache"),
        );
        assert_eq!(res.status.code(), Some(2), "{field}: {}", stderr(&res));
        let err = stderr(&res);
        assert!(
            err.contains(&format!("stages.filter.{field}")) && err.contains(says),
            "{err}"
        );
    }
}

/// Item 8: where an output folder has special files, `report`, `eval` and `contamination`
/// refuse them at once, naming the file and what it is: no hang on a FIFO, no endless read
/// of /dev/zero.
#[test]
fn special_files_in_an_output_folder_are_refused_not_read() {
    let tmp = tempfile::tempdir().unwrap();
    let out = mined(tmp.path());
    let cache = tmp.path().join("cache");
    let o = out.to_str().unwrap();
    let stats_path = out.join("stats.json");
    let good = std::fs::read(&stats_path).unwrap();

    mkfifo(&stats_path);
    let res = run_within(&["report", o], &cache, 60);
    assert_eq!(res.status.code(), Some(2), "{}", stderr(&res));
    assert!(
        stderr(&res).contains("stats.json: not a regular file (a FIFO)"),
        "{}",
        stderr(&res)
    );
    replace_with_link(&stats_path, "/dev/zero");
    let res = run_within(&["report", o], &cache, 60);
    assert!(
        stderr(&res).contains("not a regular file (a character device)"),
        "{}",
        stderr(&res)
    );
    std::fs::remove_file(&stats_path).unwrap();
    std::fs::write(&stats_path, &good).unwrap();

    let card = out.join("README.md");
    mkfifo(&card);
    let res = run_within(&["report", o], &cache, 60);
    assert!(!res.status.success());
    assert!(
        stderr(&res).contains("README.md: not a regular file (a FIFO)"),
        "{}",
        stderr(&res)
    );
    std::fs::remove_file(&card).unwrap();

    // A shard that is a FIFO: report, eval and contamination.
    let shard = std::fs::read_dir(out.join("csn"))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|x| x == "parquet"))
        .unwrap();
    let saved = std::fs::read(&shard).unwrap();
    mkfifo(&shard);
    let res = run_within(&["report", o], &cache, 60);
    assert!(
        stderr(&res).contains("not a regular file (a FIFO)"),
        "{}",
        stderr(&res)
    );
    let res = run_within(
        &[
            "eval",
            o,
            "--task",
            "summarization",
            "--split",
            "all",
            "--prediction-column",
            "docstring",
            "-m",
            "smoothed_bleu",
        ],
        &cache,
        60,
    );
    assert!(
        stderr(&res).contains("not a regular file (a FIFO)"),
        "{}",
        stderr(&res)
    );
    std::fs::remove_file(&shard).unwrap();
    std::fs::write(&shard, saved).unwrap();

    let yab = std::fs::read_dir(out.join("yabloco"))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|x| x == "parquet"))
        .unwrap();
    let bench = tmp.path().join("b.jsonl");
    std::fs::write(&bench, "{\"task_id\": \"t\", \"prompt\": \"def f(x):\\n\", \"canonical_solution\": \"    return x\\n\"}\n").unwrap();
    let saved = std::fs::read(&yab).unwrap();
    replace_with_link(&yab, "/dev/zero");
    let res = run_within(
        &["contamination", bench.to_str().unwrap(), "--against", o],
        &cache,
        60,
    );
    assert!(
        stderr(&res).contains("not a regular file (a character device)"),
        "{}",
        stderr(&res)
    );
    std::fs::remove_file(&yab).unwrap();
    std::fs::write(&yab, saved).unwrap();

    // Predictions, a benchmark, a manifest and a filter config that are FIFOs.
    let fifo = tmp.path().join("fifo.jsonl");
    mkfifo(&fifo);
    let f = fifo.to_str().unwrap();
    let res = run_within(
        &[
            "eval",
            o,
            "--task",
            "summarization",
            "--split",
            "all",
            "-p",
            f,
            "-m",
            "smoothed_bleu",
        ],
        &cache,
        60,
    );
    assert!(
        stderr(&res).contains("not a regular file (a FIFO)"),
        "{}",
        stderr(&res)
    );
    let res = run_within(&["contamination", f, "--against", o], &cache, 60);
    assert!(
        stderr(&res).contains("not a regular file (a FIFO)"),
        "{}",
        stderr(&res)
    );
    let other = tmp.path().join("other");
    let res = run_within(
        &["mine", "--manifest", f, "--out", other.to_str().unwrap()],
        &cache,
        60,
    );
    assert!(
        stderr(&res).contains("not a regular file (a FIFO)"),
        "{}",
        stderr(&res)
    );
    let repo = tmp.path().join("plain");
    let res = run_within(
        &[
            "mine",
            "--repo",
            repo.to_str().unwrap(),
            "--out",
            other.to_str().unwrap(),
            "--filter-config",
            f,
        ],
        &cache,
        60,
    );
    assert!(
        stderr(&res).contains("not a regular file (a FIFO)"),
        "{}",
        stderr(&res)
    );
    let res = run_within(
        &[
            "mine",
            "--repo",
            repo.to_str().unwrap(),
            "--out",
            other.to_str().unwrap(),
            "--decontaminate",
            f,
        ],
        &cache,
        60,
    );
    assert!(
        stderr(&res).contains("not a regular file (a FIFO)"),
        "{}",
        stderr(&res)
    );
}

/// Item 13: `contamination` names its own argument, not `mine`'s `--decontaminate`; a
/// truncated file says where it broke, a 200,000-deep one too (and nothing overflows).
#[test]
fn contamination_errors_name_the_benchmark_argument_and_the_position() {
    let tmp = tempfile::tempdir().unwrap();
    let out = mined(tmp.path());
    let cache = tmp.path().join("cache");
    let o = out.to_str().unwrap();
    let truncated = tmp.path().join("t.json");
    std::fs::write(
        &truncated,
        "[{\"task_id\": \"a\", \"language\": \"python\", \"code\": \"x = 1\"},\n {\"task_id\": \"b\", \"co",
    )
    .unwrap();
    let res = run_within(
        &["contamination", truncated.to_str().unwrap(), "--against", o],
        &cache,
        60,
    );
    assert_eq!(res.status.code(), Some(2));
    let err = stderr(&res);
    assert!(!err.contains("--decontaminate "), "{err}");
    assert!(err.contains("benchmark "), "{err}");
    assert!(err.contains("t.json: line 2, column"), "{err}");
    assert!(!err.contains("neither an array nor an object"), "{err}");

    let deep = tmp.path().join("deep.json");
    let mut text = "[".repeat(200_000);
    text += &"]".repeat(200_000);
    std::fs::write(&deep, text).unwrap();
    let res = run_within(
        &["contamination", deep.to_str().unwrap(), "--against", o],
        &cache,
        60,
    );
    assert_eq!(res.status.code(), Some(2), "{}", stderr(&res));
    let err = stderr(&res);
    assert!(err.contains("deep.json: line 1, column"), "{err}");
    assert!(err.contains("recursion limit"), "{err}");
    let deep = tmp.path().join("deep2.json");
    let mut text = "{\"a\": ".repeat(200_000);
    text += "1";
    text += &"}".repeat(200_000);
    std::fs::write(&deep, text).unwrap();
    let res = run_within(
        &["contamination", deep.to_str().unwrap(), "--against", o],
        &cache,
        60,
    );
    assert_eq!(res.status.code(), Some(2), "{}", stderr(&res));
    assert!(stderr(&res).contains("recursion limit"), "{}", stderr(&res));
}

/// Item 9: a gzip benchmark that inflates past --max-benchmark-bytes is refused when the
/// limit is reached, in memory bounded by the stream, not by what it inflates to.
#[test]
fn a_benchmark_gzip_bomb_is_refused_in_bounded_memory() {
    let tmp = tempfile::tempdir().unwrap();
    let out = mined(tmp.path());
    let cache = tmp.path().join("cache");
    // An array whose first item is a 2 GB string: valid JSON as far as it goes.
    let bomb = tmp.path().join("bomb.json.gz");
    {
        let f = std::fs::File::create(&bomb).unwrap();
        let mut gz = flate2::write::GzEncoder::new(f, flate2::Compression::fast());
        gz.write_all(b"[{\"task_id\": \"x\", \"code\": \"").unwrap();
        let chunk = vec![b'a'; 1 << 20];
        for _ in 0..2048 {
            gz.write_all(&chunk).unwrap();
        }
        gz.finish().unwrap();
    }
    assert!(std::fs::metadata(&bomb).unwrap().len() < 16 << 20);
    let (res, peak) = run_measured(
        &[
            "contamination",
            bomb.to_str().unwrap(),
            "--against",
            out.to_str().unwrap(),
            "--max-benchmark-bytes",
            "64M",
        ],
        &cache,
    );
    assert_eq!(res.status.code(), Some(2), "{}", stderr(&res));
    assert!(
        stderr(&res).contains("more than 67108864 bytes once decompressed"),
        "{}",
        stderr(&res)
    );
    assert!(peak < 400 << 20, "peak {} MB", peak >> 20);
}

/// Item 4: an item shorter than the n-gram size matches only a whole function of its
/// tokens (a one-token item used to remove every function holding that token), and a run
/// that removes more than --decontaminate-warn-share of what it checks says so loudly in
/// the log and the card.
#[test]
fn short_items_match_only_whole_functions_and_a_large_removal_warns() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = python_repo(tmp.path(), "p", 1);
    let bench = tmp.path().join("short.jsonl");
    // `x` is in every function; `def add a b return a b` is the whole of none.
    std::fs::write(
        &bench,
        "{\"task_id\": \"one\", \"language\": \"python\", \"code\": \"x\"}\n{\"task_id\": \"two\", \"language\": \"python\", \"code\": \"return k\"}\n",
    )
    .unwrap();
    let out = mine_into(
        &repo,
        tmp.path(),
        &["--decontaminate", bench.to_str().unwrap(), "--no-dedup"],
    );
    let s = stats(&out);
    let d = &s["stages"]["decontamination"];
    assert_eq!(d["functions_removed"], 0, "{d}");
    assert_eq!(d["benchmarks"]["short"]["short_items"], 2, "{d}");
    assert!(d.get("warning").is_none(), "{d}");
    assert_eq!(shard_rows(&out.join("csn")).len(), 3);

    // Two of the three functions copied: two thirds removed, over the default tenth.
    let copies = tmp.path().join("copies.jsonl");
    let mut text = String::new();
    for (id, code) in [
        ("add", "def add(a, b):\n    return a + b\n"),
        ("scale", "def scale(v, k):\n    return [x * k for x in v]\n"),
    ] {
        text += &serde_json::json!({"task_id": id, "language": "python", "code": code}).to_string();
        text.push('\n');
    }
    std::fs::write(&copies, text).unwrap();
    let out2 = tmp.path().join("out2");
    let args = |share: &str| {
        vec![
            "mine".to_string(),
            "--repo".into(),
            repo.to_str().unwrap().into(),
            "--out".into(),
            out2.to_str().unwrap().into(),
            "--decontaminate".into(),
            copies.to_str().unwrap().into(),
            "--decontaminate-ngram".into(),
            "4".into(),
            "--no-dedup".into(),
            "--quiet".into(),
            "--decontaminate-warn-share".into(),
            share.into(),
        ]
    };
    let a = args("0.1");
    let res = codemine(
        &a.iter().map(String::as_str).collect::<Vec<_>>(),
        &tmp.path().join("c"),
    );
    assert_success(&res);
    let log = stderr(&res);
    assert!(
        log.contains("codemine: warning: decontamination removed 2 of the 3 functions checked"),
        "{log}"
    );
    let card = std::fs::read_to_string(out2.join("README.md")).unwrap();
    assert!(
        card.contains("**Warning**: decontamination removed 2 of the 3"),
        "{card}"
    );
    assert_eq!(
        stats(&out2)["stages"]["decontamination"]["functions_removed"],
        2
    );
    let a = args("0.9");
    let res = codemine(
        &a.iter().map(String::as_str).collect::<Vec<_>>(),
        &tmp.path().join("c"),
    );
    assert_success(&res);
    assert!(!stderr(&res).contains("warning"), "{}", stderr(&res));
    assert!(!std::fs::read_to_string(out2.join("README.md"))
        .unwrap()
        .contains("**Warning**"));
}

/// Item 5: `--offline` with a remote repository that is not in the cache fails at once,
/// "not in the cache", and the process makes no socket at all (no DNS lookup, no
/// connection), as strace shows.
#[test]
fn offline_never_makes_a_socket() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let cache = tmp.path().join("cache");
    let trace = tmp.path().join("trace");
    let started = Instant::now();
    let res = Command::new("strace")
        .args(["-f", "-qq", "-e", "trace=socket,connect", "-o"])
        .arg(&trace)
        .arg(binary())
        .args([
            "mine",
            "--offline",
            "--repo",
            "https://no-such-host.invalid/o/r",
            "--out",
            out.to_str().unwrap(),
        ])
        .env("CODEMINE_CACHE", &cache)
        .env("CI", "1")
        .output()
        .expect("strace (scripts/setup.sh installs it)");
    let elapsed = started.elapsed();
    assert_eq!(res.status.code(), Some(1), "{}", stderr(&res));
    assert!(
        stderr(&res).contains("not in the cache"),
        "{}",
        stderr(&res)
    );
    let calls = std::fs::read_to_string(&trace).unwrap();
    let sockets: Vec<&str> = calls
        .lines()
        .filter(|l| l.contains("socket(") || l.contains("connect("))
        .collect();
    assert!(
        sockets.is_empty(),
        "sockets made offline:\n{}",
        sockets.join("\n")
    );
    assert!(elapsed < Duration::from_secs(30), "{elapsed:?}");
    let f = failures(&out);
    assert_eq!(f[0]["kind"], "not_in_cache", "{f:?}");
    assert!(!cache.exists() || std::fs::read_dir(&cache).unwrap().count() == 0);
}

fn side_model() -> PathBuf {
    workspace_root().join("side/tests/data/tiny-st")
}

fn copy_model(to: &Path) -> PathBuf {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(side_model()).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
    to.to_path_buf()
}

/// Other weights of the same shape: every float of the data section of the safetensors
/// file scaled by a factor (its header left as it is).
fn perturb_weights(model: &Path) {
    let p = model.join("model.safetensors");
    let mut bytes = std::fs::read(&p).unwrap();
    let header = u64::from_le_bytes(bytes[..8].try_into().unwrap()) as usize;
    for c in bytes[8 + header..].chunks_exact_mut(4) {
        let v = f32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        let w = if v == 0.0 { 0.01 } else { v * -1.7 + 0.003 };
        c.copy_from_slice(&w.to_le_bytes());
    }
    std::fs::write(&p, bytes).unwrap();
}

/// Item 3: a SIDE run killed after its first scores and resumed with other weights in the
/// same folder scores every pair with the new weights (the scores of a fresh run with
/// them), none with the old.
#[test]
fn a_resumed_side_run_never_mixes_two_models() {
    let tmp = tempfile::tempdir().unwrap();
    let a = python_repo(tmp.path(), "a", 1);
    let b = python_repo(tmp.path(), "b", 2);
    let model = copy_model(&tmp.path().join("model"));
    let out = tmp.path().join("out");
    let cache = tmp.path().join("cache");
    let args = [
        "mine",
        "--repo",
        a.to_str().unwrap(),
        "--repo",
        b.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--side-model",
        model.to_str().unwrap(),
        "--checkpoint-repos",
        "1",
        "--no-dedup",
        "-j",
        "1",
    ];
    let traced = Command::new(binary())
        .args(args)
        .env("CODEMINE_CACHE", &cache)
        .env("CI", "1")
        .env("CODEMINE_FAULT_TRACE", "1")
        .output()
        .unwrap();
    assert_success(&traced);
    let trace = stderr(&traced);
    let first = trace
        .lines()
        .find(|l| l.ends_with(": side part written"))
        .and_then(|l| l.strip_prefix("codemine: fault point "))
        .and_then(|l| l.split(':').next())
        .unwrap_or_else(|| panic!("no side fault point in\n{trace}"))
        .to_string();
    std::fs::remove_dir_all(&out).unwrap();
    let killed = Command::new(binary())
        .args(args)
        .env("CODEMINE_CACHE", &cache)
        .env("CI", "1")
        .env("CODEMINE_FAULT", &first)
        .output()
        .unwrap();
    assert!(!killed.status.success());

    perturb_weights(&model);
    let res = codemine(&args, &cache);
    assert_success(&res);
    let scores = |out: &Path| -> Vec<(String, f64)> {
        let mut v: Vec<(String, f64)> = shard_rows(&out.join("csn"))
            .iter()
            .map(|r| {
                (
                    format!("{}:{}", r["repo"], r["func_name"]),
                    r["side_score"].as_f64().unwrap(),
                )
            })
            .collect();
        v.sort_by(|x, y| x.0.cmp(&y.0));
        v
    };
    let resumed = scores(&out);
    let fresh_out = tmp.path().join("fresh");
    let mut fresh_args = args.to_vec();
    fresh_args[6] = fresh_out.to_str().unwrap();
    assert_success(&codemine(&fresh_args, &cache));
    let fresh = scores(&fresh_out);
    assert_eq!(resumed.len(), fresh.len());
    for (r, f) in resumed.iter().zip(&fresh) {
        assert_eq!(r.0, f.0);
        assert!(
            (r.1 - f.1).abs() < 1e-6,
            "{} scored {} resumed, {} fresh",
            r.0,
            r.1,
            f.1
        );
    }
    let s = stats(&out);
    assert_eq!(s["stages"]["side"]["scored"], s["stages"]["side"]["pairs"]);
}

/// Item 11: a model file that is a FIFO or a link to a device is named as what it is (not
/// "missing"), a bad pytorch_model.bin is named (not model.safetensors), and a
/// model_max_length beyond the model's positions is refused when the model loads, before
/// any mining.
#[test]
fn side_model_files_are_named_with_their_real_fault_at_load() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = python_repo(tmp.path(), "p", 1);
    let out = tmp.path().join("out");
    let cache = tmp.path().join("cache");
    let run = |model: &Path| {
        run_within(
            &[
                "mine",
                "--repo",
                repo.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
                "--side-model",
                model.to_str().unwrap(),
            ],
            &cache,
            120,
        )
    };
    let m = copy_model(&tmp.path().join("fifo"));
    mkfifo(&m.join("config.json"));
    let res = run(&m);
    assert_eq!(res.status.code(), Some(2));
    assert!(
        stderr(&res).contains("config.json: not a regular file (a FIFO)"),
        "{}",
        stderr(&res)
    );

    let m = copy_model(&tmp.path().join("dev"));
    replace_with_link(&m.join("model.safetensors"), "/dev/zero");
    let res = run(&m);
    assert_eq!(res.status.code(), Some(2));
    assert!(
        stderr(&res).contains("model.safetensors: not a regular file (a character device)"),
        "{}",
        stderr(&res)
    );

    let m = copy_model(&tmp.path().join("bin"));
    std::fs::remove_file(m.join("model.safetensors")).unwrap();
    std::fs::write(m.join("pytorch_model.bin"), b"not a zip archive").unwrap();
    let res = run(&m);
    assert_eq!(res.status.code(), Some(2));
    let err = stderr(&res);
    assert!(
        err.contains("pytorch_model.bin") && !err.contains("model.safetensors:"),
        "{err}"
    );
    mkfifo(&m.join("pytorch_model.bin"));
    let res = run(&m);
    assert!(
        stderr(&res).contains("pytorch_model.bin: not a regular file (a FIFO)"),
        "{}",
        stderr(&res)
    );

    let m = copy_model(&tmp.path().join("long"));
    let tc = m.join("tokenizer_config.json");
    let mut v: Value = serde_json::from_slice(&std::fs::read(&tc).unwrap()).unwrap();
    v["model_max_length"] = serde_json::json!(100_000);
    std::fs::write(&tc, serde_json::to_vec(&v).unwrap()).unwrap();
    let res = run(&m);
    assert_eq!(res.status.code(), Some(2));
    let err = stderr(&res);
    assert!(
        err.contains("tokenizer_config.json: model_max_length 100000 is beyond the model's"),
        "{err}"
    );
    assert!(!out.exists(), "nothing is mined before the model loads");
}
