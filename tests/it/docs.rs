//! The shell blocks of README.md and docs/*.md, tested as a new user would meet them.
//!
//! - A fenced block whose info string is `sh` (or `bash`, `shell`) runs: in order, in a fresh
//!   `git clone` of this repository, with `codemine` (and `target/release/codemine`) the
//!   binary under test, offline, and must exit 0. When a ```` ```text ```` block follows it
//!   directly, that is its expected output (stdout and stderr together): `...` on a line of
//!   its own stands for any lines, `[..]` for any text within a line.
//! - A block marked `sh no-run` (it needs the network, large inputs or a cluster) does not
//!   run; each `codemine ...` command in it, and in every runnable block too, is checked
//!   against the real command line with the hidden `codemine check-args`, which parses it as
//!   `codemine` would (flags, values, conflicts) without running it. Shell variables stand
//!   for `1`.
//!
//! `scripts/mine-sample.sh` uses `$CODEMINE_BIN`, set here, instead of installing and building.

use std::path::{Path, PathBuf};
use std::process::Command;

use harness::*;

/// A fenced block of a Markdown file.
#[derive(Debug)]
struct Block {
    file: String,
    /// 1-based line of the opening fence.
    line: usize,
    info: String,
    text: String,
    /// The `text` block right after it, if any.
    expected: Option<String>,
}

impl Block {
    fn is_shell(&self) -> bool {
        matches!(
            self.info.split_whitespace().next(),
            Some("sh" | "bash" | "shell")
        )
    }

    fn runs(&self) -> bool {
        self.is_shell() && !self.info.split_whitespace().any(|w| w == "no-run")
    }

    fn at(&self) -> String {
        format!("{}:{}", self.file, self.line)
    }
}

