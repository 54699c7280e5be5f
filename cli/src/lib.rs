//! The `codemine` command line: argument parsing (clap), progress display (indicatif on a
//! terminal, plain log lines otherwise) and exit codes.
//!
//! Exit codes: 0 when the run completed (some repositories may have failed: see
//! failures.jsonl), 1 when nothing at all could be mined or the run itself failed, 2 on a
//! usage error.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use anyhow::{bail, Context};
use clap::{Arg, Args, CommandFactory, FromArgMatches, Parser, Subcommand};
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};

use codemine_filters::dedup::DedupParams;
use miner::callgraph::check_template;
use miner::csn::SplitRatios;
use miner::lang::Lang;
use miner::pipeline::{mine, HeaderMode, MineOptions, Progress};
use miner::source::{parse_repo_arg, read_manifest, RepoSpec, SourceOptions};
use miner::stats::{Failure, RepoStats};

mod filter_args;
mod tests_args;

pub use filter_args::FilterArgs;

#[derive(Parser)]
#[command(
    name = "codemine",
    version,
    about = "Mines git repositories into code datasets"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Mine repositories into Parquet shards: CodeSearchNet and YABLoCo shapes and the call
    /// graph. With --rank/--world-size, only this worker's share is mined into DIR/staging;
    /// then `cluster` and `finalize` complete the run.
    Mine(Box<MineArgs>),
    /// The dedup cluster step of a sharded run: reads every rank's DIR/staging/functions-*
    /// and DIR/dedup/bands/, writes DIR/dedup/clusters/.
    Cluster(ClusterArgs),
    /// The last step of a sharded run: once every rank is done (and `cluster` ran), writes
    /// the final CSN, YABLoCo and call-graph shards, failures.jsonl, stats.json and the
    /// dataset card, and removes DIR/staging.
    Finalize(FinalizeArgs),
    /// Score model outputs against a mined dataset: summarization (CSN docstrings) or
    /// generation (YABLoCo bodies), with the reference implementations' numbers.
    Eval(Box<EvalArgs>),
    /// For every item of the benchmark(s), whether and where a mined dataset holds it
    /// (repository, path, lines, exact or near match and its score).
    Contamination(ContaminationArgs),
    /// Redraw the dataset card's figures of a finished output folder (SVG and PNG next to
    /// README.md, their numbers in plots.json); --html also writes a self-contained
    /// report.html.
    Report(ReportArgs),
    /// Checks a command line against the real one without running it (exit 0, or 2 and
    /// clap's error): what the documentation tests use for the commands they cannot run.
    #[command(hide = true)]
    CheckArgs(CheckArgs),
    /// Print a table's schema, row count and first rows (for an output folder: its tables
    /// and their rows): a look at what `mine` wrote, without Python. Reads only the
    /// Parquet footers and the first rows.
    Inspect(InspectArgs),
}

#[derive(Args)]
struct CheckArgs {
    /// A codemine command line without `codemine`: `mine --repo URL --out DIR ...`.
    #[arg(
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "ARGS"
    )]
    args: Vec<String>,
}

/// The help headings of `codemine mine`, by task, in the order `--help` shows them.
/// Every flag of `mine` has one of them (a test checks it): a new flag names its heading
/// with `help_heading = heading::...`, and is shown by `--help` only unless it is in
/// [`COMMON`].
mod heading {
    pub const INPUT: &str = "Input";
    pub const OUTPUT: &str = "Output";
    pub const FILTERING: &str = "Filtering";
    pub const DEDUP: &str = "Dedup";
    pub const HISTORY: &str = "History and coverage";
    pub const COMPLETION: &str = "Completion";
    pub const DECONTAMINATION: &str = "Decontamination";
    pub const SIDE: &str = "SIDE";
    pub const SCALE: &str = "Scale-out";
    pub const LOGGING: &str = "Logging";
    pub const ORDER: [&str; 10] = [
        INPUT,
        OUTPUT,
        FILTERING,
        DEDUP,
        HISTORY,
        COMPLETION,
        DECONTAMINATION,
        SIDE,
        SCALE,
        LOGGING,
    ];
}

/// The flags of `codemine mine` that `-h` shows (by their ids, the field names); `--help`
/// shows every flag.
const COMMON: &[&str] = &[
    "repos",
    "manifest",
    "out",
    "explain",
    "preset",
    "filter_config",
    "since",
    "no_dedup",
    "no_history",
    "coverage",
    "emit",
    "decontaminate",
    "side_model",
    "threads",
    "rank",
    "world_size",
    "quiet",
    "verbose",
];

/// The command line: clap's derived command, with `mine`'s flags grouped by task.
fn command() -> clap::Command {
    Cli::command().mut_subcommand("mine", grouped)
}

/// `mine` with its flags in the order of [`heading::ORDER`] (clap shows the headings in
/// the order their first flags were added), the common ones first in each, and the others
/// hidden from `-h`.
fn grouped(cmd: clap::Command) -> clap::Command {
    debug_assert_eq!(cmd.get_name(), "mine");
    let rank = |a: &Arg| {
        a.get_help_heading()
            .and_then(|h| heading::ORDER.iter().position(|o| *o == h))
            .unwrap_or(heading::ORDER.len())
    };
    let mut args: Vec<(usize, bool, usize, Arg)> = cmd
        .get_arguments()
        .enumerate()
        .map(|(i, a)| {
            let common = COMMON.contains(&a.get_id().as_str());
            (rank(a), !common, i, a.clone().hide_short_help(!common))
        })
        .collect();
    args.sort_by_key(|(rank, rare, i, _)| (*rank, *rare, *i));
    let mut out =
        clap::Command::new("mine")
            .after_help(format!(
            "These are the common flags; `codemine mine --help` lists all {}, grouped by task: {}.",
            args.len(),
            heading::ORDER.join(", ").to_lowercase().replace("side", "SIDE"),
        ))
            .after_long_help(
                "Each stage is described in docs/: mining.md, filtering.md, dedup.md, history.md, \
             coverage.md, completion.md, decontamination.md, eval.md (SIDE), scale.md.",
            );
    if let Some(about) = cmd.get_about() {
        out = out.about(about.clone());
    }
    if let Some(about) = cmd.get_long_about() {
        out = out.long_about(about.clone());
    }
    for g in cmd.get_groups() {
        out = out.group(g.clone());
    }
    // The clones keep the display order of the derived command: set it anew.
    for (order, (_, _, _, a)) in args.into_iter().enumerate() {
        out = out.arg(a.display_order(order));
    }
    out
}

