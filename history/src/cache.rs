//! A history cache, so that mining a repository again at a later commit walks only the
//! files that changed since.
//!
//! After a run at commit A the cache holds, per file (path and blob), the last commit of
//! every function span that was dated. A later run at commit B looks for the nearest cached
//! commit on B's first-parent line. A function at B keeps A's date when its file's path was
//! touched by none of the first-parent diffs from B down to A: `git blame` hands a line to
//! the first parent that has the identical blob (`pass_whole_blame`), so the function's lines
//! travel unchanged from B down that line to A, where the walk goes on exactly as the run at A
//! walked it. Files changed on the way (edited, added, deleted, renamed, or changed and changed
//! back) are walked from B, and the walk stops at A for every function whose lines all reach
//! A unchanged as exactly a span dated there ([`crate::blame::KnownAt`]): from A on, its
//! lines would take the run at A's path. Only what changed in A..B, and functions that do
//! not arrive at A whole (new ones, merged or split ones, lines through a branch), walk on.
//! Nothing else is trusted:
//!
//! - entries are keyed by path, blob and line span, so a file or function that differs is
//!   simply not found;
//! - a cache of another format or codemine version is ignored with a note;
//! - a cached commit that is not on B's first-parent line (a rewritten history, another
//!   branch) is never used: the lookup only finds commits on that line;
//! - a shallow clone neither reads nor writes the cache (its boundary dates depend on the
//!   depth).
//!
//! The result is therefore the full walk's, and the stats say what was reused.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use git2::{Oid, Repository};
use serde::{Deserialize, Serialize};

use crate::blame::{
    last_commits, last_commits_from, BlameError, BlameStats, BlameTarget, FileDates, KnownAt,
    KnownDates, LastCommit,
};

/// Bumped whenever the blame semantics or this file's layout change.
const FORMAT: u32 = 1;
/// How many cached commits a repository's folder keeps (the newest by write time).
const KEEP: usize = 4;
/// How far down B's first-parent line the lookup goes before giving up.
const MAX_CHAIN: usize = 100_000;
/// A cache file larger than this is ignored (about 5 million functions).
const MAX_FILE_BYTES: u64 = 512 << 20;

/// The cache folder of one repository.
#[derive(Debug, Clone)]
pub struct HistoryCache {
    dir: PathBuf,
}

