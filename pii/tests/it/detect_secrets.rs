//! Agreement with detect-secrets 1.5.0 (tests/requirements.txt) on the fixture corpus:
//! every line it flags, per plugin, must hold a codemine finding of a corresponding kind,
//! except the disagreements listed in [`KNOWN`], each on purpose and said why (and each
//! must still be a disagreement, so that the list stays true).
//!
//! detect-secrets runs twice: with its defaults, and for IP addresses alone with the filter
//! `is_not_alphanumeric_string` off, since that filter drops every IPv4 address (no
//! letter) and leaves its `IPPublicDetector` silent in a default scan.

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

use codemine_pii::{Category, Detector, Kind, PiiConfig};
use serde_json::Value;

use crate::support::{corpus, fixtures, python};

/// detect-secrets' secret types and the codemine kinds that stand for them (`None`: any
/// secret kind, for the entropy and keyword plugins, which flag what the specific ones do).
fn kinds_for(secret_type: &str) -> Option<Option<&'static [Kind]>> {
    Some(match secret_type {
        "AWS Access Key" => Some(&[Kind::AwsAccessKeyId, Kind::AwsSecretAccessKey]),
        "Azure Storage Account access key" => Some(&[Kind::AzureStorageKey]),
        "Basic Auth Credentials" => Some(&[Kind::UrlPassword]),
        "GitHub Token" => Some(&[Kind::GithubToken]),
        "GitLab Token" => Some(&[Kind::GitlabToken]),
        "JSON Web Token" => Some(&[Kind::Jwt]),
        "NPM tokens" => Some(&[Kind::NpmToken]),
        "Private Key" => Some(&[Kind::PrivateKey]),
        "PyPI Token" => Some(&[Kind::PypiToken]),
        "Slack Token" => Some(&[Kind::SlackToken, Kind::SlackWebhook]),
        "Stripe Access Key" => Some(&[Kind::StripeKey]),
        "Twilio API Key" => Some(&[Kind::TwilioKey]),
        "Public IP (ipv4)" => Some(&[Kind::IpAddress]),
        "Base64 High Entropy String" | "Hex High Entropy String" | "Secret Keyword" => None,
        _ => return None,
    })
}

/// Lines detect-secrets flags that codemine leaves alone on purpose:
/// (file, text on the line, detect-secrets type, why).
const KNOWN: &[(&str, &str, &str, &str)] = &[
    (
        "Planted.java",
        "SHA = \"3f78",
        "Hex High Entropy String",
        "a git SHA, assigned to no secret-like name",
    ),
    (
        "Planted.java",
        "version 1.2.3.4",
        "Public IP (ipv4)",
        "x.x.x.x after `version`: bigcode's and codemine's version rules",
    ),
    (
        "planted.cpp",
        "emulator = ",
        "Azure Storage Account access key",
        "the storage emulator's published key (allow list)",
    ),
    (
        "planted.cpp",
        "emulator = ",
        "Base64 High Entropy String",
        "the storage emulator's published key (allow list)",
    ),
    (
        "planted.js",
        "198.51.100.7",
        "Public IP (ipv4)",
        "a documentation address (RFC 5737)",
    ),
    (
        "planted.php",
        "203.0.113.25",
        "Public IP (ipv4)",
        "a documentation address (RFC 5737)",
    ),
    (
        "planted.py",
        "AKIAIOSFODNN7EXAMPLE",
        "AWS Access Key",
        "AWS's documented example key (allow list)",
    ),
    (
        "planted.py",
        "EXAMPLE_SECRET",
        "Base64 High Entropy String",
        "AWS's documented example secret (allow list)",
    ),
    (
        "planted.py",
        "EXAMPLE_SECRET",
        "Secret Keyword",
        "AWS's documented example secret (allow list)",
    ),
    (
        "planted.py",
        "checksum = ",
        "Hex High Entropy String",
        "an MD5 digest, assigned to no secret-like name",
    ),
    (
        "planted.py",
        "\"changeme\"",
        "Secret Keyword",
        "a placeholder password (allow list)",
    ),
    (
        "planted.ts",
        "export const sample",
        "JSON Web Token",
        "jwt.io's sample token (allow list)",
    ),
];

