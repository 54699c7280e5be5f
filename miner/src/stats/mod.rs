//! Counters and timings of a run, written to `stats.json`: per stage, per language and per
//! repository. Workers fill one [`RepoStats`] each; the writer merges them in input order,
//! so the counts do not depend on the thread count.

pub mod card;
pub mod steps;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use codemine_filters::dedup::DedupParams;
use codemine_filters::Funnel;

use crate::resolve::ResolveCounts;
use codemine_coverage::CoverageStats;
use codemine_history::HistoryStats;
use codemine_schemas::intern;

use crate::source::Skipped;

/// Every failure kind that failures.jsonl can hold, with its stage; the README's failure
/// table lists each (a test checks both against the code).
pub const FAILURE_KINDS: &[(&str, &str)] = &[
    ("source", "path_not_found"),
    ("source", "unreachable"),
    ("source", "not_in_cache"),
    ("source", "revision_not_found"),
    ("source", "revision_not_a_commit"),
    ("source", "revision_without_git"),
    ("source", "corrupt_repository"),
    ("source", "no_commits"),
    ("source", "io_error"),
    ("extract", "non_utf8"),
    ("extract", "too_large"),
    ("extract", "binary"),
    ("extract", "read_error"),
    ("extract", "parse_error"),
    ("extract", "nesting_too_deep"),
    ("extract", "pii_too_large"),
    ("enrich", "coverage_error"),
    ("enrich", "coverage_too_large"),
    ("enrich", "history_error"),
    ("tests", "tests_setup_failed"),
    ("tests", "tests_run_failed"),
    ("write", "encode_error"),
];

/// One line of failures.jsonl: a repository or a file that could not be processed.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Failure {
    pub repo: String,
    /// The repository's location, without credentials.
    pub source: String,
    /// The file, for a file-level failure.
    pub path: Option<String>,
    #[serde(deserialize_with = "intern::de_str")]
    pub stage: intern::Label,
    /// A stable machine-readable reason (`revision_not_found`, `non_utf8`, ...).
    #[serde(deserialize_with = "intern::de_str")]
    pub kind: intern::Label,
    /// What happened, for a person.
    pub reason: String,
    /// The end of the log of the command that failed (a test suite's setup or run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_tail: Option<String>,
}

/// Counts of one language (or of all languages together).
#[derive(Debug, Default, Clone, Serialize, Deserialize)]
pub struct LangCounts {
    pub files: usize,
    pub bytes: u64,
    pub files_with_syntax_errors: usize,
    pub functions: usize,
    pub with_docstring: usize,
    /// Functions lost to syntax errors: a broken signature, inside an ERROR node, or text
    /// that opens a function where tree-sitter found none (see docs/failures.md).
    pub dropped_syntax_error: usize,
    /// Functions nested more than `extract::MAX_FUNCTION_NESTING` deep, left in the code of
    /// the function that holds them rather than extracted on their own.
    #[serde(default)]
    pub dropped_nesting: usize,
    /// Functions kept and flagged because their body holds a syntax error.
    pub functions_with_syntax_errors: usize,
    pub csn_rows: usize,
}

impl LangCounts {
    pub fn add(&mut self, o: &LangCounts) {
        self.files += o.files;
        self.bytes += o.bytes;
        self.files_with_syntax_errors += o.files_with_syntax_errors;
        self.functions += o.functions;
        self.with_docstring += o.with_docstring;
        self.dropped_syntax_error += o.dropped_syntax_error;
        self.dropped_nesting += o.dropped_nesting;
        self.functions_with_syntax_errors += o.functions_with_syntax_errors;
        self.csn_rows += o.csn_rows;
    }
}

