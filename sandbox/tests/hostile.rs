//! A hostile test suite for the sandbox: each test runs a real command that tries to break
//! out (network, the home folder, a clone cache and an output folder, writes outside its
//! copy, a fork bomb, 10 GB of memory, an endless loop, a daemon left behind) and checks
//! that it was contained, that the result names what happened, and that the host is as it
//! was afterwards. No mocks: real processes, real namespaces, real cgroups.
//!
//! The tests that must see a limit enforced by rlimits instead of cgroups turn cgroups off
//! and run as a user of their own, so that counting that user's processes on the host is
//! exact while other tests run at the same time.

use std::collections::BTreeMap;
use std::fs;
use std::io::Read;
use std::net::TcpListener;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use codemine_sandbox::{Limits, Mount, Network, Outcome, RunSpec, Sandbox, SandboxConfig};

fn sandbox_as(user: Option<(u32, u32)>, cgroups: bool) -> Sandbox {
    Sandbox::new(SandboxConfig {
        user,
        cgroups,
        ..SandboxConfig::default()
    })
    .expect("the sandbox starts (bubblewrap installed by scripts/setup.sh)")
}

fn sandbox() -> Sandbox {
    sandbox_as(None, true)
}

fn root() -> bool {
    // SAFETY: geteuid(2) cannot fail.
    unsafe { libc::geteuid() == 0 }
}

fn sh(script: &str) -> RunSpec {
    RunSpec::new(["/bin/sh", "-c", script])
}

fn limits(wall_secs: u64) -> Limits {
    Limits {
        wall: Duration::from_secs(wall_secs),
        ..Limits::default()
    }
}

/// Every file under `dir` with its size, mode, owner and content.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, (u64, u32, u32, Vec<u8>)> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            let m = fs::symlink_metadata(e.path()).unwrap();
            let content = if m.is_file() {
                fs::read(e.path()).unwrap()
            } else {
                Vec::new()
            };
            out.insert(e.path(), (m.len(), m.mode(), m.uid(), content));
            if m.is_dir() {
                stack.push(e.path());
            }
        }
    }
    out
}

/// Host processes whose command line contains `needle`.
fn host_processes_with(needle: &str) -> Vec<String> {
    let mut found = Vec::new();
    for e in fs::read_dir("/proc").unwrap().flatten() {
        if !e
            .file_name()
            .to_string_lossy()
            .bytes()
            .all(|b| b.is_ascii_digit())
        {
            continue;
        }
        if let Ok(cmd) = fs::read(e.path().join("cmdline")) {
            let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
            if cmd.contains(needle) {
                found.push(format!("{}: {cmd}", e.file_name().to_string_lossy()));
            }
        }
    }
    found
}

/// Host processes owned by `uid`.
fn host_processes_of(uid: u32) -> usize {
    fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .bytes()
                .all(|b| b.is_ascii_digit())
        })
        .filter(|e| {
            fs::metadata(e.path())
                .map(|m| m.uid() == uid)
                .unwrap_or(false)
        })
        .count()
}

/// A fake user's world next to the sandbox's copy: a home with credentials, a clone cache
/// and an output folder, all in one parent folder so that the sandbox's copy is their
/// sibling.
struct World {
    _tmp: tempfile::TempDir,
    copy: PathBuf,
    home: PathBuf,
    cache: PathBuf,
    out: PathBuf,
}

fn world(sb: &Sandbox) -> World {
    // Under the real home folder, as the clone cache and outputs usually are.
    let base = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_else(std::env::temp_dir);
    let tmp = tempfile::Builder::new()
        .prefix(".codemine-sandbox-test-")
        .tempdir_in(&base)
        .unwrap();
    let copy = tmp.path().join("copy");
    let home = tmp.path().join("home");
    let cache = tmp.path().join("cache");
    let out = tmp.path().join("out");
    for d in [&copy, &home, &cache, &out] {
        fs::create_dir(d).unwrap();
    }
    fs::create_dir(home.join(".ssh")).unwrap();
    fs::write(home.join(".ssh/id_ed25519"), "PRIVATE KEY\n").unwrap();
    fs::write(
        home.join(".npmrc"),
        "//registry.npmjs.org/:_authToken=secret\n",
    )
    .unwrap();
    fs::write(cache.join("HEAD"), "ref: refs/heads/main\n").unwrap();
    fs::write(out.join("stats.json"), "{}\n").unwrap();
    fs::write(copy.join("module.py"), "x = 1\n").unwrap();
    sb.hand_over(&copy, true).unwrap();
    World {
        _tmp: tmp,
        copy,
        home,
        cache,
        out,
    }
}

