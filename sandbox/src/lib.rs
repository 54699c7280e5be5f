//! codemine's sandbox: runs a command tree from a mined repository (its build, its test
//! suite, a model's rewrite of one of its functions) so that it cannot reach the network,
//! see or change anything of the host but the folders it is given, outlive its run, or
//! take the machine's memory, processes, CPU or disk.
//!
//! ```no_run
//! use codemine_sandbox::{Limits, Mount, Outcome, RunSpec, Sandbox, SandboxConfig};
//! use std::time::Duration;
//!
//! let sandbox = Sandbox::new(SandboxConfig::default())?;
//! sandbox.hand_over("/scratch/copy".as_ref(), true)?; // writable for the sandbox's user
//! let spec = RunSpec::new(["python3", "-m", "pytest", "-q"])
//!     .mount(Mount::writable("/scratch/copy", "/work/repo"))
//!     .cwd("/work/repo")
//!     .env("HOME", "/tmp")
//!     .limits(Limits { wall: Duration::from_secs(60), ..Limits::default() });
//! let result = sandbox.run(&spec)?;
//! match result.outcome {
//!     Outcome::Exited { code: 0 } => println!("passed"),
//!     other => println!("{other}: {}", result.stderr.text()),
//! }
//! # Ok::<(), codemine_sandbox::Error>(())
//! ```
//!
//! # Threat model
//!
//! Everything a mined repository contains is hostile: its `setup.py`, its `Makefile`, its
//! test suite, its `package.json` scripts, and any body a model writes into it. The
//! sandbox keeps such a tree from:
//!
//! - **the network**: a network namespace of its own with only a loopback interface, so
//!   neither the internet nor a port the host listens on (127.0.0.1 included: the
//!   sandbox's loopback is another interface) nor an abstract Unix socket of the host can
//!   be reached. [`Network::Host`] lifts this for environment setup that installs packages
//!   from a registry (and then the host's loopback services are reachable too).
//! - **the host's files**: the sandbox's root is an empty tmpfs into which only the system
//!   folders ([`SandboxConfig::system`]: `/usr`, `/etc`, `/lib*`, `/bin`, `/sbin`) are bound
//!   read-only, plus the folders the caller names ([`Mount`]), read-only or writable, a fresh
//!   `/proc` of its own PID namespace, a minimal `/dev` and an empty `/tmp`. The user's home,
//!   the clone cache, the output folder, credentials (`~/.ssh`, `~/.npmrc`, tokens in the
//!   environment) and `/sys` are simply not there. The environment is not inherited: the run
//!   gets exactly [`RunSpec::env`]. A folder the run may change without changing it for
//!   anyone else is given as a copy-on-write overlay ([`Mount::Overlay`]): the writes land
//!   in the run's scratch folder, the lower folder is never written.
//! - **outliving its run**: a PID namespace of its own whose init bubblewrap provides; when
//!   the command exits (or a limit is passed) that init is killed, and the kernel kills every
//!   other process of the namespace with it, daemons and double forks included. Where a
//!   cgroup is used its members are killed too, and [`Sandbox::run`] returns only once none
//!   is left.
//! - **privileges**: the tree never runs as root. Run as root, bubblewrap sets the sandbox
//!   up and `setpriv` (util-linux) then becomes an unprivileged user (by default `nobody`,
//!   65534; [`SandboxConfig::user`]) with no capabilities, an empty bounding set and
//!   `no_new_privs`, so setuid binaries give nothing back. Run as another user, bubblewrap
//!   makes a user namespace that maps only that user and forbids nested ones (and setpriv
//!   only executes the command, so that a missing program is exit code 127 in both modes). An
//!   unprivileged user also matters to the limits: the kernel exempts root from
//!   `RLIMIT_NPROC`, so a fork bomb run as root would not be stopped by rlimits alone; and
//!   files given to the sandbox read-only stay unwritable even through hard links (root's
//!   `CAP_DAC_OVERRIDE` is gone).
//! - **the machine's resources**: limits on wall time, CPU time, memory, processes, file
//!   size and open files ([`Limits`]), each of which ends the run with its own [`Outcome`].
//!
//! Out of scope: kernel exploits (the sandbox shares the host's kernel and installs no
//! seccomp filter), side channels, and what the caller hands over writable (a writable bind
//! is exactly that; run by a non-root caller, the tree is that caller and can write the
//! caller's own files it is shown, hard links into a writable folder included). Setup runs
//! with [`Network::Host`] can talk to whatever the host can reach.
//!
//! # Mechanism: bubblewrap, cgroups, rlimits
//!
//! The namespaces and the filesystem view are made by **bubblewrap** (`bwrap`, Debian package
//! `bubblewrap`; 0.8.0 on Debian 12), the setuid-free sandbox of Flatpak: a small C program
//! that has been audited and hardened for a decade, is packaged by every distribution, starts
//! in a few milliseconds and does exactly the namespace and mount work, nothing else. We
//! chose it over:
//! - `hakoniwa` (a Rust crate doing the same in-process): LGPL-3.0 with a linking exception,
//!   which is compatible with distributing our Apache-2.0 code, but it is a young
//!   single-maintainer crate, and mount and namespace setup code is where sandbox escapes
//!   live; we would rather depend on the code Flatpak's users have been attacking.
//! - our own `clone`/`pivot_root` code: the same risk, all of it ours.
//! - `birdcage`: GPL-3.0, not compatible with our license. Docker: no daemon on the machines
//!   we run on.
//!
//! Limits come from cgroups where a writable hierarchy exists, and rlimits otherwise:
//!
//! | limit | with a cgroup (v1 or v2) | without |
//! |---|---|---|
//! | memory | memory cgroup of the run: the whole tree's RSS, page cache and tmpfs; an OOM kill ends the run as [`Outcome::MemoryLimit`] | `RLIMIT_AS` per process: allocations fail (a crude limit that also breaks runtimes reserving address space, such as V8 and the JVM); the process ends as it chooses and the outcome is its exit; `/tmp` and `/dev/shm` are capped at the same size |
//! | processes | pids cgroup of the run: a refused fork or thread ends the run as [`Outcome::ProcessLimit`] | `RLIMIT_NPROC` of the sandbox's user (its processes in all sandboxes at once): forks fail, nothing is reported |
//! | CPU time | the tree's total from `cpuacct`/`cpu.stat` ([`Outcome::CpuLimit`]), and `RLIMIT_CPU` per process | `RLIMIT_CPU` per process (`SIGXCPU`, [`Outcome::CpuLimit`]) |
//! | wall time | the supervisor's clock ([`Outcome::Timeout`]) | the same |
//! | file size | `RLIMIT_FSIZE` (`SIGXFSZ`, [`Outcome::FileSizeLimit`]) | the same |
//! | open files | `RLIMIT_NOFILE` (the process sees `EMFILE`) | the same |
//!
//! The run's groups are children of the caller's own groups (so the caller's limits still
//! bound it): cgroup v1's `memory`, `pids` and `cpuacct` hierarchies where mounted (a hybrid
//! layout such as `/sys/fs/cgroup/{memory,pids,...}` included), else cgroup v2 where the
//! caller's group delegates `memory` and `pids` to its children. [`SandboxInfo`] says which
//! mechanism each limit uses on this machine, and why cgroups were not used where they
//! were not.
//!
//! # Without the sandbox
//!
//! [`SandboxConfig::no_sandbox`] is for callers that already isolate (a throwaway VM or
//! container): the command runs directly, in its own session, with the same limits, and
//! [`RunResult::sandboxed`] and [`SandboxInfo::sandboxed`] say so. Mounts cannot move a
//! folder there, so a bind whose source and target differ is an error. Where the kernel
//! refuses namespaces, [`Sandbox::new`] fails with [`Error::NamespacesRefused`]: it never
//! falls back to running unsandboxed on its own.