/// The fenced blocks of `path`, each with the `text` block that directly follows it.
fn blocks(path: &Path, name: &str) -> Vec<Block> {
    let text = std::fs::read_to_string(path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let mut out: Vec<Block> = Vec::new();
    let mut i = 0;
    let mut last_end: Option<usize> = None;
    while i < lines.len() {
        let Some(info) = lines[i].strip_prefix("```") else {
            i += 1;
            continue;
        };
        let start = i;
        let mut j = i + 1;
        while j < lines.len() && !lines[j].starts_with("```") {
            j += 1;
        }
        assert!(j < lines.len(), "{name}:{}: unclosed fence", start + 1);
        let body = lines[start + 1..j].join("\n");
        let info = info.trim().to_string();
        let follows =
            last_end.is_some_and(|e| lines[e + 1..start].iter().all(|l| l.trim().is_empty()));
        if info == "text" && follows {
            if let Some(prev) = out.last_mut() {
                if prev.runs() && prev.expected.is_none() {
                    prev.expected = Some(body);
                    last_end = Some(j);
                    i = j + 1;
                    continue;
                }
            }
        }
        out.push(Block {
            file: name.to_string(),
            line: start + 1,
            info,
            text: body,
            expected: None,
        });
        last_end = Some(j);
        i = j + 1;
    }
    out
}

/// README.md, then docs/*.md by name.
fn all_blocks() -> Vec<Block> {
    let root = workspace_root();
    let mut files = vec![(root.join("README.md"), "README.md".to_string())];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    for d in docs {
        let name = format!("docs/{}", d.file_name().unwrap().to_string_lossy());
        files.push((d, name));
    }
    files.iter().flat_map(|(p, n)| blocks(p, n)).collect()
}

/// Whether `line` matches `pattern`, where `[..]` stands for any text.
fn line_matches(pattern: &str, line: &str) -> bool {
    let parts: Vec<&str> = pattern.split("[..]").collect();
    if parts.len() == 1 {
        return pattern == line;
    }
    let Some(mut rest) = line.strip_prefix(parts[0]) else {
        return false;
    };
    let last = parts.len() - 1;
    for (k, part) in parts.iter().enumerate().skip(1) {
        if k == last {
            return rest.ends_with(part);
        }
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    true
}

/// Whether `actual` matches `expected`, line by line: `...` skips any lines, `[..]` any
/// text in a line. Returns the first expected line that did not match.
fn output_matches(expected: &str, actual: &str) -> Result<(), String> {
    let actual: Vec<&str> = actual.lines().map(str::trim_end).collect();
    let mut a = 0;
    let mut skipping = false;
    for e in expected.lines().map(str::trim_end) {
        if e == "..." {
            skipping = true;
            continue;
        }
        if skipping {
            match actual[a..].iter().position(|l| line_matches(e, l)) {
                Some(k) => a += k + 1,
                None => return Err(e.to_string()),
            }
            skipping = false;
        } else if a < actual.len() && line_matches(e, actual[a]) {
            a += 1;
        } else {
            return Err(e.to_string());
        }
    }
    if !skipping && a < actual.len() {
        return Err(format!("(end of output; more follows: {:?})", actual[a]));
    }
    Ok(())
}

#[test]
fn output_patterns() {
    assert!(line_matches(
        "mined [..]@[..]: 3 files",
        "mined a/b@123: 3 files"
    ));
    assert!(!line_matches("mined [..]: 3 files", "mined a: 4 files"));
    assert!(line_matches("[..]", "anything"));
    assert!(output_matches("a\n...\nd", "a\nb\nc\nd").is_ok());
    assert!(output_matches("a\nd", "a\nb\nd").is_err());
    assert!(output_matches("a\n...", "a\nb").is_ok());
    assert!(output_matches("a", "a\nb").is_err());
}

/// Splits shell text into commands (at newlines, `;`, `&&`, `||`, `|`) of words: quotes
/// and backslashes as the shell reads them, `#` comments and line continuations dropped,
/// `$VAR` and `${VAR}` read as `1`. Quoted words are also returned in `quoted`, as the
/// shell text they hold (`sbatch --wrap 'codemine mine ...'`).
fn commands(text: &str, quoted: &mut Vec<String>) -> Vec<Vec<String>> {
    let mut cmds = Vec::new();
    let mut cmd: Vec<String> = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = text.chars().peekable();
    let end_word = |cmd: &mut Vec<String>, word: &mut String, in_word: &mut bool| {
        if *in_word {
            cmd.push(std::mem::take(word));
            *in_word = false;
        }
    };
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some('\n') | None => {}
                Some(n) => {
                    word.push(n);
                    in_word = true;
                }
            },
            '\'' | '"' => {
                let mut q = String::new();
                for n in chars.by_ref() {
                    if n == c {
                        break;
                    }
                    q.push(n);
                }
                // Double quotes expand variables; single quotes do not (but a quoted
                // command line is checked as the shell that runs it later would read it).
                let q = if c == '"' { expand(&q) } else { q };
                if q.contains("codemine") {
                    quoted.push(q.clone());
                }
                word.push_str(&q);
                in_word = true;
            }
            '$' => {
                let braced = chars.peek() == Some(&'{');
                if braced {
                    chars.next();
                }
                while let Some(&n) = chars.peek() {
                    if n.is_ascii_alphanumeric() || n == '_' {
                        chars.next();
                    } else {
                        break;
                    }
                }
                if braced {
                    chars.next();
                }
                word.push('1');
                in_word = true;
            }
            '#' if !in_word => {
                while chars.peek().is_some_and(|&n| n != '\n') {
                    chars.next();
                }
            }
            ' ' | '\t' => end_word(&mut cmd, &mut word, &mut in_word),
            '\n' | ';' | '&' | '|' => {
                end_word(&mut cmd, &mut word, &mut in_word);
                if !cmd.is_empty() {
                    cmds.push(std::mem::take(&mut cmd));
                }
                if (c == '&' || c == '|') && chars.peek() == Some(&c) {
                    chars.next();
                }
            }
            c => {
                word.push(c);
                in_word = true;
            }
        }
    }
    end_word(&mut cmd, &mut word, &mut in_word);
    if !cmd.is_empty() {
        cmds.push(cmd);
    }
    cmds
}

/// `$VAR` and `${VAR}` in `s` as `1`.
fn expand(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '$' {
            out.push(c);
            continue;
        }
        let braced = chars.peek() == Some(&'{');
        if braced {
            chars.next();
        }
        while chars
            .peek()
            .is_some_and(|n| n.is_ascii_alphanumeric() || *n == '_')
        {
            chars.next();
        }
        if braced {
            chars.next();
        }
        out.push('1');
    }
    out
}

/// The `codemine` commands of shell text (those inside quoted words too), without the
/// program name.
fn codemine_commands(text: &str) -> Vec<Vec<String>> {
    let mut quoted = Vec::new();
    let mut out: Vec<Vec<String>> = commands(text, &mut quoted)
        .into_iter()
        .filter(|c| c[0] == "codemine" || c[0].ends_with("/codemine"))
        .map(|c| c[1..].to_vec())
        .collect();
    for q in quoted {
        out.extend(codemine_commands(&q));
    }
    out
}

