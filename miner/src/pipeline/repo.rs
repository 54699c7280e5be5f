//! Mining one repository: source, extract, resolve, enrich and filter, ending in the rows
//! of every table and the dedup inputs of the functions the filters kept.

use std::borrow::Cow;
use std::time::Instant;

use codemine_docstring::DocstringParams;
use codemine_filters::dedup::{self as near, literal, DedupParams, Item};
use codemine_schemas::csn::CsnRow;
use codemine_schemas::dedup::FunctionRow;
use codemine_schemas::dropped::DroppedRow;
use rayon::prelude::*;

use super::extract_step::{extract_files, read_project_files, Extracted};
use super::stage::DedupInput;
use super::steps;
use super::{HeaderMode, MineOptions, Progress};
use crate::callgraph::{self, NodeFacts, SealedGraph, YablocoShared};
use crate::csn::{self, RepoContext};
use crate::extract::{is_ambiguous_header, Function};
use crate::lang::{Lang, Registry};
use crate::resolve::{self, SourceUnit};
use crate::source::{self, RepoError, RepoSpec, SourceFile};
use crate::stats::{Failure, RepoStats};

/// A repository's results, handed from the workers to the writer.
pub struct RepoOutput {
    pub stats: RepoStats,
    /// CodeSearchNet rows with their function ids.
    pub rows: RepoRows,
    pub dropped: Vec<DroppedRow>,
    /// Dedup inputs of the kept functions, with their band hashes.
    pub dedup: Vec<DedupInput>,
    pub failures: Vec<Failure>,
    /// The repository-level failure kind, when it could not be opened.
    pub failed: Option<&'static str>,
    /// Its code-completion rows, with `--emit completion`.
    pub completion: Option<super::completion::RepoRows>,
    /// Its repository-level completion rows, with `--emit repo-completion`.
    pub repo_completion: Option<super::repo_completion::RepoRows>,
    /// Its `tests` rows, with `--run-tests`.
    pub tests: Vec<codemine_schemas::tests::TestRow>,
    /// Its `pii` rows, with `--pii`.
    pub pii: Vec<codemine_schemas::pii::PiiRow>,
    /// Its `tasks` rows, with `--run-tests --validate-tasks`.
    pub tasks: Vec<codemine_schemas::tasks::TaskRow>,
}

/// A repository's rows as the writer takes them: the call graph's nodes and edges are
/// built; YABLoCo and CSN rows are built one at a time while writing, from the parsed
/// units, so that a repository never holds both shapes of all its functions at once (a
/// file of many small functions made them the largest part of a run: issue 22, item 5).
#[derive(Default)]
pub struct RepoRows {
    pub graph: SealedGraph,
    pub units: Vec<SourceUnit>,
    /// Per node: kept by the filters.
    pub keep: Vec<bool>,
    yabloco: Option<(YablocoShared, codemine_filters::DateZone)>,
    csn: Option<CsnContext>,
    /// Per node: its function's docstring in parts, with `--docstring-params` (`None`
    /// without: the rows have no such column).
    pub docstring_params: Option<Vec<Option<DocstringParams>>>,
}

/// [`RepoContext`], owned.
struct CsnContext {
    repo: String,
    sha: Option<String>,
    url_base: Option<String>,
    partition: codemine_schemas::Split,
    names: csn::CsnNames,
}

impl RepoRows {
    /// The YABLoCo row of node `k` (a kept one).
    pub fn yabloco_row(&self, k: usize) -> Option<codemine_schemas::yabloco::YablocoRow> {
        let (shared, zone) = self.yabloco.as_ref()?;
        Some(self.graph.yabloco_row(&self.units, k, shared, zone))
    }

