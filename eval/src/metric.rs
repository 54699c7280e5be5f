//! The metric registry: every metric is a [`Scorer`] that scores a [`Batch`] of joined
//! examples into [`MetricScores`] — per-example values where the metric has them, and an
//! aggregate over any subset of examples (the whole set, or one `--by` group).
//!
//! Adding a metric is one `impl Scorer` plus one arm in [`scorers`] and a line in
//! [`METRICS`]; corpus-level metrics return [`Aggregate::Corpus`] with a closure over their
//! per-example sufficient statistics (nltk corpus BLEU, CodeBLEU).
//!
//! CodeBLEU and its four components are five metrics that share one parse of the batch:
//! the scorers [`scorers`] makes for them in one call compute the per-example statistics
//! once.
//!
//! ```
//! use codemine_eval::metric::{scorer, Batch};
//! let preds = vec!["return a + b".to_string()];
//! let refs = vec!["return a+b".to_string()];
//! let langs = vec![Some("python".to_string())];
//! let batch = Batch { predictions: &preds, references: &refs, languages: &langs, codes: &[] };
//! let s = scorer("edit_sim").unwrap().score(&batch).unwrap();
//! assert!(s.aggregate(&[0]) > 90.0);
//! ```

use std::collections::BTreeMap;
use std::hash::{BuildHasher, Hash, Hasher};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use rayon::prelude::*;

use crate::bleu::{self, Smoothing};
use crate::codebleu::{self, CodeBleuScore, CodeBleuStats, Language, Weights};
use crate::pytext::py_split;
use crate::summarization::{self as sum, MeteorStages};
use crate::wordnet::{self, WordNet};
use crate::{generation as gen, Error, Task};

/// The joined examples a metric scores: predictions, references and the language of each
/// example (`python`, `java`, `c`, `cpp` when the dataset says; the dataset reader
/// normalizes the names).
pub struct Batch<'a> {
    pub predictions: &'a [String],
    pub references: &'a [String],
    pub languages: &'a [Option<String>],
    /// The code of each example (CSN `code`, YABLoCo `outputs`), read only when a metric
    /// needs it (SIDE); empty otherwise.
    pub codes: &'a [Option<String>],
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
        name: "bleu_dcom",
        task: Task::Summarization,
        default: false,
        about: "BLEU-DCOM (Shi et al. 2022; DeepCom's reported BLEU): nltk sentence_bleu, no smoothing, averaged; CodeSumEvaluation evaluate.py, 0-100",
    },
    MetricInfo {
        name: "bleu_fc",
        task: Task::Summarization,
        default: false,
        about: "BLEU-FC (funcom's Ba, CoCoGUM): nltk corpus_bleu, no smoothing; CodeSumEvaluation evaluate.py, 0-100",
    },
    MetricInfo {
        name: "bleu_dc",
        task: Task::Summarization,
        default: false,
        about: "BLEU-DC (EMSE-DeepCom): nltk sentence_bleu with smoothing method4, averaged; CodeSumEvaluation evaluate.py, 0-100",
    },
    MetricInfo {
        name: "bleu_cn",
        task: Task::Summarization,
        default: false,
        about: "BLEU-CN (CodeNN; CodeBERT's is the same): CodeNN bleu.py smoothed sentence BLEU-4 on NIST-normalized text, averaged; CodeSumEvaluation evaluate.py, 0-100",
    },
    MetricInfo {
        name: "bleu_ncs",
        task: Task::Summarization,
        default: false,
        about: "BLEU-NCS (NeuralCodeSum, Ahmad et al. 2020): Google compute_bleu(smooth=True) per example, averaged; CodeSumEvaluation evaluate.py, 0-100",
    },
    MetricInfo {
        name: "bleu_rc",
        task: Task::Summarization,
        default: false,
        about: "BLEU-RC (Rencos): pycocoevalcap-style per-example BLEU-4 (1e-15/1e-9 guards), averaged; CodeSumEvaluation evaluate.py, 0-100",
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
        about: "nltk meteor_score: exact, Porter stem and WordNet 3.0 synonym stages, 0-1",
    },
    MetricInfo {
        name: "meteor_stem",
        task: Task::Summarization,
        default: false,
        about: "nltk meteor_score with an empty WordNet: exact + Porter stem stages, 0-1",
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
    MetricInfo {
        name: "identifier_em",
        task: Task::Generation,
        default: false,
        about: "CrossCodeEval identifier exact match: the identifier lists (comments, strings and the language's keywords removed) equal; cceval eval_metric.py, percent",
    },
    MetricInfo {
        name: "identifier_f1",
        task: Task::Generation,
        default: false,
        about: "CrossCodeEval identifier F1 over the identifier sets (0 when both are empty); cceval eval_metric.py, 0-100",
    },
    MetricInfo {
        name: "codebleu",
        task: Task::Generation,
        default: true,
        about: "codebleu 0.7.0 calc_codebleu, corpus-level, PYTHONHASHSEED=0, 0-1",
    },
    MetricInfo {
        name: "codebleu_ngram",
        task: Task::Generation,
        default: false,
        about: "CodeBLEU's n-gram match (BLEU-4 on whitespace tokens), 0-1",
    },
    MetricInfo {
        name: "codebleu_weighted_ngram",
        task: Task::Generation,
        default: false,
        about: "CodeBLEU's keyword-weighted n-gram match, 0-1",
    },
    MetricInfo {
        name: "codebleu_syntax",
        task: Task::Generation,
        default: false,
        about: "CodeBLEU's syntax match (reference subtrees found), 0-1",
    },
    MetricInfo {
        name: "codebleu_dataflow",
        task: Task::Generation,
        default: false,
        about: "CodeBLEU's data-flow match (0 when there is none; CodeBLEU counts 1), 0-1",
    },
    MetricInfo {
        name: "side",
        task: Task::Summarization,
        default: false,
        about: "SIDE (Mastropaolo et al., ICSE 2024): cosine of the prediction's and the code's MPNet embeddings, reference-free; needs --side-model, -1-1",
    },
    MetricInfo {
        name: "side_reference",
        task: Task::Summarization,
        default: false,
        about: "SIDE of the reference against the code: how aligned the dataset's own summaries are; needs --side-model, -1-1",
    },
];

