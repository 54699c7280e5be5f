//! `codemine eval`: scores model outputs against a mined dataset (crate `codemine-eval`).

use std::path::PathBuf;

use clap::Args;

#[derive(Args)]
pub struct EvalArgs {
    /// The dataset: a codemine output folder, a folder of Parquet files, or Parquet files.
    #[arg(value_name = "DATA", required = true)]
    data: Vec<PathBuf>,
    /// Predictions: JSONL ({"id": ..., "prediction": ...}), Parquet (id and prediction
    /// columns) or text lines `id<TAB>prediction`.
    #[arg(long, short = 'p', value_name = "FILE")]
    predictions: Option<PathBuf>,
    /// summarization (code → docstring, CSN table) or generation (→ body, YABLoCo table);
    /// inferred when the data has one kind of table.
    #[arg(long, value_name = "TASK", value_parser = parse_task)]
    task: Option<codemine_eval::Task>,
    /// Metrics, comma-separated (default: the task's; see --list-metrics).
    #[arg(long, short = 'm', value_name = "NAMES", value_delimiter = ',')]
    metrics: Vec<String>,
    /// Break the scores down by a dataset column (language, repo, category, meta.fname, ...).
    /// Repeatable.
    #[arg(long, value_name = "COLUMN")]
    by: Vec<String>,
    /// The dataset's row id (default: `url` for CSN, `meta.original_id` for YABLoCo;
    /// `@index` for the row number across the files in name order).
    #[arg(long, value_name = "COLUMN")]
    id_column: Option<String>,
    /// The reference column (default: CSN `docstring_tokens` joined by spaces, YABLoCo
    /// `outputs`).
    #[arg(long, value_name = "COLUMN")]
    reference_column: Option<String>,
    /// The prediction field or column (default `prediction`); without --predictions, a column
    /// of the dataset itself.
    #[arg(long, value_name = "NAME")]
    prediction_column: Option<String>,
    /// The id field or column of the predictions file (default `id`).
    #[arg(long, value_name = "NAME")]
    prediction_id_column: Option<String>,
    /// The CSN split of an output folder: train, valid, test or all (default test).
    #[arg(long, value_name = "SPLIT")]
    split: Option<String>,
    /// Score only the ids on both sides (reported) instead of failing on a mismatch.
    #[arg(long)]
    intersection: bool,
    /// The language of every example (python, java, c, cpp), for CodeBLEU on tables without
    /// a language column; overrides the dataset's.
    #[arg(long, value_name = "LANG")]
    language: Option<String>,
    /// CodeBLEU's weights of n-gram, weighted n-gram, syntax and data-flow match.
    #[arg(long, value_name = "A,B,C,D", value_parser = parse_weights,
          default_value = "0.25,0.25,0.25,0.25", allow_hyphen_values = true)]
    codebleu_weights: codemine_eval::codebleu::Weights,
    /// The WordNet 3.0 folder (index.noun, data.noun, ...) of `meteor`'s synonym stage
    /// (default: nltk's data folders, $WNHOME/dict, /usr/share/wordnet).
    #[arg(long, value_name = "DIR", env = "CODEMINE_WORDNET")]
    wordnet: Option<PathBuf>,
    /// The SIDE model of `side` and `side_reference`: a local MPNet checkpoint folder
    /// (config.json, tokenizer.json, tokenizer_config.json, model.safetensors or
    /// pytorch_model.bin); nothing is downloaded.
    #[arg(long, value_name = "DIR", env = "CODEMINE_SIDE_MODEL")]
    side_model: Option<PathBuf>,
    /// The code column SIDE scores against (default: CSN `code`, YABLoCo `outputs`).
    #[arg(long, value_name = "COLUMN")]
    code_column: Option<String>,
    /// Write per-example scores here (Parquet for *.parquet, JSON lines otherwise).
    #[arg(long, value_name = "FILE")]
    per_example: Option<PathBuf>,
    /// Print the report as JSON instead of a table.
    #[arg(long)]
    json: bool,
    /// List the metrics and exit.
    #[arg(long, exclusive = true)]
    list_metrics: bool,
}

fn parse_weights(s: &str) -> Result<codemine_eval::codebleu::Weights, String> {
    let w: Vec<f64> = s
        .split(',')
        .map(|x| {
            x.trim()
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite() && *v >= 0.0)
                .ok_or_else(|| format!("`{x}` is not a non-negative number"))
        })
        .collect::<Result<_, _>>()?;
    match w[..] {
        [ngram, weighted_ngram, syntax, dataflow] => Ok(codemine_eval::codebleu::Weights {
            ngram,
            weighted_ngram,
            syntax,
            dataflow,
        }),
        _ => Err(format!("{} weights given, 4 expected", w.len())),
    }
}

fn parse_task(s: &str) -> Result<codemine_eval::Task, String> {
    match s {
        "summarization" => Ok(codemine_eval::Task::Summarization),
        "generation" => Ok(codemine_eval::Task::Generation),
        _ => Err(format!("`{s}`: one of summarization, generation")),
    }
}

pub fn run_eval(args: EvalArgs) -> anyhow::Result<()> {
    if args.list_metrics {
        use codemine_eval::metric::{FAMILIES, METRICS};
        for m in METRICS.iter().chain(FAMILIES) {
            println!(
                "{:<24} {:<14} {}{}",
                m.name,
                m.task.as_str(),
                m.about,
                if m.default { " (default)" } else { "" }
            );
        }
        return Ok(());
    }
    let opts = codemine_eval::EvalOptions {
        data: args.data,
        task: args.task,
        predictions: args.predictions,
        prediction_column: args.prediction_column,
        prediction_id_column: args.prediction_id_column,
        id_column: args.id_column,
        reference_column: args.reference_column,
        split: args.split,
        metrics: args.metrics,
        by: args.by,
        intersection: args.intersection,
        language: args.language,
        code_column: args.code_column,
        metric_config: codemine_eval::metric::MetricConfig {
            codebleu_weights: args.codebleu_weights,
            wordnet: args.wordnet,
            side_model: args.side_model,
        },
    };
    let ev = codemine_eval::evaluate(&opts)?;
    for note in &ev.notes {
        miner::escape::log(&format!("codemine: note: {note}"));
    }
    if let Some(p) = &args.per_example {
        codemine_eval::report::write_per_example(&ev, p)?;
    }
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&codemine_eval::report::json(&ev))?
        );
    } else {
        print!("{}", codemine_eval::report::table(&ev));
    }
    Ok(())
}