    /// The CSN rows of the kept functions whose node `written` accepts, in node order,
    /// each with its id and its docstring's parts (with `--docstring-params`); the units
    /// are consumed (each function's code and tokens move into its row).
    pub fn csn_rows(
        &mut self,
        mut written: impl FnMut(u64) -> bool,
        mut push: impl FnMut((u64, CsnRow), Option<DocstringParams>) -> Result<(), crate::Error>,
    ) -> Result<(), crate::Error> {
        let Some(c) = &self.csn else {
            return Ok(());
        };
        let ctx = RepoContext {
            repo: &c.repo,
            sha: c.sha.as_deref(),
            url_base: c.url_base.clone(),
            partition: c.partition,
            names: c.names,
        };
        let mut k = 0;
        for unit in std::mem::take(&mut self.units) {
            for f in unit.functions {
                let (node, kept, id) = (k, self.keep[k], self.graph.facts[k].id);
                k += 1;
                if !kept || !written(id) {
                    continue;
                }
                let parts = self
                    .docstring_params
                    .as_mut()
                    .and_then(|p| p.get_mut(node))
                    .and_then(Option::take);
                if let Some(row) = csn::row(&ctx, &unit.path, unit.lang, f) {
                    push((id, row), parts)?;
                }
            }
        }
        Ok(())
    }
}

