//! The fixture corpus (`tests/fixtures/`): values of every kind planted in strings,
//! comments and docstrings of Python, Java, C, C++, Go, JavaScript, TypeScript, PHP and
//! Ruby (`planted.jsonl`: file, kind, value), and look-alikes that are not personal data
//! or secrets (`lookalikes.jsonl`: file, value, why). Every occurrence of a planted value
//! must be found with its kind and exact span, nothing else may be found, no look-alike
//! may be touched, and redaction must write exactly the placeholders of docs/pii.md.

use std::collections::BTreeSet;

use codemine_pii::{redact, Detector, Finding, Kind, PiiConfig};

use crate::support::{corpus, fixtures, manifest};

/// bigcode's synthetic replacement addresses (pii/pii_redaction.py, `REPLACEMENTS_IP`).
const IPV4: [&str; 5] = [
    "172.16.31.10",
    "172.16.58.3",
    "172.16.17.32",
    "192.168.127.12",
    "192.168.3.11",
];
const IPV6: [&str; 5] = [
    "fd00:c2b6:b24b:be67:2827:688d:e6a1:6a3b",
    "fd00:a516:7c1b:17cd:6d81:2137:bd2a:2c5b",
    "fc00:e968:6179::de52:7100",
    "fc00:db20:35b:7399::5",
    "fdf8:f53e:61e4::18",
];

fn file_name(p: &std::path::Path) -> String {
    p.file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default()
        .to_string()
}

/// The expected findings of `file`: every occurrence of each planted value that does not lie
/// inside an occurrence of another (longer) planted value.
fn expected(file: &str, text: &str) -> BTreeSet<Finding> {
    let planted: Vec<(Kind, String)> = manifest("planted.jsonl")
        .into_iter()
        .filter(|v| v["file"] == file)
        .map(|v| {
            let kind = Kind::from_name(v["kind"].as_str().unwrap()).expect("a known kind");
            (kind, v["value"].as_str().unwrap().to_string())
        })
        .collect();
    let mut all: Vec<Finding> = planted
        .iter()
        .flat_map(|(kind, value)| {
            text.match_indices(value.as_str())
                .map(|(start, _)| Finding {
                    start,
                    end: start + value.len(),
                    kind: *kind,
                })
                .collect::<Vec<_>>()
        })
        .collect();
    all.sort_by_key(|f| (f.start, std::cmp::Reverse(f.end)));
    let mut out = BTreeSet::new();
    let mut covered = 0;
    for f in all {
        if f.end <= covered {
            continue;
        }
        covered = f.end;
        out.insert(f);
    }
    out
}

fn describe(text: &str, f: &Finding) -> String {
    let line = text[..f.start].matches('\n').count() + 1;
    format!(
        "line {line}: {} {:?} at {}..{}",
        f.kind,
        &text[f.start..f.end],
        f.start,
        f.end
    )
}

#[test]
fn every_planted_value_found_and_nothing_else() {
    let detector = Detector::new(&PiiConfig::default()).unwrap();
    let files = corpus();
    assert_eq!(files.len(), 9, "one fixture per language");
    let mut kinds_seen = BTreeSet::new();
    let mut failures = Vec::new();
    for path in &files {
        let file = file_name(path);
        let text = std::fs::read_to_string(path).unwrap();
        let want = expected(&file, &text);
        let got: BTreeSet<Finding> = detector.scan(&text).unwrap().into_iter().collect();
        for f in want.difference(&got) {
            failures.push(format!("{file}: missed {}", describe(&text, f)));
        }
        for f in got.difference(&want) {
            failures.push(format!("{file}: extra {}", describe(&text, f)));
        }
        kinds_seen.extend(want.iter().map(|f| f.kind));
    }
    assert!(
        failures.is_empty(),
        "fixture disagreements:\n{}",
        failures.join("\n")
    );
    let all: BTreeSet<Kind> = Kind::ALL.iter().copied().collect();
    assert_eq!(kinds_seen, all, "every kind is planted somewhere");
}

