//! The integration tests of codemine-completion.

mod completion;
