//! Near-duplicate removal end to end: fixture repositories built with git2 hold planted
//! copies (identical across repositories, renamed identifiers, reordered statements, a
//! vendored copy, copies that straddle train and test, tiny functions), and the result is
//! checked against an independent brute-force reference (`harness/dedup_check.py`: exact
//! shingle Jaccard of every pair, computed with Python from the CSN tokens).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs;
use std::path::{Path, PathBuf};

use harness::corpus::corpus;
use harness::*;
use serde_json::Value;

const THRESHOLD: f64 = 0.7;

fn mine(repos: &[PathBuf], out: &Path, cache: &Path, extra: &[&str]) {
    let mut args = vec!["mine", "--out", out.to_str().unwrap()];
    for r in repos {
        args.push("--repo");
        args.push(r.to_str().unwrap());
    }
    args.extend_from_slice(extra);
    assert_success(&codemine(&args, cache));
}

fn check(base: &Path, dd: &Path, shingle: usize) -> Value {
    python_json(
        include_str!("../harness/dedup_check.py"),
        &[
            base.to_str().unwrap(),
            dd.to_str().unwrap(),
            &shingle.to_string(),
            &THRESHOLD.to_string(),
        ],
    )
}

fn key(repo: &str, path: &str, name: &str) -> String {
    format!("{repo}|{path}|{name}")
}

