//! The integration tests of codemine-miner, one test binary with a module per subject, so that a
//! change links one test executable instead of one per file.

mod completion;
mod license;
