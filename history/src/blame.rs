//! Last-commit dates of functions under `git blame` semantics, for many files in one walk.
//!
//! `git blame` answers one file at a time: it walks the history from the mined commit,
//! newest committer date first, and at each commit hands every still-unexplained line to
//! the parent that has it unchanged. This module runs the same algorithm for all files of
//! a repository at once, so one tree diff per commit replaces a path lookup per file per
//! commit, and it follows git's builtin/blame.c (git 2.47) step by step:
//!
//! - a parent with the identical blob at the same path takes every line (`pass_whole_blame`);
//! - otherwise each parent with the path (same path first, then a whole-file rename found by
//!   rename detection, `find_rename`) takes the lines that a diff of the two blobs leaves
//!   unchanged, parents in order; parents whose blob repeats an earlier parent's are skipped;
//! - rename detection is git's for one followed path (`single_follow`): the sources are the
//!   files the commit deleted, an identical blob wins, else the best of git's span-hash
//!   similarity scores (diffcore-delta.c) of at least 50%, same file name first on a tie;
//! - lines no parent takes are blamed on the commit;
//! - diffs are xdiff's Myers with the indent heuristic and no whitespace options, as git's
//!   defaults are, after git's trim of the common tail: libgit2 carries the same xdiff,
//!   called directly ([`crate::xdiff`]).
//!
//! Only the lines of the functions asked about are tracked, and a function is done as soon
//! as no line still unexplained can be blamed on a newer commit. Commits are visited by the
//! newest committer date among themselves and their ancestors (then by generation), which is
//! a topological order: no commit is visited twice, and when a commit's own date is that
//! newest date (no clock skew below it) a function is done at its first blamed line. Where
//! dates go back in time the function's lines stay tracked until the bound allows, so the
//! answer is exact either way. A line's commit does not depend on the visiting order, only
//! on the diffs along its path, so the order changes nothing that `git blame` would say.
//!
//! In a shallow clone the boundary commits have no parents here: lines blamed on one are
//! only known to be that old or older, and the result is marked `bounded`.

use std::collections::{BinaryHeap, HashMap, HashSet};
use std::path::Path;

use git2::{Delta, DiffOptions, Oid, Repository};

use super::{similarity, xdiff};

/// What to date: one file of the mined commit and the line spans of its functions.
#[derive(Debug, Clone)]
pub struct BlameTarget {
    /// `/`-separated path at the mined commit.
    pub path: String,
    /// The file's blob at the mined commit.
    pub blob: Oid,
    /// 1-based inclusive (start, end) line spans.
    pub functions: Vec<(u32, u32)>,
}

/// The latest commit among a function's lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LastCommit {
    /// Committer time, Unix seconds.
    pub time: i64,
    pub commit: Oid,
    /// The commit is a shallow clone's boundary: the true date may be older.
    pub bounded: bool,
}

/// Per file, per function: its last commit.
pub type FileDates = Vec<Option<LastCommit>>;

/// Counters of one run, for stats.json. They count what a single walk over all the files
/// would do, however many groups walked them: a commit visited by two groups counts once
/// (see [`Seen`]), so the same input gives the same counts whatever the thread count.
#[derive(Debug, Default, Clone, serde::Serialize, serde::Deserialize)]
pub struct BlameStats {
    pub files: usize,
    // Named apart: `HistoryStats` flattens these next to its own `functions`.
    #[serde(rename = "walked_functions")]
    pub functions: usize,
    /// Distinct commits at which some tracked line was examined.
    pub commits_visited: usize,
    /// Distinct (commit, parent) tree diffs.
    pub tree_diffs: usize,
    /// Distinct (commit, path, parent blob) blob diffs.
    pub blob_diffs: usize,
    /// Distinct (commit, parent, path) rename searches.
    pub rename_searches: usize,
    /// Commits visited whose own date is older than one of their ancestors' (clock skew).
    pub skewed_commits: usize,
    pub shallow: bool,
    /// Functions dated at [`KnownAt`]'s commit: every line of theirs reached it unchanged
    /// as one of its known spans. Reported by the cache's stats, not here.
    #[serde(skip)]
    pub dated_at_known: usize,
}

impl BlameStats {
    pub fn add(&mut self, o: &BlameStats) {
        self.files += o.files;
        self.functions += o.functions;
        self.commits_visited += o.commits_visited;
        self.tree_diffs += o.tree_diffs;
        self.blob_diffs += o.blob_diffs;
        self.rename_searches += o.rename_searches;
        self.skewed_commits += o.skewed_commits;
        self.shallow |= o.shallow;
        self.dated_at_known += o.dated_at_known;
    }
}

