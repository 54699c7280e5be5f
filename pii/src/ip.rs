//! IP addresses, and which of them are personal data.
//!
//! A candidate is what [`CANDIDATE_V4`] matches (four dotted decimal numbers) or what
//! [`v6_candidates`] finds (hex groups with `::` or eight groups), standing alone: no word character or `.` before an IPv4
//! address, no word character or `:` around an IPv6 one, and no `.digit` after an IPv4 one
//! (so `1.2.3.4.5` is a version, not an address). It must parse as an address (std's
//! parsers: no leading zeros, as Python's `ipaddress` since 3.9.5).
//!
//! Then bigcode-dataset's rules (`pii/utils/emails_ip_addresses_detection.py` and
//! `pii/pii_redaction.py` at bebec92) decide which addresses are not personal data:
//! - an IPv6 address without a decimal digit (`ip_has_digit`: `dead::beef` is C++);
//! - `x.x.x.x` of single digits (`filter_versions`: seven characters, three dots), unless
//!   `dns` or `server` is written within 100 bytes around it;
//! - addresses Python's `ipaddress` calls private (`is_private`, Python 3.11): `0/8`,
//!   `10/8`, `127/8`, `169.254/16`, `172.16/12`, `192.0.0/29`, `192.0.2/24`, `192.168/16`,
//!   `198.18/15`, `198.51.100/24`, `203.0.113/24`, `240/4`, `255.255.255.255`; `::1`,
//!   `::`, `::ffff:0:0/96`, `100::/64`, `2001::/23`, `2001:db8::/32`, `fc00::/7`,
//!   `fe80::/10`;
//! - fourteen well-known public DNS resolvers (`POPULAR_DNS_SERVERS`: 8.8.8.8, 1.1.1.1, ...).
//!
//! codemine adds, on purpose:
//! - `100.64/10` (carrier-grade NAT), all of `192.0.0/24`, `224/4` (multicast): shared or
//!   group addresses, not anyone's;
//! - an IPv6 address outside `2000::/3` (the only global unicast block: the rest is reserved,
//!   unique-local, link-local or multicast), which also keeps Python slices such as `a[1::2]`
//!   out; and a compressed IPv6 address needs three groups (`2000::3` is a slice too);
//! - a version: an address right after the word `version`, `ver`, `release`, `rev`,
//!   `build` or `v` (and up to four of ` =:'"(`), such as `__version__ = "10.0.19041.1"`
//!   or RCS's `$Id: lapi.c,v 2.55.1.5 ...`.
//!
//! bigcode's own pattern takes its delimiters as part of the match, so it misses addresses
//! inside parentheses, after `/` (`http://93.184.216.34/`) or right after another address;
//! codemine's stand-alone rule finds those.

use std::net::{Ipv4Addr, Ipv6Addr};

/// The IPv4 candidate pattern (one regex pass over the text finds every candidate).
pub const CANDIDATE_V4: &str = r"[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}";

fn is_hex_or_colon(b: u8) -> bool {
    b.is_ascii_hexdigit() || b == b':'
}

/// IPv6 candidates, from each `:` of the text (found with memchr): the run of hex digits
/// and colons around it (at most 39 bytes each way), an embedded IPv4 tail and a `%zone`,
/// kept when it has `::` or seven colons. Each byte is looked at a bounded number of times:
/// the colons inside a candidate are skipped.
pub fn v6_candidates(text: &str, out: &mut Vec<(usize, usize)>) {
    let b = text.as_bytes();
    let mut done = 0;
    for c in memchr::memchr_iter(b':', b) {
        if c < done {
            continue;
        }
        let mut start = c;
        while start > 0 && c - start < 39 && is_hex_or_colon(b[start - 1]) {
            start -= 1;
        }
        let mut end = c + 1;
        while end < b.len() && end - c < 45 && (is_hex_or_colon(b[end]) || b[end] == b'.') {
            end += 1;
        }
        while end > c + 1 && b[end - 1] == b'.' {
            end -= 1;
        }
        if b.get(end) == Some(&b'%') {
            let zone = b[end + 1..]
                .iter()
                .take(16)
                .take_while(|x| x.is_ascii_alphanumeric())
                .count();
            if zone > 0 {
                end += 1 + zone;
            }
        }
        done = end;
        let cand = &b[start..end];
        let colons = cand.iter().filter(|&&x| x == b':').count();
        if cand.windows(2).any(|w| w == b"::") || colons == 7 {
            out.push((start, end));
        }
    }
}