/// Names that stand for several metrics or take a parameter, listed after [`METRICS`].
pub const FAMILIES: &[MetricInfo] = &[
    MetricInfo {
        name: "bleu_all",
        task: Task::Summarization,
        default: false,
        about: "shorthand for the six BLEU variants of Shi et al. 2022: bleu_dcom,bleu_fc,bleu_dc,bleu_cn,bleu_ncs,bleu_rc",
    },
    MetricInfo {
        name: "bleu_sentence:method=N",
        task: Task::Summarization,
        default: false,
        about: "nltk sentence_bleu with SmoothingFunction().methodN (N 0-7), averaged, 0-100; method=0 is bleu_dcom, method=4 bleu_dc",
    },
    MetricInfo {
        name: "context_recall@K",
        task: Task::Generation,
        default: false,
        about: "repo completion: recall of the gold_context among the first K items of each prediction's `retrieved` list (path and overlapping lines), mean over examples with a gold context, percent",
    },
    MetricInfo {
        name: "context_recall@K:RETRIEVER",
        task: Task::Generation,
        default: false,
        about: "the same for the dataset's own retrieved_context of one retriever (bm25, jaccard); needs no predictions, percent",
    },
];

/// The six BLEU variants `bleu_all` stands for, in CodeSumEvaluation's order.
pub const BLEU_ALL: [&str; 6] = [
    "bleu_dcom",
    "bleu_fc",
    "bleu_dc",
    "bleu_cn",
    "bleu_ncs",
    "bleu_rc",
];

/// The names `bleu_sentence:method=N` reports under.
const BLEU_SENTENCE: [&str; 8] = [
    "bleu_sentence:method=0",
    "bleu_sentence:method=1",
    "bleu_sentence:method=2",
    "bleu_sentence:method=3",
    "bleu_sentence:method=4",
    "bleu_sentence:method=5",
    "bleu_sentence:method=6",
    "bleu_sentence:method=7",
];

