//! The `codemine` command line; everything it does lives in [`miner::cli`].

fn main() {
    std::process::exit(miner::cli::main());
}
