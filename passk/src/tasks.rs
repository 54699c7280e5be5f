//! The functions of a codemine output that execution can score: call-graph nodes with
//! `covering_tests` (filled by `mine --run-tests`), each with its repository's commit from
//! the `repositories` table. A task's id is the YABLoCo rows' `meta.original_id`: the
//! node's id as 16 hexadecimal digits.
//!
//! A task's tests are its covering tests that passed in the mining run's own suite (the
//! `tests` table `mine --run-tests` writes): a test that fails on the original code cannot
//! tell a right sample from a wrong one. The ones that did not pass there are kept aside
//! ([`Task::failed_in_suite`]) to say why a task has no test left.

use std::collections::HashMap;
use std::fs::File;
use std::path::{Path, PathBuf};

use arrow_array::cast::AsArray;
use arrow_array::types::{Int64Type, UInt64Type};
use arrow_array::{Array, ArrayRef, RecordBatch};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ProjectionMask;

use crate::Error;

/// One function to score.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Task {
    /// `meta.original_id` of the YABLoCo row (upper-case hex of the node id).
    pub id: String,
    pub repository: String,
    /// The commit the repository was mined (and its environment prepared) at.
    pub commit: String,
    /// Lower case: `python`, `c`, ...
    pub language: String,
    /// Repository-relative path of the function's file.
    pub path: String,
    /// 1-based, inclusive.
    pub start_line: i64,
    pub end_line: i64,
    /// YABLoCo's category of the function (the nodes' `category`: `project`,
    /// `same_package`, `same_file`, `stdlib` or `none`).
    pub category: String,
    /// The covering tests that passed in the mining run's suite: the ones a sample runs.
    pub covering_tests: Vec<String>,
    /// The covering tests that did not pass there (failed, error, timeout, skipped, or
    /// absent from the `tests` table), in the nodes' order.
    pub failed_in_suite: Vec<String>,
}

/// Whether a call-graph node of this `kind` can be a task: a function, method or
/// constructor. A module's top-level code or a lambda is a node that tests run too, but no
/// body is generated for it (no YABLoCo row has one).
pub fn is_task_kind(kind: &str) -> bool {
    !matches!(kind, "module" | "lambda")
}

/// The tasks of output folder `out`, by upper-case id: the function nodes (not a module's
/// top-level code, not a lambda) whose `covering_tests` list is not empty.
pub fn read(out: &Path) -> Result<HashMap<String, Task>, Error> {
    let commits = commits(&out.join("repositories"))?;
    let passed = passed_tests(&out.join("tests"))?;
    let dir = out.join("callgraph").join("nodes");
    let mut tasks = HashMap::new();
    for file in parquet_files(&dir)? {
        let cols = [
            "id",
            "repository",
            "path",
            "language",
            "start_line",
            "end_line",
            "category",
            "covering_tests",
            "kind",
        ];
        for batch in batches(&file, &cols)? {
            let col = |name: &str| -> Result<&ArrayRef, Error> {
                batch.column_by_name(name).ok_or_else(|| Error::Data {
                    path: file.clone(),
                    reason: format!("no column `{name}`"),
                })
            };
            let bad = |name: &str| Error::Data {
                path: file.clone(),
                reason: format!("column `{name}` is not of codemine's type"),
            };
            let id = col("id")?
                .as_primitive_opt::<UInt64Type>()
                .ok_or_else(|| bad("id"))?;
            let repo = col("repository")?
                .as_string_opt::<i32>()
                .ok_or_else(|| bad("repository"))?;
            let path = col("path")?
                .as_string_opt::<i32>()
                .ok_or_else(|| bad("path"))?;
            let lang = col("language")?
                .as_string_opt::<i32>()
                .ok_or_else(|| bad("language"))?;
            let start = col("start_line")?
                .as_primitive_opt::<Int64Type>()
                .ok_or_else(|| bad("start_line"))?;
            let end = col("end_line")?
                .as_primitive_opt::<Int64Type>()
                .ok_or_else(|| bad("end_line"))?;
            let category = col("category")?
                .as_string_opt::<i32>()
                .ok_or_else(|| bad("category"))?;
            let tests = col("covering_tests")?
                .as_list_opt::<i32>()
                .ok_or_else(|| bad("covering_tests"))?;
            let kind = col("kind")?
                .as_string_opt::<i32>()
                .ok_or_else(|| bad("kind"))?;
            for i in 0..batch.num_rows() {
                if tests.is_null(i) || repo.is_null(i) || path.is_null(i) {
                    continue;
                }
                if !kind.is_null(i) && !is_task_kind(kind.value(i)) {
                    continue;
                }
                let list = tests.value(i);
                let Some(list) = list.as_string_opt::<i32>() else {
                    return Err(bad("covering_tests"));
                };
                let covering: Vec<String> = list.iter().flatten().map(str::to_string).collect();
                if covering.is_empty() {
                    continue;
                }
                let repository = repo.value(i).to_string();
                let Some(commit) = commits.get(&repository) else {
                    continue;
                };
                let ran = |t: &String| passed.contains(&(repository.as_str(), t.as_str()));
                let (covering, failed): (Vec<String>, Vec<String>) =
                    covering.into_iter().partition(ran);
                let id = format!("{:016X}", id.value(i));
                tasks.insert(
                    id.clone(),
                    Task {
                        id,
                        repository,
                        commit: commit.clone(),
                        language: lang.value(i).to_ascii_lowercase(),
                        path: path.value(i).to_string(),
                        start_line: start.value(i),
                        end_line: end.value(i),
                        category: if category.is_null(i) {
                            String::new()
                        } else {
                            category.value(i).to_string()
                        },
                        covering_tests: covering,
                        failed_in_suite: failed,
                    },
                );
            }
        }
    }
    if tasks.is_empty() {
        return Err(Error::Data {
            path: dir,
            reason: "no function has covering tests (mine with --run-tests)".into(),
        });
    }
    Ok(tasks)
}

