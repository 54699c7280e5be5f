//! Mapping report paths onto repository paths (rules in the module docs of `coverage`).

use std::collections::HashMap;

/// A path split into components: `\` read as `/`, `.` and empty components dropped, `..`
/// resolved lexically (kept at the start of a relative path).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Norm {
    absolute: bool,
    comps: Vec<String>,
}

impl Norm {
    fn new(path: &str) -> Self {
        let path = path.replace('\\', "/");
        let absolute = path.starts_with('/');
        let mut comps: Vec<String> = Vec::new();
        for c in path.split('/') {
            match c {
                "" | "." => {}
                ".." => {
                    if comps.last().is_some_and(|last| last != "..") {
                        comps.pop();
                    } else if !absolute {
                        comps.push("..".into());
                    }
                }
                _ => comps.push(c.to_string()),
            }
        }
        Norm { absolute, comps }
    }

    /// A repository path (relative, `/`-separated) when this is one.
    fn repo_path(&self) -> Option<String> {
        (!self.absolute && !self.comps.is_empty()).then(|| self.comps.join("/"))
    }
}

/// The `--coverage-strip-prefix` values, longest first.
pub(super) struct Prefixes(Vec<Norm>);

impl Prefixes {
    pub(super) fn new(prefixes: &[String]) -> Self {
        let mut list: Vec<Norm> = prefixes
            .iter()
            .map(|p| Norm::new(p))
            // An empty relative prefix ("", ".") would strip nothing.
            .filter(|p| p.absolute || !p.comps.is_empty())
            .collect();
        list.sort_by_key(|p| std::cmp::Reverse(p.comps.len()));
        Prefixes(list)
    }

    /// `path` without the longest prefix that matches whole components, as a relative
    /// path; None when none matches or nothing would be left.
    fn strip(&self, path: &Norm) -> Option<Norm> {
        self.0.iter().find_map(|prefix| {
            let matches = prefix.absolute == path.absolute
                && path.comps.len() > prefix.comps.len()
                && path.comps.starts_with(&prefix.comps);
            matches.then(|| Norm {
                absolute: false,
                comps: path.comps[prefix.comps.len()..].to_vec(),
            })
        })
    }
}

/// Where a report path went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Mapped {
    /// The index of the repository file.
    File(usize),
    Ambiguous,
    Unmapped,
}

/// The repository's files, by exact path and by file name.
pub(super) struct RepoIndex<'r> {
    exact: HashMap<&'r str, usize>,
    by_name: HashMap<&'r str, Vec<usize>>,
    comps: Vec<Vec<&'r str>>,
}

impl<'r> RepoIndex<'r> {
    pub(super) fn new(files: &[&'r str]) -> Self {
        let mut exact = HashMap::with_capacity(files.len());
        let mut by_name: HashMap<&str, Vec<usize>> = HashMap::new();
        let mut comps = Vec::with_capacity(files.len());
        for (i, &file) in files.iter().enumerate() {
            exact.entry(file).or_insert(i);
            let parts: Vec<&str> = file.split('/').filter(|c| !c.is_empty()).collect();
            if let Some(&name) = parts.last() {
                by_name.entry(name).or_default().push(i);
            }
            comps.push(parts);
        }
        RepoIndex {
            exact,
            by_name,
            comps,
        }
    }

    /// Maps one report path, relative to any of `roots`.
    pub(super) fn map(&self, path: &str, roots: &[String], strip: &Prefixes) -> Mapped {
        let mut bases = vec![Norm::new(path)];
        if !bases[0].absolute {
            bases.extend(
                roots
                    .iter()
                    .map(|root| Norm::new(&format!("{root}/{path}"))),
            );
        }
        let mut candidates = Vec::with_capacity(bases.len() * 2);
        for base in bases {
            if let Some(stripped) = strip.strip(&base) {
                candidates.push(stripped);
            }
            candidates.push(base);
        }
        for candidate in &candidates {
            if let Some(&i) = candidate
                .repo_path()
                .and_then(|p| self.exact.get(p.as_str()))
            {
                return Mapped::File(i);
            }
        }
        // The repository files sharing the most trailing components with any candidate.
        let mut best_len = 0;
        let mut best: Vec<usize> = Vec::new();
        for candidate in &candidates {
            let Some(name) = candidate.comps.last() else {
                continue;
            };
            for &i in self.by_name.get(name.as_str()).into_iter().flatten() {
                let len = candidate
                    .comps
                    .iter()
                    .rev()
                    .zip(self.comps[i].iter().rev())
                    .take_while(|(a, b)| a.as_str() == **b)
                    .count();
                if len > best_len {
                    best_len = len;
                    best.clear();
                }
                if len == best_len {
                    best.push(i);
                }
            }
        }
        best.sort_unstable();
        best.dedup();
        match best[..] {
            [] => Mapped::Unmapped,
            [i] => Mapped::File(i),
            _ => Mapped::Ambiguous,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalises_separators_dots_and_parents() {
        let n = Norm::new(r".\src\.\lib/../a.c");
        assert_eq!(n.repo_path().as_deref(), Some("src/a.c"));
        let n = Norm::new("../src//a.c");
        assert_eq!(n.comps, ["..", "src", "a.c"]);
        let n = Norm::new("/../x/a.c");
        assert!(n.absolute);
        assert_eq!(n.comps, ["x", "a.c"]);
    }

    #[test]
    fn prefixes_strip_whole_components_longest_first() {
        let p = Prefixes::new(&["/home/ci".into(), "/home/ci/build/".into(), ".".into()]);
        let stripped = p.strip(&Norm::new("/home/ci/build/src/a.c"));
        assert_eq!(
            stripped.and_then(|n| n.repo_path()).as_deref(),
            Some("src/a.c")
        );
        // "/home/c" is not a component prefix of "/home/ci/...".
        let p = Prefixes::new(&["/home/c".into()]);
        assert_eq!(p.strip(&Norm::new("/home/ci/a.c")), None);
        // A prefix equal to the whole path leaves nothing to map.
        let p = Prefixes::new(&["/a.c".into()]);
        assert_eq!(p.strip(&Norm::new("/a.c")), None);
    }
}
