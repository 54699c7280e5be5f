//! MinHash signatures (minhash-rs, pinned) and LSH band hashes.
//!
//! minhash-rs fixes the signature length as a const generic, so only the permutation
//! counts instantiated here can be used; [`DedupParams::validate`](super::DedupParams::validate)
//! rejects the others. Bands are cut from the signature at run time (any `rows` dividing
//! the signature works) and hashed with minhash-rs's own `band_hash`.

use minhash_rs::lsh::band_hash;
use minhash_rs::prelude::MinHash;

/// Permutation counts (`bands * rows`) with a minhash-rs instantiation.
pub const SUPPORTED_PERMUTATIONS: [usize; 6] = [64, 112, 128, 200, 250, 256];

/// Writes the band hashes of the shingle set's signature into `out`, one per band
/// (`out.len()` bands of `rows` rows). `out.len() * rows` must be supported (checked by
/// `validate`).
pub(crate) fn band_hashes_into(shingles: &[u64], rows: usize, out: &mut [u64]) {
    match out.len() * rows {
        64 => bands_of::<64>(shingles, rows, out),
        112 => bands_of::<112>(shingles, rows, out),
        128 => bands_of::<128>(shingles, rows, out),
        200 => bands_of::<200>(shingles, rows, out),
        250 => bands_of::<250>(shingles, rows, out),
        256 => bands_of::<256>(shingles, rows, out),
        // Unreachable after validate; leave the bands as they are rather than panic.
        _ => {}
    }
}

fn bands_of<const P: usize>(shingles: &[u64], rows: usize, out: &mut [u64]) {
    // The batched `FromIterator` path: bit-identical to repeated inserts, about 3x faster.
    let signature: MinHash<u64, P> = shingles.iter().copied().collect();
    for (slot, chunk) in out.iter_mut().zip(signature.as_words().chunks(rows)) {
        *slot = band_hash(chunk);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_sets_identical_bands() {
        let set: Vec<u64> = (0..40).collect();
        let (mut a, mut b, mut c) = ([0u64; 25], [0u64; 25], [0u64; 25]);
        band_hashes_into(&set, 10, &mut a);
        band_hashes_into(&set, 10, &mut b);
        assert_eq!(a, b);
        band_hashes_into(&(100..140).collect::<Vec<u64>>(), 10, &mut c);
        assert!(a.iter().zip(&c).all(|(x, y)| x != y));
    }
}
