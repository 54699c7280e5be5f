//! The run's side files: failures.jsonl, stats.json and the dataset card (README.md), each
//! written under a temporary name and renamed when complete.

use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::escape::markdown;
use crate::stats::{Failure, Stats};
use crate::Error;
use codemine_schemas::layout::{self, TableDir};

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |source| Error::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Writes `bytes` to `path` through a temporary file in the same folder
/// ([`codemine_io::atomic::write_atomic`]).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    codemine_io::atomic::write_atomic(path, bytes).map_err(|e| Error::Io {
        path: e.path,
        source: e.source,
    })
}

use codemine_io::atomic::tmp_name;

/// failures.jsonl, streamed as the run goes and renamed into place at the end.
pub struct FailureLog {
    tmp: PathBuf,
    dest: PathBuf,
    out: BufWriter<File>,
    count: usize,
}

impl FailureLog {
    pub fn create(out_dir: &Path) -> Result<Self, Error> {
        fs::create_dir_all(out_dir).map_err(io(out_dir))?;
        let dest = out_dir.join("failures.jsonl");
        let tmp = tmp_name(&dest, "");
        let file = File::create(&tmp).map_err(io(&tmp))?;
        Ok(Self {
            tmp,
            dest,
            out: BufWriter::new(file),
            count: 0,
        })
    }

    pub fn write(&mut self, f: &Failure) -> Result<(), Error> {
        let line = serde_json::to_string(f).map_err(|e| Error::Io {
            path: self.tmp.clone(),
            source: e.into(),
        })?;
        writeln!(self.out, "{line}").map_err(io(&self.tmp))?;
        self.count += 1;
        Ok(())
    }

    /// Closes the log and returns how many lines it has.
    pub fn finish(mut self) -> Result<usize, Error> {
        self.out.flush().map_err(io(&self.tmp))?;
        fs::rename(&self.tmp, &self.dest).map_err(io(&self.dest))?;
        Ok(self.count)
    }
}

/// Removes stats.json (the mark of a complete output) and the dataset card before the final
/// tables are rewritten.
pub fn remove_side_files(out_dir: &Path) -> Result<(), Error> {
    for name in ["stats.json", "README.md"] {
        let path = out_dir.join(name);
        match fs::remove_file(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(source) => return Err(Error::Io { path, source }),
        }
    }
    Ok(())
}

pub fn write_stats(out_dir: &Path, stats: &Stats) -> Result<(), Error> {
    let path = out_dir.join("stats.json");
    let mut json = serde_json::to_vec_pretty(stats).map_err(|e| Error::Io {
        path: path.clone(),
        source: e.into(),
    })?;
    json.push(b'\n');
    write_atomic(&path, &json)
}

/// The `docstring_params` feature of the card (`codemine_schemas::docstring_params`).
const DOCSTRING_PARAMS_FEATURE: &str = "  - name: docstring_params
    struct:
    - name: params
      list:
      - name: name
        dtype: string
      - name: type
        dtype: string
      - name: description
        dtype: string
    - name: returns
      struct:
      - name: type
        dtype: string
      - name: description
        dtype: string
    - name: raises
      list:
      - name: type
        dtype: string
      - name: description
        dtype: string
    - name: others
      list:
      - name: section
        dtype: string
      - name: text
        dtype: string
    - name: style
      dtype: string
";

