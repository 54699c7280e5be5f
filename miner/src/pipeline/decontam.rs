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

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::time::Instant;

use codemine_filters::decontam::{DecontamParams, Index, MatchKind};
use codemine_schemas::callgraph::NodeRow;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::benchmark::{check_function, Benchmark};
use crate::resolve::SourceUnit;
use crate::stats::RepoStats;

/// The funnel rule of a contaminated function.
pub const RULE: &str = "decontaminated";

/// One benchmark of a run, as stats.json and the rank marker name it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BenchmarkInfo {
    pub name: String,
    pub file: String,
    pub items: u64,
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

impl Decontaminator {
    pub fn build(benchmarks: Vec<Benchmark>, params: &DecontamParams) -> Self {
        let mut h = xxhash_rust::xxh3::Xxh3::new();
        let mut infos = Vec::new();
        let mut items = Vec::new();
        for b in benchmarks {
            infos.push(BenchmarkInfo {
                name: b.name.clone(),
                file: b.path.display().to_string(),
                items: b.items.len() as u64,
            });
            for it in &b.items {
                for s in [&it.benchmark, &it.id].into_iter().chain(&it.tokens) {
                    h.update(&(s.len() as u64).to_le_bytes());
                    h.update(s.as_bytes());
                }
            }
            items.extend(b.items);
        }
        h.update(format!("{params:?}").as_bytes());
        Self {
            index: Index::build(items, params),
            settings: Settings {
                benchmarks: infos,
                ngram: params.ngram,
                threshold: params.threshold,
                max_run_items: params.max_run_items,
                min_coverage: params.min_coverage,
            },
            digest: h.digest128(),
        }
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    pub fn index(&self) -> &Index {
        &self.index
    }
}

/// One benchmark's matches in one repository (or the whole run).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BenchCounts {
    pub exact: u64,
    pub near: u64,
    /// The ids of the items matched.
    pub items: BTreeSet<String>,
}

/// The step's counts in one repository, per benchmark with a match.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RepoDecontam {
    pub checked: u64,
    pub seconds: f64,
    pub benchmarks: BTreeMap<String, BenchCounts>,
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

/// stats.json `stages.decontamination`: one benchmark's totals over the run.
#[derive(Debug, Clone, Serialize)]
pub struct StageBench {
    pub file: String,
    pub items: u64,
    /// Items that some mined function matched.
    pub items_found: u64,
    /// Mined functions removed for this benchmark, and how they matched.
    pub functions_matched: u64,
    pub exact: u64,
    pub near: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct DecontamStage {
    pub ngram: usize,
    pub threshold: f64,
    /// Functions checked (those the earlier rules kept).
    pub functions_checked: u64,
    pub busy_seconds: f64,
    pub benchmarks: BTreeMap<String, StageBench>,
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
            };
            (b.name.clone(), stage)
        })
        .collect();
    Some(DecontamStage {
        ngram: s.ngram,
        threshold: s.threshold,
        functions_checked: checked,
        busy_seconds: seconds,
        benchmarks,
    })
}

/// The dataset card's lines on decontamination (empty when the step was off).
pub fn card_summary(stage: Option<&DecontamStage>) -> String {
    let Some(d) = stage else {
        return String::new();
    };
    let mut s = format!(
        "- decontamination: functions sharing a run of {} tokens with a benchmark item, or \
         with a shingle Jaccard >= {} (MinHash LSH), removed (rule `{RULE}`; nodes keep \
         `contaminated_by`):\n",
        d.ngram, d.threshold
    );
    for (name, b) in &d.benchmarks {
        s += &format!(
            "  - {}: {} of {} items found; {} functions removed ({} exact, {} near)\n",
            name.replace('|', "\\|"),
            b.items_found,
            b.items,
            b.functions_matched,
            b.exact,
            b.near
        );
    }
    s
}
