//! End to end: `mine --emit repo-completion` writes repository-level completion examples.
//! The kinds and gold contexts of hand-written multi-file projects are written out below
//! from the code; the retrieval scores are checked against `rank_bm25`'s `BM25Okapi` and a
//! Jaccard of Python token sets over chunks rebuilt from the snapshot table
//! (`harness/retrieval_reference.py`).

use std::collections::BTreeMap;

use harness::*;
use serde_json::Value;

const UTIL_PY: &str = "def helper(x):\n    return x + 1\n\n\ndef other(y):\n    return y * 2\n\n\nclass Config:\n    debug = False\n\n\ndef wide(\n    a,\n    b,\n):\n    return a\n\n\nTIMEOUT = 30\n";

const MAIN_PY: &str = r#"import os
from pkg.util import helper, other, Config, TIMEOUT
import requests


def run(a, obj):
    b = a + 1
    c = helper(b)
    d = helper(c)
    e = os.path.join("x", "y")
    f = local(d)
    g = other(e) + helper(f)
    obj.frob(g)
    h = requests.get(g)
    k = Config()
    if isinstance(k, Config):
        return list(map(helper, [h]))
    t = TIMEOUT + 1
    return h


def local(z):
    return z
"#;

const UTIL_C: &str = "#include \"util.h\"\n\nint twice(int x) {\n    return x * 2;\n}\n";
const UTIL_H: &str = "int twice(int x);\n";
const MAIN_C: &str = r#"#include <stdio.h>
#include "util.h"

static int inc(int x) {
    return x + 1;
}

int main(void) {
    int a = inc(1);
    int b = twice(a);
    printf("%d\n", b);
    return twice(b);
}
"#;

const HELPER_JAVA: &str = "package util;\n\npublic class Helper {\n    public static int twice(int x) {\n        return x * 2;\n    }\n}\n";
const POINT_JAVA: &str = "package util;\n\npublic class Point {\n    public int x;\n}\n";
const MAIN_JAVA: &str = r#"package app;

import util.Helper;
import util.Point;

public class Main {
    public int run(int a) {
        int b = Helper.twice(a);
        Point p = new Point();
        System.out.println(b);
        return inc(b) + Helper.twice(p.x);
    }

    private int inc(int v) {
        return v + 1;
    }
}
"#;

const UTIL_GO: &str = "package util\n\n// Twice doubles.\nfunc Twice(x int) int {\n\treturn x * 2\n}\n\ntype Point struct {\n\tX int\n}\n\nconst Scale = 60\n";
const MAIN_GO: &str = r#"package main

import (
	"fmt"
	"example.com/proj/util"
)

func run(a int) int {
	b := util.Twice(a)
	p := util.Point{X: b}
	fmt.Println(b)
	f := util.Twice
	s := util.Scale * b
	return f(p.X) + s
}
"#;

const UTIL_JS: &str = "export function twice(x) {\n  return x * 2;\n}\n\nexport class Point {\n  constructor(x) {\n    this.x = x;\n  }\n}\n";
const MAIN_JS: &str = r#"import { twice, Point } from './lib/util.js';
import fs from 'fs';

function run(a) {
  const b = twice(a);
  const p = new Point(b);
  fs.readFileSync('x');
  return twice(p.x) + inc(b);
}

function inc(v) {
  return v + 1;
}
"#;

const UTIL_RB: &str = "module Util\n  def self.twice(x)\n    x * 2\n  end\nend\n";
const MAIN_RB: &str = r#"require_relative 'lib/util'

def run(a)
  b = Util.twice(a)
  puts b
  Util.twice(b) + inc(b)
end

def inc(v)
  v + 1
end
"#;

const UTIL_TS: &str = "export function twice(x: number): number {\n  return x * 2;\n}\n";
const MAIN_TS: &str = r#"import { twice } from './lib/util';

export function run(a: number): number {
  const b = twice(a);
  const f: (x: number) => number = twice;
  return f(b) + Math.max(1, 2);
}
"#;

const UTIL_PHP: &str = "<?php\nnamespace App;\n\nclass Util\n{\n    public static function twice($x)\n    {\n        return $x * 2;\n    }\n}\n";
const MAIN_PHP: &str = r#"<?php
use App\Util;