#[test]
fn runs_as_an_unprivileged_user_in_its_own_namespaces() {
    let sb = sandbox();
    let r = sb
        .run(&sh("id -u; id -g; hostname; echo $$; ls /proc | grep -c '^[0-9]'; grep Cap /proc/self/status; exit 3").limits(limits(30)))
        .unwrap();
    assert_eq!(
        r.outcome,
        Outcome::Exited { code: 3 },
        "{}",
        r.stderr.text()
    );
    assert!(r.sandboxed);
    let out = r.stdout.text();
    let lines: Vec<&str> = out.lines().collect();
    let (uid, gid) = sb.user();
    assert_ne!(uid, 0);
    assert_eq!(lines[0], uid.to_string());
    assert_eq!(lines[1], gid.to_string());
    assert_eq!(lines[2], "sandbox");
    // A PID namespace of its own: the shell is pid 2 under bubblewrap's init, and the only
    // processes are the init, the shell and the pipeline's two commands.
    assert_eq!(lines[3], "2");
    assert!(lines[4].parse::<u32>().unwrap() <= 4, "{out}");
    for cap in ["CapInh", "CapPrm", "CapEff", "CapAmb"] {
        let line = lines.iter().find(|l| l.starts_with(cap)).unwrap();
        assert!(line.ends_with("0000000000000000"), "{line}");
    }
}

#[test]
fn no_network_neither_outside_nor_a_host_port_on_loopback() {
    let sb = sandbox();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    listener.set_nonblocking(true).unwrap();
    let accepted = Arc::new(AtomicUsize::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let acceptor = {
        let (accepted, stop) = (accepted.clone(), stop.clone());
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                if let Ok((mut s, _)) = listener.accept() {
                    accepted.fetch_add(1, Ordering::Relaxed);
                    let _ = s.read(&mut [0u8; 16]);
                }
                std::thread::sleep(Duration::from_millis(5));
            }
        })
    };
    let script = format!(
        r#"
import socket
def attempt(name, host, port):
    try:
        socket.create_connection((host, port), timeout=3).close()
        print(name, "connected")
    except OSError as e:
        print(name, "refused", e.errno)
attempt("host-loopback", "127.0.0.1", {port})
attempt("outside", "1.1.1.1", 443)
attempt("outside-v6", "2606:4700:4700::1111", 443)
try:
    socket.getaddrinfo("pypi.org", 443)
    print("dns resolved")
except OSError as e:
    print("dns failed")
print(sorted(n for _, n in socket.if_nameindex()))
"#
    );
    let r = sb
        .run(&RunSpec::new(["python3", "-c", &script]).limits(limits(60)))
        .unwrap();
    let out = r.stdout.text().to_string();
    assert!(r.outcome.success(), "{out}{}", r.stderr.text());
    assert!(out.contains("host-loopback refused 111"), "{out}"); // ECONNREFUSED: another loopback
    assert!(out.contains("outside refused 101"), "{out}"); // ENETUNREACH: no route at all
    assert!(out.contains("outside-v6 refused"), "{out}");
    assert!(out.contains("dns failed"), "{out}");
    assert!(out.contains("['lo']"), "{out}");
    assert_eq!(accepted.load(Ordering::Relaxed), 0);

    // The control: with the host's network the same port is reached, so the test above
    // would have seen a leak.
    let r = sb
        .run(
            &RunSpec::new(["python3", "-c", &script])
                .network(Network::Host)
                .limits(limits(60)),
        )
        .unwrap();
    assert!(
        r.stdout.text().contains("host-loopback connected"),
        "{}",
        r.stdout.text()
    );
    let start = Instant::now();
    while accepted.load(Ordering::Relaxed) == 0 && start.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(accepted.load(Ordering::Relaxed), 1);
    stop.store(true, Ordering::Relaxed);
    acceptor.join().unwrap();
}

