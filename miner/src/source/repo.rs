//! Opening a repository at a revision: clone or fetch remote URLs into a bare cache with
//! git2, open local checkouts without touching their working tree, and list the source
//! files of the resolved commit straight from the object database.

use std::fs;
use std::path::{Path, PathBuf};

use git2::{FetchOptions, ObjectType, Oid, RemoteCallbacks, Repository, RepositoryOpenFlags};
use xxhash_rust::xxh3::xxh3_64;

use super::spec::{redact, url_credentials, Location, RepoSpec};
use crate::lang::{Lang, Registry};

/// How repositories are fetched.
#[derive(Debug, Clone)]
pub struct SourceOptions {
    /// Bare clones of remote repositories live here, one folder per URL.
    pub cache_dir: PathBuf,
    /// Use cached clones as they are, without fetching.
    pub offline: bool,
    /// Fetch only the last `depth` commits of each branch and tag (a shallow clone) over
    /// the network transports. `None` fetches everything and deepens a shallow cached
    /// clone; `file://` URLs are always fetched whole (libgit2's local transport cannot
    /// make shallow clones, and there is no network to save).
    pub depth: Option<u32>,
}

/// Why a repository could not be opened. `kind()` is the machine-readable reason written
/// to failures.jsonl.
#[derive(Debug, thiserror::Error)]
pub enum RepoError {
    #[error("path does not exist: {0}")]
    PathNotFound(String),
    #[error("cannot fetch {url}: {message}")]
    Unreachable { url: String, message: String },
    /// `--offline` and the clone cache has no (complete) clone of the URL: nothing is
    /// fetched, no socket made.
    #[error("{url} is not in the cache ({cache}) and --offline fetches nothing: run once without --offline")]
    NotCached { url: String, cache: String },
    /// `hint` says why when the clone is shallow (empty otherwise).
    #[error("revision `{rev}` not found in {repo}{hint}")]
    RevNotFound {
        rev: String,
        repo: String,
        hint: &'static str,
    },
    /// The revision names an object that exists but is no commit (a blob or a tree sha, or
    /// a tag of one).
    #[error("revision `{rev}` in {repo} is a {kind}, not a commit")]
    RevNotCommit {
        rev: String,
        repo: String,
        kind: &'static str,
    },
    #[error("a revision (`{0}`) was given for a folder that is not a git repository")]
    RevWithoutGit(String),
    #[error("{repo}: repository has no commits")]
    NoCommits { repo: String },
    #[error("{repo}: corrupt or unreadable repository: {message}")]
    Corrupt { repo: String, message: String },
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
}

impl RepoError {
    pub fn kind(&self) -> &'static str {
        match self {
            RepoError::PathNotFound(_) => "path_not_found",
            RepoError::Unreachable { .. } => "unreachable",
            RepoError::NotCached { .. } => "not_in_cache",
            RepoError::RevNotFound { .. } => "revision_not_found",
            RepoError::RevNotCommit { .. } => "revision_not_a_commit",
            RepoError::RevWithoutGit(_) => "revision_without_git",
            RepoError::NoCommits { .. } => "no_commits",
            RepoError::Corrupt { .. } => "corrupt_repository",
            RepoError::Io { .. } => "io_error",
        }
    }
}

/// A source file of a supported language at the mined revision.
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// `/`-separated, relative to the repository root.
    pub path: String,
    pub lang: Lang,
    oid: Option<Oid>,
}

/// Entries that were listed but are not read, by reason.
#[derive(Debug, Default, Clone, serde::Serialize, serde::Deserialize)]
pub struct Skipped {
    pub symlinks: usize,
    pub submodules: usize,
    pub unsupported: usize,
    pub non_utf8_path: usize,
    /// FIFOs, sockets and devices in a plain folder: never opened (a FIFO would block the
    /// run, a device never ends).
    #[serde(default)]
    pub special: usize,
}