/// The work one group's walk did, as sets of hashed keys: groups that walk the same commits
/// repeat work a single walk would do once, and the union of their sets is that walk's.
#[derive(Debug, Default)]
struct Seen {
    commits: HashSet<u128>,
    skewed: HashSet<u128>,
    tree_diffs: HashSet<u128>,
    blob_diffs: HashSet<u128>,
    rename_searches: HashSet<u128>,
}

impl Seen {
    fn key(oids: &[Oid], path: &str) -> u128 {
        let mut bytes = Vec::with_capacity(oids.len() * 20 + path.len());
        for o in oids {
            bytes.extend_from_slice(o.as_bytes());
        }
        bytes.extend_from_slice(path.as_bytes());
        xxhash_rust::xxh3::xxh3_128(&bytes)
    }

    fn union(&mut self, o: Seen) {
        self.commits.extend(o.commits);
        self.skewed.extend(o.skewed);
        self.tree_diffs.extend(o.tree_diffs);
        self.blob_diffs.extend(o.blob_diffs);
        self.rename_searches.extend(o.rename_searches);
    }

    fn count_into(&self, stats: &mut BlameStats) {
        stats.commits_visited = self.commits.len();
        stats.skewed_commits = self.skewed.len();
        stats.tree_diffs = self.tree_diffs.len();
        stats.blob_diffs = self.blob_diffs.len();
        stats.rename_searches = self.rename_searches.len();
    }
}

#[derive(Debug, thiserror::Error)]
pub enum BlameError {
    #[error("cannot open the repository at {path}: {message}")]
    Open { path: String, message: String },
    #[error("git error while walking the history at {commit}: {message}")]
    Git { commit: String, message: String },
}

fn git_err(commit: Oid) -> impl Fn(git2::Error) -> BlameError {
    move |e| BlameError::Git {
        commit: commit.to_string(),
        message: e.message().to_string(),
    }
}

/// Known dates by (path, blob), then by 1-based inclusive line span.
pub type KnownDates = HashMap<(String, Oid), HashMap<(u32, u32), LastCommit>>;

/// The functions' dates of an earlier walk at `commit`, an ancestor of the head: a function
/// whose lines all reach `commit` unchanged, as exactly a span known there, has that span's
/// date (from there on the walk would be the earlier one), and the walk stops for it.
#[derive(Debug, Clone, Copy)]
pub struct KnownAt<'k> {
    pub commit: Oid,
    pub dates: &'k KnownDates,
}

/// Dates every function of `targets` at `head`, walking `groups` independent parts of the
/// file set in parallel (each opens its own repository handle). The result has one entry
/// per target and one per function of it, in order; `None` when no commit could be found
/// (the blob is not in the history, which does not happen for a commit's own files).
pub fn last_commits(
    git_dir: &Path,
    head: Oid,
    targets: &[BlameTarget],
    groups: usize,
) -> Result<(Vec<FileDates>, BlameStats), BlameError> {
    last_commits_from(git_dir, head, targets, groups, None)
}

/// [`last_commits`], taking what `known` says at its commit (see [`KnownAt`]).
pub fn last_commits_from(
    git_dir: &Path,
    head: Oid,
    targets: &[BlameTarget],
    groups: usize,
    known: Option<KnownAt<'_>>,
) -> Result<(Vec<FileDates>, BlameStats), BlameError> {
    use rayon::prelude::*;
    // libgit2 re-hashes every object it reads by default; git does not, and on a long
    // history the SHA-1 (collision-detecting) was a quarter of this stage's time.
    git2::opts::strict_hash_verification(false);
    let parts = partition(targets, groups.max(1));
    type GroupResult = Result<(Vec<usize>, Vec<FileDates>, BlameStats, Seen), BlameError>;
    let results: Vec<GroupResult> = parts
        .into_par_iter()
        .map(|idx| {
            let files: Vec<&BlameTarget> = idx.iter().map(|&i| &targets[i]).collect();
            let (dates, stats, seen) = walk_group(git_dir, head, &files, known)?;
            Ok((idx, dates, stats, seen))
        })
        .collect();
    let mut out: Vec<FileDates> = targets.iter().map(|_| Vec::new()).collect();
    let mut stats = BlameStats::default();
    let mut seen = Seen::default();
    for r in results {
        let (idx, dates, s, group_seen) = r?;
        stats.add(&s);
        seen.union(group_seen);
        for (i, d) in idx.into_iter().zip(dates) {
            out[i] = d;
        }
    }
    seen.count_into(&mut stats);
    Ok((out, stats))
}

