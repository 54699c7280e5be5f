//! What a repository's history says about each function: its last commit and date
//! ([`blame`]), with rename and move detection. The pipeline's enrich step uses it next to
//! `codemine_coverage`, which says what the tests' coverage reports say. [`cache`] keeps the
//! dates of one run, so that the next run at a later commit walks only what changed.

pub mod blame;
pub mod cache;
mod similarity;
mod xdiff;

pub use blame::{last_commits, BlameError, BlameStats, BlameTarget, FileDates, LastCommit};
pub use cache::{last_commits_cached, HistoryCache, ReuseStats};

/// The history part of the enrich stage for one repository, for stats.json.
#[derive(Debug, Default, Clone, serde::Serialize, serde::Deserialize)]
pub struct HistoryStats {
    pub seconds: f64,
    /// Functions asked about (those that the filters before this stage kept).
    pub functions: usize,
    pub dated: usize,
    /// Dates that are only upper bounds (a shallow clone's boundary commit).
    pub bounded: usize,
    #[serde(flatten)]
    pub walk: BlameStats,
    /// What the history cache gave (absent with `--no-history-cache`); summed over
    /// repositories in the stage's stats, with no base and no notes there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<ReuseStats>,
}

impl HistoryStats {
    pub fn add(&mut self, o: &HistoryStats) {
        self.seconds += o.seconds;
        self.functions += o.functions;
        self.dated += o.dated;
        self.bounded += o.bounded;
        self.walk.add(&o.walk);
        if let Some(c) = &o.cache {
            let mine = self.cache.get_or_insert_with(ReuseStats::default);
            mine.commits_since_base += c.commits_since_base;
            mine.changed_paths += c.changed_paths;
            mine.reused_files += c.reused_files;
            mine.reused_functions += c.reused_functions;
            mine.dated_at_base += c.dated_at_base;
        }
    }
}