#[test]
fn planted_duplicates_are_found_and_removed_as_the_reference_says() {
    let tmp = tempfile::tempdir().unwrap();
    let repos = corpus(&tmp.path().join("repos"));
    let cache = tmp.path().join("cache");
    let (base, dd) = (tmp.path().join("base"), tmp.path().join("dd"));
    mine(&repos, &base, &cache, &["--no-dedup"]);
    mine(&repos, &dd, &cache, &[]);
    let r = check(&base, &dd, 5);
    let nodes = r["nodes"].as_object().unwrap();
    let csn = r["csn"].as_object().unwrap();
    let node = |k: &str| &nodes[k];
    let removed = |k: &str| !node(k)["duplicate_of"].is_null();

    // Every true pair (exact, or Jaccard >= 0.7 by brute force) that the planted copies
    // make must be in one cluster; these all have Jaccard well above the LSH's knee.
    let planted = [
        (
            key("origin", "pkg/core.py", "family0"),
            key("mirror", "mirror.py", "family0"),
        ),
        (
            key("origin", "pkg/core.py", "family1"),
            key("mirror", "mirror.py", "family1_renamed"),
        ),
        (
            key("origin", "pkg/core.py", "family2"),
            key("mirror", "mirror.py", "family2_swapped"),
        ),
        (
            key("origin", "pkg/core.py", "family3"),
            key("origin", "third_party/lib/core_copy.py", "family3"),
        ),
        (
            key("origin", "pkg/core.py", "family7"),
            key(&repo_name(&repos[2]), "straddle.py", "family7_train"),
        ),
        (
            key(&repo_name(&repos[2]), "straddle.py", "family7_train"),
            key(&repo_name(&repos[3]), "straddle.py", "family7_test"),
        ),
        (
            key(&repo_name(&repos[2]), "straddle.py", "family6_old"),
            key(&repo_name(&repos[3]), "straddle.py", "family6_new"),
        ),
        (
            key("origin", "pkg/tiny.py", "tiny_a"),
            key("mirror", "tiny.py", "tiny_a"),
        ),
    ];
    let pairs: HashMap<(String, String), (f64, bool)> = r["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let (a, b) = (p[0].as_str().unwrap(), p[1].as_str().unwrap());
            let v = (p[2].as_f64().unwrap(), p[3].as_bool().unwrap());
            ((a.min(b).to_string(), a.max(b).to_string()), v)
        })
        .collect();
    for (a, b) in &planted {
        let pk = (a.clone().min(b.clone()), a.clone().max(b.clone()));
        let (j, _) = pairs
            .get(&pk)
            .unwrap_or_else(|| panic!("reference: {a} ~ {b} is not a pair"));
        assert!(*j >= THRESHOLD, "{a} ~ {b}: {j}");
        assert!(!node(a)["cluster_id"].is_null(), "{a} is in no cluster");
        assert_eq!(
            node(a)["cluster_id"],
            node(b)["cluster_id"],
            "{a} ~ {b} (J = {j})"
        );
    }
    // Every pair with J >= 0.9 is clustered, whoever planted it.
    for ((a, b), (j, _)) in &pairs {
        if *j >= 0.9 {
            assert_eq!(
                node(a)["cluster_id"],
                node(b)["cluster_id"],
                "{a} ~ {b} (J = {j})"
            );
        }
    }

    // Precision: every cluster is connected by true pairs (verification is exact).
    let mut members: BTreeMap<u64, Vec<String>> = BTreeMap::new();
    for (k, n) in nodes {
        if let Some(c) = n["cluster_id"].as_u64() {
            members.entry(c).or_default().push(k.clone());
        }
    }
    for (c, ms) in &members {
        assert!(ms.len() >= 2, "cluster {c:016X} has one member");
        // Functions without a docstring are not in the CSN baseline: the docstring-less
        // copy is checked against its keeper below.
        let documented: Vec<&String> = ms
            .iter()
            .filter(|m| nodes[*m]["has_docstring"].as_bool().unwrap())
            .collect();
        let mut reached: BTreeSet<&String> = documented.iter().take(1).copied().collect();
        loop {
            let before = reached.len();
            for m in ms {
                let linked = reached.iter().any(|x| {
                    let pk = ((*x).min(m).clone(), (*x).max(m).clone());
                    pairs.contains_key(&pk)
                });
                if linked {
                    reached.insert(m);
                }
            }
            if reached.len() == before {
                break;
            }
        }
        let unreachable: Vec<&&String> = documented
            .iter()
            .filter(|m| !reached.contains(**m))
            .collect();
        assert!(
            unreachable.is_empty(),
            "cluster {c}: {unreachable:?} not linked by true pairs"
        );
    }

    // Keeper rule: docstring first, then the latest commit, then the smallest id; removed
    // functions point at their cluster's keeper and are gone from CSN; the others stay.
    for (c, ms) in &members {
        let best = ms
            .iter()
            .min_by_key(|m| {
                let n = &nodes[*m];
                (
                    !n["has_docstring"].as_bool().unwrap(),
                    std::cmp::Reverse(n["last_commit"].as_i64()),
                    n["id"].as_u64().unwrap(),
                )
            })
            .unwrap();
        assert_eq!(nodes[best]["id"].as_u64(), Some(*c), "keeper of {ms:?}");
        for m in ms {
            let n = &nodes[m];
            if m == best {
                assert!(n["duplicate_of"].is_null());
            } else {
                assert_eq!(n["duplicate_of"].as_u64(), Some(*c), "{m}");
                assert!(!csn.contains_key(m), "{m} was removed but is in CSN");
            }
        }
    }
    // Every removal is within the threshold of its own keeper (chains are cut).
    let by_id: HashMap<u64, &String> = nodes
        .iter()
        .map(|(k, n)| (n["id"].as_u64().unwrap(), k))
        .collect();
    for (k, n) in nodes {
        let Some(keeper) = n["duplicate_of"].as_u64() else {
            continue;
        };
        let kk = by_id[&keeper];
        if !n["has_docstring"].as_bool().unwrap() {
            continue; // not in the CSN baseline
        }
        let pk = (k.min(kk).clone(), k.max(kk).clone());
        assert!(
            pairs.contains_key(&pk),
            "{k} removed for {kk}, which is not a true pair"
        );
    }
    for (k, _) in r["base_partition"].as_object().unwrap() {
        assert_eq!(csn.contains_key(k), !removed(k), "{k}");
    }
    let nodoc = key("mirror", "mirror.py", "family5_nodoc");
    assert_eq!(
        node(&nodoc)["duplicate_of"],
        node(&key("origin", "pkg/core.py", "family5"))["id"],
        "the copy with a docstring is kept"
    );
    let old = key(&repo_name(&repos[2]), "straddle.py", "family6_old");
    assert!(removed(&old), "the older copy goes");
    // Tiny functions differ in one token and are not near-duplicates of each other.
    assert!(node(&key("origin", "pkg/tiny.py", "tiny_b"))["cluster_id"].is_null());
    assert!(node(&key("mirror", "tiny.py", "tiny_c"))["cluster_id"].is_null());

    // No surviving pair straddles partitions: every cluster member carries its keeper's
    // partition, and only the keeper remains in CSN.
    for row in r["clusters"].as_array().unwrap() {
        let keeper = nodes
            .iter()
            .find(|(_, n)| n["id"] == row["cluster_id"])
            .map(|(k, _)| k)
            .unwrap();
        assert_eq!(row["partition"], csn[keeper], "{row}");
    }
    for ((a, b), (j, _)) in &pairs {
        assert!(
            !(csn.contains_key(a) && csn.contains_key(b)),
            "{a} ~ {b} (J = {j}) both survive"
        );
    }

    // Bands: one row per band for every function with at least one shingle.
    let tokens = r["tokens"].as_object().unwrap();
    let bands = r["bands"].as_object().unwrap();
    for (k, n) in tokens {
        let id = nodes[k]["id"].as_u64().unwrap().to_string();
        let want = if n.as_u64().unwrap() >= 5 { 25 } else { 0 };
        let got = bands.get(&id).map_or(0, |b| b.as_array().unwrap().len());
        assert_eq!(got, want, "{k}: {n} content tokens");
    }
    let id_of = |k: &str| node(k)["id"].as_u64().unwrap().to_string();
    assert_eq!(
        bands[&id_of(&planted[0].0)],
        bands[&id_of(&planted[0].1)],
        "exact copies have the same band hashes"
    );

    // stats.json agrees with the nodes.
    let s = &r["stats"];
    let exact = r["clusters"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["kind"] == "exact")
        .count();
    let near = r["clusters"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["kind"] == "near")
        .count();
    assert_eq!(s["exact_removed"].as_u64(), Some(exact as u64));
    assert_eq!(s["near_removed"].as_u64(), Some(near as u64));
    assert_eq!(
        (exact + near) as u64,
        nodes
            .values()
            .filter(|n| !n["duplicate_of"].is_null())
            .count() as u64
    );
    // Planted: exact copies family0, family3 (vendored) and tiny_a (the function name is a
    // token, so renamed copies are near); near: renamed, swapped, the docstring-less copy,
    // family6 twice and family7 twice.
    assert_eq!((exact, near), (3, 7));
    let sizes: u64 = s["cluster_sizes"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(size, n)| size.parse::<u64>().unwrap() * n.as_u64().unwrap())
        .sum();
    assert_eq!(sizes, s["functions"].as_u64().unwrap());
    assert_eq!(s["functions"].as_u64(), Some(nodes.len() as u64));
    assert_eq!(s["params"]["bands"], 25);
    assert_eq!(s["params"]["rows"], 10);
    assert_eq!(s["params"]["threshold"], 0.7);
    assert_eq!(s["minhash_rs_version"], "0.6.0");
    assert!(!dd.join("staging").exists(), "staging is removed");
}

