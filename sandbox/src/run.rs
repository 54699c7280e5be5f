//! Starting one run and watching it: the child (bubblewrap, or the command itself without
//! the sandbox) is put into the run's cgroups and given its rlimits between fork and exec;
//! one `poll` loop then reads stdout, stderr and bubblewrap's status pipe, wakes when the
//! child exits (a pidfd) or a limit needs checking, and kills the whole tree when a limit
//! is passed. After the child exits the tree is killed again (a daemon left behind dies
//! here) and the run returns only once nothing of it is left.

use std::ffi::{CString, OsString};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::cgroup::RunGroup;
use crate::result::{Outcome, RunResult, TailBuf};
use crate::spec::{Mount, Network, RunSpec, DEFAULT_PATH};
use crate::{Error, Mode, Sandbox, SystemEntry};

/// How often limits that only a cgroup counter reveals (memory, processes, CPU) are checked.
const WATCH_INTERVAL: Duration = Duration::from_millis(25);
/// How long the end of a run waits for the tree to die and the pipes to close.
const TEARDOWN_PATIENCE: Duration = Duration::from_secs(5);

type Resource = libc::__rlimit_resource_t;

fn last_error() -> io::Error {
    io::Error::last_os_error()
}

/// A pidfd for `pid` (Linux 5.3+), or None where the kernel has none.
fn pidfd_open(pid: i32) -> Option<OwnedFd> {
    // SAFETY: pidfd_open(2) takes a pid and flags and returns a new descriptor we own.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    if fd < 0 {
        return None;
    }
    // SAFETY: the descriptor was just returned by the kernel and is owned by nobody else.
    Some(unsafe { OwnedFd::from_raw_fd(fd as RawFd) })
}

fn pidfd_kill(pidfd: &OwnedFd) {
    // SAFETY: pidfd_send_signal(2) on a pidfd we own; no siginfo.
    unsafe {
        libc::syscall(
            libc::SYS_pidfd_send_signal,
            pidfd.as_raw_fd(),
            libc::SIGKILL,
            std::ptr::null::<libc::siginfo_t>(),
            0,
        );
    }
}

/// Waits until `fd` is readable (a pidfd: its process has exited), at most `timeout`.
fn wait_readable(fd: RawFd, timeout: Duration) -> bool {
    let deadline = Instant::now() + timeout;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let mut p = libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd.
        let n = unsafe { libc::poll(&mut p, 1, left.as_millis().min(i32::MAX as u128) as i32) };
        if n > 0 {
            return true;
        }
        if n == 0 || (n < 0 && last_error().kind() != io::ErrorKind::Interrupted) {
            return n > 0;
        }
    }
}

fn set_nonblocking(fd: RawFd) {
    // SAFETY: fcntl(2) on a descriptor we own.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags >= 0 {
            libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK);
        }
    }
}

/// Reads what `fd` has now into `sink`; true at end of file (or on an error).
fn drain(fd: RawFd, sink: &mut dyn FnMut(&[u8])) -> bool {
    let mut buf = [0u8; 65536];
    loop {
        // SAFETY: reading into a local buffer of the given length.
        let n = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
        if n > 0 {
            sink(&buf[..n as usize]);
            continue;
        }
        if n == 0 {
            return true;
        }
        match last_error().kind() {
            io::ErrorKind::Interrupted => continue,
            io::ErrorKind::WouldBlock => return false,
            _ => return true,
        }
    }
}

/// The pipe bubblewrap writes its JSON status to: `{"child-pid": N, ...}` once the
/// sandbox's namespaces exist, `{"exit-code": N}` when the command it executed exits.
fn status_pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: pipe2(2) fills two descriptors we then own.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(last_error());
    }
    // SAFETY: both descriptors were just created and are owned by nobody else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

#[derive(Default)]
struct Status {
    child_pid: Option<i32>,
    exit_code: Option<i32>,
}

fn parse_status(buf: &[u8]) -> Status {
    let mut st = Status::default();
    for v in serde_json::Deserializer::from_slice(buf).into_iter::<serde_json::Value>() {
        let Ok(v) = v else { break };
        if let Some(p) = v.get("child-pid").and_then(|p| p.as_i64()) {
            st.child_pid = i32::try_from(p).ok();
        }
        if let Some(c) = v.get("exit-code").and_then(|c| c.as_i64()) {
            st.exit_code = i32::try_from(c).ok();
        }
    }
    st
}

