//! Step 2 of a run: the cluster step of near-duplicate removal across the whole run.
//!
//! Inputs: `staging/functions-*.parquet` (exact key, shingle set and keeper facts of every
//! function the filters kept) and `dedup/bands-*.parquet` (its LSH band hashes), as the
//! mining step wrote them. Output: `dedup/clusters-*.parquet`, one row per member of every
//! cluster of two or more functions (its keeper, whether it is removed and why), and the
//! decisions the finalize step applies.

use std::collections::HashMap;
use std::path::Path;
use std::time::Instant;

use codemine_filters::dedup::{self as near, BandTable, DedupParams, Prepared};
use codemine_schemas::dedup::{read_bands, read_functions, ClusterRow, ClustersTable};
use codemine_schemas::staged::Decision;
use codemine_schemas::{ShardOptions, ShardWriter};

use super::repo::split_of;
use super::stage::{file_names, shard_files, staged_files};
use crate::stats::DedupStage;
use crate::Error;

/// What dedup decided, by function id; functions not in it stay as they are.
#[derive(Debug, Default)]
pub struct Decisions(HashMap<u64, Decision>);

impl Decisions {
    pub fn get(&self, id: u64) -> Option<Decision> {
        self.0.get(&id).copied()
    }
}

/// Reads the dedup inputs under `out_dir`, clusters them and writes the clusters table.
pub fn cluster_step(
    out_dir: &Path,
    params: &DedupParams,
    threads: usize,
) -> Result<(Decisions, DedupStage), Error> {
    let t = Instant::now();
    let mut items: Vec<Prepared> = Vec::new();
    for path in staged_files(out_dir, "functions")? {
        read_functions(&path, |f| {
            items.push(Prepared {
                id: f.id,
                exact: f.exact_hash,
                shingles: f.shingles,
                has_docstring: f.has_docstring,
                last_commit: f.last_commit,
                partition: f.partition.index(),
            });
        })?;
    }
    let index: HashMap<u64, usize> = items.iter().enumerate().map(|(i, f)| (f.id, i)).collect();
    let mut bands = BandTable::new(items.len(), params.bands);
    let dedup_dir = out_dir.join("dedup");
    for path in shard_files(&dedup_dir, "bands")? {
        let mut unknown = None;
        read_bands(&path, |r| match index.get(&r.id) {
            Some(&i) => bands.set(i, r.band as usize, r.band_hash),
            None => unknown = Some(r.id),
        })?;
        if let Some(id) = unknown {
            return Err(codemine_schemas::Error::BadFile {
                path,
                reason: format!("band rows of function {id:016X}, which no functions file has"),
            }
            .into());
        }
    }
    drop(index);

    let outcome = near::cluster(&items, &bands, params, threads)?;
    drop(bands);

    let mut decisions = HashMap::new();
    let mut writer =
        ShardWriter::<ClustersTable>::new(&dedup_dir, "clusters", ShardOptions::default())?;
    for (i, item) in items.iter().enumerate() {
        let Some(cluster_id) = outcome.cluster_id[i] else {
            continue;
        };
        let duplicate_of = outcome.duplicate_of[i];
        let partition = split_of(outcome.partition[i]);
        let kind = match (duplicate_of, outcome.exact[i]) {
            (None, _) => "keeper",
            (Some(_), true) => "exact",
            (Some(_), false) => "near",
        };
        writer.push(&ClusterRow {
            id: item.id,
            cluster_id,
            duplicate_of,
            kind: kind.to_string(),
            partition,
        })?;
        decisions.insert(
            item.id,
            Decision {
                cluster_id,
                duplicate_of,
                partition,
            },
        );
    }
    let members = writer.rows();
    let files = file_names(&writer.finish(true)?);
    let stage = DedupStage {
        seconds: t.elapsed().as_secs_f64(),
        tokens: "identifiers, keywords and literals of the parser's tokens (punctuation and operators left out)",
        keeper_rule: "has a docstring, then the most recent last commit (unknown last), then the smallest id",
        cluster_members: members,
        clusters_files: files,
        stats: outcome.stats,
    };
    Ok((Decisions(decisions), stage))
}
