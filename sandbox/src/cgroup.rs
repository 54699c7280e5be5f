//! Control groups for one run: a memory limit whose OOM kills are counted, a process limit
//! whose refusals are counted, CPU accounting of the whole tree, and a way to kill every
//! process of the tree, whichever namespace or session it moved to.
//!
//! Each run gets child groups of the groups this process is in (never of the hierarchy's
//! root), so limits set on the caller still bound the sandbox. cgroup v1 (one hierarchy per
//! controller: `memory`, `pids`, `cpuacct`) is used where its controllers are mounted; cgroup
//! v2 (one unified hierarchy) where its `memory` and `pids` controllers are enabled for the
//! caller's children or can be. Neither: [`Cgroups::detect`] says why and the run falls back
//! to rlimits.

use std::ffi::CString;
use std::fs;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Which cgroup hierarchy carries the limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Version {
    V1,
    V2,
}

/// The caller's own groups, under which each run's groups are made.
#[derive(Debug, Clone)]
pub(crate) struct Cgroups {
    pub(crate) version: Version,
    memory: Option<PathBuf>,
    pids: Option<PathBuf>,
    cpu: Option<PathBuf>,
}

/// The groups of one run.
#[derive(Debug)]
pub(crate) struct RunGroup {
    version: Version,
    /// Every directory made for the run (one per v1 controller, one for v2).
    dirs: Vec<PathBuf>,
    /// `cgroup.procs` of each directory: the child writes itself there before exec.
    pub(crate) procs: Vec<CString>,
    memory: Option<PathBuf>,
    pids: Option<PathBuf>,
    cpu: Option<PathBuf>,
}

struct MountPoint {
    root: String,
    point: PathBuf,
    fstype: String,
    options: Vec<String>,
}

/// Mount points of cgroup file systems, from `/proc/self/mountinfo`.
fn cgroup_mounts() -> io::Result<Vec<MountPoint>> {
    let text = fs::read_to_string("/proc/self/mountinfo")?;
    let mut out = Vec::new();
    for line in text.lines() {
        // id parent dev root point options [optional...] - fstype source superoptions
        let Some((left, right)) = line.split_once(" - ") else {
            continue;
        };
        let left: Vec<&str> = left.split(' ').collect();
        let right: Vec<&str> = right.split(' ').collect();
        if left.len() < 5 || right.len() < 3 {
            continue;
        }
        if right[0] != "cgroup" && right[0] != "cgroup2" {
            continue;
        }
        out.push(MountPoint {
            root: unescape(left[3]),
            point: PathBuf::from(unescape(left[4])),
            fstype: right[0].to_string(),
            options: right[2].split(',').map(str::to_string).collect(),
        });
    }
    Ok(out)
}

