//! Secrets found by their context, with regexes run only on a window around a keyword
//! trigger: values assigned to secret-like names (detect-secrets' `KeywordDetector`,
//! `plugins/keyword.py`, with its quotes-required patterns, which are the ones it uses for
//! Python, Java, JavaScript and the like), AWS secret access keys (`plugins/aws.py`),
//! passwords in URLs (`plugins/basic_auth.py`) and in connection strings.
//!
//! A value assigned to a password-like name (`password`, `passwd`, `pwd`, `db_pass`,
//! `contraseña`, ...) is a [`Kind::Password`] whatever it looks like; a value assigned to
//! another secret-like name (`api_key`, `secret`, `token`, `private_key`, ...) is a
//! [`Kind::Secret`] only when it looks random ([`entropy::looks_random`]): detect-secrets
//! reports `api_key = "foo"`, codemine does not. Both go through detect-secrets' filters
//! (templates, sequences, UUIDs, id names, no letter) and codemine's: at least four
//! characters, and not a value that names itself (`"password"`, `"DB_PASSWORD"`).

use regex::{Captures, Regex};

use crate::entropy;
use crate::kind::Kind;

/// detect-secrets' `DENYLIST`, with `-` as a separator too, and `token` and `access_key`
/// added (codemine).
const KEYWORDS: &str = concat!(
    r"(?:api[_-]?key|auth[_-]?key|service[_-]?key|account[_-]?key|db[_-]?key|database[_-]?key",
    r"|priv[_-]?key|private[_-]?key|client[_-]?key|access[_-]?key|db[_-]?pass|database[_-]?pass",
    r"|key[_-]?pass|password|passwd|pwd|secret|contraseña|contrasena|token)",
);

/// The stems every keyword holds, written lowercase, UPPERCASE and Capitalized (the
/// triggers are matched case-sensitively, which is several times faster than ASCII
/// case-insensitive matching; `PassWord` is found by `Pass`, a name in other mixed
/// cases, such as `pAsSwOrD`, is not).
const STEMS: [&str; 7] = ["key", "pass", "pwd", "secret", "token", "aws", "contras"];

/// The literal triggers of this module's window.
pub fn triggers() -> Vec<String> {
    STEMS
        .iter()
        .flat_map(|s| {
            let cap = format!("{}{}", s[..1].to_ascii_uppercase(), &s[1..]);
            [s.to_string(), s.to_ascii_uppercase(), cap]
        })
        .collect()
}

/// Whether a stem at `start..end` can be part of a keyword: `key` only after one of the
/// stems `api`, `auth`, ... (and an optional `_` or `-`), `pass` only in `password`,
/// `passwd` or after `db`, `database`, `key`. The rest always can.
pub fn stem_may_match(text: &str, start: usize, end: usize) -> bool {
    let b = text.as_bytes();
    let stem = &b[start..end];
    let before = |words: &[&str]| {
        let mut i = start;
        if i > 0 && matches!(b[i - 1], b'_' | b'-') {
            i -= 1;
        }
        words
            .iter()
            .any(|w| i >= w.len() && b[i - w.len()..i].eq_ignore_ascii_case(w.as_bytes()))
    };
    if stem.eq_ignore_ascii_case(b"key") {
        return before(&[
            "api", "auth", "service", "account", "db", "database", "priv", "private", "client",
            "access",
        ]);
    }
    if stem.eq_ignore_ascii_case(b"pass") {
        let after = &b[end..(end + 4).min(b.len())];
        let word = after.len() >= 4 && after.eq_ignore_ascii_case(b"word");
        let wd = after.len() >= 2 && after[..2].eq_ignore_ascii_case(b"wd");
        return word || wd || before(&["db", "database", "key"]);
    }
    true
}

/// A quoted value: `"v"`, `'v'` or `` `v` `` (Rust's regex has no back-references).
const VALUE: &str = r#"(?:"(?P<v1>[^"'`\n]*)"|'(?P<v2>[^"'`\n]*)'|`(?P<v3>[^"'`\n]*)`)"#;

pub struct Patterns {
    /// `name = "v"`, `name: "v"`, `name := "v"`, `name => "v"`, `name == "v"`,
    /// `name[] = @"v"`, `name("v")`, `name.assign("v")`, and with a type annotation,
    /// `name: string = "v"` (codemine: TypeScript, Kotlin, Scala). Never across a line.
    assign: Regex,
    /// `"v" == name`.
    reverse: Regex,
    /// `name... "v";` (detect-secrets' FOLLOWED_BY_QUOTES_AND_SEMICOLON).
    semicolon: Regex,
    /// `Password=v;` in a connection string.
    connection: Regex,
    connection_keys: Regex,
    /// detect-secrets' AWS secret pattern, and an unquoted `secret_access_key = v`.
    aws_quoted: Regex,
    aws_bare: Regex,
    /// `scheme://user:password@`; codemine lets the user be empty (`redis://:pw@host`).
    url: Regex,
}