#[test]
fn home_clone_cache_output_and_credentials_are_not_visible() {
    let sb = sandbox();
    let w = world(&sb);
    let before = snapshot(w.copy.parent().unwrap());
    let real_home = std::env::var("HOME").unwrap_or_else(|_| "/root".into());
    let script = format!(
        r#"
for p in "{home}" "{home}/.ssh/id_ed25519" "{home}/.npmrc" "{cache}/HEAD" "{out}/stats.json" "{copy}" "{real_home}" "$HOME_GUESS/.bashrc" /sys/fs/cgroup /work /var /opt /mnt; do
  if cat "$p" >/dev/null 2>&1 || ls "$p" >/dev/null 2>&1; then echo "VISIBLE $p"; else echo "hidden $p"; fi
done
ls /sandbox
cat /sandbox/copy/module.py
env
"#,
        home = w.home.display(),
        cache = w.cache.display(),
        out = w.out.display(),
        copy = w.copy.display(),
        real_home = real_home,
    );
    let r = sb
        .run(
            &sh(&script)
                .env("HOME_GUESS", &real_home)
                .mount(Mount::writable(&w.copy, "/sandbox/copy"))
                .cwd("/sandbox/copy")
                .limits(limits(30)),
        )
        .unwrap();
    assert!(r.outcome.success(), "{}", r.stderr.text());
    let out = r.stdout.text().to_string();
    assert!(!out.contains("VISIBLE"), "{out}");
    assert_eq!(out.matches("hidden").count(), 13, "{out}");
    let rest: Vec<&str> = out.lines().skip(13).collect();
    assert_eq!(rest[..2], ["copy", "x = 1"], "{out}");
    // The environment is exactly what the run was given (PATH added), nothing of the host's.
    let mut env: Vec<&str> = rest[2..]
        .iter()
        .copied()
        .filter(|l| !l.starts_with("PWD=") && !l.starts_with("SHLVL=") && !l.starts_with("_="))
        .collect();
    env.sort();
    assert_eq!(
        env,
        [
            format!("HOME_GUESS={real_home}").as_str(),
            "PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"
        ],
        "{out}"
    );
    assert_eq!(snapshot(w.copy.parent().unwrap()), before);
}

#[test]
fn writes_outside_the_copy_fail_and_leave_the_host_unchanged() {
    let sb = sandbox();
    let w = world(&sb);
    // A read-only folder given to the sandbox, and (as root) a file of it hard-linked into
    // the copy: neither may change, the link sharing the read-only folder's inode, because
    // the sandbox's user does not own it. (Run by another user, the sandbox is that user
    // and may write the user's own files through a link: see `Mount::Bind`.)
    let ro = w.copy.parent().unwrap().join("ro");
    fs::create_dir(&ro).unwrap();
    fs::write(ro.join("data.txt"), "original\n").unwrap();
    let mut targets = vec![
        "/etc/hostname".to_string(),
        "/usr/codemine-x".into(),
        "/sandbox/ro/data.txt".into(),
        "/sandbox/ro/new.txt".into(),
        format!("{}/HEAD", w.cache.display()),
        format!("{}/new.json", w.out.display()),
    ];
    if root() {
        fs::hard_link(ro.join("data.txt"), w.copy.join("linked.txt")).unwrap();
        // The sandbox's own root (a tmpfs, gone after the run) is root's, not the user's.
        targets.extend(
            [
                "/sandbox/copy/linked.txt",
                "/codemine-x",
                "/tmp/../codemine-y",
                "/sandbox/sibling",
            ]
            .map(String::from),
        );
    }
    let before = snapshot(w.copy.parent().unwrap());
    let etc_before = fs::read("/etc/hostname").ok();
    let script = format!(
        r#"
for p in {}; do
  if (echo pwned > "$p") 2>/dev/null; then echo "WROTE $p"; else echo "refused $p"; fi
done
[ -e /sandbox/copy/linked.txt ] && chmod 666 /sandbox/copy/linked.txt 2>/dev/null && echo "CHMOD"
echo ok > /sandbox/copy/new.py && echo "copy writable"
echo ok > /tmp/scratch && echo "tmp writable"
"#,
        targets
            .iter()
            .map(|t| format!("\"{t}\""))
            .collect::<Vec<_>>()
            .join(" ")
    );
    let r = sb
        .run(
            &sh(&script)
                .mount(Mount::read_only(&ro, "/sandbox/ro"))
                .mount(Mount::writable(&w.copy, "/sandbox/copy"))
                .limits(limits(30)),
        )
        .unwrap();
    assert!(r.outcome.success(), "{}", r.stderr.text());
    let out = r.stdout.text().to_string();
    assert!(!out.contains("WROTE"), "{out}");
    assert!(!out.contains("CHMOD"), "{out}");
    assert_eq!(out.matches("refused").count(), targets.len(), "{out}");
    assert!(
        out.contains("copy writable") && out.contains("tmp writable"),
        "{out}"
    );

    let mut after = snapshot(w.copy.parent().unwrap());
    let new_file = after
        .remove(&w.copy.join("new.py"))
        .expect("the copy is writable");
    assert_eq!(new_file.3, b"ok\n");
    assert_eq!(after, before);
    assert_eq!(fs::read(ro.join("data.txt")).unwrap(), b"original\n");
    assert_eq!(fs::read("/etc/hostname").ok(), etc_before);
    for p in ["/usr/codemine-x", "/codemine-x", "/codemine-y"] {
        assert!(!Path::new(p).exists(), "{p}");
    }
}

