//! The metric registry: every metric is a [`Scorer`] that scores a [`Batch`] of joined
//! examples into [`MetricScores`] — per-example values where the metric has them, and an
//! aggregate over any subset of examples (the whole set, or one `--by` group).
//!
//! Adding a metric (CodeBLEU, say) is one `impl Scorer` plus one arm in [`scorer`] and a
//! line in [`METRICS`]; corpus-level metrics return [`Aggregate::Corpus`] with a closure
//! over their per-example sufficient statistics.
//!
//! ```
//! use codemine_eval::metric::{scorer, Batch};
//! let preds = vec!["return a + b".to_string()];
//! let refs = vec!["return a+b".to_string()];
//! let langs = vec![Some("python".to_string())];
//! let batch = Batch { predictions: &preds, references: &refs, languages: &langs };
//! let s = scorer("edit_sim").unwrap().score(&batch).unwrap();
//! assert!(s.aggregate(&[0]) > 90.0);
//! ```

use crate::summarization::{self as sum, MeteorStages};
use crate::{generation as gen, Error, Task};

/// The joined examples a metric scores: predictions, references and the language of each
/// example (`python`, `java`, `c`, `cpp` when the dataset says; see
/// [`crate::dataset::normalize_language`]).
pub struct Batch<'a> {
    pub predictions: &'a [String],
    pub references: &'a [String],
    pub languages: &'a [Option<String>],
}

/// A corpus-level score of the examples at the given indices.
pub type CorpusFn = Box<dyn Fn(&[usize]) -> f64 + Send + Sync>;

/// How a metric's aggregate is computed over a set of examples.
pub enum Aggregate {
    /// The mean of the per-example values, times `scale`.
    Mean { scale: f64 },
    /// A corpus-level score computed from per-example statistics the closure holds (nltk
    /// corpus BLEU). Called with the indices of the examples to aggregate.
    Corpus(CorpusFn),
}

/// A metric's result on a batch.
pub struct MetricScores {
    /// One value per example, where the metric has a per-example value.
    pub per_example: Option<Vec<f64>>,
    pub aggregate: Aggregate,
}

impl MetricScores {
    /// The aggregate over the examples at `rows` (0 when `rows` is empty).
    pub fn aggregate(&self, rows: &[usize]) -> f64 {
        match &self.aggregate {
            Aggregate::Mean { scale } => match &self.per_example {
                Some(v) if !rows.is_empty() => {
                    rows.iter().map(|&i| v[i]).sum::<f64>() / rows.len() as f64 * scale
                }
                _ => 0.0,
            },
            Aggregate::Corpus(f) => f(rows),
        }
    }
}

/// A metric.
pub trait Scorer: Send + Sync {
    /// Its name in reports and on the command line.
    fn name(&self) -> &'static str;
    fn score(&self, batch: &Batch<'_>) -> Result<MetricScores, Error>;
}

/// A metric's name, task and one-line description (scale and reference implementation).
pub struct MetricInfo {
    pub name: &'static str,
    pub task: Task,
    pub default: bool,
    pub about: &'static str,
}

/// Every metric `scorer` knows, in report order.
pub const METRICS: &[MetricInfo] = &[
    MetricInfo {
        name: "smoothed_bleu",
        task: Task::Summarization,
        default: true,
        about: "CodeXGLUE Code-Text smoothed sentence BLEU-4, averaged, 0-100",
    },
    MetricInfo {
        name: "corpus_bleu",
        task: Task::Summarization,
        default: true,
        about: "nltk corpus_bleu, whitespace tokens, no smoothing, 0-1",
    },
    MetricInfo {
        name: "rouge_l",
        task: Task::Summarization,
        default: true,
        about: "rouge-score ROUGE-L F-measure, default tokenizer, no stemmer, 0-1",
    },
    MetricInfo {
        name: "rouge_l_stem",
        task: Task::Summarization,
        default: false,
        about: "rouge-score ROUGE-L F-measure with use_stemmer=True, 0-1",
    },
    MetricInfo {
        name: "meteor",
        task: Task::Summarization,
        default: true,
        about: "nltk meteor_score, exact + Porter stem stages (no WordNet synonyms), 0-1",
    },
    MetricInfo {
        name: "meteor_exact",
        task: Task::Summarization,
        default: false,
        about: "nltk meteor_score, exact-match stage only, 0-1",
    },
    MetricInfo {
        name: "cider",
        task: Task::Summarization,
        default: true,
        about: "pycocoevalcap CIDEr (CIDEr-D formula, sigma 6), whitespace tokens, 0-10",
    },
    MetricInfo {
        name: "exact_match",
        task: Task::Generation,
        default: true,
        about: "CodeXGLUE line completion EM (whitespace-split tokens equal), percent",
    },
    MetricInfo {
        name: "edit_sim",
        task: Task::Generation,
        default: true,
        about: "CodeXGLUE line completion edit similarity, rapidfuzz fuzz.ratio, 0-100",
    },
    MetricInfo {
        name: "edit_sim_fuzzywuzzy",
        task: Task::Generation,
        default: false,
        about: "the same with fuzzywuzzy's integer fuzz.ratio (Levenshtein backend), 0-100",
    },
];

/// The metrics a task reports when none are named.
pub fn default_metrics(task: Task) -> Vec<&'static str> {
    METRICS
        .iter()
        .filter(|m| m.task == task && m.default)
        .map(|m| m.name)
        .collect()
}

