//! The integration tests of codemine-pii, one test binary with a module per subject: the
//! fixture corpus (`fixtures/`), bigcode-dataset's e-mail and IP rules, and agreement with
//! detect-secrets.

mod bigcode;
mod detect_secrets;
mod fixtures;
mod support;