/// Mines one repository: open, list, then read and parse its files in parallel, resolve
/// the calls, enrich and filter the functions, and hand their rows to the writer. Each step
/// is a function of its own below, with its stats.
pub fn mine_repo(spec: &RepoSpec, opts: &MineOptions, progress: &dyn Progress) -> RepoOutput {
    let t0 = Instant::now();
    let name = spec.repo_name();
    let mut stats = RepoStats {
        repo: name.clone(),
        source: spec.display(),
        ..Default::default()
    };
    let mut snap = match source::open(spec, &opts.source) {
        Ok(s) => s,
        Err(e) => return failed(stats, e, t0),
    };
    stats.source_seconds = t0.elapsed().as_secs_f64();
    stats.sha = snap.sha.clone();
    stats.files_listed = snap.files.len();
    stats.skipped = snap.skipped.clone();
    if let Some(lang) = header_language(&snap.files, opts.headers) {
        stats.headers = Some(lang.name());
        for f in snap
            .files
            .iter_mut()
            .filter(|f| is_ambiguous_header(&f.path))
        {
            f.lang = lang;
        }
    }
    progress.repo_listed(&name, snap.files.len());
    let (licenses, repo_license) = super::licenses::detect(&snap);
    stats.license = Some(repo_license);

    let split = csn::partition(&name, opts.split);
    stats.partition = Some(split.as_str());
    stats.status = "mined";
    let url_base = match (&snap.remote_host, &snap.sha) {
        (_, None) => None,
        (Some(h), _) if h != "github.com" => Some(format!("https://{h}/")),
        _ => Some("https://github.com/".to_string()),
    };
    let ctx = RepoContext {
        repo: &name,
        sha: snap.sha.as_deref(),
        url_base,
        partition: split,
        names: opts.csn_names,
    };

    let mut failures = Vec::new();
    let Extracted {
        mut units,
        unit_licenses,
        blobs,
        completion,
        texts,
        pii,
    } = extract_files(
        &snap,
        opts,
        &licenses,
        split,
        progress,
        &mut stats,
        &mut failures,
    );

    let t = Instant::now();
    let project_files = read_project_files(&snap);
    // With repository-level completion, the imported names its lines mention are resolved
    // by the same resolvers as the calls.
    let probes = match &opts.repo_completion {
        Some(_) => crate::repo_completion::probes(&units, &texts),
        None => Default::default(),
    };
    let (edges, counts, reached) =
        resolve::resolve_with_probes(&units, &project_files, &probes.sites);
    let line_uses = opts
        .repo_completion
        .as_ref()
        .map(|_| crate::repo_completion::uses(&units, &edges, &probes, &reached));
    drop((probes, reached));
    drop(project_files);
    free_resolution_inputs(&mut units);
    let mut graph = match callgraph::build(&name, &units, edges, opts.callgraph_compat) {
        Ok(g) => g,
        Err(e) => return encode_failed(stats, &e),
    };
    // Every node has its file's license: functions', then the extra nodes' rows.
    for (rows, extra) in [(&mut graph.nodes, false), (&mut graph.extra_nodes, true)] {
        let per_node = units.iter().zip(&unit_licenses).flat_map(|(u, l)| {
            std::iter::repeat_n(
                l,
                if extra {
                    u.extra.nodes.len()
                } else {
                    u.functions.len()
                },
            )
        });
        for (node, l) in rows.iter_mut().zip(per_node) {
            node.license.clone_from(l);
        }
    }
    // Their rows are made: the extra nodes are not needed again.
    for u in &mut units {
        u.extra = Default::default();
    }
    stats.resolve = counts;
    stats.resolve_seconds = t.elapsed().as_secs_f64();

    let mut tests = Vec::new();
    let mut tasks = Vec::new();
    let mut outcome: Vec<Result<(), &'static str>> = vec![Ok(()); graph.nodes.len()];
    let mut docstring_params: Vec<Option<DocstringParams>> = match opts.docstring_params {
        true => vec![None; graph.nodes.len()],
        false => Vec::new(),
    };
    steps::run_all(&mut steps::Enriching {
        spec,
        opts,
        snap: &snap,
        units: &units,
        blobs: &blobs,
        graph: &mut graph,
        outcome: &mut outcome,
        stats: &mut stats,
        failures: &mut failures,
        tests: &mut tests,
        tasks: &mut tasks,
        pii: &pii,
        docstring_params: &mut docstring_params,
    });
    let pii = match &opts.pii {
        Some(p) => super::pii::rows(&name, p.mode, &units, &pii, |k| graph.nodes[k].id),
        None => Vec::new(),
    };
    let t = Instant::now();
    let repo_completion = match (&opts.repo_completion, &line_uses) {
        (Some(o), Some(uses)) => Some(repo_completion_step(
            o,
            &units,
            &texts,
            uses,
            (&snap, &blobs, split),
            &mut stats,
            &mut failures,
        )),
        _ => None,
    };
    drop(texts);
    let dropped = funnel_step(&units, &outcome, &mut graph, opts.explain, &mut stats);
    stats.filter_seconds += t.elapsed().as_secs_f64();
    let keep: Vec<bool> = outcome.iter().map(Result::is_ok).collect();

    let graph = match graph.seal(&units) {
        Ok(g) => g,
        Err(e) => return encode_failed(stats, &e),
    };
    let dedup = match &opts.dedup {
        Some(params) => prepare_dedup(&mut units, &graph.facts, &keep, split.index(), params),
        None => Vec::new(),
    };
    count_csn_rows(&units, &keep, &mut stats);
    let rows = RepoRows {
        graph,
        units,
        keep,
        yabloco: Some((
            YablocoShared::new(&name, &opts.instruction),
            opts.date_zone.clone(),
        )),
        csn: Some(CsnContext {
            repo: ctx.repo.to_string(),
            sha: ctx.sha.map(str::to_string),
            url_base: ctx.url_base,
            partition: ctx.partition,
            names: ctx.names,
        }),
        docstring_params: opts.docstring_params.then_some(docstring_params),
    };
    let completion = completion.map(|outcomes| {
        let rows = super::completion::collect(outcomes);
        stats.completion = Some(rows.counts.clone());
        rows
    });
    RepoOutput {
        stats,
        rows,
        dropped,
        dedup,
        failures,
        failed: None,
        completion,
        repo_completion,
        tests,
        pii,
        tasks,
    }
}

