//! The Porter stemmer exactly as NLTK's `PorterStemmer()` runs it (its default
//! `NLTK_EXTENSIONS` mode), which `rouge-score` (`use_stemmer=True`) and NLTK's METEOR use.
//!
//! NLTK's extensions to Porter (1980): a small table of irregular forms (`skies` → `sky`,
//! `dying` → `die`, ...), words of at most two characters returned unchanged, `ies`/`ied`
//! on four-letter words, `y` → `i` only after a consonant that is not the first letter,
//! `alli` → `al` before step 2, `fulli` and `logi` rules, and a two-letter `cvc` case. The
//! stemmer works on Unicode code points, as Python strings do: only `a e i o u` are vowels;
//! every other character (digits and punctuation too) counts as a consonant.
//!
//! ```
//! use codemine_eval::porter::stem;
//! assert_eq!(stem("connections"), "connect");
//! assert_eq!(stem("skies"), "sky");
//! assert_eq!(stem("generously"), "gener");
//! ```

/// Stems one word (lowercased first, as `PorterStemmer.stem(word)` does).
pub fn stem(word: &str) -> String {
    let lower = crate::pytext::py_lower(word);
    if let Some(s) = irregular(&lower) {
        return s.to_string();
    }
    // NLTK tests the length of the word as given, before lowercasing.
    if word.chars().count() <= 2 {
        return lower;
    }
    let mut w: Vec<char> = lower.chars().collect();
    step1a(&mut w);
    step1b(&mut w);
    step1c(&mut w);
    step2(&mut w);
    step3(&mut w);
    step4(&mut w);
    step5a(&mut w);
    step5b(&mut w);
    w.into_iter().collect()
}

fn irregular(w: &str) -> Option<&'static str> {
    Some(match w {
        "sky" | "skies" => "sky",
        "dying" => "die",
        "lying" => "lie",
        "tying" => "tie",
        "news" => "news",
        "innings" | "inning" => "inning",
        "outings" | "outing" => "outing",
        "cannings" | "canning" => "canning",
        "howe" => "howe",
        "proceed" => "proceed",
        "exceed" => "exceed",
        "succeed" => "succeed",
        _ => return None,
    })
}

fn is_vowel(c: char) -> bool {
    matches!(c, 'a' | 'e' | 'i' | 'o' | 'u')
}

/// `_is_consonant(word, i)`.
fn is_consonant(w: &[char], mut i: usize) -> bool {
    if is_vowel(w[i]) {
        return false;
    }
    if w[i] == 'y' {
        let mut negate = false;
        while i > 0 && w[i] == 'y' {
            negate = !negate;
            i -= 1;
        }
        return is_vowel(w[i]) == negate;
    }
    true
}

/// `_consonant_flags(word)`.
fn consonant_flags(w: &[char]) -> Vec<bool> {
    let mut flags: Vec<bool> = Vec::with_capacity(w.len());
    for (i, &c) in w.iter().enumerate() {
        let f = if is_vowel(c) {
            false
        } else if c == 'y' {
            i == 0 || !flags[i - 1]
        } else {
            true
        };
        flags.push(f);
    }
    flags
}

/// `_measure(stem)`: the number of `vc` pairs in the consonant/vowel pattern.
fn measure(w: &[char]) -> usize {
    let flags = consonant_flags(w);
    flags.windows(2).filter(|p| !p[0] && p[1]).count()
}

fn contains_vowel(w: &[char]) -> bool {
    !consonant_flags(w).iter().all(|&c| c)
}

fn ends_double_consonant(w: &[char]) -> bool {
    let n = w.len();
    n >= 2 && w[n - 1] == w[n - 2] && is_consonant(w, n - 1)
}

fn ends_cvc(w: &[char]) -> bool {
    let n = w.len();
    (n >= 3
        && is_consonant(w, n - 3)
        && !is_consonant(w, n - 2)
        && is_consonant(w, n - 1)
        && !matches!(w[n - 1], 'w' | 'x' | 'y'))
        || (n == 2 && !is_consonant(w, 0) && is_consonant(w, 1))
}

