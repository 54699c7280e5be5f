//! git's rename similarity score (diffcore-delta.c `hash_chars`/`diffcore_count_changes`
//! and diffcore-rename.c `estimate_similarity`), so rename following agrees with
//! `git blame` on borderline renames, where libgit2's own metric decides differently.
//!
//! Content is cut into spans that end at a newline or after 64 bytes; each span's hash
//! counts its bytes; the bytes the destination shares with the source (per hash, the
//! smaller count) over the larger file's size, scaled to 60000, is the score.

/// git's `MAX_SCORE`.
const MAX_SCORE: f64 = 60_000.0;
/// git's default rename threshold (50%).
pub const MIN_SCORE: u32 = 30_000;
const HASHBASE: u32 = 107_927;

/// Span-hash byte counts of one file, sorted by hash.
pub struct Signature {
    size: usize,
    counts: Vec<(u32, u64)>,
}

impl Signature {
    pub fn new(buf: &[u8]) -> Self {
        // git's buffer_is_binary: a NUL in the first 8000 bytes.
        let text = !buf[..buf.len().min(8000)].contains(&0);
        let mut spans: Vec<(u32, u64)> = Vec::new();
        let (mut a1, mut a2, mut n) = (0u32, 0u32, 0u64);
        let mut i = 0;
        while i < buf.len() {
            let c = buf[i];
            i += 1;
            // A CR of a CRLF pair does not count in text.
            if text && c == b'\r' && i < buf.len() && buf[i] == b'\n' {
                continue;
            }
            let old1 = a1;
            a1 = (a1 << 7) ^ (a2 >> 25);
            a2 = (a2 << 7) ^ (old1 >> 25);
            a1 = a1.wrapping_add(u32::from(c));
            n += 1;
            if n < 64 && c != b'\n' {
                continue;
            }
            spans.push((a1.wrapping_add(a2.wrapping_mul(0x61)) % HASHBASE, n));
            (a1, a2, n) = (0, 0, 0);
        }
        if n > 0 {
            spans.push((a1.wrapping_add(a2.wrapping_mul(0x61)) % HASHBASE, n));
        }
        spans.sort_unstable_by_key(|s| s.0);
        let mut counts: Vec<(u32, u64)> = Vec::with_capacity(spans.len());
        for (h, c) in spans {
            match counts.last_mut() {
                Some(last) if last.0 == h => last.1 += c,
                _ => counts.push((h, c)),
            }
        }
        Self {
            size: buf.len(),
            counts,
        }
    }
}

/// The similarity of `src` to the destination, 0..=60000 (git's `estimate_similarity`).
pub fn score(src: &[u8], dst: &Signature) -> u32 {
    let max = src.len().max(dst.size) as f64;
    let delta = src.len().abs_diff(dst.size) as f64;
    // Edits that change the size this much are not considered.
    if max * (MAX_SCORE - f64::from(MIN_SCORE)) < delta * MAX_SCORE || dst.size == 0 {
        return 0;
    }
    let src = Signature::new(src);
    let mut copied = 0u64;
    let mut d = dst.counts.iter().peekable();
    for &(h, sc) in &src.counts {
        while d.next_if(|x| x.0 < h).is_some() {}
        if let Some(&&(dh, dc)) = d.peek() {
            if dh == h {
                copied += sc.min(dc);
                d.next();
            }
        }
    }
    (copied as f64 * MAX_SCORE / max) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_files_score_full() {
        let a = b"int main(void)\n{\n  return 0;\n}\n";
        assert_eq!(score(a, &Signature::new(a)), 60_000);
    }

    #[test]
    fn size_changes_over_half_are_rejected() {
        let a = b"line one\n";
        let b = b"line one\nline two\nline three\n";
        assert_eq!(score(a, &Signature::new(b)), 0);
    }

    #[test]
    fn shared_lines_count_their_bytes() {
        // 3 of 4 ten-byte lines shared: 30 / 40 of 60000.
        let a = b"aaaaaaaaa\nbbbbbbbbb\nccccccccc\nddddddddd\n";
        let b = b"aaaaaaaaa\nbbbbbbbbb\nccccccccc\neeeeeeeee\n";
        assert_eq!(score(a, &Signature::new(b)), 45_000);
    }
}