/// Splits the files into at most `n` groups of similar tracked-line counts (largest first,
/// each to the lightest group), so the groups' walks take similar time.
fn partition(targets: &[BlameTarget], n: usize) -> Vec<Vec<usize>> {
    let weight = |t: &BlameTarget| -> u64 {
        t.functions
            .iter()
            .map(|&(s, e)| u64::from(e.saturating_sub(s)) + 1)
            .sum()
    };
    let mut order: Vec<usize> = (0..targets.len())
        .filter(|&i| !targets[i].functions.is_empty())
        .collect();
    order.sort_by_key(|&i| (std::cmp::Reverse(weight(&targets[i])), i));
    let n = n.min(order.len()).max(1);
    let mut groups: Vec<(u64, Vec<usize>)> = vec![(0, Vec::new()); n];
    for i in order {
        if let Some(g) = groups.iter_mut().min_by_key(|g| g.0) {
            g.0 += weight(&targets[i]);
            g.1.push(i);
        }
    }
    groups
        .into_iter()
        .map(|(_, mut g)| {
            g.sort_unstable();
            g
        })
        .filter(|g| !g.is_empty())
        .collect()
}

fn walk_group(
    git_dir: &Path,
    head: Oid,
    files: &[&BlameTarget],
    known: Option<KnownAt<'_>>,
) -> Result<(Vec<FileDates>, BlameStats, Seen), BlameError> {
    let repo = Repository::open(git_dir).map_err(|e| BlameError::Open {
        path: git_dir.display().to_string(),
        message: e.message().to_string(),
    })?;
    let shallow = shallow_boundaries(&repo);
    let mut walk = Walk::new(&repo, files, shallow);
    walk.known = known;
    let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
    walk.run(head, &paths)?;
    walk.stats.files = files.len();
    walk.stats.functions = files.iter().map(|f| f.functions.len()).sum();
    let results = walk.files.into_iter().map(|f| f.result).collect();
    Ok((results, walk.stats, walk.seen))
}

/// The commits a shallow clone cut the history at (`$GIT_DIR/shallow`), empty otherwise.
fn shallow_boundaries(repo: &Repository) -> HashSet<Oid> {
    if !repo.is_shallow() {
        return HashSet::new();
    }
    std::fs::read_to_string(repo.path().join("shallow"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| Oid::from_str(l.trim()).ok())
        .collect()
}

/// A run of lines of one blob that all map to consecutive lines of one final file.
#[derive(Debug, Clone, Copy)]
struct Span {
    /// 0-based first line in the suspect's blob.
    start: u32,
    len: u32,
    /// Index of the final file, and the 0-based line there that `start` is.
    file: u32,
    final_start: u32,
}

/// Lines of one path at one commit still waiting for their commit.
#[derive(Debug)]
struct Suspect {
    blob: Oid,
    spans: Vec<Span>,
    /// The final file's count of dated functions when the spans were last pruned: while it
    /// holds, pruning again would change nothing.
    pruned_at: Option<(u32, u32)>,
}

/// git's `trim_common_tail`: drops the common end of both buffers in 1 KiB blocks, then
/// gives back the part of the last dropped block after its first newline, so the kept
/// parts end on a whole line.
fn trim_common_tail<'a>(a: &'a [u8], b: &'a [u8]) -> (&'a [u8], &'a [u8]) {
    const BLK: usize = 1024;
    let smaller = a.len().min(b.len());
    let mut trimmed = 0;
    while BLK + trimmed <= smaller
        && a[a.len() - trimmed - BLK..a.len() - trimmed]
            == b[b.len() - trimmed - BLK..b.len() - trimmed]
    {
        trimmed += BLK;
    }
    let tail = &a[a.len() - trimmed..];
    let mut recovered = 0;
    while recovered < trimmed {
        recovered += 1;
        if tail[recovered - 1] == b'\n' {
            break;
        }
    }
    let cut = trimmed - recovered;
    (&a[..a.len() - cut], &b[..b.len() - cut])
}

/// A path, interned: every commit passes every pending file to its parent.
type PathId = u32;

/// A final file's functions and what is known of them so far.
struct FileState {
    /// 0-based inclusive line spans.
    functions: Vec<(u32, u32)>,
    /// For each line, the functions containing it.
    covering: Vec<Vec<u32>>,
    /// For each line, how many functions containing it are not dated yet.
    alive: Vec<u32>,
    done: Vec<bool>,
    /// How many functions are done.
    done_count: u32,
    /// Per function, how many of its lines have been blamed.
    blamed: Vec<u32>,
    result: Vec<Option<LastCommit>>,
}

