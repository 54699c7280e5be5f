//! Last-commit dates against the `git` command line: fixture histories with edits,
//! whitespace-only changes, renames, moves between files, branches and merges (an evil
//! merge too), a function inserted between two others, clock skew, and a shallow clone.
//! The reference is `git blame --incremental` (tests/harness/compare_blame.py).

use std::path::Path;

use harness::{find_row, git, mine_into, python_json, shard_rows, stats, RepoBuilder, EPOCH};
use serde_json::Value;

const DAY: i64 = 86_400;

fn c_file(alpha: &str, beta: &str, gamma: &str, delta: bool) -> String {
    let mut s = format!(
        "#include <stdio.h>\n\n/* Alpha adds. */\nint alpha(int a, int b)\n{{\n    int r = a + b;\n{alpha}    return r;\n}}\n\n\
         /* Beta doubles. */\nint beta(int x)\n{{\n    int y = x * 2;\n{beta}    return y;\n}}\n\n\
         int gamma(int z)\n{{\n    if (z > 0) {{\n{gamma}    }}\n    return z;\n}}\n"
    );
    if delta {
        s.push_str("\nstatic int delta(int q)\n{\n    q += 1;\n    q *= 3;\n    return q;\n}\n");
    }
    s
}

fn py_file(parse_extra: &str, render_extra: &str) -> String {
    format!(
        "import json\n\n\ndef parse(text):\n    \"\"\"Parse text into a dict.\"\"\"\n    data = json.loads(text)\n{parse_extra}    return data\n\n\n\
         def render(data):\n    \"\"\"Render a dict as text.\"\"\"\n    out = json.dumps(data)\n{render_extra}    return out\n\n\n\
         class Helper:\n    def method(self, x):\n        y = x + 1\n        return y\n"
    )
}

/// Two functions, and a third to insert between them: git's indent heuristic places the
/// inserted hunk so that `first`'s closing brace counts as changed (found by comparing
/// `git diff --indent-heuristic` with `--no-indent-heuristic` on generated files).
const SLIDER_BEFORE: &str =
    "int first(int x)\n{\n\n\n\n}\n\nint last(int x)\n{\n    /* note */\n}\n";
const SLIDER_AFTER: &str = "int first(int x)\n{\n\n\n\n}\n\nint middle(int x)\n{\n    y = x;\n}\n\nint last(int x)\n{\n    /* note */\n}\n";