/// Processes of user `uid` now (for `RLIMIT_NPROC`, which counts them all).
fn processes_of(uid: u32) -> u64 {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return 0;
    };
    let mut n = 0;
    for e in dir.flatten() {
        use std::os::unix::fs::MetadataExt;
        if e.file_name()
            .as_encoded_bytes()
            .iter()
            .all(u8::is_ascii_digit)
        {
            if let Ok(m) = e.metadata() {
                n += u64::from(m.uid() == uid);
            }
        }
    }
    n
}

/// The bubblewrap command line for `spec`, the status pipe's descriptor being `status_fd`.
fn bwrap_args(sb: &Sandbox, spec: &RunSpec, status_fd: RawFd) -> Vec<OsString> {
    let mut a: Vec<OsString> = Vec::new();
    let mut push = |items: &[&str]| a.extend(items.iter().map(OsString::from));
    push(&[
        "--die-with-parent",
        "--new-session",
        "--unshare-ipc",
        "--unshare-pid",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--hostname",
        "sandbox",
    ]);
    if spec.network == Network::None {
        push(&["--unshare-net"]);
    }
    match sb.mode {
        // bwrap runs as root in the initial user namespace: it keeps only what setpriv
        // needs to become the unprivileged user, and setpriv drops those too.
        Mode::Root { .. } => push(&[
            "--cap-drop",
            "ALL",
            "--cap-add",
            "CAP_SETUID",
            "--cap-add",
            "CAP_SETGID",
            "--cap-add",
            "CAP_SETPCAP",
        ]),
        Mode::User { .. } => push(&["--unshare-user", "--disable-userns"]),
        Mode::Off => {}
    }
    for entry in &sb.system {
        match entry {
            SystemEntry::Dir(p) => {
                a.push("--ro-bind".into());
                a.push(p.into());
                a.push(p.into());
            }
            SystemEntry::Symlink { path, target } => {
                a.push("--symlink".into());
                a.push(target.into());
                a.push(path.into());
            }
        }
    }
    let tmp_size = |a: &mut Vec<OsString>, size: Option<u64>| {
        if let Some(s) = size.or(spec.limits.memory) {
            a.push("--size".into());
            a.push(s.to_string().into());
        }
    };
    a.extend(["--proc", "/proc", "--dev", "/dev", "--perms", "1777"].map(OsString::from));
    tmp_size(&mut a, None);
    a.extend(["--tmpfs", "/dev/shm", "--perms", "1777"].map(OsString::from));
    tmp_size(&mut a, None);
    a.extend(["--tmpfs", "/tmp"].map(OsString::from));
    for m in &spec.mounts {
        match m {
            Mount::Bind {
                source,
                target,
                writable,
            } => {
                // bwrap 0.8 and 0.9 make a bind's missing parent folders with mode 0700 (an
                // unset `perms`), which the unprivileged user cannot enter when bwrap runs as
                // root: make them first with `--dir`, whose mode is 0755.
                if let Some(parent) = target.parent().filter(|p| p.parent().is_some()) {
                    a.push("--dir".into());
                    a.push(parent.into());
                }
                a.push(if *writable { "--bind" } else { "--ro-bind" }.into());
                a.push(source.into());
                a.push(target.into());
            }
            Mount::Overlay {
                scratch, target, ..
            } => {
                // Mounted (or copied) at scratch/merged before bubblewrap starts.
                if let Some(parent) = target.parent().filter(|p| p.parent().is_some()) {
                    a.push("--dir".into());
                    a.push(parent.into());
                }
                a.push("--bind".into());
                a.push(scratch.join("merged").into());
                a.push(target.into());
            }
            Mount::Tmpfs { target, size } => {
                a.extend(["--perms", "1777"].map(OsString::from));
                tmp_size(&mut a, *size);
                a.push("--tmpfs".into());
                a.push(target.into());
            }
        }
    }
    a.push("--chdir".into());
    a.push(spec.cwd.clone().into());
    a.push("--json-status-fd".into());
    a.push(status_fd.to_string().into());
    a.push("--".into());
    // setpriv executes the command in both modes, so that a command that cannot be
    // executed is its exit code 127 (as in a shell), not a failure of bubblewrap's setup.
    match (sb.mode, &sb.setpriv) {
        (Mode::Root { uid, gid }, Some(setpriv)) => {
            a.push(setpriv.into());
            a.push(format!("--reuid={uid}").into());
            a.push(format!("--regid={gid}").into());
            a.extend(
                [
                    "--clear-groups",
                    "--inh-caps=-all",
                    "--bounding-set=-all",
                    "--",
                ]
                .map(OsString::from),
            );
        }
        (Mode::User { .. }, Some(setpriv)) => {
            a.push(setpriv.into());
            a.extend(["--no-new-privs", "--"].map(OsString::from));
        }
        _ => {}
    }
    a.extend(spec.argv.iter().cloned());
    a
}

