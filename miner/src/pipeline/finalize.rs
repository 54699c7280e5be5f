//! Step 3 of a run: writes the final CSN, YABLoCo and call-graph node shards from the
//! staging tables, applying dedup's decisions, then removes `DIR/staging/`.
//!
//! Removed functions leave the CSN and YABLoCo shards; every node stays, with its
//! `cluster_id` and `duplicate_of`. Survivors of a cluster are its keepers, so every CSN row
//! keeps its repository's partition and the cluster-to-keeper-partition rule holds by
//! construction: no near-copy of a test row remains in train.

use std::collections::HashMap;
use std::path::Path;
use std::time::Instant;

use arrow_array::cast::AsArray;
use arrow_array::RecordBatch;
use codemine_schemas::callgraph::NodesTable;
use codemine_schemas::csn::{self as csn_schema, CsnTable};
use codemine_schemas::staged::{finalize_csn, finalize_nodes, finalize_yabloco, read_batches};
use codemine_schemas::yabloco::YablocoTable;
use codemine_schemas::{ShardOptions, ShardWriter, Split};

use super::dedup::Decisions;
use super::stage::{file_names, staged_files, STAGING};
use crate::stats::Stats;
use crate::Error;

/// Streams every staging table into its final shards and updates the write counts.
pub fn run(
    out_dir: &Path,
    shards: ShardOptions,
    decisions: &Decisions,
    stats: &mut Stats,
) -> Result<(), Error> {
    let t = Instant::now();
    let decide = |id| decisions.get(id);

    let csn_dir = out_dir.join("csn");
    let mut csn = Split::ALL
        .iter()
        .map(|&s| {
            Ok((
                s,
                ShardWriter::<CsnTable>::new(&csn_dir, s.as_str(), shards)?,
            ))
        })
        .collect::<Result<Vec<_>, Error>>()?;
    // Rows per (repository, commit, language), to restate the per-repository counts.
    let mut kept: HashMap<(String, String, String), usize> = HashMap::new();
    for path in staged_files(out_dir, "csn")? {
        for batch in read_batches(&path)? {
            let batch = batch.map_err(codemine_schemas::Error::Arrow)?;
            for (split, b) in finalize_csn(&batch, &path, decide)? {
                count_rows(&b, &mut kept);
                if let Some((_, w)) = csn.iter_mut().find(|(s, _)| *s == split) {
                    w.push_batch(&b)?;
                }
            }
        }
    }

    let mut yabloco = ShardWriter::<YablocoTable>::new(&out_dir.join("yabloco"), "data", shards)?;
    for path in staged_files(out_dir, "yabloco")? {
        for batch in read_batches(&path)? {
            let batch = batch.map_err(codemine_schemas::Error::Arrow)?;
            yabloco.push_batch(&finalize_yabloco(&batch, &path, decide)?)?;
        }
    }

    let graph_dir = out_dir.join("callgraph");
    let mut nodes = ShardWriter::<NodesTable>::new(&graph_dir, "nodes", shards)?;
    for path in staged_files(out_dir, "nodes")? {
        for batch in read_batches(&path)? {
            let batch = batch.map_err(codemine_schemas::Error::Arrow)?;
            nodes.push_batch(&finalize_nodes(&batch, &path, decide)?)?;
        }
    }

    let write = &mut stats.stages.write;
    let total: usize = csn.iter().map(|(_, w)| w.rows()).sum();
    for (split, w) in csn {
        let rows = w.rows();
        // With no rows at all, one empty train shard still carries the schema.
        let files = w.finish(total == 0 && split == Split::Train)?;
        write.csn_rows.insert(split.as_str(), rows);
        write
            .shards
            .entry("csn")
            .or_default()
            .extend(file_names(&files));
    }
    write.yabloco_rows = yabloco.rows();
    write.callgraph_nodes = nodes.rows();
    // Each table always has at least one shard, so its schema is there to read.
    let y = file_names(&yabloco.finish(true)?);
    write.shards.entry("yabloco").or_default().extend(y);
    let n = file_names(&nodes.finish(true)?);
    write.shards.entry("callgraph").or_default().extend(n);
    restate_csn_rows(stats, &kept);

    let staging = out_dir.join(STAGING);
    std::fs::remove_dir_all(&staging).map_err(|source| Error::Io {
        path: staging,
        source,
    })?;
    stats.stages.write.busy_seconds += t.elapsed().as_secs_f64();
    Ok(())
}

/// Counts a final CSN batch's rows per (repository, commit, language).
fn count_rows(batch: &RecordBatch, kept: &mut HashMap<(String, String, String), usize>) {
    let col = |name| {
        batch
            .column_by_name(name)
            .and_then(|c| c.as_string_opt::<i32>())
    };
    let (Some(repo), Some(sha), Some(lang)) = (
        col(csn_schema::REPO),
        col(csn_schema::SHA),
        col(csn_schema::LANGUAGE),
    ) else {
        return;
    };
    for k in 0..batch.num_rows() {
        let key = (
            repo.value(k).to_string(),
            sha.value(k).to_string(),
            lang.value(k).to_string(),
        );
        *kept.entry(key).or_default() += 1;
    }
}

/// Sets the CSN row counts of every repository and language to the rows that dedup left.
fn restate_csn_rows(stats: &mut Stats, kept: &HashMap<(String, String, String), usize>) {
    let mut by_lang: HashMap<&str, usize> = HashMap::new();
    let mut total = 0;
    for r in stats
        .repositories
        .iter_mut()
        .filter(|r| r.status == "mined")
    {
        let sha = r.sha.clone().unwrap_or_default();
        r.totals.csn_rows = 0;
        for (lang, c) in r.languages.iter_mut() {
            let key = (r.repo.clone(), sha.clone(), lang.to_string());
            c.csn_rows = kept.get(&key).copied().unwrap_or(0);
            r.totals.csn_rows += c.csn_rows;
            *by_lang.entry(lang).or_default() += c.csn_rows;
        }
        total += r.totals.csn_rows;
    }
    for (lang, c) in stats.languages.iter_mut() {
        c.csn_rows = by_lang.get(lang).copied().unwrap_or(0);
    }
    stats.stages.extract.totals.csn_rows = total;
}
