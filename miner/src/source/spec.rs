//! What the user asks to mine: `--repo URL_OR_PATH[@REV][=NAME]` arguments and manifest
//! files (one repository per line, JSONL, or TOML), the safe display form of a URL, and the
//! name of each repository (given, from its URL, from a local clone's `origin` remote, or
//! its folder), unique within a run.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::Error;

/// Where a repository comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    /// A git URL (https, http, ssh, git, file, or scp-like `user@host:path`), as given: it
    /// may carry credentials, so it is never printed; use [`redact`].
    Url(String),
    /// A folder on this machine: a git checkout, a bare repository, or a plain folder.
    Path(PathBuf),
}

/// One repository to mine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepoSpec {
    pub location: Location,
    /// Commit sha, tag or branch; `None` means the default branch (HEAD).
    pub rev: Option<String>,
    /// The `repo` value in output rows; derived from the location when absent.
    pub name: Option<String>,
    /// Coverage reports of this repository's tests (LCOV, Cobertura, JaCoCo, gcov, gcovr or coverage.py JSON).
    pub coverage: Vec<PathBuf>,
    /// A local repository's `origin` remote, credentials removed: it names the repository
    /// and its web links when no name is given ([`resolve_names`] reads it).
    pub origin: Option<String>,
    /// How `mine --run-tests` sets up and runs its test suite (a manifest's `tests`);
    /// `None`: detected from the usual layouts.
    pub tests: Option<codemine_testrun::Recipe>,
}

/// Where a repository lives on the web, from a GitHub-, GitLab- or Bitbucket-style remote
/// URL (https, http, ssh, git, or scp-like `user@host:path`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebRemote {
    /// Lower-case, without user, password or (for ssh) port.
    pub host: String,
    /// `owner/name` (or `group/subgroup/name`), without `.git`.
    pub path: String,
}

impl WebRemote {
    /// The repository's `owner/name`: the last two segments of its path.
    pub fn name(&self) -> String {
        let segments: Vec<&str> = self.path.split('/').collect();
        segments[segments.len().saturating_sub(2)..].join("/")
    }
}

/// The web home of a remote URL, or `None` for a local path, a `file://` URL, or a URL
/// whose path has fewer than two segments (no `owner/name` to take).
pub fn web_remote(url: &str) -> Option<WebRemote> {
    let url = url.trim();
    let lower = url.to_ascii_lowercase();
    let scheme_ok = [
        "https://",
        "http://",
        "ssh://",
        "git://",
        "git+ssh://",
        "ssh+git://",
    ]
    .iter()
    .any(|s| lower.starts_with(s));
    if !scheme_ok && (url.contains("://") || !looks_like_url(url)) {
        return None;
    }
    let (scheme, _, rest) = split_url(url);
    let (host, path) = if scheme.is_empty() {
        rest.split_once(':')?
    } else {
        rest.split_once('/')?
    };
    // A web server's port is part of its address; an ssh port is not.
    let host = if scheme.starts_with("http") {
        host
    } else {
        host.split(':').next().unwrap_or(host)
    };
    let host = host.to_ascii_lowercase();
    if host.is_empty()
        || !host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-.:[]".contains(&b))
    {
        return None;
    }
    let path = path.split(['?', '#']).next().unwrap_or(path);
    let segments: Vec<&str> = path
        .split('/')
        .filter(|s| !s.is_empty() && *s != "." && *s != "..")
        .collect();
    if segments.len() < 2 {
        return None;
    }
    let path = strip_git(&segments.join("/")).to_string();
    Some(WebRemote { host, path })
}

impl RepoSpec {
    /// The location for logs and output files, without credentials.
    pub fn display(&self) -> String {
        match &self.location {
            Location::Url(u) => redact(u),
            Location::Path(p) => p.display().to_string(),
        }
    }

    /// The `repo` value of output rows: the name given (`=NAME`, a manifest's `name`),
    /// else `owner/name` of a remote URL, else `owner/name` of a local repository's `origin`
    /// remote, else the folder name.
    pub fn repo_name(&self) -> String {
        if let Some(n) = &self.name {
            return n.clone();
        }
        if let Some(w) = self.origin.as_deref().and_then(web_remote) {
            return w.name();
        }
        match &self.location {
            Location::Url(u) => url_repo_name(u),
            Location::Path(p) => folder_name(p),
        }
    }

