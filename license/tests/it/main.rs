//! The integration tests of codemine-license.

mod license;
