//! The filter flags of `codemine mine`: they parse into a `FilterConfig`, lay over a
//! `--filter-config` file, and a bad value is a usage error naming the flag.

use std::path::{Path, PathBuf};

use clap::Parser;
use codemine_cli::FilterArgs;
use codemine_filters::{Filter, FilterConfig, Preset};
use miner::lang::{Lang, Registry};

/// A tiny command line with the filter flags, as `codemine mine` flattens them.
#[derive(Parser, Debug)]
struct Cli {
    #[command(flatten)]
    filter: FilterArgs,
}

fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
    Cli::try_parse_from(std::iter::once("codemine").chain(args.iter().copied()))
}

/// Compiles with the registry's languages, as `codemine mine` does.
trait Compile {
    fn compile(&self) -> Result<Filter, codemine_filters::FilterError>;
}

impl Compile for FilterConfig {
    fn compile(&self) -> Result<Filter, codemine_filters::FilterError> {
        Filter::compile(self, Lang::known())
    }
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn flags_parse_into_a_config() {
    let cli = parse(&[
        "--preset",
        "codexglue",
        "--since",
        "2021-01-01",
        "--until",
        "2022-06-30T00:00:00Z",
        "--min-coverage-hits",
        "1",
        "--min-lines",
        "4",
        "--max-lines",
        "80",
        "--min-docstring-tokens",
        "5",
        "--max-docstring-tokens",
        "100",
        "--require-docstring",
        "--languages",
        "python,Java",
        "--exclude",
        "docs/",
        "--exclude",
        "*_test.py",
        "--no-default-excludes",
        "--max-calls-num",
        "9",
    ])
    .unwrap();
    let cfg = cli.filter.to_config().unwrap();
    assert_eq!(cfg.preset, Some(Preset::Codexglue));
    assert_eq!(cfg.since.as_ref().unwrap().as_str(), "2021-01-01");
    assert_eq!(cfg.min_coverage_hits, Some(1));
    assert_eq!((cfg.min_lines, cfg.max_lines), (Some(4), Some(80)));
    assert_eq!(
        (cfg.min_docstring_tokens, cfg.max_docstring_tokens),
        (Some(5), Some(100))
    );
    assert_eq!(cfg.require_docstring, Some(true));
    assert_eq!(
        cfg.languages,
        Some(vec!["python".to_string(), "java".to_string()])
    );
    assert_eq!(cfg.exclude, ["docs/", "*_test.py"]);
    assert_eq!(cfg.default_excludes, Some(false));
    assert_eq!(cfg.max_calls_num, Some(9));
    let f = cfg.compile().unwrap();
    assert_eq!(f.rule_names()[0], "languages");
    assert_eq!(f.rule_names()[1], "path_exclude");
}

#[test]
fn no_flags_no_filter() {
    let cli = parse(&[]).unwrap();
    let f = cli.filter.to_config().unwrap().compile().unwrap();
    assert!(!f.is_active());
}

/// A usage error (clap exits with 2) whose message names the flag.
fn usage_error(args: &[&str], flag: &str) -> String {
    let e = parse(args).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            clap::error::ErrorKind::ValueValidation | clap::error::ErrorKind::InvalidValue
        ),
        "{:?}: {e}",
        e.kind()
    );
    assert_eq!(e.exit_code(), 2);
    let text = e.to_string();
    assert!(text.contains(flag), "{text}");
    text
}

#[test]
fn bad_flag_values_are_usage_errors_naming_the_flag() {
    let e = usage_error(&["--since", "2021-13-01"], "--since");
    assert!(e.contains("is not a date (YYYY-MM-DD or RFC 3339)"), "{e}");
    usage_error(&["--until", "yesterday"], "--until");
    usage_error(&["--min-lines", "abc"], "--min-lines");
    usage_error(&["--max-lines=-1"], "--max-lines");
    usage_error(&["--min-coverage-hits", "1.5"], "--min-coverage-hits");
    usage_error(&["--min-docstring-tokens", "x"], "--min-docstring-tokens");
    usage_error(&["--max-docstring-tokens", ""], "--max-docstring-tokens");
    usage_error(&["--max-calls-num", "many"], "--max-calls-num");
    let e = usage_error(&["--languages", "python,cobol"], "--languages");
    assert!(e.contains("unknown language"), "{e}");
    let e = usage_error(&["--exclude", "src/[a"], "--exclude");
    assert!(e.contains("not a valid glob"), "{e}");
    usage_error(&["--preset", "codesearchnet"], "--preset");
}

#[test]
fn flags_override_the_config_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        dir.path(),
        "filter.toml",
        "preset = \"csn\"\nmin_lines = 5\nrequire_docstring = true\nexclude = [\"a/\"]\n",
    );
    let cli = parse(&[
        "--filter-config",
        path.to_str().unwrap(),
        "--min-lines",
        "7",
        "--exclude",
        "b/",
        "--preset",
        "codexglue",
    ])
    .unwrap();
    let cfg = cli.filter.to_config().unwrap();
    assert_eq!(cfg.preset, Some(Preset::Codexglue));
    assert_eq!(cfg.min_lines, Some(7));
    // An absent switch does not undo the file's setting.
    assert_eq!(cfg.require_docstring, Some(true));
    assert_eq!(cfg.exclude, ["a/", "b/"]);
    assert_eq!(cfg.default_excludes, None);
}

#[test]
fn a_bad_config_file_fails_to_config() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "filter.toml", "since = \"2021-02-30\"\n");
    let cli = parse(&["--filter-config", path.to_str().unwrap()]).unwrap();
    let e = cli.filter.to_config().unwrap_err().to_string();
    assert!(
        e.contains("filter.toml: since: '2021-02-30' is not a date"),
        "{e}"
    );
}

/// `min_side` (TOML) and `--min-side` (flag, which wins): a rule named last, applied by the
/// miner's SIDE step after dedup; a value outside SIDE's range [-1, 1] is refused by name.
#[test]
fn min_side_from_the_file_and_the_flag() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        dir.path(),
        "filter.toml",
        "min_side = 0.65\nmin_lines = 2\n",
    );
    let file = path.to_str().unwrap();
    let f = parse(&["--filter-config", file])
        .unwrap()
        .filter
        .to_config()
        .unwrap()
        .compile()
        .unwrap();
    assert_eq!(f.min_side(), Some(0.65));
    assert_eq!(f.rule_names().last(), Some(&"min_side"));
    let rules = f.describe()["rules"].as_array().unwrap().clone();
    assert_eq!(rules.last().unwrap()["min"], 0.65);
    let f = parse(&["--filter-config", file, "--min-side", "0.8"])
        .unwrap()
        .filter
        .to_config()
        .unwrap()
        .compile()
        .unwrap();
    assert_eq!(f.min_side(), Some(0.8));
    // Alone, it is a filter like any other.
    let f = parse(&["--min-side", "0.5"])
        .unwrap()
        .filter
        .to_config()
        .unwrap();
    assert!(f.compile().unwrap().is_active());
    let e = parse(&["--min-side", "1.5"])
        .unwrap()
        .filter
        .to_config()
        .unwrap()
        .compile()
        .unwrap_err();
    assert!(e.to_string().contains("min_side"), "{e}");
    usage_error(&["--min-side", "high"], "--min-side");
}