    /// The folder of a local repository: a path, or a `file://` URL's.
    pub fn local_path(&self) -> Option<PathBuf> {
        match &self.location {
            Location::Path(p) => Some(p.clone()),
            Location::Url(u) => u.strip_prefix("file://").map(PathBuf::from),
        }
    }

    /// Where the repository lives on the web: its URL's, or a local clone's `origin`'s.
    pub fn web(&self) -> Option<WebRemote> {
        match &self.location {
            Location::Url(u) if !u.starts_with("file://") => web_remote(u),
            _ => self.origin.as_deref().and_then(web_remote),
        }
    }

    /// What makes two specs one repository: its web home when known (a local clone and its
    /// remote's URL are one repository), else its location.
    fn identity(&self) -> String {
        if let Some(w) = self.web() {
            return format!("{}/{}", w.host, w.path);
        }
        match self.local_path() {
            Some(p) => {
                let p = p
                    .canonicalize()
                    .or_else(|_| std::path::absolute(&p))
                    .unwrap_or(p);
                p.display().to_string()
            }
            None => strip_git(redact(&self.display()).trim_end_matches('/')).to_string(),
        }
    }
}

/// Reads the `origin` remote of every local repository that has no name given (`read`
/// opens the repository: [`super::repo::origin_of`]), then checks that no two repositories
/// share a name: names feed the function ids and the partitions, so two repositories under
/// one name would mix their rows. Done once before mining, on the whole list, so that every
/// rank of a sharded run sees the same names.
pub fn resolve_names(
    specs: &[RepoSpec],
    read: impl Fn(&Path) -> Option<String>,
) -> Result<Vec<RepoSpec>, Error> {
    let mut out = specs.to_vec();
    for s in &mut out {
        if s.name.is_none() && s.origin.is_none() {
            s.origin = s.local_path().and_then(|p| read(&p)).map(|u| redact(&u));
        }
    }
    let mut seen: std::collections::HashMap<String, (String, String)> =
        std::collections::HashMap::new();
    for s in &out {
        let name = s.repo_name();
        let id = s.identity();
        match seen.get(&name) {
            Some((other, shown)) if *other != id => {
                return Err(Error::Usage(format!(
                    "two repositories would be named `{name}`: {shown} and {}; name one with \
                     --repo URL_OR_PATH=OWNER/NAME (or `name` in a manifest)",
                    s.display()
                )));
            }
            Some(_) => {}
            None => {
                seen.insert(name, (id, s.display()));
            }
        }
    }
    Ok(out)
}

fn strip_git(s: &str) -> &str {
    s.strip_suffix(".git").unwrap_or(s)
}

fn folder_name(p: &Path) -> String {
    let p = std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let name = p
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    strip_git(&name).to_string()
}

/// Splits a URL into (scheme with `://`, userinfo, rest) or, for scp-like syntax
/// (`user@host:path`), ("", userinfo, rest). The userinfo ends at the last `@` before the
/// path starts.
fn split_url(url: &str) -> (&str, Option<&str>, &str) {
    let (scheme, after) = match url.find("://") {
        Some(i) => url.split_at(i + 3),
        None => ("", url),
    };
    let end = if scheme.is_empty() {
        after.find(':')
    } else {
        after.find('/')
    };
    match after[..end.unwrap_or(after.len())].rfind('@') {
        Some(at) => (scheme, Some(&after[..at]), &after[at + 1..]),
        None => (scheme, None, after),
    }
}

/// The URL without the secret part of its userinfo: `https://user:token@host/x` becomes
/// `https://host/x`; ssh keeps a plain user name (`git@host:x`), which is not a secret.
pub fn redact(url: &str) -> String {
    let (scheme, user, rest) = split_url(url);
    match user {
        None => url.to_string(),
        Some(u) if (scheme.is_empty() || scheme == "ssh://") && !u.contains(':') => url.to_string(),
        Some(_) => format!("{scheme}{rest}"),
    }
}

/// User name and password carried in a URL, for the credential callback. In a URL they are
/// percent-encoded (RFC 3986: `user%40corp:tok%2Fen@host` is the user `user@corp` with the
/// password `tok/en`), so they are decoded as git decodes them; scp-like syntax has no
/// encoding.
pub(crate) fn url_credentials(url: &str) -> Option<(String, Option<String>)> {
    let (scheme, user, _) = split_url(url);
    let user = user?;
    let decode = |s: &str| {
        if scheme.is_empty() {
            s.to_string()
        } else {
            percent_encoding::percent_decode_str(s)
                .decode_utf8_lossy()
                .into_owned()
        }
    };
    Some(match user.split_once(':') {
        Some((u, p)) => (decode(u), Some(decode(p))),
        None => (decode(user), None),
    })
}