#[test]
fn a_fork_bomb_is_stopped_by_the_pids_cgroup() {
    let uid = 64_101;
    let sb = sandbox_as(Some((uid, uid)), true);
    if sb.info().process_limit == "rlimit_nproc" {
        eprintln!(
            "no pids cgroup here ({:?}): see the rlimit test",
            sb.info().cgroup_unavailable
        );
        return;
    }
    let bomb = "bomb() { bomb | bomb & }; bomb; sleep 30";
    let r = sb
        .run(&RunSpec::new(["bash", "-c", bomb]).limits(Limits {
            processes: Some(64),
            ..limits(60)
        }))
        .unwrap();
    assert_eq!(r.outcome, Outcome::ProcessLimit, "{}", r.stderr.text());
    assert!(r.wall < Duration::from_secs(20), "{:?}", r.wall);
    assert_eq!(
        host_processes_of(uid),
        0,
        "every process of the bomb is gone"
    );
}

#[test]
fn a_fork_bomb_is_stopped_by_rlimit_nproc_without_cgroups() {
    if !root() {
        return; // the uid below is only ours to use as root
    }
    let uid = 64_102;
    let sb = sandbox_as(Some((uid, uid)), false);
    assert_eq!(sb.info().process_limit, "rlimit_nproc");
    let stop = Arc::new(AtomicBool::new(false));
    let peak = Arc::new(AtomicUsize::new(0));
    let sampler = {
        let (stop, peak) = (stop.clone(), peak.clone());
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                peak.fetch_max(host_processes_of(uid), Ordering::Relaxed);
                std::thread::sleep(Duration::from_millis(20));
            }
        })
    };
    let bomb = "bomb() { bomb | bomb & }; bomb; sleep 30";
    let r = sb
        .run(&RunSpec::new(["bash", "-c", bomb]).limits(Limits {
            processes: Some(64),
            ..limits(5)
        }))
        .unwrap();
    stop.store(true, Ordering::Relaxed);
    sampler.join().unwrap();
    // Forks just fail: the bomb spins until the wall clock ends it.
    assert_eq!(r.outcome, Outcome::Timeout);
    assert!(
        peak.load(Ordering::Relaxed) <= 64,
        "{} processes",
        peak.load(Ordering::Relaxed)
    );
    assert!(peak.load(Ordering::Relaxed) > 10, "the bomb ran");
    assert_eq!(host_processes_of(uid), 0);
}

const ALLOCATE_10G: &str = "import sys; b = b'x' * (10 << 30); print(len(b))";

