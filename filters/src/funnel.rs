//! The filter funnel for stats.json: how many functions went in, how many were kept, and
//! how many each rule removed, overall, per language and per repository. Each function is
//! counted once, under the first rule that rejected it.

use std::collections::BTreeMap;

/// Counts of one slice of the input (everything, one language or one repository).
#[derive(Debug, Default, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FunnelCounts {
    pub input: u64,
    pub kept: u64,
    /// Rule name → functions that rule removed.
    pub removed: BTreeMap<String, u64>,
}

impl FunnelCounts {
    fn record(&mut self, outcome: Result<(), &'static str>) {
        self.input += 1;
        match outcome {
            Ok(()) => self.kept += 1,
            Err(rule) => *self.removed.entry(rule.to_string()).or_default() += 1,
        }
    }

    fn merge(&mut self, other: FunnelCounts) {
        self.input += other.input;
        self.kept += other.kept;
        for (rule, n) in other.removed {
            *self.removed.entry(rule).or_default() += n;
        }
    }
}

/// The whole funnel. Record per worker and [`merge`](Funnel::merge) at the end: the counts
/// do not depend on the order.
#[derive(Debug, Default, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Funnel {
    pub input: u64,
    pub kept: u64,
    /// Rule name → functions that rule removed.
    pub removed: BTreeMap<String, u64>,
    pub by_language: BTreeMap<String, FunnelCounts>,
    pub by_repository: BTreeMap<String, FunnelCounts>,
}

impl Funnel {
    /// Counts one function's outcome (`Err(rule)` from the filter's checks).
    pub fn record(&mut self, repo: &str, language: &str, outcome: Result<(), &'static str>) {
        self.input += 1;
        match outcome {
            Ok(()) => self.kept += 1,
            Err(rule) => *self.removed.entry(rule.to_string()).or_default() += 1,
        }
        bump(&mut self.by_language, language, outcome);
        bump(&mut self.by_repository, repo, outcome);
    }

    /// Adds another funnel's counts to this one.
    pub fn merge(&mut self, other: Funnel) {
        self.input += other.input;
        self.kept += other.kept;
        for (rule, n) in other.removed {
            *self.removed.entry(rule).or_default() += n;
        }
        for (k, v) in other.by_language {
            self.by_language.entry(k).or_default().merge(v);
        }
        for (k, v) in other.by_repository {
            self.by_repository.entry(k).or_default().merge(v);
        }
    }

    /// Moves one kept function to `rule`'s removals: a rule that runs on the survivors after
    /// the funnel was recorded (`min_side`, after dedup).
    pub fn remove_kept(&mut self, repo: &str, language: &str, rule: &str) {
        fn take(c: &mut FunnelCounts, rule: &str) {
            c.kept = c.kept.saturating_sub(1);
            *c.removed.entry(rule.to_string()).or_default() += 1;
        }
        self.kept = self.kept.saturating_sub(1);
        *self.removed.entry(rule.to_string()).or_default() += 1;
        take(
            self.by_language.entry(language.to_string()).or_default(),
            rule,
        );
        take(
            self.by_repository.entry(repo.to_string()).or_default(),
            rule,
        );
    }

    /// Functions removed, all rules together.
    pub fn removed_total(&self) -> u64 {
        self.input - self.kept
    }
}

/// Records into the entry for `key`, allocating the key only the first time it is seen.
fn bump(map: &mut BTreeMap<String, FunnelCounts>, key: &str, outcome: Result<(), &'static str>) {
    match map.get_mut(key) {
        Some(counts) => counts.record(outcome),
        None => {
            let mut counts = FunnelCounts::default();
            counts.record(outcome);
            map.insert(key.to_string(), counts);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_overall_per_language_and_repository() {
        let mut a = Funnel::default();
        a.record("acme/x", "python", Ok(()));
        a.record("acme/x", "python", Err("lines"));
        a.record("acme/x", "c", Err("lines"));
        let mut b = Funnel::default();
        b.record("acme/y", "python", Err("english"));
        b.record("acme/x", "c", Ok(()));
        a.merge(b);

        assert_eq!((a.input, a.kept, a.removed_total()), (5, 2, 3));
        assert_eq!(a.removed.get("lines"), Some(&2));
        assert_eq!(a.removed.get("english"), Some(&1));
        let py = &a.by_language["python"];
        assert_eq!((py.input, py.kept), (3, 1));
        assert_eq!(py.removed.get("lines"), Some(&1));
        assert_eq!(py.removed.get("english"), Some(&1));
        let c = &a.by_language["c"];
        assert_eq!((c.input, c.kept), (2, 1));
        let x = &a.by_repository["acme/x"];
        assert_eq!((x.input, x.kept), (4, 2));
        assert_eq!(x.removed.get("lines"), Some(&2));
        let y = &a.by_repository["acme/y"];
        assert_eq!(
            (y.input, y.kept, y.removed.get("english")),
            (1, 0, Some(&1))
        );

        let json = serde_json::to_value(&a).unwrap();
        assert_eq!(json["removed"]["lines"], 2);
        assert_eq!(json["by_repository"]["acme/y"]["removed"]["english"], 1);
    }

    #[test]
    fn a_later_rule_moves_kept_functions() {
        let mut a = Funnel::default();
        a.record("acme/x", "java", Ok(()));
        a.record("acme/x", "java", Ok(()));
        a.record("acme/y", "python", Err("lines"));
        a.remove_kept("acme/x", "java", "min_side");
        assert_eq!((a.input, a.kept, a.removed_total()), (3, 1, 2));
        assert_eq!(a.removed.get("min_side"), Some(&1));
        let x = &a.by_repository["acme/x"];
        assert_eq!(
            (x.input, x.kept, x.removed.get("min_side")),
            (2, 1, Some(&1))
        );
        let j = &a.by_language["java"];
        assert_eq!(
            (j.input, j.kept, j.removed.get("min_side")),
            (2, 1, Some(&1))
        );
    }

    #[test]
    fn merge_is_order_independent() {
        let rows = [
            ("r1", "java", Err("special_method")),
            ("r2", "java", Ok(())),
            ("r1", "cpp", Err("path_exclude")),
            ("r2", "python", Ok(())),
        ];
        let mut one = Funnel::default();
        for (r, l, o) in rows {
            one.record(r, l, o);
        }
        let (mut left, mut right) = (Funnel::default(), Funnel::default());
        for (i, (r, l, o)) in rows.into_iter().enumerate() {
            if i % 2 == 0 { &mut left } else { &mut right }.record(r, l, o);
        }
        right.merge(left);
        assert_eq!(one, right);
    }
}