impl FileState {
    fn new(functions: &[(u32, u32)]) -> Self {
        let functions: Vec<(u32, u32)> = functions
            .iter()
            .map(|&(s, e)| (s.saturating_sub(1), e.max(s).saturating_sub(1)))
            .collect();
        let lines = functions
            .iter()
            .map(|&(_, e)| e as usize + 1)
            .max()
            .unwrap_or(0);
        let mut covering = vec![Vec::new(); lines];
        let mut alive = vec![0u32; lines];
        for (i, &(s, e)) in functions.iter().enumerate() {
            for l in s..=e {
                covering[l as usize].push(i as u32);
                alive[l as usize] += 1;
            }
        }
        let n = functions.len();
        Self {
            functions,
            covering,
            alive,
            done: vec![false; n],
            done_count: 0,
            blamed: vec![0; n],
            result: vec![None; n],
        }
    }

    /// The initial spans: every line inside some function, as maximal runs.
    fn initial_spans(&self, file: u32) -> Vec<Span> {
        runs(0, self.alive.len() as u32, |l| self.alive[l as usize] > 0)
            .map(|(s, len)| Span {
                start: s,
                len,
                file,
                final_start: s,
            })
            .collect()
    }
}

/// Maximal runs `(start, len)` of lines in `from..to` where `keep` holds.
fn runs(from: u32, to: u32, keep: impl Fn(u32) -> bool) -> impl Iterator<Item = (u32, u32)> {
    let mut l = from;
    std::iter::from_fn(move || {
        while l < to && !keep(l) {
            l += 1;
        }
        if l >= to {
            return None;
        }
        let s = l;
        while l < to && keep(l) {
            l += 1;
        }
        Some((s, l - s))
    })
}

/// How one parent relates to a suspect path.
enum Origin {
    /// The parent has this exact blob: it takes every line.
    Same(PathId),
    /// The parent has the file (at this or a renamed path) with other content.
    Changed(PathId, Oid),
    None,
}

/// A parent's tree diff against the commit, computed when first needed.
struct ParentDiff {
    id: Oid,
    /// Changed paths at the commit side: (status, old path, old blob).
    changed: Option<HashMap<String, (Delta, Oid)>>,
    /// Files the commit deleted (rename sources): (path, blob).
    deleted: Vec<(String, Oid)>,
    /// Renames found so far: new path -> (old path, old blob), or none.
    renames: HashMap<PathId, Option<(PathId, Oid)>>,
}

struct Walk<'r> {
    repo: &'r Repository,
    known: Option<KnownAt<'r>>,
    files: Vec<FileState>,
    /// Interned paths, and their ids.
    names: Vec<String>,
    ids: HashMap<String, PathId>,
    blobs: Vec<Oid>,
    shallow: HashSet<Oid>,
    /// Visiting key of every commit reachable from the head: (newest date among it and its
    /// ancestors, generation).
    keys: HashMap<Oid, (i64, u32)>,
    pending: HashMap<Oid, HashMap<PathId, Suspect>>,
    queue: BinaryHeap<((i64, u32), std::cmp::Reverse<Oid>, Oid)>,
    queued: HashSet<Oid>,
    stats: BlameStats,
    seen: Seen,
}

impl<'r> Walk<'r> {
    fn new(repo: &'r Repository, files: &[&BlameTarget], shallow: HashSet<Oid>) -> Self {
        Self {
            repo,
            known: None,
            files: files.iter().map(|f| FileState::new(&f.functions)).collect(),
            names: Vec::new(),
            ids: HashMap::new(),
            blobs: files.iter().map(|f| f.blob).collect(),
            stats: BlameStats {
                shallow: !shallow.is_empty(),
                ..Default::default()
            },
            shallow,
            keys: HashMap::new(),
            pending: HashMap::new(),
            queue: BinaryHeap::new(),
            queued: HashSet::new(),
            seen: Seen::default(),
        }
    }

    fn run(&mut self, head: Oid, paths: &[&str]) -> Result<(), BlameError> {
        let mut start = HashMap::new();
        for (i, path) in paths.iter().enumerate() {
            let spans = self.files[i].initial_spans(i as u32);
            if !spans.is_empty() {
                let id = self.intern(path);
                start.insert(
                    id,
                    Suspect {
                        blob: self.blobs[i],
                        spans,
                        pruned_at: None,
                    },
                );
            }
        }
        if start.is_empty() {
            return Ok(());
        }
        self.pending.insert(head, start);
        self.enqueue(head)?;
        self.keys = self.visiting_keys(head)?;
        while let Some((bound, _, oid)) = self.queue.pop() {
            self.queued.remove(&oid);
            let bound = bound.0;
            let Some(work) = self.pending.remove(&oid) else {
                continue;
            };
            let mut work = self.prune(work);
            if let Some(known) = self.known.filter(|k| k.commit == oid) {
                work = self.date_at_known(known, work);
            }
            if work.is_empty() {
                continue;
            }
            self.seen.commits.insert(Seen::key(&[oid], ""));
            self.visit(oid, bound, work)?;
        }
        Ok(())
    }

