//! pass@k: the unbiased estimator of Chen et al. 2021 ("Evaluating Large Language Models
//! Trained on Code", the HumanEval paper) per task, and its mean over tasks, overall, by
//! YABLoCo category, by language and by repository; exact match alongside, as YABLoCo's
//! `compute.py` reports it: per task the share of its samples that match, then the mean
//! over tasks.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::{Outcome, SampleResult, Validation};

/// The probability that at least one of `k` samples drawn without replacement from `n`, of
/// which `c` pass, passes: `1 - C(n-c, k) / C(n, k)`, computed as the product
/// `1 - prod_{i=n-c+1..=n} (1 - k/i)` (the paper's numerically stable form). `None` when
/// `k` is 0 or more than `n` (the estimator is undefined there).
pub fn pass_at_k(n: u64, c: u64, k: u64) -> Option<f64> {
    if k == 0 || k > n || c > n {
        return None;
    }
    if n - c < k {
        return Some(1.0);
    }
    let mut prod = 1.0_f64;
    for i in (n - c + 1)..=n {
        prod *= 1.0 - k as f64 / i as f64;
    }
    Some(1.0 - prod)
}

/// Means of pass@k over a group of tasks.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Group {
    /// Tasks in the group, samples and passing samples.
    pub tasks: u64,
    pub samples: u64,
    pub passed: u64,
    /// Samples per outcome.
    pub outcomes: BTreeMap<&'static str, u64>,
    /// `pass@k` -> the mean over the tasks with at least k samples (absent when none has).
    pub pass_at: BTreeMap<String, f64>,
    /// `pass@k` -> how many tasks that mean is over.
    pub pass_at_tasks: BTreeMap<String, u64>,
    /// The mean over tasks of the share of a task's samples that match the original
    /// exactly (YABLoCo's exact match); over the tasks with a sample that could be compared
    /// (None when there is none).
    pub exact_match: Option<f64>,
}

/// The scores of an execution run.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Report {
    pub k: Vec<u64>,
    pub overall: Group,
    /// By the functions' YABLoCo category (`project`, `same_package`, `same_file`,
    /// `stdlib`, `none`).
    pub by_category: BTreeMap<String, Group>,
    pub by_language: BTreeMap<String, Group>,
    pub by_repository: BTreeMap<String, Group>,
    /// With `--validate`: each task's verdict, and whether the scores leave out the tasks
    /// that are not valid (`--valid-only`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub validation: Vec<Validation>,
    pub valid_only: bool,
}

/// One task's counts.
struct Counts<'a> {
    category: &'a str,
    language: &'a str,
    repository: &'a str,
    n: u64,
    c: u64,
    outcomes: BTreeMap<&'static str, u64>,
    /// Samples that match exactly, and samples compared.
    exact: (u64, u64),
}

/// Scores the per-sample results (a task is an id; its n is its number of samples).
pub fn report(results: &[SampleResult], ks: &[u64]) -> Report {
    let mut tasks: BTreeMap<&str, Counts<'_>> = BTreeMap::new();
    for r in results {
        let t = tasks.entry(&r.id).or_insert_with(|| Counts {
            category: &r.category,
            language: &r.language,
            repository: &r.repository,
            n: 0,
            c: 0,
            outcomes: BTreeMap::new(),
            exact: (0, 0),
        });
        if let Some(m) = r.exact_match {
            t.exact.0 += u64::from(m);
            t.exact.1 += 1;
        }
        t.n += 1;
        t.c += u64::from(r.outcome == Outcome::Pass);
        *t.outcomes.entry(r.outcome.as_str()).or_default() += 1;
    }
    let mut acc = Acc::new(ks);
    let mut by_category: BTreeMap<String, Acc> = BTreeMap::new();
    let mut by_language: BTreeMap<String, Acc> = BTreeMap::new();
    let mut by_repository: BTreeMap<String, Acc> = BTreeMap::new();
    for t in tasks.values() {
        acc.add(t);
        by_category
            .entry(t.category.to_string())
            .or_insert_with(|| Acc::new(ks))
            .add(t);
        by_language
            .entry(t.language.to_string())
            .or_insert_with(|| Acc::new(ks))
            .add(t);
        by_repository
            .entry(t.repository.to_string())
            .or_insert_with(|| Acc::new(ks))
            .add(t);
    }
    Report {
        k: ks.to_vec(),
        overall: acc.finish(),
        by_category: by_category
            .into_iter()
            .map(|(k, a)| (k, a.finish()))
            .collect(),
        by_language: by_language
            .into_iter()
            .map(|(k, a)| (k, a.finish()))
            .collect(),
        by_repository: by_repository
            .into_iter()
            .map(|(k, a)| (k, a.finish()))
            .collect(),
        validation: Vec::new(),
        valid_only: false,
    }
}

