//! The integration tests of codemine-cli, one test binary with a module per subject.

mod filter_flags;
