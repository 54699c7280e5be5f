//! Turns extracted functions into CodeSearchNet rows (docs/design.md, "CodeSearchNet shape"):
//! the `url`, the repository-level `partition`, and the docstring tokens of the summary.

use codemine_schemas::csn::CsnRow;
use codemine_schemas::Split;
use xxhash_rust::xxh3::xxh3_64;

use crate::extract::{tokens, Function};
use crate::lang::Lang;

/// Split shares in percent (train, valid, test).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SplitRatios(pub u8, pub u8, pub u8);

impl Default for SplitRatios {
    /// CodeSearchNet's 80/10/10.
    fn default() -> Self {
        SplitRatios(80, 10, 10)
    }
}

/// The partition of a repository: `xxh3_64(repo) % 100` falls in the train, valid or test
/// share. Every function of a repository lands in the same partition.
pub fn partition(repo: &str, ratios: SplitRatios) -> Split {
    let bucket = (xxh3_64(repo.as_bytes()) % 100) as u8;
    if bucket < ratios.0 {
        Split::Train
    } else if bucket < ratios.0 + ratios.1 {
        Split::Valid
    } else {
        Split::Test
    }
}

/// Percent-encodes a path for a URL as GitHub's links do: every byte of the UTF-8 text
/// except those RFC 3986 allows in a path as they are (letters, digits, `-._~`, the
/// sub-delimiters `!$&'()*+,;=`, `:`, `@`) and the `/` between segments. A space, a tab, a
/// newline, `#`, `?` or `%` in a file name would otherwise end or break the URL.
pub fn encode_path(path: &str) -> String {
    const KEEP: &[u8] = b"-._~!$&'()*+,;=:@/";
    let mut out = String::with_capacity(path.len());
    for &b in path.as_bytes() {
        if b.is_ascii_alphanumeric() || KEEP.contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// How CSN rows name functions (`--csn-names`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CsnNames {
    /// codemine's qualified name (`Type.Method`, `obj.m`, `outer.inner`), the id's name.
    #[default]
    Codemine,
    /// function_parser's `identifier`, for joining rows with CodeSearchNet's published ones
    /// (Go methods without the receiver type, anonymous JavaScript functions empty).
    FunctionParser,
}

/// What a row needs to know about its repository.
pub struct RepoContext<'a> {
    pub repo: &'a str,
    pub sha: Option<&'a str>,
    /// `https://github.com/` for GitHub and local repositories, `https://{host}/` for other
    /// hosts; `None` for a plain folder (no commit, so no URL).
    pub url_base: Option<String>,
    pub partition: Split,
    pub names: CsnNames,
}

/// The CSN row of a function (moved in: code and tokens are not copied), or `None` when
/// it has no docstring.
pub fn row(ctx: &RepoContext, path: &str, lang: Lang, f: Function) -> Option<CsnRow> {
    let docstring = f.docstring?;
    let url = match (&ctx.url_base, ctx.sha) {
        (Some(base), Some(sha)) => {
            format!(
                "{base}{}/blob/{sha}/{}#L{}-L{}",
                encode_path(ctx.repo),
                encode_path(path),
                f.start_line,
                f.end_line
            )
        }
        _ => String::new(),
    };
    Some(CsnRow {
        repo: ctx.repo.to_string(),
        path: path.to_string(),
        func_name: match (ctx.names, f.function_parser_name) {
            (CsnNames::FunctionParser, Some(name)) => name,
            _ => f.qualified_name,
        },
        original_string: f.code,
        language: lang.name().to_string(),
        code_tokens: f.code_tokens,
        docstring_tokens: tokens::tokenize_docstring(lang.def().docstring_summary(&docstring)),
        // The published text; the tokens above come from the cleaned one.
        docstring: f.csn_docstring.unwrap_or(docstring),
        sha: ctx.sha.unwrap_or_default().to_string(),
        url,
        partition: ctx.partition,
    })
}
