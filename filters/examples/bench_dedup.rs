//! Dedup accuracy and speed benchmark.
//!
//! Accuracy (`bench_dedup [bigcode|datatrove]`): functions cut from real code (redis, requests,
//! gson mirrors, read with `git show`) by a regex tokenizer, plus generated copies with
//! controlled token edits (substitutions, insertions, deletions, identifier renames at
//! 1-40 % rates). The ground truth is every pair with exact shingle Jaccard >= 0.7 on the
//! same shingle sets dedup uses, found by prefix filtering (all-pairs with a global
//! rare-first shingle order: two sets with Jaccard >= t must share one of their first
//! |x| - ceil(t|x|) + 1 shingles), so it is exact without comparing all 10^9 pairs.
//! Printed: pair recall for true pairs with J >= 0.8 (and >= threshold), pair precision of
//! the clusters (same-cluster pairs with J >= threshold) and precision against the
//! transitive closure of true pairs (what union-find clustering can promise).
//!
//! Speed (`bench_dedup speed N`): N generated functions (Zipf-ish vocabulary, 20-200
//! tokens, 30 % near copies), deduplicated with 0 (= all) threads; prints functions/s and
//! peak RSS (VmHWM). With `--datasketch M`, the same run also times Python datasketch's
//! MinHashLSH (250 permutations as 25 bands x 10 rows, threshold 0.7) on the same 5-token
//! shingles of the first M functions and prints the ratio (`PYTHON` names the interpreter,
//! default `.venv/bin/python`; `pip install datasketch==1.6.5`).
//!
//! Run: `cargo run --release -p codemine-filters --example bench_dedup -- [args]`;
//! `MIRRORS` overrides the mirror root (default /work/.mirror).

use std::collections::{HashMap, HashSet};
use std::process::Command;
use std::time::Instant;

use codemine_filters::dedup::literal::{canonical, Spelling};
use codemine_filters::dedup::{dedup, jaccard, shingle_set, DedupParams, Item};
use rayon::prelude::*;
use regex::Regex;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn git_files(repo: &str, exts: &[&str]) -> Vec<(String, String)> {
    let Ok(out) = Command::new("git")
        .args(["--git-dir", repo, "ls-tree", "-r", "--name-only", "HEAD"])
        .output()
    else {
        return Vec::new();
    };
    let names = String::from_utf8_lossy(&out.stdout).to_string();
    names
        .lines()
        .filter(|p| exts.iter().any(|e| p.ends_with(e)))
        .filter_map(|p| {
            let o = Command::new("git")
                .args(["--git-dir", repo, "show", &format!("HEAD:{p}")])
                .output()
                .ok()?;
            Some((
                p.to_string(),
                String::from_utf8_lossy(&o.stdout).to_string(),
            ))
        })
        .collect()
}

/// Tokens with punctuation (needed to find function bodies); comments dropped.
fn lex(re: &Regex, src: &str) -> Vec<String> {
    re.find_iter(src)
        .map(|m| m.as_str())
        .filter(|t| !(t.starts_with("//") || t.starts_with("/*") || t.starts_with('#')))
        .map(String::from)
        .collect()
}

fn is_leaf(t: &str) -> bool {
    t.chars()
        .next()
        .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '"' || c == '\'')
}

