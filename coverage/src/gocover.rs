//! Go's coverage profile (`go test -coverprofile`, `go tool covdata textfmt`): a `mode:`
//! line (`set`, `count` or `atomic`), then one block per line,
//! `FILE:START_LINE.START_COL,END_LINE.END_COL STATEMENTS COUNT`, where FILE is the import
//! path of the package joined with the file name (`example.com/m/sub/x.go`; the suffix
//! matching of [`super::RepoCoverage::build`] maps it onto `sub/x.go`). A line's hits are
//! the largest count of the blocks that span it (blocks of one line meet at their edges,
//! so summing would count a line twice); a block listed again (profiles of several test
//! binaries concatenated) adds its counts, as `go tool cover` merges them.

use std::collections::{BTreeMap, HashMap};

use super::{Fail, FileHits};

/// A block's span: start line and column, end line and column.
type Span = (u32, u32, u32, u32);

/// The files of a Go coverage profile, in the order they first appear.
pub(super) fn parse(data: &[u8]) -> Result<Vec<FileHits>, Fail> {
    let text = std::str::from_utf8(data).map_err(|e| Fail::new(1, e.to_string()))?;
    let mut lines = text.lines().enumerate();
    let mode = lines
        .next()
        .and_then(|(_, l)| l.trim().strip_prefix("mode:"))
        .map(str::trim)
        .ok_or_else(|| Fail::new(1, "no `mode:` line"))?;
    if !matches!(mode, "set" | "count" | "atomic") {
        return Err(Fail::new(1, format!("unknown mode {mode:?}")));
    }
    // Per file: each block's count, keyed by its span.
    let mut order: Vec<&str> = Vec::new();
    let mut blocks: HashMap<&str, BTreeMap<Span, u64>> = HashMap::new();
    for (i, line) in lines {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let bad = |what: &str| Fail::new(i + 1, format!("{what} in {line:?}"));
        // The file may hold `:`; the span follows the last one.
        let (file, rest) = line.rsplit_once(':').ok_or_else(|| bad("no `:`"))?;
        let mut parts = rest.split_ascii_whitespace();
        let (Some(span), Some(_stmts), Some(count), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(bad("not `span statements count`"));
        };
        let count: u64 = count.parse().map_err(|_| bad("a bad count"))?;
        let (start, end) = span.split_once(',').ok_or_else(|| bad("a bad span"))?;
        let point = |p: &str| -> Option<(u32, u32)> {
            let (l, c) = p.split_once('.')?;
            Some((l.parse().ok()?, c.parse().ok()?))
        };
        let ((l1, c1), (l2, c2)) = point(start)
            .zip(point(end))
            .ok_or_else(|| bad("a bad span"))?;
        if l2 < l1 {
            return Err(bad("a span that ends before it starts"));
        }
        let file_blocks = blocks.entry(file).or_insert_with(|| {
            order.push(file);
            BTreeMap::new()
        });
        let c = file_blocks.entry((l1, c1, l2, c2)).or_default();
        *c = if mode == "set" {
            (*c).max(count)
        } else {
            c.saturating_add(count)
        };
    }
    Ok(order
        .into_iter()
        .map(|file| {
            let mut hits: BTreeMap<u32, u64> = BTreeMap::new();
            for (&(l1, _, l2, _), &count) in &blocks[file] {
                for l in l1..=l2 {
                    let h = hits.entry(l).or_default();
                    *h = (*h).max(count);
                }
            }
            FileHits::new(file.to_string(), hits.into_iter().collect())
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_become_line_hits() {
        let profile = "mode: count\n\
            example.com/m/sub/x.go:3.20,5.2 2 4\n\
            example.com/m/sub/x.go:5.2,7.3 1 0\n\
            example.com/m/a.go:10.1,10.9 1 1\n\
            example.com/m/sub/x.go:3.20,5.2 2 3\n";
        let files = parse(profile.as_bytes()).unwrap();
        assert_eq!(
            files,
            [
                FileHits {
                    path: "example.com/m/sub/x.go".into(),
                    // Block 1 ran 4 + 3 times (listed twice); line 5 is in both blocks.
                    lines: vec![(3, 7), (4, 7), (5, 7), (6, 0), (7, 0)],
                },
                FileHits {
                    path: "example.com/m/a.go".into(),
                    lines: vec![(10, 1)],
                },
            ]
        );
    }

    #[test]
    fn set_mode_does_not_add_and_bad_lines_are_errors() {
        let files = parse(b"mode: set\nx.go:1.1,1.5 1 1\nx.go:1.1,1.5 1 1\n").unwrap();
        assert_eq!(files[0].lines, [(1, 1)]);
        let e = parse(b"mode: set\nx.go:1.1,1.5 1\n").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(parse(b"mode: fast\n").is_err());
        assert!(parse(b"x.go:1.1,1.5 1 1\n").is_err());
    }
}
