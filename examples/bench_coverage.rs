//! Benchmark of coverage-report parsing (issue 4). Generates an LCOV tracefile, a
//! Cobertura XML, a gcov JSON (plain and gzip), a gcovr JSON and a coverage.py JSON (hits
//! as 0/1) with the same lines, parses each with
//! `codemine_coverage::read_report` (best of five) and prints MB/s and lines/s; then maps
//! the LCOV report onto a repository of the same files with `RepoCoverage::build`.
//! Given report files instead, it prints what each contains or why it cannot be read.
//!
//! ```sh
//! cargo run --release --example bench_coverage                   # 200,000 DA lines
//! cargo run --release --example bench_coverage -- --lines 1000000
//! cargo run --release --example bench_coverage -- coverage.xml lcov.info
//! ```

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;
use std::time::{Duration, Instant};

use codemine_coverage::{read_report, RepoCoverage};

/// Lines per generated source file (a few hundred files, as in a mid-sized C project).
const LINES_PER_FILE: usize = 500;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut total = 200_000;
    let mut files = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--lines" => {
                total = it.next().and_then(|n| n.parse().ok()).expect("--lines N");
            }
            _ => files.push(a.clone()),
        }
    }
    if files.is_empty() {
        bench(total);
    } else {
        for f in files {
            match read_report(Path::new(&f)) {
                Ok(r) => println!(
                    "{f}: {} report, {} records, {} lines, roots {:?}",
                    r.format.name(),
                    r.files.len(),
                    r.files.iter().map(|h| h.lines.len()).sum::<usize>(),
                    r.roots
                ),
                Err(e) => println!("{e}"),
            }
        }
    }
}