#[test]
fn ten_gigabytes_is_a_memory_kill() {
    let sb = sandbox();
    if sb.info().memory_limit == "rlimit_as" {
        eprintln!("no memory cgroup here ({:?})", sb.info().cgroup_unavailable);
        return;
    }
    let r = sb
        .run(
            &RunSpec::new(["python3", "-c", ALLOCATE_10G]).limits(Limits {
                memory: Some(256 << 20),
                ..limits(60)
            }),
        )
        .unwrap();
    assert_eq!(r.outcome, Outcome::MemoryLimit, "{}", r.stderr.text());
    assert!(
        r.peak_memory.unwrap() <= (256 << 20) + (1 << 20),
        "{:?}",
        r.peak_memory
    );
    assert!(r.stdout.text().is_empty());
}

#[test]
fn ten_gigabytes_fails_under_rlimit_as_without_cgroups() {
    let sb = sandbox_as(None, false);
    assert_eq!(sb.info().memory_limit, "rlimit_as");
    let r = sb
        .run(
            &RunSpec::new(["python3", "-c", ALLOCATE_10G]).limits(Limits {
                memory: Some(512 << 20),
                ..limits(60)
            }),
        )
        .unwrap();
    // The allocation fails inside the process, which reports it as it likes.
    assert_eq!(r.outcome, Outcome::Exited { code: 1 });
    assert!(
        r.stderr.text().contains("MemoryError"),
        "{}",
        r.stderr.text()
    );
}

#[test]
fn an_endless_loop_is_a_timeout_or_a_cpu_limit() {
    let sb = sandbox();
    let r = sb
        .run(&sh("while :; do :; done").limits(Limits {
            wall: Duration::from_millis(1500),
            ..Limits::default()
        }))
        .unwrap();
    assert_eq!(r.outcome, Outcome::Timeout);
    assert!(
        r.wall >= Duration::from_millis(1500) && r.wall < Duration::from_secs(4),
        "{:?}",
        r.wall
    );

    // CPU time: two spinning processes use the limit twice as fast as the wall clock.
    let r = sb
        .run(
            &sh("(while :; do :; done) & while :; do :; done").limits(Limits {
                cpu: Some(Duration::from_secs(2)),
                ..limits(60)
            }),
        )
        .unwrap();
    // CpuLimit, not Timeout: the wall clock (60 s) did not end it.
    assert_eq!(r.outcome, Outcome::CpuLimit, "{:?}", r.wall);
    if let Some(cpu) = r.cpu {
        assert!(cpu >= Duration::from_secs(2), "{cpu:?}");
    }
}

#[test]
fn cpu_limit_by_rlimit_without_cgroups() {
    let sb = sandbox_as(None, false);
    let r = sb
        .run(&sh("while :; do :; done").limits(Limits {
            cpu: Some(Duration::from_secs(1)),
            ..limits(60)
        }))
        .unwrap();
    assert_eq!(r.outcome, Outcome::CpuLimit);
}

#[test]
fn a_daemon_left_behind_is_killed_with_the_run() {
    let sb = sandbox();
    let w = world(&sb);
    // A double fork into a new session, then a write after the run has ended.
    let script = "setsid sh -c 'sleep 2.71828; echo late > /sandbox/copy/late' </dev/null >/dev/null 2>&1 & \
                  nohup sleep 31.4159 </dev/null >/dev/null 2>&1 & echo early > /sandbox/copy/early";
    let r = sb
        .run(
            &sh(script)
                .mount(Mount::writable(&w.copy, "/sandbox/copy"))
                .limits(limits(30)),
        )
        .unwrap();
    assert!(r.outcome.success());
    // The control: the copy is writable, so a surviving daemon's write would show.
    assert_eq!(fs::read(w.copy.join("early")).unwrap(), b"early\n");
    assert!(
        r.wall < Duration::from_secs(2),
        "the run does not wait for its daemons: {:?}",
        r.wall
    );
    assert_eq!(host_processes_with("2.71828"), Vec::<String>::new());
    assert_eq!(host_processes_with("31.4159"), Vec::<String>::new());
    std::thread::sleep(Duration::from_secs(4));
    assert!(
        !w.copy.join("late").exists(),
        "the daemon wrote after the run"
    );
}

