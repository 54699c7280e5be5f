//! Python's string semantics, where the reference implementations depend on them:
//! `str.split()`, `str.strip()`, `str.lower()`, and the `\s` and `\w` classes of Python's
//! `re` on `str` patterns.
//!
//! Python's whitespace (`str.isspace`, `re`'s `\s`) is Unicode's White_Space plus the four
//! information separators U+001C..U+001F; Python's word characters (`\w`) are the letters
//! and numbers (general categories L* and N*) and `_`. Rust's `char::is_alphanumeric` is
//! not the same set (it takes in Other_Alphabetic marks, such as Devanagari vowel signs),
//! so the L/N table comes from `regex-syntax`'s Unicode tables.
//!
//! ```
//! use codemine_eval::pytext::{py_split, py_strip};
//! assert_eq!(py_split(" a\u{1c}b  c "), vec!["a", "b", "c"]);
//! assert_eq!(py_strip("\u{a0} x \n"), "x");
//! ```

use std::sync::LazyLock;

/// `str.isspace()` for one character.
#[inline]
pub fn py_is_space(c: char) -> bool {
    if c.is_ascii() {
        matches!(c, ' ' | '\t'..='\r' | '\x1c'..='\x1f')
    } else {
        c.is_whitespace()
    }
}

/// `str.split()` with no arguments: runs of Python whitespace separate the words; no
/// empty words.
pub fn py_split(s: &str) -> Vec<&str> {
    s.split(py_is_space).filter(|w| !w.is_empty()).collect()
}

/// `str.strip()` with no arguments.
pub fn py_strip(s: &str) -> &str {
    s.trim_matches(py_is_space)
}

/// `str.lower()`: full Unicode lowercase mapping with the final-sigma rule (Rust's
/// `str::to_lowercase` implements the same rules; the Unicode version may differ for
/// characters assigned after the Python build's Unicode version).
pub fn py_lower(s: &str) -> String {
    if s.is_ascii() {
        s.to_ascii_lowercase()
    } else {
        s.to_lowercase()
    }
}

/// A set of characters given by a regular-expression class of Unicode properties (such as
/// `[\p{L}\p{N}]`), as sorted disjoint ranges from `regex-syntax`'s Unicode tables, with
/// its ASCII members also as a bit set (tokenizers ask mostly about ASCII characters).
pub struct CharClass {
    ranges: Vec<(u32, u32)>,
    ascii: u128,
}

impl CharClass {
    /// The class of `pattern`; an empty class when `pattern` is not a character class
    /// (callers pass constants).
    pub fn new(pattern: &str) -> Self {
        use regex_syntax::hir::{Class, HirKind};
        let hir = regex_syntax::ParserBuilder::new()
            .unicode(true)
            .build()
            .parse(pattern);
        let ranges: Vec<(u32, u32)> = match hir.as_ref().map(|h| h.kind()) {
            Ok(HirKind::Class(Class::Unicode(cls))) => cls
                .ranges()
                .iter()
                .map(|r| (r.start() as u32, r.end() as u32))
                .collect(),
            _ => Vec::new(),
        };
        let mut ascii = 0u128;
        for &(start, end) in &ranges {
            for cp in start..=end.min(127) {
                ascii |= 1 << cp;
            }
        }
        Self { ranges, ascii }
    }

    #[inline]
    pub fn contains(&self, c: char) -> bool {
        let cp = c as u32;
        if cp < 128 {
            return self.ascii & (1 << cp) != 0;
        }
        let i = self.ranges.partition_point(|&(_, end)| end < cp);
        i < self.ranges.len() && self.ranges[i].0 <= cp
    }
}

/// The characters in general categories L* and N*.
static LETTERS_NUMBERS: LazyLock<CharClass> = LazyLock::new(|| CharClass::new(r"[\p{L}\p{N}]"));

/// Python `re`'s `\w` on a `str` pattern: a letter or number (L*, N*) or `_`.
#[inline]
pub fn py_is_word(c: char) -> bool {
    if c.is_ascii() {
        c.is_ascii_alphanumeric() || c == '_'
    } else {
        LETTERS_NUMBERS.contains(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes() {
        assert!(py_is_space('\u{1f}'));
        assert!(py_is_space('\u{3000}'));
        assert!(!py_is_space('\u{200b}'));
        assert!(py_is_word('é'));
        assert!(py_is_word('٣'));
        assert!(py_is_word('_'));
        assert!(
            !py_is_word('\u{93f}'),
            "a Devanagari vowel sign is Mc, not \\w"
        );
        assert!(!py_is_word('-'));
    }
}
