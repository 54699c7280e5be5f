//! The steps between a repository's call graph and its rows, in one shape: each reads and
//! changes the repository's [`Enriching`] state (its graph's nodes, every function's filter
//! outcome), records its stats in the repository's [`RepoStats`] (their types live in
//! `crate::stats`, their card lines in `crate::stats::card`) and reports what failed.
//! [`STEPS`] lists them in the order `mine_repo` runs them: a new step is a type that
//! implements [`RepoStep`] and one line there.
//!
//! The steps before (extraction, resolution) and after (the funnel, sealing, dedup inputs)
//! change what the state is made of, so they stay calls of their own in `mine_repo`.

use std::time::Instant;

use codemine_filters::{FunctionView, Kind};
use codemine_schemas::callgraph::NodeRow;

use super::repo::each_function;
use super::MineOptions;
use crate::callgraph;
use crate::extract::{tokens, Function, FunctionKind};
use crate::lang::Lang;
use crate::resolve::SourceUnit;
use crate::source::{RepoSpec, Snapshot};
use crate::stats::{Failure, RepoStats};

/// A repository between resolution and its rows: what the steps read and change.
pub(super) struct Enriching<'a> {
    pub spec: &'a RepoSpec,
    pub opts: &'a MineOptions,
    pub snap: &'a Snapshot,
    pub units: &'a [SourceUnit],
    /// Per file of `units`: the blob its text was read from (history follows it).
    pub blobs: &'a [Option<git2::Oid>],
    pub graph: &'a mut callgraph::Graph,
    /// Per node: `Ok` while every step kept the function, else the rule that dropped it.
    pub outcome: &'a mut [Result<(), &'static str>],
    pub stats: &'a mut RepoStats,
    pub failures: &'a mut Vec<Failure>,
    /// The `tests` table's rows of the repository's own test run (`--run-tests`).
    pub tests: &'a mut Vec<codemine_schemas::tests::TestRow>,
    /// The `tasks` table's rows (`--validate-tasks`).
    pub tasks: &'a mut Vec<codemine_schemas::tasks::TaskRow>,
    /// Per file of `units`: its findings of personal data and secrets (`--pii`).
    pub pii: &'a [Vec<super::pii::Located>],
    /// Per node: the function's docstring in parts (`--docstring-params`; empty without).
    pub docstring_params: &'a mut [Option<codemine_docstring::DocstringParams>],
}

/// One step of [`STEPS`].
pub(super) trait RepoStep: Sync {
    /// Whether this run asks for the step on this repository.
    fn wanted(&self, opts: &MineOptions, spec: &RepoSpec) -> bool;
    /// Runs the step; what fails is a failure of the repository's record, never an error
    /// that stops the other steps or repositories.
    fn run(&self, s: &mut Enriching);
}

/// The steps in the order they run. Filters run before history where they can, so that
/// only the functions they keep are blamed.
pub(super) const STEPS: &[&dyn RepoStep] = &[
    &super::enrich_step::Coverage,
    &super::tests_step::RunTests,
    &Filter::BeforeHistory,
    &super::decontam::Decontaminate,
    &super::pii::DropSecrets,
    &super::enrich_step::History,
    &Filter::AfterHistory,
    &super::docstring_params::ParseDocstrings,
    &super::validate_tasks::ValidateTasks,
];

/// Runs every wanted step of [`STEPS`] on the state.
pub(super) fn run_all(s: &mut Enriching) {
    for step in STEPS {
        if step.wanted(s.opts, s.spec) {
            step.run(s);
        }
    }
}

/// The filter rules (`codemine_filters::Filter`): the cheap ones before history, the date
/// rules after it.
pub(super) enum Filter {
    BeforeHistory,
    AfterHistory,
}

impl RepoStep for Filter {
    fn wanted(&self, opts: &MineOptions, _spec: &RepoSpec) -> bool {
        opts.filter.as_ref().is_some_and(|f| match self {
            Filter::BeforeHistory => f.is_active(),
            Filter::AfterHistory => f.is_active() && f.needs_last_commit(),
        })
    }

    fn run(&self, s: &mut Enriching) {
        let Some(filter) = s.opts.filter.as_ref() else {
            return;
        };
        let t = Instant::now();
        let (repo, units, nodes) = (&s.stats.repo, s.units, &s.graph.nodes);
        match self {
            Filter::BeforeHistory => for_each_view(repo, units, nodes, s.outcome, |v| {
                filter.check_before_history(v)
            }),
            Filter::AfterHistory => {
                for_each_view(repo, units, nodes, s.outcome, |v| filter.check_history(v))
            }
        }
        s.stats.filter_seconds += t.elapsed().as_secs_f64();
    }
}

/// Calls `check` with the filter's view of every function whose outcome is still `Ok`,
/// in node order.
fn for_each_view(
    repo: &str,
    units: &[SourceUnit],
    nodes: &[NodeRow],
    outcome: &mut [Result<(), &'static str>],
    check: impl Fn(&FunctionView) -> Result<(), &'static str>,
) {
    for (k, u, f) in each_function(units) {
        if outcome[k].is_err() {
            continue;
        }
        let node = &nodes[k];
        outcome[k] = check(&FunctionView {
            repository: repo,
            path: &u.path,
            language: u.lang.name(),
            name: &f.name,
            qualified_name: &f.qualified_name,
            kind: match f.kind {
                // Lambdas and modules are call-graph nodes only (`SourceUnit::extra`).
                FunctionKind::Function | FunctionKind::Lambda | FunctionKind::Module => {
                    Kind::Function
                }
                FunctionKind::Method => Kind::Method,
                FunctionKind::Constructor => Kind::Constructor,
            },
            start_line: f.start_line,
            end_line: f.end_line,
            body_lines: body_lines(u.lang, f),
            docstring: f.docstring.as_deref(),
            docstring_tokens: f.docstring.as_deref().map_or(0, |d| {
                tokens::tokenize_docstring(u.lang.def().docstring_summary(d)).len()
            }),
            syntax_error: f.syntax_error,
            calls_num: u64::try_from(node.calls_num).unwrap_or(0),
            test_cov_hits: node.test_cov_hits,
            last_commit: node.last_commit,
            last_commit_bounded: node.last_commit_bounded.unwrap_or(false),
            license: node.license.as_deref(),
            param_names: &f.param_names,
        });
    }
}

/// YABLoCo's body length: the lines of the text between the first `{` and the last `}`,
/// trimmed (its `has_proper_code_len`); for languages whose bodies are not braced
/// (Python, Ruby), the lines after the signature.
fn body_lines(lang: Lang, f: &Function) -> u32 {
    let body = if lang.def().braced_body() {
        match (f.code.find('{'), f.code.rfind('}')) {
            (Some(i), Some(j)) if i < j => &f.code[i + 1..j],
            _ => "",
        }
    } else {
        f.code.get(f.signature.len()..).unwrap_or_default()
    };
    body.trim().split('\n').count() as u32
}