#[test]
fn a_file_past_the_size_limit_is_reported() {
    let sb = sandbox();
    let w = world(&sb);
    let r = sb
        .run(
            &sh("head -c 10000000 /dev/zero > /sandbox/copy/big")
                .mount(Mount::writable(&w.copy, "/sandbox/copy"))
                .limits(Limits {
                    file_size: Some(1 << 20),
                    ..limits(30)
                }),
        )
        .unwrap();
    assert_eq!(r.outcome, Outcome::FileSizeLimit);
    assert_eq!(fs::metadata(w.copy.join("big")).unwrap().len(), 1 << 20);
}

#[test]
fn open_files_are_limited() {
    let sb = sandbox();
    let script = "import os\nfs = []\ntry:\n    for i in range(1000): fs.append(open('/dev/null'))\nexcept OSError as e:\n    print(len(fs), e.errno)\n";
    let r = sb
        .run(&RunSpec::new(["python3", "-c", script]).limits(Limits {
            open_files: Some(64),
            ..limits(30)
        }))
        .unwrap();
    assert!(r.outcome.success(), "{}", r.stderr.text());
    let out = r.stdout.text();
    let (n, errno) = out.trim().split_once(' ').unwrap();
    assert!(n.parse::<u32>().unwrap() < 64, "{out}");
    assert_eq!(errno, "24"); // EMFILE
}

#[test]
fn signals_and_exit_codes_are_told_apart() {
    let sb = sandbox();
    let r = sb.run(&sh("kill -TERM $$").limits(limits(30))).unwrap();
    assert_eq!(r.outcome, Outcome::Signaled { signal: 15 });
    let r = sb.run(&sh("exit 0").limits(limits(30))).unwrap();
    assert!(r.outcome.success());
    let r = sb
        .run(&RunSpec::new(["/no/such/program"]).limits(limits(30)))
        .unwrap();
    assert!(
        matches!(r.outcome, Outcome::Exited { code } if code != 0),
        "{:?}",
        r.outcome
    );
}

#[test]
fn output_tails_are_bounded() {
    let sb = sandbox();
    let r = sb
        .run(
            &sh("head -c 10000000 /dev/zero | tr '\\0' a; echo END; echo err >&2")
                .tail_bytes(1024)
                .limits(limits(30)),
        )
        .unwrap();
    assert!(r.outcome.success());
    assert_eq!(r.stdout.total, 10_000_004);
    assert_eq!(r.stdout.bytes.len(), 1024);
    assert!(r.stdout.text().ends_with("aaaEND\n"));
    assert_eq!(r.stderr.text(), "err\n");
}

#[test]
fn a_missing_mount_source_is_a_setup_error() {
    let sb = sandbox();
    let e = sb
        .run(
            &sh("true")
                .mount(Mount::read_only("/no/such/folder", "/work"))
                .limits(limits(30)),
        )
        .unwrap_err();
    assert!(matches!(e, codemine_sandbox::Error::Setup { .. }), "{e}");
    assert!(e.to_string().contains("/no/such/folder"), "{e}");
}

#[test]
fn without_the_sandbox_limits_apply_and_the_result_says_so() {
    let sb = Sandbox::new(SandboxConfig {
        no_sandbox: true,
        ..SandboxConfig::default()
    })
    .unwrap();
    assert!(!sb.info().sandboxed);
    assert_eq!(sb.info().mechanism, "none");
    let r = sb.run(&sh("echo hi; exit 4").limits(limits(30))).unwrap();
    assert!(!r.sandboxed);
    assert_eq!(r.outcome, Outcome::Exited { code: 4 });
    assert_eq!(r.stdout.text(), "hi\n");
    let r = sb
        .run(&sh("while :; do :; done").limits(Limits {
            wall: Duration::from_millis(500),
            ..Limits::default()
        }))
        .unwrap();
    assert_eq!(r.outcome, Outcome::Timeout);
    // A daemon left behind in the process group dies with the run here too.
    let r = sb
        .run(&sh("sleep 27.1828 & echo started").limits(limits(30)))
        .unwrap();
    assert!(r.outcome.success());
    assert_eq!(host_processes_with("27.1828"), Vec::<String>::new());
    let e = sb
        .run(&sh("true").mount(Mount::read_only("/usr", "/elsewhere")))
        .unwrap_err();
    assert!(
        matches!(e, codemine_sandbox::Error::NoSandboxRemap { .. }),
        "{e}"
    );
}

