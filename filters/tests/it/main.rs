//! The integration tests of codemine-filters, one test binary with a module per subject, so that a
//! change links one test executable instead of one per file.

mod config;
mod decontam;
mod dedup;
mod english;
mod rules;