/// Makes each overlay's folders; returns the mounts the child makes (root), or copies
/// `lower` and `upper` into `merged` once (a non-root caller cannot mount overlayfs).
fn prepare_overlays(sb: &Sandbox, spec: &RunSpec) -> Result<Vec<(CString, CString)>, Error> {
    let mut out = Vec::new();
    for m in &spec.mounts {
        let Mount::Overlay { lower, scratch, .. } = m else {
            continue;
        };
        let io = |what: &str, p: &Path, e: io::Error| Error::Io {
            what: format!("{what} {}", p.display()),
            source: e,
        };
        let (upper, work, merged) = (
            scratch.join("upper"),
            scratch.join("work"),
            scratch.join("merged"),
        );
        match sb.mode {
            Mode::Root { .. } => {
                for d in [&upper, &work, &merged] {
                    std::fs::create_dir_all(d).map_err(|e| io("making", d, e))?;
                }
                sb.hand_over(&upper, false)?;
                let options = format!(
                    "lowerdir={},upperdir={},workdir={}",
                    lower.display(),
                    upper.display(),
                    work.display()
                );
                let c = |s: &[u8]| {
                    CString::new(s).map_err(|_| Error::Spec("a path with a NUL byte".into()))
                };
                out.push((c(options.as_bytes())?, c(merged.as_os_str().as_bytes())?));
            }
            Mode::User { .. } => {
                if !merged.exists() {
                    let staging = scratch.join("merged.partial");
                    crate::copy_into(lower, &staging).map_err(|e| io("copying", lower, e))?;
                    if upper.exists() {
                        crate::copy_into(&upper, &staging).map_err(|e| io("copying", &upper, e))?;
                    }
                    std::fs::rename(&staging, &merged).map_err(|e| io("renaming", &staging, e))?;
                }
            }
            Mode::Off => {}
        }
    }
    Ok(out)
}

fn check_spec(sb: &Sandbox, spec: &RunSpec) -> Result<(), Error> {
    if spec.argv.is_empty() {
        return Err(Error::Spec("the command is empty".into()));
    }
    if !spec.cwd.is_absolute() {
        return Err(Error::Spec(format!(
            "the working directory {} is not absolute",
            spec.cwd.display()
        )));
    }
    for m in &spec.mounts {
        if !m.target().is_absolute() {
            return Err(Error::Spec(format!(
                "the mount target {} is not absolute",
                m.target().display()
            )));
        }
        match m {
            Mount::Bind { source, target, .. } => {
                if !source.is_absolute() {
                    return Err(Error::Spec(format!(
                        "the mount source {} is not absolute",
                        source.display()
                    )));
                }
                if sb.mode == Mode::Off && source != target {
                    return Err(Error::NoSandboxRemap {
                        from: source.clone(),
                        to: target.clone(),
                    });
                }
            }
            Mount::Overlay {
                lower,
                scratch,
                target,
            } => {
                if !lower.is_absolute() || !scratch.is_absolute() {
                    return Err(Error::Spec(format!(
                        "the overlay at {} needs absolute folders",
                        target.display()
                    )));
                }
                if sb.mode == Mode::Off {
                    return Err(Error::NoSandboxRemap {
                        from: lower.clone(),
                        to: target.clone(),
                    });
                }
                // overlayfs's options separate folders with ':' and options with ','.
                let bad = |p: &Path| {
                    p.as_os_str()
                        .as_bytes()
                        .iter()
                        .any(|b| b",:\\\n".contains(b))
                };
                if bad(lower) || bad(scratch) {
                    return Err(Error::Spec(format!(
                        "the overlay folders {} and {} must not contain ',', ':', a backslash or a newline",
                        lower.display(),
                        scratch.display()
                    )));
                }
            }
            Mount::Tmpfs { .. } => {}
        }
    }
    if spec.limits.wall.is_zero() {
        return Err(Error::Spec("the wall-clock limit is zero".into()));
    }
    Ok(())
}

