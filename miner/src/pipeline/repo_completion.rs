//! The repository-level completion output (`--emit repo-completion`), a step of its own on
//! both sides of the staging area:
//! - per repository ([`step`]): candidate lines from the resolved calls (see
//!   [`crate::repo_completion`]), dated with `--since`, chosen per file, each made into a
//!   row with its gold and retrieved context; staged per chunk as `staging/crepo-*` (and
//!   the snapshot's files as `staging/csnap-*` with `--completion-snapshot`);
//! - at finalize ([`finalize`]): the rows copied by partition to
//!   `completion/repo/repo-{split}-*.parquet` and
//!   `completion/snapshot/snapshot-{split}-*.parquet`.

use std::path::Path;
use std::time::Instant;

use codemine_schemas::layout::{self, TableDir};
use codemine_schemas::repo_completion::{
    RepoFile, RepoRow, RepoTable, SnapshotRow, SnapshotTable, REPO_PREFIX,
};
use codemine_schemas::staged::read_batches;
use codemine_schemas::{ShardOptions, ShardWriter, Split, Table};
use rayon::prelude::*;

use super::stage::{file_names, staged_files};
use crate::repo_completion::{self as rc, Candidate, Counts, Options, Uses};
use crate::resolve::SourceUnit;
use crate::source::Snapshot;
pub use crate::stats::steps::RepoCompletionStage;
use crate::Error;
use codemine_history::blame::{last_commits, BlameTarget};

/// Staging table names.
pub const STAGED: &str = "crepo";
pub const SNAPSHOT_STAGED: &str = "csnap";

/// A repository's repo-completion rows.
#[derive(Default)]
pub struct RepoRows {
    pub rows: Vec<RepoRow>,
    pub snapshot: Vec<SnapshotRow>,
    pub counts: Counts,
}

/// What the step needs of the repository.
pub struct Context<'a> {
    pub repo: &'a str,
    pub sha: &'a str,
    pub partition: Split,
    pub snap: &'a Snapshot,
    pub blobs: &'a [Option<git2::Oid>],
}

/// The step: candidates per file, the `--since` filter, the draw, the rows.
pub fn step(
    opts: &Options,
    units: &[SourceUnit],
    texts: &[Option<String>],
    uses: &Uses,
    cx: &Context<'_>,
    failures: &mut Vec<String>,
) -> RepoRows {
    let t = Instant::now();
    let mut counts = Counts::default();
    let mut per_file: Vec<Vec<Candidate>> = Vec::with_capacity(units.len());
    let empty = Default::default();
    for (fi, u) in units.iter().enumerate() {
        let (Some(Some(text)), Some(uses)) = (texts.get(fi), uses.get(fi).or(Some(&empty))) else {
            per_file.push(Vec::new());
            continue;
        };
        counts.files += 1;
        per_file.push(rc::candidates(
            units,
            u,
            text,
            uses,
            opts.min_prefix_lines,
            &mut counts,
        ));
    }
    if let Some(since) = opts.since {
        match dates(cx, units, &per_file) {
            Ok(dated) => {
                for (cands, times) in per_file.iter_mut().zip(dated) {
                    let before = cands.len();
                    let mut keep = times.into_iter().map(|t| t.is_some_and(|t| t >= since));
                    cands.retain(|_| keep.next().unwrap_or(false));
                    counts.before_since += before - cands.len();
                }
            }
            Err(e) => {
                failures.push(format!("dating lines for --since: {e}"));
                for c in &mut per_file {
                    counts.before_since += c.len();
                    c.clear();
                }
            }
        }
    }
    for c in per_file.iter().flatten() {
        *counts.candidates.entry(c.kind.as_str().into()).or_default() += 1;
    }
    let chosen: Vec<Vec<Candidate>> = per_file
        .into_iter()
        .zip(units)
        .map(|(c, u)| rc::choose(c, opts, &format!("{}/{}", cx.repo, u.path)))
        .collect();
    let any = chosen.iter().any(|c| !c.is_empty());
    let index = any.then(|| rc::index(units, texts, opts));
    let file = |u: &SourceUnit| RepoFile {
        repo: cx.repo.to_string(),
        sha: cx.sha.to_string(),
        path: u.path.clone(),
        language: u.lang.name().to_string(),
        partition: cx.partition,
    };
    let view = rc::RepoView {
        units,
        texts,
        index: index.as_ref(),
    };
    let rows: Vec<RepoRow> = chosen
        .par_iter()
        .enumerate()
        .map_init(
            || index.as_ref().map(|(i, _)| rc::retrieve::Scratch::new(i)),
            |scratch, (fi, cands)| {
                let unit = &units[fi];
                cands
                    .iter()
                    .filter_map(|c| {
                        rc::row(&view, file(unit), fi as u32, c, opts, scratch.as_mut())
                    })
                    .collect::<Vec<_>>()
            },
        )
        .flatten()
        .collect();
    for r in &rows {
        *counts.rows.entry(r.kind.into()).or_default() += 1;
        counts.gold_items += r.gold.len();
    }
    let snapshot: Vec<SnapshotRow> = if opts.snapshot {
        units
            .iter()
            .zip(texts)
            .filter_map(|(u, t)| {
                Some(SnapshotRow {
                    file: file(u),
                    content: t.clone()?,
                })
            })
            .collect()
    } else {
        Vec::new()
    };
    counts.snapshot_files = snapshot.len();
    counts.seconds = t.elapsed().as_secs_f64();
    RepoRows {
        rows,
        snapshot,
        counts,
    }
}