#[derive(Args)]
struct InspectArgs {
    /// An output folder of `codemine mine`, one of its table folders, or a Parquet file.
    #[arg(value_name = "OUT")]
    out: PathBuf,
    /// A table of the output folder, as the dataset card's configs name them (csn,
    /// yabloco, callgraph_nodes, callgraph_edges, repositories, dedup_bands,
    /// dedup_clusters, dropped, completion_token, ...), or a folder or file in it.
    #[arg(value_name = "TABLE")]
    table: Option<String>,
    /// First rows to show (0: the files, row counts and schema only).
    #[arg(long, short = 'n', value_name = "N", default_value_t = 3,
          value_parser = clap::value_parser!(u64).range(0..=miner::inspect::MAX_ROWS as u64))]
    rows: u64,
    /// Characters of a value shown before it is cut.
    #[arg(long, value_name = "N", default_value_t = 80,
          value_parser = clap::value_parser!(u64).range(8..=100_000))]
    width: u64,
}

#[derive(Args)]
struct ContaminationArgs {
    /// Benchmark files: JSONL, JSON or Parquet, plain or gzipped ([NAME=]FILE).
    #[arg(value_name = "BENCH", required = true)]
    benchmarks: Vec<String>,
    /// A finished output folder of `codemine mine`.
    #[arg(long, value_name = "OUT")]
    against: PathBuf,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    decontam: DecontamArgs,
}

#[derive(Args)]
struct ReportArgs {
    /// A finished output folder of `codemine mine` (it has stats.json).
    #[arg(value_name = "OUT")]
    out: PathBuf,
    /// Also write OUT/report.html: every figure and its numbers on one page, no network.
    #[arg(long)]
    html: bool,
}

#[derive(Args)]
struct ClusterArgs {
    /// The output folder the ranks mined into.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Worker threads (default: one per core).
    #[arg(long, short = 'j', default_value_t = 0)]
    threads: usize,
}

#[derive(Args)]
struct FinalizeArgs {
    /// The output folder the ranks mined into.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Roll Parquet shards at this much uncompressed row data (K, M, G suffixes allowed).
    #[arg(long, value_name = "SIZE", default_value = "256M", value_parser = parse_size)]
    shard_size: u64,
    /// Roll Parquet shards at this many rows.
    #[arg(long, value_name = "N")]
    shard_rows: Option<usize>,
    /// Worker threads of the SIDE step, when the ranks mined with --side-model (default:
    /// one per core).
    #[arg(long, short = 'j', default_value_t = 0)]
    threads: usize,
}

#[derive(Args)]
struct EvalArgs {
    /// The dataset: a codemine output folder, a folder of Parquet files, or Parquet files.
    #[arg(value_name = "DATA", required = true)]
    data: Vec<PathBuf>,
    /// Predictions: JSONL ({"id": ..., "prediction": ...}), Parquet (id and prediction
    /// columns) or text lines `id<TAB>prediction`.
    #[arg(long, short = 'p', value_name = "FILE")]
    predictions: Option<PathBuf>,
    /// summarization (code → docstring, CSN table) or generation (→ body, YABLoCo table);
    /// inferred when the data has one kind of table.
    #[arg(long, value_name = "TASK", value_parser = parse_task)]
    task: Option<codemine_eval::Task>,
    /// Metrics, comma-separated (default: the task's; see --list-metrics).
    #[arg(long, short = 'm', value_name = "NAMES", value_delimiter = ',')]
    metrics: Vec<String>,
    /// Break the scores down by a dataset column (language, repo, category, meta.fname, ...).
    /// Repeatable.
    #[arg(long, value_name = "COLUMN")]
    by: Vec<String>,
    /// The dataset's row id (default: `url` for CSN, `meta.original_id` for YABLoCo;
    /// `@index` for the row number across the files in name order).
    #[arg(long, value_name = "COLUMN")]
    id_column: Option<String>,
    /// The reference column (default: CSN `docstring_tokens` joined by spaces, YABLoCo
    /// `outputs`).
    #[arg(long, value_name = "COLUMN")]
    reference_column: Option<String>,
    /// The prediction field or column (default `prediction`); without --predictions, a column
    /// of the dataset itself.
    #[arg(long, value_name = "NAME")]
    prediction_column: Option<String>,
    /// The id field or column of the predictions file (default `id`).
    #[arg(long, value_name = "NAME")]
    prediction_id_column: Option<String>,
    /// The CSN split of an output folder: train, valid, test or all (default test).
    #[arg(long, value_name = "SPLIT")]
    split: Option<String>,
    /// Score only the ids on both sides (reported) instead of failing on a mismatch.
    #[arg(long)]
    intersection: bool,
    /// The language of every example (python, java, c, cpp), for CodeBLEU on tables without
    /// a language column; overrides the dataset's.
    #[arg(long, value_name = "LANG")]
    language: Option<String>,
    /// CodeBLEU's weights of n-gram, weighted n-gram, syntax and data-flow match.
    #[arg(long, value_name = "A,B,C,D", value_parser = parse_weights,
          default_value = "0.25,0.25,0.25,0.25", allow_hyphen_values = true)]
    codebleu_weights: codemine_eval::codebleu::Weights,
    /// The WordNet 3.0 folder (index.noun, data.noun, ...) of `meteor`'s synonym stage
    /// (default: nltk's data folders, $WNHOME/dict, /usr/share/wordnet).
    #[arg(long, value_name = "DIR", env = "CODEMINE_WORDNET")]
    wordnet: Option<PathBuf>,
    /// The SIDE model of `side` and `side_reference`: a local MPNet checkpoint folder
    /// (config.json, tokenizer.json, tokenizer_config.json, model.safetensors or
    /// pytorch_model.bin); nothing is downloaded.
    #[arg(long, value_name = "DIR", env = "CODEMINE_SIDE_MODEL")]
    side_model: Option<PathBuf>,
    /// The code column SIDE scores against (default: CSN `code`, YABLoCo `outputs`).
    #[arg(long, value_name = "COLUMN")]
    code_column: Option<String>,
    /// Write per-example scores here (Parquet for *.parquet, JSON lines otherwise).
    #[arg(long, value_name = "FILE")]
    per_example: Option<PathBuf>,
    /// Print the report as JSON instead of a table.
    #[arg(long)]
    json: bool,
    /// List the metrics and exit.
    #[arg(long, exclusive = true)]
    list_metrics: bool,
}

fn parse_weights(s: &str) -> Result<codemine_eval::codebleu::Weights, String> {
    let w: Vec<f64> = s
        .split(',')
        .map(|x| {
            x.trim()
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite() && *v >= 0.0)
                .ok_or_else(|| format!("`{x}` is not a non-negative number"))
        })
        .collect::<Result<_, _>>()?;
    match w[..] {
        [ngram, weighted_ngram, syntax, dataflow] => Ok(codemine_eval::codebleu::Weights {
            ngram,
            weighted_ngram,
            syntax,
            dataflow,
        }),
        _ => Err(format!("{} weights given, 4 expected", w.len())),
    }
}