/// The description of a metric name as given on the command line: a metric, a shorthand or
/// a parameterized name (`bleu_sentence:method=3`).
pub fn info(name: &str) -> Option<&'static MetricInfo> {
    if let Some(rest) = name.strip_prefix(crate::repo_completion::CONTEXT_RECALL) {
        let family = if rest.contains(':') {
            "context_recall@K:RETRIEVER"
        } else {
            "context_recall@K"
        };
        return FAMILIES.iter().find(|m| m.name == family);
    }
    if name.starts_with("bleu_sentence:") {
        return FAMILIES
            .iter()
            .find(|m| m.name.starts_with("bleu_sentence:"));
    }
    METRICS.iter().chain(FAMILIES).find(|m| m.name == name)
}

/// The metric names with the shorthands expanded (`bleu_all` to its six), in order.
pub fn expand<S: AsRef<str>>(names: &[S]) -> Vec<String> {
    names
        .iter()
        .flat_map(|n| match n.as_ref() {
            "bleu_all" => BLEU_ALL.iter().map(|s| s.to_string()).collect(),
            other => vec![other.to_string()],
        })
        .collect()
}

/// The metrics that read the examples' code.
pub fn needs_code(name: &str) -> bool {
    matches!(name, "side" | "side_reference")
}

/// Settings of the metrics that have any.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MetricConfig {
    /// CodeBLEU's component weights (α, β, γ, θ; 0.25 each by default).
    pub codebleu_weights: Weights,
    /// The WordNet database folder of `meteor` (default: [`wordnet::discover`]).
    pub wordnet: Option<PathBuf>,
    /// The SIDE model folder of `side` and `side_reference` (a Hugging Face MPNet
    /// checkpoint; nothing is downloaded).
    pub side_model: Option<PathBuf>,
}

impl MetricConfig {
    /// The WordNet folder `meteor` reads: the configured one, or the first one found.
    pub fn wordnet_dir(&self) -> Result<PathBuf, Error> {
        match &self.wordnet {
            Some(d) => Ok(d.clone()),
            None => wordnet::discover(),
        }
    }
}

/// The metrics a task reports when none are named.
pub fn default_metrics(task: Task) -> Vec<&'static str> {
    METRICS
        .iter()
        .filter(|m| m.task == task && m.default)
        .map(|m| m.name)
        .collect()
}

/// The metrics a run of `task` reports when none are named, under `config`: when no
/// WordNet can be found, `meteor_stem` stands in for `meteor` (a default run should not
/// fail for want of WordNet) and a note in `notes` says so. Asked for by name, `meteor`
/// fails instead.
pub fn defaults_for(task: Task, config: &MetricConfig, notes: &mut Vec<String>) -> Vec<String> {
    with_wordnet_fallback(default_metrics(task), config.wordnet_dir(), notes)
}

fn with_wordnet_fallback(
    names: Vec<&str>,
    wordnet: Result<PathBuf, Error>,
    notes: &mut Vec<String>,
) -> Vec<String> {
    let mut names: Vec<String> = names.into_iter().map(str::to_string).collect();
    if let (Some(m), Err(e)) = (names.iter_mut().find(|m| *m == "meteor"), wordnet) {
        *m = "meteor_stem".to_string();
        notes.push(format!("meteor_stem reported instead of meteor: {e}"));
    }
    names
}

/// The metric called `name`, with default settings.
pub fn scorer(name: &str) -> Option<Box<dyn Scorer>> {
    let mut s = scorers(&[name], &MetricConfig::default()).ok()?;
    s.pop()
}

