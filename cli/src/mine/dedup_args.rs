//! The dedup flags of `codemine mine` (MinHash LSH over the whole run).

use clap::Args;

use codemine_filters::dedup::DedupParams;

use crate::help::heading;

/// Near-duplicate removal across the run (MinHash LSH): a preset, adjusted by the direct
/// settings.
#[derive(Args)]
#[command(next_help_heading = heading::DEDUP)]
pub struct DedupArgs {
    /// Keep exact and near-duplicate functions (no dedup step).
    #[arg(long, conflicts_with_all = ["dedup_preset", "dedup_threshold", "dedup_shingle", "dedup_permutations", "dedup_bands"])]
    no_dedup: bool,
    /// bigcode: Jaccard 0.7, 5-token shingles, 250 permutations as 25 bands x 10 rows
    /// (default); datatrove: 5-token shingles, 14 bands x 8 rows, Jaccard 0.72.
    #[arg(long, value_name = "bigcode|datatrove")]
    dedup_preset: Option<String>,
    /// Shingle Jaccard at or above which two functions are near-duplicates, in (0, 1].
    #[arg(long, value_name = "F")]
    dedup_threshold: Option<f64>,
    /// Tokens per shingle; shorter functions only take part in exact dedup.
    #[arg(long, value_name = "N")]
    dedup_shingle: Option<usize>,
    /// MinHash permutations (64, 112, 128, 200, 250 or 256); must divide into the bands.
    #[arg(long, value_name = "N")]
    dedup_permutations: Option<usize>,
    /// LSH bands; permutations / bands rows each.
    #[arg(long, value_name = "N")]
    dedup_bands: Option<usize>,
}

impl DedupArgs {
    /// The parameters, or a usage error that names the flag.
    pub fn params(&self) -> Result<Option<DedupParams>, miner::Error> {
        if self.no_dedup {
            return Ok(None);
        }
        let usage = |m: String| miner::Error::Usage(m);
        let mut p = match self.dedup_preset.as_deref() {
            None | Some("bigcode") => DedupParams::bigcode(),
            Some("datatrove") => DedupParams::datatrove(),
            Some(other) => {
                return Err(usage(format!(
                    "--dedup-preset `{other}`: one of bigcode, datatrove"
                )))
            }
        };
        if let Some(t) = self.dedup_threshold {
            p.threshold = t;
        }
        if let Some(n) = self.dedup_shingle {
            p.shingle = n;
        }
        if self.dedup_permutations.is_some() || self.dedup_bands.is_some() {
            let perms = self.dedup_permutations.unwrap_or(p.permutations());
            let bands = self.dedup_bands.unwrap_or(p.bands);
            if bands == 0 || !perms.is_multiple_of(bands) {
                return Err(usage(format!(
                    "--dedup-permutations {perms} cannot be cut into --dedup-bands {bands} bands of equal rows"
                )));
            }
            p.bands = bands;
            p.rows = perms / bands;
        }
        p.validate().map_err(|e| usage(e.to_string()))?;
        Ok(Some(p))
    }
}