function run($a)
{
    $b = Util::twice($a);
    $c = strlen("abc");
    return Util::twice($b) + $c;
}
"#;

const UTIL_CPP: &str = "#include \"util.hpp\"\n\nint Calc::twice(int x) {\n    return x * 2;\n}\n";
const UTIL_HPP: &str = "class Calc {\npublic:\n    static int twice(int x);\n};\n";
const MAIN_CPP: &str = r#"#include <cstdio>
#include "util.hpp"

int run(int a) {
    int b = Calc::twice(a);
    std::printf("%d\n", b);
    return Calc::twice(b);
}
"#;

/// Every candidate line becomes an example: no prefix minimum, many lines per file.
const ALL: &[&str] = &[
    "--emit",
    "repo-completion",
    "--repo-completion-lines",
    "100",
    "--repo-completion-min-prefix",
    "0",
    "--no-history",
];

fn rows(files: &[(&str, &str)], extra: &[&str]) -> (Vec<Value>, Mined) {
    let mut args = ALL.to_vec();
    args.extend_from_slice(extra);
    let m = Mined::files("proj", files, &args);
    let rows = shard_rows(&m.out.join("completion"))
        .into_iter()
        .filter(|r| r.get("kind").is_some())
        .collect();
    (rows, m)
}

/// (path, line) -> (kind, gt, gold as (path, name, start, end)).
type Want = BTreeMap<
    (&'static str, u64),
    (
        &'static str,
        &'static str,
        Vec<(&'static str, &'static str, u64, u64)>,
    ),
>;

fn check(rows: &[Value], want: &Want) {
    let mut got: Want = BTreeMap::new();
    for r in rows {
        let path = want
            .keys()
            .map(|k| k.0)
            .find(|p| *p == r["path"].as_str().unwrap())
            .unwrap_or_else(|| panic!("unexpected file {}", r["path"]));
        let kind = [
            "cross_file_first",
            "cross_file_random",
            "in_file",
            "stdlib",
            "external",
        ]
        .into_iter()
        .find(|k| *k == r["kind"].as_str().unwrap())
        .unwrap();
        let gt: &'static str = Box::leak(r["gt"].as_str().unwrap().to_string().into_boxed_str());
        let gold = r["gold_context"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| {
                let s = |k: &str| -> &'static str {
                    Box::leak(g[k].as_str().unwrap().to_string().into_boxed_str())
                };
                (
                    s("path"),
                    s("name"),
                    g["start_line"].as_u64().unwrap(),
                    g["end_line"].as_u64().unwrap(),
                )
            })
            .collect();
        got.insert((path, r["line"].as_u64().unwrap()), (kind, gt, gold));
    }
    assert_eq!(&got, want);
}