impl HistoryCache {
    /// The folder under `root` for the repository at `git_dir`, named after the git
    /// directory's absolute path (the entries do not depend on the name being right: they
    /// are checked against the repository's own commits).
    pub fn for_repository(root: &Path, git_dir: &Path) -> Self {
        let abs = std::fs::canonicalize(git_dir).unwrap_or_else(|_| git_dir.to_path_buf());
        let text = abs.to_string_lossy();
        let readable: String = abs
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .take(60)
            .collect();
        let hash = xxhash_rust::xxh3::xxh3_64(text.as_bytes());
        Self {
            dir: root.join(format!("{readable}-{hash:016x}")),
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

/// What the cache did for one repository, for stats.json.
#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReuseStats {
    /// The cached commit the run started from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<String>,
    /// First-parent commits from the mined commit down to `base`.
    pub commits_since_base: usize,
    /// Paths changed by those commits' first-parent diffs.
    pub changed_paths: usize,
    pub reused_files: usize,
    pub reused_functions: usize,
    /// Functions of changed files whose lines all reached `base` unchanged, as a function
    /// dated there: the walk stopped at `base` for them.
    pub dated_at_base: usize,
    /// Why the cache was not used, or not written.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

#[derive(Debug, Serialize, Deserialize)]
struct CacheFile {
    format: u32,
    codemine: String,
    head: String,
    /// (sha, committer time, bounded: a cut history's upper bound).
    commits: Vec<(String, i64, bool)>,
    files: Vec<CachedFile>,
}

#[derive(Debug, Serialize, Deserialize)]
struct CachedFile {
    path: String,
    blob: String,
    /// (1-based start, end, index into `commits`).
    functions: Vec<(u32, u32, u32)>,
}

type Known = KnownDates;

/// [`last_commits`], reusing and then updating `cache` when one is given (see the module
/// doc). Cache problems are notes in the stats, never errors: the walk then does it all.
pub fn last_commits_cached(
    git_dir: &Path,
    head: Oid,
    targets: &[BlameTarget],
    groups: usize,
    cache: Option<&HistoryCache>,
) -> Result<(Vec<FileDates>, BlameStats, Option<ReuseStats>), BlameError> {
    let Some(cache) = cache else {
        let (dates, stats) = last_commits(git_dir, head, targets, groups)?;
        return Ok((dates, stats, None));
    };
    let mut reuse = ReuseStats::default();
    let repo = Repository::open(git_dir).map_err(|e| BlameError::Open {
        path: git_dir.display().to_string(),
        message: e.message().to_string(),
    })?;
    if repo.is_shallow() {
        reuse
            .notes
            .push("a shallow clone: the history cache is neither read nor written".into());
        let (dates, stats) = last_commits(git_dir, head, targets, groups)?;
        return Ok((dates, stats, Some(reuse)));
    }
    // The base's commit, the paths changed since, and its dates.
    let mut base = None;
    if let Some((at, changed, dates)) = load_base(&repo, cache, head, &mut reuse.notes) {
        reuse.base = Some(at.0.to_string());
        reuse.commits_since_base = at.1;
        reuse.changed_paths = changed.len();
        base = Some((at.0, changed, dates));
    }
    // The base's dates of a file untouched since: its dates at the head too.
    let untouched = |path: &str, blob: Oid| {
        let (_, changed, dates) = base.as_ref()?;
        if changed.contains(path) {
            return None;
        }
        dates.get(&(path.to_string(), blob))
    };
    // The functions the cache dates, and the rest to walk.
    let mut dates: Vec<FileDates> = targets
        .iter()
        .map(|t| vec![None; t.functions.len()])
        .collect();
    let mut walk_targets = Vec::new();
    let mut walk_slots = Vec::new();
    for (i, t) in targets.iter().enumerate() {
        let entry = untouched(&t.path, t.blob);
        let mut rest = BlameTarget {
            path: t.path.clone(),
            blob: t.blob,
            functions: Vec::new(),
        };
        let mut slots = Vec::new();
        let mut reused = 0;
        for (j, span) in t.functions.iter().enumerate() {
            match entry.and_then(|e| e.get(span)) {
                Some(d) => {
                    dates[i][j] = Some(*d);
                    reused += 1;
                }
                None => {
                    rest.functions.push(*span);
                    slots.push(j);
                }
            }
        }
        reuse.reused_functions += reused;
        if rest.functions.is_empty() {
            reuse.reused_files += usize::from(reused > 0);
        } else {
            walk_targets.push(rest);
            walk_slots.push((i, slots));
        }
    }
    let stop = base.as_ref().map(|(commit, _, dates)| KnownAt {
        commit: *commit,
        dates,
    });
    let (found, stats) = last_commits_from(git_dir, head, &walk_targets, groups, stop)?;
    reuse.dated_at_base = stats.dated_at_known;
    for (file, (i, slots)) in found.into_iter().zip(walk_slots) {
        for (d, j) in file.into_iter().zip(slots) {
            dates[i][j] = d;
        }
    }
    // What is known at the head: this run's dates, and the base's for untouched files
    // this run did not ask about (another filter setting may ask next time).
    let mut known: Known = base
        .map(|(_, changed, dates)| {
            dates
                .into_iter()
                .filter(|((path, _), _)| !changed.contains(path))
                .collect()
        })
        .unwrap_or_default();
    for (t, file) in targets.iter().zip(&dates) {
        let e = known.entry((t.path.clone(), t.blob)).or_default();
        for (span, d) in t.functions.iter().zip(file) {
            if let Some(d) = d {
                e.insert(*span, *d);
            }
        }
    }
    if let Err(e) = store(cache, head, &known) {
        reuse
            .notes
            .push(format!("the history cache was not written: {e}"));
    }
    Ok((dates, stats, Some(reuse)))
}

/// The nearest cached commit on `head`'s first-parent line, with the number of commits
/// down to it, the paths their first-parent diffs touch, and its entries.
fn load_base(
    repo: &Repository,
    cache: &HistoryCache,
    head: Oid,
    notes: &mut Vec<String>,
) -> Option<((Oid, usize), HashSet<String>, Known)> {
    let cached = cached_commits(cache);
    if cached.is_empty() {
        return None;
    }
    // Down the first-parent line to the first cached commit.
    let mut chain = Vec::new();
    let mut at = head;
    let base = loop {
        if cached.contains_key(&at) {
            break at;
        }
        if chain.len() >= MAX_CHAIN {
            notes.push(format!(
                "no cached commit within {MAX_CHAIN} first-parent commits of the mined one"
            ));
            return None;
        }
        let parent = repo.find_commit(at).ok().and_then(|c| c.parent_id(0).ok());
        chain.push(at);
        match parent {
            Some(p) => at = p,
            None => {
                notes.push(
                    "no cached commit is on the mined commit's first-parent line \
                     (another branch, or a rewritten history): the cache is not used"
                        .into(),
                );
                return None;
            }
        }
    };
    let path = &cached[&base];
    let known = match read_cache(path, base) {
        Ok(k) => k,
        Err(why) => {
            notes.push(format!("{} ignored: {why}", path.display()));
            return None;
        }
    };
    let mut changed = HashSet::new();
    for &c in &chain {
        if let Err(e) = first_parent_changes(repo, c, &mut changed) {
            notes.push(format!("the history cache is not used: {e}"));
            return None;
        }
    }
    Some(((base, chain.len()), changed, known))
}

/// The cache's files by commit.
fn cached_commits(cache: &HistoryCache) -> HashMap<Oid, PathBuf> {
    let mut out = HashMap::new();
    let Ok(rd) = std::fs::read_dir(&cache.dir) else {
        return out;
    };
    for e in rd.flatten() {
        let name = e.file_name();
        let Some(stem) = name.to_str().and_then(|n| n.strip_suffix(".json")) else {
            continue;
        };
        if let Ok(oid) = Oid::from_str(stem) {
            if stem.len() == 40 {
                out.insert(oid, e.path());
            }
        }
    }
    out
}

/// Adds the paths (both sides of each change) that `commit` changes against its first
/// parent.
fn first_parent_changes(
    repo: &Repository,
    commit: Oid,
    out: &mut HashSet<String>,
) -> Result<(), git2::Error> {
    let c = repo.find_commit(commit)?;
    let tree = c.tree()?;
    let ptree = c.parent(0)?.tree()?;
    let mut opts = git2::DiffOptions::new();
    opts.include_typechange(true).skip_binary_check(true);
    let diff = repo.diff_tree_to_tree(Some(&ptree), Some(&tree), Some(&mut opts))?;
    for d in diff.deltas() {
        for f in [d.old_file(), d.new_file()] {
            if let Some(p) = f.path().and_then(|p| p.to_str()) {
                out.insert(p.to_string());
            }
        }
    }
    Ok(())
}

fn read_cache(path: &Path, base: Oid) -> Result<Known, String> {
    let bytes = codemine_io::read_regular(path, MAX_FILE_BYTES, codemine_io::Follow::No)
        .map_err(|e| e.to_string())?;
    let file: CacheFile = serde_json::from_slice(&bytes).map_err(|e| e.to_string())?;
    let version = env!("CARGO_PKG_VERSION");
    if file.format != FORMAT || file.codemine != version {
        return Err(format!(
            "written by codemine {} (cache format {}), this is {version} (format {FORMAT})",
            file.codemine, file.format
        ));
    }
    if file.head != base.to_string() {
        return Err(format!("it names commit {}", file.head));
    }
    let mut commits = Vec::with_capacity(file.commits.len());
    for (sha, time, bounded) in &file.commits {
        let oid = Oid::from_str(sha).map_err(|_| format!("bad commit {sha:?}"))?;
        commits.push(LastCommit {
            time: *time,
            commit: oid,
            bounded: *bounded,
        });
    }
    let mut known = Known::new();
    for f in file.files {
        let blob = Oid::from_str(&f.blob).map_err(|_| format!("bad blob {:?}", f.blob))?;
        let e = known.entry((f.path, blob)).or_default();
        for (s, end, ci) in f.functions {
            let d = commits
                .get(ci as usize)
                .ok_or_else(|| format!("commit index {ci} out of range"))?;
            e.insert((s, end), *d);
        }
    }
    Ok(known)
}

fn store(cache: &HistoryCache, head: Oid, known: &Known) -> Result<(), String> {
    let mut commits: Vec<(String, i64, bool)> = Vec::new();
    let mut index: HashMap<(Oid, bool), u32> = HashMap::new();
    let mut keys: Vec<&(String, Oid)> = known.keys().collect();
    keys.sort();
    let mut files = Vec::with_capacity(keys.len());
    for key in keys {
        // A bounded date (a parent missing from the object database) may change when
        // the clone gets more objects: never kept.
        let mut functions: Vec<(u32, u32, u32)> = known[key]
            .iter()
            .filter(|(_, d)| !d.bounded)
            .map(|(&(s, e), d)| {
                let ci = *index.entry((d.commit, d.bounded)).or_insert_with(|| {
                    commits.push((d.commit.to_string(), d.time, d.bounded));
                    (commits.len() - 1) as u32
                });
                (s, e, ci)
            })
            .collect();
        functions.sort_unstable();
        files.push(CachedFile {
            path: key.0.clone(),
            blob: key.1.to_string(),
            functions,
        });
    }
    let file = CacheFile {
        format: FORMAT,
        codemine: env!("CARGO_PKG_VERSION").to_string(),
        head: head.to_string(),
        commits,
        files,
    };
    let bytes = serde_json::to_vec(&file).map_err(|e| e.to_string())?;
    std::fs::create_dir_all(&cache.dir).map_err(|e| format!("{}: {e}", cache.dir.display()))?;
    let path = cache.dir.join(format!("{head}.json"));
    codemine_io::atomic::write_atomic(&path, &bytes).map_err(|e| e.to_string())?;
    prune(cache, &path);
    Ok(())
}

/// Keeps the [`KEEP`] newest cache files of the folder (and always the one just written).
fn prune(cache: &HistoryCache, written: &Path) {
    let mut files: Vec<(std::time::SystemTime, PathBuf)> = cached_commits(cache)
        .into_values()
        .filter(|p| p != written)
        .filter_map(|p| {
            let t = std::fs::metadata(&p).and_then(|m| m.modified()).ok()?;
            Some((t, p))
        })
        .collect();
    files.sort();
    let excess = files.len().saturating_sub(KEEP - 1);
    for (_, p) in files.into_iter().take(excess) {
        let _ = std::fs::remove_file(p);
    }
}