/// `owner/name` from a URL's path (its last two segments, `.git` removed); for a `file://`
/// URL, the folder name.
fn url_repo_name(url: &str) -> String {
    let redacted = redact(url);
    if let Some(path) = redacted.strip_prefix("file://") {
        return folder_name(Path::new(path));
    }
    let (_, _, rest) = split_url(&redacted);
    // Drop the host: everything up to the first '/' (URL) or ':' (scp-like).
    let path = match rest.find(['/', ':']) {
        Some(i) => &rest[i + 1..],
        None => rest,
    };
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let n = segments.len();
    let name = match n {
        0 => rest.to_string(),
        1 => segments[0].to_string(),
        _ => format!("{}/{}", segments[n - 2], segments[n - 1]),
    };
    strip_git(&name).to_string()
}

fn looks_like_url(s: &str) -> bool {
    if s.contains("://") {
        return true;
    }
    // scp-like: `user@host:path` or `host:path`, with no '/' before the ':'.
    match s.find(':') {
        Some(i) => i > 1 && !s[..i].contains('/') && !Path::new(s).exists(),
        None => false,
    }
}

/// Whether `s` can be a repository name given with `=NAME`: no blank, `=`, `@` or `:`,
/// and no empty `/`-separated part (so that a URL's query or a path is never taken for one).
fn is_name(s: &str) -> bool {
    !s.is_empty()
        && !s.contains(|c: char| c.is_whitespace() || c.is_control() || "=@:\\".contains(c))
        && s.split('/').all(|p| !p.is_empty() && p != "." && p != "..")
}

/// Parses `URL_OR_PATH[@REV][=NAME]`. `=NAME` names the repository (the `repo` value of
/// its rows) as a manifest's `name` does; it is the text after the last `=` when that is a
/// name (see [`is_name`]). The `@` of a revision is the last `@` after the start of the path
/// part, so `git@host:o/r.git@v1` and `https://u:p@host/o/r@main` both work; an existing
/// path is never split.
pub fn parse_repo_arg(arg: &str) -> Result<RepoSpec, Error> {
    let arg = arg.trim();
    if arg.is_empty() {
        return Err(Error::Usage("an empty repository argument".into()));
    }
    let (arg, name) = match arg.rsplit_once('=') {
        Some((rest, name)) if !Path::new(arg).exists() && !rest.is_empty() => {
            if !is_name(name) {
                return Err(Error::Usage(format!(
                    "`{}`: `{name}` after '=' is not a repository name (like owner/name)",
                    redact(arg)
                )));
            }
            (rest, Some(name.to_string()))
        }
        _ => (arg, None),
    };
    let mut spec = parse_location(arg)?;
    spec.name = name;
    Ok(spec)
}