/// mountinfo escapes space, tab, newline and backslash as `\ooo`.
fn unescape(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\'
            && i + 3 < b.len()
            && b[i + 1..i + 4].iter().all(|c| (b'0'..=b'7').contains(c))
        {
            let v = (b[i + 1] - b'0') as u32 * 64
                + (b[i + 2] - b'0') as u32 * 8
                + (b[i + 3] - b'0') as u32;
            out.push(v as u8);
            i += 4;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The directory of the group this process is in, for a mount of the hierarchy.
fn own_dir(mount: &MountPoint, path: &str) -> Option<PathBuf> {
    let rel = if mount.root == "/" {
        path
    } else {
        // The mount shows a subtree: the path must lie inside it.
        let rest = path.strip_prefix(mount.root.as_str())?;
        if !rest.is_empty() && !rest.starts_with('/') {
            return None;
        }
        rest
    };
    let dir = mount.point.join(rel.trim_start_matches('/'));
    dir.is_dir().then_some(dir)
}

/// Makes and removes a probe group under `dir`: the run's groups can be made there.
fn can_make_children(dir: &Path) -> bool {
    let probe = dir.join(format!("codemine-sandbox-probe-{}", std::process::id()));
    match fs::create_dir(&probe) {
        Ok(()) => fs::remove_dir(&probe).is_ok(),
        Err(_) => false,
    }
}

impl Cgroups {
    /// Finds groups under which limits can be set, or says why there are none.
    pub(crate) fn detect() -> Result<Cgroups, String> {
        let own = fs::read_to_string("/proc/self/cgroup")
            .map_err(|e| format!("/proc/self/cgroup: {e}"))?;
        let mounts = cgroup_mounts().map_err(|e| format!("/proc/self/mountinfo: {e}"))?;

        // cgroup v1: one hierarchy per controller (or a few controllers mounted together).
        let v1 = |controller: &str| -> Option<PathBuf> {
            for line in own.lines() {
                let mut parts = line.splitn(3, ':');
                let (_, ctrls, path) = (parts.next()?, parts.next()?, parts.next()?);
                if !ctrls.split(',').any(|c| c == controller) {
                    continue;
                }
                let mount = mounts
                    .iter()
                    .find(|m| m.fstype == "cgroup" && m.options.iter().any(|o| o == controller))?;
                let dir = own_dir(mount, path)?;
                return can_make_children(&dir).then_some(dir);
            }
            None
        };
        let memory = v1("memory");
        let pids = v1("pids");
        let cpu = v1("cpuacct");
        if memory.is_some() || pids.is_some() {
            return Ok(Cgroups {
                version: Version::V1,
                memory,
                pids,
                cpu,
            });
        }

        // cgroup v2: the line `0::/path`.
        let Some(path) = own.lines().find_map(|l| l.strip_prefix("0::")) else {
            return Err(
                "no memory or pids controller of cgroup v1 usable and no cgroup v2 hierarchy"
                    .into(),
            );
        };
        let Some(mount) = mounts.iter().find(|m| m.fstype == "cgroup2") else {
            return Err("cgroup v2 is not mounted".into());
        };
        let Some(dir) = own_dir(mount, path) else {
            return Err(format!(
                "this process's cgroup v2 group {path} is not under the mount {}",
                mount.point.display()
            ));
        };
        let enabled = |dir: &Path| -> Vec<String> {
            fs::read_to_string(dir.join("cgroup.subtree_control"))
                .map(|s| s.split_whitespace().map(str::to_string).collect())
                .unwrap_or_default()
        };
        let mut on = enabled(&dir);
        if !(on.iter().any(|c| c == "memory") && on.iter().any(|c| c == "pids")) {
            // Enabling controllers for children fails (EBUSY) while the group itself holds
            // processes, unless it is the root: the usual case outside a delegated slice.
            let _ = fs::write(dir.join("cgroup.subtree_control"), "+memory +pids +cpu");
            on = enabled(&dir);
        }
        let has = |c: &str| on.iter().any(|x| x == c);
        if !(has("memory") && has("pids")) {
            return Err(format!(
                "cgroup v2 group {} does not delegate the memory and pids controllers to its children \
                 (cgroup.subtree_control: {:?}); run under a delegated group (e.g. systemd-run --scope -p Delegate=yes)",
                dir.display(),
                on.join(" ")
            ));
        }
        if !can_make_children(&dir) {
            return Err(format!("cannot make child groups under {}", dir.display()));
        }
        Ok(Cgroups {
            version: Version::V2,
            memory: Some(dir.clone()),
            pids: Some(dir.clone()),
            cpu: Some(dir),
        })
    }

    pub(crate) fn has_memory(&self) -> bool {
        self.memory.is_some()
    }

    pub(crate) fn has_pids(&self) -> bool {
        self.pids.is_some()
    }

    pub(crate) fn has_cpu(&self) -> bool {
        self.cpu.is_some()
    }

    /// Makes the groups of one run (named `name`) and sets their limits.
    pub(crate) fn create(
        &self,
        name: &str,
        memory: Option<u64>,
        processes: Option<u32>,
    ) -> io::Result<RunGroup> {
        let mut group = RunGroup {
            version: self.version,
            dirs: Vec::new(),
            procs: Vec::new(),
            memory: None,
            pids: None,
            cpu: None,
        };
        let make = |parent: &Path, group: &mut RunGroup| -> io::Result<PathBuf> {
            let dir = parent.join(name);
            if !group.dirs.contains(&dir) {
                fs::create_dir(&dir)?;
                group.dirs.push(dir.clone());
                let procs = dir.join("cgroup.procs");
                group
                    .procs
                    .push(CString::new(procs.as_os_str().as_bytes()).map_err(io::Error::other)?);
            }
            Ok(dir)
        };
        let result = (|| -> io::Result<()> {
            if let Some(parent) = &self.memory {
                let dir = make(parent, &mut group)?;
                if let Some(bytes) = memory {
                    match self.version {
                        Version::V1 => {
                            fs::write(dir.join("memory.limit_in_bytes"), bytes.to_string())?;
                            // Swap counts too where swap accounting is on (absent otherwise).
                            let _ = fs::write(
                                dir.join("memory.memsw.limit_in_bytes"),
                                bytes.to_string(),
                            );
                        }
                        Version::V2 => {
                            fs::write(dir.join("memory.max"), bytes.to_string())?;
                            let _ = fs::write(dir.join("memory.swap.max"), "0");
                            // The OOM killer takes the whole group, as v1 runs do by our kill.
                            let _ = fs::write(dir.join("memory.oom.group"), "1");
                        }
                    }
                }
                group.memory = Some(dir);
            }
            if let Some(parent) = &self.pids {
                let dir = make(parent, &mut group)?;
                if let Some(n) = processes {
                    fs::write(dir.join("pids.max"), n.to_string())?;
                }
                group.pids = Some(dir);
            }
            if let Some(parent) = &self.cpu {
                group.cpu = Some(make(parent, &mut group)?);
            }
            Ok(())
        })();
        match result {
            Ok(()) => Ok(group),
            Err(e) => {
                group.remove();
                Err(e)
            }
        }
    }
}

/// The number after `key ` in a flat keyed file (`memory.events`, `pids.events`, ...).
fn keyed(path: &Path, key: &str) -> Option<u64> {
    let text = fs::read_to_string(path).ok()?;
    text.lines().find_map(|l| {
        let (k, v) = l.split_once(' ')?;
        (k == key).then(|| v.trim().parse().ok()).flatten()
    })
}

fn number(path: &Path) -> Option<u64> {
    fs::read_to_string(path).ok()?.trim().parse().ok()
}

impl RunGroup {
    /// Processes the memory cgroup's OOM killer has killed.
    pub(crate) fn oom_kills(&self) -> u64 {
        let Some(dir) = &self.memory else { return 0 };
        match self.version {
            Version::V1 => keyed(&dir.join("memory.oom_control"), "oom_kill").unwrap_or(0),
            Version::V2 => keyed(&dir.join("memory.events"), "oom_kill").unwrap_or(0),
        }
    }

    /// Forks and thread creations the pids limit refused.
    pub(crate) fn pids_refused(&self) -> u64 {
        let Some(dir) = &self.pids else { return 0 };
        keyed(&dir.join("pids.events"), "max").unwrap_or(0)
    }

    /// CPU time of the whole tree so far.
    pub(crate) fn cpu_usage(&self) -> Option<Duration> {
        let dir = self.cpu.as_ref()?;
        match self.version {
            Version::V1 => number(&dir.join("cpuacct.usage")).map(Duration::from_nanos),
            Version::V2 => keyed(&dir.join("cpu.stat"), "usage_usec").map(Duration::from_micros),
        }
    }

    /// Peak memory of the tree in bytes.
    pub(crate) fn peak_memory(&self) -> Option<u64> {
        let dir = self.memory.as_ref()?;
        match self.version {
            Version::V1 => number(&dir.join("memory.max_usage_in_bytes")),
            Version::V2 => number(&dir.join("memory.peak")),
        }
    }

    fn members(&self) -> Vec<i32> {
        let mut pids = Vec::new();
        for dir in &self.dirs {
            if let Ok(text) = fs::read_to_string(dir.join("cgroup.procs")) {
                pids.extend(text.lines().filter_map(|l| l.trim().parse::<i32>().ok()));
            }
        }
        pids.sort_unstable();
        pids.dedup();
        pids
    }

    /// Kills every process of the groups and waits (up to `patience`) until none is left.
    /// Returns whether the groups are empty.
    pub(crate) fn kill_all(&self, patience: Duration) -> bool {
        if self.version == Version::V2 {
            if let Some(dir) = self.dirs.first() {
                let _ = fs::write(dir.join("cgroup.kill"), "1");
            }
        }
        let start = Instant::now();
        loop {
            let members = self.members();
            if members.is_empty() {
                return true;
            }
            for pid in members {
                // SAFETY: kill(2) with a pid read from our own run's group.
                unsafe {
                    libc::kill(pid, libc::SIGKILL);
                }
            }
            if start.elapsed() > patience {
                return false;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    /// Removes the groups (empty ones only; the kernel refuses others).
    pub(crate) fn remove(&self) {
        for dir in self.dirs.iter().rev() {
            let start = Instant::now();
            // A group whose last process is still being torn down is busy for a moment.
            while fs::remove_dir(dir).is_err()
                && dir.exists()
                && start.elapsed() < Duration::from_secs(2)
            {
                std::thread::sleep(Duration::from_millis(2));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mountinfo_escapes_are_undone() {
        assert_eq!(unescape(r"/a\040b"), "/a b");
        assert_eq!(unescape(r"/a\134b"), r"/a\b");
        assert_eq!(unescape(r"/plain"), "/plain");
        assert_eq!(unescape(r"/end\04"), r"/end\04");
    }

    #[test]
    fn own_dir_strips_the_mount_root() {
        let dir = std::env::temp_dir();
        let m = MountPoint {
            root: "/".into(),
            point: dir.clone(),
            fstype: "cgroup".into(),
            options: vec![],
        };
        assert_eq!(own_dir(&m, "/"), Some(dir.join("")));
        let m = MountPoint {
            root: "/outer".into(),
            point: dir.clone(),
            fstype: "cgroup".into(),
            options: vec![],
        };
        assert_eq!(own_dir(&m, "/elsewhere"), None);
        assert_eq!(own_dir(&m, "/outerx"), None);
        assert_eq!(own_dir(&m, "/outer"), Some(dir.join("")));
    }
}
