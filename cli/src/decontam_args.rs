//! The decontamination flags shared by `codemine mine --decontaminate` and `codemine
//! contamination`, and the index they build from the benchmark files.

use clap::Args;

use codemine_filters::dedup::DedupParams;
use miner::lang::{Lang, Registry};

use crate::help::heading;
use crate::values::parse_size;

#[derive(Args)]
#[command(next_help_heading = heading::DECONTAMINATION)]
pub struct DecontamArgs {
    /// The field(s) of a benchmark item that hold its code, for shapes codemine does not
    /// know (repeatable; a list of strings is taken as tokens).
    #[arg(long, value_name = "NAME")]
    decontaminate_field: Vec<String>,
    /// The language of benchmark items without a `language` field.
    #[arg(long, value_name = "LANG")]
    decontaminate_language: Option<String>,
    /// Tokens in a run shared with a benchmark item that make an exact match.
    #[arg(long, value_name = "N", default_value_t = 13, value_parser = clap::value_parser!(u64).range(1..))]
    decontaminate_ngram: u64,
    /// Shingle Jaccard at or above which a function is a near match of an item (default:
    /// the dedup threshold).
    #[arg(long, value_name = "F")]
    decontaminate_threshold: Option<f64>,
    /// A run found in more than N benchmark items is boilerplate and makes no exact match
    /// (0: every run counts).
    #[arg(long, value_name = "N", default_value_t = codemine_filters::decontam::DEFAULT_MAX_RUN_ITEMS as u64)]
    decontaminate_max_run_items: u64,
    /// The least share (0 to 1) of a benchmark item's 13-token runs that a function must
    /// share for an exact match (0: any one shared run, GPT-3's rule).
    #[arg(long, value_name = "F", default_value_t = codemine_filters::decontam::DEFAULT_MIN_COVERAGE)]
    decontaminate_min_coverage: f64,
    /// Warn (in the log and the dataset card) when decontamination removes more than this
    /// share (0 to 1) of the functions it checks: short or generic benchmark items match
    /// code they were never copied into.
    #[arg(long, value_name = "F", default_value_t = miner::pipeline::decontam::DEFAULT_WARN_SHARE)]
    pub decontaminate_warn_share: f64,
    /// Refuse benchmark files larger than this once decompressed (bytes; K, M, G suffixes
    /// allowed); files are streamed, so a gzip that inflates past it is stopped there.
    #[arg(long, value_name = "SIZE", default_value = "1G", value_parser = parse_size)]
    max_benchmark_bytes: u64,
}

impl DecontamArgs {
    pub fn read_options(&self) -> Result<miner::benchmark::ReadOptions, miner::Error> {
        let language = match &self.decontaminate_language {
            Some(l) => Some(Lang::from_name(l).ok_or_else(|| {
                miner::Error::Usage(format!("--decontaminate-language: unknown language `{l}`"))
            })?),
            None => None,
        };
        Ok(miner::benchmark::ReadOptions {
            fields: self.decontaminate_field.clone(),
            language,
            max_bytes: self.max_benchmark_bytes,
        })
    }

    /// The matching settings: the run's dedup parameters (bigcode's without dedup) for
    /// the near test.
    pub fn params(
        &self,
        dedup: Option<&DedupParams>,
    ) -> Result<codemine_filters::decontam::DecontamParams, miner::Error> {
        let dedup = dedup.cloned().unwrap_or_else(DedupParams::bigcode);
        let threshold = self.decontaminate_threshold.unwrap_or(dedup.threshold);
        if !(threshold > 0.0 && threshold <= 1.0) {
            return Err(miner::Error::Usage(format!(
                "--decontaminate-threshold {threshold}: must be in (0, 1]"
            )));
        }
        let coverage = self.decontaminate_min_coverage;
        if !(0.0..=1.0).contains(&coverage) {
            return Err(miner::Error::Usage(format!(
                "--decontaminate-min-coverage {coverage}: must be in [0, 1]"
            )));
        }
        Ok(codemine_filters::decontam::DecontamParams {
            ngram: usize::try_from(self.decontaminate_ngram).unwrap_or(usize::MAX),
            threshold,
            dedup,
            max_run_items: usize::try_from(self.decontaminate_max_run_items).unwrap_or(usize::MAX),
            min_coverage: self.decontaminate_min_coverage,
        })
    }
}

/// Reads every benchmark into the index (each streamed, item by item); a bad file is a
/// usage error that starts with `flag`, the argument that named the files (`--decontaminate`
/// for `mine`, `BENCH` for `contamination`).
pub fn decontaminator(
    files: &[String],
    flag: &str,
    read: &miner::benchmark::ReadOptions,
    params: &codemine_filters::decontam::DecontamParams,
    warn_share: f64,
) -> Result<miner::pipeline::decontam::Decontaminator, miner::Error> {
    if !(0.0..=1.0).contains(&warn_share) {
        return Err(miner::Error::Usage(format!(
            "--decontaminate-warn-share {warn_share}: must be in [0, 1]"
        )));
    }
    let mut d =
        miner::pipeline::decontam::DecontaminatorBuilder::new(params).warn_share(warn_share);
    for f in files {
        let spec = miner::benchmark::BenchmarkSpec::parse(f);
        if d.benchmarks().iter().any(|b| b.name == spec.name()) {
            return Err(miner::Error::Usage(format!(
                "{flag} {f}: a second benchmark named `{}`: name them with NAME=FILE",
                spec.name()
            )));
        }
        d.read(&spec, read)
            .map_err(|e| miner::Error::Usage(format!("{flag} {e}")))?;
    }
    for b in d.benchmarks().iter().filter(|b| b.short_items > 0) {
        miner::escape::log(&format!(
            "codemine: warning: {}: {} of {} items are shorter than {} tokens: each matches \
             only a function of exactly its tokens, never code that contains them",
            b.name, b.short_items, b.items, params.ngram
        ));
    }
    Ok(d.finish())
}