/// Everything the child does between fork and exec, computed before the fork so that the
/// child only makes system calls (no allocation after fork).
struct PreExec {
    procs: Vec<CString>,
    /// (resource, soft, hard)
    rlimits: Vec<(Resource, libc::rlim_t, libc::rlim_t)>,
    keep_fd: Option<RawFd>,
    new_session: bool,
    /// overlayfs mounts (options, mount point) made in a mount namespace of the child's own.
    overlays: Vec<(CString, CString)>,
}

impl PreExec {
    fn run(&self) -> io::Result<()> {
        for path in &self.procs {
            // SAFETY: open/write/close on a NUL-terminated path prepared before the fork.
            unsafe {
                let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
                if fd < 0 {
                    return Err(last_error());
                }
                let ok = libc::write(fd, b"0".as_ptr().cast(), 1) == 1;
                let err = last_error();
                libc::close(fd);
                if !ok {
                    return Err(err);
                }
            }
        }
        for &(resource, soft, hard) in &self.rlimits {
            let lim = libc::rlimit {
                rlim_cur: soft,
                rlim_max: hard,
            };
            // SAFETY: setrlimit(2) with a valid struct.
            if unsafe { libc::setrlimit(resource, &lim) } != 0 {
                return Err(last_error());
            }
        }
        if let Some(fd) = self.keep_fd {
            // The status pipe's write end must survive exec into bubblewrap.
            // SAFETY: fcntl(2) on a descriptor inherited from the parent.
            if unsafe { libc::fcntl(fd, libc::F_SETFD, 0) } != 0 {
                return Err(last_error());
            }
        }
        if !self.overlays.is_empty() {
            // SAFETY: unshare(2) and mount(2) with NUL-terminated strings prepared before
            // the fork. The new mount namespace is private, so the overlays never show on
            // the host and vanish with the last process of the run.
            unsafe {
                if libc::unshare(libc::CLONE_NEWNS) != 0 {
                    return Err(last_error());
                }
                let root = c"/";
                if libc::mount(
                    std::ptr::null(),
                    root.as_ptr(),
                    std::ptr::null(),
                    libc::MS_REC | libc::MS_PRIVATE,
                    std::ptr::null(),
                ) != 0
                {
                    return Err(last_error());
                }
                for (options, point) in &self.overlays {
                    let fs = c"overlay";
                    if libc::mount(
                        fs.as_ptr(),
                        point.as_ptr(),
                        fs.as_ptr(),
                        0,
                        options.as_ptr().cast(),
                    ) != 0
                    {
                        return Err(last_error());
                    }
                }
            }
        }
        // SAFETY: setsid(2) in the fresh child; it leads no group yet, so this succeeds.
        if self.new_session && unsafe { libc::setsid() } < 0 {
            return Err(last_error());
        }
        Ok(())
    }
}

fn rlimits(
    sb: &Sandbox,
    spec: &RunSpec,
    group: Option<&RunGroup>,
) -> Vec<(Resource, libc::rlim_t, libc::rlim_t)> {
    let l = &spec.limits;
    let mut out: Vec<(Resource, libc::rlim_t, libc::rlim_t)> = vec![(libc::RLIMIT_CORE, 0, 0)];
    if let Some(cpu) = l.cpu {
        // Per process: SIGXCPU at the limit (rounded up to whole seconds), SIGKILL a second
        // later for a process that ignores it; a backstop to the tree's total that the
        // cgroup measures.
        let secs = (cpu.as_secs() + u64::from(cpu.subsec_nanos() > 0)).max(1);
        out.push((libc::RLIMIT_CPU, secs, secs + 1));
    }
    if let Some(bytes) = l.file_size {
        out.push((libc::RLIMIT_FSIZE, bytes, bytes));
    }
    if let Some(n) = l.open_files {
        out.push((libc::RLIMIT_NOFILE, n, n));
    }
    let cg = sb.cgroups.as_ref();
    if let Some(bytes) = l.memory {
        if !cg.is_some_and(|c| c.has_memory()) || group.is_none() {
            out.push((libc::RLIMIT_AS, bytes, bytes));
        }
    }
    if let Some(n) = l.processes {
        if !cg.is_some_and(|c| c.has_pids()) || group.is_none() {
            // RLIMIT_NPROC counts every process of the real user, so the limit is what the
            // user already has plus the run's share. Root is exempt from it: the root mode
            // runs the tree as its own unprivileged user for this reason.
            let base = match sb.mode {
                Mode::Root { uid, .. } => processes_of(uid),
                // SAFETY: getuid(2) cannot fail.
                _ => processes_of(unsafe { libc::getuid() }),
            };
            let n = base + u64::from(n);
            out.push((libc::RLIMIT_NPROC, n, n));
        }
    }
    out
}

