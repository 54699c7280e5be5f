//! Progress of `codemine mine`: bars on a terminal (indicatif), plain log lines otherwise
//! (CI, pipes).

use std::io::IsTerminal;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};

use miner::pipeline::Progress;
use miner::stats::{Failure, RepoStats};

/// Progress bars on a terminal; plain lines otherwise (CI, pipes).
pub struct Display {
    quiet: bool,
    verbose: bool,
    bars: Option<(MultiProgress, ProgressBar, ProgressBar)>,
    files_total: AtomicUsize,
    lock: Mutex<()>,
}

impl Display {
    pub fn new(repos: usize, quiet: bool, verbose: bool) -> Self {
        let interactive =
            !quiet && std::io::stderr().is_terminal() && std::env::var_os("CI").is_none();
        let bars = interactive.then(|| {
            let multi = MultiProgress::with_draw_target(ProgressDrawTarget::stderr());
            let style = |t: &str| {
                ProgressStyle::with_template(t).unwrap_or_else(|_| ProgressStyle::default_bar())
            };
            let r = multi.add(ProgressBar::new(repos as u64));
            r.set_style(style("{prefix:>6} [{bar:30}] {pos}/{len} {msg}"));
            r.set_prefix("repos");
            let f = multi.add(ProgressBar::new(0));
            f.set_style(style(
                "{prefix:>6} [{bar:30}] {pos}/{len} {per_sec} eta {eta}",
            ));
            f.set_prefix("files");
            f.enable_steady_tick(Duration::from_millis(200));
            (multi, r, f)
        });
        Self {
            quiet,
            verbose,
            bars,
            files_total: AtomicUsize::new(0),
            lock: Mutex::new(()),
        }
    }

    fn line(&self, msg: String) {
        match &self.bars {
            Some((m, _, _)) => {
                let _ = m.println(miner::escape::visible(&msg));
            }
            None => {
                let _guard = self.lock.lock();
                miner::escape::log(&msg);
            }
        }
    }

    pub fn finish(&self) {
        if let Some((_, r, f)) = &self.bars {
            f.finish_and_clear();
            r.finish_and_clear();
        }
    }
}

impl Progress for Display {
    fn repo_listed(&self, _repo: &str, files: usize) {
        let total = self.files_total.fetch_add(files, Ordering::Relaxed) + files;
        if let Some((_, _, f)) = &self.bars {
            f.set_length(total as u64);
        }
    }

    fn file_done(&self) {
        if let Some((_, _, f)) = &self.bars {
            f.inc(1);
        }
    }

    fn repo_finished(&self, s: &RepoStats, failure: Option<&Failure>) {
        if let Some((_, r, _)) = &self.bars {
            r.inc(1);
            r.set_message(miner::escape::visible(&s.repo).into_owned());
        }
        if let Some(f) = failure {
            // Failures are errors: shown even with --quiet.
            self.line(format!("codemine: {} failed: {}", f.source, f.reason));
            return;
        }
        if self.verbose {
            let failed: usize = s.files_failed.values().sum();
            if failed > 0 {
                self.line(format!(
                    "codemine: {}: {failed} files skipped (see failures.jsonl)",
                    s.repo
                ));
            }
        }
        if !self.quiet && (self.bars.is_none() || self.verbose) {
            self.line(format!(
                // The rows of a repository before dedup, which runs across the run once
                // every repository is mined: the closing line gives the rows written.
                "codemine: mined {}{}: {} files, {} functions, {} rows before cross-repository dedup ({:.2} s)",
                s.repo,
                s.sha
                    .as_deref()
                    .map(|h| format!("@{}", &h[..h.len().min(12)]))
                    .unwrap_or_default(),
                s.totals.files,
                s.totals.functions,
                s.totals.csn_rows,
                s.source_seconds + s.extract_seconds,
            ));
        }
    }
}