fn compile(p: &str) -> Regex {
    // The patterns are constants checked by the unit tests; a failure here is a bug.
    match Regex::new(p) {
        Ok(r) => r,
        Err(e) => panic!("codemine-pii: a built-in pattern does not compile: {e}"),
    }
}

impl Patterns {
    pub fn new() -> Patterns {
        let name = format!(r"(?P<name>\w*{KEYWORDS}\w*)");
        Patterns {
            assign: compile(&format!(
                r#"(?i){name}(?:\[[0-9]*\])?[\]'"]{{0,2}}(?:[ \t]*:[ \t]*[\w.<>\[\]]+)?[ \t]*(?:\.assign\(|\(|:=|===?|!==?|=>|=|:)[ \t]*@?{VALUE}"#
            )),
            reverse: compile(&format!(
                r"(?i){VALUE}[ \t]*(?:===?|!==?)[ \t]*(?P<name>\w*{KEYWORDS})"
            )),
            semicolon: compile(&format!(
                r"(?i)(?P<name>{KEYWORDS}\w*)\S{{0,50}}?[ \t]*{VALUE};"
            )),
            connection: compile(
                r#"(?im)(?:^|[;"'\s])(?P<name>password|pwd)[ \t]*=[ \t]*(?P<v1>[^;"'\s{][^;"'\n]*?)[ \t]*(?:;|"|'|$)"#,
            ),
            connection_keys: compile(
                r"(?i)(?:server|data source|host|user id|uid|user|database|initial catalog|dsn|driver|provider|address)\s*=",
            ),
            aws_quoted: compile(
                r#"(?i)aws.{0,20}?(?:key|pwd|pw|password|pass|token).{0,20}?['"](?P<v1>[0-9a-zA-Z/+]{40})['"]"#,
            ),
            aws_bare: compile(
                r#"(?im)secret_?access_?key['"]?[ \t]*[:=][ \t]*['"]?(?P<v1>[0-9a-zA-Z/+]{40})(?:[^0-9a-zA-Z/+=]|$)"#,
            ),
            url: compile(
                r"(?i)[a-z][a-z0-9+.\-]*://(?P<user>[^:/?#\[\]@!$&'()*+,;=\s]*):(?P<v1>[^:/?#\[\]@!$&'()*+,;=\s]+)@",
            ),
        }
    }

    /// The keyword window `text[lo..hi]`: pushes `(kind, start, end)` of each finding.
    pub fn keyword_window(
        &self,
        text: &str,
        lo: usize,
        hi: usize,
        out: &mut Vec<(Kind, usize, usize)>,
    ) {
        let window = &text[lo..hi];
        for re in [&self.assign, &self.reverse, &self.semicolon] {
            for c in re.captures_iter(window) {
                let Some((v, name)) = value_and_name(&c) else {
                    continue;
                };
                let (start, end) = (lo + v.start(), lo + v.end());
                if let Some(kind) = classify(name, v.as_str(), text, start) {
                    out.push((kind, start, end));
                }
            }
        }
        for c in self.connection.captures_iter(window) {
            let Some(v) = c.name("v1") else { continue };
            let value = v.as_str();
            let line_start = window[..v.start()].rfind('\n').map_or(0, |p| p + 1);
            let line_end = window[v.end()..]
                .find('\n')
                .map_or(window.len(), |p| v.end() + p);
            let line = &window[line_start..line_end];
            if line.contains(';')
                && self.connection_keys.is_match(line)
                && plausible_password(value)
            {
                out.push((Kind::ConnectionStringPassword, lo + v.start(), lo + v.end()));
            }
        }
        for re in [&self.aws_quoted, &self.aws_bare] {
            for c in re.captures_iter(window) {
                if let Some(v) = c.name("v1") {
                    if !entropy::is_sequential(v.as_str()) {
                        out.push((Kind::AwsSecretAccessKey, lo + v.start(), lo + v.end()));
                    }
                }
            }
        }
    }

    /// The URL window `text[lo..hi]`.
    pub fn url_window(
        &self,
        text: &str,
        lo: usize,
        hi: usize,
        out: &mut Vec<(Kind, usize, usize)>,
    ) {
        for c in self.url.captures_iter(&text[lo..hi]) {
            let Some(v) = c.name("v1") else { continue };
            let value = v.as_str();
            if !entropy::is_template(value)
                && !entropy::has_no_letter(value)
                && !entropy::is_sequential(value)
            {
                out.push((Kind::UrlPassword, lo + v.start(), lo + v.end()));
            }
        }
    }
}

impl Default for Patterns {
    fn default() -> Self {
        Patterns::new()
    }
}