pub(crate) fn execute(sb: &Sandbox, spec: &RunSpec) -> Result<RunResult, Error> {
    check_spec(sb, spec)?;
    let sandboxed = sb.mode != Mode::Off;
    // Process-wide: several sandboxes of one process share the cgroup parents.
    static SEQ: AtomicU64 = AtomicU64::new(0);
    let seq = SEQ.fetch_add(1, Ordering::Relaxed);
    let name = format!("codemine-sandbox-{}-{seq}", std::process::id());
    let group = match &sb.cgroups {
        Some(c) => Some(
            c.create(&name, spec.limits.memory, spec.limits.processes)
                .map_err(|e| Error::Cgroup {
                    detail: format!("making the run's groups {name}: {e}"),
                })?,
        ),
        None => None,
    };
    let result = execute_in(sb, spec, sandboxed, group.as_ref());
    if let Some(g) = &group {
        g.kill_all(TEARDOWN_PATIENCE);
        g.remove();
    }
    result
}

fn execute_in(
    sb: &Sandbox,
    spec: &RunSpec,
    sandboxed: bool,
    group: Option<&RunGroup>,
) -> Result<RunResult, Error> {
    let (status_r, status_w) = if sandboxed {
        let (r, w) = status_pipe().map_err(|e| Error::Io {
            what: "a pipe for bubblewrap's status".into(),
            source: e,
        })?;
        (Some(r), Some(w))
    } else {
        (None, None)
    };

    let mut cmd = if sandboxed {
        let mut c = Command::new(&sb.bwrap);
        c.args(bwrap_args(
            sb,
            spec,
            status_w.as_ref().map_or(-1, |w| w.as_raw_fd()),
        ));
        c
    } else {
        let mut c = Command::new(&spec.argv[0]);
        c.args(&spec.argv[1..]).current_dir(&spec.cwd);
        c
    };
    cmd.env_clear();
    let mut has_path = false;
    for (k, v) in &spec.env {
        has_path |= k == "PATH";
        cmd.env(k, v);
    }
    if !has_path {
        cmd.env("PATH", DEFAULT_PATH);
    }
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let pre = PreExec {
        procs: group.map(|g| g.procs.clone()).unwrap_or_default(),
        rlimits: rlimits(sb, spec, group),
        keep_fd: status_w.as_ref().map(|w| w.as_raw_fd()),
        new_session: !sandboxed,
        overlays: prepare_overlays(sb, spec)?,
    };
    // SAFETY: PreExec::run makes only async-signal-safe system calls on data prepared
    // before the fork.
    unsafe {
        cmd.pre_exec(move || pre.run());
    }

    let start = Instant::now();
    let program = if sandboxed {
        sb.bwrap.clone()
    } else {
        spec.argv[0].clone().into()
    };
    let mut child = cmd.spawn().map_err(|e| Error::Spawn {
        program: program.display().to_string(),
        source: e,
    })?;
    drop(status_w);
    let watch = Watch {
        spec,
        group,
        sandboxed,
        start,
    };
    watch.run(&mut child, status_r)
}

struct Watch<'a> {
    spec: &'a RunSpec,
    group: Option<&'a RunGroup>,
    sandboxed: bool,
    start: Instant,
}