fn parse_task(s: &str) -> Result<codemine_eval::Task, String> {
    match s {
        "summarization" => Ok(codemine_eval::Task::Summarization),
        "generation" => Ok(codemine_eval::Task::Generation),
        _ => Err(format!("`{s}`: one of summarization, generation")),
    }
}

#[derive(Args)]
struct MineArgs {
    /// A repository to mine: a git URL (https, ssh, file://) or a local path, optionally
    /// pinned with @REV (commit sha, tag or branch) and named with =NAME (the `repo` value of
    /// its rows; default: the URL's or a local clone's origin remote's owner/name, else the
    /// folder name). Repeatable.
    #[arg(help_heading = heading::INPUT, long = "repo", value_name = "URL_OR_PATH[@REV][=NAME]")]
    repos: Vec<String>,
    /// A manifest: one URL_OR_PATH[@REV][=NAME] per line, JSONL objects or a TOML file with
    /// `url`, optional `rev`, `name` and `coverage`.
    #[arg(help_heading = heading::INPUT, long, value_name = "FILE")]
    manifest: Vec<PathBuf>,
    /// Output folder.
    #[arg(help_heading = heading::OUTPUT, long, value_name = "DIR")]
    out: PathBuf,
    /// Clone cache: remote repositories are cloned here once and fetched on later runs.
    #[arg(help_heading = heading::INPUT, long, value_name = "DIR", env = "CODEMINE_CACHE")]
    cache: Option<PathBuf>,
    /// Use cached clones without fetching (remote repositories must be in the cache).
    #[arg(help_heading = heading::INPUT, long)]
    offline: bool,
    /// Shallow clones: fetch only the last N commits of each branch and tag of remote
    /// repositories (not file:// URLs). Last-commit dates at the cut are upper bounds
    /// (`last_commit_bounded`); without --depth a shallow cached clone is deepened.
    #[arg(help_heading = heading::INPUT, long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    depth: Option<u32>,
    /// Worker threads (default: one per core).
    #[arg(help_heading = heading::SCALE, long, short = 'j', default_value_t = 0)]
    threads: usize,
    /// Skip source files larger than this (bytes; K, M, G suffixes allowed).
    #[arg(help_heading = heading::INPUT, long, value_name = "SIZE", default_value = "1M", value_parser = parse_size)]
    max_file_bytes: u64,
    /// Refuse coverage reports larger than this once decompressed (bytes; K, M, G suffixes
    /// allowed): a report is parsed in memory, and a small gzip file can inflate without
    /// bound. The limit is checked while reading.
    #[arg(help_heading = heading::HISTORY, long, value_name = "SIZE", default_value = "1G", value_parser = parse_size)]
    max_report_bytes: u64,
    /// Roll Parquet shards at this much uncompressed row data (K, M, G suffixes allowed).
    #[arg(help_heading = heading::OUTPUT, long, value_name = "SIZE", default_value = "256M", value_parser = parse_size)]
    shard_size: u64,
    /// Roll Parquet shards at this many rows.
    #[arg(help_heading = heading::OUTPUT, long, value_name = "N")]
    shard_rows: Option<usize>,
    /// Train/valid/test shares in percent, by repository.
    #[arg(help_heading = heading::OUTPUT, long, value_name = "TRAIN,VALID,TEST", default_value = "80,10,10", value_parser = parse_split)]
    split: SplitRatios,
    /// Parse `.h` headers as C, as C++, or decide per repository (C++ when it has more C++
    /// sources than C sources).
    #[arg(help_heading = heading::INPUT, long, value_name = "auto|c|cpp", default_value = "auto", value_parser = parse_headers)]
    headers: HeaderMode,
    /// How CSN rows name functions: `codemine` (`Type.Method`, `obj.m`, scopes joined by
    /// dots) or `function-parser`, CodeSearchNet's own names for joining with its published
    /// rows (Go methods without the receiver type, anonymous JavaScript function expressions
    /// empty). Only CSN's `func_name` changes; ids and the other tables keep codemine's names.
    #[arg(help_heading = heading::OUTPUT, long, value_name = "codemine|function-parser", default_value = "codemine",
          value_parser = parse_csn_names)]
    csn_names: miner::csn::CsnNames,
    /// Whose definitions YABLoCo's counts and categories follow: `codemine`
    /// (docs/callgraph.md) or `yabloco`, the published tables' (a call made by a macro's
    /// expansion is no dependency and makes no caller). The edges table is the same.
    #[arg(help_heading = heading::OUTPUT, long, value_name = "codemine|yabloco", default_value = "codemine",
          value_parser = parse_callgraph_compat)]
    callgraph_compat: miner::callgraph::CallgraphCompat,
    /// The YABLoCo `instruction` template: Python `str.format` syntax with the placeholders
    /// {language}, {signature}, {docstring} and {context}.
    #[arg(help_heading = heading::OUTPUT, long, value_name = "TEMPLATE", conflicts_with = "instruction_file")]
    instruction: Option<String>,
    /// Read the YABLoCo `instruction` template from a file.
    #[arg(help_heading = heading::OUTPUT, long, value_name = "FILE")]
    instruction_file: Option<PathBuf>,
    /// A coverage report (LCOV, Cobertura XML, JaCoCo XML, gcov, gcovr or coverage.py JSON,
    /// Go coverprofile; optionally gzipped; the format is read from the content) for the repositories given
    /// with --repo.
    /// Repeatable; manifests attach reports per repository with `coverage`.
    #[arg(help_heading = heading::HISTORY, long, value_name = "FILE")]
    coverage: Vec<PathBuf>,
    /// Remove this prefix from the file paths in coverage reports before they are matched
    /// to repository paths (repeatable; absolute build paths are also matched by their
    /// longest unique suffix without it).
    #[arg(help_heading = heading::HISTORY, long, value_name = "PREFIX")]
    coverage_strip_prefix: Vec<String>,
    /// Do not walk the history: `last_commit` stays null (faster on long histories).
    #[arg(help_heading = heading::HISTORY, long)]
    no_history: bool,
    /// Also write every function a filter removed, with the rule, to DIR/dropped/.
    #[arg(help_heading = heading::OUTPUT, long)]
    explain: bool,
    /// Extra outputs (repeatable; TOML `emit`): `completion` writes CodeXGLUE's token-level
    /// and line-level code-completion sets of every Python and Java file to DIR/completion/;
    /// `repo-completion` writes repository-level completion examples with gold and
    /// retrieved cross-file context (DIR/completion/repo/).
    #[arg(help_heading = heading::COMPLETION, long, value_name = "OUTPUT", value_parser = ["completion", "repo-completion"])]
    emit: Vec<String>,
    /// A CodeXGLUE `literals.json` (`str`, `num`, `char` lists) replacing the built-in ones
    /// (py150's for Python, javaCorpus's for Java).
    #[arg(help_heading = heading::COMPLETION, long, value_name = "FILE")]
    completion_literals: Option<PathBuf>,
    /// Seed of the line-level cut positions [default: 42].
    #[arg(help_heading = heading::COMPLETION, long, value_name = "N")]
    completion_seed: Option<u64>,
    /// Line-level cuts per file [default: 1].
    #[arg(help_heading = heading::COMPLETION, long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    completion_cuts: Option<u64>,
    #[command(flatten)]
    repo_completion: RepoCompletionArgs,
    /// SIDE curation: score every (code, docstring) pair that survives the filters and dedup
    /// with this SIDE model (a local MPNet checkpoint folder), as `side_score` on the CSN
    /// rows and the call-graph nodes; --min-side drops pairs below a score.
    #[arg(help_heading = heading::SIDE, long, value_name = "DIR")]
    side_model: Option<PathBuf>,
    #[command(flatten)]
    tests: tests_args::TestsArgs,
    #[command(flatten)]
    filter: filter_args::FilterArgs,
    #[command(flatten)]
    dedup: DedupArgs,
    #[command(flatten)]
    decontam: DecontamArgs,
    /// Mine only the repositories whose manifest position i (0-based, --repo arguments
    /// after manifests) has i % WORLD_SIZE == RANK, into DIR/staging; run `codemine cluster`
    /// and `codemine finalize` once every rank is done.
    #[arg(help_heading = heading::SCALE, long, value_name = "K", requires = "world_size")]
    rank: Option<usize>,
    /// How many workers share the manifest (see --rank).
    #[arg(help_heading = heading::SCALE, long, value_name = "N", requires = "rank")]
    world_size: Option<usize>,
    /// Mark progress every N repositories: a rerun with the same arguments after an
    /// interruption resumes after the last mark.
    #[arg(help_heading = heading::SCALE, long, value_name = "N", default_value_t = 16)]
    checkpoint_repos: usize,
    /// Print only errors.
    #[arg(help_heading = heading::LOGGING, long, short = 'q', conflicts_with = "verbose")]
    quiet: bool,
    /// Also print every file that could not be processed.
    #[arg(help_heading = heading::LOGGING, long, short = 'v')]
    verbose: bool,
}