#[test]
fn runs_in_parallel_are_independent() {
    let sb = Arc::new(sandbox());
    let handles: Vec<_> = (0..4)
        .map(|i| {
            let sb = sb.clone();
            std::thread::spawn(move || {
                sb.run(&sh(&format!("sleep 0.2; exit {i}")).limits(limits(30)))
                    .unwrap()
            })
        })
        .collect();
    for (i, h) in handles.into_iter().enumerate() {
        assert_eq!(
            h.join().unwrap().outcome,
            Outcome::Exited { code: i as i32 }
        );
    }
}

#[test]
fn an_overlay_is_writable_inside_and_leaves_its_lower_folder_untouched() {
    let sb = sandbox();
    let w = world(&sb);
    // The lower folder belongs to the sandbox's user (as a prepared environment does), so
    // only the overlay keeps the writes away from it.
    fs::write(w.copy.join("build.o"), "old object\n").unwrap();
    sb.hand_over(&w.copy, true).unwrap();
    let before = snapshot(&w.copy);
    let scratch = w.copy.parent().unwrap().join("scratch");
    fs::create_dir(&scratch).unwrap();
    // A file put over the lower one before the run (a rewritten source file).
    fs::create_dir_all(scratch.join("upper")).unwrap();
    fs::write(scratch.join("upper/module.py"), "x = 2\n").unwrap();
    sb.hand_over(&scratch.join("upper"), true).unwrap();
    let overlay = Mount::overlay(&w.copy, &scratch, "/sandbox/repo");
    let script = "cat module.py; echo new >> build.o; rm -f module.py; echo created > new.txt; mkdir d; echo x > d/y; cat build.o";
    let r = sb
        .run(
            &sh(script)
                .mount(overlay.clone())
                .cwd("/sandbox/repo")
                .limits(limits(30)),
        )
        .unwrap();
    assert!(r.outcome.success(), "{}", r.stderr.text());
    assert_eq!(r.stdout.text(), "x = 2\nold object\nnew\n");
    // A second run on the same scratch sees the first one's changes.
    let r = sb
        .run(
            &sh("ls; cat new.txt d/y")
                .mount(overlay)
                .cwd("/sandbox/repo")
                .limits(limits(30)),
        )
        .unwrap();
    assert_eq!(r.stdout.text(), "build.o\nd\nnew.txt\ncreated\nx\n");
    assert_eq!(snapshot(&w.copy), before);
    // Nothing stays mounted on the host.
    let mounts = fs::read_to_string("/proc/self/mountinfo").unwrap();
    assert!(!mounts.contains(&scratch.display().to_string()), "{mounts}");
}

#[test]
fn a_refused_namespace_is_an_error_never_an_unsandboxed_run() {
    // What bubblewrap prints where the kernel (or a container's policy) refuses to make the
    // namespaces; this stand-in fails the same way, and leaves a mark if anything runs it
    // as the command instead.
    let dir = tempfile::tempdir().unwrap();
    let fake = dir.path().join("bwrap");
    let mark = dir.path().join("ran");
    fs::write(
        &fake,
        format!(
            "#!/bin/sh\ncase \"$1\" in --version) echo 'bubblewrap 0.8.0'; exit 0;; esac\n\
             echo 'bwrap: No permissions to creating new namespace, likely because the kernel does not allow \
             non-privileged user namespaces.' >&2\ntouch {}\nexit 1\n",
            mark.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(&fake, fs::Permissions::from_mode(0o755)).unwrap();
    let e = Sandbox::new(SandboxConfig {
        bwrap: Some(fake),
        ..SandboxConfig::default()
    })
    .unwrap_err();
    assert!(
        matches!(e, codemine_sandbox::Error::NamespacesRefused { .. }),
        "{e}"
    );
    assert!(
        e.to_string()
            .contains("No permissions to creating new namespace"),
        "{e}"
    );
    assert!(mark.exists(), "the probe did run bubblewrap");

    let e = Sandbox::new(SandboxConfig {
        bwrap: Some(dir.path().join("missing")),
        ..SandboxConfig::default()
    })
    .unwrap_err();
    assert!(matches!(e, codemine_sandbox::Error::BwrapNotFound), "{e}");
}
