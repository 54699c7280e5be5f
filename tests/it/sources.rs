//! End to end: where repositories come from. Clones of `file://` URLs into the cache and
//! fetches on the next run, pinned revisions (checked against the `git` command line),
//! local checkouts read from the object database without touching the working tree, plain
//! folders, manifests, credentials kept out of every output, and determinism across
//! thread counts.

use std::fs;
use std::path::Path;

use harness::*;

const DOC_PY: &str = "def f():\n    \"\"\"Version one of f.\"\"\"\n    return 1\n";
const DOC_PY2: &str = "def f():\n    \"\"\"Version two of f.\"\"\"\n    return 2\n";

fn mine(args: &[&str], tmp: &Path) -> std::path::PathBuf {
    let out = tmp.join(format!("out{}", fs::read_dir(tmp).unwrap().count()));
    let mut all = vec!["mine", "--out", out.to_str().unwrap()];
    all.extend_from_slice(args);
    assert_success(&codemine(&all, &tmp.join("cache")));
    out
}

fn docstrings(out: &Path) -> Vec<(String, String)> {
    shard_rows(&out.join("csn"))
        .iter()
        .map(|r| {
            (
                r["docstring"].as_str().unwrap().to_string(),
                r["sha"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn file_url_is_cloned_into_the_cache_then_fetched() {
    let tmp = tempfile::tempdir().unwrap();
    let mut origin = RepoBuilder::init(&tmp.path().join("origin/proj"));
    origin.write("a.py", DOC_PY);
    let first = origin.commit("one");
    let url = origin.url();

    let out = mine(&["--repo", &url], tmp.path());
    assert_eq!(
        docstrings(&out),
        [("Version one of f.".to_string(), first.to_string())]
    );
    let rows = shard_rows(&out.join("csn"));
    assert_eq!(rows[0]["repo"], "proj");

    // The cache holds one bare clone; mark it to see that the next run reuses it.
    let cache = tmp.path().join("cache");
    // Clones only: each has its lock file (`ENTRY.git.lock`) beside it.
    let clones: Vec<_> = fs::read_dir(&cache)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "git"))
        .collect();
    assert_eq!(clones.len(), 1);
    fs::write(clones[0].join("codemine-test-marker"), "x").unwrap();

    origin.write("a.py", DOC_PY2);
    let second = origin.commit("two");
    let out = mine(&["--repo", &url], tmp.path());
    assert_eq!(
        docstrings(&out),
        [("Version two of f.".to_string(), second.to_string())]
    );
    assert!(
        clones[0].join("codemine-test-marker").exists(),
        "the clone was made anew instead of fetched"
    );

    // --offline uses the cache as it is, even when the origin is gone.
    fs::rename(&origin.path, tmp.path().join("moved")).unwrap();
    let out = mine(&["--offline", "--repo", &url], tmp.path());
    assert_eq!(docstrings(&out)[0].1, second.to_string());
}

#[test]
fn pinned_revisions_resolve_like_git() {
    let tmp = tempfile::tempdir().unwrap();
    let mut origin = RepoBuilder::init(&tmp.path().join("proj"));
    origin.write("a.py", DOC_PY);
    let one = origin.commit("one");
    origin.tag("v1", one);
    origin.branch("stable", one);
    origin.write("a.py", DOC_PY2);
    origin.commit("two");
    let url = origin.url();
    let want = git(&origin.path, &["rev-parse", "v1^{commit}"]);
    let short = &want[..10];

    for rev in ["v1", "stable", want.as_str(), short] {
        for loc in [url.as_str(), origin.path.to_str().unwrap()] {
            let out = mine(&["--repo", &format!("{loc}@{rev}")], tmp.path());
            assert_eq!(
                docstrings(&out),
                [("Version one of f.".to_string(), want.clone())],
                "{loc}@{rev}"
            );
            let stats = stats(&out);
            assert_eq!(stats["repositories"][0]["sha"], want.as_str());
        }
    }
    // Without a revision: the default branch.
    let head = git(&origin.path, &["rev-parse", "main"]);
    let out = mine(&["--repo", &url], tmp.path());
    assert_eq!(docstrings(&out)[0].1, head);
}

#[test]
fn a_local_checkout_is_read_from_git_and_never_modified() {
    let tmp = tempfile::tempdir().unwrap();
    let mut r = RepoBuilder::init(&tmp.path().join("work"));
    r.write("a.py", DOC_PY);
    let sha = r.commit("one");
    // Uncommitted edits and untracked files are not part of the mined revision.
    r.write("a.py", DOC_PY2).write("untracked.py", DOC_PY2);
    let status_before = git(&r.path, &["status", "--porcelain"]);
    let out = mine(&["--repo", r.path.to_str().unwrap()], tmp.path());
    assert_eq!(
        docstrings(&out),
        [("Version one of f.".to_string(), sha.to_string())]
    );
    assert_eq!(git(&r.path, &["status", "--porcelain"]), status_before);
    assert_eq!(fs::read_to_string(r.path.join("a.py")).unwrap(), DOC_PY2);
}

#[test]
fn a_plain_folder_is_read_from_disk_without_sha_or_url() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("plain");
    fs::create_dir_all(dir.join("sub")).unwrap();
    fs::write(dir.join("sub/a.py"), DOC_PY).unwrap();
    // A symlink pointing outside the folder is never followed.
    let outside = tmp.path().join("secret.py");
    fs::write(
        &outside,
        "def leaked():\n    \"\"\"Must not be mined.\"\"\"\n    return 0\n",
    )
    .unwrap();
    std::os::unix::fs::symlink(&outside, dir.join("link.py")).unwrap();

    let out = mine(&["--repo", dir.to_str().unwrap()], tmp.path());
    let rows = shard_rows(&out.join("csn"));
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["repo"], "plain");
    assert_eq!(rows[0]["path"], "sub/a.py");
    assert_eq!(rows[0]["sha"], "");
    assert_eq!(rows[0]["url"], "");
    let stats = stats(&out);
    assert_eq!(stats["stages"]["source"]["skipped"]["symlinks"], 1);
}

#[test]
fn manifests_in_three_formats() {
    let tmp = tempfile::tempdir().unwrap();
    let mut a = RepoBuilder::init(&tmp.path().join("alpha"));
    a.write("a.py", DOC_PY);
    let one = a.commit("one");
    a.write("a.py", DOC_PY2);
    a.commit("two");
    let mut b = RepoBuilder::init(&tmp.path().join("beta"));
    b.write("b.py", DOC_PY2);
    b.commit("one");

    let txt = tmp.path().join("m.txt");
    fs::write(&txt, format!("# comment\n\nalpha@{one}\n{}\n", b.url())).unwrap();
    let jsonl = tmp.path().join("m.jsonl");
    fs::write(
        &jsonl,
        format!("{{\"url\": \"alpha\", \"rev\": \"{one}\", \"name\": \"acme/alpha\"}}\n{{\"url\": \"{}\"}}\n", b.url()),
    )
    .unwrap();
    let toml = tmp.path().join("m.toml");
    fs::write(
        &toml,
        format!("[[repos]]\nurl = \"alpha\"\nrev = \"{one}\"\nname = \"acme/alpha\"\n\n[[repos]]\nurl = \"{}\"\n", b.url()),
    )
    .unwrap();

    for (m, alpha_name) in [
        (&txt, "alpha"),
        (&jsonl, "acme/alpha"),
        (&toml, "acme/alpha"),
    ] {
        let out = mine(&["--manifest", m.to_str().unwrap()], tmp.path());
        let rows = shard_rows(&out.join("csn"));
        let mut got: Vec<(String, String)> = rows
            .iter()
            .map(|r| {
                (
                    r["repo"].as_str().unwrap().to_string(),
                    r["docstring"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        got.sort();
        assert_eq!(
            got,
            [
                (alpha_name.to_string(), "Version one of f.".to_string()),
                ("beta".to_string(), "Version two of f.".to_string())
            ],
            "{}",
            m.display()
        );
        if alpha_name == "acme/alpha" {
            let row = find_row(&rows, "repo", "acme/alpha");
            assert!(row["url"].as_str().unwrap().starts_with(&format!(
                "https://github.com/acme/alpha/blob/{one}/a.py#L1-L3"
            )));
        }
    }
}

#[test]
fn credentials_never_reach_outputs_or_logs() {
    let tmp = tempfile::tempdir().unwrap();
    let mut good = RepoBuilder::init(&tmp.path().join("good"));
    good.write("a.py", DOC_PY);
    good.commit("one");
    let out = tmp.path().join("out");
    // Port 9 on loopback refuses at once: an unreachable URL that carries a token.
    let res = codemine(
        &[
            "mine",
            "--out",
            out.to_str().unwrap(),
            "--repo",
            "https://alice:s3cr3t-t0ken@127.0.0.1:9/acme/widgets.git@main",
            "--repo",
            "https://ghp_S3CRETTOKEN@127.0.0.1:9/acme/gadgets",
            "--repo",
            good.path.to_str().unwrap(),
        ],
        &tmp.path().join("cache"),
    );
    assert_success(&res);
    let mut seen =
        String::from_utf8_lossy(&res.stdout).into_owned() + &String::from_utf8_lossy(&res.stderr);
    for f in ["failures.jsonl", "stats.json", "README.md"] {
        seen += &fs::read_to_string(out.join(f)).unwrap();
    }
    for entry in walk(&tmp.path().join("cache")) {
        if entry.ends_with("config") {
            seen += &fs::read_to_string(&entry).unwrap();
        }
    }
    assert!(
        !seen.contains("s3cr3t") && !seen.contains("S3CRET"),
        "a credential leaked:\n{seen}"
    );
    let fails = failures(&out);
    assert_eq!(fails.len(), 2);
    assert_eq!(fails[0]["kind"], "unreachable");
    assert_eq!(fails[0]["repo"], "acme/widgets");
    assert_eq!(fails[0]["source"], "https://127.0.0.1:9/acme/widgets.git");
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out
}

#[test]
fn output_does_not_depend_on_the_thread_count() {
    let tmp = tempfile::tempdir().unwrap();
    let mut args: Vec<String> = Vec::new();
    for i in 0..6 {
        let mut r = RepoBuilder::init(&tmp.path().join(format!("r{i}")));
        for j in 0..20 {
            r.write(
                &format!("m{j}.py"),
                format!("def f{j}(x):\n    \"\"\"Doc {i} {j}.\"\"\"\n    return x * {j}\n\n\ndef g{j}():\n    \"\"\"G.\"\"\"\n    return {i}\n"),
            );
        }
        r.commit("c");
        args.push("--repo".into());
        args.push(r.path.to_str().unwrap().into());
    }
    let mut outs = Vec::new();
    for threads in ["1", "2", "5"] {
        let out = tmp.path().join(format!("out{threads}"));
        let mut a: Vec<&str> = vec![
            "mine",
            "-j",
            threads,
            "--shard-rows",
            "37",
            "--out",
            out.to_str().unwrap(),
        ];
        a.extend(args.iter().map(|s| s.as_str()));
        assert_success(&codemine(&a, &tmp.path().join("cache")));
        let mut files: Vec<(String, Vec<u8>)> = fs::read_dir(out.join("csn"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .map(|p| {
                (
                    p.file_name().unwrap().to_string_lossy().into_owned(),
                    fs::read(&p).unwrap(),
                )
            })
            .collect();
        files.sort();
        outs.push(files);
    }
    assert!(
        outs[0].len() > 3,
        "several shards: {:?}",
        outs[0].iter().map(|f| &f.0).collect::<Vec<_>>()
    );
    assert_eq!(outs[0], outs[1]);
    assert_eq!(outs[0], outs[2]);
}

/// `git daemon` serving the repositories under `base` on a free local port (libgit2 makes
/// shallow clones over the network transports only); stopped on drop.
struct Daemon {
    child: std::process::Child,
    port: u16,
}

impl Daemon {
    fn start(base: &Path) -> Self {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        // git-daemon itself, not `git daemon`: killing the `git` wrapper would leave the
        // daemon running, holding the test's output open.
        let exec_path = git(base, &["--exec-path"]);
        let mut child = std::process::Command::new(Path::new(&exec_path).join("git-daemon"))
            .args([
                "--export-all",
                "--reuseaddr",
                "--informative-errors",
                "--listen=127.0.0.1",
                &format!("--port={port}"),
                &format!("--base-path={}", base.display()),
            ])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("git-daemon (part of git's Debian package) must run");
        for _ in 0..200 {
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return Daemon { child, port };
            }
            std::thread::sleep(std::time::Duration::from_millis(25));
        }
        let _ = child.kill();
        let _ = child.wait();
        panic!("git daemon did not listen on port {port}");
    }

    fn url(&self, name: &str) -> String {
        format!("git://127.0.0.1:{}/{name}", self.port)
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The (last_commit_sha, last_commit_bounded) of every call-graph node, by name.
fn last_commits(out: &Path) -> std::collections::BTreeMap<String, (String, bool)> {
    read_graph(out)["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| {
            (
                n["name"].as_str().unwrap().to_string(),
                (
                    n["last_commit_sha"].as_str().unwrap().to_string(),
                    n["last_commit_bounded"] == true,
                ),
            )
        })
        .collect()
}

#[test]
fn depth_makes_shallow_clones_and_a_later_full_run_deepens_them() {
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path().join("served");
    let mut origin = RepoBuilder::init(&base.join("proj"));
    origin.set_time(1_500_000_000);
    origin.write(
        "old.py",
        "def old():\n    \"\"\"Oldest.\"\"\"\n    return 1\n",
    );
    origin.commit("one");
    origin.set_time(1_600_000_000);
    origin.write(
        "mid.py",
        "def mid():\n    \"\"\"Middle.\"\"\"\n    return 2\n",
    );
    origin.commit("two");
    origin.set_time(1_700_000_000);
    origin.write(
        "new.py",
        "def new():\n    \"\"\"Newest.\"\"\"\n    return 3\n",
    );
    origin.commit("three");
    let daemon = Daemon::start(&base);
    let url = daemon.url("proj");

    // The reference: what `git clone --depth N` fetches from the same server.
    let reference = |depth: &str| {
        let dir = tmp.path().join(format!("ref-{depth}"));
        git(
            tmp.path(),
            &["clone", "-q", "--depth", depth, &url, dir.to_str().unwrap()],
        );
        git(&dir, &["rev-list", "--count", "HEAD"])
    };
    let cache = tmp.path().join("cache");
    let clone = || {
        let clones: Vec<_> = fs::read_dir(&cache)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "git"))
            .collect();
        assert_eq!(clones.len(), 1, "{clones:?}");
        clones[0].clone()
    };
    let count = |dir: &Path| {
        git(
            tmp.path(),
            &[
                "--git-dir",
                dir.to_str().unwrap(),
                "rev-list",
                "--count",
                "HEAD",
            ],
        )
    };

    let out = mine(&["--repo", &url, "--depth", "1"], tmp.path());
    assert_eq!(count(&clone()), reference("1"));
    assert_eq!(count(&clone()), "1");
    assert!(clone().join("shallow").exists());
    // Every line is blamed on the one commit at the cut, as an upper bound.
    let head = git(&origin.path, &["rev-parse", "HEAD"]);
    let got = last_commits(&out);
    assert_eq!(got.len(), 3, "{got:?}");
    for (name, (sha, bounded)) in &got {
        assert_eq!((sha.as_str(), *bounded), (head.as_str(), true), "{name}");
    }

    // A run without --depth deepens the cached clone: exact dates, as git says.
    let out = mine(&["--repo", &url], tmp.path());
    assert_eq!(
        count(&clone()),
        git(&origin.path, &["rev-list", "--count", "HEAD"])
    );
    assert!(!clone().join("shallow").exists());
    for (name, (sha, bounded)) in last_commits(&out) {
        let file = format!("{name}.py");
        assert_eq!(
            sha,
            git(&origin.path, &["log", "-1", "--format=%H", "--", &file]),
            "{name}"
        );
        assert!(!bounded, "{name}");
    }

    // --depth on a clone that already has everything keeps everything.
    mine(&["--repo", &url, "--depth", "1"], tmp.path());
    assert_eq!(count(&clone()), "3");

    // Depth 2 into a fresh cache, and file:// URLs (no shallow transport) in full.
    fs::remove_dir_all(&cache).unwrap();
    mine(&["--repo", &url, "--depth", "2"], tmp.path());
    assert_eq!(count(&clone()), reference("2"));
    fs::remove_dir_all(&cache).unwrap();
    mine(&["--repo", &origin.url(), "--depth", "1"], tmp.path());
    assert_eq!(count(&clone()), "3");

    let res = codemine(
        &["mine", "--out", "x", "--repo", &url, "--depth", "0"],
        &cache,
    );
    assert_eq!(res.status.code(), Some(2));
}

/// Every Parquet file under `out`, read back by pyarrow, as one JSON text.
fn all_tables_text(out: &Path) -> String {
    let mut text = String::new();
    for dir in walk(out) {
        if dir.is_dir() {
            text += &read_shards(&dir).to_string();
        }
    }
    text
}

#[test]
fn local_clones_in_folders_of_one_name_are_named_by_their_origin() {
    let tmp = tempfile::tempdir().unwrap();
    let mut one = RepoBuilder::init(&tmp.path().join("one/repo"));
    one.write("a.py", DOC_PY);
    let sha_one = one.commit("one").to_string();
    let mut two = RepoBuilder::init(&tmp.path().join("two/repo"));
    two.write("a.py", DOC_PY2);
    let sha_two = two.commit("two").to_string();
    // The remotes as `git clone` leaves them, set by git itself; one carries a token.
    git(
        &one.path,
        &[
            "remote",
            "add",
            "origin",
            "https://bob:t0ps3cret@github.com/bob/tool.git",
        ],
    );
    git(
        &two.path,
        &["remote", "add", "origin", "git@gitlab.com:alice/tool.git"],
    );

    let out = mine(
        &[
            "--repo",
            one.path.to_str().unwrap(),
            "--repo",
            two.path.to_str().unwrap(),
        ],
        tmp.path(),
    );
    let rows = shard_rows(&out.join("csn"));
    let bob = find_row(&rows, "repo", "bob/tool");
    assert_eq!(
        bob["url"],
        format!("https://github.com/bob/tool/blob/{sha_one}/a.py#L1-L3")
    );
    let alice = find_row(&rows, "repo", "alice/tool");
    assert_eq!(
        alice["url"],
        format!("https://gitlab.com/alice/tool/blob/{sha_two}/a.py#L1-L3")
    );
    assert_eq!(alice["docstring"], "Version two of f.");
    // Each has its own row in the repositories table, and its own partition by its name.
    let repos = shard_rows(&out.join("repositories"));
    let mut names: Vec<&str> = repos.iter().map(|r| r["repo"].as_str().unwrap()).collect();
    names.sort();
    assert_eq!(names, ["alice/tool", "bob/tool"]);
    // The token is in no output file.
    let mut seen = all_tables_text(&out);
    for f in ["failures.jsonl", "stats.json", "README.md"] {
        seen += &fs::read_to_string(out.join(f)).unwrap();
    }
    assert!(!seen.contains("t0ps3cret"), "a credential leaked");

    // Without remotes, two folders called `repo` are a usage error naming both ...
    let mut three = RepoBuilder::init(&tmp.path().join("three/repo"));
    three.write("a.py", DOC_PY);
    three.commit("three");
    let mut four = RepoBuilder::init(&tmp.path().join("four/repo"));
    four.write("a.py", DOC_PY2);
    four.commit("four");
    let (p3, p4) = (three.path.to_str().unwrap(), four.path.to_str().unwrap());
    let bad = tmp.path().join("bad");
    let res = codemine(
        &[
            "mine",
            "--out",
            bad.to_str().unwrap(),
            "--repo",
            p3,
            "--repo",
            p4,
        ],
        &tmp.path().join("cache"),
    );
    assert_eq!(res.status.code(), Some(2));
    let err = String::from_utf8_lossy(&res.stderr);
    assert!(
        err.contains("two repositories would be named `repo`")
            && err.contains(p3)
            && err.contains(p4),
        "{err}"
    );
    assert!(!bad.join("stats.json").exists());
    // ... that `PATH=NAME` settles, without a manifest.
    let named = format!("{p4}=acme/four");
    let out = mine(&["--repo", p3, "--repo", &named], tmp.path());
    let rows = shard_rows(&out.join("csn"));
    assert_eq!(
        find_row(&rows, "repo", "acme/four")["docstring"],
        "Version two of f."
    );
    assert_eq!(
        find_row(&rows, "repo", "repo")["docstring"],
        "Version one of f."
    );
}