/// The dataset card: a Hugging Face YAML header (configs, splits, features) and a short
/// account of what was mined.
pub fn write_card(out_dir: &Path, stats: &Stats) -> Result<(), Error> {
    let write = &stats.stages.write;
    // One folder per table (`codemine_schemas::layout`): a config reads its folder's files,
    // by split where the table is split.
    let files = |t: &TableDir| write.shards.get(t.dir).cloned().unwrap_or_default();
    let shards = files(&layout::CSN);
    let mut y = String::from("---\nconfigs:\n- config_name: csn\n  default: true\n  data_files:\n");
    for split in ["train", "valid", "test"] {
        if shards.iter().any(|s| s.starts_with(&format!("{split}-"))) {
            y += &format!("  - split: {split}\n    path: csn/{split}-*.parquet\n");
        }
    }
    // Every other table is a config of its own, so `load_dataset(OUT, "yabloco")` works.
    // A table without partitions is one split, named `train` as the Hub names such data.
    // `datasets` cannot load a config without rows ("Instruction \"train\" corresponds to
    // no data"): an unsplit table that is empty (its one shard carries the schema) is left
    // out; a split table has files only for splits with rows.
    let mined = stats
        .repositories
        .iter()
        .filter(|r| r.status == "mined")
        .count();
    let rows = |t: &TableDir| match t.config {
        "yabloco" => write.yabloco_rows,
        "callgraph_nodes" => write.callgraph_nodes,
        "callgraph_edges" => write.callgraph_edges,
        "repositories" => mined,
        "dropped" => write.dropped_rows,
        "tests" => write.tests_rows,
        "pii" => write.pii_rows,
        "tasks" => write.tasks_rows,
        "dedup_bands" => write.band_rows,
        "dedup_clusters" => stats
            .stages
            .dedup
            .as_ref()
            .map_or(0, |d| d.cluster_members as usize),
        _ => 1,
    };
    for t in &layout::TABLES[1..] {
        let shards = files(t);
        let data: Vec<(&str, String)> = if t.split {
            ["train", "valid", "test"]
                .into_iter()
                .map(|s| (s, t.split_name(s)))
                .filter(|(_, name)| shards.iter().any(|f| f.starts_with(&format!("{name}-"))))
                .map(|(s, name)| (s, format!("{}/{name}-*.parquet", t.dir)))
                .collect()
        } else if shards.is_empty() || rows(t) == 0 {
            Vec::new()
        } else {
            vec![("train", format!("{}/*.parquet", t.dir))]
        };
        if data.is_empty() {
            continue;
        }
        y += &format!("- config_name: {}\n  data_files:\n", t.config);
        for (split, path) in data {
            y += &format!("  - split: {split}\n    path: {path}\n");
        }
    }
    y += "dataset_info:\n  config_name: csn\n  features:\n";
    for f in codemine_schemas::csn::FIELDS {
        if f.ends_with("_tokens") {
            y += &format!("  - name: {f}\n    sequence: string\n");
        } else {
            y += &format!("  - name: {f}\n    dtype: string\n");
        }
    }
    // A run with a SIDE model writes one more column (`csn::scored_schema`): `datasets`
    // refuses files whose columns differ from the declared features.
    if stats.stages.side.is_some() {
        y += &format!(
            "  - name: {}\n    dtype: float32\n",
            codemine_schemas::callgraph::SIDE_SCORE
        );
    }
    // `--docstring-params` writes one more column, a struct (`csn::shape`): declared as
    // `datasets` reads a struct (`struct:`) and a list of structs (`list:`).
    if stats.stages.docstring_params.is_some() {
        y += DOCSTRING_PARAMS_FEATURE;
    }
    // `datasets` wants name, num_examples and num_bytes in every split (else it warns that
    // the field is malformed and ignores it).
    y += "  splits:\n";
    for (split, n) in &write.csn_rows {
        if *n > 0 {
            let bytes = write.csn_bytes.get(split).copied().unwrap_or(0);
            y += &format!("  - name: {split}\n    num_bytes: {bytes}\n    num_examples: {n}\n");
        }
    }
    y += "tags:\n- code\n- code-summarization\n- codemine\n---\n\n";

    let t = &stats.stages.extract.totals;
    let mut body = format!(
        "# Code dataset mined by codemine {}\n\n\
         Functions and methods with their docstrings, in the CodeSearchNet shape \
         (config `csn`). Partitions are assigned per repository (a stable hash of its name), \
         so no repository spans two partitions.\n\n\
         - repositories mined: {} of {}\n- files parsed: {}\n- functions extracted: {}\n\
         - rows (functions with a docstring that the filters and dedup kept): {}\n{}{}\n## Repositories\n\n\
         | repo | commit | partition | license | rows |\n|---|---|---|---|---|\n",
        stats.codemine_version,
        stats.stages.source.opened,
        stats.stages.source.repositories,
        t.files,
        t.functions,
        t.csn_rows,
        stats.stages.card_lines(),
        stats
            .stages
            .pii
            .as_ref()
            .map_or(String::new(), |p| p.card_section()),
    );
    for r in stats.repositories.iter().filter(|r| r.status == "mined") {
        // Every text from input is escaped: a name cannot add markup, split a cell, start a
        // line or imitate the figures' markers (see `crate::escape::markdown`).
        body += &format!(
            "| {} | {} | {} | {} | {} |\n",
            markdown(&r.repo),
            markdown(r.sha.as_deref().unwrap_or("(working folder)")),
            r.partition.unwrap_or(""),
            markdown(
                r.license
                    .as_ref()
                    .and_then(|l| l.license.as_deref())
                    .unwrap_or("unknown")
            ),
            r.totals.csn_rows
        );
    }
    write_atomic(&out_dir.join("README.md"), (y + &body).as_bytes())
}
