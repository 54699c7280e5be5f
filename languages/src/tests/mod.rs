//! The core (`codemine-syntax`) under every registered language: what its own tests check
//! with a toy language, checked again with the real ones and their fixtures.

mod params;
mod recovery;
mod walk;
mod windows;