#[test]
fn python_lines_get_their_kind_and_gold_context() {
    let files = [
        ("pkg/__init__.py", ""),
        ("pkg/util.py", UTIL_PY),
        ("pkg/main.py", MAIN_PY),
    ];
    let (rows, m) = rows(&files, &[]);
    let helper = ("pkg/util.py", "helper", 1, 2);
    let other = ("pkg/util.py", "other", 5, 6);
    let mut want: Want = BTreeMap::new();
    want.insert(("pkg/util.py", 2), ("in_file", "return x + 1", vec![]));
    want.insert(("pkg/util.py", 6), ("in_file", "return y * 2", vec![]));
    // The parameters of a signature over several lines are not its body.
    want.insert(("pkg/util.py", 17), ("in_file", "return a", vec![]));
    want.insert(("pkg/main.py", 7), ("in_file", "b = a + 1", vec![]));
    want.insert(
        ("pkg/main.py", 8),
        ("cross_file_first", "c = helper(b)", vec![helper]),
    );
    want.insert(
        ("pkg/main.py", 9),
        ("cross_file_random", "d = helper(c)", vec![helper]),
    );
    want.insert(
        ("pkg/main.py", 10),
        ("stdlib", "e = os.path.join(\"x\", \"y\")", vec![]),
    );
    // A call of this file.
    want.insert(("pkg/main.py", 11), ("in_file", "f = local(d)", vec![]));
    // `other` is new here, `helper` is not: the line is a first use; gold by line.
    want.insert(
        ("pkg/main.py", 12),
        (
            "cross_file_first",
            "g = other(e) + helper(f)",
            vec![helper, other],
        ),
    );
    // Line 13 calls a method of an unknown object: its kind is uncertain, left out.
    want.insert(
        ("pkg/main.py", 14),
        ("external", "h = requests.get(g)", vec![]),
    );
    // A class without a constructor: the class is the gold; then named without a call,
    // and a function passed as a value (found by resolving the imported names on the line).
    let config = ("pkg/util.py", "Config", 9, 10);
    want.insert(
        ("pkg/main.py", 15),
        ("cross_file_first", "k = Config()", vec![config]),
    );
    want.insert(
        ("pkg/main.py", 16),
        (
            "cross_file_random",
            "if isinstance(k, Config):",
            vec![config],
        ),
    );
    want.insert(
        ("pkg/main.py", 17),
        (
            "cross_file_random",
            "return list(map(helper, [h]))",
            vec![helper],
        ),
    );
    // A module-level value of another file, named without a call.
    want.insert(
        ("pkg/main.py", 18),
        (
            "cross_file_first",
            "t = TIMEOUT + 1",
            vec![("pkg/util.py", "TIMEOUT", 20, 20)],
        ),
    );
    want.insert(("pkg/main.py", 19), ("in_file", "return h", vec![]));
    want.insert(("pkg/main.py", 23), ("in_file", "return z", vec![]));
    check(&rows, &want);

    // The text around the cursor: the cursor sits after the line's indentation.
    let r = rows.iter().find(|r| r["line"] == 8).unwrap();
    let lines: Vec<&str> = MAIN_PY.split_inclusive('\n').collect();
    assert_eq!(r["prefix"], format!("{}    ", lines[..7].concat()));
    assert_eq!(r["suffix"], lines[8..].concat());
    assert_eq!(
        r["gold_context"][0]["code"],
        "def helper(x):\n    return x + 1"
    );
    assert_eq!(r["sha"], m.sha);
    assert_eq!(r["language"], "python");
    // Ids are unique and stable in shape.
    let mut ids: Vec<&str> = rows.iter().map(|r| r["id"].as_str().unwrap()).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), rows.len());
    assert!(ids
        .iter()
        .all(|i| i.len() == 33 && i.as_bytes()[16] == b'-'));
    let s = stats(&m.out);
    let stage = &s["stages"]["repo_completion"];
    assert_eq!(stage["uncertain"], 1);
    assert_eq!(stage["rows"]["cross_file_first"], 4);
    let r = rows.iter().find(|r| r["line"] == 15).unwrap();
    assert_eq!(
        r["gold_context"][0]["code"],
        "class Config:\n    debug = False"
    );
}

#[test]
fn c_lines_get_their_kind_and_gold_context() {
    let files = [("util.c", UTIL_C), ("util.h", UTIL_H), ("main.c", MAIN_C)];
    let (rows, _) = rows(&files, &[]);
    let twice = ("util.c", "twice", 3, 5);
    let mut want: Want = BTreeMap::new();
    want.insert(("util.c", 4), ("in_file", "return x * 2;", vec![]));
    want.insert(("main.c", 5), ("in_file", "return x + 1;", vec![]));
    want.insert(("main.c", 9), ("in_file", "int a = inc(1);", vec![]));
    want.insert(
        ("main.c", 10),
        ("cross_file_first", "int b = twice(a);", vec![twice]),
    );
    want.insert(("main.c", 11), ("stdlib", "printf(\"%d\\n\", b);", vec![]));
    want.insert(
        ("main.c", 12),
        ("cross_file_random", "return twice(b);", vec![twice]),
    );
    check(&rows, &want);
}