/// Builds the history.
fn build_history(path: &Path) -> RepoBuilder {
    let mut r = RepoBuilder::init(path);
    r.write("src/core.c", c_file("", "", "        z = -z;\n", true))
        .write("src/slider.c", SLIDER_BEFORE)
        .write("pkg/util.py", py_file("", ""));
    r.commit("c1: initial");
    r.write(
        "src/core.c",
        c_file("", "    y += 1;\n", "        z = -z;\n", true),
    );
    r.commit("c2: edit beta");
    // Whitespace only: git blame counts it as a change.
    r.write(
        "src/core.c",
        c_file("", "    y += 1;\n", "          z = -z;\n", true),
    );
    r.commit("c3: reindent gamma");
    r.rename("src/core.c", "lib/core.c");
    r.commit("c4: rename core.c");
    // delta moves to another file: without -M/-C, blame stops at the move.
    r.write("lib/core.c", c_file("", "    y += 1;\n", "          z = -z;\n", false))
        .write(
            "lib/extra.c",
            "/* Moved here. */\nstatic int delta(int q)\n{\n    q += 1;\n    q *= 3;\n    return q;\n}\n",
        );
    r.commit("c5: move delta");

    r.checkout("feature");
    r.write(
        "lib/core.c",
        c_file(
            "    r *= 1;\n",
            "    y += 1;\n",
            "          z = -z;\n",
            false,
        ),
    );
    r.commit("f1: edit alpha on a branch");
    r.checkout("main");
    r.write("pkg/util.py", py_file("", "    out = out.strip()\n"));
    r.commit("c6: edit render on main");
    // The merge takes both sides, and its resolution changes a line of parse (evil merge).
    r.write(
        "lib/core.c",
        c_file(
            "    r *= 1;\n",
            "    y += 1;\n",
            "          z = -z;\n",
            false,
        ),
    )
    .write(
        "pkg/util.py",
        py_file("    data = dict(data)\n", "    out = out.strip()\n"),
    );
    r.merge_commit("feature", "c7: merge feature");

    // A function inserted between two others: where the hunk's ends fall (the diff's
    // sliders and the indent heuristic) decides which function's closing brace is new.
    let core = c_file(
        "    r *= 1;\n",
        "    y += 1;\n",
        "          z = -z;\n",
        false,
    );
    let core = core.replacen(
        "/* Beta doubles. */",
        "/* Epsilon negates. */\nint epsilon(int e)\n{\n    int y = -e;\n    return y;\n}\n\n/* Beta doubles. */",
        1,
    );
    r.write("lib/core.c", &core)
        .write("src/slider.c", SLIDER_AFTER);
    r.commit("c8: insert epsilon and middle");
    // A rename with an edit (still over git's 50% similarity).
    r.remove("pkg/util.py").write(
        "pkg/utils.py",
        py_file("    data = dict(data)\n", "    out = out.strip()\n")
            .replace("y = x + 1", "y = x + 2"),
    );
    r.commit("c9: rename util.py with an edit");
    // Clock skew: a commit dated before its parent.
    let next = EPOCH + 40 * DAY;
    r.set_time(EPOCH + 2 * DAY);
    r.write(
        "lib/core.c",
        core.replace("int r = a + b;", "int r = b + a;"),
    );
    r.commit("c10: skewed commit edits alpha");
    r.set_time(next);
    r.write(
        "lib/extra.c",
        "/* Moved here. */\nstatic int delta(int q)\n{\n    q += 1;\n    q *= 4;\n    return q;\n}\n",
    );
    r.commit("c11: edit delta");
    r
}

fn compare(out: &Path, repo: &Path) -> Value {
    python_json(
        include_str!("../harness/compare_blame.py"),
        &[
            out.to_str().unwrap(),
            repo.to_str().unwrap(),
            "--show",
            "20",
        ],
    )
}

#[test]
fn dates_match_git_blame_on_a_history_with_renames_moves_merges_and_skew() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("hist");
    build_history(&repo);
    let out = mine_into(&repo, tmp.path(), &[]);

    let cmp = compare(&out, &repo);
    assert_eq!(cmp["mismatches"], 0, "{cmp:#}");
    // alpha, epsilon, beta, gamma, delta, first, middle, last, parse, render, Helper.method
    assert_eq!(cmp["functions"], 11, "{cmp:#}");

    // What the history was built to exercise did happen.
    let s = stats(&out);
    let h = &s["stages"]["enrich"]["history"];
    assert_eq!(h["dated"], 11, "{h:#}");
    assert!(h["rename_searches"].as_u64().unwrap() > 0, "{h:#}");
    assert!(h["skewed_commits"].as_u64().unwrap() > 0, "{h:#}");
    assert_eq!(h["bounded"], 0);

    // Facts that follow from blame semantics, checked against the commit dates that
    // `git log` reports (independently of the blame comparison above).
    let date_of = |subject: &str| -> i64 {
        git(&repo, &["log", "--all", "--format=%ct", "--grep", subject])
            .parse()
            .unwrap()
    };
    let graph = harness::read_graph(&out);
    let nodes = graph["nodes"].as_array().unwrap().clone();
    let ts = |n: &Value| -> i64 {
        let iso = n["last_commit"].as_str().unwrap();
        python_json(
            "import sys, json, datetime\nprint(json.dumps(int(datetime.datetime.fromisoformat(sys.argv[1]).timestamp())))",
            &[iso],
        )
        .as_i64()
        .unwrap()
    };
    // The move between files dates delta from the move, then its own later edit.
    assert_eq!(
        ts(find_row(&nodes, "qualified_name", "delta")),
        date_of("c11:")
    );
    // The evil merge's own line dates parse.
    assert_eq!(
        ts(find_row(&nodes, "qualified_name", "parse")),
        date_of("c7:")
    );
    // render's edit on main survives the merge and the rename with an edit.
    assert_eq!(
        ts(find_row(&nodes, "qualified_name", "render")),
        date_of("c6:")
    );
    // The method edited while being renamed.
    assert_eq!(
        ts(find_row(&nodes, "qualified_name", "Helper.method")),
        date_of("c9:")
    );
    // The skewed commit is older than its parent: alpha's latest line is the branch edit.
    assert_eq!(
        ts(find_row(&nodes, "qualified_name", "alpha")),
        date_of("f1:")
    );
    // The indent heuristic's placement of the inserted function.
    assert_eq!(
        ts(find_row(&nodes, "qualified_name", "first")),
        date_of("c8:")
    );
    assert_eq!(
        ts(find_row(&nodes, "qualified_name", "last")),
        date_of("c1:")
    );
    // gamma's whitespace-only change counts.
    assert_eq!(
        ts(find_row(&nodes, "qualified_name", "gamma")),
        date_of("c3:")
    );
}

