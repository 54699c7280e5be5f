//! Reading settings: TOML files (good and bad) and merge precedence. (The flags that
//! produce a config are the CLI's: codemine-cli's tests.)

use crate::Compile;
use std::path::{Path, PathBuf};

use codemine_filters::{FilterConfig, FilterError, Preset};

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn toml_error(text: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "filter.toml", text);
    let e = FilterConfig::from_toml_file(&path).unwrap_err();
    // Messages start with the file as given; compare from its name on.
    let full = e.to_string();
    let at = full.find("filter.toml").expect("message names the file");
    full[at..].to_string()
}

#[test]
fn good_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        dir.path(),
        "filter.toml",
        r#"
# Everything a filter config can hold.
preset = "yabloco"
since = 2021-01-01                # a native TOML date
until = "2023-06-30T12:00:00Z"    # or a string
min_coverage_hits = 2
min_lines = 3
max_lines = 200
min_docstring_tokens = 3
max_docstring_tokens = 128
require_docstring = true
languages = ["c", "cpp"]
exclude = ["deps/", "*_test.c"]
default_excludes = true
max_calls_num = 10
"#,
    );
    let cfg = FilterConfig::from_toml_file(&path).unwrap();
    assert_eq!(cfg.preset, Some(Preset::Yabloco));
    assert_eq!(cfg.since.as_ref().unwrap().first_second(), 1_609_459_200);
    assert_eq!(cfg.until.as_ref().unwrap().as_str(), "2023-06-30T12:00:00Z");
    assert_eq!(cfg.min_coverage_hits, Some(2));
    assert_eq!((cfg.min_lines, cfg.max_lines), (Some(3), Some(200)));
    assert_eq!(
        (cfg.min_docstring_tokens, cfg.max_docstring_tokens),
        (Some(3), Some(128))
    );
    assert_eq!(cfg.require_docstring, Some(true));
    assert_eq!(
        cfg.languages,
        Some(vec!["c".to_string(), "cpp".to_string()])
    );
    assert_eq!(cfg.exclude, ["deps/", "*_test.c"]);
    assert_eq!(cfg.default_excludes, Some(true));
    assert_eq!(cfg.max_calls_num, Some(10));
    let f = cfg.compile().unwrap();
    assert!(f.needs_last_commit());
}

#[test]
fn native_toml_datetime_with_offset() {
    let cfg = FilterConfig::from_toml_str(
        "since = 2021-01-01T02:00:00+02:00\n",
        Path::new("filter.toml"),
    )
    .unwrap();
    assert_eq!(cfg.since.unwrap().first_second(), 1_609_459_200);
}

#[test]
fn empty_file_is_an_empty_config() {
    let cfg = FilterConfig::from_toml_str("", Path::new("filter.toml")).unwrap();
    assert!(!cfg.compile().unwrap().is_active());
}

#[test]
fn bad_date_names_file_key_and_line() {
    assert_eq!(
        toml_error("preset = \"csn\"\nsince = '2021-13-01'\n"),
        "filter.toml: since: '2021-13-01' is not a date (YYYY-MM-DD or RFC 3339): \
         parameter 'month' is not in the required range of 1..=12 (line 2)"
    );
    let e = toml_error("until = \"last tuesday\"\n");
    assert!(
        e.starts_with("filter.toml: until: 'last tuesday' is not a date"),
        "{e}"
    );
    // A native TOML date that is no date is a TOML syntax error: still named.
    let e = toml_error("since = 2021-13-01\n");
    assert!(e.starts_with("filter.toml: since: "), "{e}");
    assert!(e.ends_with("(line 1)"), "{e}");
    // A local TOML datetime has no offset: not an instant.
    let e = toml_error("since = 2021-01-01T10:00:00\n");
    assert!(e.starts_with("filter.toml: since: "), "{e}");
}

#[test]
fn bad_number_names_file_and_key() {
    let e = toml_error("min_lines = \"ten\"\n");
    assert!(e.starts_with("filter.toml: min_lines: invalid type"), "{e}");
    assert!(e.ends_with("(line 1)"), "{e}");
    let e = toml_error("\n\nmax_docstring_tokens = -3\n");
    assert!(e.starts_with("filter.toml: max_docstring_tokens: "), "{e}");
    assert!(e.ends_with("(line 3)"), "{e}");
    let e = toml_error("min_coverage_hits = 1.5\n");
    assert!(e.starts_with("filter.toml: min_coverage_hits: "), "{e}");
}

#[test]
fn unknown_key_is_named() {
    let e = toml_error("preset = \"csn\"\nmin_line = 3\n");
    assert!(
        e.starts_with("filter.toml: min_line: unknown field `min_line`, expected one of"),
        "{e}"
    );
    assert!(e.ends_with("(line 2)"), "{e}");
}

#[test]
fn bad_preset_and_bad_toml() {
    let e = toml_error("preset = \"codesearchnet\"\n");
    assert!(
        e.starts_with("filter.toml: preset: unknown variant `codesearchnet`"),
        "{e}"
    );
    // TOML syntax errors name the key their line assigns.
    let e = toml_error("preset = \"csn\"\nmin_lines = \n");
    assert!(e.starts_with("filter.toml: min_lines: "), "{e}");
    assert!(e.ends_with("(line 2)"), "{e}");
    let e = toml_error("[filters\n");
    assert!(e.starts_with("filter.toml: "), "{e}");
}

#[test]
fn missing_file() {
    let e = FilterConfig::from_toml_file(Path::new("/nonexistent/filter.toml")).unwrap_err();
    assert!(matches!(e, FilterError::Read { .. }));
    assert!(
        e.to_string().starts_with("/nonexistent/filter.toml: "),
        "{e}"
    );
}

#[test]
fn merge_overrides_field_by_field() {
    let file = FilterConfig {
        preset: Some(Preset::Csn),
        min_lines: Some(5),
        max_lines: Some(100),
        languages: Some(vec!["python".into()]),
        exclude: vec!["a/".into()],
        require_docstring: Some(true),
        ..Default::default()
    };
    let flags = FilterConfig {
        min_lines: Some(7),
        exclude: vec!["b/".into()],
        default_excludes: Some(false),
        ..Default::default()
    };
    let m = file.merged(flags);
    assert_eq!(m.preset, Some(Preset::Csn));
    assert_eq!(m.min_lines, Some(7));
    assert_eq!(m.max_lines, Some(100));
    assert_eq!(m.languages, Some(vec!["python".to_string()]));
    assert_eq!(m.exclude, ["a/", "b/"]);
    assert_eq!(m.require_docstring, Some(true));
    assert_eq!(m.default_excludes, Some(false));

    let preset_swap = FilterConfig {
        preset: Some(Preset::Csn),
        ..Default::default()
    }
    .merged(FilterConfig {
        preset: Some(Preset::Yabloco),
        ..Default::default()
    });
    assert_eq!(preset_swap.preset, Some(Preset::Yabloco));
}

// ---------------------------------------------------------------- flags
