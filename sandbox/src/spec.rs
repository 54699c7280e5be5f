//! What to run and under which limits: [`RunSpec`], [`Mount`], [`Limits`], [`Network`].

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// What a run may reach on the network.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Network {
    /// A network namespace of its own with only a loopback interface: nothing outside the
    /// sandbox answers, not even a port the host listens on at 127.0.0.1.
    #[default]
    None,
    /// The host's network (for environment setup that installs packages from a registry).
    /// Loopback services of the host and abstract Unix sockets become reachable too.
    Host,
}

/// A folder (or file) the sandbox sees besides the read-only system.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mount {
    /// `source` on the host appears at `target` inside. A writable bind must be writable by
    /// the sandbox's user: see [`crate::Sandbox::hand_over`].
    Bind {
        source: PathBuf,
        target: PathBuf,
        writable: bool,
    },
    /// An empty, writable tmpfs at `target` (charged to the memory limit where a memory
    /// cgroup applies, otherwise capped at `size` or the memory limit).
    Tmpfs { target: PathBuf, size: Option<u64> },
    /// `lower` seen writable at `target` without ever being written: changes go to
    /// `scratch/upper` (copy-on-write, an overlayfs mount made by the sandbox in a mount
    /// namespace of its own, so nothing is left mounted on the host). `scratch` is the
    /// caller's folder for this view; runs given the same `scratch` one after another see
    /// each other's changes. Files the caller puts into `scratch/upper` beforehand (a
    /// rewritten file) appear over `lower`'s; they must belong to the sandbox's user
    /// ([`crate::Sandbox::hand_over`]). Where the sandbox cannot mount (a non-root caller),
    /// `lower` and then `scratch/upper` are copied into `scratch/merged` once instead.
    Overlay {
        lower: PathBuf,
        scratch: PathBuf,
        target: PathBuf,
    },
}

impl Mount {
    /// `source` seen read-only at `target`.
    pub fn read_only(source: impl Into<PathBuf>, target: impl Into<PathBuf>) -> Mount {
        Mount::Bind {
            source: source.into(),
            target: target.into(),
            writable: false,
        }
    }

    /// `source` seen writable at `target`.
    pub fn writable(source: impl Into<PathBuf>, target: impl Into<PathBuf>) -> Mount {
        Mount::Bind {
            source: source.into(),
            target: target.into(),
            writable: true,
        }
    }

    /// An empty tmpfs at `target`.
    pub fn tmpfs(target: impl Into<PathBuf>) -> Mount {
        Mount::Tmpfs {
            target: target.into(),
            size: None,
        }
    }

    /// `lower` seen writable at `target`, copy-on-write into `scratch` (see [`Mount::Overlay`]).
    pub fn overlay(
        lower: impl Into<PathBuf>,
        scratch: impl Into<PathBuf>,
        target: impl Into<PathBuf>,
    ) -> Mount {
        Mount::Overlay {
            lower: lower.into(),
            scratch: scratch.into(),
            target: target.into(),
        }
    }

    pub(crate) fn target(&self) -> &PathBuf {
        match self {
            Mount::Bind { target, .. }
            | Mount::Tmpfs { target, .. }
            | Mount::Overlay { target, .. } => target,
        }
    }
}

/// Resource limits of one run. Every limit that ends a run is reported as its own
/// [`crate::Outcome`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// Wall-clock time from the start; the whole tree is killed when it passes.
    pub wall: Duration,
    /// CPU time of the whole tree (cgroup accounting), and of each process (`RLIMIT_CPU`).
    pub cpu: Option<Duration>,
    /// Memory of the whole tree in bytes (memory cgroup), or of each process's address
    /// space (`RLIMIT_AS`) where no memory cgroup can be made.
    pub memory: Option<u64>,
    /// Processes and threads of the tree (pids cgroup), or of the sandbox's user
    /// (`RLIMIT_NPROC`) where no pids cgroup can be made.
    pub processes: Option<u32>,
    /// Largest file a process may write, in bytes (`RLIMIT_FSIZE`).
    pub file_size: Option<u64>,
    /// Open files per process (`RLIMIT_NOFILE`).
    pub open_files: Option<u64>,
}

impl Default for Limits {
    /// Ten minutes, no CPU limit beyond the wall clock, 4 GiB, 1024 processes and threads,
    /// 1 GiB files, 4096 open files.
    fn default() -> Limits {
        Limits {
            wall: Duration::from_secs(600),
            cpu: None,
            memory: Some(4 << 30),
            processes: Some(1024),
            file_size: Some(1 << 30),
            open_files: Some(4096),
        }
    }
}

/// One command to run in the sandbox.
#[derive(Debug, Clone)]
pub struct RunSpec {
    /// The program (a path inside the sandbox, or a name looked up on the `PATH` of `env`)
    /// and its arguments.
    pub argv: Vec<OsString>,
    /// Working directory, as seen inside the sandbox.
    pub cwd: PathBuf,
    /// The whole environment: nothing of the caller's environment is passed on. A missing
    /// `PATH` becomes [`DEFAULT_PATH`].
    pub env: Vec<(OsString, OsString)>,
    /// Binds and tmpfs mounts, applied in order after the system folders, `/proc`, `/dev`
    /// and a fresh `/tmp`.
    pub mounts: Vec<Mount>,
    pub network: Network,
    pub limits: Limits,
    /// How many bytes of the end of stdout and of stderr the result keeps.
    pub tail_bytes: usize,
}

/// `PATH` of a run whose environment names none.
pub const DEFAULT_PATH: &str = "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin";

impl RunSpec {
    /// A run of `argv` in `/tmp` with no network, the default limits and 64 KiB tails.
    pub fn new<I, S>(argv: I) -> RunSpec
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        RunSpec {
            argv: argv.into_iter().map(Into::into).collect(),
            cwd: PathBuf::from("/tmp"),
            env: Vec::new(),
            mounts: Vec::new(),
            network: Network::None,
            limits: Limits::default(),
            tail_bytes: 64 << 10,
        }
    }

    pub fn cwd(mut self, cwd: impl Into<PathBuf>) -> RunSpec {
        self.cwd = cwd.into();
        self
    }

    /// Sets (or replaces) one environment variable.
    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> RunSpec {
        let key = key.into();
        self.env.retain(|(k, _)| *k != key);
        self.env.push((key, value.into()));
        self
    }

    pub fn mount(mut self, mount: Mount) -> RunSpec {
        self.mounts.push(mount);
        self
    }

    pub fn network(mut self, network: Network) -> RunSpec {
        self.network = network;
        self
    }

    pub fn limits(mut self, limits: Limits) -> RunSpec {
        self.limits = limits;
        self
    }

    pub fn tail_bytes(mut self, bytes: usize) -> RunSpec {
        self.tail_bytes = bytes;
        self
    }
}
