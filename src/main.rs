//! The `codemine` binary: its command line is `codemine_cli`, the work is in the library
//! crates below it (docs/design.md, "Layout").

// jemalloc keeps less freed memory resident than glibc's malloc when a large repository
// frees its call sites between the functions that outlive them (BENCHMARKS.md, issue 22).
#[cfg(not(target_env = "msvc"))]
#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() {
    std::process::exit(codemine_cli::main());
}