#[test]
fn java_lines_get_their_kind_and_gold_context() {
    let files = [
        ("util/Helper.java", HELPER_JAVA),
        ("util/Point.java", POINT_JAVA),
        ("app/Main.java", MAIN_JAVA),
    ];
    let (rows, _) = rows(&files, &[]);
    let twice = ("util/Helper.java", "Helper.twice", 4, 6);
    let point = ("util/Point.java", "Point", 3, 5);
    let mut want: Want = BTreeMap::new();
    want.insert(
        ("util/Helper.java", 5),
        ("in_file", "return x * 2;", vec![]),
    );
    want.insert(
        ("app/Main.java", 8),
        ("cross_file_first", "int b = Helper.twice(a);", vec![twice]),
    );
    // A class without a constructor, made with `new` and named as a type.
    want.insert(
        ("app/Main.java", 9),
        ("cross_file_first", "Point p = new Point();", vec![point]),
    );
    want.insert(
        ("app/Main.java", 10),
        ("stdlib", "System.out.println(b);", vec![]),
    );
    want.insert(
        ("app/Main.java", 11),
        (
            "cross_file_random",
            "return inc(b) + Helper.twice(p.x);",
            vec![twice],
        ),
    );
    want.insert(("app/Main.java", 15), ("in_file", "return v + 1;", vec![]));
    check(&rows, &want);
}

#[test]
fn go_lines_get_their_kind_and_gold_context() {
    let files = [
        ("go.mod", "module example.com/proj\n\ngo 1.21\n"),
        ("util/util.go", UTIL_GO),
        ("main.go", MAIN_GO),
    ];
    let (rows, _) = rows(&files, &[]);
    let twice = ("util/util.go", "Twice", 4, 6);
    let point = ("util/util.go", "Point", 8, 10);
    let mut want: Want = BTreeMap::new();
    want.insert(("util/util.go", 5), ("in_file", "return x * 2", vec![]));
    want.insert(
        ("main.go", 9),
        ("cross_file_first", "b := util.Twice(a)", vec![twice]),
    );
    // A type of another package in a composite literal: found through the imported name.
    want.insert(
        ("main.go", 10),
        ("cross_file_first", "p := util.Point{X: b}", vec![point]),
    );
    want.insert(("main.go", 11), ("stdlib", "fmt.Println(b)", vec![]));
    // A function as a value.
    want.insert(
        ("main.go", 12),
        ("cross_file_random", "f := util.Twice", vec![twice]),
    );
    // A package-level constant of another package, named without a call.
    want.insert(
        ("main.go", 13),
        (
            "cross_file_first",
            "s := util.Scale * b",
            vec![("util/util.go", "Scale", 12, 12)],
        ),
    );
    // Line 14 calls a local function value: uncertain, left out.
    check(&rows, &want);
}

#[test]
fn javascript_lines_get_their_kind_and_gold_context() {
    let files = [("lib/util.js", UTIL_JS), ("main.js", MAIN_JS)];
    let (rows, _) = rows(&files, &[]);
    let twice = ("lib/util.js", "twice", 1, 3);
    let constructor = ("lib/util.js", "Point.constructor", 6, 8);
    let mut want: Want = BTreeMap::new();
    want.insert(("lib/util.js", 2), ("in_file", "return x * 2;", vec![]));
    want.insert(("lib/util.js", 7), ("in_file", "this.x = x;", vec![]));
    want.insert(
        ("main.js", 5),
        ("cross_file_first", "const b = twice(a);", vec![twice]),
    );
    want.insert(
        ("main.js", 6),
        (
            "cross_file_first",
            "const p = new Point(b);",
            vec![constructor],
        ),
    );
    want.insert(("main.js", 7), ("stdlib", "fs.readFileSync('x');", vec![]));
    want.insert(
        ("main.js", 8),
        (
            "cross_file_random",
            "return twice(p.x) + inc(b);",
            vec![twice],
        ),
    );
    want.insert(("main.js", 12), ("in_file", "return v + 1;", vec![]));
    check(&rows, &want);
}

#[test]
fn ruby_lines_get_their_kind_and_gold_context() {
    let files = [("lib/util.rb", UTIL_RB), ("main.rb", MAIN_RB)];
    let (rows, _) = rows(&files, &[]);
    let twice = ("lib/util.rb", "Util.twice", 2, 4);
    let mut want: Want = BTreeMap::new();
    want.insert(("lib/util.rb", 3), ("in_file", "x * 2", vec![]));
    want.insert(
        ("main.rb", 4),
        ("cross_file_first", "b = Util.twice(a)", vec![twice]),
    );
    want.insert(("main.rb", 5), ("stdlib", "puts b", vec![]));
    want.insert(
        ("main.rb", 6),
        ("cross_file_random", "Util.twice(b) + inc(b)", vec![twice]),
    );
    // `end` lines are trivial.
    want.insert(("main.rb", 10), ("in_file", "v + 1", vec![]));
    check(&rows, &want);
}

