//! CodeBLEU (Ren et al. 2020) for Python, Java, C and C++, reproducing the `codebleu` PyPI
//! package (k4black/codebleu 0.7.0) number for number:
//!
//! `codebleu = α·ngram + β·weighted_ngram + γ·syntax + θ·(dataflow or 1)`
//!
//! - n-gram match: nltk-style corpus BLEU-4 on whitespace tokens (`bleu`);
//! - weighted n-gram match: the same with keyword-weighted unigrams, as a recall, with the
//!   package's brevity-penalty quirk (`bleu`, keyword lists in `keywords`);
//! - syntax match: share of the reference's tree-sitter subtrees found in the prediction
//!   (`syntax`), after the package's comment and docstring removal (`preprocess`);
//! - data-flow match: share of the reference's normalised data-flow edges found in the
//!   prediction (`dataflow`); C and C++ use the package's C# extractor, as it does.
//!
//! All four are corpus-level: statistics are summed over examples before dividing. A
//! per-example score is the corpus score of that example alone (what the package returns for
//! a one-example call). [`CodeBleuStats`] are the summable statistics, so any grouping of
//! examples can be scored without parsing again.
//!
//! Quirks of the package reproduced on purpose:
//! - a data-flow score of 0 (no reference data flow in the corpus, or no match) enters the
//!   combined score as 1 (`dataflow_match_score or 1`); the component itself is reported
//!   as 0;
//! - with several references, the prediction's comment removal is re-applied once per
//!   reference, cumulatively;
//! - Python docstrings and comments are removed by re-tokenising with CPython 3.11's
//!   `tokenize` (ported in `preprocess`), which rebuilds indentation from token columns:
//!   tab-indented code comes out with broken indentation, and so with syntax errors;
//! - the data-flow match depends on CPython's set iteration order, so on `PYTHONHASHSEED`:
//!   the package gives different data-flow scores from run to run unless the seed is fixed.
//!   [`CodeBleuScorer::with_hash_seed`] picks the seed to reproduce (default 0, i.e.
//!   `PYTHONHASHSEED=0`, CPython 3.11 or later).
//!
//! Known differences:
//! - grammars: the package can only run with older tree-sitter grammars than the
//!   workspace's (see `tests/requirements.txt`); `compat` reproduces the old node names, and
//!   lists the changes of tree shape it does not. Error recovery differs between versions
//!   too, so on code with syntax errors ([`CodeBleuStats::parse_errors`]) the syntax and
//!   data-flow matches can differ;
//! - depth: the reference recurses in Python and gives no data flow for trees deeper than
//!   its recursion limit (about 990 levels); this port has no depth limit (and no
//!   recursion). It gives up on the data flow of code with about 18 nested loops
//!   ([`CodeBleuStats::dataflow_given_up`]), where the package would take minutes;
//! - Unicode: the Python tokenizer's `\w` follows this build's Unicode tables, CPython 3.11
//!   its Unicode 14 ones.

mod bleu;
mod compat;
mod dataflow;
mod keywords;
mod preprocess;
mod pyrt;
mod syntax;
mod tree;

use std::fmt;
use std::str::FromStr;

use serde::Serialize;

use pyrt::{FxHashSet, HashKey};

/// A language CodeBLEU can score.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Language {
    Python,
    Java,
    C,
    Cpp,
}

impl Language {
    /// The package's name for the language (`python`, `java`, `c`, `cpp`).
    pub fn name(self) -> &'static str {
        match self {
            Language::Python => "python",
            Language::Java => "java",
            Language::C => "c",
            Language::Cpp => "cpp",
        }
    }

    fn grammar(self) -> tree_sitter::Language {
        match self {
            Language::Python => tree_sitter_python::LANGUAGE.into(),
            Language::Java => tree_sitter_java::LANGUAGE.into(),
            Language::C => tree_sitter_c::LANGUAGE.into(),
            Language::Cpp => tree_sitter_cpp::LANGUAGE.into(),
        }
    }

    fn keywords(self) -> &'static [&'static str] {
        match self {
            Language::Python => keywords::PYTHON,
            Language::Java => keywords::JAVA,
            Language::C => keywords::C,
            Language::Cpp => keywords::CPP,
        }
    }
}

