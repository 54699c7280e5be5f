//! Redaction: each finding replaced by a placeholder, IP addresses by a synthetic private
//! address of the same version.
//!
//! The placeholders are those of StarCoder's data (bigcode-dataset's
//! `pii/ner/pii_redaction/replacements.json`): `<EMAIL>`, `<KEY>`, `<PASSWORD>`. Models
//! trained on The Stack's redacted releases know them, a placeholder can never be taken for
//! a real address or key (a fake value of the same shape can: it may be someone's), and
//! scanning redacted text finds nothing. IP addresses are the exception, as in bigcode:
//! code that parses an address should still read as such, so an address becomes one of
//! bigcode's five synthetic private addresses of its version (`REPLACEMENTS_IP`). bigcode
//! draws that address at random; codemine takes it from a stable hash of the value, so the
//! same address gets the same replacement in every field, row and run.

use std::borrow::Cow;

use crate::kind::{Finding, Kind};

/// bigcode-dataset's `REPLACEMENTS_IP` (pii/pii_redaction.py).
pub const REPLACEMENTS_IPV4: [&str; 5] = [
    "172.16.31.10",
    "172.16.58.3",
    "172.16.17.32",
    "192.168.127.12",
    "192.168.3.11",
];
pub const REPLACEMENTS_IPV6: [&str; 5] = [
    "fd00:c2b6:b24b:be67:2827:688d:e6a1:6a3b",
    "fd00:a516:7c1b:17cd:6d81:2137:bd2a:2c5b",
    "fc00:e968:6179::de52:7100",
    "fc00:db20:35b:7399::5",
    "fdf8:f53e:61e4::18",
];

/// FNV-1a, 64 bits: stable across platforms and releases (std's hashers are not).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// What a finding of `kind` whose text is `value` is replaced with.
pub fn replacement(kind: Kind, value: &str) -> Cow<'static, str> {
    match kind {
        Kind::Email => Cow::Borrowed("<EMAIL>"),
        Kind::IpAddress => {
            let i = (fnv1a(value.as_bytes()) % 5) as usize;
            Cow::Borrowed(if value.contains(':') {
                REPLACEMENTS_IPV6[i]
            } else {
                REPLACEMENTS_IPV4[i]
            })
        }
        Kind::Password | Kind::UrlPassword | Kind::ConnectionStringPassword => {
            Cow::Borrowed("<PASSWORD>")
        }
        _ => Cow::Borrowed("<KEY>"),
    }
}

/// `text` with every finding replaced. `findings` must be sorted by start and must not
/// overlap, as [`crate::Detector::scan`] returns them; one that does not fit (overlapping
/// the previous one or outside the text) is left alone.
pub fn redact(text: &str, findings: &[Finding]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for f in findings {
        if f.start < at
            || f.end > text.len()
            || !text.is_char_boundary(f.start)
            || !text.is_char_boundary(f.end)
        {
            continue;
        }
        out.push_str(&text[at..f.start]);
        out.push_str(&replacement(f.kind, &text[f.start..f.end]));
        at = f.end;
    }
    out.push_str(&text[at..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_and_stable_addresses() {
        let text = "mail jane@corp.io from 93.184.216.34 and 93.184.216.34";
        let f = |s: &str, kind| {
            let start = text.find(s).unwrap();
            Finding {
                start,
                end: start + s.len(),
                kind,
            }
        };
        let second = text.rfind("93.184.216.34").unwrap();
        let findings = [
            f("jane@corp.io", Kind::Email),
            f("93.184.216.34", Kind::IpAddress),
            Finding {
                start: second,
                end: second + 13,
                kind: Kind::IpAddress,
            },
        ];
        let out = redact(text, &findings);
        let ip = replacement(Kind::IpAddress, "93.184.216.34");
        assert!(REPLACEMENTS_IPV4.contains(&ip.as_ref()));
        assert_eq!(out, format!("mail <EMAIL> from {ip} and {ip}"));
        assert!(
            REPLACEMENTS_IPV6.contains(&replacement(Kind::IpAddress, "2606:4700::1111").as_ref())
        );
        assert_eq!(replacement(Kind::UrlPassword, "x"), "<PASSWORD>");
        assert_eq!(replacement(Kind::Jwt, "x"), "<KEY>");
    }
}
