//! Per-line coverage of one suite run, with the tests that executed each line, and the
//! per-function figures the datasets carry.
//!
//! A line's `hits` follow the tool that measured them, as the coverage reports codemine
//! reads do: gcov and V8 count executions; coverage.py records only whether a line ran,
//! so a Python line has 1 hit when any test (or the import of its module) ran it.

use std::collections::BTreeMap;

use serde::Serialize;

/// One line that a coverage tool counts as executable.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct LineCoverage {
    pub hits: u64,
    /// Indexes into [`Coverage::tests`] of the tests that executed the line, sorted.
    pub tests: Vec<u32>,
}

/// The coverage of a suite run: per repository file, per executable line.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Coverage {
    /// Test ids, indexed by [`LineCoverage::tests`].
    pub tests: Vec<String>,
    /// Repository-relative path -> line number (1-based) -> coverage.
    pub files: BTreeMap<String, BTreeMap<u32, LineCoverage>>,
}

/// The figures of one function (lines `start..=end` of a file), as DESIGN.md defines them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct FunctionCoverage {
    /// Ids of the tests that executed at least one of its lines, sorted.
    pub covering_tests: Vec<String>,
    /// The sum of its lines' hits.
    pub test_cov_hits: u64,
    /// Its lines with at least one hit.
    pub covered_lines: u32,
    /// Its lines the tool counts as executable.
    pub coverable_lines: u32,
}

impl Coverage {
    /// An empty coverage that knows the given tests.
    pub(crate) fn with_tests(tests: Vec<String>) -> Coverage {
        Coverage {
            tests,
            files: BTreeMap::new(),
        }
    }

    /// Adds `hits` executions of `line` of `path`, by test `test` (None: outside any test,
    /// such as a module's import before the first test). `hits == 0` only marks the line
    /// executable.
    pub(crate) fn add(&mut self, path: &str, line: u32, hits: u64, test: Option<u32>) {
        let l = self
            .files
            .entry(path.to_string())
            .or_default()
            .entry(line)
            .or_default();
        l.hits += hits;
        if let Some(t) = test {
            if hits > 0 {
                if let Err(i) = l.tests.binary_search(&t) {
                    l.tests.insert(i, t);
                }
            }
        }
    }

    /// Sets a line's hits (coverage.py: 1 when executed), keeping its tests.
    pub(crate) fn set_hits(&mut self, path: &str, line: u32, hits: u64) {
        self.files
            .entry(path.to_string())
            .or_default()
            .entry(line)
            .or_default()
            .hits = hits;
    }

    /// A line's coverage, if the tool counts it as executable.
    pub fn line(&self, path: &str, line: u32) -> Option<&LineCoverage> {
        self.files.get(path)?.get(&line)
    }

    /// The ids of the tests that executed a line.
    pub fn tests_of_line(&self, path: &str, line: u32) -> Vec<&str> {
        self.line(path, line)
            .map(|l| {
                l.tests
                    .iter()
                    .map(|&t| self.tests[t as usize].as_str())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The figures of the function at lines `start..=end` of `path`; None when the run has
    /// no coverage of that file at all (the datasets write null there).
    pub fn function(&self, path: &str, start: u32, end: u32) -> Option<FunctionCoverage> {
        let lines = self.files.get(path)?;
        let mut f = FunctionCoverage::default();
        let mut tests: Vec<u32> = Vec::new();
        for l in lines.range(start..=end.max(start)).map(|(_, l)| l) {
            f.coverable_lines += 1;
            f.test_cov_hits += l.hits;
            if l.hits > 0 {
                f.covered_lines += 1;
            }
            tests.extend(&l.tests);
        }
        tests.sort_unstable();
        tests.dedup();
        let mut ids: Vec<String> = tests
            .into_iter()
            .map(|t| self.tests[t as usize].clone())
            .collect();
        ids.sort();
        f.covering_tests = ids;
        Some(f)
    }

    /// [`Coverage::function`] for many spans (path, start line, end line).
    pub fn functions<'a, I>(&self, spans: I) -> Vec<Option<FunctionCoverage>>
    where
        I: IntoIterator<Item = (&'a str, u32, u32)>,
    {
        spans
            .into_iter()
            .map(|(p, s, e)| self.function(p, s, e))
            .collect()
    }

    /// The index of a test id, added if new.
    pub(crate) fn test_index(&mut self, id: &str, index: &mut BTreeMap<String, u32>) -> u32 {
        if let Some(&i) = index.get(id) {
            return i;
        }
        let i = self.tests.len() as u32;
        self.tests.push(id.to_string());
        index.insert(id.to_string(), i);
        i
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn function_figures_sum_the_lines_in_the_span() {
        let mut c = Coverage::with_tests(vec!["t1".into(), "t2".into()]);
        c.add("a.c", 1, 3, Some(0));
        c.add("a.c", 2, 0, None);
        c.add("a.c", 3, 2, Some(1));
        c.add("a.c", 3, 1, Some(0));
        c.add("a.c", 9, 5, Some(1));
        let f = c.function("a.c", 1, 3).unwrap();
        assert_eq!(f.test_cov_hits, 6);
        assert_eq!(f.covered_lines, 2);
        assert_eq!(f.coverable_lines, 3);
        assert_eq!(f.covering_tests, ["t1", "t2"]);
        let f = c.function("a.c", 4, 8).unwrap();
        assert_eq!(f, FunctionCoverage::default());
        assert_eq!(c.function("b.c", 1, 3), None);
        assert_eq!(c.tests_of_line("a.c", 3), ["t1", "t2"]);
        assert_eq!(c.functions([("a.c", 9, 9), ("x", 1, 1)]).len(), 2);
    }
}
