//! What a run did: [`RunResult`], [`Outcome`] and the bounded output [`Tail`]s.

use std::borrow::Cow;
use std::time::Duration;

use serde::Serialize;

/// How a run ended. A limit that ended it is named; a limit that was only approached is not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Outcome {
    /// The command exited on its own with this code.
    Exited { code: i32 },
    /// The command was killed by a signal that no limit of ours sent.
    ///
    /// Under bubblewrap a command killed by signal `S` and one that called `exit(128 + S)`
    /// look the same (bwrap reports both as `128 + S`, as a shell does); both are reported
    /// as `Signaled`. Without the sandbox the wait status tells them apart.
    Signaled { signal: i32 },
    /// The wall-clock limit passed; the tree was killed.
    Timeout,
    /// The CPU-time limit passed (tree total, or one process's `RLIMIT_CPU`).
    CpuLimit,
    /// The memory cgroup's limit was reached and its OOM killer killed a process; the rest
    /// of the tree was killed too. Without a memory cgroup (`RLIMIT_AS`) an allocation just
    /// fails and the process ends as it chooses (`Exited`), so this is never reported there.
    MemoryLimit,
    /// A fork or thread creation was refused by the pids cgroup; the tree was killed. With
    /// `RLIMIT_NPROC` instead, forks fail silently and this is never reported.
    ProcessLimit,
    /// A process was killed for writing past the file-size limit (`SIGXFSZ`).
    FileSizeLimit,
}

impl Outcome {
    /// Exit code 0.
    pub fn success(&self) -> bool {
        matches!(self, Outcome::Exited { code: 0 })
    }

    /// A short name: `exited`, `signaled`, `timeout`, `cpu_limit`, `memory_limit`,
    /// `process_limit`, `file_size_limit`.
    pub fn name(&self) -> &'static str {
        match self {
            Outcome::Exited { .. } => "exited",
            Outcome::Signaled { .. } => "signaled",
            Outcome::Timeout => "timeout",
            Outcome::CpuLimit => "cpu_limit",
            Outcome::MemoryLimit => "memory_limit",
            Outcome::ProcessLimit => "process_limit",
            Outcome::FileSizeLimit => "file_size_limit",
        }
    }
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Outcome::Exited { code } => write!(f, "exited with code {code}"),
            Outcome::Signaled { signal } => write!(f, "killed by signal {signal}"),
            Outcome::Timeout => f.write_str("wall-clock limit reached"),
            Outcome::CpuLimit => f.write_str("CPU-time limit reached"),
            Outcome::MemoryLimit => f.write_str("memory limit reached"),
            Outcome::ProcessLimit => f.write_str("process limit reached"),
            Outcome::FileSizeLimit => f.write_str("file-size limit reached"),
        }
    }
}

/// The last bytes of an output stream, and how many bytes it had in all.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tail {
    pub bytes: Vec<u8>,
    pub total: u64,
}

impl Tail {
    /// The kept bytes as text (invalid UTF-8 replaced).
    pub fn text(&self) -> Cow<'_, str> {
        String::from_utf8_lossy(&self.bytes)
    }

    /// Whether bytes before the kept ones were dropped.
    pub fn truncated(&self) -> bool {
        self.total > self.bytes.len() as u64
    }
}

/// A growing tail: keeps at most `limit` bytes, dropping from the front.
pub(crate) struct TailBuf {
    buf: Vec<u8>,
    limit: usize,
    total: u64,
}

impl TailBuf {
    pub(crate) fn new(limit: usize) -> TailBuf {
        TailBuf {
            buf: Vec::new(),
            limit,
            total: 0,
        }
    }

    pub(crate) fn push(&mut self, data: &[u8]) {
        self.total += data.len() as u64;
        if data.len() >= self.limit {
            self.buf.clear();
            self.buf.extend_from_slice(&data[data.len() - self.limit..]);
            return;
        }
        self.buf.extend_from_slice(data);
        // Trim in batches so that a stream of small writes costs linear time.
        if self.buf.len() > self.limit.saturating_mul(2).max(self.limit + 4096) {
            let cut = self.buf.len() - self.limit;
            self.buf.drain(..cut);
        }
    }

    pub(crate) fn finish(mut self) -> Tail {
        if self.buf.len() > self.limit {
            let cut = self.buf.len() - self.limit;
            self.buf.drain(..cut);
        }
        Tail {
            bytes: self.buf,
            total: self.total,
        }
    }
}

/// What one run did.
#[derive(Debug, Clone)]
pub struct RunResult {
    pub outcome: Outcome,
    /// False when the sandbox was configured off ([`crate::SandboxConfig::no_sandbox`]):
    /// limits applied, but no namespaces and no filesystem view.
    pub sandboxed: bool,
    pub wall: Duration,
    /// CPU time of the whole tree, where a CPU-accounting cgroup measured it.
    pub cpu: Option<Duration>,
    /// Peak memory of the whole tree in bytes, where a memory cgroup measured it.
    pub peak_memory: Option<u64>,
    pub stdout: Tail,
    pub stderr: Tail,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tail_keeps_the_last_bytes_and_counts_all() {
        let mut t = TailBuf::new(5);
        for chunk in [&b"abc"[..], b"defg", b"h", b"ijklmnopqrstuvwxyz"] {
            t.push(chunk);
        }
        let tail = t.finish();
        assert_eq!(tail.bytes, b"vwxyz");
        assert_eq!(tail.total, 26);
        assert!(tail.truncated());

        let mut t = TailBuf::new(5);
        for b in b"0123456789" {
            t.push(std::slice::from_ref(b));
        }
        assert_eq!(t.finish().bytes, b"56789");

        let mut t = TailBuf::new(100);
        t.push(b"short");
        let tail = t.finish();
        assert_eq!(tail.text(), "short");
        assert!(!tail.truncated());
    }
}