impl fmt::Display for Language {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Language {
    type Err = CodeBleuError;

    /// `python`, `java`, `c`, `cpp` (also `c++`), in any case.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "python" => Ok(Language::Python),
            "java" => Ok(Language::Java),
            "c" => Ok(Language::C),
            "cpp" | "c++" => Ok(Language::Cpp),
            _ => Err(CodeBleuError::UnknownLanguage(s.to_string())),
        }
    }
}

/// The weights of the four components (α, β, γ, θ), 0.25 each by default.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Weights {
    pub ngram: f64,
    pub weighted_ngram: f64,
    pub syntax: f64,
    pub dataflow: f64,
}

impl Default for Weights {
    fn default() -> Self {
        Self {
            ngram: 0.25,
            weighted_ngram: 0.25,
            syntax: 0.25,
            dataflow: 0.25,
        }
    }
}

/// CodeBLEU and its components, the package's `calc_codebleu` result.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct CodeBleuScore {
    pub codebleu: f64,
    pub ngram_match: f64,
    pub weighted_ngram_match: f64,
    pub syntax_match: f64,
    /// 0 when the references have no data flow at all (the package then warns) or none of
    /// it is matched; `codebleu` then counts it as 1.
    pub dataflow_match: f64,
}

#[derive(Debug, thiserror::Error)]
pub enum CodeBleuError {
    #[error("{references} reference entries but {predictions} predictions")]
    LengthMismatch {
        references: usize,
        predictions: usize,
    },
    #[error("example {index} has no reference")]
    NoReference { index: usize },
    #[error("no examples to score")]
    Empty,
    #[error("unknown CodeBLEU language {0:?} (expected python, java, c or cpp)")]
    UnknownLanguage(String),
    #[error("loading the tree-sitter grammar for {lang}: {source}")]
    Grammar {
        lang: Language,
        #[source]
        source: tree_sitter::LanguageError,
    },
    #[error("tree-sitter gave no tree for example {index}")]
    Parse { index: usize },
}

/// The summable statistics of one or more examples: every component's numerators and
/// denominators. Merge in example order to reproduce the package's floating-point sums.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CodeBleuStats {
    ngram: bleu::BleuStats,
    weighted_ngram: bleu::BleuStats,
    syntax_matches: u64,
    syntax_total: u64,
    dataflow_matches: u64,
    dataflow_total: u64,
    parse_errors: u64,
    dataflow_given_up: u64,
    examples: u64,
}

impl CodeBleuStats {
    /// Adds the statistics of later examples.
    pub fn merge(&mut self, other: &CodeBleuStats) {
        self.ngram.add(&other.ngram);
        self.weighted_ngram.add(&other.weighted_ngram);
        self.syntax_matches += other.syntax_matches;
        self.syntax_total += other.syntax_total;
        self.dataflow_matches += other.dataflow_matches;
        self.dataflow_total += other.dataflow_total;
        self.parse_errors += other.parse_errors;
        self.dataflow_given_up += other.dataflow_given_up;
        self.examples += other.examples;
    }

