//! The command line's usage errors and exit codes (the binary of this package).

use std::process::Command;

fn codemine(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_codemine"))
        .args(args)
        .env("CI", "1")
        .output()
        .unwrap()
}

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn usage_errors_exit_2_and_say_why() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let out = out.to_str().unwrap();

    let o = codemine(&["mine", "--out", out]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("nothing to mine"), "{}", stderr(&o));

    let o = codemine(&["mine", "--repo", "."]);
    assert_eq!(o.status.code(), Some(2), "--out is required");

    let o = codemine(&[
        "mine",
        "--repo",
        ".",
        "--out",
        out,
        "--max-file-bytes",
        "12X",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("unknown size unit"), "{}", stderr(&o));

    let o = codemine(&["mine", "--repo", ".", "--out", out, "--split", "80,10,5"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("add up to 100"), "{}", stderr(&o));

    let manifest = tmp.path().join("m.jsonl");
    std::fs::write(&manifest, "{\"url\": \"/x\"}\n{\"url\": 3}\n").unwrap();
    let o = codemine(&[
        "mine",
        "--manifest",
        manifest.to_str().unwrap(),
        "--out",
        out,
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("m.jsonl:2"),
        "names the file and line: {}",
        stderr(&o)
    );

    let o = codemine(&["mine", "--manifest", "/no/such/manifest.txt", "--out", out]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("/no/such/manifest.txt"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn nothing_mined_exits_1() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let o = codemine(&[
        "mine",
        "--repo",
        "/no/such/repository",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("no repository could be mined"),
        "{}",
        stderr(&o)
    );
    // The failure is still recorded.
    let failures = std::fs::read_to_string(out.join("failures.jsonl")).unwrap();
    assert!(failures.contains("path_not_found"));
}

#[test]
fn help_and_version() {
    assert!(codemine(&["--version"]).status.success());
    let o = codemine(&["mine", "--help"]);
    assert!(o.status.success());
    assert!(String::from_utf8_lossy(&o.stdout).contains("--manifest"));
}

#[test]
fn an_unknown_time_zone_is_a_usage_error_naming_it() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let o = codemine(&[
        "mine",
        "--repo",
        ".",
        "--out",
        out.to_str().unwrap(),
        "--date-timezone",
        "Mars/Olympus_Mons",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("unknown time zone 'Mars/Olympus_Mons'"),
        "{}",
        stderr(&o)
    );
    let toml = tmp.path().join("filter.toml");
    std::fs::write(
        &toml,
        "since = 2024-01-01\ndate_timezone = \"Europe/Moskva\"\n",
    )
    .unwrap();
    let o = codemine(&[
        "mine",
        "--repo",
        ".",
        "--out",
        out.to_str().unwrap(),
        "--filter-config",
        toml.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains("unknown time zone 'Europe/Moskva'") && e.contains("line 2"),
        "{e}"
    );
}
