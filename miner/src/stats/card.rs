//! Each step's lines in the dataset card's summary, next to the stats they are written from:
//! a step that reports in the card implements [`CardLines`] for its stats type and is listed
//! once in [`Stages::card_lines`]. The card itself (`write_card` in output.rs) only puts
//! them in place.

use super::steps::{DecontamStage, DocstringParamsStage, PiiStage, TestsStage, DECONTAM_RULE};
use super::{DedupStage, FilterStage, Stages};

/// A step's lines in the card (markdown list items, each ending in a newline; empty when
/// the step has nothing to say).
pub trait CardLines {
    fn card_lines(&self) -> String;
}

impl Stages {
    /// The steps' card lines, in the order the card shows them.
    pub fn card_lines(&self) -> String {
        let steps: [&dyn CardLines; 6] = [
            &self.filter,
            &self.dedup,
            &self.decontamination,
            &self.tests,
            &self.pii,
            &self.docstring_params,
        ];
        steps.iter().map(|s| s.card_lines()).collect()
    }
}

/// The rules and what each removed.
impl CardLines for FilterStage {
    fn card_lines(&self) -> String {
        let f = self;
        if !f.active {
            return "- filters: none\n".to_string();
        }
        let preset = f
            .settings
            .get("preset")
            .and_then(|p| p.as_str())
            .map(|p| format!("preset `{p}`, "))
            .unwrap_or_default();
        let removed: Vec<String> = f
            .funnel
            .removed
            .iter()
            .map(|(rule, n)| format!("{rule} {n}"))
            .collect();
        format!(
            "- filters: {preset}rules {}; kept {} of {} functions (removed: {}; details in stats.json)\n",
            f.rules.join(", "),
            f.funnel.kept,
            f.funnel.input,
            if removed.is_empty() { "none".to_string() } else { removed.join(", ") },
        )
    }
}

/// One line on near-duplicate removal (absent: dedup was off).
impl CardLines for Option<DedupStage> {
    fn card_lines(&self) -> String {
        let Some(d) = self else {
            return "- near-duplicates: kept (dedup was off)\n".to_string();
        };
        let p = &d.params;
        format!(
            "- near-duplicates: of {} functions, {} exact and {} near duplicates removed, one \
             keeper per cluster (MinHash LSH, minhash-rs {}: Jaccard >= {}, {}-token shingles, \
             {} bands x {} rows; details in stats.json)\n",
            d.functions,
            d.exact_removed,
            d.near_removed,
            d.minhash_rs_version,
            p.threshold,
            p.shingle,
            p.bands,
            p.rows
        )
    }
}

/// What each benchmark matched (nothing when the step was off).
impl CardLines for Option<DecontamStage> {
    fn card_lines(&self) -> String {
        let Some(d) = self else {
            return String::new();
        };
        let mut s = format!(
            "- decontamination: functions sharing a run of {} tokens with a benchmark item, or \
             with a shingle Jaccard >= {} (MinHash LSH), removed (rule `{DECONTAM_RULE}`; nodes keep \
             `contaminated_by`):\n",
            d.ngram, d.threshold
        );
        for (name, b) in &d.benchmarks {
            s += &format!(
                "  - {}: {} of {} items found; {} functions removed ({} exact, {} near)\n",
                crate::escape::markdown(name),
                b.items_found,
                b.items,
                b.functions_matched,
                b.exact,
                b.near
            );
        }
        if let Some(w) = &d.warning {
            s += &format!("\n**Warning**: {w}.\n\n");
        }
        s
    }
}

/// The repositories' own test suites (nothing without `--run-tests`).
impl CardLines for Option<TestsStage> {
    fn card_lines(&self) -> String {
        let Some(t) = self else {
            return String::new();
        };
        let tasks = t.tasks.as_ref().map_or(String::new(), |v| {
            format!(
                "- task validation (`--validate-tasks`, table `tasks`): {} functions with \
                 covering tests validated; the original passes its tests for {}, the stub \
                 fails them for {}; {} valid tasks ({} without a stub for their language)\n",
                v.validated, v.gold_passed, v.stub_failed, v.valid, v.no_verdict
            )
        });
        format!(
            "- test suites (`--run-tests`, {}): {} repositories ran theirs ({} could not be set up, \
             {} could not run); {} tests run, {} passed, {} failed, {} errors, {} timeouts; {} of {} \
             measured functions have a covering test (`covering_tests`; table `tests`)\n",
            if t.sandboxed {
                "sandboxed"
            } else {
                "NOT sandboxed"
            },
            t.repositories_run,
            t.setup_failed,
            t.run_failed,
            t.counts.tests_run,
            t.counts.passed,
            t.counts.failed,
            t.counts.errors,
            t.counts.timeouts,
            t.functions_covered,
            t.functions_measured,
        ) + &tasks
    }
}