mod cgroup;
mod result;
mod run;
mod spec;

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;

pub use result::{Outcome, RunResult, Tail};
pub use spec::{Limits, Mount, Network, RunSpec, DEFAULT_PATH};

/// Why the sandbox could not run something.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(
        "bubblewrap (bwrap) was not found on PATH: install it (Debian/Ubuntu: apt-get install bubblewrap), \
         or turn the sandbox off only where the caller already isolates"
    )]
    BwrapNotFound,
    #[error("setpriv (util-linux) was not found under the sandbox's system folders: the sandbox runs commands through it (and, as root, drops to an unprivileged user with it)")]
    SetprivNotFound,
    /// The kernel (or a container's seccomp policy) refused the namespaces.
    #[error(
        "the kernel refused to make the sandbox's namespaces: {detail}. Allow user and mount namespaces \
         (e.g. sysctl kernel.unprivileged_userns_clone=1, or kernel.apparmor_restrict_unprivileged_userns=0 on \
         Ubuntu), run as root, or turn the sandbox off only where the caller already isolates"
    )]
    NamespacesRefused { detail: String },
    /// bubblewrap started but could not set the sandbox up (a missing mount source, ...).
    #[error("the sandbox could not be set up: {detail}")]
    Setup { detail: String },
    #[error("cannot start {program}: {source}")]
    Spawn {
        program: String,
        #[source]
        source: std::io::Error,
    },
    #[error("cgroup: {detail}")]
    Cgroup { detail: String },
    #[error("invalid run: {0}")]
    Spec(String),
    #[error("without the sandbox {} cannot be shown at {}: run where the paths are the same, or with the sandbox", .from.display(), .to.display())]
    NoSandboxRemap { from: PathBuf, to: PathBuf },
    #[error("{what}: {source}")]
    Io {
        what: String,
        #[source]
        source: std::io::Error,
    },
}