/// Brace languages: a `{` right after `)` outside any function starts a function; it runs
/// from the previous `;`/`}` to the matching `}`. Only leaf tokens are kept.
fn brace_functions(tokens: &[String]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < tokens.len() {
        let t = tokens[i].as_str();
        if t == ";" || t == "}" {
            start = i + 1;
        } else if t == "{" && i > 0 && tokens[i - 1] == ")" {
            let mut depth = 0;
            let mut j = i;
            while j < tokens.len() {
                match tokens[j].as_str() {
                    "{" => depth += 1,
                    "}" => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            let f: Vec<String> = tokens[start..j.min(tokens.len())]
                .iter()
                .filter(|t| is_leaf(t))
                .cloned()
                .collect();
            out.push(f);
            i = j + 1;
            start = i;
            continue;
        } else if t == "{" {
            start = i + 1;
        }
        i += 1;
    }
    out
}

fn python_functions(re: &Regex, src: &str) -> Vec<Vec<String>> {
    let lines: Vec<&str> = src.lines().collect();
    let indent = |l: &str| l.len() - l.trim_start().len();
    let mut out = Vec::new();
    for (k, line) in lines.iter().enumerate() {
        if !line.trim_start().starts_with("def ") {
            continue;
        }
        let d = indent(line);
        let mut end = k + 1;
        while end < lines.len() && (lines[end].trim().is_empty() || indent(lines[end]) > d) {
            end += 1;
        }
        let body = lines[k..end].join("\n");
        out.push(lex(re, &body).into_iter().filter(|t| is_leaf(t)).collect());
    }
    out
}

fn real_functions() -> Vec<Vec<String>> {
    let root = std::env::var("MIRRORS").unwrap_or_else(|_| "/work/.mirror".into());
    let re = Regex::new(
        r#"//[^\n]*|/\*(?s:.*?)\*/|#[^\n]*|[A-Za-z_][A-Za-z0-9_]*|\d[\w.]*|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'|\S"#,
    )
    .expect("regex");
    let mut all = Vec::new();
    for (repo, exts) in [
        ("redis+redis", &[".c", ".h", ".cpp"][..]),
        ("google+gson", &[".java"][..]),
        ("psf+requests", &[".py"][..]),
        (
            "yabloco-codegen+yabloco-benchmark",
            &[".py", ".c", ".cpp"][..],
        ),
        ("MERA-Evaluation+MERA_CODE", &[".py"][..]),
    ] {
        let files = git_files(&format!("{root}/{repo}/repo"), exts);
        let before = all.len();
        for (path, src) in files {
            // Literals in one spelling, as the pipeline's dedup tokens have them.
            let spelling = if path.ends_with(".py") {
                Spelling::Python
            } else if path.ends_with(".java") {
                Spelling::UnderscoreDigits
            } else {
                Spelling::QuoteDigits
            };
            let functions = if path.ends_with(".py") {
                python_functions(&re, &src)
            } else {
                // C preprocessor lines look like comments to `lex` (`#`): fine, they are not code.
                brace_functions(&lex(&re, &src))
            };
            all.extend(functions.into_iter().map(|f| {
                f.iter()
                    .map(|t| canonical(t, spelling).into_owned())
                    .collect::<Vec<String>>()
            }));
        }
        eprintln!("{repo}: {} functions", all.len() - before);
    }
    all.retain(|f| f.len() >= 10);
    all
}

/// A copy of `f` with about `rate` of its tokens edited; `rename` also renames one
/// identifier everywhere.
fn mutate(rng: &mut Rng, f: &[String], rate: f64, rename: bool) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(f.len() + 8);
    let edits = ((f.len() as f64 * rate).round() as usize).max(1);
    let p = edits as f64 / f.len() as f64;
    for t in f {
        let r = (rng.next() % 1_000_000) as f64 / 1e6;
        if r < p / 3.0 {
            out.push(format!("sub{}", rng.below(1000)));
        } else if r < 2.0 * p / 3.0 {
            // delete
        } else if r < p {
            out.push(t.clone());
            out.push(format!("ins{}", rng.below(1000)));
        } else {
            out.push(t.clone());
        }
    }
    if rename {
        let victim = f[rng.below(f.len())].clone();
        for t in &mut out {
            if *t == victim {
                *t = format!("{victim}_renamed");
            }
        }
    }
    out
}

fn peak_rss_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines().find(|l| l.starts_with("VmHWM:")).and_then(|l| {
                l.split_whitespace()
                    .nth(1)
                    .and_then(|v| v.parse::<f64>().ok())
            })
        })
        .map_or(0.0, |kb| kb / 1024.0)
}

