//! One writer per output folder. Every step locks `DIR/.codemine.lock` (an advisory
//! `flock`, released by the kernel when the process ends, however it ends): `mine` on one
//! machine, `cluster` and `finalize` exclusively; a rank of a sharded run shares the folder
//! with the other ranks and locks `DIR/.codemine-rank-K.lock` exclusively, so that two
//! copies of one rank cannot run. A run that finds a lock taken stops at once with
//! [`Error::Busy`], naming the holder that the lock file records (process, host, command,
//! start time).

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, Write};
use std::path::Path;

use crate::Error;

/// A held lock; dropping it releases the lock.
#[derive(Debug)]
pub struct Lock {
    _file: File,
}

/// How a step holds the output folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// The only run in the folder: `mine` with one rank, `cluster`, `finalize`.
    Exclusive,
    /// Rank `rank` of a sharded mining step.
    Rank(usize),
}

/// Locks `out_dir` (created if missing) for `what` (the command, for the holder line).
pub fn lock(out_dir: &Path, mode: Mode, what: &str) -> Result<Vec<Lock>, Error> {
    std::fs::create_dir_all(out_dir).map_err(|source| Error::Io {
        path: out_dir.to_path_buf(),
        source,
    })?;
    let folder = out_dir.join(".codemine.lock");
    match mode {
        Mode::Exclusive => Ok(vec![take(&folder, true, what)?]),
        Mode::Rank(rank) => {
            let folder = take(&folder, false, what)?;
            let rank = take(
                &out_dir.join(format!(".codemine-rank-{rank:05}.lock")),
                true,
                what,
            )?;
            Ok(vec![folder, rank])
        }
    }
}

fn take(path: &Path, exclusive: bool, what: &str) -> Result<Lock, Error> {
    let io = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(io)?;
    let taken = if exclusive {
        file.try_lock()
    } else {
        file.try_lock_shared()
    };
    match taken {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => {
            let mut holder = String::new();
            let _ = file.read_to_string(&mut holder);
            return Err(Error::Busy {
                path: path.to_path_buf(),
                holder: holder.trim().to_string(),
            });
        }
        Err(TryLockError::Error(e)) => return Err(io(e)),
    }
    // Shared holders overwrite one another's line; the last one to start is named.
    let line = format!(
        "pid {} on {}: {} (since {})\n",
        std::process::id(),
        hostname(),
        what,
        jiff::Timestamp::now().strftime("%Y-%m-%d %H:%M:%S UTC")
    );
    file.set_len(0).map_err(io)?;
    file.rewind().map_err(io)?;
    file.write_all(line.as_bytes()).map_err(io)?;
    Ok(Lock { _file: file })
}

fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .ok()
        .filter(|h| !h.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "this machine".into())
}