/// How the sandbox is made.
#[derive(Debug, Clone)]
pub struct SandboxConfig {
    /// Run commands directly, with limits but without namespaces (see the crate docs).
    pub no_sandbox: bool,
    /// The bubblewrap binary; None looks up `bwrap` on `PATH`, then `/usr/bin/bwrap`.
    pub bwrap: Option<PathBuf>,
    /// User and group the tree runs as when the caller is root (default 65534:65534,
    /// `nobody`). Ignored otherwise: a non-root caller's tree runs as the caller.
    pub user: Option<(u32, u32)>,
    /// Use cgroups for memory, processes and CPU where a writable hierarchy exists (false:
    /// rlimits only).
    pub cgroups: bool,
    /// System folders bound read-only at the same path (symbolic links are recreated as
    /// links). Folders that do not exist are skipped.
    pub system: Vec<PathBuf>,
}

/// The system folders a run sees by default.
pub const DEFAULT_SYSTEM: &[&str] = &[
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc",
];

/// The unprivileged user (and group) a root caller's runs use by default: `nobody`.
pub const DEFAULT_USER: (u32, u32) = (65534, 65534);

impl Default for SandboxConfig {
    fn default() -> SandboxConfig {
        SandboxConfig {
            no_sandbox: false,
            bwrap: None,
            user: None,
            cgroups: true,
            system: DEFAULT_SYSTEM.iter().map(PathBuf::from).collect(),
        }
    }
}

/// How each run is sandboxed on this machine (for stats and logs).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SandboxInfo {
    pub sandboxed: bool,
    /// `bubblewrap 0.8.0`, or `none`.
    pub mechanism: String,
    /// The host user and group the tree runs as.
    pub uid: u32,
    pub gid: u32,
    /// `cgroup_v1`, `cgroup_v2` or `rlimit_as`.
    pub memory_limit: &'static str,
    /// `cgroup_v1`, `cgroup_v2` or `rlimit_nproc`.
    pub process_limit: &'static str,
    /// `cgroup_v1`, `cgroup_v2` (the tree's total, with `RLIMIT_CPU` per process) or `rlimit_cpu`.
    pub cpu_limit: &'static str,
    /// Why no cgroup is used, where none is.
    pub cgroup_unavailable: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Caller is root: bubblewrap as root, then setpriv to `uid:gid`.
    Root { uid: u32, gid: u32 },
    /// Caller is an ordinary user: bubblewrap in a user namespace of its own.
    User { uid: u32, gid: u32 },
    /// No sandbox.
    Off,
}

#[derive(Debug, Clone)]
pub(crate) enum SystemEntry {
    Dir(PathBuf),
    Symlink { path: PathBuf, target: PathBuf },
}