/// Parses `URL_OR_PATH[@REV]`.
fn parse_location(arg: &str) -> Result<RepoSpec, Error> {
    let is_url = looks_like_url(arg);
    let path_start = if is_url {
        let (scheme, user, rest) = split_url(arg);
        let host_len = rest.find(['/', ':']).unwrap_or(rest.len());
        scheme.len() + user.map_or(0, |u| u.len() + 1) + host_len
    } else {
        0
    };
    let (loc, rev) = match arg[path_start..].rfind('@') {
        Some(i) if is_url || !Path::new(arg).exists() => {
            let at = path_start + i;
            (&arg[..at], Some(arg[at + 1..].to_string()))
        }
        _ => (arg, None),
    };
    if rev.as_deref() == Some("") {
        return Err(Error::Usage(format!(
            "`{}`: empty revision after '@'",
            redact(arg)
        )));
    }
    let location = if is_url {
        Location::Url(loc.to_string())
    } else {
        Location::Path(PathBuf::from(loc))
    };
    Ok(RepoSpec {
        location,
        rev,
        name: None,
        coverage: Vec::new(),
        origin: None,
        tests: None,
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    url: String,
    rev: Option<String>,
    name: Option<String>,
    /// One report path or a list of them.
    #[serde(default)]
    coverage: Reports,
    /// The test recipe (`mine --run-tests`): `setup`, `test`, `list`, `env`, `language`,
    /// timeouts.
    #[serde(default)]
    tests: Option<codemine_testrun::Recipe>,
}

#[derive(Deserialize, Default)]
#[serde(untagged)]
enum Reports {
    #[default]
    None,
    One(PathBuf),
    Many(Vec<PathBuf>),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TomlManifest {
    #[serde(alias = "repo", alias = "repository")]
    repos: Vec<toml::Spanned<Entry>>,
}

impl Entry {
    fn into_spec(self) -> Result<RepoSpec, Error> {
        let mut spec = parse_repo_arg(&self.url)?;
        if self.rev.is_some() {
            if spec.rev.is_some() {
                return Err(Error::Usage(format!(
                    "`{}`: revision given twice",
                    redact(&self.url)
                )));
            }
            spec.rev = self.rev;
        }
        if let Some(n) = self.name.filter(|n| !n.is_empty()) {
            if spec.name.is_some() {
                return Err(Error::Usage(format!(
                    "`{}`: name given twice (`=NAME` and `name`)",
                    redact(&self.url)
                )));
            }
            spec.name = Some(n);
        }
        spec.coverage = match self.coverage {
            Reports::None => Vec::new(),
            Reports::One(p) => vec![p],
            Reports::Many(v) => v,
        };
        spec.tests = self.tests;
        Ok(spec)
    }
}

/// Reads a manifest: TOML (`[[repos]]` tables with `url`, `rev`, `name`, `coverage` and a
/// `[repos.tests]` recipe), JSONL (one object per line with the same keys), or plain text
/// (one `URL_OR_PATH[@REV]` per line; `#` starts a comment). `coverage` is a report path or
/// a list of them.
/// Relative paths (repositories and reports) are taken relative to the manifest's folder.
pub fn read_manifest(path: &Path) -> Result<Vec<RepoSpec>, Error> {
    let text = codemine_io::read_regular_string(path, codemine_io::MAX_TEXT_BYTES)
        .map_err(|e| Error::Usage(format!("manifest {}: {e}", path.display())))?;
    let bad = |line: usize, why: String| {
        Error::Usage(format!("manifest {}:{line}: {why}", path.display()))
    };
    let is_toml = path.extension().is_some_and(|e| e == "toml");
    let mut specs = Vec::new();
    if is_toml {
        let m: TomlManifest = toml::from_str(&text).map_err(|e| {
            let line = e.span().map_or(0, |s| line_of(&text, s.start));
            bad(line, e.message().to_string())
        })?;
        for e in m.repos {
            let line = line_of(&text, e.span().start);
            specs.push(
                e.into_inner()
                    .into_spec()
                    .map_err(|e| bad(line, e.to_string()))?,
            );
        }
    } else {
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let spec = if line.starts_with('{') {
                let e: Entry = serde_json::from_str(line).map_err(|e| bad(i + 1, e.to_string()))?;
                e.into_spec()
            } else {
                parse_repo_arg(line)
            };
            specs.push(spec.map_err(|e| bad(i + 1, e.to_string()))?);
        }
    }
    let base = path.parent().unwrap_or(Path::new("."));
    for s in &mut specs {
        if let Location::Path(p) = &mut s.location {
            if p.is_relative() {
                *p = base.join(&*p);
            }
        }
        for r in &mut s.coverage {
            if r.is_relative() {
                *r = base.join(&*r);
            }
        }
    }
    Ok(specs)
}

/// The 1-based line of a byte offset.
fn line_of(text: &str, offset: usize) -> usize {
    let end = offset.min(text.len());
    text.as_bytes()[..end]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> Location {
        Location::Url(s.into())
    }

    #[test]
    fn repo_args() {
        let s = parse_repo_arg("https://github.com/psf/requests@v2.31.0").unwrap();
        assert_eq!(s.location, url("https://github.com/psf/requests"));
        assert_eq!(s.rev.as_deref(), Some("v2.31.0"));
        assert_eq!(s.repo_name(), "psf/requests");

        let s = parse_repo_arg("git@github.com:google/gson.git").unwrap();
        assert_eq!(s.location, url("git@github.com:google/gson.git"));
        assert_eq!(s.rev, None);
        assert_eq!(s.repo_name(), "google/gson");

        let s = parse_repo_arg("git@github.com:google/gson.git@feature/x").unwrap();
        assert_eq!(s.rev.as_deref(), Some("feature/x"));

        let s = parse_repo_arg("https://user:s3cret@example.com/o/r.git@main").unwrap();
        assert_eq!(s.location, url("https://user:s3cret@example.com/o/r.git"));
        assert_eq!(s.rev.as_deref(), Some("main"));
        assert_eq!(s.display(), "https://example.com/o/r.git");
        assert_eq!(s.repo_name(), "o/r");

        let s = parse_repo_arg("/no/such/dir@abc123").unwrap();
        assert_eq!(s.location, Location::Path("/no/such/dir".into()));
        assert_eq!(s.rev.as_deref(), Some("abc123"));
        assert_eq!(s.repo_name(), "dir");
    }

    #[test]
    fn web_remotes_of_github_gitlab_and_bitbucket_style_urls() {
        let w = |u: &str| web_remote(u).map(|w| (w.host.clone(), w.path.clone(), w.name()));
        let t = |h: &str, p: &str, n: &str| Some((h.to_string(), p.to_string(), n.to_string()));
        assert_eq!(
            w("https://github.com/psf/requests.git"),
            t("github.com", "psf/requests", "psf/requests")
        );
        assert_eq!(
            w("https://github.com/psf/requests/"),
            t("github.com", "psf/requests", "psf/requests")
        );
        assert_eq!(
            w("git@github.com:psf/requests.git"),
            t("github.com", "psf/requests", "psf/requests")
        );
        assert_eq!(
            w("ssh://git@GitLab.com:2222/grp/sub/tool.git"),
            t("gitlab.com", "grp/sub/tool", "sub/tool")
        );
        assert_eq!(
            w("https://ghp_TOKEN@github.com/o/r"),
            t("github.com", "o/r", "o/r")
        );
        assert_eq!(
            w("https://alice:pw@bitbucket.org/team/app.git"),
            t("bitbucket.org", "team/app", "team/app")
        );
        assert_eq!(
            w("git@bitbucket.org:team/app.git"),
            t("bitbucket.org", "team/app", "team/app")
        );
        assert_eq!(
            w("https://git.example.com:8443/o/r"),
            t("git.example.com:8443", "o/r", "o/r")
        );
        assert_eq!(w("git://example.org/o/r"), t("example.org", "o/r", "o/r"));
        // Not a web home: local paths, file:// URLs, a single segment.
        assert_eq!(w("/srv/git/repo.git"), None);
        assert_eq!(w("../repo"), None);
        assert_eq!(w("file:///srv/git/o/r.git"), None);
        assert_eq!(w("https://example.com/r.git"), None);
    }

    #[test]
    fn repo_args_take_a_name() {
        let s = parse_repo_arg("/no/such/checkout@v1=acme/tool").unwrap();
        assert_eq!(s.location, Location::Path("/no/such/checkout".into()));
        assert_eq!(s.rev.as_deref(), Some("v1"));
        assert_eq!(s.repo_name(), "acme/tool");
        let s = parse_repo_arg("git@github.com:o/r.git@main=mirror/r").unwrap();
        assert_eq!(s.location, url("git@github.com:o/r.git"));
        assert_eq!(s.rev.as_deref(), Some("main"));
        assert_eq!(s.repo_name(), "mirror/r");
        let s = parse_repo_arg("https://u:p@host/o/r=x").unwrap();
        assert_eq!(s.display(), "https://host/o/r");
        assert_eq!(s.repo_name(), "x");
        for bad in [
            "/a/b=",
            "/a/b=has space",
            "/a/b=o//r",
            "/a/b=../up",
            "/a/b=x@y",
        ] {
            let e = parse_repo_arg(bad).unwrap_err().to_string();
            assert!(e.contains("not a repository name"), "{bad}: {e}");
        }
        // An existing path is never split.
        let dir = tempfile::tempdir().expect("tempdir");
        let odd = dir.path().join("a=b");
        std::fs::create_dir(&odd).expect("mkdir");
        let s = parse_repo_arg(odd.to_str().expect("utf-8")).unwrap();
        assert_eq!(s.location, Location::Path(odd.clone()));
        assert_eq!(s.repo_name(), "a=b");
    }

    #[test]
    fn local_clones_are_named_by_their_origin_and_names_are_unique() {
        let origins = |p: &Path| -> Option<String> {
            match p.to_str()? {
                "/x/one/repo" => Some("https://bob:s3cret@github.com/bob/tool.git".into()),
                "/x/two/repo" => Some("git@gitlab.com:alice/tool.git".into()),
                "/x/three/repo" => Some("/srv/git/tool.git".into()),
                "/x/four/repo" => Some("https://github.com/bob/tool".into()),
                _ => None,
            }
        };
        let specs: Vec<RepoSpec> = ["/x/one/repo", "/x/two/repo", "/x/three/repo"]
            .iter()
            .map(|a| parse_repo_arg(a).unwrap())
            .collect();
        let named = resolve_names(&specs, origins).unwrap();
        let names: Vec<String> = named.iter().map(RepoSpec::repo_name).collect();
        assert_eq!(names, ["bob/tool", "alice/tool", "repo"]);
        // Credentials are never kept.
        assert_eq!(
            named[0].origin.as_deref(),
            Some("https://github.com/bob/tool.git")
        );
        assert_eq!(named[1].web().map(|w| w.host), Some("gitlab.com".into()));
        assert_eq!(named[2].web(), None);

        // Two folders called `repo` without a web remote: a usage error naming both.
        let specs: Vec<RepoSpec> = ["/x/three/repo", "/x/five/repo"]
            .iter()
            .map(|a| parse_repo_arg(a).unwrap())
            .collect();
        let e = resolve_names(&specs, origins).unwrap_err().to_string();
        assert!(
            e.contains("`repo`") && e.contains("/x/three/repo") && e.contains("/x/five/repo"),
            "{e}"
        );
        // ... which `=NAME` settles.
        let specs: Vec<RepoSpec> = ["/x/three/repo", "/x/five/repo=acme/other"]
            .iter()
            .map(|a| parse_repo_arg(a).unwrap())
            .collect();
        assert!(resolve_names(&specs, origins).is_ok());
        // One repository twice (a clone and its remote's URL, or two revisions) is no clash.
        let specs: Vec<RepoSpec> = [
            "/x/one/repo",
            "/x/four/repo@v1",
            "https://github.com/bob/tool@v2",
        ]
        .iter()
        .map(|a| parse_repo_arg(a).unwrap())
        .collect();
        assert!(resolve_names(&specs, origins).is_ok());
        // A name given twice to two repositories is a clash too.
        let specs: Vec<RepoSpec> = ["/x/one/repo=same/name", "/x/two/repo=same/name"]
            .iter()
            .map(|a| parse_repo_arg(a).unwrap())
            .collect();
        assert!(resolve_names(&specs, origins).is_err());
    }

    #[test]
    fn redaction() {
        assert_eq!(
            redact("https://ghp_TOKEN@github.com/o/r"),
            "https://github.com/o/r"
        );
        assert_eq!(
            redact("https://x:y@github.com/o/r"),
            "https://github.com/o/r"
        );
        assert_eq!(redact("ssh://git:pw@host/o/r"), "ssh://host/o/r");
        assert_eq!(redact("ssh://git@host/o/r"), "ssh://git@host/o/r");
        assert_eq!(redact("git@host:o/r"), "git@host:o/r");
        assert_eq!(
            redact("https://github.com/o/r@main"),
            "https://github.com/o/r@main"
        );
        assert_eq!(
            url_credentials("https://u:p@h/x"),
            Some(("u".into(), Some("p".into())))
        );
        // RFC 3986 percent-encoding in the userinfo; scp-like syntax has none.
        assert_eq!(
            url_credentials("https://user%40corp:tok%2Fen%3A@h/x"),
            Some(("user@corp".into(), Some("tok/en:".into())))
        );
        assert_eq!(
            url_credentials("git%41@host:o/r"),
            Some(("git%41".into(), None))
        );
    }

    fn manifest_error(name: &str, text: &str) -> String {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join(name);
        std::fs::write(&path, text).expect("write");
        match read_manifest(&path) {
            Ok(_) => panic!("{text:?} was accepted"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn toml_manifest_errors_name_their_line() {
        let e = manifest_error("m.toml", "[[repos]]\nurl = \"/a\"\nbogus = 1\n");
        assert!(e.contains("m.toml:3:") && e.contains("bogus"), "{e}");
        let e = manifest_error(
            "m.toml",
            "[[repos]]\nurl = \"/a\"\n\n[[repos]]\nname = \"x\"\n",
        );
        assert!(e.contains("m.toml:4:") && e.contains("url"), "{e}");
        let e = manifest_error(
            "m.toml",
            "[[repos]]\nurl = \"/a\"\n[[repos]]\nurl = \"/b@v1\"\nrev = \"v2\"\n",
        );
        assert!(
            e.contains("m.toml:3:") && e.contains("revision given twice"),
            "{e}"
        );
        let e = manifest_error("m.toml", "[[repos]]\nurl = 3\n");
        assert!(e.contains("m.toml:2:"), "{e}");
    }
}
