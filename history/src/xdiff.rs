//! The changed regions between two texts, from xdiff itself: the diff library git carries
//! (and libgit2 vendors unchanged, `deps/xdiff`), called the way git's blame calls it
//! (`xdi_diff` with a `hunk_func`, no context lines).
//!
//! libgit2's own entry points reach the same `xdl_diff`, but a diff of two buffers first
//! names each buffer by its SHA-1 (with collision detection): on redis that hashing was a
//! fifth of a whole `mine` with history. Calling `xdl_diff` directly gives git's hunks with
//! no hashing and no patch object. The symbol is in the static libgit2 that `git2` links
//! (the workspace builds it vendored); the structures below are xdiff.h's.

use std::os::raw::{c_char, c_int, c_long, c_ulong, c_void};

/// xdiff.h `XDF_INDENT_HEURISTIC`: git's default `diff.indentHeuristic`.
const XDF_INDENT_HEURISTIC: c_ulong = 1 << 23;

/// git's `MAX_XDIFF_SIZE` (xdiff-interface.h): larger inputs are refused, as git does.
const MAX_XDIFF_SIZE: usize = 1 << 30;

#[repr(C)]
struct MmFile {
    ptr: *mut c_char,
    size: c_long,
}

#[repr(C)]
struct XpParam {
    flags: c_ulong,
    ignore_regex: *mut *mut c_void,
    ignore_regex_nr: usize,
    anchors: *mut *mut c_char,
    anchors_nr: usize,
}

#[repr(C)]
struct XdEmitCb {
    private: *mut c_void,
    out_hunk: Option<
        unsafe extern "C" fn(
            *mut c_void,
            c_long,
            c_long,
            c_long,
            c_long,
            *const c_char,
            c_long,
        ) -> c_int,
    >,
    out_line: Option<unsafe extern "C" fn(*mut c_void, *mut MmFile, c_int) -> c_int>,
}

type HunkFunc = unsafe extern "C" fn(c_long, c_long, c_long, c_long, *mut c_void) -> c_int;

#[repr(C)]
struct XdEmitConf {
    ctxlen: c_long,
    interhunkctxlen: c_long,
    flags: c_ulong,
    find_func: Option<unsafe extern "C" fn() -> c_long>,
    find_func_priv: *mut c_void,
    hunk_func: Option<HunkFunc>,
}

extern "C" {
    fn xdl_diff(
        mf1: *mut MmFile,
        mf2: *mut MmFile,
        xpp: *const XpParam,
        xecfg: *const XdEmitConf,
        ecb: *mut XdEmitCb,
    ) -> c_int;
}

/// Why two texts could not be diffed.
#[derive(Debug, thiserror::Error)]
pub enum XdiffError {
    #[error("a file of {0} bytes is over git's diff limit of 1 GiB")]
    TooLarge(usize),
    #[error("xdiff failed (out of memory)")]
    Failed,
}

unsafe extern "C" fn collect(
    start_a: c_long,
    count_a: c_long,
    start_b: c_long,
    count_b: c_long,
    data: *mut c_void,
) -> c_int {
    // SAFETY: `data` is the `Vec` that `hunks` passes as the callback's private pointer,
    // alive and not otherwise borrowed for the whole `xdl_diff` call.
    let out = unsafe { &mut *data.cast::<Vec<(u32, u32, u32, u32)>>() };
    let n = |v: c_long| u32::try_from(v).unwrap_or(u32::MAX);
    out.push((n(start_a), n(count_a), n(start_b), n(count_b)));
    0
}

/// xdiff's changed regions between `old` and `new` as 0-based (old start, old len, new
/// start, new len), Myers with the indent heuristic and no whitespace options: git's
/// defaults, and what its blame diffs with. A region with no old (new) lines starts at the
/// old (new) line the change comes before.
pub fn hunks(old: &[u8], new: &[u8]) -> Result<Vec<(u32, u32, u32, u32)>, XdiffError> {
    for len in [old.len(), new.len()] {
        if len > MAX_XDIFF_SIZE {
            return Err(XdiffError::TooLarge(len));
        }
    }
    // libgit2 sets up its allocator, which xdiff allocates with, on first use.
    git2::opts::strict_hash_verification(false);
    let mut out: Vec<(u32, u32, u32, u32)> = Vec::new();
    // xdiff only reads its inputs; the pointers are `char *` in its header.
    let mut a = MmFile {
        ptr: old.as_ptr().cast_mut().cast(),
        size: old.len() as c_long,
    };
    let mut b = MmFile {
        ptr: new.as_ptr().cast_mut().cast(),
        size: new.len() as c_long,
    };
    let xpp = XpParam {
        flags: XDF_INDENT_HEURISTIC,
        ignore_regex: std::ptr::null_mut(),
        ignore_regex_nr: 0,
        anchors: std::ptr::null_mut(),
        anchors_nr: 0,
    };
    let conf = XdEmitConf {
        ctxlen: 0,
        interhunkctxlen: 0,
        flags: 0,
        find_func: None,
        find_func_priv: std::ptr::null_mut(),
        hunk_func: Some(collect),
    };
    let mut cb = XdEmitCb {
        private: (&mut out as *mut Vec<(u32, u32, u32, u32)>).cast(),
        out_hunk: None,
        out_line: None,
    };
    // SAFETY: the structures are xdiff.h's, every pointer is valid for the call (the
    // inputs are only read), and `collect` is the only callback, given `out`.
    let rc = unsafe { xdl_diff(&mut a, &mut b, &xpp, &conf, &mut cb) };
    if rc < 0 {
        return Err(XdiffError::Failed);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Expected values from `git diff --no-index -U0` of the same texts: `@@ -2 +2 @@`
    /// (a changed line), `@@ -3,0 +4 @@` (an insertion after old line 3), `@@ -5 +4,0 @@`
    /// (a deletion of old line 5).
    #[test]
    fn hunks_are_gits() {
        assert_eq!(
            hunks(b"a\nb\nc\n", b"a\nB\nc\n").unwrap(),
            vec![(1, 1, 1, 1)]
        );
        assert_eq!(
            hunks(b"a\nb\nc\nd\n", b"a\nb\nc\nX\nd\n").unwrap(),
            vec![(3, 0, 3, 1)]
        );
        assert_eq!(
            hunks(b"a\nb\nc\nd\ne\n", b"a\nb\nc\nd\n").unwrap(),
            vec![(4, 1, 4, 0)]
        );
        assert_eq!(hunks(b"same\n", b"same\n").unwrap(), vec![]);
        assert_eq!(hunks(b"", b"x\n").unwrap(), vec![(0, 0, 0, 1)]);
    }
}