fn repo_name(path: &Path) -> String {
    path.file_name().unwrap().to_string_lossy().into_owned()
}

/// Every output file's bytes, by relative path.
fn snapshot(out: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    for dir in [
        "csn",
        "yabloco",
        "callgraph/nodes",
        "callgraph/edges",
        "dedup/bands",
        "dedup/clusters",
    ] {
        for e in fs::read_dir(out.join(dir)).unwrap() {
            let p = e.unwrap().path();
            files.insert(format!("{dir}/{}", repo_name(&p)), fs::read(&p).unwrap());
        }
    }
    files
}

#[test]
fn dedup_output_does_not_depend_on_threads_or_repository_order() {
    let tmp = tempfile::tempdir().unwrap();
    let repos = corpus(&tmp.path().join("repos"));
    let cache = tmp.path().join("cache");
    let mut clusters = Vec::new();
    let mut first = None;
    for (i, threads) in ["1", "2", "4"].iter().enumerate() {
        let out = tmp.path().join(format!("out{threads}"));
        mine(&repos, &out, &cache, &["-j", threads]);
        let snap = snapshot(&out);
        match &first {
            None => first = Some(snap),
            Some(f) => assert!(f == &snap, "-j {threads} differs from -j 1"),
        }
        let _ = i;
        clusters.push(
            shard_rows(&out.join("dedup/clusters"))
                .into_iter()
                .filter(|r| r.get("kind").is_some())
                .count(),
        );
    }
    // Reversed repository order: the same clusters and keepers (rows come in input order).
    let out = tmp.path().join("reversed");
    let reversed: Vec<PathBuf> = repos.iter().rev().cloned().collect();
    mine(&reversed, &out, &cache, &[]);
    let decided = |out: &Path| -> BTreeSet<(String, String, String)> {
        shard_rows(&out.join("dedup/clusters"))
            .into_iter()
            .filter(|r| r.get("kind").is_some())
            .map(|r| {
                (
                    r["id"].to_string(),
                    r["cluster_id"].to_string(),
                    r["kind"].to_string(),
                )
            })
            .collect()
    };
    assert_eq!(decided(&tmp.path().join("out1")), decided(&out));
    assert!(clusters[0] > 0);
}