fn bench(total: usize) {
    let dir = tempfile::tempdir().expect("temp dir");
    let n_files = total.div_ceil(LINES_PER_FILE);
    let paths: Vec<String> = (0..n_files)
        .map(|i| format!("src/module{:03}/file{i}.c", i % 40))
        .collect();
    // Hits vary in width like real counts do.
    let hits = |f: usize, l: usize| ((f * 7919 + l * 104_729) % 100_000) as u64 * (l % 3) as u64;

    let mut lcov = String::new();
    let mut xml = String::from(
        "<?xml version='1.0' encoding='utf-8'?>\n<coverage line-rate=\"0.5\"><sources><source>/home/ci/build</source></sources><packages><package name=\"\"><classes>\n",
    );
    let mut json = String::from(
        "{\"format_version\": \"1\", \"gcc_version\": \"12.2.0\", \"current_working_directory\": \"/home/ci/build\", \"files\": [",
    );
    let mut gcovr = String::from("{\"gcovr/format_version\": \"0.15\", \"files\": [");
    let mut coveragepy = String::from(
        "{\"meta\": {\"format\": 3, \"version\": \"7.17.3\", \"branch_coverage\": false, \"show_contexts\": false}, \"files\": {",
    );
    let mut written = 0;
    for (f, path) in paths.iter().enumerate() {
        let n = LINES_PER_FILE.min(total - written);
        writeln!(
            lcov,
            "TN:\nSF:/home/ci/build/{path}\nFN:1,f{f}\nFNDA:1,f{f}"
        )
        .unwrap();
        writeln!(
            xml,
            "<class name=\"c{f}\" filename=\"{path}\"><methods/><lines>"
        )
        .unwrap();
        write!(
            json,
            "{}{{\"file\": \"{path}\", \"functions\": [], \"lines\": [",
            if f > 0 { ", " } else { "" }
        )
        .unwrap();
        let sep = if f > 0 { ", " } else { "" };
        write!(
            gcovr,
            "{sep}{{\"file\": \"{path}\", \"functions\": [], \"lines\": ["
        )
        .unwrap();
        let (mut executed, mut missing) = (Vec::new(), Vec::new());
        for l in 1..=n {
            let h = hits(f, l);
            write!(
                gcovr,
                "{}{{\"line_number\": {l}, \"function_name\": \"f{f}\", \"count\": {h}, \"branches\": [], \"gcovr/md5\": \"0c8e0d2eea7cb12ba6799395e883b3b6\"}}",
                if l > 1 { ", " } else { "" }
            )
            .unwrap();
            if h > 0 {
                executed.push(l.to_string());
            } else {
                missing.push(l.to_string());
            }
            writeln!(lcov, "DA:{l},{h}").unwrap();
            writeln!(xml, "<line number=\"{l}\" hits=\"{h}\" branch=\"false\"/>").unwrap();
            write!(
                json,
                "{}{{\"branches\": [], \"count\": {h}, \"line_number\": {l}, \"unexecuted_block\": false, \"function_name\": \"f{f}\"}}",
                if l > 1 { ", " } else { "" }
            )
            .unwrap();
        }
        writeln!(lcov, "LF:{n}\nLH:{n}\nend_of_record").unwrap();
        writeln!(xml, "</lines></class>").unwrap();
        json.push_str("]}");
        gcovr.push_str("]}");
        write!(
            coveragepy,
            "{sep}\"{path}\": {{\"executed_lines\": [{}], \"summary\": {{\"covered_lines\": {}}}, \"missing_lines\": [{}], \"excluded_lines\": []}}",
            executed.join(", "),
            executed.len(),
            missing.join(", ")
        )
        .unwrap();
        written += n;
    }
    xml.push_str("</classes></package></packages></coverage>\n");
    json.push_str("]}\n");
    gcovr.push_str("]}\n");
    coveragepy.push_str("}, \"totals\": {}}\n");

    let lcov_path = dir.path().join("lcov.info");
    let xml_path = dir.path().join("coverage.xml");
    let json_path = dir.path().join("prog.gcov.json");
    let gz_path = dir.path().join("prog.gcov.json.gz");
    let gcovr_path = dir.path().join("gcovr.json");
    let coveragepy_path = dir.path().join("coverage.json");
    std::fs::write(&gcovr_path, &gcovr).expect("write");
    std::fs::write(&coveragepy_path, &coveragepy).expect("write");
    std::fs::write(&lcov_path, &lcov).expect("write");
    std::fs::write(&xml_path, &xml).expect("write");
    std::fs::write(&json_path, &json).expect("write");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(json.as_bytes()).expect("gzip");
    std::fs::write(&gz_path, gz.finish().expect("gzip")).expect("write");

    println!("{total} lines in {n_files} files");
    for path in [
        &lcov_path,
        &xml_path,
        &json_path,
        &gz_path,
        &gcovr_path,
        &coveragepy_path,
    ] {
        let bytes = std::fs::metadata(path).expect("stat").len() as f64;
        let (best, lines) = best_of(5, || {
            let r = read_report(path).unwrap_or_else(|e| panic!("{e}"));
            r.files.iter().map(|f| f.lines.len()).sum::<usize>()
        });
        assert_eq!(lines, total, "{}", path.display());
        let s = best.as_secs_f64();
        println!(
            "{:>16}: {:7.1} MB on disk  {:8.1} ms  {:7.1} MB/s  {:6.2} M lines/s",
            path.file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default(),
            bytes / 1e6,
            s * 1e3,
            bytes / 1e6 / s,
            total as f64 / 1e6 / s
        );
    }

    let report = read_report(&lcov_path).expect("lcov");
    let repo: Vec<&str> = paths.iter().map(String::as_str).collect();
    let (best, mapped) = best_of(5, || {
        RepoCoverage::build(std::slice::from_ref(&report), &repo, &[])
            .stats
            .mapped_files
    });
    assert_eq!(mapped, n_files);
    println!(
        "RepoCoverage::build (suffix mapping of absolute paths): {:.1} ms",
        best.as_secs_f64() * 1e3
    );
}

fn best_of<T>(n: usize, mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut best = Duration::MAX;
    let mut out = None;
    for _ in 0..n {
        let t = Instant::now();
        let v = f();
        best = best.min(t.elapsed());
        out = Some(v);
    }
    (best, out.expect("n > 0"))
}
