//! What a repository's history says about each function: its last commit and date
//! ([`blame`]), with rename and move detection. The pipeline's enrich step uses it next to
//! `codemine_coverage`, which says what the tests' coverage reports say.

pub mod blame;
mod similarity;

pub use blame::{last_commits, BlameError, BlameStats, BlameTarget, FileDates, LastCommit};

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
}

impl HistoryStats {
    pub fn add(&mut self, o: &HistoryStats) {
        self.seconds += o.seconds;
        self.functions += o.functions;
        self.dated += o.dated;
        self.bounded += o.bounded;
        self.walk.add(&o.walk);
    }
}
