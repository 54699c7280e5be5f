//! Where each table lives in an output folder: one folder per table, one schema per folder
//! (the rule of docs/design.md, issue 39), so that `pandas.read_parquet(folder)`,
//! `pyarrow.dataset`, polars, DuckDB and `datasets` given a folder read exactly one table.
//!
//! A table's files keep the names the writer gives them (`{name}-NNNNN-of-NNNNN.parquet`; a
//! split table has its split in the name: `line-test-00000-of-00001.parquet`). Before issue
//! 39 the tables of `callgraph/`, `dedup/` and `completion/` lay side by side in those
//! folders; [`old_layout`] recognises such an output so that readers refuse it with a
//! message naming the new folders instead of mixing tables.

use std::path::{Path, PathBuf};

/// One table of an output folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TableDir {
    /// The dataset card's config name (`callgraph_nodes`), as `codemine inspect` names it.
    pub config: &'static str,
    /// The table's folder, relative to the output folder (`callgraph/nodes`).
    pub dir: &'static str,
    /// The writer's name of its shards: `nodes` gives `nodes-00000-of-00001.parquet`, a
    /// split table's `line` gives `line-{split}-...` (empty for `csn`: `{split}-...`).
    pub prefix: &'static str,
    /// Whether the table is split (train, valid, test) by its files' names.
    pub split: bool,
}

pub const CSN: TableDir = table("csn", "csn", "", true);
pub const YABLOCO: TableDir = table("yabloco", "yabloco", "data", false);
pub const NODES: TableDir = table("callgraph_nodes", "callgraph/nodes", "nodes", false);
pub const EDGES: TableDir = table("callgraph_edges", "callgraph/edges", "edges", false);
pub const REPOSITORIES: TableDir = table("repositories", "repositories", "data", false);
pub const DROPPED: TableDir = table("dropped", "dropped", "dropped", false);
/// Written by `mine --run-tests`: one row per test run.
pub const TESTS: TableDir = table("tests", "tests", "tests", false);
/// Written by `mine --pii`: one row per finding of personal data or a secret.
pub const PII: TableDir = table("pii", "pii", "pii", false);
/// Written by `mine --run-tests --validate-tasks`: one row per function validated.
pub const TASKS: TableDir = table("tasks", "tasks", "tasks", false);
/// Written per rank and mining chunk: `bands-rRRRRR-cCCCCC-NNNNN-of-NNNNN.parquet`.
pub const BANDS: TableDir = table("dedup_bands", "dedup/bands", "bands", false);
pub const CLUSTERS: TableDir = table("dedup_clusters", "dedup/clusters", "clusters", false);
pub const COMPLETION_TOKEN: TableDir = table("completion_token", "completion/token", "token", true);
pub const COMPLETION_LINE: TableDir = table("completion_line", "completion/line", "line", true);
pub const COMPLETION_REPO: TableDir = table("completion_repo", "completion/repo", "repo", true);
pub const COMPLETION_SNAPSHOT: TableDir = table(
    "completion_snapshot",
    "completion/snapshot",
    "snapshot",
    true,
);

/// Every table, in the order the dataset card lists its configs.
pub const TABLES: [TableDir; 15] = [
    CSN,
    YABLOCO,
    NODES,
    EDGES,
    REPOSITORIES,
    DROPPED,
    BANDS,
    CLUSTERS,
    COMPLETION_TOKEN,
    COMPLETION_LINE,
    COMPLETION_REPO,
    COMPLETION_SNAPSHOT,
    TESTS,
    PII,
    TASKS,
];

/// The folders that group several tables (each in a sub-folder of its own).
pub const GROUPS: [&str; 3] = ["callgraph", "dedup", "completion"];

const fn table(
    config: &'static str,
    dir: &'static str,
    prefix: &'static str,
    split: bool,
) -> TableDir {
    TableDir {
        config,
        dir,
        prefix,
        split,
    }
}

impl TableDir {
    /// The table's folder under `out_dir`.
    pub fn path(&self, out_dir: &Path) -> PathBuf {
        out_dir.join(self.dir)
    }

    /// The writer's name of the table's shards of `split` (`line-test`; `test` for csn).
    pub fn split_name(&self, split: &str) -> String {
        if self.prefix.is_empty() {
            split.to_string()
        } else {
            format!("{}-{split}", self.prefix)
        }
    }
}

