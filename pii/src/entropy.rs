//! How random a value looks, and detect-secrets' heuristic filters of values that are not
//! secrets (`detect_secrets/filters/heuristic.py` and `plugins/high_entropy_strings.py`
//! of detect-secrets 1.5.0): Shannon entropy over the base64 and hex charsets, sequential
//! strings, UUIDs, templates. Every function here is one pass over its (bounded) value.

/// Shannon entropy in bits per character of the ASCII bytes of `value`
/// (detect-secrets' `calculate_shannon_entropy`, which counts only the charset's
/// characters: callers pass values made of the charset only).
pub fn shannon(value: &str) -> f64 {
    let bytes = value.as_bytes();
    if bytes.is_empty() {
        return 0.0;
    }
    let mut counts = [0u32; 256];
    for &b in bytes {
        counts[b as usize] += 1;
    }
    let n = bytes.len() as f64;
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = c as f64 / n;
            -p * p.log2()
        })
        .sum()
}

/// detect-secrets' Base64 charset: letters, digits, `+/`, `-_` (URL-safe) and `=`.
pub fn is_base64_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'-' | b'_' | b'=')
}

/// Hex entropy as detect-secrets' `HexHighEntropyString` computes it: all-digit strings
/// lose `1.2 / log2(len)` bits, since numbers are rarely secrets.
pub fn hex_entropy(value: &str) -> f64 {
    let mut e = shannon(value);
    let len = value.len();
    if len > 1 && value.bytes().all(|b| b.is_ascii_digit()) {
        e -= 1.2 / (len as f64).log2();
    }
    e
}

/// Whether a value assigned to a secret-like name looks random enough to be a key: at
/// least 12 characters, all of the base64 charset (or `.`), and an entropy over the limit.
/// detect-secrets' limits are 3.0 (hex) and 4.5 (base64) for strings of any length, which
/// no string shorter than 23 characters can reach in base64; codemine lowers the base64
/// limit for shorter values to `log2(len) - 0.75` (a random 16-character key has about
/// 3.8 bits, an English word or an identifier of that length about 3.0-3.4).
pub fn looks_random(value: &str) -> bool {
    let len = value.len();
    if len < 12 || !value.bytes().all(|b| is_base64_char(b) || b == b'.') || is_snake_name(value) {
        return false;
    }
    if value.bytes().all(|b| b.is_ascii_hexdigit()) {
        return len >= 16 && hex_entropy(value) > 3.0;
    }
    let limit = ((len as f64).log2() - 0.75).min(4.5);
    shannon(value) > limit
}

/// A `snake_case` or `SCREAMING_SNAKE` name (letters of one case joined by `_`, `-` or
/// `.`, no digit): an identifier or a constant's name, such as gson's `"BEGIN_OBJECT"`
/// passed to `unexpectedTokenError(...)`, whose entropy (3.25 bits over 12 characters)
/// is over the short-value limit. A random key of that shape is rare: with a separator and
/// no digit in one case it has given up most of its alphabet.
fn is_snake_name(value: &str) -> bool {
    let b = value.as_bytes();
    let separated = b.iter().any(|&c| matches!(c, b'_' | b'-' | b'.'));
    let one_case = b
        .iter()
        .all(|&c| c.is_ascii_uppercase() || matches!(c, b'_' | b'-' | b'.'))
        || b.iter()
            .all(|&c| c.is_ascii_lowercase() || matches!(c, b'_' | b'-' | b'.'));
    separated && one_case
}

/// detect-secrets' `is_sequential_string`: the value (case-folded) is a run of one of
/// a few alphabets, such as `abcdef`, `123456`, `ABCDEF0123`.
pub fn is_sequential(value: &str) -> bool {
    const SEQUENCES: [&str; 6] = [
        "ABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+/",
        "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFGHIJKLMNOPQRSTUVWXYZ+/",
        "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ",
        "01234567890123456789",
        "0123456789ABCDEF0123456789ABCDEF",
        "ABCDEFGHIJKLMNOPQRSTUVWXYZ=/",
    ];
    if value.len() > 80 {
        return false;
    }
    let upper = value.to_ascii_uppercase();
    SEQUENCES.iter().any(|s| s.contains(upper.as_str()))
}