/// A configured sandbox; [`Sandbox::run`] runs one command tree in it. Cheap to share
/// between threads: runs are independent.
#[derive(Debug)]
pub struct Sandbox {
    pub(crate) mode: Mode,
    pub(crate) bwrap: PathBuf,
    pub(crate) setpriv: Option<PathBuf>,
    pub(crate) system: Vec<SystemEntry>,
    pub(crate) cgroups: Option<cgroup::Cgroups>,
    info: SandboxInfo,
}

fn find_on_path(name: &str, fallback: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .chain(std::iter::once(PathBuf::from(fallback)))
        .find(|p| p.is_file())
}

impl Sandbox {
    /// Finds bubblewrap, checks that the kernel lets it make the namespaces (by running
    /// `id -u` in a sandbox), and finds the cgroups the runs' limits will use.
    pub fn new(config: SandboxConfig) -> Result<Sandbox, Error> {
        // SAFETY: geteuid(2)/getegid(2) cannot fail.
        let (euid, egid) = unsafe { (libc::geteuid(), libc::getegid()) };
        let mode = if config.no_sandbox {
            Mode::Off
        } else if euid == 0 {
            let (uid, gid) = config.user.unwrap_or(DEFAULT_USER);
            if uid == 0 {
                return Err(Error::Spec(
                    "the sandbox's user must not be root (uid 0)".into(),
                ));
            }
            Mode::Root { uid, gid }
        } else {
            Mode::User {
                uid: euid,
                gid: egid,
            }
        };

        let (cgroups, why_not) = if config.cgroups {
            match cgroup::Cgroups::detect() {
                Ok(c) => (Some(c), None),
                Err(why) => (None, Some(why)),
            }
        } else {
            (None, Some("turned off by the caller".to_string()))
        };

        let mut system = Vec::new();
        for p in &config.system {
            match fs::symlink_metadata(p) {
                Ok(m) if m.file_type().is_symlink() => {
                    if let Ok(target) = fs::read_link(p) {
                        system.push(SystemEntry::Symlink {
                            path: p.clone(),
                            target,
                        });
                    }
                }
                Ok(m) if m.is_dir() => system.push(SystemEntry::Dir(p.clone())),
                _ => {}
            }
        }

        let (bwrap, setpriv, mechanism) = if mode == Mode::Off {
            (PathBuf::new(), None, "none".to_string())
        } else {
            let bwrap = match &config.bwrap {
                Some(p) if p.is_file() => p.clone(),
                Some(_) => return Err(Error::BwrapNotFound),
                None => find_on_path("bwrap", "/usr/bin/bwrap").ok_or(Error::BwrapNotFound)?,
            };
            let version = std::process::Command::new(&bwrap)
                .arg("--version")
                .output()
                .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
                .unwrap_or_default();
            let version = if version.is_empty() {
                "bubblewrap".to_string()
            } else {
                version
            };
            let setpriv = {
                // setpriv runs inside: it must lie under a bound system folder.
                let found = ["/usr/bin/setpriv", "/bin/setpriv", "/usr/sbin/setpriv"]
                    .iter()
                    .map(PathBuf::from)
                    .find(|p| {
                        p.is_file()
                            && system
                                .iter()
                                .any(|e| matches!(e, SystemEntry::Dir(d) if p.starts_with(d)))
                    });
                Some(found.ok_or(Error::SetprivNotFound)?)
            };
            (bwrap, setpriv, version)
        };

        let (uid, gid) = match mode {
            Mode::Root { uid, gid } | Mode::User { uid, gid } => (uid, gid),
            Mode::Off => (euid, egid),
        };
        let via = |has: bool, fallback: &'static str| match (&cgroups, has) {
            (Some(c), true) => match c.version {
                cgroup::Version::V1 => "cgroup_v1",
                cgroup::Version::V2 => "cgroup_v2",
            },
            _ => fallback,
        };
        let info = SandboxInfo {
            sandboxed: mode != Mode::Off,
            mechanism,
            uid,
            gid,
            memory_limit: via(
                cgroups.as_ref().is_some_and(|c| c.has_memory()),
                "rlimit_as",
            ),
            process_limit: via(
                cgroups.as_ref().is_some_and(|c| c.has_pids()),
                "rlimit_nproc",
            ),
            cpu_limit: via(cgroups.as_ref().is_some_and(|c| c.has_cpu()), "rlimit_cpu"),
            cgroup_unavailable: why_not,
        };
        let sandbox = Sandbox {
            mode,
            bwrap,
            setpriv,
            system,
            cgroups,
            info,
        };
        if sandbox.mode != Mode::Off {
            sandbox.probe(uid)?;
        }
        Ok(sandbox)
    }

    fn probe(&self, uid: u32) -> Result<(), Error> {
        let spec = RunSpec::new(["id", "-u"]).limits(Limits {
            wall: Duration::from_secs(30),
            ..Limits::default()
        });
        let refused = |detail: String| Error::NamespacesRefused { detail };
        let r = match self.run(&spec) {
            Ok(r) => r,
            Err(Error::Setup { detail }) => return Err(refused(detail)),
            Err(e) => return Err(e),
        };
        if !r.outcome.success() {
            return Err(refused(format!(
                "{} ({})",
                r.outcome,
                r.stderr.text().trim()
            )));
        }
        let seen = r.stdout.text().trim().to_string();
        if seen != uid.to_string() {
            return Err(refused(format!(
                "the sandboxed command runs as uid {seen}, not {uid}"
            )));
        }
        Ok(())
    }

    /// How runs are sandboxed here.
    pub fn info(&self) -> &SandboxInfo {
        &self.info
    }

    /// The host user and group the tree runs as.
    pub fn user(&self) -> (u32, u32) {
        (self.info.uid, self.info.gid)
    }

    /// Runs one command tree and waits until it and everything it started are gone.
    /// An `Err` means the run could not be made (bad spec, no sandbox setup); everything
    /// the command itself did is in the [`RunResult`].
    pub fn run(&self, spec: &RunSpec) -> Result<RunResult, Error> {
        run::execute(self, spec)
    }

    /// Makes `path` (and with `recursive` everything below it, symbolic links themselves,
    /// never their targets) owned by the sandbox's user, so that a writable bind of it is
    /// writable inside. Nothing to do when the caller is not root (the tree runs as the
    /// caller).
    pub fn hand_over(&self, path: &Path, recursive: bool) -> Result<(), Error> {
        let Mode::Root { uid, gid } = self.mode else {
            return Ok(());
        };
        chown_tree(path, uid, gid, recursive)
    }
}