/// The repository-level completion step ([`super::repo_completion::step`]), with its
/// counts in the repository's stats.
fn repo_completion_step(
    opts: &crate::repo_completion::Options,
    units: &[SourceUnit],
    texts: &[Option<String>],
    uses: &crate::repo_completion::Uses,
    (snap, blobs, partition): (
        &source::Snapshot,
        &[Option<git2::Oid>],
        codemine_schemas::Split,
    ),
    stats: &mut RepoStats,
    failures: &mut Vec<Failure>,
) -> super::repo_completion::RepoRows {
    let cx = super::repo_completion::Context {
        repo: &stats.repo,
        sha: snap.sha.as_deref().unwrap_or_default(),
        partition,
        snap,
        blobs,
    };
    let mut errors = Vec::new();
    let rows = super::repo_completion::step(opts, units, texts, uses, &cx, &mut errors);
    for e in errors {
        failures.push(failure(stats, None, "enrich", "history_error", e));
    }
    stats.repo_completion = Some(rows.counts.clone());
    rows
}

/// A failure of one of the repository's steps.
pub(super) fn failure(
    stats: &RepoStats,
    path: Option<String>,
    stage: &'static str,
    kind: &'static str,
    reason: String,
) -> Failure {
    Failure {
        repo: stats.repo.clone(),
        source: stats.source.clone(),
        path,
        stage,
        kind,
        reason,
        log_tail: None,
    }
}

/// Call sites and typed locals served resolution only (the edges have what the graph
/// needs); a file of many functions holds them by the million (issue 22, item 5). So did
/// the signature where a body is braced: YABLoCo's signature is then the code before the
/// first `{` (`callgraph::signature`).
fn free_resolution_inputs(units: &mut [SourceUnit]) {
    for u in units {
        let braced = u.lang.def().braced_body();
        for f in &mut u.functions {
            f.calls = Vec::new();
            f.locals = Vec::new();
            if braced {
                f.signature = String::new();
            }
        }
    }
}

