//! The `codemine` command line: argument parsing (clap), progress display (indicatif on a
//! terminal, plain log lines otherwise) and exit codes.
//!
//! Exit codes: 0 when the run completed (some repositories may have failed: see
//! failures.jsonl), 1 when nothing at all could be mined or the run itself failed, 2 on a
//! usage error.

use clap::{Args, FromArgMatches, Parser, Subcommand};

mod contamination;
mod decontam_args;
mod eval;
mod filter_args;
mod help;
mod inspect;
mod mine;
mod progress;
mod report;
mod scale;
mod values;

pub use filter_args::FilterArgs;

use contamination::ContaminationArgs;
use eval::EvalArgs;
use inspect::InspectArgs;
use mine::MineArgs;
use report::ReportArgs;
use scale::{ClusterArgs, FinalizeArgs};

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
        Command::Mine(args) => exit_code(mine::run_mine(*args)),
        Command::Cluster(args) => exit_code(scale::run_cluster(args)),
        Command::Finalize(args) => exit_code(scale::run_finalize(args)),
        Command::Report(args) => exit_code(report::run_report(args)),
        Command::Contamination(args) => exit_code(contamination::run_contamination(args)),
        Command::Inspect(args) => exit_code(inspect::run_inspect(args)),
        Command::Eval(args) => match eval::run_eval(*args) {
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
    let mut cmd = help::command();
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

#[cfg(test)]
mod tests {
    use super::*;
    use anyhow::Context;

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
