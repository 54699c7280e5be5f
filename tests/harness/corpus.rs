//! A fixture corpus with planted duplicates, shared by the dedup and sharding tests:
//! four repositories (origin, mirror, one in the train and one in the test partition) with
//! exact copies across repositories, renamed identifiers, reordered statements, a vendored
//! copy, copies that straddle train and test, a docstring-less copy, copies with different
//! commit dates, and tiny functions.

use std::path::{Path, PathBuf};

use crate::RepoBuilder;

/// A small deterministic generator (the fixtures must not change between runs).
pub struct Lcg(pub u64);

impl Lcg {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    pub fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[self.next_u64() as usize % from.len()]
    }
}

pub const WORDS: &[&str] = &[
    "alpha", "beta", "gamma", "delta", "count", "total", "buffer", "offset", "limit", "item",
    "node", "value", "result", "index", "cursor", "weight", "score", "queue", "table", "entry",
    "token", "chunk", "frame", "shard", "block", "state", "level", "width", "depth", "name",
];

/// The statements of a random function body: distinct variables and constants, so two
/// families share almost no shingles.
pub fn statements(rng: &mut Lcg, n: usize) -> Vec<String> {
    (0..n).map(|i| statement(rng, i)).collect()
}

/// One random statement, the `i`-th of its function.
pub fn statement(rng: &mut Lcg, i: usize) -> String {
    let (a, b, c) = (rng.pick(WORDS), rng.pick(WORDS), rng.pick(WORDS));
    let k = rng.next_u64() % 1000;
    match rng.next_u64() % 4 {
        0 => format!("{a}_{i} = {b} + {c} * {k}"),
        1 => format!("if {a} > {k}:\n        {b} = {c}({a}, {k})"),
        2 => format!("{a}.{b}({c}, {k})"),
        _ => format!("{a}_{i} = [{b} for {b} in {c} if {b} != {k}]"),
    }
}

pub fn function(name: &str, doc: Option<&str>, body: &[String]) -> String {
    let mut s = format!("def {name}(alpha, beta, gamma):\n");
    if let Some(d) = doc {
        s += &format!("    \"\"\"{d}\"\"\"\n");
    }
    for st in body {
        s += &format!("    {st}\n");
    }
    s += "    return alpha\n\n\n";
    s
}

/// Repository names whose partitions (by the run's 80/10/10 split) are train and test.
pub fn train_and_test_names() -> (String, String) {
    // README: `xxh3_64(repo) % 100` below 80 is train, 90 and above is test.
    let bucket = |n: &String| xxhash_rust::xxh3::xxh3_64(n.as_bytes()) % 100;
    let find = |want: &dyn Fn(u64) -> bool| {
        (0..1000)
            .map(|i| format!("proj{i}"))
            .find(|n| want(bucket(n)))
            .unwrap()
    };
    (find(&|b| b < 80), find(&|b| b >= 90))
}

/// Builds the fixture corpus under `root` and returns the repositories' paths.
pub fn corpus(root: &Path) -> Vec<PathBuf> {
    let mut rng = Lcg(20261122);
    let families: Vec<Vec<String>> = (0..40).map(|_| statements(&mut rng, 20)).collect();
    let (train, test) = train_and_test_names();
    let names = ["origin".to_string(), "mirror".to_string(), train, test];
    let mut repos: Vec<RepoBuilder> = names
        .iter()
        .map(|n| RepoBuilder::init(&root.join(n)))
        .collect();

    // origin: every family once, plus a vendored copy of family 3.
    let mut src = String::new();
    for (i, body) in families.iter().enumerate().take(30) {
        src += &function(&format!("family{i}"), Some(&format!("Family {i}.")), body);
    }
    repos[0].write("pkg/core.py", &src);
    repos[0].write(
        "third_party/lib/core_copy.py",
        function("family3", Some("Family 3."), &families[3]),
    );
    repos[0].write("pkg/tiny.py", "def tiny_a():\n    \"\"\"T.\"\"\"\n    return 1\n\n\ndef tiny_b():\n    \"\"\"T.\"\"\"\n    return 2\n");

    // mirror: an identical copy of family 0, renamed identifiers in family 1, two swapped
    // statements in family 2, a docstring-less copy of family 5, and new families.
    let mut renamed = families[1].clone();
    renamed[4] = renamed[4].replacen('=', "= 0 +", 1);
    renamed[9] = format!("renamed_var = {}", renamed[9].replace('\n', " "));
    let mut swapped = families[2].clone();
    swapped.swap(3, 8);
    let mut src = function("family0", Some("Family 0."), &families[0]);
    src += &function("family1_renamed", Some("Renamed."), &renamed);
    src += &function("family2_swapped", Some("Swapped."), &swapped);
    src += &function("family5_nodoc", None, &families[5]);
    for (i, body) in families.iter().enumerate().skip(30) {
        src += &function(&format!("family{i}"), Some(&format!("Family {i}.")), body);
    }
    repos[1].write("mirror.py", &src);
    repos[1].write("tiny.py", "def tiny_a():\n    \"\"\"T.\"\"\"\n    return 1\n\n\ndef tiny_c():\n    \"\"\"T.\"\"\"\n    return 3\n");

    // train and test repositories: a near-copy of family 7 straddles them; family 6 is
    // copied into both with different commit dates (the newer copy is kept).
    let mut near7 = families[7].clone();
    near7[2] = "extra_value = alpha".to_string();
    repos[2].write(
        "straddle.py",
        function("family7_train", Some("Seven."), &families[7])
            + &function("family6_old", Some("Six."), &families[6]),
    );
    repos[3].write(
        "straddle.py",
        function("family7_test", Some("Seven."), &near7)
            + &function("family6_new", Some("Six."), &families[6]),
    );
    // The docstring-less copy's repository is the newest: the docstring must outrank dates.
    repos[1].set_time(1_800_000_000);
    repos[2].set_time(1_600_000_000);
    repos[3].set_time(1_700_000_000);
    for r in &mut repos {
        r.commit("corpus");
    }
    repos.into_iter().map(|r| r.path).collect()
}