#[test]
fn shallow_clone_dates_are_marked_bounded() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("hist");
    build_history(&repo);
    let shallow = tmp.path().join("shallow");
    let url = format!("file://{}", repo.display());
    git(
        tmp.path(),
        &[
            "clone",
            "-q",
            "--depth",
            "3",
            &url,
            shallow.to_str().unwrap(),
        ],
    );
    assert_eq!(
        git(&shallow, &["rev-parse", "--is-shallow-repository"]),
        "true"
    );
    let out = mine_into(&shallow, tmp.path(), &[]);

    let cmp = compare(&out, &shallow);
    assert_eq!(cmp["mismatches"], 0, "{cmp:#}");
    let s = stats(&out);
    let h = &s["stages"]["enrich"]["history"];
    assert_eq!(h["shallow"], true);
    let bounded = h["bounded"].as_u64().unwrap();
    assert!(bounded > 0 && bounded < 11, "{h:#}");
    // A shallow clone neither reads nor writes the history cache (its bounds depend on
    // the depth): a second run walks again and writes the same.
    let note = s["repositories"][0]["history"]["cache"]["notes"].to_string();
    assert!(note.contains("shallow clone"), "{note}");
    assert!(!tmp.path().join("cache").join("history").exists());

    // YABLoCo has no bounded column: a bound is not written as a date there, and every
    // exact date is written dd.mm.YYYY (UTC), as Python's strftime gives it.
    let graph = harness::read_graph(&out);
    let rows = shard_rows(&out.join("yabloco"));
    let mut checked = 0;
    for n in graph["nodes"].as_array().unwrap() {
        let row = rows.iter().find(|r| r["meta"]["id"] == n["id"]).unwrap();
        let got = &row["meta"]["last_commit"];
        if n["last_commit_bounded"] == true {
            assert!(got.is_null(), "{row:#}");
        } else {
            let want = python_json(
                "import sys, json, datetime\nprint(json.dumps(datetime.datetime.fromisoformat(sys.argv[1]).astimezone(datetime.timezone.utc).strftime('%d.%m.%Y')))",
                &[n["last_commit"].as_str().unwrap()],
            );
            assert_eq!(got, &want);
            checked += 1;
        }
    }
    assert!(checked > 0);
}

#[test]
fn no_history_leaves_dates_null() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("hist");
    build_history(&repo);
    let out = mine_into(&repo, tmp.path(), &["--no-history"]);
    let graph = harness::read_graph(&out);
    for n in graph["nodes"].as_array().unwrap() {
        assert!(
            n["last_commit"].is_null() && n["last_commit_sha"].is_null(),
            "{n:#}"
        );
    }
    assert!(stats(&out)["repositories"][0].get("history").is_none());
}