/// What happened to one repository.
#[derive(Debug, Default, Clone, Serialize, Deserialize)]
pub struct RepoStats {
    pub repo: String,
    pub source: String,
    pub sha: Option<String>,
    /// `mined`, `failed`, or `duplicate` (the same repository and commit listed twice).
    #[serde(deserialize_with = "intern::de_str")]
    pub status: intern::Label,
    #[serde(deserialize_with = "intern::de_opt")]
    pub partition: Option<intern::Label>,
    pub files_listed: usize,
    pub skipped: Skipped,
    /// Files that could not be read or decoded, by reason.
    #[serde(deserialize_with = "intern::de_map")]
    pub files_failed: BTreeMap<&'static str, usize>,
    pub totals: LangCounts,
    #[serde(deserialize_with = "intern::de_map")]
    pub languages: BTreeMap<&'static str, LangCounts>,
    pub source_seconds: f64,
    pub extract_seconds: f64,
    pub resolve_seconds: f64,
    /// `c` or `cpp`: how `.h` headers were parsed.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "intern::de_opt"
    )]
    pub headers: Option<intern::Label>,
    /// Call sites and their resolution, per language.
    #[serde(deserialize_with = "intern::de_map")]
    pub resolve: BTreeMap<&'static str, ResolveCounts>,
    pub filter_seconds: f64,
    /// Coverage reports attached to this repository, when there were any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coverage: Option<RepoCoverageStats>,
    /// What the filters removed here, by rule.
    #[serde(skip)]
    pub funnel: Funnel,
    /// The last-commit walk, when history was asked for and the repository has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history: Option<HistoryStats>,
    /// The repository's own license (its root folder's) and the license step's counts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub license: Option<steps::RepoLicense>,
    /// The completion step's counts, with `--emit completion`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completion: Option<steps::RepoCompletion>,
    /// The decontamination step's matches, with `--decontaminate`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decontamination: Option<steps::RepoDecontam>,
    /// The repository-level completion step's counts, with `--emit repo-completion`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repo_completion: Option<crate::repo_completion::Counts>,
    /// Its test suite's run, with `--run-tests`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tests: Option<steps::RepoTests>,
    /// Its findings of personal data and secrets, with `--pii`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pii: Option<steps::RepoPii>,
    /// Its docstrings parsed into parts, with `--docstring-params`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub docstring_params: Option<steps::RepoDocstringParams>,
}

#[derive(Debug, Default, Serialize)]
pub struct SourceStage {
    /// Thread time spent opening, fetching and listing repositories.
    pub busy_seconds: f64,
    pub repositories: usize,
    pub opened: usize,
    pub failed: BTreeMap<&'static str, usize>,
    pub duplicates: usize,
    pub files_listed: usize,
    pub skipped: Skipped,
}

#[derive(Debug, Default, Serialize)]
pub struct ExtractStage {
    /// Thread time spent reading and parsing files.
    pub busy_seconds: f64,
    pub files_failed: BTreeMap<&'static str, usize>,
    #[serde(flatten)]
    pub totals: LangCounts,
}

/// The resolve stage over the whole run.
#[derive(Debug, Default, Serialize)]
pub struct ResolveStage {
    /// Thread time spent building symbol tables, resolving calls and building rows.
    pub busy_seconds: f64,
    #[serde(flatten)]
    pub totals: ResolveCounts,
    /// Per language: the counts and `resolution_rate` (call sites with a category other
    /// than `unresolved`, over all call sites).
    pub languages: BTreeMap<&'static str, LangResolve>,
}

#[derive(Debug, Default, Serialize)]
pub struct LangResolve {
    #[serde(flatten)]
    pub counts: ResolveCounts,
    pub resolution_rate: f64,
}

/// Coverage of one repository: how its reports mapped onto its files.
#[derive(Debug, Default, Clone, Serialize, Deserialize)]
pub struct RepoCoverageStats {
    pub seconds: f64,
    /// Reports that could not be read (each is in failures.jsonl); any makes the
    /// repository's coverage null.
    pub failed_reports: usize,
    /// Functions whose file some report covers (they have `test_cov_hits`).
    pub functions: usize,
    #[serde(flatten)]
    pub mapping: CoverageStats,
}

/// Coverage over the whole run.
#[derive(Debug, Default, Serialize)]
pub struct CoverageStage {
    pub seconds: f64,
    pub repositories: usize,
    pub reports: usize,
    pub failed_reports: usize,
    pub functions: usize,
    pub report_files: usize,
    pub mapped_files: usize,
    pub unmapped_files: usize,
    pub ambiguous_files: usize,
}

/// The enrich stage over the whole run.
#[derive(Debug, Default, Serialize)]
pub struct EnrichStage {
    pub history: HistoryStats,
    pub coverage: CoverageStage,
}