/// The last-commit time of each candidate line (`git blame`'s), per file in order.
fn dates(
    cx: &Context<'_>,
    units: &[SourceUnit],
    per_file: &[Vec<Candidate>],
) -> Result<Vec<Vec<Option<i64>>>, Error> {
    let (Some(dir), Ok(head)) = (cx.snap.git_dir(), git2::Oid::from_str(cx.sha)) else {
        return Err(Error::Usage(
            "--since needs a git repository at a commit".into(),
        ));
    };
    let mut targets = Vec::new();
    let mut which = Vec::new();
    for (fi, cands) in per_file.iter().enumerate() {
        let Some(Some(blob)) = cx.blobs.get(fi) else {
            continue;
        };
        if cands.is_empty() {
            continue;
        }
        targets.push(BlameTarget {
            path: units[fi].path.clone(),
            blob: *blob,
            functions: cands.iter().map(|c| (c.line, c.line)).collect(),
        });
        which.push(fi);
    }
    let (found, _) = last_commits(dir, head, &targets, rayon::current_num_threads())
        .map_err(|e| Error::Incomplete(e.to_string()))?;
    let mut out: Vec<Vec<Option<i64>>> = per_file.iter().map(|c| vec![None; c.len()]).collect();
    for (fi, d) in which.into_iter().zip(found) {
        out[fi] = d.into_iter().map(|d| d.map(|d| d.time)).collect();
    }
    Ok(out)
}

/// Writes `completion/repo/` (and `completion/snapshot/`) from the staging tables;
/// `None` when the run did not ask for them. Runs after the CodeXGLUE completion
/// finalize, which clears the folder.
pub fn finalize(
    out_dir: &Path,
    settings: Option<&Options>,
    counts: &Counts,
    shards: ShardOptions,
) -> Result<Option<RepoCompletionStage>, Error> {
    let Some(settings) = settings else {
        return Ok(None);
    };
    let mut stage = RepoCompletionStage {
        settings: Some(settings.clone()),
        counts: counts.clone(),
        ..Default::default()
    };
    let to = layout::COMPLETION_REPO;
    copy_by_split::<RepoTable>(out_dir, to, STAGED, shards, &mut stage)?;
    if settings.snapshot {
        let mut s = RepoCompletionStage::default();
        let to = layout::COMPLETION_SNAPSHOT;
        copy_by_split::<SnapshotTable>(out_dir, to, SNAPSHOT_STAGED, shards, &mut s)?;
        stage.shards.extend(s.shards);
    } else {
        stage.counts.snapshot_files = 0;
    }
    stage.shards.sort();
    crate::fault::point("repo completion streamed");
    Ok(Some(stage))
}

/// Copies the staged batches of `table` into one shard writer per partition (the
/// `partition` column), in staging order.
fn copy_by_split<T: Table>(
    out_dir: &Path,
    to: TableDir,
    table: &str,
    shards: ShardOptions,
    stage: &mut RepoCompletionStage,
) -> Result<(), Error> {
    use arrow_array::cast::AsArray;
    let dir = to.path(out_dir);
    let mut writers = Split::ALL
        .iter()
        .map(|&s| {
            let name = to.split_name(s.as_str());
            Ok((s, ShardWriter::<T>::new(&dir, &name, shards)?))
        })
        .collect::<Result<Vec<_>, Error>>()?;
    for path in staged_files(out_dir, table)? {
        for batch in read_batches(&path)? {
            let batch = batch.map_err(codemine_schemas::Error::Arrow)?;
            let part = batch
                .column_by_name("partition")
                .and_then(|c| c.as_string_opt::<i32>())
                .ok_or_else(|| {
                    Error::Incomplete(format!(
                        "{}: no partition column (a staging file of another version?)",
                        path.display()
                    ))
                })?;
            for (split, w) in &mut writers {
                let mask: arrow_array::BooleanArray = part
                    .iter()
                    .map(|p| Some(p == Some(split.as_str())))
                    .collect();
                let rows = arrow_select::filter::filter_record_batch(&batch, &mask)
                    .map_err(codemine_schemas::Error::Arrow)?;
                if rows.num_rows() > 0 {
                    w.push_batch(&rows)?;
                }
            }
        }
    }
    for (split, w) in writers {
        if to.prefix == REPO_PREFIX {
            stage.rows_by_split.insert(split.as_str(), w.rows());
        }
        let files = file_names(&w.finish(false)?);
        stage.shards.extend(files.into_iter().map(|n| (to.dir, n)));
    }
    Ok(())
}