    /// The statistics of several examples, merged in order.
    pub fn sum<'a>(stats: impl IntoIterator<Item = &'a CodeBleuStats>) -> CodeBleuStats {
        let mut total = CodeBleuStats::default();
        for s in stats {
            total.merge(s);
        }
        total
    }

    /// How many examples these statistics cover.
    pub fn examples(&self) -> u64 {
        self.examples
    }

    /// Matched and total reference subtrees of the syntax match.
    pub fn syntax_counts(&self) -> (u64, u64) {
        (self.syntax_matches, self.syntax_total)
    }

    /// Matched and total reference data-flow edges of the data-flow match.
    pub fn dataflow_counts(&self) -> (u64, u64) {
        (self.dataflow_matches, self.dataflow_total)
    }

    /// How many of the parsed codes had syntax errors (a prediction is parsed once per
    /// reference, as the package does). On those the syntax and data-flow matches compare
    /// error-recovery trees, which depend on the tree-sitter version.
    pub fn parse_errors(&self) -> u64 {
        self.parse_errors
    }

    /// How many of the parsed codes had their data flow abandoned: the walk visits every loop
    /// twice, so nested loops cost 2^depth node visits, and past 4 million (about 18 nested
    /// loops) the code is given no data flow. The package has no limit (it would take
    /// minutes on such code).
    pub fn dataflow_given_up(&self) -> u64 {
        self.dataflow_given_up
    }

    /// CodeBLEU of the examples these statistics cover. [`CodeBleuError::Empty`] for none
    /// (the package divides by zero).
    pub fn score(&self, weights: Weights) -> Result<CodeBleuScore, CodeBleuError> {
        if self.examples == 0 || self.syntax_total == 0 {
            return Err(CodeBleuError::Empty);
        }
        let ngram_match = self.ngram.score();
        let weighted_ngram_match = self.weighted_ngram.score();
        let syntax_match = self.syntax_matches as f64 / self.syntax_total as f64;
        let dataflow_match = if self.dataflow_total == 0 {
            0.0
        } else {
            self.dataflow_matches as f64 / self.dataflow_total as f64
        };
        let dataflow_term = if dataflow_match == 0.0 {
            1.0
        } else {
            dataflow_match
        };
        Ok(CodeBleuScore {
            codebleu: weights.ngram * ngram_match
                + weights.weighted_ngram * weighted_ngram_match
                + weights.syntax * syntax_match
                + weights.dataflow * dataflow_term,
            ngram_match,
            weighted_ngram_match,
            syntax_match,
            dataflow_match,
        })
    }
}

/// Scores examples of one language. Holds a tree-sitter parser, so one per thread.
pub struct CodeBleuScorer {
    lang: Language,
    parser: tree_sitter::Parser,
    keywords: FxHashSet<&'static str>,
    hash_key: HashKey,
    subtree_ids: syntax::Interner,
}

/// What the syntax and data-flow matches need of one piece of code.
struct Analysis {
    subtrees: Vec<u32>,
    flows: dataflow::DataFlow,
    has_error: bool,
}

impl CodeBleuScorer {
    /// A scorer reproducing the package under `PYTHONHASHSEED=0`.
    pub fn new(lang: Language) -> Result<Self, CodeBleuError> {
        let mut parser = tree_sitter::Parser::new();
        parser
            .set_language(&lang.grammar())
            .map_err(|source| CodeBleuError::Grammar { lang, source })?;
        Ok(Self {
            lang,
            parser,
            keywords: lang.keywords().iter().copied().collect(),
            hash_key: HashKey::from_seed(0),
            subtree_ids: syntax::Interner::default(),
        })
    }

    /// Reproduces the package run with `PYTHONHASHSEED=seed` (0, the default, disables
    /// CPython's hash randomisation). Only the data-flow match depends on it.
    pub fn with_hash_seed(mut self, seed: u32) -> Self {
        self.hash_key = HashKey::from_seed(seed);
        self
    }

    /// The language this scorer parses.
    pub fn language(&self) -> Language {
        self.lang
    }