/// All pairs (i < j) with exact Jaccard >= t, by prefix filtering.
fn true_pairs(sets: &[Vec<u64>], t: f64) -> Vec<(u32, u32, f64)> {
    let mut df: HashMap<u64, u32> = HashMap::new();
    for s in sets {
        for &h in s {
            *df.entry(h).or_default() += 1;
        }
    }
    // Rare first; ties by value so the order is total.
    let ordered: Vec<Vec<u64>> = sets
        .iter()
        .map(|s| {
            let mut v = s.clone();
            v.sort_by_key(|h| (df[h], *h));
            v
        })
        .collect();
    let prefix = |n: usize| n - (t * n as f64 - 1e-9).ceil() as usize + 1;
    let mut index: HashMap<u64, Vec<u32>> = HashMap::new();
    for (i, s) in ordered.iter().enumerate() {
        if s.is_empty() {
            continue;
        }
        for &h in &s[..prefix(s.len()).min(s.len())] {
            index.entry(h).or_default().push(i as u32);
        }
    }
    let mut cands: HashSet<(u32, u32)> = HashSet::new();
    for list in index.values() {
        for (a, &x) in list.iter().enumerate() {
            for &y in &list[a + 1..] {
                let (lx, ly) = (sets[x as usize].len() as f64, sets[y as usize].len() as f64);
                // Size filter: J <= min/max.
                if lx.min(ly) >= t * lx.max(ly) {
                    cands.insert((x.min(y), x.max(y)));
                }
            }
        }
    }
    let mut pairs: Vec<(u32, u32, f64)> = cands
        .into_par_iter()
        .filter_map(|(x, y)| {
            let j = jaccard(&sets[x as usize], &sets[y as usize]);
            (j >= t).then_some((x, y, j))
        })
        .collect();
    pairs.sort_by_key(|p| (p.0, p.1));
    pairs
}