/// Personal and sensitive information: what the scan found and did (nothing without
/// `--pii`).
impl CardLines for Option<PiiStage> {
    fn card_lines(&self) -> String {
        let Some(p) = self else {
            return String::new();
        };
        let what = match p.mode.as_str() {
            "redact" => "every finding replaced by a placeholder (`<EMAIL>`, `<KEY>`, `<PASSWORD>`; IP addresses by synthetic private ones)",
            "drop" => "functions holding a secret removed (rule `pii`), every other finding replaced by a placeholder",
            _ => "reported only: the texts are as found",
        };
        format!(
            "- personal and sensitive information (`--pii {}`): {} findings in {} files \
             scanned ({} personal data, {} secrets); {what}; {} functions removed (section \
             \"Personal and sensitive information\", table `pii`)\n",
            p.mode,
            p.personal_data + p.secrets,
            p.files_scanned,
            p.personal_data,
            p.secrets,
            p.functions_dropped,
        )
    }
}

impl PiiStage {
    /// The card's section "Personal and sensitive information", as Hugging Face dataset
    /// cards have one: what was looked for, what was done, the findings by kind.
    pub fn card_section(&self) -> String {
        let what = match self.mode.as_str() {
            "redact" => {
                "every finding was replaced by a placeholder (`<EMAIL>`, `<KEY>`, \
                         `<PASSWORD>`; IP addresses by synthetic private ones) in the code, the \
                         docstrings and their tokens"
            }
            "drop" => {
                "functions holding a secret were removed (funnel rule `pii`) and every \
                       other finding was replaced by a placeholder"
            }
            _ => "the findings were only reported: the texts are as found",
        };
        let mut s = format!(
            "\n## Personal and sensitive information\n\n\
             The mined text was scanned for personal data (e-mail and IP addresses, by \
             bigcode-dataset's rules) and secrets (cloud and service keys, tokens, private \
             keys, passwords in URLs, connection strings and assignments; detect-secrets' \
             shapes) with `--pii {}`: {what}. {} files scanned; {} findings ({} personal data, \
             {} secrets); {} functions removed. Table `pii` says where each finding is \
             (repository, path, function, field, lines, bytes, action), never its value. \
             Detection is by rules: a value they do not recognise stays as written.\n",
            self.mode,
            self.files_scanned,
            self.personal_data + self.secrets,
            self.personal_data,
            self.secrets,
            self.functions_dropped,
        );
        if !self.findings.is_empty() {
            s += "\n| kind | category | findings |\n|---|---|---|\n";
            for (kind, n) in &self.findings {
                let category = match codemine_pii::Kind::from_name(kind).map(|k| k.category()) {
                    Some(codemine_pii::Category::Secret) => "secret",
                    _ => "personal data",
                };
                s += &format!("| {kind} | {category} | {n} |\n");
            }
        }
        s
    }
}

/// Structured docstrings: how many rows carry their parts, in which conventions (nothing
/// without `--docstring-params`).
impl CardLines for Option<DocstringParamsStage> {
    fn card_lines(&self) -> String {
        let Some(d) = self else {
            return String::new();
        };
        let styles: Vec<String> = d.styles.iter().map(|(s, n)| format!("{s} {n}")).collect();
        format!(
            "- structured docstrings (`--docstring-params`): column `docstring_params` on {} rows \
             ({} documenting parameters, {} a return; conventions: {}); docs/docstrings.md\n",
            d.rows,
            d.with_params,
            d.with_returns,
            if styles.is_empty() {
                "none".to_string()
            } else {
                styles.join(", ")
            },
        )
    }
}
