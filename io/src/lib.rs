//! Reading the files that a user points codemine at (an output folder, predictions,
//! benchmarks, coverage reports, manifests, model folders, configuration) and the files of
//! a mined folder, with two guarantees:
//!
//! - only a regular file is ever read: a FIFO, a device, a socket or a folder (directly or
//!   through a symbolic link) is refused with its kind named, and never blocks: the type is
//!   checked before opening, the file is opened with `O_NONBLOCK` (opening a FIFO would
//!   otherwise wait for a writer) and checked again on the open handle, so a file swapped
//!   in between is caught;
//! - at most a given number of bytes is read: a file said to be larger is refused unread,
//!   one that grows while it is read is cut one byte past the limit and refused, and
//!   [`Limited`] bounds a stream (a decompressor's output) the same way.
//!
//! ```no_run
//! use codemine_io::{read_regular, Follow};
//! let bytes = read_regular("out/stats.json".as_ref(), 64 << 20, Follow::Yes)?;
//! println!("{} bytes", bytes.len());
//! # Ok::<(), codemine_io::ReadError>(())
//! ```
//!
//! And writing a file whole or not at all ([`atomic::write_atomic`]).

pub mod atomic;

use std::fs::{self, File};
use std::io::Read;
use std::path::Path;

/// Why a file could not be read. The path is the caller's to add.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// A FIFO, a device, a socket, a folder, or a symbolic link where none is followed.
    #[error("not a regular file ({0})")]
    NotRegular(&'static str),
    #[error("file is {size} bytes, over the limit of {limit}")]
    TooLarge { size: u64, limit: u64 },
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

impl ReadError {
    /// [`ReadError::TooLarge`] when `e` is the error of a [`Limited`] stream that went past
    /// its limit, else [`ReadError::Io`].
    pub fn from_stream(e: std::io::Error) -> Self {
        match e
            .get_ref()
            .and_then(|inner| inner.downcast_ref::<OverLimit>())
        {
            Some(o) => ReadError::TooLarge {
                size: o.limit.saturating_add(1),
                limit: o.limit,
            },
            None => ReadError::Io(e),
        }
    }

    /// Whether the error is a [`ReadError::TooLarge`].
    pub fn is_too_large(&self) -> bool {
        matches!(self, ReadError::TooLarge { .. })
    }
}

/// Whether a symbolic link at the path itself is followed. Files a user names are
/// ([`Follow::Yes`]: a link to a regular file is read, a link to a FIFO or a device is
/// refused as what it points to); the files of a mined folder are not ([`Follow::No`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Follow {
    Yes,
    No,
}

/// What a file that is not regular is, for messages.
pub fn kind(t: &fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if t.is_dir() {
        "a folder"
    } else if t.is_symlink() {
        "a symbolic link"
    } else if t.is_file() {
        "a regular file"
    } else {
        "a special file"
    }
}

/// Opens a regular file for reading, refusing anything else without blocking (see the
/// module doc). A missing file is [`ReadError::Io`] with [`std::io::ErrorKind::NotFound`].
pub fn open_regular(path: &Path, follow: Follow) -> Result<File, ReadError> {
    // Checked before opening: opening a FIFO waits for a writer, opening some devices acts.
    let meta = match follow {
        Follow::Yes => fs::metadata(path)?,
        Follow::No => fs::symlink_metadata(path)?,
    };
    if !meta.file_type().is_file() {
        return Err(ReadError::NotRegular(kind(&meta.file_type())));
    }
    let mut options = fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // Without a writer a FIFO opened non-blocking opens at once (and is refused below);
        // reads of a regular file ignore the flag.
        let nofollow = match follow {
            Follow::Yes => 0,
            Follow::No => libc::O_NOFOLLOW,
        };
        options.custom_flags(libc::O_NONBLOCK | nofollow);
    }
    let file = options.open(path)?;
    // A file swapped in since the check is caught on the handle itself.
    let t = file.metadata()?.file_type();
    if !t.is_file() {
        return Err(ReadError::NotRegular(kind(&t)));
    }
    Ok(file)
}

/// The bytes of a regular file, at most `limit` of them (see the module doc).
pub fn read_regular(path: &Path, limit: u64, follow: Follow) -> Result<Vec<u8>, ReadError> {
    let file = open_regular(path, follow)?;
    read_file(file, limit)
}

/// The rest of an open file, at most `limit` bytes: a file whose size is over the limit is
/// refused unread, one that grows while read is refused one byte past it.
pub fn read_file(file: File, limit: u64) -> Result<Vec<u8>, ReadError> {
    let known = file.metadata()?.len();
    if known > limit {
        return Err(ReadError::TooLarge { size: known, limit });
    }
    let mut buf = Vec::with_capacity(usize::try_from(known).unwrap_or(0));
    file.take(limit.saturating_add(1)).read_to_end(&mut buf)?;
    if buf.len() as u64 > limit {
        return Err(ReadError::TooLarge {
            size: buf.len() as u64,
            limit,
        });
    }
    Ok(buf)
}

