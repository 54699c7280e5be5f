//! The completion flags of `codemine mine` (`--emit completion`, `--emit repo-completion`)
//! and the options they make, over the `--filter-config` file's keys.

use crate::help::heading;
use crate::mine::MineArgs;

#[derive(Debug, Clone, clap::Args)]
#[command(next_help_heading = heading::COMPLETION)]
pub struct RepoCompletionArgs {
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
pub fn repo_completion_options(
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
pub fn completion_options(
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