    /// The visiting keys of the history of `head`, parents before children.
    fn visiting_keys(&self, head: Oid) -> Result<HashMap<Oid, (i64, u32)>, BlameError> {
        let mut walk = self.repo.revwalk().map_err(git_err(head))?;
        walk.set_sorting(git2::Sort::TOPOLOGICAL | git2::Sort::REVERSE)
            .map_err(git_err(head))?;
        walk.push(head).map_err(git_err(head))?;
        let mut keys: HashMap<Oid, (i64, u32)> = HashMap::new();
        for oid in walk {
            let oid = oid.map_err(git_err(head))?;
            let c = self.repo.find_commit(oid).map_err(git_err(oid))?;
            let mut key = (c.committer().when().seconds(), 0u32);
            if !self.shallow.contains(&oid) {
                for p in c.parent_ids() {
                    if let Some(&(t, g)) = keys.get(&p) {
                        key = (key.0.max(t), key.1.max(g + 1));
                    }
                }
            }
            keys.insert(oid, key);
        }
        Ok(keys)
    }

    fn enqueue(&mut self, oid: Oid) -> Result<(), BlameError> {
        if self.queued.insert(oid) {
            let (bound, generation) = match self.keys.get(&oid) {
                Some(&k) => k,
                None => {
                    let c = self.repo.find_commit(oid).map_err(git_err(oid))?;
                    let t = c.committer().when().seconds();
                    (t, 0)
                }
            };
            // Ties go by object id, so every file sees the same visiting order whatever
            // other files share its walk (the thread count): a date tie's sha is stable.
            self.queue
                .push(((bound, generation), std::cmp::Reverse(oid), oid));
        }
        Ok(())
    }

    fn intern(&mut self, path: &str) -> PathId {
        if let Some(&id) = self.ids.get(path) {
            return id;
        }
        let id = self.names.len() as PathId;
        self.names.push(path.to_string());
        self.ids.insert(path.to_string(), id);
        id
    }

    /// Drops lines whose functions are all dated already.
    fn prune(&self, work: HashMap<PathId, Suspect>) -> Vec<(PathId, Suspect)> {
        let mut out = Vec::with_capacity(work.len());
        for (path, mut s) in work {
            let first = s.spans.first().map_or(0, |sp| sp.file);
            let single = s.spans.iter().all(|sp| sp.file == first);
            let f = &self.files[first as usize];
            if single && f.done_count as usize == f.done.len() {
                continue;
            }
            let mark = (first, f.done_count);
            if single && s.pruned_at == Some(mark) {
                out.push((path, s));
                continue;
            }
            let mut spans = Vec::with_capacity(s.spans.len());
            for sp in &s.spans {
                let alive = &self.files[sp.file as usize].alive;
                for (off, len) in runs(0, sp.len, |o| alive[(sp.final_start + o) as usize] > 0) {
                    spans.push(Span {
                        start: sp.start + off,
                        len,
                        file: sp.file,
                        final_start: sp.final_start + off,
                    });
                }
            }
            if !spans.is_empty() {
                spans.sort_unstable_by_key(|s| s.start);
                s.spans = spans;
                s.pruned_at = single.then_some(mark);
                out.push((path, s));
            }
        }
        // Deterministic order whatever the hash map's.
        out.sort_unstable_by_key(|a| a.0);
        out
    }

