//! The decontamination step (`--decontaminate FILE`): every function the cheap filters
//! kept is checked against the index of every benchmark item (see
//! `codemine_filters::decontam`: a shared run of `ngram` tokens is an exact match, a
//! verified MinHash Jaccard at or above the threshold a near one). A match removes the
//! function from every table under the funnel rule `decontaminated` (so `--explain` lists
//! it); its call-graph node stays, with `contaminated_by` = `benchmark:item_id`.
//!
//! Functions another rule already removed are not checked (each function is counted once,
//! under the first rule that removed it). The code-completion rows are file-level and are
//! not touched.
//!
//! stats.json `stages.decontamination` lists per benchmark its file, items, the items found
//! in the corpus and the functions matched (exact and near); the repository records carry
//! the per-repository counts that add up to it.

use std::collections::BTreeMap;
use std::fmt;
use std::time::Instant;

use codemine_filters::decontam::{BenchItem, DecontamParams, Index, IndexBuilder, MatchKind};
use codemine_schemas::callgraph::NodeRow;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::benchmark::{
    check_function, read_each, Benchmark, BenchmarkError, BenchmarkSpec, ReadOptions,
};
use crate::resolve::SourceUnit;
pub use crate::stats::steps::{BenchCounts, DecontamStage, RepoDecontam, StageBench};
use crate::stats::RepoStats;

/// The funnel rule of a contaminated function.
pub const RULE: &str = crate::stats::steps::DECONTAM_RULE;

/// One benchmark of a run, as stats.json and the rank marker name it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BenchmarkInfo {
    pub name: String,
    pub file: String,
    pub items: u64,
    /// Items shorter than the n-gram size: each matches only a whole function of exactly
    /// its tokens.
    #[serde(default)]
    pub short_items: u64,
}

/// What finalize needs to report the step: the benchmarks and the settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    pub benchmarks: Vec<BenchmarkInfo>,
    pub ngram: usize,
    pub threshold: f64,
    #[serde(default)]
    pub max_run_items: usize,
    #[serde(default)]
    pub min_coverage: f64,
    /// The share of the checked functions that, removed, makes the run warn
    /// (`--decontaminate-warn-share`).
    #[serde(default = "default_warn_share")]
    pub warn_share: f64,
}

/// The default `--decontaminate-warn-share`: a benchmark that removes a tenth of a corpus
/// is far more likely generic (a one-line item, boilerplate) than copied that often.
pub const DEFAULT_WARN_SHARE: f64 = 0.1;

fn default_warn_share() -> f64 {
    DEFAULT_WARN_SHARE
}

/// The index of every benchmark of a run, built once before mining.
pub struct Decontaminator {
    index: Index,
    settings: Settings,
    /// xxh3 of every item's benchmark, id and tokens: a changed file changes the run's
    /// fingerprint.
    digest: u128,
}

impl fmt::Debug for Decontaminator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Decontaminator({:?}, {:032x})",
            self.settings, self.digest
        )
    }
}

/// Builds a [`Decontaminator`] benchmark by benchmark, each streamed into the index item
/// by item (no benchmark is ever held whole).
pub struct DecontaminatorBuilder {
    index: IndexBuilder,
    infos: Vec<BenchmarkInfo>,
    hasher: xxhash_rust::xxh3::Xxh3,
    params: DecontamParams,
    warn_share: f64,
}

impl DecontaminatorBuilder {
    pub fn new(params: &DecontamParams) -> Self {
        Self {
            index: IndexBuilder::new(params),
            infos: Vec::new(),
            hasher: xxhash_rust::xxh3::Xxh3::new(),
            params: params.clone(),
            warn_share: DEFAULT_WARN_SHARE,
        }
    }

    /// The share of the checked functions above which a run warns.
    pub fn warn_share(mut self, share: f64) -> Self {
        self.warn_share = share;
        self
    }

    fn add_item(&mut self, it: BenchItem) {
        for s in [&it.benchmark, &it.id].into_iter().chain(&it.tokens) {
            self.hasher.update(&(s.len() as u64).to_le_bytes());
            self.hasher.update(s.as_bytes());
        }
        self.index.add(&it.benchmark, it.id, &it.tokens);
    }

    /// Reads a benchmark file into the index.
    pub fn read(&mut self, spec: &BenchmarkSpec, opts: &ReadOptions) -> Result<(), BenchmarkError> {
        let short = self.index.short_items();
        let items = read_each(spec, opts, |it| self.add_item(it))?;
        self.infos.push(BenchmarkInfo {
            name: spec.name(),
            file: spec.path.display().to_string(),
            items,
            short_items: self.index.short_items() - short,
        });
        Ok(())
    }

    /// Adds a benchmark already read.
    pub fn add(&mut self, b: Benchmark) {
        let short = self.index.short_items();
        let items = b.items.len() as u64;
        for it in b.items {
            self.add_item(it);
        }
        self.infos.push(BenchmarkInfo {
            name: b.name,
            file: b.path.display().to_string(),
            items,
            short_items: self.index.short_items() - short,
        });
    }

