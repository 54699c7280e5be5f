//! CodeXGLUE's line-level completion: a file's token line cut at a token position, `input`
//! being everything before the cut (from `<s>`) and `gt` the rest of the line.
//!
//! The stopping rule is CodeXGLUE's (`Code-Code/CodeCompletion-line/README.md`): Python up
//! to the first `<EOL>` (excluded); Java up to the first `;` or `}` (included) or `{`
//! (excluded). The official cut script is not published; codemine chooses cut positions
//! with a seeded generator keyed by the file, so a run gives the same cuts whatever the
//! thread count or file order, and leaves out empty and trivial ground truths (ones without
//! a letter, digit or literal, such as a lone `}` or `) ;`).
//!
//! ```
//! use codemine_completion::{line, CompletionLang, LineToken};
//! let toks: Vec<LineToken> = ["x", "=", "f", "(", ")", "<EOL>", "return", "x"]
//!     .iter()
//!     .map(|t| LineToken { text: t.to_string().into(), line: 1 })
//!     .collect();
//! for cut in line::cuts(&toks, CompletionLang::Python, 2, 7, "owner/repo:a.py") {
//!     let full = format!("{} {}", cut.input, cut.gt);
//!     assert!(("<s> ".to_string() + "x = f ( ) <EOL> return x").starts_with(&full));
//! }
//! ```

use super::{CompletionLang, LineToken, TokenLine, EOL};

/// One cut of a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cut {
    /// The token index of the cut (the first token of `gt`).
    pub position: usize,
    /// `<s>` and the tokens before the cut, space-joined.
    pub input: String,
    /// The rest of the line, space-joined.
    pub gt: String,
    /// The 1-based source line of the cut's first token.
    pub line: usize,
}

/// The end (exclusive) of the ground truth that starts at `from`.
#[cfg(test)]
fn gt_end(tokens: &[LineToken], lang: CompletionLang, from: usize) -> usize {
    for (k, t) in tokens.iter().enumerate().skip(from) {
        match stop(lang, &t.text) {
            Stop::Before => return k,
            Stop::After => return k + 1,
            Stop::No => {}
        }
    }
    tokens.len()
}

/// Where a ground truth that reaches a token ends.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Stop {
    /// Not here.
    No,
    /// Before the token (Python's `<EOL>`, Java's `{`).
    Before,
    /// After it (Java's `;` and `}`).
    After,
}

fn stop(lang: CompletionLang, token: &str) -> Stop {
    match (lang, token) {
        (CompletionLang::Python, EOL) => Stop::Before,
        (CompletionLang::Java, ";" | "}") => Stop::After,
        (CompletionLang::Java, "{") => Stop::Before,
        _ => Stop::No,
    }
}

/// The valid cuts of a line, in token order: `(position, end of the ground truth)` where the
/// ground truth is not empty and has something to predict: a token with a letter or digit
/// (literal placeholders such as `<STR_LIT>` count). One pass from the end.
fn valid_cuts(line: &TokenLine, lang: CompletionLang) -> Vec<(usize, usize)> {
    let n = line.len();
    let mut valid = Vec::new();
    // The end of the ground truth starting at `p`, and the first substantive token at or
    // after `p`.
    let mut end = n;
    let mut alnum = usize::MAX;
    for p in (1..n).rev() {
        let tok = line.token(p);
        match stop(lang, tok) {
            Stop::Before => end = p,
            Stop::After => end = p + 1,
            Stop::No => {}
        }
        if tok.chars().any(char::is_alphanumeric) {
            alnum = p;
        }
        if end > p && alnum < end {
            valid.push((p, end));
        }
    }
    valid.reverse();
    valid
}

/// SplitMix64: a tiny, well-mixed generator; the stream is part of the output's contract.
pub struct SplitMix(pub u64);
impl SplitMix {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: usize) -> usize {
        // n is a token count: the modulo bias is far below what a test set can show.
        (self.next_u64() % n as u64) as usize
    }
}

/// Up to `n` cuts of a file's tokens, chosen uniformly among the valid positions with a
/// generator seeded by `seed` and `key` (say, the repository and path), in token order.
pub fn cuts(
    tokens: &[LineToken],
    lang: CompletionLang,
    n: usize,
    seed: u64,
    key: &str,
) -> Vec<Cut> {
    let line = TokenLine::from_tokens(tokens);
    cut_positions(&line, lang, n, seed, key)
        .into_iter()
        .map(|(p, end)| Cut {
            position: p,
            input: line.before(p).to_string(),
            gt: line.range(p, end).to_string(),
            line: line.line_of(p),
        })
        .collect()
}

/// [`cuts`] of a [`TokenLine`]: the chosen `(position, end)` pairs, in token order; `input`
/// is [`TokenLine::before`] the position and `gt` [`TokenLine::range`] of the pair.
pub fn cut_positions(
    line: &TokenLine,
    lang: CompletionLang,
    n: usize,
    seed: u64,
    key: &str,
) -> Vec<(usize, usize)> {
    let mut valid = valid_cuts(line, lang);
    let mut rng = SplitMix(seed ^ xxhash_rust::xxh3::xxh3_64(key.as_bytes()));
    // A partial Fisher-Yates shuffle: the first `n` entries are a uniform sample.
    let take = n.min(valid.len());
    for k in 0..take {
        let r = k + rng.below(valid.len() - k);
        valid.swap(k, r);
    }
    valid.truncate(take);
    valid.sort_unstable();
    valid
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<LineToken> {
        s.split(' ')
            .enumerate()
            .map(|(i, t)| LineToken {
                text: t.to_string().into(),
                line: i + 1,
            })
            .collect()
    }

    #[test]
    fn java_stops_at_semicolon_brace() {
        let t = toks("class A { int x = 1 ; void f ( ) { } }");
        // From `int`: up to and including `;`.
        assert_eq!(gt_end(&t, CompletionLang::Java, 3), 8);
        // From `void`: up to `{` excluded.
        assert_eq!(gt_end(&t, CompletionLang::Java, 8), 12);
        // From the inner `}`: itself.
        assert_eq!(gt_end(&t, CompletionLang::Java, 13), 14);
    }

    #[test]
    fn every_cut_obeys_the_rule_and_the_seed_decides() {
        let t = toks("import os <EOL> def f ( x ) : <EOL> return os . path ( x ) <EOL> f ( 1 )");
        let all = cuts(&t, CompletionLang::Python, 100, 1, "k");
        let line = t.iter().map(|x| &*x.text).collect::<Vec<_>>().join(" ");
        for c in &all {
            let joined = format!("{} {}", c.input, c.gt);
            assert!(format!("<s> {line}").starts_with(&joined), "{joined}");
            assert!(!c.gt.split(' ').any(|x| x == EOL));
            assert!(!c.gt.is_empty());
            let next = t.get(c.position + c.gt.split(' ').count());
            assert!(next.is_none_or(|x| x.text == EOL), "{c:?}");
        }
        // Positions at an <EOL> (empty gt) and before `)`/`:` alone (trivial) are never cut.
        assert!(all
            .iter()
            .all(|c| c.gt != ")" && c.gt != ":" && c.gt != ") :"));
        assert_eq!(
            cuts(&t, CompletionLang::Python, 3, 1, "k"),
            cuts(&t, CompletionLang::Python, 3, 1, "k")
        );
        assert_ne!(
            cuts(&t, CompletionLang::Python, 3, 1, "k"),
            cuts(&t, CompletionLang::Python, 3, 2, "k")
        );
    }
}
