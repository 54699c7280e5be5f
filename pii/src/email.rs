//! E-mail addresses, by bigcode-dataset's rule (`pii/utils/emails_ip_addresses_detection.py`,
//! `email_pattern`, as of bigcode-project/bigcode-dataset bebec92), written as a scan around
//! each `@` instead of a regex: Rust's regex has no look-around, and the scan is bounded.
//!
//! The pattern, in words:
//! - left delimiter (a look-behind): start of text, whitespace, one of `[({<@,?!;'"¿¡:.`, a
//!   backspace, or a Han character;
//! - local part: characters other than whitespace and ``][(){}<>@,?!;'":#/\=.-``, or one of
//!   `=.-` when not followed by `.` or `@`;
//! - one to ten domain labels, each followed by `.`: one word character, or two to 64
//!   characters of which none is whitespace or `.@?!;,/()>` (nor a backspace), the first
//!   not `-:` and the last not `-:'"`;
//! - a top-level domain of 2 to 63 letters or marks, or `xn--` and word characters;
//! - right delimiter (a look-ahead): end of line, whitespace, one of `])}>@,?!;'"`, a
//!   backspace, a Han character, `\'`, `\"`, `:` not before a digit, or `.` before
//!   whitespace or the end.
//!
//! Bounds: the local part is looked for at most [`MAX_LOCAL`] characters back from the `@`,
//! and a label is at most 64 characters, so each `@` costs a bounded scan.

/// The longest local part looked for (RFC 5321 allows 64 octets; bigcode has no bound).
pub const MAX_LOCAL: usize = 256;
const MAX_LABEL: usize = 64;
const MAX_LABELS: usize = 10;
const MAX_TLD: usize = 63;

