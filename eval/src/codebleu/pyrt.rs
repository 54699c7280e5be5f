//! The bits of CPython's runtime behaviour the reference implementation's results depend on:
//! `str.isspace` (behind `str.split()` and `str.strip()`), character-indexed slicing, and the
//! iteration order of `set` objects of strings, which follows the strings' SipHash-1-3 hashes
//! under the process's `PYTHONHASHSEED` (CPython 3.11 and later).

/// `s.strip()` (Python whitespace, as [`crate::pytext`] defines it).
pub(crate) fn strip(s: &str) -> &str {
    crate::pytext::py_strip(s)
}

/// `s.split()`, without collecting.
pub(crate) fn split(s: &str) -> impl Iterator<Item = &str> {
    s.split(crate::pytext::py_is_space)
        .filter(|t| !t.is_empty())
}

/// A line of text sliced by character indexes, as a Python `str` is.
pub(crate) struct CharLine<'a> {
    text: &'a str,
    /// Byte offset of each character and of the end, for a line that is not ASCII.
    offsets: Option<Vec<usize>>,
}

impl<'a> CharLine<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        let offsets = (!text.is_ascii()).then(|| {
            text.char_indices()
                .map(|(b, _)| b)
                .chain([text.len()])
                .collect()
        });
        Self { text, offsets }
    }

    /// `line[start:end]` (`end` `None` for the rest), with Python's clamping: a start past
    /// the end or after `end` gives the empty string.
    pub(crate) fn slice(&self, start: usize, end: Option<usize>) -> &'a str {
        let byte = |n: usize| match &self.offsets {
            None => n.min(self.text.len()),
            Some(o) => o.get(n).copied().unwrap_or(self.text.len()),
        };
        let from = byte(start);
        let to = end.map_or(self.text.len(), byte);
        if from >= to {
            ""
        } else {
            &self.text[from..to]
        }
    }

    pub(crate) fn text(&self) -> &'a str {
        self.text
    }
}

/// The key of CPython's string hash: `_Py_HashSecret.siphash` as `PYTHONHASHSEED` sets it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct HashKey {
    k0: u64,
    k1: u64,
}

impl HashKey {
    /// Seed 0 disables randomisation (an all-zero key); any other seed fills the secret with
    /// CPython's `lcg_urandom`.
    pub(crate) fn from_seed(seed: u32) -> Self {
        let mut secret = [0u8; 16];
        if seed != 0 {
            let mut x = seed;
            for b in secret.iter_mut() {
                x = x.wrapping_mul(214_013).wrapping_add(2_531_011);
                *b = ((x >> 16) & 0xff) as u8;
            }
        }
        let (k0, k1) = secret.split_at(8);
        Self {
            k0: u64::from_le_bytes(k0.try_into().unwrap_or_default()),
            k1: u64::from_le_bytes(k1.try_into().unwrap_or_default()),
        }
    }

    /// `hash(s)` as CPython computes it: SipHash-1-3 over the PEP 393 representation of the
    /// string (one, two or four bytes a character, whichever fits its widest character).
    pub(crate) fn hash_str(&self, s: &str) -> u64 {
        if s.is_empty() {
            return 0;
        }
        let widest = s.chars().map(u32::from).max().unwrap_or(0);
        let mut data: Vec<u8> = Vec::with_capacity(s.len() * 4);
        if widest < 0x100 {
            data.extend(s.chars().map(|c| u32::from(c) as u8));
        } else if widest < 0x1_0000 {
            for c in s.chars() {
                data.extend_from_slice(&(u32::from(c) as u16).to_le_bytes());
            }
        } else {
            for c in s.chars() {
                data.extend_from_slice(&u32::from(c).to_le_bytes());
            }
        }
        let h = siphash13(self.k0, self.k1, &data);
        // -1 is CPython's error marker: a hash that comes out as -1 is stored as -2.
        if h == u64::MAX {
            u64::MAX - 1
        } else {
            h
        }
    }
}

/// SipHash-1-3 with CPython's key (the `siphasher` crate: the reference algorithm, one
/// compression round per word and three finalisation rounds, as CPython's `Python/pyhash.c`).
fn siphash13(k0: u64, k1: u64, data: &[u8]) -> u64 {
    use std::hash::Hasher;
    let mut h = siphasher::sip::SipHasher13::new_with_keys(k0, k1);
    h.write(data);
    h.finish()
}