#[test]
fn typescript_lines_get_their_kind_and_gold_context() {
    let files = [("lib/util.ts", UTIL_TS), ("main.ts", MAIN_TS)];
    let (rows, _) = rows(&files, &[]);
    let twice = ("lib/util.ts", "twice", 1, 3);
    let mut want: Want = BTreeMap::new();
    want.insert(("lib/util.ts", 2), ("in_file", "return x * 2;", vec![]));
    want.insert(
        ("main.ts", 4),
        ("cross_file_first", "const b = twice(a);", vec![twice]),
    );
    // An imported function as a value.
    want.insert(
        ("main.ts", 5),
        (
            "cross_file_random",
            "const f: (x: number) => number = twice;",
            vec![twice],
        ),
    );
    // Line 6 calls a local function value: uncertain, left out.
    check(&rows, &want);
}

#[test]
fn php_lines_get_their_kind_and_gold_context() {
    let files = [("src/Util.php", UTIL_PHP), ("main.php", MAIN_PHP)];
    let (rows, _) = rows(&files, &[]);
    let twice = ("src/Util.php", "Util.twice", 6, 9);
    let mut want: Want = BTreeMap::new();
    want.insert(("src/Util.php", 8), ("in_file", "return $x * 2;", vec![]));
    want.insert(
        ("main.php", 6),
        ("cross_file_first", "$b = Util::twice($a);", vec![twice]),
    );
    want.insert(("main.php", 7), ("stdlib", "$c = strlen(\"abc\");", vec![]));
    want.insert(
        ("main.php", 8),
        (
            "cross_file_random",
            "return Util::twice($b) + $c;",
            vec![twice],
        ),
    );
    check(&rows, &want);
}

#[test]
fn cpp_lines_get_their_kind_and_gold_context() {
    let files = [
        ("util.cpp", UTIL_CPP),
        ("util.hpp", UTIL_HPP),
        ("main.cpp", MAIN_CPP),
    ];
    let (rows, _) = rows(&files, &[]);
    let twice = ("util.cpp", "Calc::twice", 3, 5);
    let mut want: Want = BTreeMap::new();
    want.insert(("util.cpp", 4), ("in_file", "return x * 2;", vec![]));
    want.insert(
        ("main.cpp", 5),
        ("cross_file_first", "int b = Calc::twice(a);", vec![twice]),
    );
    want.insert(
        ("main.cpp", 6),
        ("stdlib", "std::printf(\"%d\\n\", b);", vec![]),
    );
    want.insert(
        ("main.cpp", 7),
        ("cross_file_random", "return Calc::twice(b);", vec![twice]),
    );
    check(&rows, &want);
}

#[test]
fn the_draw_follows_kinds_shares_and_seed() {
    let files = [
        ("pkg/__init__.py", ""),
        ("pkg/util.py", UTIL_PY),
        ("pkg/main.py", MAIN_PY),
    ];
    let m = Mined::files(
        "proj",
        &files,
        &[
            "--emit",
            "repo-completion",
            "--repo-completion-lines",
            "2",
            "--repo-completion-min-prefix",
            "0",
            "--repo-completion-kinds",
            "cross_file_first,cross_file_random",
            "--no-history",
        ],
    );
    let rows = shard_rows(&m.out.join("completion"));
    let mut got: Vec<(String, u64)> = rows
        .iter()
        .map(|r| {
            (
                r["kind"].as_str().unwrap().to_string(),
                r["line"].as_u64().unwrap(),
            )
        })
        .collect();
    got.sort();
    // main.py has cross-file lines 8, 12, 15 and 18 (first) and 9, 16 and 17 (random); two
    // draws.
    assert_eq!(got.len(), 2);
    assert!(got.iter().all(|(k, l)| match k.as_str() {
        "cross_file_first" => [8, 12, 15, 18].contains(l),
        "cross_file_random" => [9, 16, 17].contains(l),
        _ => false,
    }));
    // The same seed draws the same lines; the flag without the output is a usage error.
    let again = Mined::files(
        "proj",
        &files,
        &[
            "--emit",
            "repo-completion",
            "--repo-completion-lines",
            "2",
            "--repo-completion-min-prefix",
            "0",
            "--repo-completion-kinds",
            "cross_file_first,cross_file_random",
            "--no-history",
            "-j",
            "1",
        ],
    );
    // The same rows, scores and all, whatever the thread count.
    assert_eq!(rows, shard_rows(&again.out.join("completion")));
    let tmp = tempfile::tempdir().unwrap();
    let out = codemine(
        &[
            "mine",
            "--repo",
            ".",
            "--out",
            "x",
            "--repo-completion-lines",
            "2",
        ],
        tmp.path(),
    );
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--emit repo-completion"));
}