/// Han characters (CJK ideographs and radicals), which bigcode's pattern (`\p{Han}`) takes
/// as delimiters.
fn is_han(c: char) -> bool {
    matches!(c as u32,
        0x2E80..=0x2FDF | 0x3005 | 0x3007 | 0x3021..=0x3029 | 0x3038..=0x303B
        | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF
        | 0x20000..=0x2A6DF | 0x2A700..=0x2EBEF | 0x2F800..=0x2FA1F | 0x30000..=0x3134F)
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

fn local_char(c: char, next: Option<char>) -> bool {
    if c.is_whitespace() {
        return false;
    }
    match c {
        '=' | '.' | '-' => !matches!(next, Some('.') | Some('@')),
        ']' | '[' | '(' | ')' | '{' | '}' | '<' | '>' | '\u{8}' | '@' | ',' | '?' | '!' | ';'
        | '\'' | '"' | ':' | '#' | '/' | '\\' => false,
        _ => true,
    }
}

fn left_delimiter(c: char) -> bool {
    c.is_whitespace()
        || is_han(c)
        || matches!(
            c,
            '[' | '('
                | '{'
                | '<'
                | '\u{8}'
                | '@'
                | ','
                | '?'
                | '!'
                | ';'
                | '\''
                | '"'
                | '¿'
                | '¡'
                | ':'
                | '.'
        )
}

/// Characters no domain label holds anywhere.
fn label_stop(c: char) -> bool {
    c.is_whitespace()
        || matches!(
            c,
            '.' | '\u{8}' | '@' | '?' | '!' | ';' | ',' | '/' | '(' | ')' | '>'
        )
}

fn right_delimiter(text: &str, at: usize) -> bool {
    let mut rest = text[at..].chars();
    let Some(c) = rest.next() else {
        return true;
    };
    let next = rest.next();
    c.is_whitespace()
        || is_han(c)
        || matches!(
            c,
            ']' | ')' | '}' | '>' | '\u{8}' | '@' | ',' | '?' | '!' | ';' | '\'' | '"'
        )
        || (c == '\\' && matches!(next, Some('\'') | Some('"')))
        || (c == ':' && !next.is_some_and(|n| n.is_numeric()))
        || (c == '.' && next.is_none_or(char::is_whitespace))
}

/// The e-mail address whose `@` is at byte `at` of `text`, as `(start, end)` byte offsets,
/// starting no earlier than `floor` (where the previous address ended: bigcode's matches do
/// not overlap).
pub fn around(text: &str, at: usize, floor: usize) -> Option<(usize, usize)> {
    let start = local_start(text, at, floor)?;
    let end = domain_end(text, at + 1)?;
    Some((start, end))
}

/// The leftmost start of a local part ending at `at` whose left delimiter holds.
fn local_start(text: &str, at: usize, floor: usize) -> Option<usize> {
    let before = &text[floor..at];
    let mut next = Some('@');
    let mut best = None;
    for (taken, (i, c)) in before.char_indices().rev().enumerate() {
        if taken >= MAX_LOCAL || !local_char(c, next) {
            break;
        }
        let pos = floor + i;
        let delimited = text[..pos].chars().next_back().is_none_or(left_delimiter);
        if delimited {
            best = Some(pos);
        }
        next = Some(c);
    }
    best
}

fn valid_label(label: &str) -> bool {
    let mut chars = label.chars();
    let (Some(first), last) = (chars.next(), label.chars().next_back()) else {
        return false;
    };
    if label.chars().nth(1).is_none() {
        return is_word(first);
    }
    let last = last.unwrap_or(first);
    !matches!(first, '-' | ':') && !matches!(last, '-' | ':' | '\'' | '"')
}

/// The end of the domain that starts at byte `from` (just after the `@`), if there is one.
fn domain_end(text: &str, from: usize) -> Option<usize> {
    // Where each label's following `.` ends, i.e. where the next label or the TLD starts.
    let mut label_ends: Vec<usize> = Vec::with_capacity(4);
    let mut pos = from;
    while label_ends.len() < MAX_LABELS {
        let rest = &text[pos..];
        let mut len = rest.len();
        for (count, (i, c)) in rest.char_indices().enumerate() {
            if label_stop(c) || count > MAX_LABEL {
                len = i;
                break;
            }
        }
        if !rest[len..].starts_with('.') || !valid_label(&rest[..len]) {
            break;
        }
        pos += len + 1;
        label_ends.push(pos);
    }
    // Most labels first, as the greedy `{1,10}` tries them.
    label_ends.iter().rev().find_map(|&tld| tld_end(text, tld))
}

/// The end of a top-level domain at `start` followed by a right delimiter, longest first.
fn tld_end(text: &str, start: usize) -> Option<usize> {
    let rest = &text[start..];
    let mut ends = Vec::with_capacity(8);
    for (count, (i, c)) in rest.char_indices().enumerate() {
        if count >= MAX_TLD || !(c.is_alphabetic() || is_mark(c)) {
            break;
        }
        ends.push(start + i + c.len_utf8());
    }
    // `[\p{L}\p{M}]{2,63}`: the second end onwards, longest first.
    if let Some(end) = ends
        .iter()
        .skip(1)
        .rev()
        .find(|&&e| right_delimiter(text, e))
    {
        return Some(*end);
    }
    // `xn--\w+`: a punycode TLD.
    let puny = rest.strip_prefix("xn--")?;
    let mut end = None;
    for (i, c) in puny.char_indices() {
        if !is_word(c) {
            break;
        }
        let e = start + 4 + i + c.len_utf8();
        if right_delimiter(text, e) {
            end = Some(e);
        }
    }
    end
}

/// Combining marks (`\p{M}`), approximately: the combining blocks and the Indic vowel signs
/// that `char::is_alphabetic` does not already take.
fn is_mark(c: char) -> bool {
    matches!(c as u32, 0x0300..=0x036F | 0x0483..=0x0489 | 0x0591..=0x05BD | 0x064B..=0x065F
        | 0x093C | 0x094D | 0x0951..=0x0957 | 0x1AB0..=0x1AFF | 0x1DC0..=0x1DFF
        | 0x20D0..=0x20FF | 0xFE20..=0xFE2F)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn find(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        let mut floor = 0;
        for (at, _) in text.match_indices('@') {
            if at < floor {
                continue;
            }
            if let Some((s, e)) = around(text, at, floor) {
                out.push(&text[s..e]);
                floor = e;
            }
        }
        out
    }

    #[test]
    fn delimiters() {
        assert_eq!(
            find("mail me at jane.doe@mail.example.org."),
            ["jane.doe@mail.example.org"]
        );
        assert_eq!(find("<jane@corp.io>"), ["jane@corp.io"]);
        assert_eq!(find("x='jane@corp.io'"), ["jane@corp.io"]);
        assert_eq!(find("git@github.com:org/repo.git"), ["git@github.com"]);
        assert_eq!(find("host@corp.io:8080"), Vec::<&str>::new());
        assert_eq!(find("@property"), Vec::<&str>::new());
        assert_eq!(find("user@localhost"), Vec::<&str>::new());
        assert_eq!(find("lodash@4.17.21"), Vec::<&str>::new());
        // Expected values: bigcode's `email_pattern` run on the same strings.
        assert_eq!(find("a=b@c.de"), ["a=b@c.de"]);
        assert_eq!(find("邮件jane@corp.io中"), ["邮件jane@corp.io中"]);
        assert_eq!(find("(a@b.cd)"), ["a@b.cd"]);
        assert_eq!(find("x\\\"a@b.cd\\\""), ["a@b.cd"]);
    }
}