/// [`read_regular`] of a UTF-8 text file (following a symbolic link); text that is not
/// UTF-8 is an [`std::io::ErrorKind::InvalidData`] error that says where it stops.
pub fn read_regular_string(path: &Path, limit: u64) -> Result<String, ReadError> {
    let bytes = read_regular(path, limit, Follow::Yes)?;
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        ReadError::Io(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("not UTF-8 (invalid byte at offset {at})"),
        ))
    })
}

impl From<ReadError> for std::io::Error {
    /// The error as an `io::Error` with the same message, for callers whose errors hold
    /// one (a missing file stays [`std::io::ErrorKind::NotFound`]).
    fn from(e: ReadError) -> Self {
        match e {
            ReadError::Io(e) => e,
            other => std::io::Error::new(std::io::ErrorKind::InvalidInput, other.to_string()),
        }
    }
}

/// The most bytes read of a small text file a user names (a manifest, a configuration, a
/// template, a JSON list): far above any real one.
pub const MAX_TEXT_BYTES: u64 = 256 << 20;

/// The payload of the error a [`Limited`] stream gives past its limit.
#[derive(Debug)]
struct OverLimit {
    limit: u64,
}

impl std::fmt::Display for OverLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "more than {} bytes", self.limit)
    }
}

impl std::error::Error for OverLimit {}

/// A reader that gives at most `limit` bytes of another and then fails (rather than
/// ending, as `Read::take` does): a stream past the limit is an error, never a silently
/// cut input. [`ReadError::from_stream`] turns the failure into [`ReadError::TooLarge`].
pub struct Limited<R> {
    inner: R,
    limit: u64,
    read: u64,
}

impl<R: Read> Limited<R> {
    pub fn new(inner: R, limit: u64) -> Self {
        Self {
            inner,
            limit,
            read: 0,
        }
    }

    /// Bytes given so far.
    pub fn bytes_read(&self) -> u64 {
        self.read
    }
}

impl<R: Read> Read for Limited<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        // One byte more than the limit is asked for, to tell "exactly the limit" from "past".
        let room = self.limit.saturating_add(1).saturating_sub(self.read);
        let want = buf.len().min(usize::try_from(room).unwrap_or(usize::MAX));
        if want == 0 && !buf.is_empty() {
            return Err(over(self.limit));
        }
        let n = self.inner.read(&mut buf[..want])?;
        self.read += n as u64;
        if self.read > self.limit {
            return Err(over(self.limit));
        }
        Ok(n)
    }
}

fn over(limit: u64) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, OverLimit { limit })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regular_files_within_the_limit_are_read() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("a.txt");
        fs::write(&p, b"hello").expect("write");
        assert_eq!(read_regular(&p, 5, Follow::No).expect("read"), b"hello");
        match read_regular(&p, 4, Follow::No) {
            Err(ReadError::TooLarge { size: 5, limit: 4 }) => {}
            other => panic!("{other:?}"),
        }
    }

    #[cfg(unix)]
    #[test]
    fn fifos_devices_and_links_are_refused_without_blocking() {
        let dir = tempfile::tempdir().expect("tempdir");
        let fifo = dir.path().join("fifo");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).expect("path");
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let e = read_regular(&fifo, 10, Follow::Yes).expect_err("a FIFO");
        assert_eq!(e.to_string(), "not a regular file (a FIFO)");
        let zero = dir.path().join("zero");
        std::os::unix::fs::symlink("/dev/zero", &zero).expect("symlink");
        let e = read_regular(&zero, 10, Follow::Yes).expect_err("a device");
        assert_eq!(e.to_string(), "not a regular file (a character device)");
        let real = dir.path().join("real");
        fs::write(&real, b"x").expect("write");
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&real, &link).expect("symlink");
        assert_eq!(read_regular(&link, 10, Follow::Yes).expect("read"), b"x");
        let e = read_regular(&link, 10, Follow::No).expect_err("a link");
        assert_eq!(e.to_string(), "not a regular file (a symbolic link)");
        let e = read_regular(dir.path(), 10, Follow::Yes).expect_err("a folder");
        assert_eq!(e.to_string(), "not a regular file (a folder)");
    }

    #[test]
    fn a_limited_stream_fails_past_its_limit() {
        let mut out = Vec::new();
        let e = Limited::new(&[7u8; 100][..], 99)
            .read_to_end(&mut out)
            .expect_err("over");
        assert!(ReadError::from_stream(e).is_too_large());
        assert!(out.len() <= 100);
        let mut out = Vec::new();
        Limited::new(&[7u8; 100][..], 100)
            .read_to_end(&mut out)
            .expect("at the limit");
        assert_eq!(out.len(), 100);
    }
}