/// A repository opened at a resolved revision, with its source files listed.
#[derive(Debug)]
pub struct Snapshot {
    /// The `repo` value of output rows.
    pub name: String,
    /// The location without credentials.
    pub display: String,
    /// The resolved commit; `None` for a plain folder.
    pub sha: Option<String>,
    /// The web host of the repository: a remote URL's, or a local clone's `origin`'s
    /// (rows link to `https://{host}/{repo}/blob/...`; GitHub's when `None`).
    pub remote_host: Option<String>,
    pub files: Vec<SourceFile>,
    /// The license files and package manifests ([`codemine_license::wanted`]), read by the
    /// license step, and the project files resolvers read ([`Lang::wants_project_file`]);
    /// they are not source files.
    pub license_files: Vec<LicenseFile>,
    pub skipped: Skipped,
    access: Access,
}

/// A license file or package manifest of a snapshot.
#[derive(Debug, Clone)]
pub struct LicenseFile {
    /// `/`-separated, relative to the repository root.
    pub path: String,
    oid: Option<Oid>,
}

#[derive(Debug, Clone)]
enum Access {
    Git(PathBuf),
    Disk(PathBuf),
}

/// Reads file contents of a [`Snapshot`]; one per thread (a git2 repository is not `Sync`).
pub enum Reader {
    Git(Repository),
    Disk(PathBuf),
}

/// Why one file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("file is {size} bytes, over the limit of {limit}")]
    TooLarge { size: u64, limit: u64 },
    #[error("cannot read: {0}")]
    Unreadable(String),
}

impl Reader {
    /// The bytes of `file`, refusing files over `limit` bytes before reading them.
    pub fn read(&self, file: &SourceFile, limit: u64) -> Result<Vec<u8>, ReadError> {
        self.read_at(&file.path, file.oid, limit)
    }

    /// The bytes of a license file or manifest, as [`Reader::read`].
    pub fn read_license(&self, file: &LicenseFile, limit: u64) -> Result<Vec<u8>, ReadError> {
        self.read_at(&file.path, file.oid, limit)
    }

    fn read_at(&self, path: &str, oid: Option<Oid>, limit: u64) -> Result<Vec<u8>, ReadError> {
        match self {
            Reader::Git(repo) => {
                let oid = oid.ok_or_else(|| ReadError::Unreadable("no object id".into()))?;
                let odb = repo
                    .odb()
                    .map_err(|e| ReadError::Unreadable(e.message().to_string()))?;
                let (size, _) = odb
                    .read_header(oid)
                    .map_err(|e| ReadError::Unreadable(e.message().to_string()))?;
                if size as u64 > limit {
                    return Err(ReadError::TooLarge {
                        size: size as u64,
                        limit,
                    });
                }
                let blob = repo
                    .find_blob(oid)
                    .map_err(|e| ReadError::Unreadable(e.message().to_string()))?;
                Ok(blob.content().to_vec())
            }
            Reader::Disk(root) => read_regular(&root.join(path), limit),
        }
    }
}

/// The bytes of a regular file, at most `limit` of them: anything else (a FIFO, a device,
/// a symlink swapped in since the listing) is refused without reading it, and a file that
/// grew past the limit since its size was seen is refused after `limit + 1` bytes.
fn read_regular(path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    codemine_io::read_regular(path, limit, codemine_io::Follow::No).map_err(|e| match e {
        codemine_io::ReadError::TooLarge { size, limit } => ReadError::TooLarge { size, limit },
        codemine_io::ReadError::NotRegular(_) => ReadError::Unreadable("not a regular file".into()),
        codemine_io::ReadError::Io(e) => ReadError::Unreadable(e.to_string()),
    })
}

impl SourceFile {
    /// The file's blob at the mined commit (`None` in a plain folder).
    pub fn blob(&self) -> Option<Oid> {
        self.oid
    }
}

impl Snapshot {
    /// The git directory, for a repository (`None` for a plain folder).
    pub fn git_dir(&self) -> Option<&Path> {
        match &self.access {
            Access::Git(dir) => Some(dir),
            Access::Disk(_) => None,
        }
    }