/// Copies the tree `src` into `dst` (made if missing): folders, regular files (replacing
/// files already there) and symbolic links (as links, never followed); other entries are
/// skipped.
pub(crate) fn copy_into(src: &Path, dst: &Path) -> std::io::Result<()> {
    let mut stack = vec![(src.to_path_buf(), dst.to_path_buf())];
    while let Some((from, to)) = stack.pop() {
        fs::create_dir_all(&to)?;
        for entry in fs::read_dir(&from)? {
            let entry = entry?;
            let (a, b) = (entry.path(), to.join(entry.file_name()));
            let ft = entry.file_type()?;
            if ft.is_dir() {
                stack.push((a, b));
            } else if ft.is_symlink() {
                let _ = fs::remove_file(&b);
                std::os::unix::fs::symlink(fs::read_link(&a)?, &b)?;
            } else if ft.is_file() {
                let _ = fs::remove_file(&b);
                fs::copy(&a, &b)?;
            }
        }
    }
    Ok(())
}

/// `lchown` of `path` and, with `recursive`, of everything below it (iteratively; symbolic
/// links are not followed).
pub fn chown_tree(path: &Path, uid: u32, gid: u32, recursive: bool) -> Result<(), Error> {
    let io = |p: &Path, e: std::io::Error| Error::Io {
        what: format!("changing the owner of {}", p.display()),
        source: e,
    };
    std::os::unix::fs::lchown(path, Some(uid), Some(gid)).map_err(|e| io(path, e))?;
    if !recursive
        || !fs::symlink_metadata(path)
            .map_err(|e| io(path, e))?
            .is_dir()
    {
        return Ok(());
    }
    let mut stack = vec![path.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).map_err(|e| io(&dir, e))? {
            let entry = entry.map_err(|e| io(&dir, e))?;
            let p = entry.path();
            std::os::unix::fs::lchown(&p, Some(uid), Some(gid)).map_err(|e| io(&p, e))?;
            if entry.file_type().map_err(|e| io(&p, e))?.is_dir() {
                stack.push(p);
            }
        }
    }
    Ok(())
}