fn ends_with(w: &[char], suffix: &str) -> bool {
    let n = suffix.chars().count();
    w.len() >= n && w[w.len() - n..].iter().copied().eq(suffix.chars())
}

/// Replaces the last `n` characters with `replacement`.
fn replace_tail(w: &mut Vec<char>, n: usize, replacement: &str) {
    w.truncate(w.len() - n);
    w.extend(replacement.chars());
}

/// The condition of a rule, evaluated on the stem left after removing the suffix (and, for
/// the conditions that NLTK writes with the whole word, on the word).
#[derive(Clone, Copy)]
enum Cond {
    None,
    PositiveMeasure,
    MeasureGt1,
    /// step 4 `ion`: measure > 1 and the stem ends in `s` or `t`.
    Ion,
    /// step 2 `logi` (NLTK): positive measure of the word without its last three letters.
    Logi,
    /// step 5b `ll`: measure of the word without its last letter > 1.
    Ll,
    /// step 1b `*d`: the letter before the suffix is not `l`, `s` or `z`.
    NotLsz(char),
    /// step 1b `e`: measure 1 and ends cvc.
    Measure1Cvc,
    /// step 1c `y` (NLTK): longer than one letter and ends in a consonant.
    LongerThan1Consonant,
}

impl Cond {
    fn holds(self, stem: &[char], word: &[char]) -> bool {
        match self {
            Cond::None => true,
            Cond::PositiveMeasure => measure(stem) > 0,
            Cond::MeasureGt1 => measure(stem) > 1,
            Cond::Ion => measure(stem) > 1 && matches!(stem.last(), Some('s' | 't')),
            Cond::Logi => measure(&word[..word.len().saturating_sub(3)]) > 0,
            Cond::Ll => measure(&word[..word.len().saturating_sub(1)]) > 1,
            Cond::NotLsz(c) => !matches!(c, 'l' | 's' | 'z'),
            Cond::Measure1Cvc => measure(stem) == 1 && ends_cvc(stem),
            Cond::LongerThan1Consonant => stem.len() > 1 && is_consonant(stem, stem.len() - 1),
        }
    }
}

/// `_apply_rule_list`: the first rule whose suffix the word ends with decides (applied when
/// its condition holds, else the word is returned unchanged). The suffix `*d` stands for a
/// double consonant; when the word does not end in one, NLTK still compares the literal
/// `*d` with the word's end, and so does this.
fn apply_rules(w: &mut Vec<char>, rules: &[(&str, &str, Cond)]) {
    for &(suffix, replacement, cond) in rules {
        if suffix == "*d" && ends_double_consonant(w) {
            let stem = &w[..w.len() - 2];
            if cond.holds(stem, w) {
                replace_tail(w, 2, replacement);
            }
            return;
        }
        if ends_with(w, suffix) {
            let n = suffix.chars().count();
            let stem = &w[..w.len() - n];
            if cond.holds(stem, w) {
                replace_tail(w, n, replacement);
            }
            return;
        }
    }
}

fn step1a(w: &mut Vec<char>) {
    if ends_with(w, "ies") && w.len() == 4 {
        replace_tail(w, 3, "ie");
        return;
    }
    apply_rules(
        w,
        &[
            ("sses", "ss", Cond::None),
            ("ies", "i", Cond::None),
            ("ss", "ss", Cond::None),
            ("s", "", Cond::None),
        ],
    );
}

