//! Step 2 of a run: the cluster step of near-duplicate removal across the whole run.
//!
//! Inputs: `staging/dedup-params.json`, `staging/functions-*.parquet` (exact key, shingle
//! set and keeper facts of every function the filters kept, from every rank) and
//! `dedup/bands/bands-*.parquet` (their LSH band hashes). Outputs:
//! `dedup/clusters/clusters-00000-of-00001.parquet`, one row per member of every cluster of two or
//! more functions (its keeper, whether it is removed and why, the keeper's partition), and
//! `staging/cluster-step.json` (time and pair counts). Another engine can replace this step
//! by writing the same clusters table (examples/spark).

use std::collections::HashMap;
use std::path::Path;
use std::time::Instant;

use codemine_filters::dedup::{self as near, BandTable, Prepared};
use codemine_schemas::dedup::{
    read_bands, read_clusters, read_functions, ClusterRow, ClustersTable,
};
use codemine_schemas::staged::Decision;
use codemine_schemas::{ShardOptions, ShardWriter};

use super::repo::split_of;
use super::stage::{dedup_params, json_error, staged_files, STAGING};
use crate::output::write_atomic;
use crate::stats::ClusterStep;
use crate::Error;
use codemine_schemas::{layout, shard_files};

/// What dedup decided, by function id; functions not in it stay as they are.
#[derive(Debug, Default)]
pub struct Decisions(HashMap<u64, Decision>);

impl Decisions {
    pub fn get(&self, id: u64) -> Option<Decision> {
        self.0.get(&id).copied()
    }

    /// The decisions of the clusters table under `out_dir` (none when there is none).
    pub fn read(out_dir: &Path) -> Result<(Self, Vec<ClusterRow>), Error> {
        let mut map = HashMap::new();
        let mut rows = Vec::new();
        for path in shard_files(&layout::CLUSTERS.path(out_dir), "clusters")? {
            read_clusters(&path, |r| {
                map.insert(
                    r.id,
                    Decision {
                        cluster_id: r.cluster_id,
                        duplicate_of: r.duplicate_of,
                        partition: r.partition,
                    },
                );
                rows.push(r);
            })?;
        }
        Ok((Self(map), rows))
    }
}

/// Reads the dedup inputs under `out_dir`, clusters them and writes the clusters table;
/// `None` when the mining step ran without dedup.
pub fn cluster_step(out_dir: &Path, threads: usize) -> Result<Option<ClusterStep>, Error> {
    let t = Instant::now();
    super::finalize::discard_removed(out_dir)?;
    // Bands staged by a codemine before issue 39 lie directly in dedup/: refused, not
    // silently left out.
    if let Some(old) = shard_files(&out_dir.join("dedup"), "bands")?.first() {
        return Err(Error::Usage(format!(
            "{}: band hashes staged by a codemine before issue 39 (now in {}/): mine this run again",
            old.display(),
            layout::BANDS.dir
        )));
    }
    clear_clusters(out_dir)?;
    let Some(params) = dedup_params(out_dir)? else {
        return Ok(None);
    };
    let mut items: Vec<Prepared> = Vec::new();
    let mut index: HashMap<u64, usize> = HashMap::new();
    let mut same_id_skipped = 0;
    for path in staged_files(out_dir, "functions")? {
        read_functions(&path, |f| {
            // A rank cannot see another's ids: the first occurrence (rank order) stands.
            if index.contains_key(&f.id) {
                same_id_skipped += 1;
                return;
            }
            index.insert(f.id, items.len());
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
    let mut bands = BandTable::new(items.len(), params.bands);
    for path in shard_files(&layout::BANDS.path(out_dir), "bands")? {
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

    let outcome = near::cluster(&items, &bands, &params, threads)?;
    drop(bands);

    let mut writer = ShardWriter::<ClustersTable>::new(
        &layout::CLUSTERS.path(out_dir),
        "clusters",
        ShardOptions::default(),
    )?;
    for (i, item) in items.iter().enumerate() {
        let Some(cluster_id) = outcome.cluster_id[i] else {
            continue;
        };
        let duplicate_of = outcome.duplicate_of[i];
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
            partition: split_of(outcome.partition[i]),
        })?;
    }
    writer.finish(true)?;
    let step = ClusterStep {
        seconds: t.elapsed().as_secs_f64(),
        functions: outcome.stats.functions,
        tiny: outcome.stats.tiny,
        candidate_pairs: outcome.stats.candidate_pairs,
        near_pairs: outcome.stats.near_pairs,
        same_id_skipped,
    };
    let path = out_dir.join(STAGING).join("cluster-step.json");
    let json = serde_json::to_vec_pretty(&step).map_err(|e| json_error(&path, e))?;
    write_atomic(&path, &json)?;
    crate::fault::point("clusters written");
    Ok(Some(step))
}

/// Removes an earlier clusters table (in its folder, or directly in dedup/ as before issue
/// 39) and cluster-step record.
fn clear_clusters(out_dir: &Path) -> Result<(), Error> {
    for dir in [layout::CLUSTERS.path(out_dir), out_dir.join("dedup")] {
        for path in shard_files(&dir, "clusters")? {
            std::fs::remove_file(&path).map_err(|source| Error::Io { path, source })?;
        }
    }
    let step = out_dir.join(STAGING).join("cluster-step.json");
    match std::fs::remove_file(&step) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(Error::Io {
            path: step,
            source: e,
        }),
        _ => Ok(()),
    }
}