/// The (repository, test id) pairs whose outcome was `passed` in the `tests` table of the
/// mining run.
fn passed_tests(dir: &Path) -> Result<PassedTests, Error> {
    if !dir.is_dir() {
        return Err(Error::Data {
            path: dir.to_path_buf(),
            reason: "no `tests` table: the output was not mined with --run-tests, or by a \
                     codemine that did not write it"
                .into(),
        });
    }
    let mut out = PassedTests::default();
    for file in parquet_files(dir)? {
        for batch in batches(&file, &["repository", "test_id", "outcome"])? {
            let col = |name: &str| {
                batch
                    .column_by_name(name)
                    .and_then(|c| c.as_string_opt::<i32>())
                    .ok_or_else(|| Error::Data {
                        path: file.clone(),
                        reason: format!("no string column `{name}`"),
                    })
            };
            let (repo, test, outcome) = (col("repository")?, col("test_id")?, col("outcome")?);
            for i in 0..batch.num_rows() {
                if !repo.is_null(i)
                    && !test.is_null(i)
                    && !outcome.is_null(i)
                    && outcome.value(i) == "passed"
                {
                    out.insert(repo.value(i), test.value(i));
                }
            }
        }
    }
    Ok(out)
}

/// A set of (repository, test id) looked up with borrowed strings.
#[derive(Default)]
struct PassedTests(HashMap<String, std::collections::HashSet<String>>);

impl PassedTests {
    fn insert(&mut self, repo: &str, test: &str) {
        self.0
            .entry(repo.to_string())
            .or_default()
            .insert(test.to_string());
    }

    fn contains(&self, (repo, test): &(&str, &str)) -> bool {
        self.0.get(*repo).is_some_and(|s| s.contains(*test))
    }
}

/// Repository name -> commit, from the `repositories` table (repositories without one, a
/// plain folder's, are left out).
fn commits(dir: &Path) -> Result<HashMap<String, String>, Error> {
    let mut out = HashMap::new();
    for file in parquet_files(dir)? {
        for batch in batches(&file, &["repo", "sha"])? {
            let (Some(repo), Some(sha)) = (
                batch
                    .column_by_name("repo")
                    .and_then(|c| c.as_string_opt::<i32>()),
                batch
                    .column_by_name("sha")
                    .and_then(|c| c.as_string_opt::<i32>()),
            ) else {
                return Err(Error::Data {
                    path: file.clone(),
                    reason: "no string columns `repo` and `sha`".into(),
                });
            };
            for i in 0..batch.num_rows() {
                if !repo.is_null(i) && !sha.is_null(i) {
                    out.insert(repo.value(i).to_string(), sha.value(i).to_string());
                }
            }
        }
    }
    Ok(out)
}

fn parquet_files(dir: &Path) -> Result<Vec<PathBuf>, Error> {
    let rd = std::fs::read_dir(dir).map_err(|source| Error::Io {
        path: dir.to_path_buf(),
        what: "listing",
        source,
    })?;
    let mut files: Vec<PathBuf> = rd
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "parquet") && p.is_file())
        .collect();
    files.sort();
    Ok(files)
}

fn batches(file: &Path, columns: &[&str]) -> Result<Vec<RecordBatch>, Error> {
    let f = File::open(file).map_err(|source| Error::Io {
        path: file.to_path_buf(),
        what: "opening",
        source,
    })?;
    let b = ParquetRecordBatchReaderBuilder::try_new(f)?;
    let schema = b.parquet_schema();
    let mask = ProjectionMask::columns(schema, columns.iter().copied());
    let reader = b.with_projection(mask).build()?;
    let mut out = Vec::new();
    for batch in reader {
        out.push(batch?);
    }
    Ok(out)
}