#[test]
fn a_date_tie_picks_the_same_commit_whatever_the_thread_count() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("tie");
    let mut r = RepoBuilder::init(&repo);
    let body = |a: &str, b: &str| {
        format!(
            "int tied(int x)\n{{\n    x += {a};\n    x *= 2;\n    x -= {b};\n    return x;\n}}\n"
        )
    };
    r.write("t.c", body("1", "1"));
    for i in 0..6 {
        r.write(
            &format!("other{i}.c"),
            format!("int f{i}(void)\n{{\n    return {i};\n}}\n"),
        );
    }
    r.commit("base");
    // Two branches edit different lines of `tied` at the same second.
    r.checkout("left");
    r.set_time(EPOCH + 10 * DAY);
    r.write("t.c", body("7", "1"));
    r.commit("left edit");
    r.checkout("main");
    r.set_time(EPOCH + 10 * DAY);
    r.write("t.c", body("1", "9"));
    r.commit("right edit");
    r.write("t.c", body("7", "9"));
    r.merge_commit("left", "merge");
    let shas = |threads: &str| -> Vec<(String, String)> {
        let out = mine_into(&repo, &tmp.path().join(threads), &["-j", threads]);
        let graph = harness::read_graph(&out);
        let mut v: Vec<(String, String)> = graph["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| {
                (
                    n["qualified_name"].as_str().unwrap().to_string(),
                    n["last_commit_sha"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        v.sort();
        v
    };
    let one = shas("1");
    assert_eq!(one, shas("2"));
    assert_eq!(one, shas("4"));
    // And both commits of the tie are dates git agrees with.
    let out = tmp.path().join("1").join("out");
    let cmp = compare(&out, &repo);
    assert_eq!(cmp["mismatches"], 0, "{cmp:#}");
}

#[test]
fn the_common_tail_is_trimmed_before_diffing_as_git_does() {
    // git cuts the common end of both files in 1 KiB blocks before a context-free diff
    // (xdiff-interface.c `trim_common_tail`); with this 1,000-byte tail that stops the
    // inserted function's hunk from sliding down, so git blames `a`'s braces and body on
    // the insertion (found by running `git diff -U0` over tail lengths).
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("tail");
    let mut r = RepoBuilder::init(&repo);
    let head = "int a(void)\n{\n    x(1);\n    g(2);\n}\n\n";
    let tail: String = (0..30)
        .map(|i| format!("int t{i}(void)\n{{\n    return {i};\n}}\n\n"))
        .collect();
    assert_eq!(tail.len(), 1000);
    r.write("tail.c", format!("{head}{tail}"));
    r.commit("c1: a and the tail");
    r.write(
        "tail.c",
        format!("{head}int b(void)\n{{\n    x(1);\n    g(2);\n}}\n\n{tail}"),
    );
    r.commit("c2: insert b");
    let out = mine_into(&repo, tmp.path(), &[]);
    let cmp = compare(&out, &repo);
    assert_eq!(cmp["mismatches"], 0, "{cmp:#}");
    let graph = harness::read_graph(&out);
    let nodes = graph["nodes"].as_array().unwrap();
    let c2 = git(&repo, &["rev-parse", "HEAD"]);
    assert_eq!(
        find_row(nodes, "qualified_name", "a")["last_commit_sha"],
        c2.as_str()
    );
    assert_ne!(
        find_row(nodes, "qualified_name", "t0")["last_commit_sha"],
        c2.as_str()
    );
}

/// stats.json's history counters count what one walk over all files would do (distinct
/// commits visited, tree diffs, blob diffs, rename searches, skewed commits), whatever the
/// number of groups the files were walked in: the same input gives the same stats, timings
/// aside, with any `-j`.
#[test]
fn history_counters_do_not_depend_on_the_thread_count() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    build_history(&repo);
    let counters = |threads: &str| -> Vec<Value> {
        let out = mine_into(&repo, &tmp.path().join(threads), &["-j", threads]);
        let s = stats(&out);
        let strip = |v: &Value| {
            let mut v = v.clone();
            v.as_object_mut().unwrap().remove("seconds");
            v
        };
        let mut all = vec![strip(&s["stages"]["enrich"]["history"])];
        for r in s["repositories"].as_array().unwrap() {
            all.push(strip(&r["history"]));
        }
        all
    };
    let one = counters("1");
    assert!(one[0]["commits_visited"].as_u64().unwrap() > 1, "{one:?}");
    assert_eq!(one, counters("3"));
    assert_eq!(one, counters("8"));
}

/// Every output file of `out`, by path relative to it, except stats.json (timings).
fn output_files(out: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    let mut files = std::collections::BTreeMap::new();
    let mut stack = vec![out.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(out).unwrap().to_string_lossy().into_owned();
                // stats.json holds timings, the lock file its writer's process id.
                if rel != "stats.json" && rel != ".codemine.lock" {
                    files.insert(rel, std::fs::read(&p).unwrap());
                }
            }
        }
    }
    files
}

