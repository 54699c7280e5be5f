//! End to end: every function's license and every repository's, from license texts of the
//! SPDX list (Debian's `/usr/share/common-licenses`), a vendored folder, an SPDX header and
//! a package manifest; the repositories table; the `--licenses` filter and its funnel.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use harness::*;
use serde_json::Value;

const F: &str = "def f(x):\n    \"\"\"Doc.\"\"\"\n    return x + 1\n";

fn common(name: &str) -> String {
    fs::read_to_string(format!("/usr/share/common-licenses/{name}")).unwrap()
}

fn table(dir: &Path) -> Vec<Value> {
    shard_rows(dir)
}

#[test]
fn licenses_reach_nodes_repositories_and_the_filter() {
    let tmp = tempfile::tempdir().unwrap();
    let mit = "MIT License\n\nCopyright (c) 2024 Someone\n\nPermission is hereby granted, free of charge, to any person obtaining a copy of this software and associated documentation files (the \"Software\"), to deal in the Software without restriction, including without limitation the rights to use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies of the Software, and to permit persons to whom the Software is furnished to do so, subject to the following conditions:\n\nThe above copyright notice and this permission notice shall be included in all copies or substantial portions of the Software.\n\nTHE SOFTWARE IS PROVIDED \"AS IS\", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.\n";
    let mut a = RepoBuilder::init(&tmp.path().join("mitrepo"));
    a.write("LICENSE", mit)
        .write("pkg/a.py", F)
        .write("extlib/LICENSE", common("Apache-2.0"))
        .write("extlib/b.py", F)
        .write(
            "pkg/gpl.py",
            format!("# SPDX-License-Identifier: GPL-3.0-only\n{F}"),
        );
    a.commit("one");
    let mut b = RepoBuilder::init(&tmp.path().join("gplrepo"));
    b.write("COPYING", common("GPL-3"))
        .write(
            "pyproject.toml",
            "[project]\nname = \"x\"\nlicense = \"GPL-3.0-or-later\"\n",
        )
        .write("c.py", F);
    b.commit("one");
    let mut c = RepoBuilder::init(&tmp.path().join("nolicense"));
    c.write("d.py", F);
    c.commit("one");
    let repos: Vec<&str> = [&a, &b, &c]
        .iter()
        .map(|r| r.path.to_str().unwrap())
        .collect();

    let run = |out: &Path, extra: &[&str]| {
        let mut args = vec!["mine", "--out", out.to_str().unwrap(), "--no-dedup"];
        for r in &repos {
            args.extend(["--repo", r]);
        }
        args.extend_from_slice(extra);
        assert_success(&codemine(&args, &tmp.path().join("cache")));
    };
    let all = tmp.path().join("all");
    run(&all, &[]);
    let nodes = table(&all.join("callgraph/nodes"));
    let license: BTreeMap<String, Value> = nodes
        .iter()
        .filter(|n| n.get("license").is_some())
        .map(|n| {
            (
                format!(
                    "{}/{}",
                    n["repository"].as_str().unwrap(),
                    n["path"].as_str().unwrap()
                ),
                n["license"].clone(),
            )
        })
        .collect();
    let want: BTreeMap<String, Value> = [
        ("mitrepo/pkg/a.py", Value::from("MIT")),
        ("mitrepo/extlib/b.py", Value::from("Apache-2.0")),
        ("mitrepo/pkg/gpl.py", Value::from("GPL-3.0-only")),
        ("gplrepo/c.py", Value::from("GPL-3.0-or-later")),
        ("nolicense/d.py", Value::Null),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    assert_eq!(license, want);

    let repos_table = table(&all.join("repositories"));
    let by_repo: BTreeMap<&str, &Value> = repos_table
        .iter()
        .map(|r| (r["repo"].as_str().unwrap(), r))
        .collect();
    assert_eq!(by_repo.len(), 3);
    assert_eq!(by_repo["mitrepo"]["license"], "MIT");
    assert_eq!(by_repo["mitrepo"]["license_file"], "LICENSE");
    assert_eq!(by_repo["mitrepo"]["url"], a.path.to_str().unwrap());
    assert_eq!(by_repo["mitrepo"]["sha"].as_str().unwrap().len(), 40);
    assert_eq!(by_repo["gplrepo"]["license"], "GPL-3.0-or-later");
    assert!(by_repo["nolicense"]["license"].is_null());
    assert!(by_repo["nolicense"]["confidence"].is_null());

    // Permissive only: the GPL files and the unlicensed repository's are removed, counted
    // under `license`, and their nodes say so.
    let permissive = tmp.path().join("permissive");
    run(&permissive, &["--licenses", "permissive", "--explain"]);
    let csn = table(&permissive.join("csn"));
    let mut kept: Vec<String> = csn
        .iter()
        .map(|r| {
            format!(
                "{}/{}",
                r["repo"].as_str().unwrap(),
                r["path"].as_str().unwrap()
            )
        })
        .collect();
    kept.sort();
    assert_eq!(kept, ["mitrepo/extlib/b.py", "mitrepo/pkg/a.py"]);
    let s = stats(&permissive);
    assert_eq!(
        s["stages"]["filter"]["removed"]["license"], 3,
        "{}",
        s["stages"]["filter"]
    );
    let dropped = table(&permissive.join("dropped"));
    assert_eq!(dropped.len(), 3);
    assert!(dropped.iter().all(|d| d["rule"] == "license"));

    // Copyleft and one id: the GPL files only; an unknown name is a usage error.
    let copyleft = tmp.path().join("copyleft");
    run(&copyleft, &["--licenses", "copyleft"]);
    assert_eq!(table(&copyleft.join("csn")).len(), 2);
    let bad = codemine(
        &[
            "mine",
            "--out",
            tmp.path().join("bad").to_str().unwrap(),
            "--repo",
            repos[0],
            "--licenses",
            "nonsense-1.0",
        ],
        &tmp.path().join("cache"),
    );
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("nonsense-1.0"));
}