/// The metrics called `names`, in order (shorthands such as `bleu_all` expanded, see
/// [`expand`]). The CodeBLEU family among them shares its
/// per-example statistics, so they should score one batch (another batch is detected by
/// its contents and parsed again). [`Error::Usage`] names an unknown metric.
pub fn scorers<S: AsRef<str>>(
    names: &[S],
    config: &MetricConfig,
) -> Result<Vec<Box<dyn Scorer>>, Error> {
    let shared = SharedCodeBleu::default();
    let mut side_model: Option<Arc<codemine_side::Side>> = None;
    expand(names)
        .iter()
        .map(|n| {
            let n = n.as_str();
            if let Some(param) = n.strip_prefix("bleu_sentence:") {
                return bleu_sentence_scorer(param);
            }
            if n.starts_with(crate::repo_completion::CONTEXT_RECALL) {
                return Err(Error::Usage(format!(
                    "`{n}` scores the context columns of a repo-completion table: it is computed by codemine_eval::evaluate, not by a scorer of predictions and references"
                )));
            }
            if let Some(f1) = match n {
                "identifier_em" => Some(false),
                "identifier_f1" => Some(true),
                _ => None,
            } {
                return Ok(Box::new(IdentifierMetric { f1 }) as Box<dyn Scorer>);
            }
            if needs_code(n) {
                let model = match &side_model {
                    Some(m) => m.clone(),
                    None => {
                        let dir = config.side_model.as_ref().ok_or_else(|| {
                            Error::Usage(format!(
                                "`{n}` needs a SIDE model: give --side-model DIR (a local MPNet checkpoint folder)"
                            ))
                        })?;
                        let m = Arc::new(
                            codemine_side::Side::load(dir)
                                .map_err(|e| Error::Usage(format!("--side-model: {e}")))?,
                        );
                        side_model = Some(m.clone());
                        m
                    }
                };
                return Ok(Box::new(SideMetric {
                    reference: n == "side_reference",
                    model,
                }) as Box<dyn Scorer>);
            }
            if n == "meteor" {
                let dir = config.wordnet_dir()?;
                if config.wordnet.is_some() && !dir.is_file() && !dir.join("index.noun").is_file() {
                    return Err(Error::Usage(format!(
                        "--wordnet {}: no WordNet 3.0 database there (a folder with index.noun, \
                         data.noun, ..., or a zip archive of one)",
                        dir.display()
                    )));
                }
                let wordnet = Arc::new(WordNet::load(&dir)?);
                return Ok(Box::new(Meteor { wordnet }) as Box<dyn Scorer>);
            }
            match CodeBleuPart::of(n) {
                Some(part) => Ok(Box::new(CodeBleuMetric {
                    part,
                    weights: config.codebleu_weights,
                    shared: shared.clone(),
                }) as Box<dyn Scorer>),
                None => simple_scorer(n).ok_or_else(|| {
                    let known: Vec<&str> = METRICS.iter().chain(FAMILIES).map(|m| m.name).collect();
                    Error::Usage(format!(
                        "unknown metric `{n}`; metrics: {}",
                        known.join(", ")
                    ))
                }),
            }
        })
        .collect()
}

/// `bleu_sentence:method=N`: nltk's sentence BLEU with smoothing method N.
fn bleu_sentence_scorer(param: &str) -> Result<Box<dyn Scorer>, Error> {
    let method = param
        .strip_prefix("method=")
        .and_then(|n| n.parse::<u8>().ok())
        .and_then(Smoothing::from_number)
        .ok_or_else(|| {
            Error::Usage(format!(
                "`bleu_sentence:{param}`: say bleu_sentence:method=N with N one of nltk's smoothing methods 0-7"
            ))
        })?;
    Ok(Box::new(BleuVariant::Sentence(method)))
}

