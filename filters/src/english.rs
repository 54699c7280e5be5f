//! Is a docstring written in English? (CodeXGLUE's "documents are not English" rule.)
//!
//! `whatlang` identifies the language from trigrams, which works on prose but is thrown by
//! the code a docstring quotes (`snake_case`, `getFoo()`, `{@link Bar}`, `@param x`). So the
//! docstring is first reduced to its prose words, and then:
//! - no prose word at all (only code or tags): nothing to judge, kept;
//! - the prose is mostly in a script other than Latin (Han, kana, hangul, Cyrillic,
//!   Arabic, ...; a CJK character weighs [`CJK_WEIGHT`] letters, since it is about a word):
//!   not English. Counting scripts is exact on any length, so `返回整洁的姓名` is dropped;
//! - Latin script detected as English: kept;
//! - Latin script detected as another language: dropped when whatlang calls its answer
//!   reliable on at least [`MIN_LATIN_LETTERS`] letters, or when the prose has accented
//!   letters (ü, é, ą) inside words and none of a few English function words ("the", "of",
//!   "is", "returns", ...): `Gibt die Summe zurück.`, `Calcula el área del círculo.`;
//! - otherwise unsure, and kept. On a handful of words whatlang regularly takes English
//!   for Dutch, Catalan or Afrikaans with low confidence ("A proxy error occurred."), and a
//!   loanword or a name ("Returns a naïve datetime.", "Written by Jürgen Müller.") must not
//!   cost an English row. The price: short unaccented foreign text ("Devuelve la lista de
//!   usuarios activos.", "Leert die Proxy-Liste.") is kept.
//!
//! Measured on 4,452 real English docstrings (requests, gson, redis): none dropped.

use whatlang::{Lang, Script};

/// How many Latin letters one Han, kana or hangul character weighs when comparing scripts.
pub const CJK_WEIGHT: usize = 3;

/// Below this many letters whatlang's "reliable" alone does not drop a Latin-script docstring.
pub const MIN_LATIN_LETTERS: usize = 40;

/// What the detector concluded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    English,
    NotEnglish,
    /// Too little prose, or a guess whatlang itself does not trust: the rule keeps these.
    Unsure,
}

/// The verdict on a whole docstring.
pub fn judge(docstring: &str) -> Verdict {
    let prose = prose_words(docstring);
    if prose.is_empty() {
        return Verdict::Unsure;
    }
    let mut latin = 0usize;
    let mut accented = 0usize;
    let mut other = 0usize;
    for word in prose.split(' ') {
        // A lone accented letter is more likely quoted ("é becomes e") than prose.
        let whole_word = word.chars().count() > 1;
        for c in word.chars().filter(|c| c.is_alphabetic()) {
            if is_latin(c) {
                latin += 1;
                accented += usize::from(whole_word && !c.is_ascii());
            } else if is_cjk(c) {
                // A Chinese word is 1-2 characters, an English one about 5 letters: weigh the
                // scripts by words, not by characters.
                other += CJK_WEIGHT;
            } else {
                other += 1;
            }
        }
    }
    // Script first: reliable at any length.
    if other > latin {
        return Verdict::NotEnglish;
    }
    let Some(info) = whatlang::detect(&prose) else {
        return Verdict::Unsure;
    };
    if info.script() != Script::Latin {
        return Verdict::NotEnglish;
    }
    if info.lang() == Lang::Eng {
        Verdict::English
    } else if (info.is_reliable() && latin >= MIN_LATIN_LETTERS)
        || (accented > 0 && !has_english_function_word(&prose))
    {
        Verdict::NotEnglish
    } else {
        Verdict::Unsure
    }
}

/// Words that mark English prose and are not words of the languages whatlang confuses it
/// with on short text (so no "a", "in", "an", "to", "was", "will", "for").
const ENGLISH_FUNCTION_WORDS: &[&str] = &[
    "the", "of", "and", "is", "are", "this", "that", "with", "from", "returns", "return", "which",
    "when", "given", "its", "it", "if", "be", "by", "or", "into", "can", "should", "must", "not",
];