fn value_and_name<'h>(c: &Captures<'h>) -> Option<(regex::Match<'h>, &'h str)> {
    let v = c
        .name("v1")
        .or_else(|| c.name("v2"))
        .or_else(|| c.name("v3"))?;
    Some((v, c.name("name")?.as_str()))
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// detect-secrets' SECRET shape (a word character first, no `,` last) and its filters,
/// and codemine's; the kind the name gives.
fn classify(name: &str, value: &str, text: &str, value_start: usize) -> Option<Kind> {
    let first = value.chars().next()?;
    if !is_word_char(first) || value.ends_with(',') {
        return None;
    }
    if likely_id(text, value_start) {
        return None;
    }
    let lower = name.to_lowercase();
    let password = ["pass", "pwd", "contras"].iter().any(|k| lower.contains(k));
    if password {
        plausible_password(value).then_some(Kind::Password)
    } else {
        (plausible_password(value) && entropy::looks_random(value)).then_some(Kind::Secret)
    }
}

fn plausible_password(value: &str) -> bool {
    let lower = value.to_lowercase();
    value.chars().count() >= 4
        && !entropy::is_template(value)
        && !entropy::has_no_letter(value)
        && !entropy::is_sequential(value)
        && !entropy::contains_uuid(value)
        && !["password", "passwd", "secret", "token"]
            .iter()
            .any(|k| lower.contains(k))
}

/// detect-secrets' `is_likely_id_string`: the line before the value starts with `id`,
/// `myid` or `userid`, or has `_id`, each (plural or not) before a non-alphanumeric.
fn likely_id(text: &str, value_start: usize) -> bool {
    let b = text.as_bytes();
    let from = value_start.saturating_sub(256);
    let line_start = b[from..value_start]
        .iter()
        .rposition(|&c| c == b'\n')
        .map_or(from, |p| from + p + 1);
    let line = b[line_start..value_start].to_ascii_lowercase();
    let followed_ok = |i: usize| {
        let i = if line.get(i) == Some(&b's') { i + 1 } else { i };
        line.get(i).is_some_and(|c| !c.is_ascii_alphanumeric())
    };
    let starts = ["userid", "myid", "id"]
        .iter()
        .any(|p| line.starts_with(p.as_bytes()) && followed_ok(p.len()));
    starts
        || line
            .windows(3)
            .enumerate()
            .any(|(i, w)| w == b"_id" && followed_ok(i + 3))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn find(text: &str) -> Vec<(Kind, &str)> {
        let p = Patterns::new();
        let mut out = Vec::new();
        p.keyword_window(text, 0, text.len(), &mut out);
        p.url_window(text, 0, text.len(), &mut out);
        out.into_iter().map(|(k, s, e)| (k, &text[s..e])).collect()
    }

    #[test]
    fn assignments() {
        assert_eq!(
            find(r#"db_password = "hunter22""#),
            [(Kind::Password, "hunter22")]
        );
        assert_eq!(
            find(r#"conn.setPassword("hunter22");"#).first(),
            Some(&(Kind::Password, "hunter22"))
        );
        assert_eq!(
            find(r#"if ("hunter22" == user_password) {"#),
            [(Kind::Password, "hunter22")]
        );
        assert_eq!(
            find(r#"api_key: 'Zx81Kp2Qm4Lr7Tn0Wq5e'"#),
            [(Kind::Secret, "Zx81Kp2Qm4Lr7Tn0Wq5e")]
        );
        // Not random enough for a non-password name; a value naming itself; an id.
        assert!(find(r#"api_key = "foo""#).is_empty());
        assert!(find(r#"password = "DB_PASSWORD""#).is_empty());
        assert!(find(r#"secret_id = "Zx81Kp2Qm4Lr7Tn0Wq5e""#).is_empty());
        assert!(find(r#"password = "{password}""#).is_empty());
    }

    #[test]
    fn urls_and_connection_strings() {
        assert_eq!(
            find("postgres://app:s3cr3tPw@db.internal:5432/x"),
            [(Kind::UrlPassword, "s3cr3tPw")]
        );
        assert!(find("https://user:${PASS}@host/").is_empty());
        assert_eq!(
            find("redis://:R3d1sPw@cache:6379"),
            [(Kind::UrlPassword, "R3d1sPw")]
        );
        assert_eq!(
            find(r#"const clientSecret: string = "Zx81Kp2Qm4Lr7Tn0Wq5e";"#),
            [(Kind::Secret, "Zx81Kp2Qm4Lr7Tn0Wq5e")]
        );
        assert_eq!(
            find(r#"cs = "Server=db1;Database=shop;User Id=app;Password=Pa55w0rdX;""#),
            [(Kind::ConnectionStringPassword, "Pa55w0rdX")]
        );
    }

    #[test]
    fn aws_secret() {
        let t = r#"aws_secret_access_key = "Q3w5Z8k2Lm9Pq1Xr7Tv4Yb6Nc0Hd3Jf8Gs2Ka5We""#;
        assert!(find(t).contains(&(
            Kind::AwsSecretAccessKey,
            "Q3w5Z8k2Lm9Pq1Xr7Tv4Yb6Nc0Hd3Jf8Gs2Ka5We"
        )));
    }
}
