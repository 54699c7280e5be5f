//! `codemine eval`: scores predictions against the references of a mined dataset with
//! the metrics the field reports, matching the reference implementations' numbers.
//!
//! - [`summarization`]: code → docstring metrics (CodeXGLUE smoothed BLEU, nltk corpus
//!   BLEU, ROUGE-L, METEOR, CIDEr).
//! - [`generation`]: docstring + context → body metrics (exact match, edit similarity).
//! - [`codebleu`]: CodeBLEU for Python, Java, C and C++.

pub mod codebleu;
pub mod generation;
pub mod summarization;