/// bigcode-dataset's `POPULAR_DNS_SERVERS` (pii/pii_redaction.py).
const DNS_SERVERS: [[u8; 4]; 14] = [
    [8, 8, 8, 8],
    [8, 8, 4, 4],
    [1, 1, 1, 1],
    [1, 0, 0, 1],
    [76, 76, 19, 19],
    [76, 223, 122, 150],
    [9, 9, 9, 9],
    [149, 112, 112, 112],
    [208, 67, 222, 222],
    [208, 67, 220, 220],
    [8, 26, 56, 26],
    [8, 20, 247, 20],
    [94, 140, 14, 14],
    [94, 140, 15, 15],
];

/// IPv4 blocks that are not anyone's address: (first address, prefix length).
const V4_NOT_PERSONAL: [([u8; 4], u8); 16] = [
    ([0, 0, 0, 0], 8),
    ([10, 0, 0, 0], 8),
    ([100, 64, 0, 0], 10),
    ([127, 0, 0, 0], 8),
    ([169, 254, 0, 0], 16),
    ([172, 16, 0, 0], 12),
    ([192, 0, 0, 0], 24),
    ([192, 0, 2, 0], 24),
    ([192, 168, 0, 0], 16),
    ([198, 18, 0, 0], 15),
    ([198, 51, 100, 0], 24),
    ([203, 0, 113, 0], 24),
    ([224, 0, 0, 0], 4),
    ([240, 0, 0, 0], 4),
    ([255, 255, 255, 255], 32),
    ([0, 0, 0, 0], 32),
];

const VERSION_WORDS: [&str; 6] = ["version", "ver", "release", "rev", "build", "v"];

fn in_block(addr: u32, first: [u8; 4], prefix: u8) -> bool {
    let mask = if prefix == 0 {
        0
    } else {
        u32::MAX << (32 - u32::from(prefix))
    };
    addr & mask == u32::from_be_bytes(first) & mask
}

/// Whether an IPv4 address is personal data by bigcode's ranges and codemine's additions.
pub fn v4_is_personal(ip: Ipv4Addr) -> bool {
    let a = u32::from(ip);
    !V4_NOT_PERSONAL.iter().any(|&(f, p)| in_block(a, f, p)) && !DNS_SERVERS.contains(&ip.octets())
}

/// Whether an IPv6 address is personal data: in `2000::/3`, outside `2001::/23` and
/// `2001:db8::/32` (Python's private blocks inside it).
pub fn v6_is_personal(ip: Ipv6Addr) -> bool {
    let s = ip.segments();
    let global_unicast = s[0] & 0xe000 == 0x2000;
    let ietf = s[0] == 0x2001 && s[1] < 0x0200;
    let documentation = s[0] == 0x2001 && s[1] == 0x0db8;
    global_unicast && !ietf && !documentation
}

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Whether the candidate `text[start..end]` is an address that is personal data.
pub fn is_personal(text: &str, start: usize, end: usize) -> bool {
    let b = text.as_bytes();
    let value = &text[start..end];
    let before = start.checked_sub(1).map(|i| b[i]);
    let after = b.get(end).copied();
    if value.contains(':') {
        if before.is_some_and(|c| is_word(c) || c == b':' || c == b'.')
            || after.is_some_and(|c| is_word(c) || c == b':')
        {
            return false;
        }
        let addr = value.split('%').next().unwrap_or(value);
        if !addr.bytes().any(|c| c.is_ascii_digit()) {
            return false;
        }
        let groups = addr.split(':').filter(|g| !g.is_empty()).count();
        if addr.contains("::") && groups < 3 {
            return false;
        }
        return addr.parse::<Ipv6Addr>().is_ok_and(v6_is_personal);
    }
    if before.is_some_and(|c| is_word(c) || c == b'.')
        || after.is_some_and(is_word)
        || (after == Some(b'.') && b.get(end + 1).is_some_and(u8::is_ascii_digit))
    {
        return false;
    }
    let Ok(ip) = value.parse::<Ipv4Addr>() else {
        return false;
    };
    if value.len() == 7 && !dns_context(text, start, end) {
        return false;
    }
    !after_version_word(text, start) && v4_is_personal(ip)
}