    /// A reader for this thread.
    pub fn reader(&self) -> Result<Reader, RepoError> {
        match &self.access {
            Access::Git(dir) => Repository::open_bare(dir)
                .or_else(|_| Repository::open(dir))
                .map(Reader::Git)
                .map_err(|e| RepoError::Corrupt {
                    repo: self.display.clone(),
                    message: e.message().to_string(),
                }),
            Access::Disk(root) => Ok(Reader::Disk(root.clone())),
        }
    }
}

/// Opens `spec` at its revision and lists its source files.
pub fn open(spec: &RepoSpec, opts: &SourceOptions) -> Result<Snapshot, RepoError> {
    let name = spec.repo_name();
    let display = spec.display();
    match &spec.location {
        Location::Url(url) => {
            let (repo, dir) = cached_clone(url, spec.rev.as_deref(), opts)?;
            let commit = resolve(&repo, spec.rev.as_deref(), &display)?;
            let mut snap = list_git(&commit, &display)?;
            snap.name = name;
            // A `file://` URL is a local repository: its web host is its origin's.
            snap.remote_host = match spec.web() {
                Some(w) => Some(w.host),
                None if url.starts_with("file://") => None,
                None => Some(host_of(&display)),
            };
            snap.access = Access::Git(dir);
            Ok(snap)
        }
        Location::Path(path) => {
            if !path.exists() {
                return Err(RepoError::PathNotFound(display));
            }
            match Repository::open_ext(path, RepositoryOpenFlags::NO_SEARCH, &[] as &[&Path]) {
                Ok(repo) => {
                    let commit = resolve(&repo, spec.rev.as_deref(), &display)?;
                    let mut snap = list_git(&commit, &display)?;
                    snap.name = name;
                    snap.remote_host = spec.web().map(|w| w.host);
                    snap.access = Access::Git(repo.path().to_path_buf());
                    Ok(snap)
                }
                // A folder with a `.git` that libgit2 cannot open is a broken repository,
                // not a plain folder.
                Err(e) if path.join(".git").exists() || path.join("HEAD").is_file() => {
                    Err(RepoError::Corrupt {
                        repo: display,
                        message: e.message().to_string(),
                    })
                }
                Err(_) => {
                    if let Some(rev) = &spec.rev {
                        return Err(RepoError::RevWithoutGit(rev.clone()));
                    }
                    let mut snap = list_disk(path, &display)?;
                    snap.name = name;
                    Ok(snap)
                }
            }
        }
    }
}

/// The URL of a local repository's `origin` remote, as configured (it may carry
/// credentials: redact it), or `None` when the folder is no repository or has no origin.
pub fn origin_of(path: &Path) -> Option<String> {
    let repo = Repository::open_ext(path, RepositoryOpenFlags::NO_SEARCH, &[] as &[&Path]).ok()?;
    let remote = repo.find_remote("origin").ok()?;
    remote.url().ok().map(str::to_string)
}

fn host_of(display_url: &str) -> String {
    let after = display_url
        .split_once("://")
        .map_or(display_url, |(_, a)| a);
    let after = after.rsplit_once('@').map_or(after, |(_, a)| a);
    after
        .split(['/', ':'])
        .next()
        .unwrap_or_default()
        .to_ascii_lowercase()
}

fn corrupt(display: &str, e: git2::Error) -> RepoError {
    RepoError::Corrupt {
        repo: display.to_string(),
        message: e.message().to_string(),
    }
}

