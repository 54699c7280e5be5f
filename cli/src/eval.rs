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
    /// Score by execution (docs/eval.md, "Execution"): each sample in place of its function,
    /// the function's covering tests run in the sandbox; DATA is an output of `mine
    /// --run-tests`, --predictions JSON lines with `samples` (or `prediction`).
    #[arg(long, requires = "predictions")]
    execute: bool,
    /// With --execute: the k of pass@k, comma-separated.
    #[arg(long, value_name = "K,...", value_delimiter = ',', default_value = "1,5,10",
          requires = "execute", value_parser = clap::value_parser!(u64).range(1..))]
    k: Vec<u64>,
    /// With --execute: the clone cache of the mining run, whose test-envs/ holds the
    /// prepared environments (as `mine --cache`; unused without --execute, so that
    /// CODEMINE_CACHE set for `mine` does not stand in the way).
    #[arg(long, value_name = "DIR", env = "CODEMINE_CACHE")]
    cache: Option<PathBuf>,
    /// With --execute: the manifest of the mining run, for its repositories' test recipes
    /// (`tests`), which are part of their environments' keys. Repeatable.
    #[arg(long, value_name = "FILE", requires = "execute")]
    manifest: Vec<PathBuf>,
    /// With --execute: the Python the mining run made virtualenvs with (as `mine
    /// --tests-python`) [default: /usr/bin/python3].
    #[arg(long, value_name = "PATH", requires = "execute")]
    tests_python: Option<PathBuf>,
    /// With --execute: each test's time limit in seconds [default: the environment's, 120
    /// unless its recipe says otherwise].
    #[arg(long, value_name = "SECONDS", requires = "execute",
          value_parser = clap::value_parser!(u64).range(1..))]
    timeout: Option<u64>,
    /// With --execute: check each task first, as EvoCodeBench does: the original function
    /// must pass its covering tests and a stub (`raise NotImplementedError`; C:
    /// `__builtin_trap()`) must not; the report and --per-sample mark the tasks that fail
    /// either.
    #[arg(long, requires = "execute")]
    validate: bool,
    /// With --validate: leave the tasks that are not valid out of the scores.
    #[arg(long, requires = "validate")]
    valid_only: bool,
    /// With --execute: run this many samples at once (each in its own sandbox); the
    /// results do not depend on it.
    #[arg(long, short = 'j', value_name = "N", default_value_t = 1, requires = "execute",
          value_parser = clap::value_parser!(u64).range(1..=256))]
    jobs: u64,
    /// With --execute: write one row per sample here (id, sample, outcome, seconds, failing
    /// tests, reason, log tail, ...): Parquet for *.parquet, JSON lines otherwise. A journal
    /// next to it (FILE.journal) lets a killed run resume.
    #[arg(long, value_name = "FILE", requires = "execute")]
    per_sample: Option<PathBuf>,
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
    if args.execute {
        return run_execute(&args);
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

/// `eval --execute`: every sample of every prediction through `codemine-passk`, then pass@k.
fn run_execute(args: &EvalArgs) -> anyhow::Result<()> {
    use anyhow::Context;
    use std::collections::HashMap;

    let [out] = &args.data[..] else {
        anyhow::bail!(
            "--execute scores one output folder of `mine --run-tests`; {} given",
            args.data.len()
        );
    };
    let Some(pred_path) = &args.predictions else {
        anyhow::bail!("--execute needs --predictions");
    };
    let tasks = codemine_passk::tasks::read(out)?;
    let predictions = codemine_passk::predictions::read(pred_path)?;
    let unknown: Vec<&str> = predictions
        .iter()
        .filter(|p| !tasks.contains_key(&p.id))
        .map(|p| p.id.as_str())
        .collect();
    if !unknown.is_empty() {
        let shown: Vec<&str> = unknown.iter().take(5).copied().collect();
        anyhow::bail!(
            "{}: {} ids are no function with covering tests in {} (for example {})",
            pred_path.display(),
            unknown.len(),
            out.display(),
            shown.join(", ")
        );
    }
    let cache = args
        .cache
        .clone()
        .unwrap_or_else(crate::mine::default_cache);
    let envs = std::path::absolute(cache.join(miner::pipeline::tests_step::ENVS))?;
    let sandbox = codemine_sandbox::Sandbox::new(codemine_sandbox::SandboxConfig::default())
        .context("--execute runs tests in the sandbox")?;
    let mut options = codemine_testrun::RunnerOptions::default();
    if let Some(p) = &args.tests_python {
        options.python = p.clone();
    }
    let runner = codemine_testrun::TestRunner::new(std::sync::Arc::new(sandbox), envs, options)?;
    let exec = codemine_passk::Executor::new(&runner, args.timeout);
    let mut recipes: HashMap<String, codemine_testrun::Recipe> = HashMap::new();
    for m in &args.manifest {
        for spec in miner::source::read_manifest(m)? {
            if let Some(r) = spec.tests.clone() {
                recipes.insert(spec.repo_name(), r);
            }
        }
    }
    let mut envs: HashMap<(String, String), codemine_passk::Environment> = HashMap::new();
    // Environments first (one lookup per repository and commit), then every job (a task's
    // validation, a sample) on `-j` workers; results are put back in job order, so they do
    // not depend on -j.
    let mut keys = Vec::with_capacity(predictions.len());
    for p in &predictions {
        let task = &tasks[&p.id];
        let key = (task.repository.clone(), task.commit.clone());
        envs.entry(key.clone())
            .or_insert_with(|| exec.environment(task, recipes.get(&task.repository)));
        keys.push(key);
    }
    // (prediction, None for its validation or Some(sample index))
    let mut jobs: Vec<(usize, Option<usize>)> = Vec::new();
    for (k, p) in predictions.iter().enumerate() {
        if args.validate {
            jobs.push((k, None));
        }
        jobs.extend((0..p.samples.len()).map(|i| (k, Some(i))));
    }
    let key = |&(k, sample): &(usize, Option<usize>)| codemine_passk::journal::JobKey {
        id: predictions[k].id.clone(),
        sample,
    };
    // With --per-sample, a journal next to it: a run killed part way resumes where it was.
    let journal = match &args.per_sample {
        Some(path) => {
            let settings = format!(
                "timeout={:?} validate={} python={:?} manifests={:?}",
                args.timeout, args.validate, args.tests_python, args.manifest
            );
            let j = codemine_passk::journal::Journal::open(
                &codemine_passk::journal::path_for(path),
                &codemine_passk::journal::fingerprint(&predictions, &settings),
            )?;
            if !j.is_empty() {
                miner::escape::log(&format!(
                    "codemine: resuming: {} of {} jobs finished by an earlier run",
                    j.len(),
                    jobs.len()
                ));
            }
            Some(j)
        }
        None => None,
    };
    use codemine_passk::journal::Finished;
    let slots: Vec<std::sync::Mutex<Option<Finished>>> = jobs
        .iter()
        .map(|j| {
            let earlier = journal.as_ref().and_then(|jr| jr.get(&key(j)).cloned());
            std::sync::Mutex::new(earlier)
        })
        .collect();
    let todo: Vec<usize> = (0..jobs.len())
        .filter(|&j| slots[j].lock().map(|s| s.is_none()).unwrap_or(true))
        .collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let finished = std::sync::atomic::AtomicUsize::new(jobs.len() - todo.len());
    let total = jobs.len();
    let journal_error: std::sync::Mutex<Option<codemine_passk::Error>> =
        std::sync::Mutex::new(None);
    let workers = usize::try_from(args.jobs)
        .unwrap_or(1)
        .clamp(1, todo.len().max(1));
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let n = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(&j) = todo.get(n) else {
                    break;
                };
                if journal_error.lock().map(|e| e.is_some()).unwrap_or(true) {
                    break;
                }
                let (k, sample) = jobs[j];
                let p = &predictions[k];
                let task = &tasks[&p.id];
                let env = &envs[&keys[k]];
                let (done, line) = match sample {
                    None => {
                        let v = exec.validate(task, env);
                        let line = format!(
                            "{} original: {}, stub: {}",
                            v.id,
                            v.gold,
                            v.stub.map_or("-", |o| o.as_str())
                        );
                        (Finished::Validation(v), line)
                    }
                    Some(i) => {
                        let r = exec.run(task, env, i, &p.samples[i]);
                        let line = format!("{} sample {i}: {}", r.id, r.outcome);
                        (Finished::Sample(r), line)
                    }
                };
                if let Some(jr) = &journal {
                    if let Err(e) = jr.record(&key(&jobs[j]), &done) {
                        if let Ok(mut slot) = journal_error.lock() {
                            slot.get_or_insert(e);
                        }
                    }
                }
                let n = finished.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                miner::escape::log(&format!("codemine: [{n}/{total}] {line}"));
                if let Ok(mut slot) = slots[j].lock() {
                    *slot = Some(done);
                }
            });
        }
    });
    if let Some(e) = journal_error.into_inner().ok().flatten() {
        return Err(e.into());
    }
    let mut validation = Vec::new();
    let mut results = Vec::new();
    let mut valid: HashMap<String, Option<bool>> = HashMap::new();
    for slot in slots {
        match slot.into_inner().ok().flatten() {
            Some(Finished::Validation(v)) => {
                valid.insert(v.id.clone(), v.valid);
                validation.push(v);
            }
            Some(Finished::Sample(r)) => results.push(r),
            None => anyhow::bail!("a worker stopped before its job was done"),
        }
    }
    for r in &mut results {
        r.task_valid = valid.get(&r.id).copied().flatten();
    }
    if let Some(path) = &args.per_sample {
        codemine_passk::output::write(path, &results)
            .with_context(|| format!("writing {}", path.display()))?;
    }
    if let Some(j) = journal {
        j.remove()?;
    }
    let scored: Vec<codemine_passk::SampleResult> = if args.valid_only {
        results
            .iter()
            .filter(|r| r.task_valid == Some(true))
            .cloned()
            .collect()
    } else {
        results
    };
    let mut report = codemine_passk::score::report(&scored, &args.k);
    report.validation = validation;
    report.valid_only = args.valid_only;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", codemine_passk::score::table(&report));
    }
    Ok(())
}
