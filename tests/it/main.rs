//! The integration tests of codemine, one test binary with a module per subject, so that a
//! change links one test executable instead of one per file.

mod bad_input;
mod callgraph;
mod card;
mod cli;
mod completion;
mod coverage;
mod coverage_reports;
mod decontam;
mod dedup;
mod docs;
mod docstring_params;
mod eval;
mod extraction;
mod filters;
mod history;
mod hostile;
mod inspect;
mod lang_go;
mod lang_javascript;
mod lang_php;
mod lang_ruby;
mod licenses;
mod locks;
mod passk;
mod pii;
mod python_flow;
mod repo_completion;
mod report;
mod run_tests;
mod sharding;
mod side_mine;
mod sources;
mod spark;
mod tables;
mod yabloco;