fn assert_same_outputs(got: &Path, want: &Path) {
    let (g, w) = (output_files(got), output_files(want));
    assert_eq!(
        g.keys().collect::<Vec<_>>(),
        w.keys().collect::<Vec<_>>(),
        "{} and {} hold different files",
        got.display(),
        want.display()
    );
    for (name, bytes) in &g {
        assert!(bytes == &w[name], "{name} differs from the full run's");
    }
}

fn history_cache_stats(out: &Path) -> Value {
    stats(out)["repositories"][0]["history"]["cache"].clone()
}

/// The history cache (issue 40): a run at commit B that starts from the cache of an earlier
/// run at A reuses the dates of the files no first-parent commit from B down to A touched,
/// walks the rest, and writes exactly what a full run at B writes. Between A and B: an edit,
/// an added and a deleted file, a rename, a change undone by the next commit (same blob,
/// still walked again), and a merge of a branch that edited a file; one file stays untouched.
#[test]
fn a_run_from_the_history_cache_writes_what_a_full_run_writes() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("hist");
    let mut r = build_history(&repo);
    let keep = "/* Keep stays. */\nint keep(int k)\n{\n    return k + 1;\n}\n\nint keep2(int k)\n{\n    return k - 1;\n}\n";
    let side = "int side(int s)\n{\n    return s * 2;\n}\n";
    r.write("src/keep.c", keep).write("src/side.c", side);
    r.commit("c12: keep and side");
    let a = git(&repo, &["rev-parse", "HEAD"]);
    let cache = tmp.path().join("cache");
    let mine = |out: &str, cache: &Path, extra: &[&str]| -> std::path::PathBuf {
        let out = tmp.path().join(out);
        let mut args = vec![
            "mine",
            "--repo",
            repo.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        harness::assert_success(&harness::codemine(&args, cache));
        out
    };
    let at_a = mine("at-a", &cache, &[]);
    let first = history_cache_stats(&at_a);
    assert!(first["base"].is_null(), "{first:#}");
    assert_eq!(first["reused_functions"], 0, "{first:#}");

    r.set_time(EPOCH + 50 * DAY);
    let core = std::fs::read_to_string(repo.join("lib/core.c")).unwrap();
    r.write(
        "lib/core.c",
        core.replace("int r = b + a;", "int r = a + b + 0;"),
    );
    r.commit("d1: edit alpha");
    r.write("src/new.c", "int fresh(int f)\n{\n    return f;\n}\n")
        .remove("src/slider.c");
    r.commit("d2: add new.c, delete slider.c");
    r.rename("lib/extra.c", "lib/more.c");
    r.commit("d3: rename extra.c");
    let utils = std::fs::read_to_string(repo.join("pkg/utils.py")).unwrap();
    r.write(
        "pkg/utils.py",
        utils.replace("out = json.dumps(data)", "out = json.dumps(data, indent=1)"),
    );
    r.commit("d4: edit render");
    r.write("pkg/utils.py", &utils);
    r.commit("d5: undo d4");
    r.checkout("topic");
    r.write("src/side.c", side.replace("s * 2", "s * 3"));
    r.commit("t1: edit side on a branch");
    r.checkout("main");
    r.write("src/side.c", side.replace("s * 2", "s * 3"));
    r.merge_commit("topic", "d6: merge topic");
    let b = git(&repo, &["rev-parse", "HEAD"]);

    let incremental = mine("at-b", &cache, &[]);
    let full = mine(
        "at-b-full",
        &tmp.path().join("other-cache"),
        &["--no-history-cache"],
    );
    assert_same_outputs(&incremental, &full);
    // And the full run agrees with git blame, so both do.
    let cmp = compare(&full, &repo);
    assert_eq!(cmp["mismatches"], 0, "{cmp:#}");
    assert!(stats(&full)["repositories"][0]["history"]["cache"].is_null());

    let c = history_cache_stats(&incremental);
    assert_eq!(c["base"], a.as_str(), "{c:#}");
    assert_eq!(c["commits_since_base"], 6, "{c:#}");
    // Only src/keep.c was untouched: its two functions come from the cache.
    assert_eq!(c["reused_files"], 1, "{c:#}");
    assert_eq!(c["reused_functions"], 2, "{c:#}");
    // In the changed files, the functions whose lines all reach A unchanged are dated at A
    // from the cache, and the walk stops there for them: beta, gamma and epsilon (core.c,
    // where alpha changed), parse and Helper.method (utils.py, where render changed and
    // changed back), delta (renamed with more.c). Not fresh, side, nor slider's (deleted).
    assert_eq!(c["dated_at_base"], 6, "{c:#}");
    let h = &stats(&incremental)["repositories"][0]["history"];
    assert_eq!(
        h["walked_functions"].as_u64().unwrap() + 2,
        h["functions"].as_u64().unwrap(),
        "{h:#}"
    );

    // Again at B: everything comes from B's own cache, nothing is walked.
    let again = mine("at-b-again", &cache, &[]);
    assert_same_outputs(&again, &full);
    let c = history_cache_stats(&again);
    assert_eq!(c["base"], b.as_str(), "{c:#}");
    assert_eq!(c["commits_since_base"], 0, "{c:#}");
    let h = &stats(&again)["repositories"][0]["history"];
    assert_eq!(h["walked_functions"], 0, "{h:#}");
    assert_eq!(h["cache"]["reused_functions"], h["functions"], "{h:#}");
}