fn resolve<'r>(
    repo: &'r Repository,
    rev: Option<&str>,
    display: &str,
) -> Result<git2::Commit<'r>, RepoError> {
    match rev {
        None => {
            let head = repo.head().map_err(|e| match e.code() {
                git2::ErrorCode::UnbornBranch | git2::ErrorCode::NotFound => RepoError::NoCommits {
                    repo: display.to_string(),
                },
                _ => corrupt(display, e),
            })?;
            head.peel_to_commit().map_err(|e| corrupt(display, e))
        }
        Some(r) => {
            let not_found = || RepoError::RevNotFound {
                rev: r.to_string(),
                repo: display.to_string(),
                hint: if repo.is_shallow() {
                    " (the clone is shallow, so older commits are not in it: run without --depth, or pin a full commit sha)"
                } else {
                    ""
                },
            };
            let obj = repo.revparse_single(r).map_err(|e| match e.code() {
                git2::ErrorCode::NotFound
                | git2::ErrorCode::Ambiguous
                | git2::ErrorCode::InvalidSpec => not_found(),
                _ if e.class() == git2::ErrorClass::Odb
                    || e.class() == git2::ErrorClass::Reference =>
                {
                    not_found()
                }
                _ => corrupt(display, e),
            })?;
            // A tag is peeled to what it finally names (peeling a commit "to any" would give
            // its tree, so only tags are peeled); anything but a commit is reported as what
            // it is.
            let target = match obj.kind() {
                Some(ObjectType::Tag) => obj.peel(ObjectType::Any).unwrap_or(obj),
                _ => obj,
            };
            match target.kind() {
                Some(ObjectType::Commit) => target.peel_to_commit().map_err(|_| not_found()),
                Some(ObjectType::Tag) | None => Err(not_found()),
                Some(other) => Err(RepoError::RevNotCommit {
                    rev: r.to_string(),
                    repo: display.to_string(),
                    kind: other.str(),
                }),
            }
        }
    }
}

fn list_git(commit: &git2::Commit, display: &str) -> Result<Snapshot, RepoError> {
    let tree = commit.tree().map_err(|e| corrupt(display, e))?;
    let mut files = Vec::new();
    let mut license_files = Vec::new();
    let mut skipped = Skipped::default();
    // libgit2 walks the tree with its own iteration, not on our stack.
    tree.walk(git2::TreeWalkMode::PreOrder, |root, entry| {
        if entry.kind() == Some(ObjectType::Tree) {
            return git2::TreeWalkResult::Ok;
        }
        let Ok(name) = entry.name() else {
            skipped.non_utf8_path += 1;
            return git2::TreeWalkResult::Ok;
        };
        let path = format!("{root}{name}");
        match entry.filemode() {
            0o120000 => skipped.symlinks += 1,
            0o160000 => skipped.submodules += 1,
            _ => match Lang::from_path(&path) {
                Some(lang) => files.push(SourceFile {
                    path,
                    lang,
                    oid: Some(entry.id()),
                }),
                None if (codemine_license::wanted(&path) || Lang::wants_project_file(&path)) => {
                    skipped.unsupported += 1;
                    license_files.push(LicenseFile {
                        path,
                        oid: Some(entry.id()),
                    });
                }
                None => skipped.unsupported += 1,
            },
        }
        git2::TreeWalkResult::Ok
    })
    .map_err(|e| corrupt(display, e))?;
    files.sort_by(|a, b| a.path.cmp(&b.path));
    license_files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(Snapshot {
        name: String::new(),
        display: display.to_string(),
        sha: Some(commit.id().to_string()),
        remote_host: None,
        files,
        license_files,
        skipped,
        access: Access::Disk(PathBuf::new()),
    })
}

fn list_disk(root: &Path, display: &str) -> Result<Snapshot, RepoError> {
    let mut files = Vec::new();
    let mut license_files = Vec::new();
    let mut skipped = Skipped::default();
    // Symlinks are never followed: one pointing outside the folder must not be read.
    let walk = walkdir::WalkDir::new(root)
        .follow_links(false)
        .sort_by_file_name();
    for entry in walk.into_iter().filter_entry(|e| e.file_name() != ".git") {
        let entry = entry.map_err(|e| RepoError::Io {
            path: display.to_string(),
            source: e.into(),
        })?;
        let ft = entry.file_type();
        if ft.is_dir() {
            continue;
        }
        let Ok(rel) = entry.path().strip_prefix(root) else {
            continue;
        };
        let Some(rel) = rel.to_str() else {
            skipped.non_utf8_path += 1;
            continue;
        };
        let path = rel.replace(std::path::MAIN_SEPARATOR, "/");
        if ft.is_symlink() {
            skipped.symlinks += 1;
        } else if !ft.is_file() {
            skipped.special += 1;
        } else if let Some(lang) = Lang::from_path(&path) {
            files.push(SourceFile {
                path,
                lang,
                oid: None,
            });
        } else if codemine_license::wanted(&path) || Lang::wants_project_file(&path) {
            skipped.unsupported += 1;
            license_files.push(LicenseFile { path, oid: None });
        } else {
            skipped.unsupported += 1;
        }
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    license_files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(Snapshot {
        name: String::new(),
        display: display.to_string(),
        sha: None,
        remote_host: None,
        files,
        license_files,
        skipped,
        access: Access::Disk(root.to_path_buf()),
    })
}

/// Locks the cache entry `dir` for this thread: an exclusive `flock` on `DIR.lock`, which
/// other threads (each opens the file anew) and other processes sharing the cache wait for.
/// Released when the returned file is dropped or the process ends.
fn cache_lock(dir: &Path) -> Result<fs::File, RepoError> {
    let mut name = dir.as_os_str().to_owned();
    name.push(".lock");
    let path = PathBuf::from(name);
    let io = |source| RepoError::Io {
        path: path.display().to_string(),
        source,
    };
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).map_err(io)?;
    }
    let file = fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(io)?;
    file.lock().map_err(io)?;
    Ok(file)
}