#[test]
fn datatrove_preset_and_direct_settings_are_used_and_reported() {
    let tmp = tempfile::tempdir().unwrap();
    let repos = corpus(&tmp.path().join("repos"));
    let cache = tmp.path().join("cache");
    let out = tmp.path().join("dt");
    mine(&repos, &out, &cache, &["--dedup-preset", "datatrove"]);
    let p = &stats(&out)["stages"]["dedup"]["params"];
    assert_eq!(
        (p["bands"].as_u64(), p["rows"].as_u64()),
        (Some(14), Some(8))
    );
    let bands = read_shards(&out.join("dedup/bands"));
    let band_rows: u64 = bands
        .as_object()
        .unwrap()
        .iter()
        .filter(|(n, _)| n.starts_with("bands-"))
        .map(|(_, s)| s["num_rows"].as_u64().unwrap())
        .sum();
    assert_eq!(band_rows % 14, 0);

    let out = tmp.path().join("direct");
    mine(
        &repos,
        &out,
        &cache,
        &[
            "--dedup-permutations",
            "128",
            "--dedup-bands",
            "16",
            "--dedup-threshold",
            "0.8",
            "--dedup-shingle",
            "3",
        ],
    );
    let p = &stats(&out)["stages"]["dedup"]["params"];
    assert_eq!(p["bands"], 16);
    assert_eq!(p["rows"], 8);
    assert_eq!(p["threshold"], 0.8);
    assert_eq!(p["shingle"], 3);

    let out = tmp.path().join("off");
    mine(&repos, &out, &cache, &["--no-dedup"]);
    let s = stats(&out);
    assert!(s["stages"].get("dedup").is_none());
    assert!(
        !out.join("dedup").exists() || fs::read_dir(out.join("dedup")).unwrap().next().is_none()
    );
    let nodes = shard_rows(&out.join("callgraph/nodes"));
    assert!(nodes
        .iter()
        .filter(|r| r.get("cluster_id").is_some())
        .all(|r| r["cluster_id"].is_null()));
}

#[test]
fn invalid_dedup_settings_are_usage_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let mut r = RepoBuilder::init(&tmp.path().join("r"));
    r.write("a.py", "def f():\n    return 1\n");
    r.commit("c");
    let repo = r.path.to_str().unwrap().to_string();
    for (args, says) in [
        (
            vec!["--dedup-permutations", "100"],
            "permutations must be one of",
        ),
        (vec!["--dedup-bands", "7"], "--dedup-bands 7"),
        (vec!["--dedup-threshold", "1.5"], "threshold 1.5"),
        (vec!["--dedup-threshold", "0"], "threshold 0"),
        (vec!["--dedup-shingle", "0"], "shingle"),
        (
            vec!["--dedup-preset", "minhash"],
            "--dedup-preset `minhash`",
        ),
        (
            vec!["--no-dedup", "--dedup-preset", "bigcode"],
            "cannot be used with",
        ),
    ] {
        let out = tmp.path().join("out");
        let mut a = vec!["mine", "--repo", &repo, "--out", out.to_str().unwrap()];
        a.extend(args.iter().copied());
        let res = codemine(&a, &tmp.path().join("cache"));
        let err = String::from_utf8_lossy(&res.stderr);
        assert_eq!(res.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(
            !out.join("stats.json").exists(),
            "{args:?}: nothing was mined"
        );
    }
}

