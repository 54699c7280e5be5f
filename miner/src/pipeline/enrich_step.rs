//! The enrich steps of a repository: coverage reports mapped onto its functions, and the
//! last commit of every function the cheap filters kept.

use std::collections::HashMap;
use std::time::Instant;

use super::repo::{each_function, failure};
use super::steps::{Enriching, RepoStep};
use super::MineOptions;
use crate::callgraph;
use crate::resolve::SourceUnit;
use crate::source::{self, RepoSpec};
use crate::stats::{Failure, RepoCoverageStats, RepoStats};
use codemine_coverage::{self as coverage, CoverageError, CoverageStats, RepoCoverage};
use codemine_history::{
    last_commits_cached, BlameError, BlameStats, BlameTarget, FileDates, HistoryCache,
    HistoryStats, ReuseStats,
};

/// The coverage step, for a repository given coverage reports.
pub(super) struct Coverage;

impl RepoStep for Coverage {
    fn wanted(&self, _opts: &MineOptions, spec: &RepoSpec) -> bool {
        !spec.coverage.is_empty()
    }

    fn run(&self, s: &mut Enriching) {
        coverage_step(
            s.spec, s.snap, s.opts, s.units, s.graph, s.stats, s.failures,
        );
    }
}

/// The history step, unless the run was asked not to walk the history.
pub(super) struct History;

impl RepoStep for History {
    fn wanted(&self, opts: &MineOptions, _spec: &RepoSpec) -> bool {
        opts.history
    }

    fn run(&self, s: &mut Enriching) {
        let cache_root = s
            .opts
            .history_cache
            .then(|| s.opts.source.cache_dir.join(HISTORY_CACHE));
        history_step(
            s.snap,
            cache_root.as_deref(),
            s.units,
            s.blobs,
            s.outcome,
            s.graph,
            s.stats,
            s.failures,
        );
    }
}

/// The history cache's folder in the clone cache.
const HISTORY_CACHE: &str = "history";

/// The coverage step: the repository's reports give every node its coverage columns; a
/// bad report is a failure and leaves all of them null.
fn coverage_step(
    spec: &RepoSpec,
    snap: &source::Snapshot,
    opts: &MineOptions,
    units: &[SourceUnit],
    graph: &mut callgraph::Graph,
    stats: &mut RepoStats,
    failures: &mut Vec<Failure>,
) {
    let t = Instant::now();
    let files: Vec<&str> = snap.files.iter().map(|f| f.path.as_str()).collect();
    let mut c = RepoCoverageStats::default();
    match attach_coverage(
        spec,
        &files,
        &opts.coverage_strip_prefixes,
        opts.max_report_bytes,
        units,
        graph,
    ) {
        Ok((mapping, functions)) => {
            c.mapping = mapping;
            c.functions = functions;
        }
        Err(errors) => {
            c.failed_reports = errors.len();
            for e in errors {
                let path = Some(e.path().display().to_string());
                failures.push(failure(stats, path, "enrich", e.kind(), e.to_string()));
            }
        }
    }
    c.seconds = t.elapsed().as_secs_f64();
    stats.coverage = Some(c);
}