fn step1b(w: &mut Vec<char>) {
    if ends_with(w, "ied") {
        let r = if w.len() == 4 { "ie" } else { "i" };
        replace_tail(w, 3, r);
        return;
    }
    if ends_with(w, "eed") {
        if measure(&w[..w.len() - 3]) > 0 {
            replace_tail(w, 3, "ee");
        }
        return;
    }
    let mut cut = None;
    for suffix in ["ed", "ing"] {
        if ends_with(w, suffix) {
            let n = suffix.len();
            if contains_vowel(&w[..w.len() - n]) {
                cut = Some(n);
                break;
            }
        }
    }
    let Some(n) = cut else { return };
    w.truncate(w.len() - n);
    // The `*d` rule keeps the intermediate stem's last letter; an empty intermediate stem
    // cannot happen (it contains a vowel).
    let last = w.last().copied().unwrap_or(' ');
    let last_s = last.to_string();
    apply_rules(
        w,
        &[
            ("at", "ate", Cond::None),
            ("bl", "ble", Cond::None),
            ("iz", "ize", Cond::None),
            ("*d", &last_s, Cond::NotLsz(last)),
            ("", "e", Cond::Measure1Cvc),
        ],
    );
}

fn step1c(w: &mut Vec<char>) {
    apply_rules(w, &[("y", "i", Cond::LongerThan1Consonant)]);
}

fn step2(w: &mut Vec<char>) {
    use Cond::PositiveMeasure as P;
    // NLTK: `alli` → `al` first when the measure allows, then step 2 again on the result
    // (which ends in `al`, so the `alli` test cannot fire twice).
    if ends_with(w, "alli") && measure(&w[..w.len() - 4]) > 0 {
        replace_tail(w, 4, "al");
    }
    apply_rules(
        w,
        &[
            ("ational", "ate", P),
            ("tional", "tion", P),
            ("enci", "ence", P),
            ("anci", "ance", P),
            ("izer", "ize", P),
            ("bli", "ble", P),
            ("alli", "al", P),
            ("entli", "ent", P),
            ("eli", "e", P),
            ("ousli", "ous", P),
            ("ization", "ize", P),
            ("ation", "ate", P),
            ("ator", "ate", P),
            ("alism", "al", P),
            ("iveness", "ive", P),
            ("fulness", "ful", P),
            ("ousness", "ous", P),
            ("aliti", "al", P),
            ("iviti", "ive", P),
            ("biliti", "ble", P),
            ("fulli", "ful", P),
            ("logi", "log", Cond::Logi),
        ],
    );
}

fn step3(w: &mut Vec<char>) {
    use Cond::PositiveMeasure as P;
    apply_rules(
        w,
        &[
            ("icate", "ic", P),
            ("ative", "", P),
            ("alize", "al", P),
            ("iciti", "ic", P),
            ("ical", "ic", P),
            ("ful", "", P),
            ("ness", "", P),
        ],
    );
}

fn step4(w: &mut Vec<char>) {
    use Cond::MeasureGt1 as M;
    apply_rules(
        w,
        &[
            ("al", "", M),
            ("ance", "", M),
            ("ence", "", M),
            ("er", "", M),
            ("ic", "", M),
            ("able", "", M),
            ("ible", "", M),
            ("ant", "", M),
            ("ement", "", M),
            ("ment", "", M),
            ("ent", "", M),
            ("ion", "", Cond::Ion),
            ("ou", "", M),
            ("ism", "", M),
            ("ate", "", M),
            ("iti", "", M),
            ("ous", "", M),
            ("ive", "", M),
            ("ize", "", M),
        ],
    );
}

fn step5a(w: &mut Vec<char>) {
    if ends_with(w, "e") {
        let stem = &w[..w.len() - 1];
        let m = measure(stem);
        if m > 1 || (m == 1 && !ends_cvc(stem)) {
            w.pop();
        }
    }
}

fn step5b(w: &mut Vec<char>) {
    apply_rules(w, &[("ll", "l", Cond::Ll)]);
}

#[cfg(test)]
mod tests {
    use super::stem;

    #[test]
    fn known_stems() {
        for (w, s) in [
            ("caresses", "caress"),
            ("ponies", "poni"),
            ("ties", "tie"),
            ("dying", "die"),
            ("hopping", "hop"),
            ("filing", "file"),
            ("happy", "happi"),
            ("relational", "relat"),
            ("a", "a"),
            ("Running", "run"),
        ] {
            assert_eq!(stem(w), s, "{w}");
        }
    }
}