/// How benchmark files are read and matched (`--decontaminate`).
#[derive(Args)]
#[command(next_help_heading = heading::DECONTAMINATION)]
struct DecontamArgs {
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
    decontaminate_warn_share: f64,
    /// Refuse benchmark files larger than this once decompressed (bytes; K, M, G suffixes
    /// allowed); files are streamed, so a gzip that inflates past it is stopped there.
    #[arg(long, value_name = "SIZE", default_value = "1G", value_parser = parse_size)]
    max_benchmark_bytes: u64,
}

impl DecontamArgs {
    fn read_options(&self) -> Result<miner::benchmark::ReadOptions, miner::Error> {
        let language = match &self.decontaminate_language {
            Some(l) => Some(miner::lang::Lang::from_name(l).ok_or_else(|| {
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
    fn params(
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
fn decontaminator(
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

/// Near-duplicate removal across the run (MinHash LSH): a preset, adjusted by the direct
/// settings.
#[derive(Args)]
#[command(next_help_heading = heading::DEDUP)]
struct DedupArgs {
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
    fn params(&self) -> Result<Option<DedupParams>, miner::Error> {
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

fn parse_size(s: &str) -> Result<u64, String> {
    let s = s.trim();
    let (digits, unit) = s.split_at(s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len()));
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("`{s}` is not a size (examples: 1048576, 512K, 1M)"))?;
    let mult = match unit.trim().to_ascii_uppercase().as_str() {
        "" | "B" => 1,
        "K" | "KB" | "KIB" => 1 << 10,
        "M" | "MB" | "MIB" => 1 << 20,
        "G" | "GB" | "GIB" => 1 << 30,
        u => return Err(format!("unknown size unit `{u}` (use K, M or G)")),
    };
    n.checked_mul(mult)
        .ok_or_else(|| format!("`{s}` is too large"))
}

fn parse_callgraph_compat(s: &str) -> Result<miner::callgraph::CallgraphCompat, String> {
    match s {
        "codemine" => Ok(miner::callgraph::CallgraphCompat::Codemine),
        "yabloco" => Ok(miner::callgraph::CallgraphCompat::Yabloco),
        _ => Err(format!("expected codemine or yabloco, not {s:?}")),
    }
}

fn parse_csn_names(s: &str) -> Result<miner::csn::CsnNames, String> {
    match s {
        "codemine" => Ok(miner::csn::CsnNames::Codemine),
        "function-parser" => Ok(miner::csn::CsnNames::FunctionParser),
        _ => Err(format!("expected codemine or function-parser, not {s:?}")),
    }
}

fn parse_headers(s: &str) -> Result<HeaderMode, String> {
    match s {
        "auto" => Ok(HeaderMode::Auto),
        "c" => Ok(HeaderMode::C),
        "cpp" | "c++" => Ok(HeaderMode::Cpp),
        _ => Err(format!("`{s}`: one of auto, c, cpp")),
    }
}

fn parse_split(s: &str) -> Result<SplitRatios, String> {
    let parts: Vec<u8> = s
        .split(',')
        .map(|p| p.trim().parse::<u8>())
        .collect::<Result<_, _>>()
        .map_err(|_| format!("`{s}` is not three percentages like 80,10,10"))?;
    match parts[..] {
        [a, b, c] if u16::from(a) + u16::from(b) + u16::from(c) == 100 => Ok(SplitRatios(a, b, c)),
        _ => Err(format!(
            "`{s}`: three percentages that add up to 100, like 80,10,10"
        )),
    }
}

/// Runs the command line and returns the process exit code.
pub fn main() -> i32 {
    let cli = match parse(std::env::args_os()) {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { 2 } else { 0 };
        }
    };
    match cli.command {
        Command::CheckArgs(args) => {
            let line = std::iter::once("codemine".to_string()).chain(args.args);
            match parse(line) {
                Ok(_) => {
                    println!("codemine check-args: ok");
                    0
                }
                Err(e) if e.use_stderr() => {
                    let _ = e.print();
                    2
                }
                // --help and --version parse: they print and exit 0.
                Err(_) => {
                    println!("codemine check-args: ok");
                    0
                }
            }
        }
        Command::Mine(args) => exit_code(run_mine(*args)),
        Command::Cluster(args) => exit_code(run_cluster(args)),
        Command::Finalize(args) => exit_code(run_finalize(args)),
        Command::Report(args) => exit_code(run_report(args)),
        Command::Contamination(args) => exit_code(run_contamination(args)),
        Command::Inspect(args) => exit_code(run_inspect(args)),
        Command::Eval(args) => match run_eval(*args) {
            Ok(()) => 0,
            Err(e) => {
                miner::escape::log(&format!("codemine: error: {}", render(&e)));
                if e.downcast_ref::<codemine_eval::Error>()
                    .is_some_and(|e| matches!(e, codemine_eval::Error::Usage(_)))
                {
                    2
                } else {
                    1
                }
            }
        },
    }
}

fn parse<I, T>(args: I) -> Result<Cli, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let mut cmd = command();
    let matches = cmd.try_get_matches_from_mut(args)?;
    Cli::from_arg_matches(&matches).map_err(|e| e.format(&mut cmd))
}

/// An error and its causes joined by `: `, leaving out a cause whose text the message
/// before it already ends with (errors such as `{path}: {source}` show their source too).
fn render(e: &anyhow::Error) -> String {
    let mut out = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if out.is_empty() {
            out = text;
        } else if !out.ends_with(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
    }
    out
}

fn exit_code(result: anyhow::Result<i32>) -> i32 {
    match result {
        Ok(code) => code,
        Err(e) => {
            miner::escape::log(&format!("codemine: error: {}", render(&e)));
            if e.downcast_ref::<miner::Error>()
                .is_some_and(|e| matches!(e, miner::Error::Usage(_)))
            {
                2
            } else {
                1
            }
        }
    }
}

fn shard_options(size: u64, rows: Option<usize>) -> codemine_schemas::ShardOptions {
    codemine_schemas::ShardOptions {
        max_shard_bytes: usize::try_from(size).unwrap_or(usize::MAX),
        max_shard_rows: rows.unwrap_or(usize::MAX),
        ..Default::default()
    }
}

fn run_cluster(args: ClusterArgs) -> anyhow::Result<i32> {
    let step = miner::pipeline::cluster(&args.out, args.threads)
        .with_context(|| format!("clustering in {}", args.out.display()))?;
    match step {
        Some(s) => miner::escape::log(&format!(
            "codemine: {} functions clustered in {:.1} s ({} candidate pairs, {} near pairs) -> {}",
            s.functions,
            s.seconds,
            s.candidate_pairs,
            s.near_pairs,
            codemine_schemas::layout::CLUSTERS.path(&args.out).display()
        )),
        None => miner::escape::log("codemine: the run was mined without dedup: nothing to cluster"),
    }
    Ok(0)
}

fn run_finalize(args: FinalizeArgs) -> anyhow::Result<i32> {
    let summary = miner::pipeline::finalize(
        &args.out,
        shard_options(args.shard_size, args.shard_rows),
        args.threads,
    )
    .with_context(|| format!("finalizing {}", args.out.display()))?;
    report(&summary, &args.out, false)
}

fn run_contamination(args: ContaminationArgs) -> anyhow::Result<i32> {
    let params = args.decontam.params(None)?;
    let d = decontaminator(
        &args.benchmarks,
        "benchmark",
        &args.decontam.read_options()?,
        &params,
        args.decontam.decontaminate_warn_share,
    )?;
    let report = miner::contamination::run(&d, &args.against)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", miner::contamination::table(&report));
    }
    Ok(0)
}

fn run_inspect(args: InspectArgs) -> anyhow::Result<i32> {
    let opts = miner::inspect::InspectOptions {
        rows: usize::try_from(args.rows).unwrap_or(miner::inspect::MAX_ROWS),
        width: usize::try_from(args.width).unwrap_or(usize::MAX),
    };
    let text = miner::inspect::inspect(&args.out, args.table.as_deref(), &opts)?;
    print!("{text}");
    Ok(0)
}

fn run_report(args: ReportArgs) -> anyhow::Result<i32> {
    let stats = miner::report::read_stats(&args.out)?;
    let w = miner::report::write(&args.out, &stats, args.html)
        .with_context(|| format!("drawing the report of {}", args.out.display()))?;
    match &w.not_drawn {
        None => miner::escape::log(&format!(
            "codemine: {} figures drawn in {}{}",
            w.figures,
            args.out.display(),
            if w.html { ", with report.html" } else { "" }
        )),
        Some(why) => miner::escape::log(&format!("codemine: warning: figures not drawn: {why}")),
    }
    Ok(0)
}

fn run_eval(args: EvalArgs) -> anyhow::Result<()> {
    if args.list_metrics {
        use codemine_eval::metric::{FAMILIES, METRICS};
        for m in METRICS.iter().chain(FAMILIES) {
            println!(
                "{:<24} {:<14} {}{}",
                m.name,
                m.task.as_str(),
                m.about,
                if m.default { " (default)" } else { "" }
            );
        }
        return Ok(());
    }
    let opts = codemine_eval::EvalOptions {
        data: args.data,
        task: args.task,
        predictions: args.predictions,
        prediction_column: args.prediction_column,
        prediction_id_column: args.prediction_id_column,
        id_column: args.id_column,
        reference_column: args.reference_column,
        split: args.split,
        metrics: args.metrics,
        by: args.by,
        intersection: args.intersection,
        language: args.language,
        code_column: args.code_column,
        metric_config: codemine_eval::metric::MetricConfig {
            codebleu_weights: args.codebleu_weights,
            wordnet: args.wordnet,
            side_model: args.side_model,
        },
    };
    let ev = codemine_eval::evaluate(&opts)?;
    for note in &ev.notes {
        miner::escape::log(&format!("codemine: note: {note}"));
    }
    if let Some(p) = &args.per_example {
        codemine_eval::report::write_per_example(&ev, p)?;
    }
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&codemine_eval::report::json(&ev))?
        );
    } else {
        print!("{}", codemine_eval::report::table(&ev));
    }
    Ok(())
}

/// The settings of `--emit repo-completion` (the seed is `--completion-seed`'s).
#[derive(Debug, Clone, clap::Args)]
#[command(next_help_heading = heading::COMPLETION)]
struct RepoCompletionArgs {
    /// Repository-level completion: examples per file, at most [default: 3].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    repo_completion_lines: Option<u64>,
    /// Repository-level completion: lines the file must have before the cursor's line
    /// [default: 10].
    #[arg(long, value_name = "N")]
    repo_completion_min_prefix: Option<u64>,
    /// Repository-level completion: the kinds wanted and their shares, `kind[=share],...`
    /// (cross_file_first, cross_file_random, in_file, stdlib, external) [default: all,
    /// equal shares].
    #[arg(long, value_name = "LIST")]
    repo_completion_kinds: Option<String>,
    /// Retrieval: chunks per retriever (BM25, Jaccard) in `retrieved_context` [default: 5].
    #[arg(long, value_name = "K")]
    retrieval_k: Option<u64>,
    /// Retrieval: the query is the last N non-empty lines before the cursor [default: 10].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    retrieval_query_lines: Option<u64>,
    /// Retrieval: lines per chunk [default: 10].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    retrieval_chunk_lines: Option<u64>,
    /// Retrieval: a new chunk every N lines [default: 5].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    retrieval_chunk_stride: Option<u64>,
    /// Also write the files of every mined snapshot (repo, sha, path, content) to
    /// DIR/completion/snapshot/, so that examples reproduce without network.
    #[arg(long)]
    completion_snapshot: bool,
}

impl RepoCompletionArgs {
    fn any(&self) -> bool {
        self.repo_completion_lines.is_some()
            || self.repo_completion_min_prefix.is_some()
            || self.repo_completion_kinds.is_some()
            || self.retrieval_k.is_some()
            || self.retrieval_query_lines.is_some()
            || self.retrieval_chunk_lines.is_some()
            || self.retrieval_chunk_stride.is_some()
            || self.completion_snapshot
    }
}

/// `--emit repo-completion` and its settings; `since` is the `--since` rule's first second.
fn repo_completion_options(
    args: &MineArgs,
    config: &codemine_filters::FilterConfig,
    since: Option<i64>,
) -> Result<Option<miner::repo_completion::Options>, miner::Error> {
    let emit = args
        .emit
        .iter()
        .chain(&config.emit)
        .any(|e| e == "repo-completion");
    let a = &args.repo_completion;
    if !emit {
        if a.any() {
            return Err(miner::Error::Usage(
                "--repo-completion-*, --retrieval-* and --completion-snapshot need \
                 --emit repo-completion (TOML `emit = [\"repo-completion\"]`)"
                    .into(),
            ));
        }
        return Ok(None);
    }
    let n = |v: Option<u64>, d: usize| v.map_or(d, |v| usize::try_from(v).unwrap_or(usize::MAX));
    let d = miner::repo_completion::Options::default();
    let kinds = match &a.repo_completion_kinds {
        Some(s) => miner::repo_completion::Options::parse_kinds(s)
            .map_err(|e| miner::Error::Usage(format!("--repo-completion-kinds: {e}")))?,
        None => d.kinds.clone(),
    };
    if since.is_some() && args.no_history {
        return Err(miner::Error::Usage(
            "--no-history: --since on repository-level completion lines needs the history".into(),
        ));
    }
    Ok(Some(miner::repo_completion::Options {
        lines_per_file: n(a.repo_completion_lines, d.lines_per_file),
        min_prefix_lines: n(a.repo_completion_min_prefix, d.min_prefix_lines),
        kinds,
        since,
        top_k: n(a.retrieval_k, d.top_k),
        query_lines: n(a.retrieval_query_lines, d.query_lines),
        chunk_lines: n(a.retrieval_chunk_lines, d.chunk_lines),
        chunk_stride: n(a.retrieval_chunk_stride, d.chunk_stride),
        snapshot: a.completion_snapshot,
        seed: args
            .completion_seed
            .or(config.completion_seed)
            .unwrap_or(miner::pipeline::completion::DEFAULT_SEED),
    }))
}

/// `--emit completion` and its settings: flags over the `--filter-config` file's keys.
fn completion_options(
    args: &MineArgs,
    config: &codemine_filters::FilterConfig,
) -> Result<Option<miner::pipeline::completion::CompletionOptions>, miner::Error> {
    for e in &config.emit {
        if e != "completion" && e != "repo-completion" {
            return Err(miner::Error::Usage(format!(
                "emit: unknown output `{e}` (known: completion, repo-completion)"
            )));
        }
    }
    let emit = args
        .emit
        .iter()
        .chain(&config.emit)
        .any(|e| e == "completion");
    let seed = args.completion_seed.or(config.completion_seed);
    let cuts = args.completion_cuts.or(config.completion_cuts);
    let literals = args
        .completion_literals
        .as_ref()
        .or(config.completion_literals.as_ref());
    let repo_level = args
        .emit
        .iter()
        .chain(&config.emit)
        .any(|e| e == "repo-completion");
    if !emit {
        // The seed also draws the repository-level examples.
        if (seed.is_some() && !repo_level) || cuts.is_some() || literals.is_some() {
            return Err(miner::Error::Usage(
                "--completion-seed, --completion-cuts and --completion-literals need \
                 --emit completion (TOML `emit = [\"completion\"]`)"
                    .into(),
            ));
        }
        return Ok(None);
    }
    if cuts == Some(0) {
        return Err(miner::Error::Usage(
            "completion_cuts: must be at least 1".into(),
        ));
    }
    let mut c = miner::pipeline::completion::CompletionOptions {
        seed: seed.unwrap_or(miner::pipeline::completion::DEFAULT_SEED),
        cuts: cuts.map_or(1, |n| usize::try_from(n).unwrap_or(usize::MAX)),
        ..Default::default()
    };
    if let Some(f) = literals {
        let bytes =
            codemine_io::read_regular(f, codemine_io::MAX_TEXT_BYTES, codemine_io::Follow::Yes)
                .map_err(|e| {
                    miner::Error::Usage(format!("--completion-literals {}: {e}", f.display()))
                })?;
        c = c.with_literals(&bytes).map_err(|e| {
            miner::Error::Usage(format!("--completion-literals {}: {e}", f.display()))
        })?;
    }
    Ok(Some(c))
}

fn default_cache() -> PathBuf {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    base.join("codemine").join("repos")
}

fn run_mine(args: MineArgs) -> anyhow::Result<i32> {
    let mut specs: Vec<RepoSpec> = Vec::new();
    for m in &args.manifest {
        specs.extend(read_manifest(m)?);
    }
    if !args.coverage.is_empty() && args.repos.is_empty() {
        return Err(miner::Error::Usage(
            "--coverage attaches reports to --repo repositories; in a manifest use `coverage`"
                .into(),
        )
        .into());
    }
    for r in &args.repos {
        let mut spec = parse_repo_arg(r)?;
        spec.coverage = args.coverage.clone();
        specs.push(spec);
    }
    if specs.is_empty() {
        return Err(
            miner::Error::Usage("nothing to mine: give --repo or --manifest".into()).into(),
        );
    }
    let mut opts = MineOptions::new(
        args.out.clone(),
        args.cache.clone().unwrap_or_else(default_cache),
    );
    opts.source = SourceOptions {
        offline: args.offline,
        depth: args.depth,
        ..opts.source
    };
    opts.threads = args.threads;
    opts.max_file_bytes = args.max_file_bytes;
    opts.max_report_bytes = args.max_report_bytes;
    opts.shards.max_shard_bytes = usize::try_from(args.shard_size).unwrap_or(usize::MAX);
    opts.shards.max_shard_rows = args.shard_rows.unwrap_or(usize::MAX);
    opts.split = args.split;
    opts.headers = args.headers;
    opts.csn_names = args.csn_names;
    opts.callgraph_compat = args.callgraph_compat;
    opts.history = !args.no_history;
    opts.coverage_strip_prefixes = args.coverage_strip_prefix.clone();
    opts.explain = args.explain;
    opts.tests = args.tests.options(&opts.source.cache_dir)?;
    let config = args
        .filter
        .to_config()
        .map_err(|e| miner::Error::Usage(e.to_string()))?;
    let filter = codemine_filters::Filter::compile(&config, Lang::known())
        .map_err(|e| miner::Error::Usage(e.to_string()))?;
    opts.completion = completion_options(&args, &config)?;
    opts.repo_completion = repo_completion_options(&args, &config, filter.since())?;
    if filter.needs_last_commit() && args.no_history {
        return Err(miner::Error::Usage(
            "--no-history: the date rules (--since, --until, preset yabloco) need last-commit dates"
                .into(),
        )
        .into());
    }
    opts.date_zone = filter.date_zone().clone();
    // The model is loaded before any mining: a bad folder is a usage error naming the file.
    opts.side = match (&args.side_model, filter.min_side()) {
        (Some(dir), _) => Some(miner::pipeline::side::SideModel::load(dir)?),
        (None, Some(_)) => {
            return Err(miner::Error::Usage(
                "--min-side (min_side) needs a SIDE model: give --side-model DIR".into(),
            )
            .into())
        }
        (None, None) => None,
    };
    opts.filter = Some(filter);
    opts.dedup = args.dedup.params()?;
    if !config.decontaminate.is_empty() {
        let params = args.decontam.params(opts.dedup.as_ref())?;
        let d = decontaminator(
            &config.decontaminate,
            "--decontaminate",
            &args.decontam.read_options()?,
            &params,
            args.decontam.decontaminate_warn_share,
        )?;
        opts.decontam = Some(std::sync::Arc::new(d));
    }
    let template = match (&args.instruction, &args.instruction_file) {
        (Some(t), _) => Some(t.clone()),
        (None, Some(f)) => Some(
            codemine_io::read_regular_string(f, codemine_io::MAX_TEXT_BYTES).map_err(|e| {
                miner::Error::Usage(format!("--instruction-file {}: {e}", f.display()))
            })?,
        ),
        (None, None) => None,
    };
    if let Some(t) = template {
        check_template(&t)
            .map_err(|e| miner::Error::Usage(format!("instruction template: {e}")))?;
        opts.instruction = t;
    }

    opts.checkpoint_repos = args.checkpoint_repos;
    if let (Some(rank), Some(world)) = (args.rank, args.world_size) {
        if world == 0 || rank >= world {
            return Err(miner::Error::Usage(format!(
                "--rank {rank} must be below --world-size {world}"
            ))
            .into());
        }
        opts.rank = rank;
        opts.world_size = world;
        let display = Display::new(specs.len().div_ceil(world), args.quiet, args.verbose);
        let share = miner::pipeline::mine_share(&specs, &opts, &display)
            .with_context(|| format!("mining into {}", args.out.display()))?;
        display.finish();
        if !args.quiet {
            miner::escape::log(&format!(
                "codemine: rank {rank} of {world}: {} repositories mined{} -> {}",
                share.mined,
                match share.resumed {
                    0 => String::new(),
                    n => format!(" ({n} done by an earlier run)"),
                },
                args.out.join("staging").display()
            ));
        }
        return Ok(0);
    }
    let display = Display::new(specs.len(), args.quiet, args.verbose);
    let summary = mine(&specs, &opts, &display)
        .with_context(|| format!("mining into {}", args.out.display()))?;
    display.finish();
    if summary.resumed > 0 && !args.quiet {
        miner::escape::log(&format!(
            "codemine: resumed: {} repositories were done by an earlier run with the same arguments",
            summary.resumed
        ));
    }
    report(&summary, &args.out, args.quiet)
}

/// The closing line of a finished run; an error when nothing at all could be mined.
fn report(
    summary: &miner::pipeline::Summary,
    out: &std::path::Path,
    quiet: bool,
) -> anyhow::Result<i32> {
    let s = &summary.stats;
    let rows: usize = s.stages.write.csn_rows.values().sum();
    if !quiet {
        miner::escape::log(&format!(
            "codemine: {} of {} repositories mined, {} files, {} functions, {} rows in {:.1} s -> {}{}",
            s.stages.source.opened,
            s.stages.source.repositories,
            s.stages.extract.totals.files,
            s.stages.extract.totals.functions,
            rows,
            s.wall_seconds,
            out.display(),
            match summary.failures {
                0 => String::new(),
                n => format!(" ({n} failures: see failures.jsonl)"),
            }
        ));
    }
    // Shown even with --quiet: a run that lost much of its corpus to decontamination
    // should not pass unseen.
    if let Some(w) = s
        .stages
        .decontamination
        .as_ref()
        .and_then(|d| d.warning.as_ref())
    {
        miner::escape::log(&format!("codemine: warning: {w}"));
    }
    if !summary.mined_anything() {
        bail!(
            "no repository could be mined (reasons in {})",
            out.join("failures.jsonl").display()
        );
    }
    Ok(0)
}

/// Progress bars on a terminal; plain lines otherwise (CI, pipes).
struct Display {
    quiet: bool,
    verbose: bool,
    bars: Option<(MultiProgress, ProgressBar, ProgressBar)>,
    files_total: AtomicUsize,
    lock: Mutex<()>,
}

impl Display {
    fn new(repos: usize, quiet: bool, verbose: bool) -> Self {
        let interactive =
            !quiet && std::io::stderr().is_terminal() && std::env::var_os("CI").is_none();
        let bars = interactive.then(|| {
            let multi = MultiProgress::with_draw_target(ProgressDrawTarget::stderr());
            let style = |t: &str| {
                ProgressStyle::with_template(t).unwrap_or_else(|_| ProgressStyle::default_bar())
            };
            let r = multi.add(ProgressBar::new(repos as u64));
            r.set_style(style("{prefix:>6} [{bar:30}] {pos}/{len} {msg}"));
            r.set_prefix("repos");
            let f = multi.add(ProgressBar::new(0));
            f.set_style(style(
                "{prefix:>6} [{bar:30}] {pos}/{len} {per_sec} eta {eta}",
            ));
            f.set_prefix("files");
            f.enable_steady_tick(Duration::from_millis(200));
            (multi, r, f)
        });
        Self {
            quiet,
            verbose,
            bars,
            files_total: AtomicUsize::new(0),
            lock: Mutex::new(()),
        }
    }

    fn line(&self, msg: String) {
        match &self.bars {
            Some((m, _, _)) => {
                let _ = m.println(miner::escape::visible(&msg));
            }
            None => {
                let _guard = self.lock.lock();
                miner::escape::log(&msg);
            }
        }
    }

    fn finish(&self) {
        if let Some((_, r, f)) = &self.bars {
            f.finish_and_clear();
            r.finish_and_clear();
        }
    }
}

impl Progress for Display {
    fn repo_listed(&self, _repo: &str, files: usize) {
        let total = self.files_total.fetch_add(files, Ordering::Relaxed) + files;
        if let Some((_, _, f)) = &self.bars {
            f.set_length(total as u64);
        }
    }

    fn file_done(&self) {
        if let Some((_, _, f)) = &self.bars {
            f.inc(1);
        }
    }

    fn repo_finished(&self, s: &RepoStats, failure: Option<&Failure>) {
        if let Some((_, r, _)) = &self.bars {
            r.inc(1);
            r.set_message(miner::escape::visible(&s.repo).into_owned());
        }
        if let Some(f) = failure {
            // Failures are errors: shown even with --quiet.
            self.line(format!("codemine: {} failed: {}", f.source, f.reason));
            return;
        }
        if self.verbose {
            let failed: usize = s.files_failed.values().sum();
            if failed > 0 {
                self.line(format!(
                    "codemine: {}: {failed} files skipped (see failures.jsonl)",
                    s.repo
                ));
            }
        }
        if !self.quiet && (self.bars.is_none() || self.verbose) {
            self.line(format!(
                // The rows of a repository before dedup, which runs across the run once
                // every repository is mined: the closing line gives the rows written.
                "codemine: mined {}{}: {} files, {} functions, {} rows before cross-repository dedup ({:.2} s)",
                s.repo,
                s.sha
                    .as_deref()
                    .map(|h| format!("@{}", &h[..h.len().min(12)]))
                    .unwrap_or_default(),
                s.totals.files,
                s.totals.functions,
                s.totals.csn_rows,
                s.source_seconds + s.extract_seconds,
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use anyhow::Context;

    fn mine_command() -> clap::Command {
        let mut cmd = command();
        cmd.build();
        cmd.find_subcommand("mine").cloned().expect("mine")
    }

    #[test]
    fn every_mine_flag_has_a_heading_of_the_list() {
        let cmd = mine_command();
        for a in cmd.get_arguments() {
            let id = a.get_id().as_str();
            if id == "help" {
                continue;
            }
            let h = a.get_help_heading();
            assert!(
                h.is_some_and(|h| heading::ORDER.contains(&h)),
                "--{id}: help heading {h:?} is not one of {:?}",
                heading::ORDER
            );
        }
        for id in COMMON {
            assert!(
                cmd.get_arguments().any(|a| a.get_id() == *id),
                "COMMON names `{id}`, which mine has not"
            );
        }
    }

    #[test]
    fn mine_help_is_grouped_by_task_and_short_help_shows_the_common_flags() {
        let mut cmd = mine_command();
        let long = cmd.render_long_help().to_string();
        let short = cmd.render_help().to_string();
        // The headings, in order, each once.
        let mut at = 0;
        for h in heading::ORDER {
            let found = long[at..]
                .find(&format!("\n{h}:\n"))
                .unwrap_or_else(|| panic!("no heading {h} after byte {at}:\n{long}"));
            at += found + 1;
            assert_eq!(long.matches(&format!("\n{h}:\n")).count(), 1, "{h}");
        }
        // Each flag under its heading.
        // A section runs from its heading to the next line that is a heading.
        let section = |text: &str, h: &str| -> String {
            text.lines()
                .skip_while(|l| *l != format!("{h}:"))
                .skip(1)
                .take_while(|l| !l.ends_with(':') || l.starts_with(' '))
                .collect::<Vec<_>>()
                .join("\n")
        };
        for (h, flags) in [
            (
                heading::INPUT,
                &["--repo ", "--manifest ", "--cache ", "--depth "][..],
            ),
            (heading::OUTPUT, &["--out ", "--shard-size ", "--explain"]),
            (
                heading::FILTERING,
                &["--preset ", "--since ", "--languages "],
            ),
            (heading::DEDUP, &["--no-dedup", "--dedup-threshold "]),
            (
                heading::HISTORY,
                &["--no-history", "--coverage ", "--date-timezone "],
            ),
            (
                heading::COMPLETION,
                &["--emit ", "--retrieval-k ", "--completion-seed "],
            ),
            (
                heading::DECONTAMINATION,
                &["--decontaminate ", "--decontaminate-ngram "],
            ),
            (heading::SIDE, &["--side-model ", "--min-side "]),
            (
                heading::SCALE,
                &[
                    "--threads ",
                    "--rank ",
                    "--world-size ",
                    "--checkpoint-repos ",
                ],
            ),
            (heading::LOGGING, &["--quiet", "--verbose"]),
        ] {
            let text = section(&long, h);
            for f in flags {
                assert!(text.contains(f), "{f} not under {h}:\n{text}");
            }
        }
        // -h: the common flags only, and where the rest are.
        for id in ["--repo ", "--out ", "--since ", "--emit ", "--quiet"] {
            assert!(short.contains(id), "{id} not in -h");
        }
        for id in [
            "--cache ",
            "--dedup-bands ",
            "--retrieval-k ",
            "--checkpoint-repos ",
        ] {
            assert!(!short.contains(id), "{id} in -h");
        }
        assert!(
            short.contains("`codemine mine --help` lists all"),
            "{short}"
        );
        assert!(short.lines().count() * 2 < long.lines().count());
    }

    #[test]
    fn check_args_parses_like_the_command_line() {
        assert!(parse(["codemine", "mine", "--repo", ".", "--out", "o"]).is_ok());
        let e = parse(["codemine", "mine", "--repos", "r.txt", "--out", "o"])
            .err()
            .expect("--repos is no flag");
        assert_eq!(e.kind(), clap::error::ErrorKind::UnknownArgument);
        let e = parse([
            "codemine",
            "mine",
            "--repo",
            ".",
            "--out",
            "o",
            "--since",
            "yesterday",
        ])
        .err()
        .expect("not a date");
        assert_eq!(e.kind(), clap::error::ErrorKind::ValueValidation);
    }

    #[test]
    fn errors_print_each_cause_once() {
        let io = || std::io::Error::new(std::io::ErrorKind::NotFound, "no such file");
        let e: anyhow::Error = miner::Error::Io {
            path: "/x/data.noun".into(),
            source: io(),
        }
        .into();
        assert_eq!(render(&e), "/x/data.noun: no such file");
        // Context and a source the message does not show are kept.
        let e = Err::<(), _>(io()).context("reading /y").unwrap_err();
        assert_eq!(render(&e), "reading /y: no such file");
    }
}