    /// The statistics of one example: a prediction and its references. `index` only labels
    /// errors.
    pub fn example<S: AsRef<str>>(
        &mut self,
        index: usize,
        references: &[S],
        prediction: &str,
    ) -> Result<CodeBleuStats, CodeBleuError> {
        if references.is_empty() {
            return Err(CodeBleuError::NoReference { index });
        }
        let refs: Vec<&str> = references.iter().map(|r| pyrt::strip(r.as_ref())).collect();
        let hyp = pyrt::strip(prediction);

        let tokens = bleu::Tokenized::new(hyp, &refs, |t| self.keywords.contains(t));
        let mut stats = CodeBleuStats {
            ngram: bleu::ngram_stats(&tokens),
            weighted_ngram: bleu::weighted_ngram_stats(&tokens),
            examples: 1,
            ..CodeBleuStats::default()
        };

        self.subtree_ids.clear();
        let mut candidate = hyp.to_string();
        let mut analysed: Option<(String, Analysis)> = None;
        for reference in refs {
            // The package re-cleans the prediction for every reference.
            candidate = preprocess::remove_comments_and_docstrings(&candidate, self.lang);
            let reference = preprocess::remove_comments_and_docstrings(reference, self.lang);
            if analysed.as_ref().is_none_or(|(code, _)| *code != candidate) {
                let a = self.analyse(index, &candidate)?;
                analysed = Some((candidate.clone(), a));
            }
            let Some((_, cand)) = analysed.as_ref() else {
                continue;
            };
            let refa = self.analyse(index, &reference)?;

            stats.parse_errors += u64::from(cand.has_error) + u64::from(refa.has_error);
            stats.dataflow_given_up +=
                u64::from(cand.flows.gave_up) + u64::from(refa.flows.gave_up);
            let cand_subtrees: FxHashSet<u32> = cand.subtrees.iter().copied().collect();
            stats.syntax_matches += refa
                .subtrees
                .iter()
                .filter(|s| cand_subtrees.contains(s))
                .count() as u64;
            stats.syntax_total += refa.subtrees.len() as u64;

            if !refa.flows.flows.is_empty() {
                stats.dataflow_total += refa.flows.flows.len() as u64;
                stats.dataflow_matches += dataflow::matches(&cand.flows.flows, &refa.flows.flows);
            }
        }
        Ok(stats)
    }

    fn analyse(&mut self, index: usize, code: &str) -> Result<Analysis, CodeBleuError> {
        let tree = self
            .parser
            .parse(code, None)
            .ok_or(CodeBleuError::Parse { index })?;
        let flat = tree::Flat::new(&tree, self.lang);
        Ok(Analysis {
            subtrees: syntax::subtrees(&flat, self.lang, &mut self.subtree_ids),
            flows: dataflow::data_flow(&flat, code, self.lang, &self.hash_key),
            has_error: tree.root_node().has_error(),
        })
    }
}

/// Per-example statistics of a corpus (examples scored in parallel).
pub fn codebleu_stats<R, S, P>(
    references: &[R],
    predictions: &[P],
    lang: Language,
) -> Result<Vec<CodeBleuStats>, CodeBleuError>
where
    R: AsRef<[S]> + Sync,
    S: AsRef<str>,
    P: AsRef<str> + Sync,
{
    use rayon::prelude::*;

    if references.len() != predictions.len() {
        return Err(CodeBleuError::LengthMismatch {
            references: references.len(),
            predictions: predictions.len(),
        });
    }
    // Fail on the grammar once, before the workers (which then cannot fail on it, but the
    // error is not `Clone`, so a worker that did would make its own).
    CodeBleuScorer::new(lang)?;
    references
        .par_iter()
        .zip(predictions.par_iter())
        .enumerate()
        .map_init(
            || CodeBleuScorer::new(lang),
            |scorer, (i, (r, p))| match scorer {
                Ok(s) => s.example(i, r.as_ref(), p.as_ref()),
                Err(_) => CodeBleuScorer::new(lang)?.example(i, r.as_ref(), p.as_ref()),
            },
        )
        .collect()
}

/// Corpus-level CodeBLEU, the package's `calc_codebleu(references, predictions, lang,
/// weights)`. `references[i]` holds the references of `predictions[i]`.
pub fn codebleu<R, S, P>(
    references: &[R],
    predictions: &[P],
    lang: Language,
    weights: Weights,
) -> Result<CodeBleuScore, CodeBleuError>
where
    R: AsRef<[S]> + Sync,
    S: AsRef<str>,
    P: AsRef<str> + Sync,
{
    let stats = codebleu_stats(references, predictions, lang)?;
    CodeBleuStats::sum(&stats).score(weights)
}

/// CodeBLEU of every example alone (the package called with one example).
pub fn codebleu_per_example<R, S, P>(
    references: &[R],
    predictions: &[P],
    lang: Language,
    weights: Weights,
) -> Result<Vec<CodeBleuScore>, CodeBleuError>
where
    R: AsRef<[S]> + Sync,
    S: AsRef<str>,
    P: AsRef<str> + Sync,
{
    codebleu_stats(references, predictions, lang)?
        .iter()
        .map(|s| s.score(weights))
        .collect()
}