/// detect-secrets' `is_potential_uuid`: the value holds a UUID (8-4-4-4-12 hex digits).
pub fn contains_uuid(value: &str) -> bool {
    const GROUPS: [usize; 5] = [8, 4, 4, 4, 12];
    let b = value.as_bytes();
    if b.len() < 36 {
        return false;
    }
    (0..=b.len() - 36).any(|start| {
        let mut i = start;
        GROUPS.iter().enumerate().all(|(g, &n)| {
            let ok = b[i..i + n].iter().all(u8::is_ascii_hexdigit) && (g == 4 || b[i + n] == b'-');
            i += n + 1;
            ok
        })
    })
}

/// detect-secrets' `is_templated_secret` and `is_prefixed_with_dollar_sign`: `{x}`,
/// `<x>`, `${x}`, `$X`, or a single character; codemine adds printf and Python format
/// placeholders (`%s`, `%(name)s`, `{}`).
pub fn is_template(value: &str) -> bool {
    let b = value.as_bytes();
    let (Some(&first), Some(&last)) = (b.first(), b.last()) else {
        return true;
    };
    b.len() == 1
        || (first == b'{' && last == b'}')
        || (first == b'<' && last == b'>')
        || first == b'$'
        || (first == b'%' && b.len() <= 16)
}

/// detect-secrets' `is_not_alphanumeric_string`: a secret has at least one ASCII letter.
pub fn has_no_letter(value: &str) -> bool {
    !value.bytes().any(|b| b.is_ascii_alphabetic())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entropy_of_known_strings() {
        // One symbol: 0 bits; two equally frequent: 1 bit; 16 distinct: 4 bits.
        assert_eq!(shannon("aaaa"), 0.0);
        assert!((shannon("abab") - 1.0).abs() < 1e-12);
        assert!((shannon("0123456789abcdef") - 4.0).abs() < 1e-12);
        // detect-secrets' hex adjustment: all digits lose 1.2 / log2(len).
        assert!(
            (hex_entropy("0123456789012345") - (shannon("0123456789012345") - 0.3)).abs() < 1e-12
        );
    }

    #[test]
    fn heuristics() {
        assert!(is_sequential("abcdefgh"));
        assert!(is_sequential("123456"));
        assert!(!is_sequential("a8Fk2mQ9"));
        assert!(contains_uuid("id-123e4567-e89b-12d3-a456-426614174000"));
        assert!(!contains_uuid("123e4567e89b12d3a456426614174000"));
        assert!(is_template("{password}") && is_template("<token>") && is_template("${PASS}"));
        assert!(is_template("$PASSWORD") && is_template("%s") && is_template("x"));
        assert!(!is_template("hunter22"));
        assert!(has_no_letter("********") && !has_no_letter("a*******"));
    }

    #[test]
    fn randomness() {
        assert!(looks_random("9jnerlff23u8ed01np9g6ysbhsh0dvcs"));
        assert!(looks_random("Zx81Kp2Qm4Lr7Tn0"));
        assert!(!looks_random("my_secret_value_here"));
        assert!(!looks_random("short1A"));
        assert!(!looks_random("with spaces in it ok"));
        // Names: over the entropy limit of their length, but identifiers.
        assert!(shannon("BEGIN_OBJECT") > (12f64).log2() - 0.75);
        assert!(!looks_random("BEGIN_OBJECT"));
        assert!(!looks_random("max-retry-count"));
        // A separator does not make a key a name when it has digits or both cases.
        assert!(looks_random("Zx81_Kp2Qm4Lr7Tn0"));
        assert!(looks_random("kQ_wZ-jdMfpXtaLb"));
    }
}