/// The filter stage over the whole run: its settings and the funnel (each removed function
/// counted once, under the first rule that removed it; overall, per language, per
/// repository).
#[derive(Debug, Default, Serialize)]
pub struct FilterStage {
    pub busy_seconds: f64,
    pub active: bool,
    /// The effective settings (preset and rules), as the filter describes them.
    pub settings: serde_json::Value,
    /// Active rules in evaluation order.
    pub rules: Vec<&'static str>,
    #[serde(flatten)]
    pub funnel: Funnel,
}

/// The dedup stage over the whole run: what was removed, the cluster sizes and the
/// parameters (see `codemine_filters::dedup`). Counts come from the clusters table, so they
/// are the same whichever engine clustered.
#[derive(Debug, Serialize, Deserialize)]
pub struct DedupStage {
    /// `codemine cluster`, or `external` when only the clusters table was given.
    pub clustered_by: String,
    /// Which tokens are shingled.
    pub tokens: String,
    /// How each cluster's keeper is chosen.
    pub keeper_rule: String,
    pub params: DedupParams,
    pub minhash_rs_version: String,
    /// Functions that went into dedup.
    pub functions: u64,
    pub exact_removed: u64,
    pub near_removed: u64,
    /// Clusters of two or more functions.
    pub clusters: u64,
    /// Functions shorter than one shingle (exact stage only).
    pub tiny: u64,
    /// Cluster size -> clusters of that size (size 1: functions without a duplicate).
    pub cluster_sizes: BTreeMap<u64, u64>,
    /// Rows of `dedup/clusters/clusters-*` (members of clusters of two or more, keepers included).
    pub cluster_members: u64,
    /// What the cluster step reported (absent for an external engine).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster_step: Option<ClusterStep>,
}

/// What `codemine cluster` measured (`staging/cluster-step.json`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ClusterStep {
    pub seconds: f64,
    pub functions: u64,
    pub tiny: u64,
    /// Candidate pairs whose Jaccard was computed, and those at or above the threshold.
    pub candidate_pairs: u64,
    pub near_pairs: u64,
    /// Function rows of a second rank with an id already seen (left out of dedup).
    pub same_id_skipped: u64,
}

#[derive(Debug, Default, Serialize)]
pub struct WriteStage {
    /// Time the writer thread spent encoding and writing.
    pub busy_seconds: f64,
    pub csn_rows: BTreeMap<&'static str, usize>,
    /// Arrow bytes of each CSN split (`num_bytes` of the card's `splits`).
    pub csn_bytes: BTreeMap<&'static str, u64>,
    pub yabloco_rows: usize,
    pub callgraph_nodes: usize,
    pub callgraph_edges: usize,
    /// Rows of `dropped/` (only with `--explain`).
    pub dropped_rows: usize,
    /// Rows of `tests/` (only with `--run-tests`).
    #[serde(skip_serializing_if = "is_zero")]
    pub tests_rows: usize,
    /// Rows of `pii/` (only with `--pii`).
    #[serde(skip_serializing_if = "is_zero")]
    pub pii_rows: usize,
    /// Rows of `tasks/` (only with `--validate-tasks`).
    #[serde(skip_serializing_if = "is_zero")]
    pub tasks_rows: usize,
    /// Rows of `dedup/bands/bands-*` (one per LSH band of each function with a shingle).
    pub band_rows: usize,
    /// Kept functions left out of CSN, YABLoCo and dedup because an earlier function of
    /// the run has the same id (same repository name, path, qualified name, start line).
    pub same_id_skipped: usize,
    pub shards: BTreeMap<&'static str, Vec<String>>,
}

#[derive(Debug, Default, Serialize)]
pub struct Stages {
    pub source: SourceStage,
    pub extract: ExtractStage,
    pub resolve: ResolveStage,
    pub enrich: EnrichStage,
    pub filter: FilterStage,
    /// Absent when dedup was off.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dedup: Option<DedupStage>,
    /// Absent without `--emit completion`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub completion: Option<steps::CompletionStage>,
    /// Absent without `--emit repo-completion`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repo_completion: Option<steps::RepoCompletionStage>,
    /// Absent without `--decontaminate`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decontamination: Option<steps::DecontamStage>,
    /// Absent without `--side-model`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub side: Option<steps::SideStage>,
    /// Absent without `--run-tests`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tests: Option<steps::TestsStage>,
    /// Absent without `--pii`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pii: Option<steps::PiiStage>,
    /// Absent without `--docstring-params`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub docstring_params: Option<steps::DocstringParamsStage>,
    pub write: WriteStage,
}

