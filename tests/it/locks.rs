//! End to end: one writer per output folder and per clone-cache entry, across processes.
//! The other holder is either a second `codemine` or this test process itself, holding the
//! same `flock` a run takes, as any other program could.

use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use harness::corpus::corpus;
use harness::*;

fn mine_cmd(out: &Path, cache: &Path, repos: &[&str]) -> Command {
    let mut c = Command::new(binary());
    c.args(["mine", "--out", out.to_str().unwrap(), "-j", "1"])
        .env("CODEMINE_CACHE", cache)
        .env("CI", "1");
    for r in repos {
        c.args(["--repo", r]);
    }
    c
}

fn hold(path: &Path, line: &str) -> fs::File {
    let mut f = fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(true)
        .open(path)
        .unwrap();
    f.try_lock().unwrap();
    std::io::Write::write_all(&mut f, line.as_bytes()).unwrap();
    f
}

/// Two `mine` runs into one folder: the second stops at once, naming the first's process,
/// and the first completes its output untouched.
#[test]
fn a_second_run_into_a_folder_in_use_stops_and_names_the_holder() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let repos = corpus(&tmp.path().join("repos"));
    let paths: Vec<&str> = repos.iter().map(|p| p.to_str().unwrap()).collect();
    let out = tmp.path().join("out");
    let mut first = mine_cmd(&out, &cache, &paths)
        .args(["--checkpoint-repos", "1"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let lock = out.join(".codemine.lock");
    let start = Instant::now();
    while !fs::read_to_string(&lock).is_ok_and(|s| s.ends_with('\n')) {
        assert!(start.elapsed() < Duration::from_secs(60), "no lock taken");
        std::thread::sleep(Duration::from_millis(5));
    }
    let second = mine_cmd(&out, &cache, &paths).output().unwrap();
    let first_running = first.try_wait().unwrap().is_none();
    let status = first.wait().unwrap();
    assert!(
        first_running,
        "the first run ended before the second started"
    );
    assert_eq!(second.status.code(), Some(1));
    let err = String::from_utf8_lossy(&second.stderr);
    assert!(
        err.contains("in use by another codemine run")
            && err.contains(&format!("pid {} ", first.id()))
            && err.contains("codemine mine"),
        "{err}"
    );
    assert!(status.success());
    assert!(out.join("stats.json").exists());
    assert!(!out.join("staging").exists());
    let nodes = python_json(
        "import sys, glob, json, pyarrow.parquet as pq\nkinds = [k for f in glob.glob(sys.argv[1] + '/nodes-*.parquet') for k in pq.read_table(f, columns=['kind']).column('kind').to_pylist()]\nprint(json.dumps(sum(k not in ('module', 'lambda') for k in kinds)))",
        &[out.join("callgraph/nodes").to_str().unwrap()],
    );
    let stats: serde_json::Value =
        serde_json::from_slice(&fs::read(out.join("stats.json")).unwrap()).unwrap();
    assert_eq!(nodes, stats["stages"]["extract"]["functions"], "{stats}");
}

/// `cluster` and `finalize` need the folder alone; ranks of one sharded run share it, but
/// two copies of one rank do not.
#[test]
fn steps_and_ranks_lock_the_folder_as_they_share_it() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let mut repo = RepoBuilder::init(&tmp.path().join("r"));
    repo.write("a.py", "def f():\n    \"\"\"Doc.\"\"\"\n    return 1\n");
    repo.commit("one");
    let r = repo.path.to_str().unwrap();
    let out = tmp.path().join("out");
    fs::create_dir_all(&out).unwrap();
    let holder = hold(
        &out.join(".codemine.lock"),
        "pid 4242 on elsewhere: a test\n",
    );
    for step in ["cluster", "finalize"] {
        let res = codemine(&[step, "--out", out.to_str().unwrap()], &cache);
        assert_eq!(res.status.code(), Some(1), "{step}");
        let err = String::from_utf8_lossy(&res.stderr);
        assert!(
            err.contains("pid 4242 on elsewhere: a test"),
            "{step}: {err}"
        );
    }
    let res = mine_cmd(&out, &cache, &[r]).output().unwrap();
    assert_eq!(res.status.code(), Some(1));
    drop(holder);

    // A rank shares the folder: it runs while another rank's shared hold is taken...
    let shared = fs::File::open(out.join(".codemine.lock")).unwrap();
    shared.try_lock_shared().unwrap();
    let rank = |k: &str| {
        mine_cmd(&out, &cache, &[r])
            .args(["--rank", k, "--world-size", "2"])
            .output()
            .unwrap()
    };
    assert_success(&rank("1"));
    // ...but not while that rank's own lock is held.
    let _rank0 = hold(
        &out.join(".codemine-rank-00000.lock"),
        "pid 7 on x: rank 0\n",
    );
    let res = rank("0");
    assert_eq!(res.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&res.stderr).contains("pid 7 on x: rank 0"));
    // And `finalize` waits for no rank: it refuses while one holds the folder.
    let res = codemine(&["finalize", "--out", out.to_str().unwrap()], &cache);
    assert_eq!(res.status.code(), Some(1));
}

/// A clone-cache entry is locked across processes: a run that needs an entry another
/// process holds waits for it (here: this test holds it), then goes on.
#[test]
fn a_cache_entry_in_use_by_another_process_is_waited_for() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let mut repo = RepoBuilder::init(&tmp.path().join("r"));
    repo.write("a.py", "def f():\n    \"\"\"Doc.\"\"\"\n    return 1\n");
    repo.commit("one");
    let url = format!("file://{}", repo.path.display());
    let entry = miner::source::cache_path(&cache, &url);
    fs::create_dir_all(&cache).unwrap();
    let mut lock_name = entry.clone().into_os_string();
    lock_name.push(".lock");
    let holder = hold(Path::new(&lock_name), "");
    let mut run = mine_cmd(&tmp.path().join("out"), &cache, &[&url])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_secs(2));
    let waited = run.try_wait().unwrap().is_none();
    let cloned_meanwhile = entry.exists();
    drop(holder);
    let status = run.wait().unwrap();
    assert!(
        waited && !cloned_meanwhile,
        "the run did not wait for the entry"
    );
    assert!(status.success());
    assert!(entry.join("HEAD").exists());
}

/// A fetch killed part-way leaves `objects/pack/pack_git2_*` in the cache entry; the next run
/// that opens the entry removes it.
#[test]
fn temporary_packs_of_a_killed_clone_are_removed() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let mut repo = RepoBuilder::init(&tmp.path().join("r"));
    repo.write("a.py", "def f():\n    \"\"\"Doc.\"\"\"\n    return 1\n");
    repo.commit("one");
    let url = format!("file://{}", repo.path.display());
    assert_success(
        &mine_cmd(&tmp.path().join("o1"), &cache, &[&url])
            .output()
            .unwrap(),
    );
    let entry = miner::source::cache_path(&cache, &url);
    let stray = entry.join("objects/pack/pack_git2_5c1e0f2a9b7d3e41");
    fs::write(&stray, vec![0u8; 4096]).unwrap();
    assert_success(
        &mine_cmd(&tmp.path().join("o2"), &cache, &[&url])
            .output()
            .unwrap(),
    );
    assert!(!stray.exists());
}