/// A cached commit that is not on the mined commit's first-parent line (here the tip of a
/// branch merged as a second parent) is never used, and one written by another codemine
/// version is ignored: both with a note in stats.json, and the full walk's output.
#[test]
fn the_history_cache_is_ignored_off_the_first_parent_line_and_from_another_version() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("hist");
    let mut r = build_history(&repo);
    r.checkout("topic");
    r.write("src/side.c", "int side(int s)\n{\n    return s;\n}\n");
    let topic = r.commit("t1: side on a branch");
    r.checkout("main");
    r.write("src/side.c", "int side(int s)\n{\n    return s;\n}\n");
    r.merge_commit("topic", "m: merge topic");
    let cache = tmp.path().join("cache");
    let mine = |out: &str, cache: &Path, rev: &str, extra: &[&str]| -> std::path::PathBuf {
        let out = tmp.path().join(out);
        let spec = format!("{}{rev}", repo.display());
        let mut args = vec![
            "mine",
            "--repo",
            spec.as_str(),
            "--out",
            out.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        harness::assert_success(&harness::codemine(&args, cache));
        out
    };
    mine("at-topic", &cache, &format!("@{topic}"), &[]);
    let at_main = mine("at-main", &cache, "", &[]);
    let full = mine("full", &tmp.path().join("c2"), "", &["--no-history-cache"]);
    assert_same_outputs(&at_main, &full);
    let c = history_cache_stats(&at_main);
    assert!(c["base"].is_null(), "{c:#}");
    let notes = c["notes"].to_string();
    assert!(notes.contains("first-parent line"), "{c:#}");

    // A cache file from another version: ignored, named in the note.
    let dir = std::fs::read_dir(cache.join("history"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let head = git(&repo, &["rev-parse", "HEAD"]);
    let file = dir.join(format!("{head}.json"));
    let text = std::fs::read_to_string(&file).unwrap();
    let mut v: Value = serde_json::from_str(&text).unwrap();
    v["codemine"] = "0.0.1".into();
    std::fs::write(&file, v.to_string()).unwrap();
    let other = mine("other-version", &cache, "", &[]);
    assert_same_outputs(&other, &full);
    let c = history_cache_stats(&other);
    assert!(c["base"].is_null(), "{c:#}");
    let notes = c["notes"].to_string();
    assert!(notes.contains("written by codemine 0.0.1"), "{c:#}");

    // And a cache file that is not JSON at all.
    std::fs::write(&file, "not json").unwrap();
    let broken = mine("broken", &cache, "", &[]);
    assert_same_outputs(&broken, &full);
    assert!(history_cache_stats(&broken)["notes"]
        .to_string()
        .contains("ignored"));
}