/// The whole of stats.json.
#[derive(Debug, Default, Serialize)]
pub struct Stats {
    pub codemine_version: &'static str,
    pub threads: usize,
    pub wall_seconds: f64,
    /// Peak resident memory of the process (Linux `VmHWM`), when the platform tells.
    pub peak_rss_bytes: Option<u64>,
    pub stages: Stages,
    pub languages: BTreeMap<&'static str, LangCounts>,
    pub repositories: Vec<RepoStats>,
    /// The repositories' completion counts, summed (for `stages.completion`).
    #[serde(skip)]
    pub completion_counts: steps::RepoCompletion,
    /// The repositories' repo-completion counts, summed.
    #[serde(skip)]
    pub repo_completion_counts: crate::repo_completion::Counts,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

fn add_skipped(a: &mut Skipped, b: &Skipped) {
    a.symlinks += b.symlinks;
    a.submodules += b.submodules;
    a.unsupported += b.unsupported;
    a.non_utf8_path += b.non_utf8_path;
    a.special += b.special;
}

impl Stats {
    /// Adds one repository's counts to the run's.
    pub fn merge(&mut self, r: RepoStats, failure_kind: Option<&'static str>) {
        let s = &mut self.stages;
        s.source.repositories += 1;
        s.source.busy_seconds += r.source_seconds;
        s.extract.busy_seconds += r.extract_seconds;
        match (r.status, failure_kind) {
            ("failed", Some(kind)) => *s.source.failed.entry(kind).or_default() += 1,
            ("duplicate", _) => s.source.duplicates += 1,
            _ => {
                s.source.opened += 1;
                s.source.files_listed += r.files_listed;
                add_skipped(&mut s.source.skipped, &r.skipped);
                for (k, v) in &r.files_failed {
                    *s.extract.files_failed.entry(k).or_default() += v;
                }
                s.extract.totals.add(&r.totals);
                for (lang, c) in &r.languages {
                    self.languages.entry(lang).or_default().add(c);
                }
                s.resolve.busy_seconds += r.resolve_seconds;
                if let Some(h) = &r.history {
                    s.enrich.history.add(h);
                }
                if let Some(c) = &r.completion {
                    self.completion_counts.add(c);
                }
                if let Some(c) = &r.repo_completion {
                    self.repo_completion_counts.add(c);
                }
                if let Some(t) = &r.tests {
                    s.tests.get_or_insert_with(Default::default).add(t);
                }
                if let Some(p) = &r.pii {
                    s.pii.get_or_insert_with(Default::default).add(p);
                }
                if let Some(d) = &r.docstring_params {
                    s.docstring_params
                        .get_or_insert_with(Default::default)
                        .add(d);
                }
                if let Some(c) = &r.coverage {
                    let t = &mut s.enrich.coverage;
                    t.seconds += c.seconds;
                    t.repositories += 1;
                    t.reports += c.mapping.reports;
                    t.failed_reports += c.failed_reports;
                    t.functions += c.functions;
                    t.report_files += c.mapping.report_files;
                    t.mapped_files += c.mapping.mapped_files;
                    t.unmapped_files += c.mapping.unmapped_files;
                    t.ambiguous_files += c.mapping.ambiguous_files;
                }
                s.filter.busy_seconds += r.filter_seconds;
                s.filter.funnel.merge(r.funnel.clone());
                for (lang, c) in &r.resolve {
                    s.resolve.totals.add(c);
                    let l = s.resolve.languages.entry(lang).or_default();
                    l.counts.add(c);
                    l.resolution_rate = if l.counts.calls == 0 {
                        0.0
                    } else {
                        l.counts.resolved as f64 / l.counts.calls as f64
                    };
                }
            }
        }
        self.repositories.push(r);
    }
}

/// Peak resident set size of this process, from `/proc/self/status` (Linux only).
pub fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_failure_kind_is_listed_and_documented() {
        use crate::source::RepoError;
        let listed = |stage: &str, kind: &str| FAILURE_KINDS.contains(&(stage, kind));
        // Every variant, so that a new one cannot be left out of the list.
        let source = [
            RepoError::PathNotFound(String::new()),
            RepoError::Unreachable {
                url: String::new(),
                message: String::new(),
            },
            RepoError::NotCached {
                url: String::new(),
                cache: String::new(),
            },
            RepoError::RevNotFound {
                rev: String::new(),
                repo: String::new(),
                hint: "",
            },
            RepoError::RevNotCommit {
                rev: String::new(),
                repo: String::new(),
                kind: "blob",
            },
            RepoError::RevWithoutGit(String::new()),
            RepoError::NoCommits {
                repo: String::new(),
            },
            RepoError::Corrupt {
                repo: String::new(),
                message: String::new(),
            },
            RepoError::Io {
                path: String::new(),
                source: std::io::Error::other("x"),
            },
        ];
        for e in &source {
            let kind = match e {
                RepoError::PathNotFound(_)
                | RepoError::Unreachable { .. }
                | RepoError::NotCached { .. }
                | RepoError::RevNotFound { .. }
                | RepoError::RevNotCommit { .. }
                | RepoError::RevWithoutGit(_)
                | RepoError::NoCommits { .. }
                | RepoError::Corrupt { .. }
                | RepoError::Io { .. } => e.kind(),
            };
            assert!(listed("source", kind), "{kind} is not in FAILURE_KINDS");
        }
        // Every coverage error's kind.
        let coverage = [
            codemine_coverage::CoverageError::TooLarge {
                path: Default::default(),
                limit: 1,
                compressed: true,
            },
            codemine_coverage::CoverageError::UnknownFormat {
                path: Default::default(),
                reason: String::new(),
            },
        ];
        for e in &coverage {
            let kind = match e {
                codemine_coverage::CoverageError::Io { .. }
                | codemine_coverage::CoverageError::Gzip { .. }
                | codemine_coverage::CoverageError::TooLarge { .. }
                | codemine_coverage::CoverageError::UnknownFormat { .. }
                | codemine_coverage::CoverageError::Parse { .. } => e.kind(),
            };
            assert!(listed("enrich", kind), "{kind} is not in FAILURE_KINDS");
        }
        // The file and enrich failures the pipeline writes, as string literals.
        let pipeline = [
            include_str!("../pipeline/repo.rs"),
            include_str!("../pipeline/extract_step.rs"),
            include_str!("../pipeline/enrich_step.rs"),
            include_str!("../pipeline/tests_step.rs"),
        ]
        .concat();
        let literal = regex::Regex::new(
            r#"(?:kind: |kind = |\(\s*|"(?:source|extract|enrich|tests|write)",\s*)"([a-z0-9_]+)""#,
        )
        .expect("regex");
        let found: Vec<&str> = literal
            .captures_iter(&pipeline)
            .filter_map(|c| c.get(1))
            .map(|m| m.as_str())
            .collect();
        assert!(found.len() >= 7, "{found:?}");
        for kind in found {
            assert!(
                FAILURE_KINDS.iter().any(|(_, k)| *k == kind),
                "{kind} is not in FAILURE_KINDS"
            );
        }
        let table = include_str!("../../../docs/failures.md");
        for (stage, kind) in FAILURE_KINDS {
            assert!(
                table.contains(&format!("| `{kind}` | {stage} |")),
                "docs/failures.md's table lacks {kind} ({stage})"
            );
        }
    }

    #[test]
    fn repository_stats_survive_a_marker_file() {
        let mut r = RepoStats {
            repo: "psf/requests".into(),
            status: "mined",
            partition: Some("train"),
            headers: Some("c"),
            ..Default::default()
        };
        r.files_failed.insert("non_utf8", 2);
        r.languages.entry("python").or_default().functions = 7;
        let json = serde_json::to_string(&r).expect("serialize");
        let back: RepoStats = serde_json::from_str(&json).expect("deserialize");
        assert_eq!(serde_json::to_string(&back).expect("serialize"), json);
        assert_eq!(back.status, "mined");
        assert_eq!(back.languages["python"].functions, 7);
    }
}
