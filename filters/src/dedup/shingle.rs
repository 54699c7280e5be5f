//! Token hashing: the exact-duplicate key of a token sequence and its shingle set.

use xxhash_rust::xxh3::{xxh3_64, Xxh3};

/// Whether a parser token takes part in dedup: identifiers, keywords and literals do;
/// punctuation and operators (tokens of ASCII punctuation only) do not, so that formatting
/// such as a trailing comma or extra parentheses does not make two functions differ. String
/// and character literals made of punctuation (`"+"`) are kept: they start with a quote.
pub fn is_content_token(token: &str) -> bool {
    token.starts_with(['"', '\'', '`'])
        || !token.bytes().all(|b| b.is_ascii_punctuation() && b != b'_')
}

/// The exact-duplicate key: 128-bit xxh3 of the token sequence, each token preceded by
/// its byte length so that `["ab", "c"]` and `["a", "bc"]` differ (a separator byte could
/// occur inside a literal).
pub fn sequence_hash<T: AsRef<str>>(tokens: &[T]) -> u128 {
    let mut hasher = Xxh3::new();
    hasher.update(&(tokens.len() as u64).to_le_bytes());
    for token in tokens {
        let bytes = token.as_ref().as_bytes();
        hasher.update(&(bytes.len() as u64).to_le_bytes());
        hasher.update(bytes);
    }
    hasher.digest128()
}

/// The sorted, deduplicated set of `shingle`-token shingles, each hashed to a u64 (xxh3 of
/// the shingle's token hashes). Empty when there are fewer tokens than one shingle.
pub fn shingle_set<T: AsRef<str>>(tokens: &[T], shingle: usize) -> Vec<u64> {
    if shingle == 0 || tokens.len() < shingle {
        return Vec::new();
    }
    // Hash each token once; a shingle is then hashed from `shingle` fixed-size words.
    let token_hashes: Vec<u64> = tokens
        .iter()
        .map(|t| xxh3_64(t.as_ref().as_bytes()))
        .collect();
    shingle_set_of_hashes(&token_hashes, shingle)
}

/// [`shingle_set`] from the tokens' hashes (xxh3 of each token), for callers that hash the
/// tokens once for other uses too.
pub(crate) fn shingle_set_of_hashes(token_hashes: &[u64], shingle: usize) -> Vec<u64> {
    if shingle == 0 || token_hashes.len() < shingle {
        return Vec::new();
    }
    let mut buf = Vec::with_capacity(shingle * 8);
    let mut set: Vec<u64> = token_hashes
        .windows(shingle)
        .map(|window| {
            buf.clear();
            for h in window {
                buf.extend_from_slice(&h.to_le_bytes());
            }
            xxh3_64(&buf)
        })
        .collect();
    set.sort_unstable();
    set.dedup();
    set
}

/// Exact Jaccard of two sorted, deduplicated sets (0 when both are empty).
pub fn jaccard(a: &[u64], b: &[u64]) -> f64 {
    let union_max = a.len() + b.len();
    if union_max == 0 {
        return 0.0;
    }
    let (mut i, mut j, mut shared) = (0, 0, 0usize);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                shared += 1;
                i += 1;
                j += 1;
            }
        }
    }
    shared as f64 / (union_max - shared) as f64
}

/// Whether the Jaccard of two sorted sets is at least `threshold`, stopping early when the
/// remaining elements can no longer reach it (most LSH candidates are clear misses).
pub(crate) fn jaccard_at_least(a: &[u64], b: &[u64], threshold: f64) -> bool {
    let total = a.len() + b.len();
    if total == 0 {
        return false;
    }
    // J >= t  <=>  shared >= t * total / (1 + t).
    let needed = (threshold * total as f64 / (1.0 + threshold) - 1e-9)
        .ceil()
        .max(0.0) as usize;
    let (mut i, mut j, mut shared) = (0, 0, 0usize);
    while i < a.len() && j < b.len() {
        if shared + (a.len() - i).min(b.len() - j) < needed {
            return false;
        }
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                shared += 1;
                i += 1;
                j += 1;
            }
        }
    }
    // Decide with the exact ratio, so the early exit never changes the answer.
    shared as f64 / (total - shared) as f64 >= threshold
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequence_hash_separates_token_boundaries() {
        assert_ne!(sequence_hash(&["ab", "c"]), sequence_hash(&["a", "bc"]));
        assert_eq!(
            sequence_hash(&["a", "b"]),
            sequence_hash(&["a".to_string(), "b".to_string()])
        );
    }

    #[test]
    fn shingles_and_jaccard() {
        let a: Vec<String> = "a b c d e f".split(' ').map(String::from).collect();
        assert_eq!(shingle_set(&a, 5).len(), 2);
        assert!(shingle_set(&a[..4], 5).is_empty());
        assert_eq!(jaccard(&[1, 2, 3], &[2, 3, 4]), 0.5);
        for t in [0.1, 0.5, 0.51, 0.7, 1.0] {
            assert_eq!(jaccard_at_least(&[1, 2, 3], &[2, 3, 4], t), 0.5 >= t, "{t}");
        }
        assert!(jaccard_at_least(&[1, 2], &[1, 2], 1.0));
        assert!(!jaccard_at_least(&[], &[], 0.5));
    }
}