/// bigcode's exception to its `x.x.x.x` rule: `dns` or `server` within 100 bytes.
fn dns_context(text: &str, start: usize, end: usize) -> bool {
    let b = text.as_bytes();
    let window = &b[start.saturating_sub(100)..(end + 100).min(b.len())];
    let lower = window.to_ascii_lowercase();
    lower.windows(3).any(|w| w == b"dns") || lower.windows(6).any(|w| w == b"server")
}

/// Whether the address follows a version word (codemine's rule).
fn after_version_word(text: &str, start: usize) -> bool {
    let b = &text.as_bytes()[..start];
    let mut i = b.len();
    let mut skipped = 0;
    while i > 0
        && skipped < 4
        && matches!(b[i - 1], b' ' | b'\t' | b'=' | b':' | b'\'' | b'"' | b'(')
    {
        i -= 1;
        skipped += 1;
    }
    let word_start = b[..i]
        .iter()
        .rposition(|&c| !is_word(c))
        .map_or(0, |p| p + 1);
    let word = String::from_utf8_lossy(&b[word_start..i]);
    let word = word.trim_matches('_');
    let lower = word.to_ascii_lowercase();
    // The word itself, or a compound ending in it: `app_version`, `kernelVersion`; never a
    // longer word that merely ends in it (`server`).
    VERSION_WORDS.iter().any(|v| {
        let capital = format!("{}{}", v[..1].to_ascii_uppercase(), &v[1..]);
        // `v` alone only (RCS's `file.c,v 2.55.1.5`): too many words end in v.
        lower == *v
            || (v.len() > 1 && (lower.ends_with(&format!("_{v}")) || word.ends_with(&capital)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn personal(text: &str) -> bool {
        let re = regex::Regex::new(CANDIDATE_V4).unwrap();
        let mut cands: Vec<(usize, usize)> =
            re.find_iter(text).map(|m| (m.start(), m.end())).collect();
        v6_candidates(text, &mut cands);
        cands.into_iter().any(|(s, e)| is_personal(text, s, e))
    }

    #[test]
    fn ranges() {
        assert!(personal("connect to 93.184.216.34 now"));
        assert!(!personal("connect to 192.168.1.20 now"));
        assert!(!personal("127.0.0.1"));
        assert!(!personal("8.8.8.8"));
        assert!(!personal("198.51.100.7"));
        assert!(!personal("100.64.3.9"));
        assert!(personal("2606:4700:4700::1111"));
        assert!(!personal("2001:db8::1"));
        assert!(!personal("fe80::1%eth0"));
        assert!(!personal("::1"));
    }

    #[test]
    fn look_alikes() {
        assert!(!personal("version 10.20.30.40"));
        assert!(!personal("__version__ = '41.2.3.4'"));
        assert!(!personal("1.2.3.4.5"));
        assert!(!personal("v1.2.3.4"));
        assert!(!personal("x = a[1::2]"));
        assert!(!personal("std::vector"));
        assert!(!personal("108.0.0.01"));
        // bigcode's `x.x.x.x` rule, and its dns/server exception.
        assert!(!personal("pkg 4.3.2.1"));
        assert!(personal("dns server at 4.3.2.1"));
        assert!(personal("server 93.184.216.34"));
        assert!(!personal("kernelVersion: 93.184.216.34"));
        assert!(!personal("$Id: lapi.c,v 2.55.1.5 2008/07/04 roberto Exp $"));
        assert!(personal("CSV 93.184.216.34"));
        assert!(personal("http://93.184.216.34/index"));
    }
}
