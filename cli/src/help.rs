//! `codemine mine --help` grouped by task: the help headings every flag names, the flags
//! `-h` shows, and the command with its flags in that order.

use clap::{Arg, CommandFactory};

use crate::Cli;

/// Every flag of `mine` has one of them (a test checks it): a new flag names its heading
/// with `help_heading = heading::...`, and is shown by `--help` only unless it is in
/// [`COMMON`].
pub mod heading {
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
pub const COMMON: &[&str] = &[
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
pub fn command() -> clap::Command {
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