fn accuracy(params: DedupParams) {
    let t0 = Instant::now();
    let real = real_functions();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut funcs: Vec<Vec<String>> = real.clone();
    let rates = [0.0, 0.01, 0.03, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4];
    while funcs.len() < 55_000 {
        let src = &real[rng.below(real.len())];
        let rate = rates[rng.below(rates.len())];
        let rename = rng.below(3) == 0;
        let copy = if rate == 0.0 && !rename {
            src.clone()
        } else {
            mutate(&mut rng, src, rate, rename)
        };
        funcs.push(copy);
    }
    eprintln!(
        "{} real functions (>= 10 leaf tokens), {} with copies; built in {:.1}s",
        real.len(),
        funcs.len(),
        t0.elapsed().as_secs_f64()
    );
    let items: Vec<Item<'_>> = funcs
        .iter()
        .enumerate()
        .map(|(i, f)| Item {
            id: i as u64,
            tokens: f,
            has_docstring: false,
            last_commit: None,
            partition: 0,
        })
        .collect();
    let t1 = Instant::now();
    let out = match dedup(&items, &params, 0) {
        Ok(out) => out,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let dedup_s = t1.elapsed().as_secs_f64();

    let sets: Vec<Vec<u64>> = funcs
        .par_iter()
        .map(|f| shingle_set(f, params.shingle))
        .collect();
    let t2 = Instant::now();
    let low = params.threshold.min(0.8);
    let truth = true_pairs(&sets, low);
    let truth_s = t2.elapsed().as_secs_f64();
    let same = |x: u32, y: u32| {
        let (a, b) = (out.cluster_id[x as usize], out.cluster_id[y as usize]);
        a.is_some() && a == b
    };
    let at = |thr: f64| {
        let p: Vec<_> = truth.iter().filter(|p| p.2 >= thr).collect();
        let hit = p.iter().filter(|p| same(p.0, p.1)).count();
        (hit, p.len())
    };
    let (h8, n8) = at(0.8);
    let (ht, nt) = at(params.threshold);

    // Predicted pairs: all pairs inside each cluster.
    let mut clusters: HashMap<u64, Vec<u32>> = HashMap::new();
    for (i, c) in out.cluster_id.iter().enumerate() {
        if let Some(c) = c {
            clusters.entry(*c).or_default().push(i as u32);
        }
    }
    let true_set: HashSet<(u32, u32)> = truth
        .iter()
        .filter(|p| p.2 >= params.threshold)
        .map(|p| (p.0, p.1))
        .collect();
    // Ground-truth components (transitive closure of true pairs).
    let mut comp: Vec<u32> = (0..funcs.len() as u32).collect();
    fn root(c: &mut [u32], mut x: u32) -> u32 {
        while c[x as usize] != x {
            c[x as usize] = c[c[x as usize] as usize];
            x = c[x as usize];
        }
        x
    }
    for &(x, y) in &true_set {
        let (rx, ry) = (root(&mut comp, x), root(&mut comp, y));
        comp[rx.max(ry) as usize] = rx.min(ry);
    }
    let (mut pred, mut pred_true, mut pred_comp) = (0u64, 0u64, 0u64);
    for members in clusters.values() {
        for (a, &x) in members.iter().enumerate() {
            for &y in &members[a + 1..] {
                pred += 1;
                let key = (x.min(y), x.max(y));
                if true_set.contains(&key) {
                    pred_true += 1;
                }
                if root(&mut comp, x) == root(&mut comp, y) {
                    pred_comp += 1;
                }
            }
        }
    }
    // Removals: is each removed function within the threshold of the one kept for it?
    let (mut removed, mut removed_ok) = (0u64, 0u64);
    let index: HashMap<u64, usize> = items.iter().enumerate().map(|(i, it)| (it.id, i)).collect();
    for (i, keeper) in out.duplicate_of.iter().enumerate() {
        if let Some(k) = keeper.and_then(|k| index.get(&k)) {
            removed += 1;
            if jaccard(&sets[i], &sets[*k]) >= params.threshold {
                removed_ok += 1;
            }
        }
    }
    let s = &out.stats;
    println!(
        "removals within the threshold of their keeper: {}/{} = {:.4}",
        removed_ok,
        removed,
        removed_ok as f64 / removed.max(1) as f64
    );
    println!(
        "params: threshold {} shingle {} bands {} x rows {} (minhash-rs {})",
        params.threshold, params.shingle, params.bands, params.rows, s.minhash_rs_version
    );
    println!(
        "functions {}: exact removed {}, near removed {}, clusters {}, candidate pairs {}, dedup {:.2}s (ground truth {:.2}s)",
        s.functions, s.exact_removed, s.near_removed, s.clusters, s.candidate_pairs, dedup_s, truth_s
    );
    println!(
        "recall J>=0.8: {}/{} = {:.4}",
        h8,
        n8,
        h8 as f64 / n8.max(1) as f64
    );
    println!(
        "recall J>={}: {}/{} = {:.4}",
        params.threshold,
        ht,
        nt,
        ht as f64 / nt.max(1) as f64
    );
    println!(
        "precision (same-cluster pairs with J>={}): {}/{} = {:.4}",
        params.threshold,
        pred_true,
        pred,
        pred_true as f64 / pred.max(1) as f64
    );
    println!(
        "precision vs transitive closure of true pairs: {}/{} = {:.4}",
        pred_comp,
        pred,
        pred_comp as f64 / pred.max(1) as f64
    );
}

/// datasketch's MinHashLSH on the same 5-token shingles (as space-joined strings) of the
/// first `m` functions, run by Python: returns functions/s, or why it could not run.
fn datasketch(funcs: &[Vec<&str>], m: usize) -> Result<f64, String> {
    let path = std::env::temp_dir().join(format!("bench_dedup_{}.jsonl", std::process::id()));
    let mut text = String::new();
    for f in funcs.iter().take(m) {
        let shingles: Vec<String> = f.windows(5).map(|w| w.join(" ")).collect();
        text.push_str(&serde_json::to_string(&shingles).map_err(|e| e.to_string())?);
        text.push('\n');
    }
    std::fs::write(&path, text).map_err(|e| e.to_string())?;
    let script = r#"
import json, sys, time
from datasketch import MinHash, MinHashLSH
rows = [json.loads(l) for l in open(sys.argv[1])]
t = time.perf_counter()
lsh = MinHashLSH(threshold=0.7, num_perm=250, params=(25, 10))
for i, sh in enumerate(rows):
    m = MinHash(num_perm=250)
    m.update_batch([s.encode() for s in sh])
    lsh.insert(str(i), m)
print(len(rows) / (time.perf_counter() - t))
"#;
    let python = std::env::var("PYTHON").unwrap_or_else(|_| ".venv/bin/python".into());
    let out = std::process::Command::new(&python)
        .arg("-c")
        .arg(script)
        .arg(&path)
        .output()
        .map_err(|e| format!("{python}: {e}"))?;
    let _ = std::fs::remove_file(&path);
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    String::from_utf8_lossy(&out.stdout)
        .trim()
        .parse()
        .map_err(|e| format!("datasketch output: {e}"))
}

fn speed(n: usize, datasketch_n: Option<usize>) {
    // A Zipf-ish vocabulary: token k drawn with probability ~ 1/k.
    let vocab: Vec<String> = (0..50_000).map(|k| format!("tok{k}")).collect();
    let cdf: Vec<f64> = {
        let mut acc = 0.0;
        let mut v: Vec<f64> = (1..=vocab.len())
            .map(|k| {
                acc += 1.0 / k as f64;
                acc
            })
            .collect();
        let total = acc;
        v.iter_mut().for_each(|x| *x /= total);
        v
    };
    let t0 = Instant::now();
    let funcs: Vec<Vec<&str>> = (0..n)
        .into_par_iter()
        .map(|i| {
            let mut rng = Rng((i as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
            // 30 %: a near copy of an earlier function (regenerated from its seed, then edited).
            let base = if i % 10 < 3 && i > 0 { rng.below(i) } else { i };
            let mut brng = Rng((base as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
            let len = 20 + brng.below(181);
            let mut f: Vec<&str> = (0..len)
                .map(|_| {
                    let r = (brng.next() % 1_000_000_000) as f64 / 1e9;
                    vocab[cdf.partition_point(|&c| c < r).min(vocab.len() - 1)].as_str()
                })
                .collect();
            if base != i {
                for _ in 0..(1 + rng.below(len / 10 + 1)) {
                    let at = rng.below(f.len());
                    f[at] = vocab[rng.below(vocab.len())].as_str();
                }
            }
            f
        })
        .collect();
    let tokens: usize = funcs.iter().map(Vec::len).sum();
    eprintln!(
        "generated {n} functions, {tokens} tokens in {:.1}s; RSS so far {:.0} MB",
        t0.elapsed().as_secs_f64(),
        peak_rss_mb()
    );
    let items: Vec<Item<'_, &str>> = funcs
        .iter()
        .enumerate()
        .map(|(i, f)| Item {
            id: i as u64,
            tokens: f,
            has_docstring: i % 2 == 0,
            last_commit: Some((i % 97) as i64),
            partition: (i % 3) as u8,
        })
        .collect();
    let t1 = Instant::now();
    let out = match dedup(&items, &DedupParams::bigcode(), 0) {
        Ok(out) => out,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let secs = t1.elapsed().as_secs_f64();
    let s = &out.stats;
    println!(
        "speed: {n} functions ({tokens} tokens), bigcode params, {} threads: {secs:.1}s = {:.0} functions/s; peak RSS {:.0} MB; exact removed {}, near removed {}, candidate pairs {}",
        rayon::current_num_threads(),
        n as f64 / secs,
        peak_rss_mb(),
        s.exact_removed,
        s.near_removed,
        s.candidate_pairs
    );
    if let Some(m) = datasketch_n {
        match datasketch(&funcs, m) {
            Ok(fps) => println!(
                "datasketch MinHashLSH (250 permutations, 25x10), first {m} of the same functions' shingles: {fps:.0} functions/s; codemine is {:.1}x faster",
                (n as f64 / secs) / fps
            ),
            Err(e) => println!("datasketch could not run: {e}"),
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("speed") => speed(
            args.get(1)
                .and_then(|n| n.parse().ok())
                .unwrap_or(1_000_000),
            args.iter()
                .position(|a| a == "--datasketch")
                .and_then(|i| args.get(i + 1))
                .and_then(|m| m.parse().ok()),
        ),
        Some("datatrove") => accuracy(DedupParams::datatrove()),
        _ => accuracy(DedupParams::bigcode()),
    }
}