/// `(file name, line, type)` of every result of a detect-secrets scan of the corpus.
fn detect_secrets(extra: &[&str]) -> Vec<(String, usize, String)> {
    let files: Vec<String> = corpus()
        .iter()
        .map(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default()
                .to_string()
        })
        .collect();
    let out = Command::new(python())
        .current_dir(fixtures())
        .args(["-m", "detect_secrets", "scan", "--all-files"])
        .args(extra)
        .args(&files)
        .output();
    let out = match out {
        Ok(o) => o,
        Err(e) => panic!(
            "cannot run {:?} (set CODEMINE_PYTHON or run scripts/setup.sh test): {e}",
            python()
        ),
    };
    assert!(
        out.status.success(),
        "detect-secrets failed (install tests/requirements.txt: scripts/setup.sh test, or set CODEMINE_PYTHON):\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let baseline: Value = serde_json::from_slice(&out.stdout).expect("detect-secrets writes JSON");
    let version = baseline["version"].as_str().unwrap_or_default();
    assert_eq!(
        version, "1.5.0",
        "the agreement is checked against detect-secrets 1.5.0 (tests/requirements.txt)"
    );
    let mut results = Vec::new();
    for (file, found) in baseline["results"].as_object().expect("results") {
        for r in found.as_array().expect("result list") {
            let line = r["line_number"].as_u64().expect("line_number") as usize;
            results.push((
                file.clone(),
                line,
                r["type"].as_str().expect("type").to_string(),
            ));
        }
    }
    results.sort();
    results
}

/// codemine's kinds on each line of `file` (a finding over several lines is on each).
fn codemine_lines(detector: &Detector, text: &str) -> BTreeMap<usize, BTreeSet<Kind>> {
    let mut lines: BTreeMap<usize, BTreeSet<Kind>> = BTreeMap::new();
    for f in detector.scan(text).unwrap() {
        let first = text[..f.start].matches('\n').count() + 1;
        let last = first + text[f.start..f.end].matches('\n').count();
        for l in first..=last {
            lines.entry(l).or_default().insert(f.kind);
        }
    }
    lines
}

#[test]
fn every_line_detect_secrets_flags_is_found() {
    let mut results = detect_secrets(&[]);
    let ip_only = detect_secrets(&[
        "--disable-filter",
        "detect_secrets.filters.heuristic.is_not_alphanumeric_string",
    ]);
    results.extend(ip_only.into_iter().filter(|r| r.2 == "Public IP (ipv4)"));
    assert!(
        results.len() > 40,
        "detect-secrets found only {} results in the corpus",
        results.len()
    );
    let detector = Detector::new(&PiiConfig::default()).unwrap();
    let mut failures = Vec::new();
    let mut known_hit = BTreeSet::new();
    let mut per_type: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for (file, line, secret_type) in &results {
        let text = std::fs::read_to_string(fixtures().join(file)).unwrap();
        let line_text = text.lines().nth(line - 1).unwrap_or_default();
        let ours = codemine_lines(&detector, &text)
            .remove(line)
            .unwrap_or_default();
        let Some(kinds) = kinds_for(secret_type) else {
            failures.push(format!(
                "{file}:{line}: detect-secrets type {secret_type:?} has no codemine kind"
            ));
            continue;
        };
        let agreed = match kinds {
            Some(kinds) => kinds.iter().any(|k| ours.contains(k)),
            None => ours.iter().any(|k| k.category() == Category::Secret),
        };
        let counts = per_type.entry(secret_type.clone()).or_default();
        counts.0 += 1;
        if agreed {
            counts.1 += 1;
            continue;
        }
        let known = KNOWN.iter().position(|(f, on_line, t, _)| {
            f == file && line_text.contains(on_line) && t == secret_type
        });
        match known {
            Some(i) => {
                known_hit.insert(i);
            }
            None => failures.push(format!(
                "{file}:{line}: detect-secrets flags {secret_type:?}, codemine has {ours:?}: {line_text}"
            )),
        }
    }
    for (i, (file, on_line, t, why)) in KNOWN.iter().enumerate() {
        if !known_hit.contains(&i) {
            failures.push(format!(
                "listed disagreement is gone (remove it): {file} {on_line:?} {t} ({why})"
            ));
        }
    }
    eprintln!("detect-secrets results on the corpus, per type (flagged lines, found by codemine):");
    for (t, (n, ok)) in &per_type {
        eprintln!("  {t}: {n}, {ok}");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