/// Removes the temporary pack files (`objects/pack/pack_git2_*`) that a fetch killed part-way
/// leaves in a cached clone; called with the entry's lock held, when no fetch runs.
fn remove_interrupted_packs(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir.join("objects").join("pack")) else {
        return;
    };
    for e in entries.flatten() {
        if e.file_name().to_string_lossy().starts_with("pack_git2_") {
            let _ = fs::remove_file(e.path());
        }
    }
}

/// The cache folder of a URL: readable, and unique per URL (credentials excluded).
pub fn cache_path(cache_dir: &Path, url: &str) -> PathBuf {
    let clean = redact(url);
    let readable: String = clean
        .split_once("://")
        .map_or(clean.as_str(), |(_, r)| r)
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let readable = &readable[readable.len().saturating_sub(60)..];
    cache_dir.join(format!("{readable}-{:016x}.git", xxh3_64(clean.as_bytes())))
}

fn is_full_sha(rev: &str) -> bool {
    rev.len() == 40 && rev.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Opens (or creates) the bare clone of `url` in the cache and brings it up to date.
fn cached_clone(
    url: &str,
    rev: Option<&str>,
    opts: &SourceOptions,
) -> Result<(Repository, PathBuf), RepoError> {
    let display = redact(url);
    let dir = cache_path(&opts.cache_dir, url);
    // Offline, a URL without a clone fails here, before anything is created or fetched:
    // libgit2 would resolve the host (a DNS query) before any error.
    let not_cached = || RepoError::NotCached {
        url: display.clone(),
        cache: opts.cache_dir.display().to_string(),
    };
    if opts.offline && !dir.exists() {
        return Err(not_cached());
    }
    let _lock = cache_lock(&dir)?;
    remove_interrupted_packs(&dir);
    let existing = dir.exists().then(|| Repository::open_bare(&dir));
    let (repo, fresh) = match existing {
        // A clone interrupted before its first fetch completed has no commits: it is fetched
        // as a new one (with --depth, if given).
        Some(Ok(repo)) => {
            let empty = repo.is_empty().unwrap_or(false);
            (repo, empty)
        }
        other => {
            if other.is_some() {
                // A broken cache entry (an interrupted clone) is rebuilt, not reported.
                fs::remove_dir_all(&dir).map_err(|source| RepoError::Io {
                    path: dir.display().to_string(),
                    source,
                })?;
            }
            fs::create_dir_all(&opts.cache_dir).map_err(|source| RepoError::Io {
                path: opts.cache_dir.display().to_string(),
                source,
            })?;
            let repo = Repository::init_bare(&dir).map_err(|e| corrupt(&display, e))?;
            (repo, true)
        }
    };
    // An interrupted clone (no commits yet) is not in the cache either.
    if opts.offline && fresh {
        return Err(not_cached());
    }
    let have_pinned = rev.is_some_and(|r| is_full_sha(r) && repo.revparse_single(r).is_ok());
    let depth = fetch_depth(url, &repo, fresh, opts.depth);
    // A shallow cached clone is deepened when the whole history is asked for, even when it
    // holds the pinned commit.
    let deepen = depth == Some(UNSHALLOW) && !opts.offline;
    if fresh || deepen || !(opts.offline || have_pinned) {
        if let Err(e) = fetch(
            &repo,
            url,
            &["+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*"],
            depth,
        ) {
            // Deepening is not needed to read a pinned commit the clone has: its dates
            // stay marked as bounds.
            let usable = !fresh && have_pinned;
            if !usable {
                if fresh {
                    let _ = fs::remove_dir_all(&dir);
                }
                return Err(RepoError::Unreachable {
                    url: display,
                    message: e,
                });
            }
        }
    }
    // A pinned commit that no branch or tag reaches can still be fetched by its id.
    if let Some(r) = rev.filter(|r| is_full_sha(r) && repo.revparse_single(r).is_err()) {
        if !opts.offline {
            let _ = fetch(&repo, url, &[r], depth);
        }
    }
    Ok((repo, dir))
}

/// libgit2's depth for "fetch the whole history of a shallow clone" (`GIT_FETCH_DEPTH_UNSHALLOW`).
const UNSHALLOW: i32 = i32::MAX;

/// The depth to fetch `url` with: `depth` for a new clone or one that is already shallow,
/// [`UNSHALLOW`] for a shallow clone when no depth is asked, and no limit otherwise (a whole
/// cached history is kept, not cut). `file://` URLs are never shallow.
fn fetch_depth(url: &str, repo: &Repository, fresh: bool, depth: Option<u32>) -> Option<i32> {
    if url.starts_with("file://") {
        return None;
    }
    match depth {
        Some(d) if fresh || repo.is_shallow() => Some(i32::try_from(d).unwrap_or(i32::MAX - 1)),
        Some(_) => None,
        None if repo.is_shallow() => Some(UNSHALLOW),
        None => None,
    }
}

/// Fetches `refspecs` from `url` into `repo` (the last `depth` commits only, when given),
/// and points HEAD at the remote's default branch. Credentials in the URL go to libgit2
/// through the credential callback, never as part of the URL, so its error messages cannot
/// contain them.
fn fetch(
    repo: &Repository,
    url: &str,
    refspecs: &[&str],
    depth: Option<i32>,
) -> Result<(), String> {
    let clean = redact(url);
    let creds = url_credentials(url);
    let mut attempts = 0;
    let mut callbacks = RemoteCallbacks::new();
    callbacks.credentials(move |u, user_from_url, allowed| {
        attempts += 1;
        if attempts > 3 {
            return Err(git2::Error::from_str("authentication failed"));
        }
        let user = creds
            .as_ref()
            .map(|(u, _)| u.as_str())
            .or(user_from_url)
            .unwrap_or("git");
        if allowed.contains(git2::CredentialType::SSH_KEY) {
            git2::Cred::ssh_key_from_agent(user)
        } else if allowed.contains(git2::CredentialType::USER_PASS_PLAINTEXT) {
            match &creds {
                Some((u, p)) => git2::Cred::userpass_plaintext(u, p.as_deref().unwrap_or("")),
                None => git2::Config::open_default()
                    .and_then(|cfg| git2::Cred::credential_helper(&cfg, u, user_from_url)),
            }
        } else {
            git2::Cred::default()
        }
    });
    let mut fo = FetchOptions::new();
    fo.remote_callbacks(callbacks);
    fo.download_tags(git2::AutotagOption::All);
    fo.prune(git2::FetchPrune::On);
    if let Some(d) = depth {
        fo.depth(d);
    }
    let mut remote = repo
        .remote_anonymous(&clean)
        .map_err(|e| e.message().to_string())?;
    remote
        .fetch(refspecs, Some(&mut fo), None)
        .map_err(|e| e.message().to_string())?;
    if let Ok(head) = remote.default_branch() {
        if let Ok(head) = head.as_str() {
            let _ = repo.set_head(head);
        }
    }
    Ok(())
}