/// The history step: the last commit of every function the cheap filters kept.
#[allow(clippy::too_many_arguments)]
fn history_step(
    snap: &source::Snapshot,
    cache_root: Option<&std::path::Path>,
    units: &[SourceUnit],
    blobs: &[Option<git2::Oid>],
    outcome: &[Result<(), &'static str>],
    graph: &mut callgraph::Graph,
    stats: &mut RepoStats,
    failures: &mut Vec<Failure>,
) {
    let t = Instant::now();
    let mut h = HistoryStats::default();
    let wanted: Vec<bool> = outcome.iter().map(Result::is_ok).collect();
    match date_functions(snap, cache_root, units, blobs, &wanted) {
        Ok(Some((dates, walk, cache))) => {
            h.functions = wanted.iter().filter(|k| **k).count();
            h.walk = walk;
            h.cache = cache;
            // One string per commit, shared by the functions it dates.
            let mut shas: HashMap<git2::Oid, std::sync::Arc<str>> = HashMap::new();
            for (node, d) in graph.nodes.iter_mut().zip(dates) {
                let Some(d) = d else { continue };
                h.dated += 1;
                h.bounded += usize::from(d.bounded);
                node.last_commit = Some(d.time);
                let sha = shas
                    .entry(d.commit)
                    .or_insert_with(|| std::sync::Arc::from(d.commit.to_string()));
                node.last_commit_sha = Some(std::sync::Arc::clone(sha));
                node.last_commit_bounded = Some(d.bounded);
            }
        }
        Ok(None) => {}
        Err(e) => failures.push(failure(
            stats,
            None,
            "enrich",
            "history_error",
            e.to_string(),
        )),
    }
    h.seconds = t.elapsed().as_secs_f64();
    stats.history = Some(h);
}

/// Reads the repository's coverage reports and sets every node's coverage columns; on a
/// bad report, every error and no coverage at all (a partial sum would look exact).
fn attach_coverage(
    spec: &RepoSpec,
    files: &[&str],
    strip: &[String],
    max_report_bytes: u64,
    units: &[SourceUnit],
    graph: &mut callgraph::Graph,
) -> Result<(CoverageStats, usize), Vec<CoverageError>> {
    let mut reports = Vec::new();
    let mut errors = Vec::new();
    for path in &spec.coverage {
        match coverage::read_report_limited(path, max_report_bytes) {
            Ok(r) => reports.push(r),
            Err(e) => errors.push(e),
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let cov = RepoCoverage::build(&reports, files, strip);
    let mut functions = 0;
    for (k, u, f) in each_function(units) {
        if let Some(c) = cov.function(&u.path, f.start_line, f.end_line) {
            let node = &mut graph.nodes[k];
            node.test_cov_hits = Some(i64::try_from(c.hits).unwrap_or(i64::MAX));
            node.covered_lines = Some(i64::from(c.covered_lines));
            node.coverable_lines = Some(i64::from(c.coverable_lines));
            functions += 1;
        }
    }
    Ok((cov.stats, functions))
}

/// The last commit of every function that `wanted` marks, in node order; `None` for a
/// plain folder, which has no history.
type Dated = (FileDates, BlameStats, Option<ReuseStats>);

fn date_functions(
    snap: &source::Snapshot,
    cache_root: Option<&std::path::Path>,
    units: &[SourceUnit],
    blobs: &[Option<git2::Oid>],
    wanted: &[bool],
) -> Result<Option<Dated>, BlameError> {
    let (Some(dir), Some(sha)) = (snap.git_dir(), snap.sha.as_deref()) else {
        return Ok(None);
    };
    let head = git2::Oid::from_str(sha).map_err(|e| BlameError::Git {
        commit: sha.to_string(),
        message: e.message().to_string(),
    })?;
    // Targets hold the wanted functions of each file; `slots` maps them back to nodes.
    let mut targets = Vec::new();
    let mut slots = Vec::new();
    let mut k = 0;
    for (u, blob) in units.iter().zip(blobs) {
        let Some(blob) = *blob else {
            k += u.functions.len();
            continue;
        };
        let mut t = BlameTarget {
            path: u.path.clone(),
            blob,
            functions: Vec::new(),
        };
        let mut s = Vec::new();
        for f in &u.functions {
            if wanted[k] {
                t.functions.push((f.start_line, f.end_line));
                s.push(k);
            }
            k += 1;
        }
        if !s.is_empty() {
            targets.push(t);
            slots.push(s);
        }
    }
    let cache = cache_root.map(|root| HistoryCache::for_repository(root, dir));
    let (found, walk, reuse) = last_commits_cached(
        dir,
        head,
        &targets,
        rayon::current_num_threads(),
        cache.as_ref(),
    )?;
    let mut dates = vec![None; k];
    for (file, slot) in found.into_iter().zip(slots) {
        for (d, k) in file.into_iter().zip(slot) {
            dates[k] = d;
        }
    }
    Ok(Some((dates, walk, reuse)))
}
