//! `codemine mine`: its flags, turned into [`MineOptions`], and the run with its closing
//! line. Groups of flags live in `mine/` (and `filter_args`, `decontam_args`).

use std::path::PathBuf;

use anyhow::{bail, Context};
use clap::Args;

use miner::callgraph::check_template;
use miner::csn::SplitRatios;
use miner::lang::{Lang, Registry};
use miner::pipeline::{mine, HeaderMode, MineOptions};
use miner::source::{parse_repo_arg, read_manifest, RepoSpec, SourceOptions};

use crate::decontam_args::{decontaminator, DecontamArgs};
use crate::help::heading;
use crate::progress::Display;
use crate::values::parse_size;

mod completion_args;
mod dedup_args;
mod tests_args;

use completion_args::{completion_options, repo_completion_options, RepoCompletionArgs};
use dedup_args::DedupArgs;
use tests_args::TestsArgs;

#[derive(Args)]
pub struct MineArgs {
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
    /// Neither read nor write the history cache (CACHE/history/): every function is dated
    /// by a full walk. The cache only changes the time a run takes, never its output.
    #[arg(help_heading = heading::HISTORY, long)]
    no_history_cache: bool,
    /// Also write every function a filter removed, with the rule, to DIR/dropped/.
    #[arg(help_heading = heading::OUTPUT, long)]
    explain: bool,
    /// Add `docstring_params` to the CSN rows and call-graph nodes: the docstring's
    /// parameters, returns, raises and other sections in its language's convention
    /// (reST, Google, NumPy, Javadoc, JSDoc, Doxygen, ...; docs/docstrings.md).
    #[arg(help_heading = heading::OUTPUT, long)]
    docstring_params: bool,
    /// Scan every file for personal data and secrets (e-mail and IP addresses, keys,
    /// tokens, passwords): `report` lists them in DIR/pii/, `redact` also replaces each with
    /// a placeholder in everything written, `drop` removes the functions holding a secret
    /// and redacts the rest. The TOML's `[pii]` table holds the allow list (docs/pii.md).
    #[arg(help_heading = heading::FILTERING, long, value_name = "MODE", value_parser = ["report", "redact", "drop"])]
    pii: Option<String>,
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
    tests: TestsArgs,
    #[command(flatten)]
    filter: crate::filter_args::FilterArgs,
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

pub(crate) fn default_cache() -> PathBuf {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    base.join("codemine").join("repos")
}

pub fn run_mine(args: MineArgs) -> anyhow::Result<i32> {
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
    opts.history_cache = !args.no_history_cache;
    opts.coverage_strip_prefixes = args.coverage_strip_prefix.clone();
    opts.explain = args.explain;
    opts.docstring_params = args.docstring_params;
    opts.tests = args.tests.options(&opts.source.cache_dir, args.offline)?;
    let config = args
        .filter
        .to_config()
        .map_err(|e| miner::Error::Usage(e.to_string()))?;
    let filter = codemine_filters::Filter::compile(&config, Lang::known())
        .map_err(|e| miner::Error::Usage(e.to_string()))?;
    opts.pii = pii_options(args.pii.as_deref(), &config)?;
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
pub fn report(
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

/// `--pii MODE` with the config's `[pii]` table; a table without the flag is a usage error
/// (it would otherwise be ignored silently).
fn pii_options(
    mode: Option<&str>,
    config: &codemine_filters::FilterConfig,
) -> Result<Option<miner::pipeline::pii::PiiOptions>, miner::Error> {
    use miner::pipeline::pii::{PiiMode, PiiOptions};
    let Some(mode) = mode else {
        return match config.pii {
            Some(_) => Err(miner::Error::Usage(
                "the filter config has a [pii] table but no --pii MODE was given (report, redact or drop)"
                    .into(),
            )),
            None => Ok(None),
        };
    };
    let mode = PiiMode::parse(mode)
        .ok_or_else(|| miner::Error::Usage(format!("--pii {mode}: not report, redact or drop")))?;
    let table = config.pii.clone().unwrap_or_default();
    PiiOptions::new(mode, table)
        .map(Some)
        .map_err(|e| miner::Error::Usage(format!("the filter config's [pii] table: {e}")))
}
