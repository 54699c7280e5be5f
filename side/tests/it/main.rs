//! The integration tests of codemine-side, one test binary with a module per subject, so that a
//! change links one test executable instead of one per file.

mod real_model;
mod reference;