/// The metric called `name`.
pub fn scorer(name: &str) -> Option<Box<dyn Scorer>> {
    let s: Box<dyn Scorer> = match name {
        "smoothed_bleu" => Box::new(PerExample("smoothed_bleu", 1.0, |p, r| {
            Ok(sum::smoothed_bleu(p, r))
        })),
        "corpus_bleu" => Box::new(CorpusBleu),
        "rouge_l" => Box::new(PerExample("rouge_l", 1.0, |p, r| {
            Ok(sum::rouge_l_all(p, r, false))
        })),
        "rouge_l_stem" => Box::new(PerExample("rouge_l_stem", 1.0, |p, r| {
            Ok(sum::rouge_l_all(p, r, true))
        })),
        "meteor" => Box::new(PerExample("meteor", 1.0, |p, r| {
            Ok(sum::meteor_all(p, r, MeteorStages::ExactStem))
        })),
        "meteor_exact" => Box::new(PerExample("meteor_exact", 1.0, |p, r| {
            Ok(sum::meteor_all(p, r, MeteorStages::Exact))
        })),
        "cider" => Box::new(PerExample("cider", 1.0, |p, r| Ok(sum::cider(p, r)))),
        "exact_match" => Box::new(PerExample("exact_match", 100.0, |p, r| {
            Ok(gen::per_example(p, r, gen::exact_match))
        })),
        "edit_sim" => Box::new(PerExample("edit_sim", 1.0, |p, r| {
            Ok(gen::per_example(p, r, gen::edit_sim))
        })),
        "edit_sim_fuzzywuzzy" => Box::new(PerExample("edit_sim_fuzzywuzzy", 1.0, |p, r| {
            Ok(gen::per_example(p, r, gen::edit_sim_fuzzywuzzy))
        })),
        _ => return None,
    };
    Some(s)
}

type PerExampleFn = fn(&[String], &[String]) -> Result<Vec<f64>, Error>;

/// A metric that is the mean of per-example values (times a scale).
struct PerExample(&'static str, f64, PerExampleFn);

impl Scorer for PerExample {
    fn name(&self) -> &'static str {
        self.0
    }

    fn score(&self, batch: &Batch<'_>) -> Result<MetricScores, Error> {
        Ok(MetricScores {
            per_example: Some((self.2)(batch.predictions, batch.references)?),
            aggregate: Aggregate::Mean { scale: self.1 },
        })
    }
}

/// nltk's corpus BLEU: no per-example value; any subset aggregates its statistics.
struct CorpusBleu;

impl Scorer for CorpusBleu {
    fn name(&self) -> &'static str {
        "corpus_bleu"
    }

    fn score(&self, batch: &Batch<'_>) -> Result<MetricScores, Error> {
        let stats = sum::corpus_bleu_stats(batch.predictions, batch.references);
        Ok(MetricScores {
            per_example: None,
            aggregate: Aggregate::Corpus(Box::new(move |rows| {
                sum::corpus_bleu_from_stats(rows.iter().map(|&i| &stats[i]))
            })),
        })
    }
}
