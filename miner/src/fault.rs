//! Fault injection for the crash-safety tests: with `CODEMINE_FAULT=N` the process aborts
//! (SIGABRT: no destructors, no flushing, as a kill) at the Nth fault point it reaches;
//! with `CODEMINE_FAULT_TRACE=1` it names every point it passes on stderr. Fault points sit
//! between the steps whose outputs a rerun must recognise: each staged chunk, the cluster
//! step, each final table, the side files, the staging hand-over and each cleanup removal.
//! Without the variables a point costs one relaxed load.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::LazyLock;

static TARGET: LazyLock<Option<usize>> = LazyLock::new(|| {
    std::env::var("CODEMINE_FAULT")
        .ok()
        .and_then(|v| v.parse().ok())
});
static TRACE: LazyLock<bool> = LazyLock::new(|| std::env::var_os("CODEMINE_FAULT_TRACE").is_some());
static REACHED: AtomicUsize = AtomicUsize::new(0);

/// A point where a kill must leave the output folder in a state a rerun recognises.
pub fn point(name: &str) {
    if TARGET.is_none() && !*TRACE {
        return;
    }
    let n = REACHED.fetch_add(1, Ordering::SeqCst) + 1;
    if *TRACE {
        crate::escape::log(&format!("codemine: fault point {n}: {name}"));
    }
    if *TARGET == Some(n) {
        crate::escape::log(&format!("codemine: fault injected at point {n} ({name})"));
        std::process::abort();
    }
}