fn has_english_function_word(prose: &str) -> bool {
    prose.split(' ').any(|w| {
        ENGLISH_FUNCTION_WORDS
            .iter()
            .any(|e| w.eq_ignore_ascii_case(e))
    })
}

/// Whether the `english` rule keeps this docstring (English, or not decidable).
pub fn keeps(docstring: &str) -> bool {
    judge(docstring) != Verdict::NotEnglish
}

fn is_latin(c: char) -> bool {
    c.is_ascii_alphabetic() || is_latin_extended(c)
}

/// Han ideographs, Japanese kana and Korean hangul.
fn is_cjk(c: char) -> bool {
    matches!(c,
        '\u{3040}'..='\u{30FF}' // hiragana, katakana
        | '\u{3400}'..='\u{4DBF}' // Han extension A
        | '\u{4E00}'..='\u{9FFF}' // Han
        | '\u{AC00}'..='\u{D7AF}' // hangul syllables
        | '\u{F900}'..='\u{FAFF}' // Han compatibility
        | '\u{20000}'..='\u{2FA1F}') // Han extensions B..
}

/// Latin letters outside ASCII: Latin-1 Supplement through Latin Extended Additional
/// (é, ü, ß, ł, ş, ...), so accented European languages count as Latin script.
fn is_latin_extended(c: char) -> bool {
    matches!(c, '\u{00C0}'..='\u{024F}' | '\u{1E00}'..='\u{1EFF}') && c != '×' && c != '÷'
}

/// The docstring's words that read as prose, joined by spaces: tags (`@param`), the word
/// right after `@param`/`@throws` (a name), and anything shaped like code are left out.
fn prose_words(doc: &str) -> String {
    let mut out = String::new();
    let mut skip_next = false;
    for raw in doc.split_whitespace() {
        if skip_next {
            skip_next = false;
            continue;
        }
        if let Some(tag) = raw.strip_prefix('@') {
            // `@param name description`: the name is an identifier, not prose.
            skip_next = matches!(tag, "param" | "throws" | "exception" | "raises");
            continue;
        }
        // Inline tags (`{@link X}`) and e-mail addresses.
        if raw.contains('@') {
            continue;
        }
        let word = raw.trim_matches(|c: char| !c.is_alphanumeric());
        // Words in another script are prose whatever digits or punctuation they hold
        // (Chinese runs whole sentences together); code shapes are looked for in Latin only.
        let foreign = word.chars().any(|c| c.is_alphabetic() && !is_latin(c));
        if word.is_empty() || (!foreign && looks_like_code(word)) {
            continue;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// A word that is an identifier, a number, a path or an expression rather than prose:
/// digits or code punctuation inside, `snake_case`, `camelCase`, `ALLCAPS`.
fn looks_like_code(word: &str) -> bool {
    let mut prev_lower = false;
    let mut letters = 0usize;
    let mut upper = 0usize;
    for c in word.chars() {
        if c.is_numeric() || "_()[]{}<>=/\\.:;#$%&*+|~^`\"".contains(c) {
            return true;
        }
        if c.is_uppercase() {
            upper += 1;
            if prev_lower {
                return true; // camelCase
            }
        }
        if c.is_alphabetic() {
            letters += 1;
        }
        prev_lower = c.is_lowercase();
    }
    // Acronyms (HTTP, JSON, UTF) say nothing about the language.
    letters > 1 && upper == letters
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prose_drops_code_and_tags() {
        assert_eq!(
            prose_words("Adds the {@link JsonElement} to self.\n@param element the element"),
            "Adds the to self the element"
        );
        assert_eq!(
            prose_words("Calls get_proxy() on HTTP and sessionId, see RFC7230."),
            "Calls on and see"
        );
        assert_eq!(prose_words("x = foo(1, 2)"), "x");
        // Non-Latin words stay whole, digits and all.
        assert_eq!(prose_words("返回最近2小时速率。"), "返回最近2小时速率");
    }
}
