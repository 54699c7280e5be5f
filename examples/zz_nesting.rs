// temporary probe, not committed: the deepest nesting of extracted functions per language
use miner::extract::{Extractor, Lang};
fn main() {
    let mut ex = Extractor::default();
    let mut best: std::collections::BTreeMap<Lang, (usize, String, usize)> = Default::default();
    let mut hist: std::collections::BTreeMap<usize, usize> = Default::default();
    for dir in std::env::args().skip(1) {
        for e in walk(std::path::Path::new(&dir)) {
            let p = e.to_string_lossy().to_string();
            let Some(lang) = Lang::from_path(&p) else {
                continue;
            };
            let Ok(src) = std::fs::read_to_string(&e) else {
                continue;
            };
            if src.len() > 1 << 20 {
                continue;
            }
            let Ok(out) = ex.extract_path(lang, &p, &src) else {
                continue;
            };
            let mut stack: Vec<std::ops::Range<usize>> = Vec::new();
            for f in &out.functions {
                while stack
                    .last()
                    .is_some_and(|r| r.end < f.byte_range.end || r.start > f.byte_range.start)
                {
                    stack.pop();
                }
                stack.push(f.byte_range.clone());
                let d = stack.len();
                *hist.entry(d).or_default() += 1;
                let b = best.entry(lang).or_insert((0, String::new(), 0));
                if d > b.0 {
                    *b = (d, format!("{p}:{}", f.start_line), 0);
                }
            }
        }
    }
    for (l, b) in best {
        println!("{l:?} max depth {} at {}", b.0, b.1);
    }
    println!("{hist:?}");
}
fn walk(d: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = vec![];
    let mut st = vec![d.to_path_buf()];
    while let Some(d) = st.pop() {
        if let Ok(rd) = std::fs::read_dir(&d) {
            for e in rd.flatten() {
                let p = e.path();
                if p.is_dir() {
                    st.push(p)
                } else {
                    out.push(p)
                }
            }
        }
    }
    out
}
