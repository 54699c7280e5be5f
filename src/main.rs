//! The `codemine` binary: everything it does lives in [`miner::cli`] (the library crates).

fn main() {
    std::process::exit(miner::cli::main());
}