struct Acc {
    group: Group,
    ks: Vec<u64>,
    sums: Vec<(f64, u64)>,
    /// The sum of the tasks' exact-match shares, and how many tasks.
    exact: (f64, u64),
}

impl Acc {
    fn new(ks: &[u64]) -> Acc {
        Acc {
            group: Group::default(),
            ks: ks.to_vec(),
            sums: vec![(0.0, 0); ks.len()],
            exact: (0.0, 0),
        }
    }

    fn add(&mut self, t: &Counts<'_>) {
        let g = &mut self.group;
        g.tasks += 1;
        g.samples += t.n;
        g.passed += t.c;
        if t.exact.1 > 0 {
            self.exact.0 += t.exact.0 as f64 / t.exact.1 as f64;
            self.exact.1 += 1;
        }
        for (o, n) in &t.outcomes {
            *g.outcomes.entry(o).or_default() += n;
        }
        for (k, sum) in self.ks.iter().zip(&mut self.sums) {
            if let Some(p) = pass_at_k(t.n, t.c, *k) {
                sum.0 += p;
                sum.1 += 1;
            }
        }
    }

    fn finish(mut self) -> Group {
        if self.exact.1 > 0 {
            self.group.exact_match = Some(self.exact.0 / self.exact.1 as f64);
        }
        for (k, (sum, n)) in self.ks.iter().zip(self.sums) {
            if n > 0 {
                self.group
                    .pass_at
                    .insert(format!("pass@{k}"), sum / n as f64);
                self.group.pass_at_tasks.insert(format!("pass@{k}"), n);
            }
        }
        self.group
    }
}