#[test]
fn retrieval_scores_agree_with_rank_bm25_and_python_jaccard() {
    let files = [
        ("pkg/__init__.py", ""),
        ("pkg/util.py", UTIL_PY),
        ("pkg/main.py", MAIN_PY),
        ("pkg/more.py", "import os\n\n\ndef walk(a):\n    b = a + 1\n    c = os.path.join(b)\n    return helper(c)\n"),
    ];
    let (_, m) = rows(
        &files,
        &[
            "--completion-snapshot",
            "--retrieval-chunk-lines",
            "3",
            "--retrieval-chunk-stride",
            "2",
            "--retrieval-query-lines",
            "2",
            "--retrieval-k",
            "3",
        ],
    );
    let dir = m.out.join("completion");
    let report = python_json(
        include_str!("../harness/retrieval_reference.py"),
        &[dir.to_str().unwrap(), "3", "2", "2", "3"],
    );
    assert_eq!(report["snapshot_files"], 4, "{report}");
    assert!(report["examples"].as_u64().unwrap() >= 10, "{report}");
    assert!(report["retrieved"].as_u64().unwrap() > 0, "{report}");
    assert_eq!(report["mismatches"], serde_json::json!([]), "{report}");
}

#[test]
fn since_keeps_lines_changed_on_or_after_the_day() {
    let tmp = tempfile::tempdir().unwrap();
    let mut r = RepoBuilder::init(&tmp.path().join("proj"));
    r.write("pkg/__init__.py", "")
        .write("pkg/util.py", UTIL_PY)
        .write("pkg/main.py", MAIN_PY);
    r.set_time(1_577_836_800); // 2020-01-01
    r.commit("old");
    let changed = MAIN_PY
        .replace("c = helper(b)", "c = helper(b + 0)")
        .replace("f = local(d)", "f = local(d) + 0");
    r.write("pkg/main.py", &changed);
    r.set_time(1_748_736_000); // 2025-06-01
    r.commit("new");
    let out = mine_into(
        &r.path,
        tmp.path(),
        &[
            "--emit",
            "repo-completion",
            "--repo-completion-lines",
            "100",
            "--repo-completion-min-prefix",
            "0",
            "--since",
            "2024-01-01",
        ],
    );
    let mut got: Vec<(String, u64, String)> = shard_rows(&out.join("completion"))
        .iter()
        .map(|r| {
            (
                r["path"].as_str().unwrap().to_string(),
                r["line"].as_u64().unwrap(),
                r["kind"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    got.sort();
    // `git blame` dates every other line to 2020.
    assert_eq!(
        git(
            &r.path,
            &["blame", "-L", "8,8", "--porcelain", "pkg/main.py"]
        )
        .lines()
        .find(|l| l.starts_with("committer-time"))
        .unwrap(),
        "committer-time 1748736000"
    );
    assert_eq!(
        got,
        vec![
            ("pkg/main.py".to_string(), 8, "cross_file_first".to_string()),
            ("pkg/main.py".to_string(), 11, "in_file".to_string()),
        ]
    );
    let s = stats(&out);
    assert!(
        s["stages"]["repo_completion"]["before_since"]
            .as_u64()
            .unwrap()
            > 0
    );
}

#[test]
fn eval_scores_the_rows_by_kind_and_the_tables_retrievers() {
    let files = [
        ("pkg/__init__.py", ""),
        ("pkg/util.py", UTIL_PY),
        ("pkg/main.py", MAIN_PY),
    ];
    let (rows, m) = rows(&files, &[]);
    // Predictions: the ground truth, except for one cross-file row.
    let wrong = rows
        .iter()
        .find(|r| r["kind"] == "cross_file_first")
        .unwrap()["id"]
        .clone();
    let preds: String = rows
        .iter()
        .map(|r| {
            let p = if r["id"] == wrong {
                "x = 1"
            } else {
                r["gt"].as_str().unwrap()
            };
            format!("{}\n", serde_json::json!({"id": r["id"], "prediction": p}))
        })
        .collect();
    let p = m.out.join("preds.jsonl");
    std::fs::write(&p, preds).unwrap();
    let dir = m.out.join("completion");
    let res = codemine(
        &[
            "eval",
            dir.to_str().unwrap(),
            "-p",
            p.to_str().unwrap(),
            "-m",
            "exact_match,identifier_em",
            "--by",
            "kind",
            "--json",
        ],
        &m.out.join("cache"),
    );
    assert_success(&res);
    let v: Value = serde_json::from_slice(&res.stdout).unwrap();
    let n = rows.len() as f64;
    let firsts = rows
        .iter()
        .filter(|r| r["kind"] == "cross_file_first")
        .count() as f64;
    // Overall: all rows but one; by kind: cross_file_first misses one.
    let close = |got: &Value, want: f64| {
        assert!(
            (got.as_f64().unwrap() - want).abs() < 1e-9,
            "{got} != {want}: {v}"
        );
    };
    for m in ["exact_match", "identifier_em"] {
        close(&v["metrics"][m], 100.0 * (n - 1.0) / n);
        close(
            &v["by"]["kind"]["cross_file_first"]["metrics"][m],
            100.0 * (firsts - 1.0) / firsts,
        );
        close(&v["by"]["kind"]["in_file"]["metrics"][m], 100.0);
    }
    // The table's own retrievers score without predictions.
    let res = codemine(
        &[
            "eval",
            dir.to_str().unwrap(),
            "-m",
            "context_recall@5:bm25,context_recall@5:jaccard",
            "--json",
        ],
        &m.out.join("cache"),
    );
    assert_success(&res);
}

/// Issue 34, item 5: a line inside a docstring (a doctest's output naming a class) is no
/// target, and a class named without a call (`except`, `isinstance`, an annotation) has
/// the class's own declaration as gold, not the constructor it inherits from its base.
/// Lines and declarations read off the fixture by hand.
#[test]
fn named_classes_are_their_declaration_and_docstrings_are_no_targets() {
    const EXC: &str = "\
class RequestException(IOError):
    def __init__(self, *args, **kwargs):
        self.response = kwargs.pop('response', None)


class ProxyError(RequestException):
    pass
";
    const API: &str = "\
from .exceptions import ProxyError


def fetch(url):
    \"\"\"Fetches.

    >>> fetch('x')
    ProxyError
    \"\"\"
    try:
        return open(url)
    except ProxyError:
        return None


def check(x: ProxyError):
    return isinstance(x, ProxyError)
";
    let files = [
        ("pkg/__init__.py", ""),
        ("pkg/exceptions.py", EXC),
        ("pkg/api.py", API),
    ];
    let (rows, _m) = rows(&files, &[]);
    let proxy = ("pkg/exceptions.py", "ProxyError", 6, 7);
    let of = |line: u64| {
        rows.iter()
            .find(|r| r["path"] == "pkg/api.py" && r["line"] == line)
            .map(|r| {
                let gold: Vec<(String, String, u64, u64)> = r["gold_context"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|g| {
                        (
                            g["path"].as_str().unwrap().to_string(),
                            g["name"].as_str().unwrap().to_string(),
                            g["start_line"].as_u64().unwrap(),
                            g["end_line"].as_u64().unwrap(),
                        )
                    })
                    .collect();
                (r["kind"].as_str().unwrap().to_string(), gold)
            })
    };
    let want = |kind: &str| {
        Some((
            kind.to_string(),
            vec![(proxy.0.to_string(), proxy.1.to_string(), proxy.2, proxy.3)],
        ))
    };
    // Lines 7 and 8 are the docstring's doctest: no examples.
    assert_eq!(of(7), None);
    assert_eq!(of(8), None);
    assert_eq!(of(12), want("cross_file_first"));
    assert_eq!(of(17), want("cross_file_random"));
}
