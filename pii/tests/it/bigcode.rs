//! The e-mail and IP rules against bigcode-dataset's own decisions.
//!
//! bigcode-dataset (`pii/` at bebec92) has no unit tests of its regexes (its only test,
//! `pii/tests/test_evaluation.py`, checks the evaluation metric). The cases here are the
//! lists of valid and invalid addresses in datatrove's PII test
//! (`tests/pipeline/filters/test_pii_removal.py` of huggingface/datatrove, mirrored by hand
//! below), and the expected values are what bigcode's own code decides on them:
//! `detect_email_addresses(text, {"EMAIL", "IP_ADDRESS"})` of
//! `pii/utils/emails_ip_addresses_detection.py`, then `is_private_ip` and
//! `POPULAR_DNS_SERVERS` of `pii/pii_redaction.py` for which addresses are redacted, run
//! once by hand with the `regex` module. Where codemine decides otherwise on purpose, the
//! case says so.

use codemine_pii::{Detector, Kind, PiiConfig};

const IP_TEST_INPUT: &str = r#"It correctly doesn't match this invalid ips:
999.999.999.999.
108.0.0.01
0.1.2.3
00.0000.00.00
192.168.l.1
912.456.123.123
.3.3.3.0
192.168.o.0

It doesn't match local IPs:

172.16.0.9
172.16.4.1
172.17.1.1
127.0.0.2
10.0.1.5
10.0.0.1
10.155.155.155
10.255.255.254
172.16.0.4
172.16.0.1
172.17.1.1
172.31.254.254
192.168.1.2
192.168.254.0

valid ips:
163.36.107.25
114.35.103.54
57.120.21.121
13.83.69.70
29.116.31.158
193.163.229.23
211.160.67.46
4.132.211.142
214.70.227.4
35.88.121.75"#;

const EMAIL_TEST_INPUT: &str = r#"Use: for testing against email regex
ref: http://codefool.tumblr.com/post/15288874550/list-of-valid-and-invalid-email-addresses


List of Valid Email Addresses

email@example.com
firstname.lastname@example.com
email@subdomain.example.com
firstname+lastname@example.com
email@123.123.123.123
email@[123.123.123.123]
"email"@example.com
1234567890@example.com
email@example-one.com
_______@example.com
email@example.name
email@example.museum
email@example.co.jp
firstname-lastname@example.com
NAME@MYSITE.COM



List of Strange Valid Email Addresses

much.”more\ unusual”@example.com
very.unusual.”@”.unusual.com@example.com
very.”(),:;<>[]”.VERY.”very@\ "very”.unusual@strange.example.com



List of Invalid Email Addresses

plainaddress
#@%^%#$@#$@#.com
@example.com
Joe Smith <email@example.com>
email.example.com
email@example@example.com
.email@example.com
email.@example.com
email..email@example.com
あいうえお@example.com
email@example.com (Joe Smith)
email@example
email@-example.com
email@example.web
email@111.222.333.44444
email@example..com
Abc..123@example.com



List of Strange Invalid Email Addresses

”(),:;<>[\]@example.com
just”not”right@example.com
this\ is"really"not\allowed@example.com"#;

fn found(text: &str, kind: Kind) -> Vec<&str> {
    // The example domains of the built-in allow list would hide bigcode's cases.
    let detector = Detector::new(&PiiConfig {
        builtin_allow: false,
        ..PiiConfig::default()
    })
    .unwrap();
    detector
        .scan(text)
        .unwrap()
        .into_iter()
        .filter(|f| f.kind == kind)
        .map(|f| f.value(text))
        .collect()
}

#[test]
fn emails_as_bigcode_finds_them() {
    // bigcode's matches, in order (its `"email"@example.com` and `email.@example.com`
    // give none: a quote or a dot cannot end a local part).
    let want = [
        "email@example.com",
        "firstname.lastname@example.com",
        "email@subdomain.example.com",
        "firstname+lastname@example.com",
        "1234567890@example.com",
        "email@example-one.com",
        "_______@example.com",
        "email@example.name",
        "email@example.museum",
        "email@example.co.jp",
        "firstname-lastname@example.com",
        "NAME@MYSITE.COM",
        "unusual”@example.com",
        "”.unusual.com@example.com",
        "very”.unusual@strange.example.com",
        "email@example.com",
        "example@example.com",
        ".email@example.com",
        ".email@example.com",
        "あいうえお@example.com",
        "email@example.com",
        "email@example.web",
        ".123@example.com",
        "just”not”right@example.com",
    ];
    assert_eq!(found(EMAIL_TEST_INPUT, Kind::Email), want);
}

#[test]
fn ip_addresses_as_bigcode_redacts_them() {
    // bigcode detects the 14 local addresses too and then keeps them (`is_private`): only
    // the ten public ones are redacted. The invalid ones are not addresses.
    let want = [
        "163.36.107.25",
        "114.35.103.54",
        "57.120.21.121",
        "13.83.69.70",
        "29.116.31.158",
        "193.163.229.23",
        "211.160.67.46",
        "4.132.211.142",
        "214.70.227.4",
        "35.88.121.75",
    ];
    assert_eq!(found(IP_TEST_INPUT, Kind::IpAddress), want);
    // In the e-mail list bigcode finds `email@123.123.123.123`'s address; codemine also
    // finds the bracketed one, `email@[123.123.123.123]`, which bigcode's delimiters
    // (`[` is not one of them) miss.
    assert_eq!(
        found(EMAIL_TEST_INPUT, Kind::IpAddress),
        ["123.123.123.123", "123.123.123.123"]
    );
}

/// bigcode's other IP rules, one case each.
#[test]
fn bigcode_ip_rules() {
    // `filter_versions`: x.x.x.x of single digits is a version, unless dns/server is near.
    assert_eq!(
        found("pinned to 4.3.2.1 here", Kind::IpAddress),
        Vec::<&str>::new()
    );
    assert_eq!(
        found("the dns at 4.3.2.1 here", Kind::IpAddress),
        ["4.3.2.1"]
    );
    // `POPULAR_DNS_SERVERS` are kept.
    assert_eq!(
        found(
            "resolvers 8.8.4.4, 9.9.9.9 and 149.112.112.112",
            Kind::IpAddress
        ),
        Vec::<&str>::new()
    );
    // `not_ip_address`: Python's ipaddress refuses leading zeros.
    assert_eq!(
        found("at 33.01.33.33 now", Kind::IpAddress),
        Vec::<&str>::new()
    );
    // `ip_has_digit`: `::` and hex words are not addresses.
    assert_eq!(
        found("Face::add and dead::beef", Kind::IpAddress),
        Vec::<&str>::new()
    );
    // `is_private` for IPv6: documentation, unique-local, link-local, loopback.
    assert_eq!(
        found("2001:db8::5 fd12:3456::1 fe80::2 ::1", Kind::IpAddress),
        Vec::<&str>::new()
    );
    assert_eq!(
        found("at 2a00:1450:4001:81b::200e now", Kind::IpAddress),
        ["2a00:1450:4001:81b::200e"]
    );
}