    /// The benchmarks read so far.
    pub fn benchmarks(&self) -> &[BenchmarkInfo] {
        &self.infos
    }

    pub fn finish(mut self) -> Decontaminator {
        let params = &self.params;
        self.hasher.update(format!("{params:?}").as_bytes());
        Decontaminator {
            index: self.index.finish(),
            settings: Settings {
                benchmarks: self.infos,
                ngram: params.ngram,
                threshold: params.threshold,
                max_run_items: params.max_run_items,
                min_coverage: params.min_coverage,
                warn_share: self.warn_share,
            },
            digest: self.hasher.digest128(),
        }
    }
}

impl Decontaminator {
    pub fn build(benchmarks: Vec<Benchmark>, params: &DecontamParams) -> Self {
        let mut b = DecontaminatorBuilder::new(params);
        for bench in benchmarks {
            b.add(bench);
        }
        b.finish()
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    pub fn index(&self) -> &Index {
        &self.index
    }
}

/// The decontamination step, with `--decontaminate`.
pub(super) struct Decontaminate;

impl super::steps::RepoStep for Decontaminate {
    fn wanted(&self, opts: &super::MineOptions, _spec: &crate::source::RepoSpec) -> bool {
        opts.decontam.is_some()
    }

    fn run(&self, s: &mut super::steps::Enriching) {
        if let Some(d) = &s.opts.decontam {
            let found = step(d, s.units, &mut s.graph.nodes, s.outcome);
            s.stats.decontamination = Some(found);
        }
    }
}

/// Checks every function whose outcome is still `Ok`; a match sets its outcome to
/// [`RULE`] and its node's `contaminated_by`.
pub fn step(
    d: &Decontaminator,
    units: &[SourceUnit],
    nodes: &mut [NodeRow],
    outcome: &mut [Result<(), &'static str>],
) -> RepoDecontam {
    let t = Instant::now();
    let functions: Vec<(usize, crate::lang::Lang, &crate::extract::Function)> = units
        .iter()
        .flat_map(|u| u.functions.iter().map(move |f| (u.lang, f)))
        .enumerate()
        .filter(|(k, _)| outcome[*k].is_ok())
        .map(|(k, (l, f))| (k, l, f))
        .collect();
    let found: Vec<_> = functions
        .par_iter()
        .map_init(crate::extract::Extractor::default, |ex, &(k, lang, f)| {
            let tokens = f.code_tokens.iter();
            check_function(&d.index, ex, lang, &f.code, tokens).map(|m| (k, m))
        })
        .flatten()
        .collect();
    let mut out = RepoDecontam {
        checked: functions.len() as u64,
        ..Default::default()
    };
    for (k, m) in found {
        outcome[k] = Err(RULE);
        nodes[k].contaminated_by = Some(format!("{}:{}", m.benchmark, m.item));
        let c = out.benchmarks.entry(m.benchmark).or_default();
        match m.kind {
            MatchKind::Exact => c.exact += 1,
            MatchKind::Near => c.near += 1,
        }
        c.items.insert(m.item);
    }
    out.seconds = t.elapsed().as_secs_f64();
    out
}

/// The run's totals from the repositories' counts; `None` when the step was off.
pub fn finalize(settings: Option<&Settings>, repos: &[RepoStats]) -> Option<DecontamStage> {
    let s = settings?;
    let mut found: BTreeMap<&str, BenchCounts> = BTreeMap::new();
    let (mut checked, mut seconds) = (0, 0.0);
    for r in repos.iter().filter_map(|r| r.decontamination.as_ref()) {
        checked += r.checked;
        seconds += r.seconds;
        for (name, c) in &r.benchmarks {
            let t = found.entry(name).or_default();
            t.exact += c.exact;
            t.near += c.near;
            t.items.extend(c.items.iter().cloned());
        }
    }
    let benchmarks = s
        .benchmarks
        .iter()
        .map(|b| {
            let c = found.get(b.name.as_str()).cloned().unwrap_or_default();
            let stage = StageBench {
                file: b.file.clone(),
                items: b.items,
                items_found: c.items.len() as u64,
                functions_matched: c.exact + c.near,
                exact: c.exact,
                near: c.near,
                short_items: b.short_items,
            };
            (b.name.clone(), stage)
        })
        .collect::<BTreeMap<String, StageBench>>();
    let removed: u64 = benchmarks.values().map(|b| b.functions_matched).sum();
    let warning = (checked > 0 && removed as f64 > s.warn_share * checked as f64).then(|| {
        format!(
            "decontamination removed {removed} of the {checked} functions checked ({:.1}%), \
             more than --decontaminate-warn-share {}: a benchmark item that is short or \
             generic matches code it was not copied into; check the items found \
             (`codemine contamination`)",
            100.0 * removed as f64 / checked as f64,
            s.warn_share
        )
    });
    Some(DecontamStage {
        ngram: s.ngram,
        threshold: s.threshold,
        functions_checked: checked,
        busy_seconds: seconds,
        benchmarks,
        functions_removed: removed,
        warn_share: s.warn_share,
        warning,
    })
}
