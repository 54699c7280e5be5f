//! The integration tests of codemine-eval, one test binary with a module per subject, so that a
//! change links one test executable instead of one per file.

mod codebleu;
mod codebleu_cases;
mod codesum;
mod pytokenize;
mod reference;
mod repo_completion;
mod support;