    /// Hands the lines of `work` at commit `oid` to its parents or blames them on it; no
    /// commit still to visit is newer than `bound`.
    fn visit(
        &mut self,
        oid: Oid,
        bound: i64,
        work: Vec<(PathId, Suspect)>,
    ) -> Result<(), BlameError> {
        let commit = self.repo.find_commit(oid).map_err(git_err(oid))?;
        let time = commit.committer().when().seconds();
        if time < bound {
            self.seen.skewed.insert(Seen::key(&[oid], ""));
        }
        let boundary = self.shallow.contains(&oid);
        let mut parents: Vec<ParentDiff> = Vec::new();
        if !boundary {
            for id in commit.parent_ids() {
                // A parent missing from the object database is a cut history too.
                if self.repo.find_commit(id).is_err() {
                    parents.clear();
                    break;
                }
                parents.push(ParentDiff {
                    id,
                    changed: None,
                    deleted: Vec::new(),
                    renames: HashMap::new(),
                });
            }
        }
        let bounded = boundary || (parents.is_empty() && commit.parent_count() > 0);
        let tree = commit.tree().map_err(git_err(oid))?;
        for (path, suspect) in work {
            let mut remaining = suspect.spans;
            // Pass 0 looks for the same path in every parent, pass 1 for a rename.
            let mut origins: Vec<Option<(PathId, Oid)>> = vec![None; parents.len()];
            let mut whole: Option<(usize, PathId)> = None;
            'passes: for pass in 0..2 {
                for i in 0..parents.len() {
                    if origins[i].is_some() {
                        continue;
                    }
                    let found = if pass == 0 {
                        self.same_path(oid, &tree, &mut parents[i], path, suspect.blob)?
                    } else {
                        self.renamed(oid, &mut parents[i], path, suspect.blob)?
                    };
                    match found {
                        Origin::Same(p) => {
                            whole = Some((i, p));
                            break 'passes;
                        }
                        Origin::Changed(p, blob) => {
                            let repeat = origins[..i]
                                .iter()
                                .any(|o| o.as_ref().is_some_and(|(_, b)| *b == blob));
                            if !repeat {
                                origins[i] = Some((p, blob));
                            }
                        }
                        Origin::None => {}
                    }
                }
            }
            if let Some((i, p)) = whole {
                let pid = parents[i].id;
                self.pass(pid, p, suspect.blob, remaining, suspect.pruned_at)?;
                continue;
            }
            for (i, origin) in origins.into_iter().enumerate() {
                let Some((p, blob)) = origin else { continue };
                if remaining.is_empty() {
                    break;
                }
                let key = Seen::key(&[oid, blob], &self.names[path as usize]);
                self.seen.blob_diffs.insert(key);
                let (passed, kept) = self.split_by_diff(blob, suspect.blob, remaining)?;
                remaining = kept;
                if !passed.is_empty() {
                    let pid = parents[i].id;
                    self.pass(pid, p, blob, passed, suspect.pruned_at)?;
                }
            }
            for sp in remaining {
                self.blame(sp, oid, time, bounded, bound);
            }
        }
        Ok(())
    }

    fn pass(
        &mut self,
        parent: Oid,
        path: PathId,
        blob: Oid,
        spans: Vec<Span>,
        pruned_at: Option<(u32, u32)>,
    ) -> Result<(), BlameError> {
        let s = self
            .pending
            .entry(parent)
            .or_default()
            .entry(path)
            .or_insert_with(|| Suspect {
                blob,
                spans: Vec::new(),
                pruned_at: None,
            });
        if s.spans.is_empty() {
            s.spans = spans;
            s.pruned_at = pruned_at;
        } else {
            s.spans.extend(spans);
            s.pruned_at = None;
        }
        self.enqueue(parent)
    }

    fn same_path(
        &mut self,
        commit: Oid,
        tree: &git2::Tree<'_>,
        parent: &mut ParentDiff,
        path: PathId,
        blob: Oid,
    ) -> Result<Origin, BlameError> {
        if parent.changed.is_none() {
            self.seen
                .tree_diffs
                .insert(Seen::key(&[commit, parent.id], ""));
            let ptree = self
                .repo
                .find_commit(parent.id)
                .and_then(|c| c.tree())
                .map_err(git_err(parent.id))?;
            let mut opts = DiffOptions::new();
            opts.include_typechange(true).skip_binary_check(true);
            let diff = self
                .repo
                .diff_tree_to_tree(Some(&ptree), Some(tree), Some(&mut opts))
                .map_err(git_err(parent.id))?;
            let mut changed = HashMap::new();
            for d in diff.deltas() {
                if let Some(p) = d.new_file().path().and_then(|p| p.to_str()) {
                    if d.status() == Delta::Deleted {
                        parent.deleted.push((p.to_string(), d.old_file().id()));
                    } else {
                        changed.insert(p.to_string(), (d.status(), d.old_file().id()));
                    }
                }
            }
            parent.deleted.sort();
            parent.changed = Some(changed);
        }
        let Some(changed) = &parent.changed else {
            return Ok(Origin::None);
        };
        Ok(match changed.get(&self.names[path as usize]) {
            None => Origin::Same(path),
            Some((Delta::Modified, old)) if *old == blob => Origin::Same(path),
            Some((Delta::Modified, old)) => Origin::Changed(path, *old),
            // Added, or its type changed: git's find_origin finds nothing.
            Some(_) => Origin::None,
        })
    }

    /// git's `find_rename`: the deleted file that `path` (with `blob`) was renamed from.
    fn renamed(
        &mut self,
        commit: Oid,
        parent: &mut ParentDiff,
        path: PathId,
        blob: Oid,
    ) -> Result<Origin, BlameError> {
        if parent.deleted.is_empty() {
            return Ok(Origin::None);
        }
        if !parent.renames.contains_key(&path) {
            let key = Seen::key(&[commit, parent.id], &self.names[path as usize]);
            self.seen.rename_searches.insert(key);
            let found = self
                .rename_source(&parent.deleted, &self.names[path as usize], blob)?
                .map(|(old, id)| (self.intern(&old), id));
            parent.renames.insert(path, found);
        }
        Ok(match parent.renames.get(&path) {
            Some(Some((old, id))) if *id == blob => Origin::Same(*old),
            Some(Some((old, id))) => Origin::Changed(*old, *id),
            _ => Origin::None,
        })
    }

    fn rename_source(
        &self,
        deleted: &[(String, Oid)],
        path: &str,
        blob: Oid,
    ) -> Result<Option<(String, Oid)>, BlameError> {
        let base = |p: &str| p.rsplit('/').next().unwrap_or(p).to_string();
        let same_base = |p: &str| base(p) == base(path);
        // Exact renames first.
        let exact = deleted.iter().filter(|(_, id)| *id == blob);
        if let Some(e) = exact
            .clone()
            .find(|(p, _)| same_base(p))
            .or(exact.clone().next())
        {
            return Ok(Some(e.clone()));
        }
        let dst = self.repo.find_blob(blob).map_err(git_err(blob))?;
        let dst_sig = similarity::Signature::new(dst.content());
        let mut best: Option<(u32, bool, &(String, Oid))> = None;
        for src in deleted {
            let sblob = self.repo.find_blob(src.1).map_err(git_err(src.1))?;
            let score = similarity::score(sblob.content(), &dst_sig);
            if score < similarity::MIN_SCORE {
                continue;
            }
            let key = (score, same_base(&src.0));
            if best.is_none_or(|(s, b, _)| key > (s, b)) {
                best = Some((key.0, key.1, src));
            }
        }
        Ok(best.map(|(_, _, src)| src.clone()))
    }

    /// Diffs the parent's blob against the suspect's; returns the spans (in parent line
    /// numbers) of lines left unchanged, and the spans of changed lines.
    fn split_by_diff(
        &mut self,
        old: Oid,
        new: Oid,
        spans: Vec<Span>,
    ) -> Result<(Vec<Span>, Vec<Span>), BlameError> {
        let old_blob = self.repo.find_blob(old).map_err(git_err(old))?;
        let new_blob = self.repo.find_blob(new).map_err(git_err(new))?;
        // git trims the common tail before a context-free diff (xdiff-interface.c), which
        // bounds how far xdiff can slide a hunk down: do the same, or sliders differ.
        let (old_bytes, new_bytes) = trim_common_tail(old_blob.content(), new_blob.content());
        let hunks = xdiff::hunks(old_bytes, new_bytes).map_err(|e| BlameError::Git {
            commit: new.to_string(),
            message: e.to_string(),
        })?;
        // Unchanged regions of the new blob: (new start, new end, old start).
        let mut same: Vec<(u32, u32, u32)> = Vec::with_capacity(hunks.len() + 1);
        let (mut n, mut o) = (0u32, 0u32);
        for (os, ol, ns, nl) in hunks {
            if ns > n {
                same.push((n, ns, o));
            }
            n = ns + nl;
            o = os + ol;
        }
        same.push((n, u32::MAX, o));
        let mut passed = Vec::new();
        let mut kept = Vec::new();
        let mut r = 0;
        for sp in spans {
            let mut at = sp.start;
            let end = sp.start + sp.len;
            while at < end {
                while r < same.len() && same[r].1 <= at {
                    r += 1;
                }
                let piece = |s: u32, e: u32| Span {
                    start: s,
                    len: e - s,
                    file: sp.file,
                    final_start: sp.final_start + (s - sp.start),
                };
                match same.get(r) {
                    Some(&(ns, ne, os)) if ns <= at => {
                        let e = end.min(ne);
                        let mut p = piece(at, e);
                        p.start = os + (at - ns);
                        passed.push(p);
                        at = e;
                    }
                    Some(&(ns, _, _)) => {
                        let e = end.min(ns);
                        kept.push(piece(at, e));
                        at = e;
                    }
                    None => {
                        kept.push(piece(at, end));
                        at = end;
                    }
                }
            }
        }
        Ok((passed, kept))
    }

    /// Dates the functions whose every line is in `work`, at the known commit, as exactly a
    /// span known there, and drops their lines; the rest of `work` walks on.
    fn date_at_known(
        &mut self,
        known: KnownAt<'r>,
        work: Vec<(PathId, Suspect)>,
    ) -> Vec<(PathId, Suspect)> {
        // Per (final file, function): the path here, the line offset from the final file,
        // whether every line has that same path and offset, and the lines seen.
        struct AtKnown {
            path: PathId,
            delta: i64,
            consistent: bool,
            lines: u32,
        }
        let mut seen: HashMap<(u32, u32), AtKnown> = HashMap::new();
        for (path, s) in &work {
            for sp in &s.spans {
                let f = &self.files[sp.file as usize];
                for off in 0..sp.len {
                    let line = sp.final_start + off;
                    let delta = i64::from(sp.start + off) - i64::from(line);
                    for &fi in &f.covering[line as usize] {
                        if f.done[fi as usize] {
                            continue;
                        }
                        let e = seen.entry((sp.file, fi)).or_insert(AtKnown {
                            path: *path,
                            delta,
                            consistent: true,
                            lines: 0,
                        });
                        e.consistent &= e.path == *path && e.delta == delta;
                        e.lines += 1;
                    }
                }
            }
        }
        let blobs: HashMap<PathId, Oid> = work.iter().map(|(p, s)| (*p, s.blob)).collect();
        let mut keys: Vec<(u32, u32)> = seen.keys().copied().collect();
        keys.sort_unstable();
        let mut dated = 0;
        for key in keys {
            let e = &seen[&key];
            let (file, fi) = (key.0 as usize, key.1 as usize);
            let f = &self.files[file];
            let (s, end) = f.functions[fi];
            if !e.consistent || f.blamed[fi] > 0 || e.lines != end - s + 1 {
                continue;
            }
            let (Ok(ks), Ok(ke)) = (
                u32::try_from(i64::from(s) + e.delta + 1),
                u32::try_from(i64::from(end) + e.delta + 1),
            ) else {
                continue;
            };
            let name = self.names[e.path as usize].clone();
            let Some(date) = known
                .dates
                .get(&(name, blobs[&e.path]))
                .and_then(|spans| spans.get(&(ks, ke)))
            else {
                continue;
            };
            let f = &mut self.files[file];
            f.result[fi] = Some(*date);
            f.done[fi] = true;
            f.done_count += 1;
            for l in s..=end {
                f.alive[l as usize] -= 1;
            }
            dated += 1;
        }
        self.stats.dated_at_known += dated;
        if dated == 0 {
            return work;
        }
        self.prune(work.into_iter().collect())
    }

    /// The span's lines were last changed by `commit`. A function is done once its latest
    /// date so far reaches `bound`, the newest date any later commit can have.
    fn blame(&mut self, sp: Span, commit: Oid, time: i64, bounded: bool, bound: i64) {
        let f = &mut self.files[sp.file as usize];
        for line in sp.final_start..sp.final_start + sp.len {
            let covering = std::mem::take(&mut f.covering[line as usize]);
            for &fi in &covering {
                let fi = fi as usize;
                f.blamed[fi] += 1;
                if f.done[fi] {
                    continue;
                }
                let best = match f.result[fi] {
                    Some(r) if r.time >= time => r,
                    _ => LastCommit {
                        time,
                        commit,
                        bounded,
                    },
                };
                f.result[fi] = Some(best);
                if best.time >= bound {
                    f.done[fi] = true;
                    f.done_count += 1;
                    let (s, e) = f.functions[fi];
                    for l in s..=e {
                        f.alive[l as usize] -= 1;
                    }
                }
            }
            f.covering[line as usize] = covering;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partition_balances_and_keeps_every_file() {
        let t = |n: u32| BlameTarget {
            path: format!("f{n}"),
            blob: Oid::ZERO_SHA1,
            functions: vec![(1, n)],
        };
        let targets = vec![t(100), t(10), t(60), t(50), t(0)];
        let parts = partition(&targets, 2);
        assert_eq!(parts.len(), 2);
        let mut all: Vec<usize> = parts.iter().flatten().copied().collect();
        all.sort();
        assert_eq!(all, vec![0, 1, 2, 3, 4]);
    }

    #[test]
    fn runs_finds_maximal_runs() {
        let v = [false, true, true, false, true];
        let r: Vec<_> = runs(0, 5, |l| v[l as usize]).collect();
        assert_eq!(r, vec![(1, 2), (4, 1)]);
    }
}