#[test]
fn functions_sharing_an_id_do_not_stop_the_run() {
    // Two Java overloads on one line share (repository, path, name, line); so does every
    // unchanged function of one repository mined at two revisions.
    let tmp = tempfile::tempdir().unwrap();
    let mut r = RepoBuilder::init(&tmp.path().join("twice"));
    r.write(
        "A.java",
        "class A {\n  /** One. */ int f(int a) { return a + 1 + 2 + 3; } int f(String s) { return s.length() + 4 + 5; }\n}\n",
    );
    r.write(
        "m.py",
        "def g(x):\n    \"\"\"G.\"\"\"\n    return x * 2 + 3 - 4\n",
    );
    let first = r.commit("one");
    r.write(
        "n.py",
        "def h(y):\n    \"\"\"H.\"\"\"\n    return y * 5 + 6 - 7\n",
    );
    r.commit("two");
    let path = r.path.to_str().unwrap();
    let at_first = format!("{path}@{first}");
    let out = mine_into(&r.path, tmp.path(), &["--repo", &at_first]);
    let s = stats(&out);
    // HEAD (mined first): f, f (same id), g, h; then revision one: f, f, g. Seven kept
    // functions, three distinct ids: f, g and h are written once each.
    assert_eq!(
        s["stages"]["write"]["same_id_skipped"], 4,
        "{}",
        s["stages"]["write"]
    );
    let ids: Vec<String> = shard_rows(&out.join("yabloco"))
        .iter()
        .map(|r| r["meta"]["id"].to_string())
        .collect();
    let unique: BTreeSet<&String> = ids.iter().collect();
    assert_eq!(ids.len(), unique.len(), "YABLoCo ids are unique: {ids:?}");
    assert_eq!(ids.len(), 3);
    assert_eq!(s["stages"]["dedup"]["functions"], 3);
}

/// Issue 21.3: two versions of one test (psf/requests' kind: a formatter swapped the quotes
/// of its byte strings, and hex digits changed case) are one function for dedup, while
/// `code_tokens` keep each spelling; a different value is not.
#[test]
fn literal_spellings_do_not_hide_a_copy() {
    let tmp = tempfile::tempdir().unwrap();
    let mut r = RepoBuilder::init(&tmp.path().join("quotes"));
    let body = |q: &str, hex: &str, value: &str| {
        format!(
            "def test_chunked_upload(self, httpbin):\n    \"\"\"Chunked bodies arrive whole.\"\"\"\n    data = iter([b{q}a{q}, b{q}b{q}, b{q}{value}{q}])\n    r = requests.post(httpbin({q}post{q}), data=data, stream=True)\n    assert r.status_code == {hex}\n    assert r.request.headers[{q}Transfer-Encoding{q}] == {q}chunked{q}\n    return r.json()[{q}data{q}]\n"
        )
    };
    r.write("old/test_requests.py", body("'", "0XC8", "c"));
    r.write("new/test_requests.py", body("\"", "0xc8", "c"));
    r.write("other/test_requests.py", body("\"", "0xc8", "cd"));
    r.commit("one");
    let out = mine_into(&r.path, tmp.path(), &[]);
    let nodes = shard_rows(&out.join("callgraph/nodes"));
    let by_path = |p: &str| {
        nodes
            .iter()
            .find(|n| n["path"] == p && n.get("duplicate_of").is_some())
            .unwrap_or_else(|| panic!("no node for {p}: {nodes:?}"))
            .clone()
    };
    let (old, new, other) = (
        by_path("old/test_requests.py"),
        by_path("new/test_requests.py"),
        by_path("other/test_requests.py"),
    );
    // The smaller id keeps; the other is an exact copy of it, whichever it is.
    let removed: Vec<&Value> = [&old, &new]
        .into_iter()
        .filter(|n| !n["duplicate_of"].is_null())
        .collect();
    assert_eq!(removed.len(), 1, "{old}\n{new}");
    assert_eq!(old["cluster_id"], new["cluster_id"]);
    assert!(other["duplicate_of"].is_null(), "{other}");
    let csn = shard_rows(&out.join("csn"));
    assert_eq!(csn.len(), 2, "one of the two spellings and the other value");
    let tokens: Vec<String> = csn
        .iter()
        .flat_map(|r| r["code_tokens"].as_array().unwrap().clone())
        .map(|t| t.as_str().unwrap().to_string())
        .collect();
    assert!(
        tokens.iter().any(|t| t == "b\"cd\""),
        "code_tokens keep the source spelling"
    );
}