fn simple_scorer(name: &str) -> Option<Box<dyn Scorer>> {
    let s: Box<dyn Scorer> = match name {
        "bleu_dcom" => Box::new(BleuVariant::Dcom),
        "bleu_fc" => Box::new(BleuVariant::Corpus),
        "bleu_dc" => Box::new(BleuVariant::Dc),
        "bleu_cn" => Box::new(BleuVariant::CodeNn),
        "bleu_ncs" => Box::new(BleuVariant::Google),
        "bleu_rc" => Box::new(BleuVariant::Rencos),
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
        "meteor_stem" => Box::new(PerExample("meteor_stem", 1.0, |p, r| {
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

/// CrossCodeEval's identifier exact match or F1 ([`crate::repo_completion`]), per
/// example in 0-1, aggregated in percent; every example needs one of the nine languages.
struct IdentifierMetric {
    f1: bool,
}

impl Scorer for IdentifierMetric {
    fn name(&self) -> &'static str {
        if self.f1 {
            "identifier_f1"
        } else {
            "identifier_em"
        }
    }

    fn score(&self, batch: &Batch<'_>) -> Result<MetricScores, Error> {
        use crate::repo_completion::{identifier_match, Lang};
        let n = batch.predictions.len();
        if batch.references.len() != n || batch.languages.len() != n {
            return Err(Error::Data(format!(
                "{}: {n} predictions, {} references and {} languages",
                self.name(),
                batch.references.len(),
                batch.languages.len()
            )));
        }
        let langs: Vec<Lang> = parse_languages(batch.languages).map_err(|(bad, what)| {
            Error::Data(format!(
                "{} removes the keywords of python, java, c, cpp, go, javascript, typescript, php and ruby, but {bad} of {n} examples are none of them ({what}); give the language with --language",
                self.name(),
            ))
        })?;
        let f1 = self.f1;
        let per_example = batch
            .predictions
            .par_iter()
            .zip(batch.references.par_iter())
            .zip(langs.par_iter())
            .map(|((p, r), &l)| {
                let m = identifier_match(p, r, l);
                if f1 {
                    m.f1
                } else {
                    m.em
                }
            })
            .collect();
        Ok(MetricScores {
            per_example: Some(per_example),
            aggregate: Aggregate::Mean { scale: 100.0 },
        })
    }
}

/// nltk's METEOR with its WordNet stage.
struct Meteor {
    wordnet: Arc<WordNet>,
}

impl Scorer for Meteor {
    fn name(&self) -> &'static str {
        "meteor"
    }

    fn score(&self, batch: &Batch<'_>) -> Result<MetricScores, Error> {
        let stages = MeteorStages::WordNet(&self.wordnet);
        Ok(MetricScores {
            per_example: Some(sum::meteor_all(batch.predictions, batch.references, stages)),
            aggregate: Aggregate::Mean { scale: 1.0 },
        })
    }
}

/// SIDE of each prediction (or reference) against the example's code.
struct SideMetric {
    reference: bool,
    model: Arc<codemine_side::Side>,
}

impl Scorer for SideMetric {
    fn name(&self) -> &'static str {
        if self.reference {
            "side_reference"
        } else {
            "side"
        }
    }

    fn score(&self, batch: &Batch<'_>) -> Result<MetricScores, Error> {
        let texts = if self.reference {
            batch.references
        } else {
            batch.predictions
        };
        if batch.codes.len() != texts.len() {
            return Err(Error::Usage(format!(
                "`{}` needs the examples' code: this table has no code column (say --code-column)",
                self.name()
            )));
        }
        let pairs: Vec<(&str, &str)> = batch
            .codes
            .iter()
            .zip(texts)
            .map(|(c, t)| (c.as_deref().unwrap_or(""), t.as_str()))
            .collect();
        let scores = self
            .model
            .score(&pairs, codemine_side::BATCH)
            .map_err(|e| Error::Data(format!("SIDE: {e}")))?;
        Ok(MetricScores {
            per_example: Some(scores.into_iter().map(f64::from).collect()),
            aggregate: Aggregate::Mean { scale: 1.0 },
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

/// A BLEU variant of CodeSumEvaluation's `evaluate.py`, or nltk's sentence BLEU with any
/// smoothing method. Per-example values are the implementation's own (0-1); aggregates are
/// what the script prints (0-100, unrounded), computed in its order of operations.
#[derive(Clone, Copy)]
enum BleuVariant {
    /// BLEU-DCOM: nltk `sentence_bleu` without smoothing, `np.mean`.
    Dcom,
    /// BLEU-DC: nltk `sentence_bleu` with method 4, a running sum divided by the count.
    Dc,
    /// `bleu_sentence:method=N`: nltk `sentence_bleu` with method N, `np.mean`.
    Sentence(Smoothing),
    /// nltk `corpus_bleu` (BLEU-FC).
    Corpus,
    /// CodeNN's smoothed BLEU (BLEU-CN).
    CodeNn,
    /// Google's smoothed `compute_bleu` per example (BLEU-NCS).
    Google,
    /// Rencos's per-example BLEU-4 (BLEU-RC).
    Rencos,
}

impl Scorer for BleuVariant {
    fn name(&self) -> &'static str {
        match self {
            Self::Dcom => "bleu_dcom",
            Self::Dc => "bleu_dc",
            Self::Sentence(m) => BLEU_SENTENCE[usize::from(m.number())],
            Self::Corpus => "bleu_fc",
            Self::CodeNn => "bleu_cn",
            Self::Google => "bleu_ncs",
            Self::Rencos => "bleu_rc",
        }
    }

    fn score(&self, batch: &Batch<'_>) -> Result<MetricScores, Error> {
        let (preds, refs) = (batch.predictions, batch.references);
        if preds.len() != refs.len() {
            return Err(Error::Data(format!(
                "{}: {} predictions and {} references",
                self.name(),
                preds.len(),
                refs.len()
            )));
        }
        let matches = || -> Vec<bleu::Matches> {
            preds
                .par_iter()
                .zip(refs.par_iter())
                .map(|(p, r)| bleu::Matches::new(&py_split(r), &py_split(p)))
                .collect()
        };
        let np_mean_x100 = |v: Arc<Vec<f64>>| -> Aggregate {
            Aggregate::Corpus(Box::new(move |rows| {
                let sel: Vec<f64> = rows.iter().map(|&i| v[i]).collect();
                bleu::np_mean(&sel) * 100.0
            }))
        };
        let per_example_mean = |v: Vec<f64>, np: bool| -> MetricScores {
            let v = Arc::new(v);
            let aggregate = if np {
                np_mean_x100(v.clone())
            } else {
                // BLEU-DC: `all_score += score` from 0.0, then / count * 100.
                let v = v.clone();
                Aggregate::Corpus(Box::new(move |rows| {
                    if rows.is_empty() {
                        return 0.0;
                    }
                    let mut all = 0.0;
                    for &i in rows {
                        all += v[i];
                    }
                    all / rows.len() as f64 * 100.0
                }))
            };
            MetricScores {
                per_example: Some(v.to_vec()),
                aggregate,
            }
        };
        let sentence = |m: Smoothing, np: bool| {
            let v = matches()
                .par_iter()
                .map(|s| bleu::nltk_sentence_bleu_from(s, m))
                .collect();
            per_example_mean(v, np)
        };
        Ok(match *self {
            Self::Dcom => sentence(Smoothing::Method0, true),
            Self::Dc => sentence(Smoothing::Method4, false),
            Self::Sentence(m) => sentence(m, true),
            Self::Google => per_example_mean(
                matches().par_iter().map(bleu::google_bleu_from).collect(),
                true,
            ),
            Self::Rencos => per_example_mean(
                matches().par_iter().map(bleu::rencos_bleu4_from).collect(),
                true,
            ),
            Self::Corpus => {
                let stats = sum::corpus_bleu_stats(preds, refs);
                MetricScores {
                    per_example: None,
                    aggregate: Aggregate::Corpus(Box::new(move |rows| {
                        sum::corpus_bleu_from_stats(rows.iter().map(|&i| &stats[i])) * 100.0
                    })),
                }
            }
            Self::CodeNn => {
                let values: Vec<bleu::CodennValue> = preds
                    .par_iter()
                    .zip(refs.par_iter())
                    .map(|(p, r)| bleu::codenn_example(&py_split(r), &py_split(p)))
                    .collect();
                let per_example = values
                    .iter()
                    .map(|v| match v {
                        bleu::CodennValue::Score(s) => *s,
                        _ => f64::NAN,
                    })
                    .collect();
                MetricScores {
                    per_example: Some(per_example),
                    aggregate: Aggregate::Corpus(Box::new(move |rows| {
                        bleu::codenn_aggregate(rows.iter().map(|&i| &values[i]))
                    })),
                }
            }
        })
    }
}

/// Which number of CodeBLEU a metric reports.
#[derive(Clone, Copy)]
enum CodeBleuPart {
    Combined,
    Ngram,
    WeightedNgram,
    Syntax,
    Dataflow,
}

impl CodeBleuPart {
    fn of(name: &str) -> Option<Self> {
        Some(match name {
            "codebleu" => Self::Combined,
            "codebleu_ngram" => Self::Ngram,
            "codebleu_weighted_ngram" => Self::WeightedNgram,
            "codebleu_syntax" => Self::Syntax,
            "codebleu_dataflow" => Self::Dataflow,
            _ => return None,
        })
    }

    fn name(self) -> &'static str {
        match self {
            Self::Combined => "codebleu",
            Self::Ngram => "codebleu_ngram",
            Self::WeightedNgram => "codebleu_weighted_ngram",
            Self::Syntax => "codebleu_syntax",
            Self::Dataflow => "codebleu_dataflow",
        }
    }

    fn pick(self, s: &CodeBleuScore) -> f64 {
        match self {
            Self::Combined => s.codebleu,
            Self::Ngram => s.ngram_match,
            Self::WeightedNgram => s.weighted_ngram_match,
            Self::Syntax => s.syntax_match,
            Self::Dataflow => s.dataflow_match,
        }
    }
}

/// The per-example statistics of the last batch the CodeBLEU family scored, with a
/// fingerprint of its contents (a hash and the number of examples).
type CodeBleuCache = Option<((u64, usize), Arc<Vec<CodeBleuStats>>)>;

#[derive(Clone, Default)]
struct SharedCodeBleu(Arc<Mutex<CodeBleuCache>>);

struct CodeBleuMetric {
    part: CodeBleuPart,
    weights: Weights,
    shared: SharedCodeBleu,
}

impl Scorer for CodeBleuMetric {
    fn name(&self) -> &'static str {
        self.part.name()
    }

    /// Per example: the CodeBLEU of that example alone (NaN where the package would divide
    /// by zero: a reference without any syntax subtree). Aggregate: the corpus CodeBLEU of
    /// the examples' summed statistics, so a single-language set gets exactly the package's
    /// `calc_codebleu` over it; a mixed set pools the languages' statistics.
    fn score(&self, batch: &Batch<'_>) -> Result<MetricScores, Error> {
        let stats = self.shared.stats(batch)?;
        let (part, weights) = (self.part, self.weights);
        let per_example = stats
            .iter()
            .map(|s| s.score(weights).map_or(f64::NAN, |s| part.pick(&s)))
            .collect();
        Ok(MetricScores {
            per_example: Some(per_example),
            aggregate: Aggregate::Corpus(Box::new(move |rows| {
                CodeBleuStats::sum(rows.iter().map(|&i| &stats[i]))
                    .score(weights)
                    .map_or(f64::NAN, |s| part.pick(&s))
            })),
        })
    }
}

impl SharedCodeBleu {
    fn stats(&self, batch: &Batch<'_>) -> Result<Arc<Vec<CodeBleuStats>>, Error> {
        let key = (fingerprint(batch), batch.predictions.len());
        let mut cache = self
            .0
            .lock()
            .map_err(|_| Error::Data("codebleu: an earlier scorer panicked".into()))?;
        if let Some((k, stats)) = cache.as_ref() {
            if *k == key && stats.len() == key.1 {
                return Ok(stats.clone());
            }
        }
        let stats = Arc::new(codebleu_batch(batch)?);
        *cache = Some((key, stats.clone()));
        Ok(stats)
    }
}

fn fingerprint(batch: &Batch<'_>) -> u64 {
    let mut h = foldhash::quality::FixedState::with_seed(0x636f_6465_626c_6575).build_hasher();
    batch.predictions.hash(&mut h);
    batch.references.hash(&mut h);
    batch.languages.hash(&mut h);
    h.finish()
}

/// Every example's CodeBLEU statistics, each parsed with its own language's grammar.
/// Every example's language parsed as `L`; else how many are not one and which they are
/// (`2 \`rust\`, 1 no language`), for a metric's error message.
fn parse_languages<L: std::str::FromStr>(
    languages: &[Option<String>],
) -> Result<Vec<L>, (usize, String)> {
    let mut out = Vec::with_capacity(languages.len());
    let mut unsupported: BTreeMap<String, usize> = BTreeMap::new();
    for l in languages {
        match l.as_deref().map(str::parse::<L>) {
            Some(Ok(lang)) => out.push(lang),
            Some(Err(_)) => {
                *unsupported
                    .entry(format!("`{}`", l.as_deref().unwrap_or_default()))
                    .or_default() += 1
            }
            None => *unsupported.entry("no language".into()).or_default() += 1,
        }
    }
    if unsupported.is_empty() {
        return Ok(out);
    }
    let bad = unsupported.values().sum();
    let what: Vec<String> = unsupported
        .iter()
        .map(|(l, c)| format!("{c} {l}"))
        .collect();
    Err((bad, what.join(", ")))
}

fn codebleu_batch(batch: &Batch<'_>) -> Result<Vec<CodeBleuStats>, Error> {
    let n = batch.predictions.len();
    if batch.references.len() != n || batch.languages.len() != n {
        return Err(Error::Data(format!(
            "codebleu: {n} predictions, {} references and {} languages",
            batch.references.len(),
            batch.languages.len()
        )));
    }
    let langs: Vec<Language> = parse_languages(batch.languages).map_err(|(bad, what)| {
        Error::Data(format!(
            "codebleu scores python, java, c and cpp, but {bad} of {n} examples are not one of them ({what}); give the language with --language, or leave the codebleu metrics out",
        ))
    })?;
    let mut by_language: Vec<(Language, Vec<usize>)> = Vec::new();
    for (i, lang) in langs.into_iter().enumerate() {
        match by_language.iter_mut().find(|(k, _)| *k == lang) {
            Some((_, rows)) => rows.push(i),
            None => by_language.push((lang, vec![i])),
        }
    }
    let mut out = vec![CodeBleuStats::default(); n];
    for (lang, rows) in by_language {
        let refs: Vec<[&str; 1]> = rows
            .iter()
            .map(|&i| [batch.references[i].as_str()])
            .collect();
        let preds: Vec<&str> = rows
            .iter()
            .map(|&i| batch.predictions[i].as_str())
            .collect();
        let stats = codebleu::codebleu_stats(&refs, &preds, lang)
            .map_err(|e| Error::Data(format!("codebleu ({lang}): {e}")))?;
        for (i, s) in rows.into_iter().zip(stats) {
            out[i] = s;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meteor_default_falls_back_without_wordnet_and_says_so() {
        let mut notes = Vec::new();
        let names = default_metrics(Task::Summarization);
        assert!(names.contains(&"meteor"));
        let found = with_wordnet_fallback(names.clone(), Ok("/wn".into()), &mut notes);
        assert_eq!(found, names);
        assert!(notes.is_empty());
        let missing = with_wordnet_fallback(
            names.clone(),
            Err(Error::Usage("no WordNet in /x".into())),
            &mut notes,
        );
        let pos = names.iter().position(|n| *n == "meteor").unwrap();
        assert_eq!(missing[pos], "meteor_stem");
        assert_eq!(missing.len(), names.len());
        assert_eq!(notes.len(), 1);
        assert!(
            notes[0].contains("meteor_stem reported instead of meteor") && notes[0].contains("/x")
        );
        // Generation's defaults have no METEOR: nothing to replace.
        let gen = with_wordnet_fallback(
            default_metrics(Task::Generation),
            Err(Error::Usage(String::new())),
            &mut notes,
        );
        assert!(!gen.iter().any(|n| n.starts_with("meteor")));
        assert_eq!(notes.len(), 1);
    }

    #[test]
    fn bleu_all_and_the_sentence_parameter() {
        let names = expand(&["rouge_l", "bleu_all", "cider"]);
        assert_eq!(names.len(), 8);
        assert_eq!(&names[1..7], BLEU_ALL.map(String::from).as_slice());
        let s = scorers(&["bleu_all"], &MetricConfig::default()).unwrap();
        let got: Vec<&str> = s.iter().map(|s| s.name()).collect();
        assert_eq!(got, BLEU_ALL);
        for n in 0..8 {
            let name = format!("bleu_sentence:method={n}");
            let s = scorers(&[name.as_str()], &MetricConfig::default()).unwrap();
            assert_eq!(s[0].name(), name);
            assert_eq!(info(&name).map(|i| i.task), Some(Task::Summarization));
        }
        for bad in [
            "bleu_sentence:method=8",
            "bleu_sentence:k=5",
            "bleu_sentence",
        ] {
            let err = scorers(&[bad], &MetricConfig::default()).err().unwrap();
            assert!(matches!(err, Error::Usage(_)), "{bad}: {err}");
        }
        assert!(info("bleu_all").is_some() && info("bleu_rc").is_some());
        assert!(info("bleu_nope").is_none());
    }

    #[test]
    fn meteor_by_name_needs_a_readable_wordnet() {
        let config = MetricConfig {
            wordnet: Some("/nonexistent/wordnet".into()),
            ..MetricConfig::default()
        };
        let err = scorers(&["meteor"], &config).err().unwrap();
        assert!(matches!(err, Error::Usage(_)), "{err}");
        let err = err.to_string();
        assert!(
            err.contains("--wordnet /nonexistent/wordnet: no WordNet 3.0 database"),
            "{err}"
        );
        // The variants without synonyms need none.
        assert!(scorers(&["meteor_stem", "meteor_exact"], &config).is_ok());
    }
}
