//! Canonical spellings of literal tokens for dedup: two spellings of one value that
//! formatters and style changes swap (`'abc'` / `"abc"`, `B"x"` / `b"x"`, `0XFF` / `0xff`,
//! `1_000` / `1000`, `1L` / `1l`) become one token, so that they do not hide a copy. Only the
//! dedup tokens change; `code_tokens` keep the source's spelling. Each language picks the
//! rules that hold for it (see [`Spelling`]): in C a `'a'` is a character, not a string, so
//! only Python's quotes are normalised.

use std::borrow::Cow;

/// The literal rules of a language.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spelling {
    /// Python: string prefixes (case, order, `u`) and quotes (`'`, `"`, `'''`, `"""`), and
    /// numbers with `_` separators.
    Python,
    /// Java, Go, JavaScript and the like: numbers with `_` separators.
    UnderscoreDigits,
    /// C and C++: numbers (C23 and C++14 separate digits with `'`).
    QuoteDigits,
}

/// The canonical spelling of `token` under `spelling` (the token itself when it is not a
/// literal the rules cover).
pub fn canonical(token: &str, spelling: Spelling) -> Cow<'_, str> {
    match spelling {
        Spelling::Python => python_string(token)
            .or_else(|| number(token, '_'))
            .map_or(Cow::Borrowed(token), Cow::Owned),
        Spelling::UnderscoreDigits => number(token, '_').map_or(Cow::Borrowed(token), Cow::Owned),
        Spelling::QuoteDigits => number(token, '\'').map_or(Cow::Borrowed(token), Cow::Owned),
    }
}

/// A numeric literal (it starts with a digit, or a dot and a digit) in lower case (hex
/// digits, `0x`/`0b`/`0o`, exponents and suffixes are case-blind) without digit separators.
/// `None` when the token is not a number or is already canonical.
fn number(token: &str, separator: char) -> Option<String> {
    let b = token.as_bytes();
    let starts = match b {
        [d, ..] if d.is_ascii_digit() => true,
        [b'.', d, ..] => d.is_ascii_digit(),
        _ => false,
    };
    if !starts
        || !token
            .bytes()
            .any(|c| c.is_ascii_uppercase() || c == separator as u8)
    {
        return None;
    }
    Some(
        token
            .chars()
            .filter(|&c| c != separator)
            .map(|c| c.to_ascii_lowercase())
            .collect(),
    )
}

/// A Python string literal as `{prefix}"{body}"`: the prefix letters in lower case, sorted,
/// without `u` (a no-op since Python 3); any of the four quotes as `"`; an escaped quote
/// (`\'`, `\"`) as the bare quote, since changing the quotes changes which one needs the
/// backslash. `None` when the token is not a string literal.
fn python_string(token: &str) -> Option<String> {
    let quote_at = token.find(['\'', '"'])?;
    let (prefix, rest) = token.split_at(quote_at);
    if prefix.len() > 2
        || !prefix
            .chars()
            .all(|c| matches!(c.to_ascii_lowercase(), 'r' | 'b' | 'u' | 'f'))
    {
        return None;
    }
    let q = if rest.starts_with("\"\"\"") || rest.starts_with("'''") {
        &rest[..3]
    } else {
        &rest[..1]
    };
    if rest.len() < 2 * q.len() || !rest.ends_with(q) {
        return None;
    }
    let body = &rest[q.len()..rest.len() - q.len()];
    let mut letters: Vec<char> = prefix
        .chars()
        .map(|c| c.to_ascii_lowercase())
        .filter(|&c| c != 'u')
        .collect();
    letters.sort_unstable();
    let mut out = String::with_capacity(token.len());
    out.extend(letters);
    out.push('"');
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some(q @ ('\'' | '"')) => out.push(q),
            Some(next) => {
                out.push('\\');
                out.push(next);
            }
            None => out.push('\\'),
        }
    }
    out.push('"');
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn py(t: &str) -> String {
        canonical(t, Spelling::Python).into_owned()
    }

    #[test]
    fn python_spellings_of_one_string_meet() {
        for t in [
            "'abc'",
            "\"abc\"",
            "'''abc'''",
            "\"\"\"abc\"\"\"",
            "u'abc'",
            "U\"abc\"",
        ] {
            assert_eq!(py(t), "\"abc\"", "{t}");
        }
        assert_eq!(py("b'abc'"), py("B\"abc\""));
        assert_eq!(py("Rb'q'"), py("br\"q\""));
        assert_eq!(py("'it\\'s'"), py("\"it's\""));
        assert_eq!(py("'say \"hi\"'"), py("\"say \\\"hi\\\"\""));
        assert_eq!(py("f'{x}'"), "f\"{x}\"");
        // What is not the same value stays apart.
        assert_ne!(py("b'abc'"), py("'abc'"));
        assert_ne!(py("'a\\nb'"), py("'a\nb'"));
        assert_eq!(py("'a\\\\'"), "\"a\\\\\"");
        // Not strings: identifiers, keywords, punctuation.
        for t in ["rb", "abc", "(", "''x", "bu"] {
            assert_eq!(py(t), t, "{t}");
        }
    }

    #[test]
    fn numbers_lose_case_and_separators() {
        assert_eq!(py("0XFF"), "0xff");
        assert_eq!(py("1_000"), "1000");
        assert_eq!(py("1E5"), "1e5");
        assert_eq!(py("x_1"), "x_1");
        assert_eq!(canonical("0XFFUL", Spelling::QuoteDigits), "0xfful");
        assert_eq!(canonical("1'000", Spelling::QuoteDigits), "1000");
        assert_eq!(canonical("'a'", Spelling::QuoteDigits), "'a'");
        assert_eq!(canonical("1_000L", Spelling::UnderscoreDigits), "1000l");
        assert_eq!(canonical(".5F", Spelling::UnderscoreDigits), ".5f");
        assert_eq!(canonical("_1", Spelling::UnderscoreDigits), "_1");
    }
}
