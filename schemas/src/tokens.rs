//! [`Tokens`]: a list of short strings (a function's code tokens) held in one buffer with
//! end offsets, about 1 + 4/length bytes per token byte instead of a heap `String` per
//! token (24 bytes plus an allocation of at least 16). Code tokens of a very large file
//! held as `Vec<String>` cost 18 bytes per source byte (issue 22, item 5).
//!
//! ```
//! use codemine_schemas::tokens::Tokens;
//! let t: Tokens = ["int", "f", "(", ")"].into_iter().collect();
//! assert_eq!(t.len(), 4);
//! assert_eq!(t.iter().collect::<Vec<_>>(), ["int", "f", "(", ")"]);
//! assert_eq!(t.get(1), Some("f"));
//! ```

use std::fmt;

/// Tokens in order; empty tokens are kept as such.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Tokens {
    text: String,
    /// Where each token ends in `text`. `u32`: tree-sitter's own offsets are 32-bit, so no
    /// function's tokens can exceed it.
    ends: Vec<u32>,
}

impl Tokens {
    /// An empty list with room for `bytes` of token text.
    pub fn with_capacity(bytes: usize) -> Self {
        Tokens {
            text: String::with_capacity(bytes),
            ends: Vec::new(),
        }
    }

    pub fn push(&mut self, token: &str) {
        self.text.push_str(token);
        // Saturates instead of wrapping past 4 GiB of token text (see `ends`).
        self.ends
            .push(u32::try_from(self.text.len()).unwrap_or(u32::MAX));
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The `i`th token.
    pub fn get(&self, i: usize) -> Option<&str> {
        let end = *self.ends.get(i)? as usize;
        let start = match i {
            0 => 0,
            _ => self.ends[i - 1] as usize,
        };
        self.text.get(start..end)
    }

    pub fn iter(&self) -> impl ExactSizeIterator<Item = &str> + DoubleEndedIterator + '_ {
        (0..self.len()).map(|i| self.get(i).unwrap_or_default())
    }

    /// The tokens as owned strings.
    pub fn to_vec(&self) -> Vec<String> {
        self.iter().map(str::to_string).collect()
    }

    /// Gives back the spare capacity of a list that is complete.
    pub fn shrink_to_fit(&mut self) {
        self.text.shrink_to_fit();
        self.ends.shrink_to_fit();
    }
}

impl fmt::Debug for Tokens {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<'a> FromIterator<&'a str> for Tokens {
    fn from_iter<I: IntoIterator<Item = &'a str>>(iter: I) -> Self {
        let mut t = Tokens::default();
        for s in iter {
            t.push(s);
        }
        t
    }
}

impl<S: AsRef<str>> PartialEq<[S]> for Tokens {
    fn eq(&self, other: &[S]) -> bool {
        self.len() == other.len() && self.iter().zip(other).all(|(a, b)| a == b.as_ref())
    }
}

impl<S: AsRef<str>, const N: usize> PartialEq<[S; N]> for Tokens {
    fn eq(&self, other: &[S; N]) -> bool {
        *self == other[..]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_round_trip() {
        let words = ["def", "", "f", "\"a b\"", "é", ":"];
        let t: Tokens = words.into_iter().collect();
        assert_eq!(t.len(), 6);
        assert_eq!(t.to_vec(), words);
        assert_eq!(t.get(1), Some(""));
        assert_eq!(t.get(4), Some("é"));
        assert_eq!(t.get(6), None);
        assert_eq!(t, words);
        assert_ne!(t, ["def"]);
        assert_eq!(format!("{t:?}"), format!("{words:?}"));
        assert!(Tokens::default().is_empty());
    }
}