/// The table a shard belongs to by its file name: the name's parts before the first split,
/// shard number, rank (`r00000`) or chunk (`c00000`): `nodes` for
/// `nodes-00000-of-00001.parquet`, `line` for `line-test-...`, `bands` for
/// `bands-r00000-c00000-...`, empty for csn's `train-...`.
pub fn shard_prefix(file: &str) -> String {
    let stem = file.strip_suffix(".parquet").unwrap_or(file);
    let mut prefix = String::new();
    for part in stem.split('-') {
        let numbered = part.len() > 1
            && (part.bytes().all(|b| b.is_ascii_digit())
                || ((part.starts_with('r') || part.starts_with('c'))
                    && part[1..].bytes().all(|b| b.is_ascii_digit())));
        if numbered || matches!(part, "train" | "valid" | "test") || part == "of" {
            break;
        }
        if !prefix.is_empty() {
            prefix.push('-');
        }
        prefix.push_str(part);
    }
    prefix
}

/// Why `out_dir` is an output folder in the layout before issue 39 (Parquet files directly
/// in `callgraph/`, `dedup/` or `completion/`), or `None`. The message names the file and
/// the folders where the tables now live.
pub fn old_layout(out_dir: &Path) -> Option<String> {
    for group in GROUPS {
        let dir = out_dir.join(group);
        let files = crate::list_files(&dir, |n| n.ends_with(".parquet")).unwrap_or_default();
        if let Some(first) = files.first() {
            let folders: Vec<String> = TABLES
                .iter()
                .filter(|t| t.dir.starts_with(&format!("{group}/")))
                .map(|t| format!("{}/", t.dir))
                .collect();
            return Some(format!(
                "{}: an output folder in the old layout, with the tables of {group}/ side by side; \
                 codemine now writes one folder per table ({}): mine again with this version, or \
                 move each table's files into its folder (for example {group}/{}-*.parquet into {group}/{}/)",
                first.display(),
                folders.join(", "),
                shard_prefix(&file_name(first)),
                shard_prefix(&file_name(first)),
            ));
        }
    }
    None
}

/// Why the Parquet files directly in `dir` are not one table (their names carry two tables'
/// prefixes, as the old `callgraph/` with `nodes-*` and `edges-*`), or `None`.
pub fn mixed_tables(dir: &Path) -> Option<String> {
    let files = crate::list_files(dir, |n| n.ends_with(".parquet")).unwrap_or_default();
    let mut prefixes: Vec<String> = files.iter().map(|f| shard_prefix(&file_name(f))).collect();
    prefixes.sort();
    prefixes.dedup();
    if prefixes.len() < 2 {
        return None;
    }
    let shown: Vec<String> = prefixes.iter().map(|p| format!("{p}-*")).collect();
    Some(format!(
        "{}: holds the files of {} tables side by side ({}), as outputs before issue 39 did; \
         codemine now writes one folder per table (callgraph/nodes/, completion/line/, ...): \
         give one table's folder or files",
        dir.display(),
        prefixes.len(),
        shown.join(", ")
    ))
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_of_every_writer_name() {
        for (file, want) in [
            ("train-00000-of-00001.parquet", ""),
            ("data-00000-of-00001.parquet", "data"),
            ("nodes-00001-of-00002.parquet", "nodes"),
            ("bands-r00000-c00003-00000-of-00001.parquet", "bands"),
            ("line-valid-00000-of-00001.parquet", "line"),
            ("snapshot-test-00000-of-00001.parquet", "snapshot"),
        ] {
            assert_eq!(shard_prefix(file), want, "{file}");
        }
        // Every table's writer name gives back its prefix.
        for t in TABLES {
            let name = if t.split {
                t.split_name("test")
            } else {
                t.prefix.to_string()
            };
            assert_eq!(
                shard_prefix(&format!("{name}-00000-of-00001.parquet")),
                t.prefix
            );
        }
    }

    #[test]
    fn old_layout_and_mixed_folders_are_named() {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path();
        std::fs::create_dir_all(out.join("callgraph/nodes")).unwrap();
        std::fs::write(
            out.join("callgraph/nodes/nodes-00000-of-00001.parquet"),
            b"",
        )
        .unwrap();
        assert_eq!(old_layout(out), None);
        assert_eq!(mixed_tables(&out.join("callgraph/nodes")), None);
        std::fs::write(out.join("callgraph/edges-00000-of-00001.parquet"), b"").unwrap();
        let why = old_layout(out).unwrap();
        assert!(why.contains("callgraph/nodes/, callgraph/edges/"), "{why}");
        assert!(
            why.contains("callgraph/edges-*.parquet into callgraph/edges/"),
            "{why}"
        );
        std::fs::write(out.join("callgraph/nodes-00000-of-00001.parquet"), b"").unwrap();
        let why = mixed_tables(&out.join("callgraph")).unwrap();
        assert!(
            why.contains("2 tables side by side (edges-*, nodes-*)"),
            "{why}"
        );
    }
}