impl Watch<'_> {
    /// The limit the tree has passed, if any.
    fn passed_limit(&self) -> Option<Outcome> {
        if let Some(g) = self.group {
            if g.oom_kills() > 0 {
                return Some(Outcome::MemoryLimit);
            }
            if g.pids_refused() > 0 {
                return Some(Outcome::ProcessLimit);
            }
            if let (Some(limit), Some(used)) = (self.spec.limits.cpu, g.cpu_usage()) {
                if used > limit {
                    return Some(Outcome::CpuLimit);
                }
            }
        }
        (self.start.elapsed() >= self.spec.limits.wall).then_some(Outcome::Timeout)
    }

    fn run(&self, child: &mut Child, status_r: Option<OwnedFd>) -> Result<RunResult, Error> {
        let limits = &self.spec.limits;
        let child_fd = pidfd_open(child.id() as i32);
        let stdout = child.stdout.take();
        let stderr = child.stderr.take();
        let out_fd = stdout.as_ref().map(|s| s.as_raw_fd());
        let err_fd = stderr.as_ref().map(|s| s.as_raw_fd());
        let status_fd = status_r.as_ref().map(|s| s.as_raw_fd());
        for fd in [out_fd, err_fd, status_fd].into_iter().flatten() {
            set_nonblocking(fd);
        }
        let mut out = TailBuf::new(self.spec.tail_bytes);
        let mut err = TailBuf::new(self.spec.tail_bytes);
        let mut status_buf: Vec<u8> = Vec::new();
        // Open streams: stdout, stderr, status.
        let mut open = [out_fd, err_fd, status_fd];
        let mut ns_init: Option<OwnedFd> = None;
        let mut verdict: Option<Outcome> = None;
        let watching = self.group.is_some()
            && (limits.memory.is_some() || limits.processes.is_some() || limits.cpu.is_some());

        let exit = loop {
            let mut fds: Vec<libc::pollfd> = Vec::with_capacity(4);
            if let Some(fd) = &child_fd {
                fds.push(libc::pollfd {
                    fd: fd.as_raw_fd(),
                    events: libc::POLLIN,
                    revents: 0,
                });
            }
            for fd in open.iter().flatten() {
                fds.push(libc::pollfd {
                    fd: *fd,
                    events: libc::POLLIN,
                    revents: 0,
                });
            }
            let mut timeout = limits.wall.saturating_sub(self.start.elapsed());
            if watching {
                timeout = timeout.min(WATCH_INTERVAL);
            }
            if child_fd.is_none() {
                // No pidfd: the exit is found by polling.
                timeout = timeout.min(Duration::from_millis(5));
            }
            let ms = timeout.as_millis().min(i32::MAX as u128) as i32;
            // SAFETY: a vector of valid pollfds.
            let n = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, ms) };
            if n < 0 && last_error().kind() != io::ErrorKind::Interrupted {
                return Err(Error::Io {
                    what: "poll".into(),
                    source: last_error(),
                });
            }
            self.read_streams(&mut open, &mut out, &mut err, &mut status_buf);
            if ns_init.is_none() {
                if let Some(pid) = parse_status(&status_buf).child_pid {
                    ns_init = pidfd_open(pid);
                }
            }
            if let Some(status) = child.try_wait().map_err(|e| Error::Io {
                what: "waiting for the sandbox".into(),
                source: e,
            })? {
                break status;
            }
            if verdict.is_none() {
                if let Some(v) = self.passed_limit() {
                    verdict = Some(v);
                    self.kill_tree(child, ns_init.as_ref());
                }
            }
        };
        let wall = self.start.elapsed();

        // The command has exited; whatever it left behind dies now.
        self.kill_tree(child, ns_init.as_ref());
        if let Some(fd) = &ns_init {
            // The namespace's init exits only after every other process of it is gone.
            wait_readable(fd.as_raw_fd(), TEARDOWN_PATIENCE);
        }
        if let Some(g) = self.group {
            g.kill_all(TEARDOWN_PATIENCE);
        }
        let deadline = Instant::now() + TEARDOWN_PATIENCE;
        while open.iter().any(Option::is_some) && Instant::now() < deadline {
            let mut fds: Vec<libc::pollfd> = open
                .iter()
                .flatten()
                .map(|fd| libc::pollfd {
                    fd: *fd,
                    events: libc::POLLIN,
                    revents: 0,
                })
                .collect();
            // SAFETY: a vector of valid pollfds.
            unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, 50) };
            self.read_streams(&mut open, &mut out, &mut err, &mut status_buf);
        }
        drop((stdout, stderr, status_r));

        let status = parse_status(&status_buf);
        let mut outcome = match verdict.or_else(|| self.passed_limit_after_exit()) {
            Some(v) => v,
            None => {
                if self.sandboxed && exit.code().is_some() && status.exit_code.is_none() {
                    // bwrap exited but never started the command: its own setup failed.
                    return Err(Error::Setup {
                        detail: String::from_utf8_lossy(&err.finish().bytes)
                            .trim()
                            .to_string(),
                    });
                }
                classify(self.sandboxed, &exit, status.exit_code)
            }
        };
        if let Outcome::Signaled { signal } = outcome {
            if signal == libc::SIGXCPU && limits.cpu.is_some() {
                outcome = Outcome::CpuLimit;
            } else if signal == libc::SIGXFSZ && limits.file_size.is_some() {
                outcome = Outcome::FileSizeLimit;
            }
        }
        Ok(RunResult {
            outcome,
            sandboxed: self.sandboxed,
            wall,
            cpu: self.group.and_then(|g| g.cpu_usage()),
            peak_memory: self.group.and_then(|g| g.peak_memory()),
            stdout: out.finish(),
            stderr: err.finish(),
        })
    }

    /// After the exit only the counters tell (the wall clock has stopped mattering).
    fn passed_limit_after_exit(&self) -> Option<Outcome> {
        let g = self.group?;
        if g.oom_kills() > 0 {
            return Some(Outcome::MemoryLimit);
        }
        if g.pids_refused() > 0 {
            return Some(Outcome::ProcessLimit);
        }
        match (self.spec.limits.cpu, g.cpu_usage()) {
            (Some(limit), Some(used)) if used > limit => Some(Outcome::CpuLimit),
            _ => None,
        }
    }

    fn read_streams(
        &self,
        open: &mut [Option<RawFd>; 3],
        out: &mut TailBuf,
        err: &mut TailBuf,
        status: &mut Vec<u8>,
    ) {
        if let Some(fd) = open[0] {
            if drain(fd, &mut |b| out.push(b)) {
                open[0] = None;
            }
        }
        if let Some(fd) = open[1] {
            if drain(fd, &mut |b| err.push(b)) {
                open[1] = None;
            }
        }
        if let Some(fd) = open[2] {
            // bwrap writes a few hundred bytes here; more is not bwrap.
            if drain(fd, &mut |b| {
                if status.len() < 1 << 16 {
                    status.extend_from_slice(b)
                }
            }) {
                open[2] = None;
            }
        }
    }

    /// Kills every process of the run: the namespace's init (which takes the namespace with
    /// it), bubblewrap, the process group without the sandbox, and the cgroup's members.
    fn kill_tree(&self, child: &mut Child, ns_init: Option<&OwnedFd>) {
        if let Some(fd) = ns_init {
            pidfd_kill(fd);
        }
        if !self.sandboxed {
            // SAFETY: kill(2) of the process group the child leads (setsid before exec).
            unsafe {
                libc::kill(-(child.id() as i32), libc::SIGKILL);
            }
        }
        let _ = child.kill();
        if let Some(g) = self.group {
            g.kill_all(Duration::ZERO);
        }
    }
}

/// The outcome from the exit status (and bubblewrap's reported exit code).
fn classify(sandboxed: bool, exit: &std::process::ExitStatus, reported: Option<i32>) -> Outcome {
    if let Some(sig) = exit.signal() {
        return Outcome::Signaled { signal: sig };
    }
    let code = reported.or(exit.code()).unwrap_or(-1);
    // bwrap reports a command killed by signal S as 128 + S, as shells do.
    if sandboxed && (129..=128 + 64).contains(&code) {
        return Outcome::Signaled { signal: code - 128 };
    }
    Outcome::Exited { code }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_stream_gives_pid_and_exit_code() {
        let s =
            parse_status(b"{ \"child-pid\": 42, \"net-namespace\": 1 }\n{ \"exit-code\": 3 }\n");
        assert_eq!(s.child_pid, Some(42));
        assert_eq!(s.exit_code, Some(3));
        let s = parse_status(b"{ \"child-pid\": 7 }\n{ \"exit-co");
        assert_eq!(s.child_pid, Some(7));
        assert_eq!(s.exit_code, None);
    }
}