/// The report as a text table: one line per group.
pub fn table(r: &Report) -> String {
    let mut out = String::new();
    let head: Vec<String> = r.k.iter().map(|k| format!("pass@{k}")).collect();
    out.push_str(&format!(
        "{:<32} {:>6} {:>8} {:>7}",
        "group", "tasks", "samples", "passed"
    ));
    for h in &head {
        out.push_str(&format!(" {h:>8}"));
    }
    out.push_str(&format!(" {:>8}\n", "exact"));
    let mut line = |name: &str, g: &Group| {
        out.push_str(&format!(
            "{name:<32} {:>6} {:>8} {:>7}",
            g.tasks, g.samples, g.passed
        ));
        for h in &head {
            match g.pass_at.get(h) {
                Some(v) => out.push_str(&format!(" {v:>8.4}")),
                None => out.push_str(&format!(" {:>8}", "-")),
            }
        }
        match g.exact_match {
            Some(v) => out.push_str(&format!(" {v:>8.4}\n")),
            None => out.push_str(&format!(" {:>8}\n", "-")),
        }
    };
    line("overall", &r.overall);
    for (k, g) in &r.by_category {
        line(&format!("category={k}"), g);
    }
    for (k, g) in &r.by_language {
        line(&format!("language={k}"), g);
    }
    for (k, g) in &r.by_repository {
        line(&format!("repository={k}"), g);
    }
    let outcomes: Vec<String> = r
        .overall
        .outcomes
        .iter()
        .map(|(o, n)| format!("{o} {n}"))
        .collect();
    out.push_str(&format!("samples by outcome: {}\n", outcomes.join(", ")));
    if !r.validation.is_empty() {
        let count = |f: &dyn Fn(&Validation) -> bool| r.validation.iter().filter(|v| f(v)).count();
        out.push_str(&format!(
            "tasks valid: {} of {} (original failed: {}, stub passed: {}, no stub: {}){}\n",
            count(&|v| v.valid == Some(true)),
            r.validation.len(),
            count(&|v| v.gold != Outcome::Pass),
            count(&|v| v.stub == Some(Outcome::Pass)),
            count(&|v| v.stub.is_none()),
            if r.valid_only {
                "; scores over the valid ones only"
            } else {
                ""
            }
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hand values: 1 - C(n-c,k)/C(n,k).
    #[test]
    fn pass_at_k_equals_hand_values() {
        let close = |a: Option<f64>, b: f64| (a.unwrap() - b).abs() < 1e-12;
        // n=10, c=3, k=1: 3/10.
        assert!(close(pass_at_k(10, 3, 1), 0.3));
        // n=10, c=3, k=5: 1 - C(7,5)/C(10,5) = 1 - 21/252 = 11/12.
        assert!(close(pass_at_k(10, 3, 5), 11.0 / 12.0));
        // n=10, c=3, k=10: C(7,10) = 0, so 1.
        assert!(close(pass_at_k(10, 3, 10), 1.0));
        // n=5, c=1, k=2: 1 - C(4,2)/C(5,2) = 1 - 6/10 = 0.4.
        assert!(close(pass_at_k(5, 1, 2), 0.4));
        // n=20, c=2, k=10: 1 - C(18,10)/C(20,10) = 1 - 43758/184756.
        assert!(close(pass_at_k(20, 2, 10), 1.0 - 43758.0 / 184756.0));
        // No passing sample, and all passing.
        assert!(close(pass_at_k(4, 0, 2), 0.0));
        assert!(close(pass_at_k(4, 4, 1), 1.0));
        // k > n and k = 0 have no value.
        assert_eq!(pass_at_k(3, 1, 5), None);
        assert_eq!(pass_at_k(3, 1, 0), None);
    }

    fn sample(id: &str, repo: &str, outcome: Outcome) -> SampleResult {
        SampleResult {
            id: id.into(),
            sample: 0,
            repository: repo.into(),
            language: "python".into(),
            outcome,
            seconds: 0.0,
            failing_tests: vec![],
            reason: None,
            log_tail: String::new(),
            task_valid: None,
            category: "project".into(),
            exact_match: Some(outcome == Outcome::Pass),
        }
    }

    #[test]
    fn means_are_over_the_tasks_with_enough_samples() {
        // Task a: 2 samples, 1 passes (pass@1 = 0.5, pass@2 = 1); task b: 1 sample that
        // fails (pass@1 = 0, no pass@2).
        let rs = vec![
            sample("a", "r1", Outcome::Pass),
            sample("a", "r1", Outcome::Fail),
            sample("b", "r2", Outcome::Timeout),
        ];
        let r = report(&rs, &[1, 2]);
        assert_eq!(r.overall.tasks, 2);
        assert_eq!(r.overall.pass_at["pass@1"], 0.25);
        assert_eq!(r.overall.pass_at["pass@2"], 1.0);
        assert_eq!(r.overall.pass_at_tasks["pass@2"], 1);
        assert_eq!(r.by_repository["r2"].pass_at["pass@1"], 0.0);
        assert!(!r.by_repository["r2"].pass_at.contains_key("pass@2"));
        assert_eq!(r.overall.outcomes["timeout"], 1);
        // Exact match: a 1/2, b 0/1, so (0.5 + 0) / 2.
        assert_eq!(r.overall.exact_match, Some(0.25));
        assert_eq!(r.by_category["project"].tasks, 2);
    }
}