#[test]
fn shell_words() {
    let mut q = Vec::new();
    let c = commands(
        "codemine mine --repo 'a b' \\\n  --out \"$OUT\" # note\nx && codemine report o",
        &mut q,
    );
    assert_eq!(
        c,
        vec![
            vec!["codemine", "mine", "--repo", "a b", "--out", "1"],
            vec!["x"],
            vec!["codemine", "report", "o"],
        ]
    );
    let c = codemine_commands("sbatch --wrap 'codemine mine --rank $K --world-size ${N}'");
    assert_eq!(c, vec![vec!["mine", "--rank", "1", "--world-size", "1"]]);
}

/// Every `codemine` command in every shell block of README.md and docs/ parses as the real
/// command line does (runnable blocks too: their commands also run below).
#[test]
fn every_documented_codemine_command_parses() {
    let blocks = all_blocks();
    let mut checked = 0;
    let mut bad = Vec::new();
    for b in blocks.iter().filter(|b| b.is_shell()) {
        for args in codemine_commands(&b.text) {
            let mut line = vec!["check-args".to_string(), "--".to_string()];
            line.extend(args.iter().cloned());
            let o = Command::new(binary()).args(&line).output().unwrap();
            checked += 1;
            if !o.status.success() {
                bad.push(format!(
                    "{}: codemine {}\n{}",
                    b.at(),
                    args.join(" "),
                    String::from_utf8_lossy(&o.stderr)
                ));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    // The tour and the manual show many commands: an empty count means the parser broke.
    assert!(checked >= 20, "only {checked} codemine commands found");
    // Shell blocks have an info string: an unmarked block is neither run nor checked.
    for b in blocks.iter().filter(|b| b.info.is_empty()) {
        let shell = b.text.lines().any(|l| {
            let l = l.trim_start();
            l.starts_with("codemine ") || l.starts_with("target/release/codemine ")
        });
        assert!(
            !shell,
            "{}: a shell block without `sh` or `sh no-run`",
            b.at()
        );
    }
}

/// The runnable blocks, README.md's Quick start first, in order in a fresh clone of this
/// repository (its committed HEAD, which holds the sample project), each checked against
/// the output shown after it.
#[test]
fn the_quick_start_and_every_runnable_block_run_on_a_fresh_clone() {
    let tmp = tempfile::tempdir().unwrap();
    let clone = tmp.path().join("codemine");
    let o = Command::new("git")
        .args(["clone", "--quiet"])
        .arg(workspace_root())
        .arg(&clone)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "git clone: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    // The scripts as they are in the work tree (the clone has the committed ones).
    for e in std::fs::read_dir(workspace_root().join("scripts"))
        .unwrap()
        .flatten()
    {
        std::fs::copy(e.path(), clone.join("scripts").join(e.file_name())).unwrap();
    }
    // `codemine` on the PATH and `target/release/codemine`: the binary under test; a
    // `cargo` that fails, so that nothing here builds.
    let bin_dir = tmp.path().join("bin");
    std::fs::create_dir_all(&bin_dir).unwrap();
    std::fs::write(
        bin_dir.join("cargo"),
        "#!/bin/sh\necho 'the documentation tests never build: cargo' \"$@\" >&2\nexit 97\n",
    )
    .unwrap();
    std::fs::set_permissions(
        bin_dir.join("cargo"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    std::fs::create_dir_all(clone.join("target/release")).unwrap();
    let bin = binary();
    std::os::unix::fs::symlink(&bin, bin_dir.join("codemine")).unwrap();
    std::os::unix::fs::symlink(&bin, clone.join("target/release/codemine")).unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );

    let blocks = all_blocks();
    let runnable: Vec<&Block> = blocks.iter().filter(|b| b.runs()).collect();
    let quick_start = runnable.iter().filter(|b| b.file == "README.md").count();
    assert!(
        quick_start >= 2,
        "README.md: the Quick start has {quick_start} runnable blocks"
    );
    for b in runnable {
        let o = Command::new("bash")
            .arg("-c")
            .arg(format!("set -eo pipefail\n{{\n{}\n}} 2>&1", b.text))
            .current_dir(&clone)
            .env("PATH", &path)
            .env("CODEMINE_BIN", &bin)
            .env("CODEMINE_CACHE", tmp.path().join("cache"))
            .env("CI", "1")
            .output()
            .unwrap();
        let shown = String::from_utf8_lossy(&o.stdout).into_owned();
        assert!(
            o.status.success(),
            "{} failed ({:?}):\n{}\n--- output\n{shown}{}",
            b.at(),
            o.status.code(),
            b.text,
            String::from_utf8_lossy(&o.stderr)
        );
        if let Some(expected) = &b.expected {
            if let Err(line) = output_matches(expected, &shown) {
                panic!(
                    "{}: the output shown after the block does not match at\n  {line}\n--- output\n{shown}",
                    b.at()
                );
            }
        }
    }
}