/// Records every function's filter outcome in the funnel and marks the dropped ones'
/// nodes; with `--explain`, their rows for the dropped table.
fn funnel_step(
    units: &[SourceUnit],
    outcome: &[Result<(), &'static str>],
    graph: &mut callgraph::Graph,
    explain: bool,
    stats: &mut RepoStats,
) -> Vec<DroppedRow> {
    let mut dropped = Vec::new();
    for (k, u, f) in each_function(units) {
        stats.funnel.record(&stats.repo, u.lang.name(), outcome[k]);
        let Err(rule) = outcome[k] else { continue };
        let node = &mut graph.nodes[k];
        node.dropped_by = Some(rule);
        if explain {
            dropped.push(DroppedRow {
                id: node.id,
                repository: stats.repo.clone(),
                path: u.path.clone(),
                qualified_name: f.qualified_name.clone(),
                language: u.lang.name().to_string(),
                start_line: i64::from(f.start_line),
                end_line: i64::from(f.end_line),
                rule: rule.to_string(),
                docstring: f.docstring.clone(),
                code: f.code.clone(),
                contaminated_by: node.contaminated_by.clone(),
            });
        }
    }
    dropped
}

/// A kept function with a docstring is a CSN row (`csn::row`), written later.
fn count_csn_rows(units: &[SourceUnit], keep: &[bool], stats: &mut RepoStats) {
    for (k, u, f) in each_function(units) {
        if keep[k] && f.docstring.is_some() {
            stats.totals.csn_rows += 1;
            if let Some(c) = stats.languages.get_mut(u.lang.name()) {
                c.csn_rows += 1;
            }
        }
    }
}

/// The dedup inputs of the kept functions: their content tokens (identifiers, keywords,
/// literals; see [`near::is_content_token`]) reduced to the exact key, the shingle set and
/// the band hashes, with the facts of the keeper rule.
fn prepare_dedup(
    units: &mut [SourceUnit],
    nodes: &[NodeFacts],
    keep: &[bool],
    partition: u8,
    params: &DedupParams,
) -> Vec<DedupInput> {
    // Only CSN rows read code tokens after this, and only kept functions make rows.
    let all = units.iter_mut().flat_map(|u| u.functions.iter_mut());
    for (f, _) in all.zip(keep).filter(|(_, keep)| !**keep) {
        f.code_tokens = Default::default();
    }
    let mut kept: Vec<(usize, Lang, &mut Function)> = units
        .iter_mut()
        .flat_map(|u| {
            let lang = u.lang;
            u.functions.iter_mut().map(move |f| (lang, f))
        })
        .enumerate()
        .filter(|(k, _)| keep[*k])
        .map(|(k, (lang, f))| (k, lang, f))
        .collect();
    kept.par_iter_mut()
        .map(|(k, lang, f)| {
            let spelling = lang.literal_spelling();
            let tokens: Vec<Cow<str>> = f
                .code_tokens
                .iter()
                .filter(|t| near::is_content_token(t))
                .map(|t| literal::canonical(t, spelling))
                .collect();
            let node = &nodes[*k];
            let item = Item {
                id: node.id,
                tokens: &tokens,
                has_docstring: f.docstring.is_some(),
                last_commit: node.last_commit,
                partition,
            };
            let (p, bands) = near::prepare(&item, params);
            drop(tokens);
            // Freed as the dedup inputs grow, so that a file of many undocumented functions
            // does not hold both at once (issue 22, item 5).
            if f.docstring.is_none() {
                f.code_tokens = Default::default();
            }
            let row = FunctionRow {
                id: p.id,
                exact_hash: p.exact,
                shingles: p.shingles,
                has_docstring: p.has_docstring,
                last_commit: p.last_commit,
                partition: split_of(partition),
            };
            (row, bands)
        })
        .collect()
}

/// The split of a partition index (0 train, 1 valid, 2 test).
pub fn split_of(index: u8) -> codemine_schemas::Split {
    use codemine_schemas::Split;
    match index {
        1 => Split::Valid,
        2 => Split::Test,
        _ => Split::Train,
    }
}

/// Every function of the units with its node index (units in order, then functions).
pub(super) fn each_function(
    units: &[SourceUnit],
) -> impl Iterator<Item = (usize, &SourceUnit, &Function)> {
    units
        .iter()
        .flat_map(|u| u.functions.iter().map(move |f| (u, f)))
        .enumerate()
        .map(|(k, (u, f))| (k, u, f))
}

/// The language of the repository's `.h` headers, when it has any.
fn header_language(files: &[SourceFile], mode: HeaderMode) -> Option<Lang> {
    if !files.iter().any(|f| is_ambiguous_header(&f.path)) {
        return None;
    }
    Some(match mode {
        HeaderMode::C => Lang::C,
        HeaderMode::Cpp => Lang::Cpp,
        HeaderMode::Auto => {
            let cpp = files.iter().filter(|f| f.lang == Lang::Cpp).count();
            let c = files
                .iter()
                .filter(|f| f.lang == Lang::C && !is_ambiguous_header(&f.path))
                .count();
            if cpp > c {
                Lang::Cpp
            } else {
                Lang::C
            }
        }
    })
}

fn failed(mut stats: RepoStats, e: RepoError, t0: Instant) -> RepoOutput {
    stats.source_seconds = t0.elapsed().as_secs_f64();
    let f = failure(&stats, None, "source", e.kind(), e.to_string());
    failed_with(stats, f)
}

/// A repository whose call-graph rows could not be encoded: a bug rather than bad input,
/// but one repository's, so the run goes on without it.
fn encode_failed(stats: RepoStats, e: &codemine_schemas::Error) -> RepoOutput {
    let reason = format!("the call-graph rows could not be encoded: {e}");
    let f = failure(&stats, None, "write", "encode_error", reason);
    failed_with(stats, f)
}

/// The output of a repository that failed as a whole: its one failure and no rows.
fn failed_with(mut stats: RepoStats, failure: Failure) -> RepoOutput {
    stats.status = "failed";
    RepoOutput {
        failed: Some(failure.kind),
        failures: vec![failure],
        stats,
        rows: RepoRows::default(),
        dropped: Vec::new(),
        dedup: Vec::new(),
        completion: None,
        repo_completion: None,
        tests: Vec::new(),
        pii: Vec::new(),
        tasks: Vec::new(),
    }
}