#[test]
fn look_alikes_are_untouched() {
    let detector = Detector::new(&PiiConfig::default()).unwrap();
    let mut failures = Vec::new();
    for v in manifest("lookalikes.jsonl") {
        let file = v["file"].as_str().unwrap();
        let value = v["value"].as_str().unwrap();
        let text = std::fs::read_to_string(fixtures().join(file)).unwrap();
        let planted = expected(file, &text);
        let found = detector.scan(&text).unwrap();
        let occurrences: Vec<usize> = text.match_indices(value).map(|(s, _)| s).collect();
        assert!(
            !occurrences.is_empty(),
            "{file}: look-alike {value:?} is not in the file"
        );
        for s in occurrences {
            let e = s + value.len();
            // An occurrence inside a planted value (a marker inside a key block) is the value's.
            if planted.iter().any(|p| p.start <= s && e <= p.end) {
                continue;
            }
            for f in found.iter().filter(|f| f.start < e && s < f.end) {
                failures.push(format!(
                    "{file}: {} ({}) touched: {}",
                    value,
                    v["why"],
                    describe(&text, f)
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The redacted text must be the text with each planted value replaced by its
/// placeholder; an IP address by one of bigcode's addresses of its version, the same one
/// for the same address.
#[test]
fn redaction_is_exact() {
    let detector = Detector::new(&PiiConfig::default()).unwrap();
    for path in corpus() {
        let file = file_name(&path);
        let text = std::fs::read_to_string(&path).unwrap();
        let findings = detector.scan(&text).unwrap();
        let got = redact(&text, &findings);
        let mut want = String::new();
        let mut at = 0;
        let mut ips: Vec<(&str, Vec<&'static str>)> = Vec::new();
        for f in expected(&file, &text) {
            want.push_str(&text[at..f.start]);
            let placeholder = match f.kind {
                Kind::Email => "<EMAIL>",
                Kind::Password | Kind::UrlPassword | Kind::ConnectionStringPassword => "<PASSWORD>",
                Kind::IpAddress => {
                    let value = &text[f.start..f.end];
                    let choices = if value.contains(':') {
                        IPV6.to_vec()
                    } else {
                        IPV4.to_vec()
                    };
                    ips.push((value, choices));
                    "\u{0}"
                }
                _ => "<KEY>",
            };
            want.push_str(placeholder);
            at = f.end;
        }
        want.push_str(&text[at..]);
        // Walk both texts; at each IP mark, the redacted text holds one of the choices.
        let mut rest = got.as_str();
        let mut chosen: Vec<(&str, &str)> = Vec::new();
        for (i, piece) in want.split('\u{0}').enumerate() {
            if i > 0 {
                let (value, choices) = &ips[i - 1];
                let pick = choices.iter().find(|c| rest.starts_with(**c));
                let Some(pick) = pick else {
                    panic!(
                        "{file}: {value} not replaced by one of {choices:?}: {:?}",
                        &rest[..rest.len().min(60)]
                    );
                };
                if let Some((_, earlier)) = chosen.iter().find(|(v, _)| v == value) {
                    assert_eq!(earlier, pick, "{file}: {value} replaced inconsistently");
                }
                chosen.push((value, pick));
                rest = &rest[pick.len()..];
            }
            assert!(
                rest.starts_with(piece),
                "{file}: redacted text differs:\nwant {:?}\ngot  {:?}",
                piece,
                rest
            );
            rest = &rest[piece.len()..];
        }
        assert!(rest.is_empty(), "{file}: redacted text has more: {rest:?}");
        // Redacted text holds nothing more to find.
        assert_eq!(
            detector.scan(&got).unwrap(),
            vec![],
            "{file}: redacted text still has findings"
        );
    }
}

/// A row's texts: a value found in one field (by its assignment) is found where another
/// field repeats it, and both get the same replacement.
#[test]
fn rows_are_redacted_consistently() {
    let detector = Detector::new(&PiiConfig::default()).unwrap();
    let code = "def login():\n    \"\"\"Logs in as admin with Qm8vZ2pLx7Rt.\"\"\"\n    db_password = \"Qm8vZ2pLx7Rt\"\n";
    let doc = "Logs in as admin with Qm8vZ2pLx7Rt from 93.184.216.34.";
    let row = detector.scan_row(&[code, doc]).unwrap();
    assert_eq!(row.kinds(), [Kind::IpAddress, Kind::Password]);
    let out = row.redact(&[code, doc]);
    assert_eq!(out[0], "def login():\n    \"\"\"Logs in as admin with <PASSWORD>.\"\"\"\n    db_password = \"<PASSWORD>\"\n");
    assert!(
        out[1].starts_with("Logs in as admin with <PASSWORD> from "),
        "{}",
        out[1]
    );
    assert!(
        IPV4.iter()
            .any(|ip| out[1] == format!("Logs in as admin with <PASSWORD> from {ip}.")),
        "{}",
        out[1]
    );
    // A repeat inside a longer word is not the value.
    let row = detector
        .scan_row(&["pwd = \"Qm8vZ2pLx7Rt\"", "xQm8vZ2pLx7Rt"])
        .unwrap();
    assert_eq!(row.fields[1], vec![]);
    // Nor inside an identifier joined by `_`.
    let row = detector
        .scan_row(&[
            "pwd = \"Qm8vZ2pLx7Rt\"",
            "int A_Qm8vZ2pLx7Rt = 1; Qm8vZ2pLx7Rt_B;",
        ])
        .unwrap();
    assert_eq!(row.fields[1], vec![]);
    // gson's JsonReader: a constant's name passed to a method named like a token is not a
    // secret, nor are the repeats of it in the file.
    let java = "private static final int PEEKED_BEGIN_OBJECT = 1;\n  throw unexpectedTokenError(\"BEGIN_OBJECT\");\n";
    assert_eq!(detector.scan_row(&[java]).unwrap().fields[0], vec![]);
}

#[test]
fn allow_list_is_configurable() {
    let text = "key = \"AKIAIOSFODNN7EXAMPLE\"  # jane@example.com, ops@corp.invalid, bob@acme.io";
    let kinds = |config: &PiiConfig| -> Vec<(Kind, String)> {
        let d = Detector::new(config).unwrap();
        d.scan(text)
            .unwrap()
            .iter()
            .map(|f| (f.kind, f.value(text).to_string()))
            .collect()
    };
    assert_eq!(
        kinds(&PiiConfig::default()),
        [(Kind::Email, "bob@acme.io".to_string())]
    );
    let none = PiiConfig {
        builtin_allow: false,
        ..PiiConfig::default()
    };
    assert_eq!(
        kinds(&none),
        [
            (Kind::AwsAccessKeyId, "AKIAIOSFODNN7EXAMPLE".to_string()),
            (Kind::Email, "jane@example.com".to_string()),
            (Kind::Email, "ops@corp.invalid".to_string()),
            (Kind::Email, "bob@acme.io".to_string()),
        ]
    );
    let toml: PiiConfig = toml::from_str(
        "builtin_allow = false\nallow = [\"AKIAIOSFODNN7EXAMPLE\"]\nallow_email_domains = [\"acme.io\"]\nallow_patterns = [\"^ops@\"]\nskip_kinds = []\n",
    )
    .unwrap();
    assert_eq!(
        kinds(&toml),
        [(Kind::Email, "jane@example.com".to_string())]
    );
    let skip: PiiConfig = toml::from_str("skip_kinds = [\"email\"]").unwrap();
    assert_eq!(kinds(&skip), []);
    let bad = toml::from_str::<PiiConfig>("allow_list = []")
        .unwrap_err()
        .to_string();
    assert!(bad.contains("unknown field `allow_list`"), "{bad}");
}