const LINEAR_PROBES: usize = 9;
const PERTURB_SHIFT: u32 = 5;
const MIN_SIZE: usize = 8;

/// `list(set(items))` for strings with the given hashes: the distinct items in the order a
/// CPython 3.11+ `set` built by adding them one by one iterates them (table slot order, with
/// its linear probing, perturbation and resizing). `T` is whatever stands for a string;
/// equal strings must be equal `T`s with equal hashes.
pub(crate) fn set_order<T: Copy + Eq>(items: &[T], hash: impl Fn(T) -> u64) -> Vec<T> {
    let mut table: Vec<Option<(u64, T)>> = vec![None; MIN_SIZE];
    let mut fill = 0usize;
    for &item in items {
        let h = hash(item);
        let mask = table.len() - 1;
        let mut i = (h as usize) & mask;
        let mut perturb = h as usize;
        let slot = 'probe: loop {
            let probes = if i + LINEAR_PROBES <= mask {
                LINEAR_PROBES
            } else {
                0
            };
            for (j, entry) in table.iter().enumerate().skip(i).take(probes + 1) {
                match *entry {
                    None => break 'probe Some(j),
                    Some((eh, ek)) if eh == h && ek == item => break 'probe None,
                    Some(_) => {}
                }
            }
            perturb >>= PERTURB_SHIFT;
            i = i.wrapping_mul(5).wrapping_add(1).wrapping_add(perturb) & mask;
        };
        let Some(slot) = slot else { continue };
        table[slot] = Some((h, item));
        fill += 1;
        // Without deletions `fill` equals `used`.
        if fill * 5 >= mask * 3 {
            let min_used = if fill > 50_000 { fill * 2 } else { fill * 4 };
            let mut size = MIN_SIZE;
            while size <= min_used {
                size <<= 1;
            }
            let old = std::mem::replace(&mut table, vec![None; size]);
            for (eh, ek) in old.into_iter().flatten() {
                insert_clean(&mut table, eh, ek);
            }
        }
    }
    table.into_iter().flatten().map(|(_, k)| k).collect()
}

/// CPython's `set_insert_clean`: placement in a fresh table during a resize.
fn insert_clean<T: Copy>(table: &mut [Option<(u64, T)>], h: u64, item: T) {
    let mask = table.len() - 1;
    let mut i = (h as usize) & mask;
    let mut perturb = h as usize;
    loop {
        let probes = if i + LINEAR_PROBES <= mask {
            LINEAR_PROBES
        } else {
            0
        };
        if let Some(entry) = table[i..=i + probes].iter_mut().find(|e| e.is_none()) {
            *entry = Some((h, item));
            return;
        }
        perturb >>= PERTURB_SHIFT;
        i = i.wrapping_mul(5).wrapping_add(1).wrapping_add(perturb) & mask;
    }
}

/// Maps and sets for the many small internal tables: foldhash with a fixed seed, so runs are
/// reproducible (none of their iteration orders reaches a result).
pub(crate) type FxHashMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::FixedState>;
pub(crate) type FxHashSet<K> = std::collections::HashSet<K, foldhash::fast::FixedState>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_hashes_match_cpython_with_seed_zero() {
        // `PYTHONHASHSEED=0 python3 -c 'print(hash(s))'` on CPython 3.11.
        let key = HashKey::from_seed(0);
        let cases: [(&str, i64); 7] = [
            ("a", 4644417185603328019),
            ("abc", -4594863902769663758),
            ("é", 6047309291227476195),
            ("€", -5529981157763016009),
            ("😀", -3536540696076613844),
            ("", 0),
            ("abcdefghij", -829746140550000655),
        ];
        for (s, want) in cases {
            assert_eq!(key.hash_str(s) as i64, want, "{s:?}");
        }
    }

    #[test]
    fn strip_and_split_use_python_whitespace() {
        assert_eq!(strip("\u{1c} a b\u{a0}"), "a b");
        assert_eq!(split(" a\u{1f}b  c ").collect::<Vec<_>>(), ["a", "b", "c"]);
        assert_eq!(CharLine::new("héllo").slice(1, Some(3)), "él");
        assert_eq!(CharLine::new("héllo").slice(4, Some(2)), "");
        assert_eq!(CharLine::new("héllo").slice(3, Some(9)), "lo");
        assert_eq!(CharLine::new("abc").slice(5, None), "");
        assert_eq!(CharLine::new("abc").slice(1, None), "bc");
    }
}
