//! Drives a run: repositories are mined in parallel (rayon; a repository is the unit of
//! work, and its files are parsed in parallel too), in batches taken in input order, and a
//! writer thread streams each batch's rows into the shards while the next batch is mined.
//! Output order is input order whatever the thread count, and memory is bounded by a batch.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::mpsc;
use std::time::Instant;

use codemine_filters::{Filter, FunctionView, Kind};
use codemine_schemas::callgraph::{EdgesTable, NodeRow, NodesTable};
use codemine_schemas::csn::{CsnRow, CsnTable};
use codemine_schemas::dropped::{DroppedRow, DroppedTable};
use codemine_schemas::yabloco::YablocoTable;
use codemine_schemas::{clear_shards, ShardOptions, ShardWriter, Split};
use rayon::prelude::*;

use crate::callgraph::{self, GraphRows};
use crate::coverage::{self, CoverageError, CoverageStats, RepoCoverage};
use crate::csn::{self, RepoContext, SplitRatios};
use crate::enrich::{last_commits, BlameError, BlameStats, BlameTarget, FileDates, HistoryStats};
use crate::extract::{
    is_ambiguous_header, tokens, Extractor, FileInfo, Function, FunctionKind, Lang,
};
use crate::output::{self, FailureLog};
use crate::resolve::{self, SourceUnit};
use crate::source::{self, ReadError, Reader, RepoError, RepoSpec, SourceFile, SourceOptions};
use crate::stats::{Failure, LangCounts, RepoCoverageStats, RepoStats, Stats};
use crate::Error;

/// Everything a run needs besides the repositories.
#[derive(Debug, Clone)]
pub struct MineOptions {
    pub out_dir: PathBuf,
    pub source: SourceOptions,
    /// Worker threads; 0 means one per core.
    pub threads: usize,
    /// Files larger than this are skipped (and recorded) without being read.
    pub max_file_bytes: u64,
    pub shards: ShardOptions,
    pub split: SplitRatios,
    /// How `.h` headers are parsed.
    pub headers: HeaderMode,
    /// The YABLoCo `instruction` template.
    pub instruction: String,
    /// Date functions by their last commit (blame semantics); off skips the history walk.
    pub history: bool,
    /// Prefixes removed from coverage reports' file paths before matching.
    pub coverage_strip_prefixes: Vec<String>,
    /// The filter stage; `None` keeps every function.
    pub filter: Option<Filter>,
    /// Write the functions that filters removed, with the rule, to `DIR/dropped/`.
    pub explain: bool,
}

/// The language of `.h` headers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum HeaderMode {
    /// C++ when the repository has more C++ sources than C sources, else C.
    #[default]
    Auto,
    C,
    Cpp,
}

impl MineOptions {
    pub fn new(out_dir: PathBuf, cache_dir: PathBuf) -> Self {
        Self {
            out_dir,
            source: SourceOptions {
                cache_dir,
                offline: false,
            },
            threads: 0,
            max_file_bytes: 1 << 20,
            shards: ShardOptions::default(),
            split: SplitRatios::default(),
            headers: HeaderMode::Auto,
            instruction: callgraph::DEFAULT_INSTRUCTION.to_string(),
            history: true,
            coverage_strip_prefixes: Vec::new(),
            filter: None,
            explain: false,
        }
    }
}

/// Hooks for a progress display; every method may be called from any worker thread.
pub trait Progress: Sync {
    fn started(&self, _repos: usize) {}
    fn repo_listed(&self, _repo: &str, _files: usize) {}
    fn file_done(&self) {}
    fn repo_finished(&self, _stats: &RepoStats, _failure: Option<&Failure>) {}
}

/// No progress display.
pub struct NoProgress;
impl Progress for NoProgress {}

/// What a finished run reports.
#[derive(Debug)]
pub struct Summary {
    pub stats: Stats,
    pub failures: usize,
}

impl Summary {
    /// Whether anything at all was mined (some repository opened).
    pub fn mined_anything(&self) -> bool {
        self.stats.stages.source.opened > 0
    }
}

/// A repository's results, handed from the workers to the writer.
struct RepoOutput {
    stats: RepoStats,
    rows: Vec<CsnRow>,
    graph: GraphRows,
    dropped: Vec<DroppedRow>,
    failures: Vec<Failure>,
    /// The repository-level failure kind, when it could not be opened.
    failed: Option<&'static str>,
}

/// Mines `specs` into `opts.out_dir`.
pub fn mine(
    specs: &[RepoSpec],
    opts: &MineOptions,
    progress: &dyn Progress,
) -> Result<Summary, Error> {
    let start = Instant::now();
    for dir in ["csn", "yabloco", "callgraph", "dropped"] {
        clear_shards(&opts.out_dir.join(dir))?;
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(opts.threads)
        .build()
        .map_err(|e| Error::ThreadPool(e.to_string()))?;
    let threads = pool.current_num_threads();
    progress.started(specs.len());

    let (tx, rx) = mpsc::sync_channel::<Vec<RepoOutput>>(1);
    let mut writer = Writer::new(opts)?;
    let summary = std::thread::scope(|scope| {
        let handle = scope.spawn(move || -> Result<Writer, Error> {
            for batch in rx {
                for repo in batch {
                    writer.add(repo)?;
                }
            }
            Ok(writer)
        });
        let batch_size = (threads * 2).max(4);
        for chunk in specs.chunks(batch_size) {
            let outputs: Vec<RepoOutput> = pool.install(|| {
                chunk
                    .par_iter()
                    .map(|s| mine_repo(s, opts, progress))
                    .collect()
            });
            for o in &outputs {
                progress.repo_finished(&o.stats, o.failures.first().filter(|_| o.failed.is_some()));
            }
            if tx.send(outputs).is_err() {
                break; // the writer stopped on an error, which join() reports
            }
        }
        drop(tx);
        let writer = handle
            .join()
            .map_err(|_| Error::ThreadPool("the writer thread panicked".into()))??;
        writer.finish(threads, start)
    })?;
    Ok(summary)
}

/// Mines one repository: open, list, then read and parse its files in parallel.
fn mine_repo(spec: &RepoSpec, opts: &MineOptions, progress: &dyn Progress) -> RepoOutput {
    let t0 = Instant::now();
    let name = spec.repo_name();
    let mut stats = RepoStats {
        repo: name.clone(),
        source: spec.display(),
        ..Default::default()
    };
    let mut snap = match source::open(spec, &opts.source) {
        Ok(s) => s,
        Err(e) => return failed(stats, spec, e, t0),
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
    };

    let parsed: Vec<(FileResult, f64)> = snap
        .files
        .par_iter()
        .map_init(
            || (snap.reader(), Extractor::default()),
            |(reader, ex), file| {
                let t = Instant::now();
                let r = parse_file(reader, ex, file, opts.max_file_bytes);
                progress.file_done();
                (r, t.elapsed().as_secs_f64())
            },
        )
        .collect();

    let mut units = Vec::new();
    let mut blobs = Vec::new();
    let mut failures = Vec::new();
    let mut busy = 0.0;
    for (file, (result, secs)) in snap.files.iter().zip(parsed) {
        busy += secs;
        match result {
            Ok(p) => {
                let c = LangCounts {
                    files: 1,
                    bytes: p.bytes,
                    files_with_syntax_errors: usize::from(p.has_errors),
                    functions: p.functions.len(),
                    dropped_syntax_error: p.dropped_syntax_error,
                    functions_with_syntax_errors: p
                        .functions
                        .iter()
                        .filter(|f| f.syntax_error)
                        .count(),
                    with_docstring: p.functions.iter().filter(|f| f.docstring.is_some()).count(),
                    ..Default::default()
                };
                stats.totals.add(&c);
                stats.languages.entry(file.lang.name()).or_default().add(&c);
                blobs.push(file.blob());
                units.push(SourceUnit {
                    path: file.path.clone(),
                    lang: file.lang,
                    info: p.info,
                    functions: p.functions,
                });
            }
            Err((kind, reason)) => {
                *stats.files_failed.entry(kind).or_default() += 1;
                failures.push(Failure {
                    repo: name.clone(),
                    source: stats.source.clone(),
                    path: Some(file.path.clone()),
                    stage: "extract",
                    kind,
                    reason,
                });
            }
        }
    }
    // Workers' time, not wall time: the files were parsed in parallel.
    stats.extract_seconds = busy;

    let t = Instant::now();
    let (edges, counts) = resolve::resolve(&units);
    let mut graph = callgraph::build(&name, &units, &edges);
    drop(edges);
    stats.resolve = counts;
    stats.resolve_seconds = t.elapsed().as_secs_f64();

    if !spec.coverage.is_empty() {
        let t = Instant::now();
        let files: Vec<&str> = snap.files.iter().map(|f| f.path.as_str()).collect();
        let mut c = RepoCoverageStats::default();
        match attach_coverage(
            spec,
            &files,
            &opts.coverage_strip_prefixes,
            &units,
            &mut graph,
        ) {
            Ok((stats, functions)) => {
                c.mapping = stats;
                c.functions = functions;
            }
            Err(errors) => {
                c.failed_reports = errors.len();
                for e in errors {
                    failures.push(Failure {
                        repo: name.clone(),
                        source: stats.source.clone(),
                        path: Some(e.path().display().to_string()),
                        stage: "enrich",
                        kind: "coverage_error",
                        reason: e.to_string(),
                    });
                }
            }
        }
        c.seconds = t.elapsed().as_secs_f64();
        stats.coverage = Some(c);
    }

    // Filters before history: the cheap rules, so that only survivors are blamed.
    let filter = opts.filter.as_ref().filter(|f| f.is_active());
    let n = graph.nodes.len();
    let mut outcome: Vec<Result<(), &'static str>> = vec![Ok(()); n];
    let t = Instant::now();
    if let Some(filter) = filter {
        for_each_view(&name, &units, &graph.nodes, &mut outcome, |v| {
            filter.check_before_history(v)
        });
    }
    stats.filter_seconds = t.elapsed().as_secs_f64();

    if opts.history {
        let t = Instant::now();
        let mut h = HistoryStats::default();
        let wanted: Vec<bool> = outcome.iter().map(Result::is_ok).collect();
        match date_functions(&snap, &units, &blobs, &wanted) {
            Ok(Some((dates, walk))) => {
                h.functions = wanted.iter().filter(|k| **k).count();
                h.walk = walk;
                for (node, d) in graph.nodes.iter_mut().zip(dates) {
                    let Some(d) = d else { continue };
                    h.dated += 1;
                    h.bounded += usize::from(d.bounded);
                    node.last_commit = Some(d.time);
                    node.last_commit_sha = Some(d.commit.to_string());
                    node.last_commit_bounded = Some(d.bounded);
                }
            }
            Ok(None) => {}
            Err(e) => failures.push(Failure {
                repo: name.clone(),
                source: stats.source.clone(),
                path: None,
                stage: "enrich",
                kind: "history_error",
                reason: e.to_string(),
            }),
        }
        h.seconds = t.elapsed().as_secs_f64();
        stats.history = Some(h);
    }

    let t = Instant::now();
    if let Some(filter) = filter.filter(|f| f.needs_last_commit()) {
        for_each_view(&name, &units, &graph.nodes, &mut outcome, |v| {
            filter.check_history(v)
        });
    }
    let mut dropped = Vec::new();
    for (k, u, f) in each_function(&units) {
        stats.funnel.record(&name, u.lang.name(), outcome[k]);
        if let Err(rule) = outcome[k] {
            let node = &mut graph.nodes[k];
            node.dropped_by = Some(rule.to_string());
            if opts.explain {
                dropped.push(DroppedRow {
                    id: node.id,
                    repository: name.clone(),
                    path: u.path.clone(),
                    qualified_name: f.qualified_name.clone(),
                    language: u.lang.name().to_string(),
                    start_line: i64::from(f.start_line),
                    end_line: i64::from(f.end_line),
                    rule: rule.to_string(),
                    docstring: f.docstring.clone(),
                    code: f.code.clone(),
                });
            }
        }
    }
    stats.filter_seconds += t.elapsed().as_secs_f64();
    let keep: Vec<bool> = outcome.iter().map(Result::is_ok).collect();

    let graph = GraphRows {
        yabloco: (0..graph.nodes.len())
            .filter(|&k| keep[k])
            .map(|k| graph.yabloco_row(&units, k, &opts.instruction))
            .collect(),
        nodes: graph.nodes,
        edges: graph.edges,
    };

    let mut rows = Vec::new();
    let mut k = 0;
    for unit in units {
        let lang = unit.lang.name();
        for f in unit.functions {
            let kept = keep[k];
            k += 1;
            if !kept {
                continue;
            }
            if let Some(row) = csn::row(&ctx, &unit.path, unit.lang, f) {
                rows.push(row);
                stats.totals.csn_rows += 1;
                if let Some(c) = stats.languages.get_mut(lang) {
                    c.csn_rows += 1;
                }
            }
        }
    }
    RepoOutput {
        stats,
        rows,
        graph,
        dropped,
        failures,
        failed: None,
    }
}

/// Reads the repository's coverage reports and sets every node's coverage columns; on a
/// bad report, every error and no coverage at all (a partial sum would look exact).
fn attach_coverage(
    spec: &RepoSpec,
    files: &[&str],
    strip: &[String],
    units: &[SourceUnit],
    graph: &mut callgraph::Graph,
) -> Result<(CoverageStats, usize), Vec<CoverageError>> {
    let mut reports = Vec::new();
    let mut errors = Vec::new();
    for path in &spec.coverage {
        match coverage::read_report(path) {
            Ok(r) => reports.push(r),
            Err(e) => errors.push(e),
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let cov = RepoCoverage::build(&reports, files, strip);
    let mut functions = 0;
    for (k, u, f) in each_function(units) {
        if let Some(c) = cov.function(&u.path, f.start_line, f.end_line) {
            let node = &mut graph.nodes[k];
            node.test_cov_hits = Some(i64::try_from(c.hits).unwrap_or(i64::MAX));
            node.covered_lines = Some(i64::from(c.covered_lines));
            node.coverable_lines = Some(i64::from(c.coverable_lines));
            functions += 1;
        }
    }
    Ok((cov.stats, functions))
}

/// Every function of the units with its node index (units in order, then functions).
fn each_function(units: &[SourceUnit]) -> impl Iterator<Item = (usize, &SourceUnit, &Function)> {
    units
        .iter()
        .flat_map(|u| u.functions.iter().map(move |f| (u, f)))
        .enumerate()
        .map(|(k, (u, f))| (k, u, f))
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
                FunctionKind::Function => Kind::Function,
                FunctionKind::Method => Kind::Method,
                FunctionKind::Constructor => Kind::Constructor,
            },
            start_line: f.start_line,
            end_line: f.end_line,
            body_lines: body_lines(u.lang, f),
            docstring: f.docstring.as_deref(),
            docstring_tokens: f.docstring.as_deref().map_or(0, |d| {
                tokens::tokenize_docstring(tokens::docstring_summary(d)).len()
            }),
            syntax_error: f.syntax_error,
            calls_num: u64::try_from(node.calls_num).unwrap_or(0),
            test_cov_hits: node.test_cov_hits,
            last_commit: node.last_commit,
            last_commit_bounded: node.last_commit_bounded.unwrap_or(false),
        });
    }
}

/// YABLoCo's body length: the lines of the text between the first `{` and the last `}`,
/// trimmed (its `has_proper_code_len`); for Python, the lines after the signature.
fn body_lines(lang: Lang, f: &Function) -> u32 {
    let body = match lang {
        Lang::Python => f.code.get(f.signature.len()..).unwrap_or_default(),
        _ => match (f.code.find('{'), f.code.rfind('}')) {
            (Some(i), Some(j)) if i < j => &f.code[i + 1..j],
            _ => "",
        },
    };
    body.trim().split('\n').count() as u32
}

/// The last commit of every function that `wanted` marks, in node order; `None` for a
/// plain folder, which has no history.
fn date_functions(
    snap: &source::Snapshot,
    units: &[SourceUnit],
    blobs: &[Option<git2::Oid>],
    wanted: &[bool],
) -> Result<Option<(FileDates, BlameStats)>, BlameError> {
    let (Some(dir), Some(sha)) = (snap.git_dir(), snap.sha.as_deref()) else {
        return Ok(None);
    };
    let head = git2::Oid::from_str(sha).map_err(|e| BlameError::Git {
        commit: sha.to_string(),
        message: e.message().to_string(),
    })?;
    // Targets hold the wanted functions of each file; `slots` maps them back to nodes.
    let mut targets = Vec::new();
    let mut slots = Vec::new();
    let mut k = 0;
    for (u, blob) in units.iter().zip(blobs) {
        let Some(blob) = *blob else {
            k += u.functions.len();
            continue;
        };
        let mut t = BlameTarget {
            path: u.path.clone(),
            blob,
            functions: Vec::new(),
        };
        let mut s = Vec::new();
        for f in &u.functions {
            if wanted[k] {
                t.functions.push((f.start_line, f.end_line));
                s.push(k);
            }
            k += 1;
        }
        if !s.is_empty() {
            targets.push(t);
            slots.push(s);
        }
    }
    let (found, walk) = last_commits(dir, head, &targets, rayon::current_num_threads())?;
    let mut dates = vec![None; k];
    for (file, slot) in found.into_iter().zip(slots) {
        for (d, k) in file.into_iter().zip(slot) {
            dates[k] = d;
        }
    }
    Ok(Some((dates, walk)))
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

fn failed(mut stats: RepoStats, spec: &RepoSpec, e: RepoError, t0: Instant) -> RepoOutput {
    stats.status = "failed";
    stats.source_seconds = t0.elapsed().as_secs_f64();
    let failure = Failure {
        repo: stats.repo.clone(),
        source: spec.display(),
        path: None,
        stage: "source",
        kind: e.kind(),
        reason: e.to_string(),
    };
    RepoOutput {
        stats,
        rows: Vec::new(),
        graph: GraphRows::default(),
        dropped: Vec::new(),
        failures: vec![failure],
        failed: Some(e.kind()),
    }
}

/// A parsed file, or why it could not be: a failure kind and a reason.
type FileResult = Result<Parsed, (&'static str, String)>;

struct Parsed {
    bytes: u64,
    functions: Vec<Function>,
    info: FileInfo,
    dropped_syntax_error: usize,
    has_errors: bool,
}

/// Git's heuristic: a NUL byte in the first 8000 bytes means binary.
fn is_binary(bytes: &[u8]) -> bool {
    bytes[..bytes.len().min(8000)].contains(&0)
}

fn parse_file(
    reader: &Result<Reader, RepoError>,
    ex: &mut Extractor,
    file: &SourceFile,
    limit: u64,
) -> FileResult {
    let reader = reader.as_ref().map_err(|e| ("read_error", e.to_string()))?;
    let bytes = reader.read(file, limit).map_err(|e| match e {
        ReadError::TooLarge { .. } => ("too_large", e.to_string()),
        ReadError::Unreadable(_) => ("read_error", e.to_string()),
    })?;
    if is_binary(&bytes) {
        return Err((
            "binary",
            "binary content (a NUL byte in the first 8000 bytes)".into(),
        ));
    }
    let size = bytes.len() as u64;
    let text = String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        (
            "non_utf8",
            format!("not valid UTF-8 (first invalid byte at offset {at})"),
        )
    })?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let out = ex
        .extract(file.lang, text)
        .map_err(|e| ("parse_error", e.to_string()))?;
    Ok(Parsed {
        bytes: size,
        functions: out.functions,
        info: out.info,
        dropped_syntax_error: out.dropped_syntax_error,
        has_errors: out.has_errors,
    })
}

/// Stats with the filter stage's settings filled in.
fn filter_stats(filter: Option<&Filter>) -> Stats {
    let mut stats = Stats::default();
    if let Some(f) = filter.filter(|f| f.is_active()) {
        let s = &mut stats.stages.filter;
        s.active = true;
        s.settings = f.describe();
        s.rules = f.rule_names();
    }
    stats
}

/// The writer thread's state: one shard writer per split, the failure log, the stats.
struct Writer {
    out_dir: PathBuf,
    csn: Vec<(Split, ShardWriter<CsnTable>)>,
    yabloco: ShardWriter<YablocoTable>,
    nodes: ShardWriter<NodesTable>,
    edges: ShardWriter<EdgesTable>,
    dropped: Option<ShardWriter<DroppedTable>>,
    failures: FailureLog,
    stats: Stats,
    seen: HashSet<(String, Option<String>)>,
    busy: f64,
}

impl Writer {
    fn new(opts: &MineOptions) -> Result<Self, Error> {
        let dir = opts.out_dir.join("csn");
        let csn = Split::ALL
            .iter()
            .map(|&s| Ok((s, ShardWriter::new(&dir, s.as_str(), opts.shards)?)))
            .collect::<Result<Vec<_>, Error>>()?;
        let graph_dir = opts.out_dir.join("callgraph");
        Ok(Self {
            out_dir: opts.out_dir.clone(),
            csn,
            yabloco: ShardWriter::new(&opts.out_dir.join("yabloco"), "data", opts.shards)?,
            nodes: ShardWriter::new(&graph_dir, "nodes", opts.shards)?,
            edges: ShardWriter::new(&graph_dir, "edges", opts.shards)?,
            dropped: if opts.explain {
                Some(ShardWriter::new(
                    &opts.out_dir.join("dropped"),
                    "dropped",
                    opts.shards,
                )?)
            } else {
                None
            },
            failures: FailureLog::create(&opts.out_dir)?,
            stats: filter_stats(opts.filter.as_ref()),
            seen: HashSet::new(),
            busy: 0.0,
        })
    }

    fn add(&mut self, mut repo: RepoOutput) -> Result<(), Error> {
        let t = Instant::now();
        if repo.failed.is_none()
            && !self
                .seen
                .insert((repo.stats.repo.clone(), repo.stats.sha.clone()))
        {
            // The same repository at the same commit, listed twice: its rows once only.
            repo.stats.status = "duplicate";
            repo.rows.clear();
            repo.graph = GraphRows::default();
            repo.dropped.clear();
            repo.failures.clear();
        }
        for row in &repo.rows {
            if let Some((_, w)) = self.csn.iter_mut().find(|(s, _)| *s == row.partition) {
                w.push(row)?;
            }
        }
        for r in &repo.graph.yabloco {
            self.yabloco.push(r)?;
        }
        for r in &repo.graph.nodes {
            self.nodes.push(r)?;
        }
        for r in &repo.graph.edges {
            self.edges.push(r)?;
        }
        if let Some(w) = &mut self.dropped {
            for r in &repo.dropped {
                w.push(r)?;
            }
        }
        for f in &repo.failures {
            self.failures.write(f)?;
        }
        self.stats.merge(repo.stats, repo.failed);
        self.busy += t.elapsed().as_secs_f64();
        Ok(())
    }

    fn finish(mut self, threads: usize, start: Instant) -> Result<Summary, Error> {
        let t = Instant::now();
        let total: usize = self.csn.iter().map(|(_, w)| w.rows()).sum();
        let write = &mut self.stats.stages.write;
        for (split, w) in self.csn.drain(..) {
            let rows = w.rows();
            // With no rows at all, one empty train shard still carries the schema.
            let files = w.finish(total == 0 && split == Split::Train)?;
            write.csn_rows.insert(split.as_str(), rows);
            let names = files
                .iter()
                .filter_map(|p| p.file_name())
                .map(|n| n.to_string_lossy().into_owned());
            write.shards.entry("csn").or_default().extend(names);
        }
        let write = &mut self.stats.stages.write;
        write.yabloco_rows = self.yabloco.rows();
        write.callgraph_nodes = self.nodes.rows();
        write.callgraph_edges = self.edges.rows();
        // Each table always has at least one shard, so its schema is there to read.
        let names = |files: Vec<PathBuf>| -> Vec<String> {
            files
                .iter()
                .filter_map(|p| p.file_name())
                .map(|n| n.to_string_lossy().into_owned())
                .collect()
        };
        let y = names(self.yabloco.finish(true)?);
        write.shards.entry("yabloco").or_default().extend(y);
        let n = names(self.nodes.finish(true)?);
        let e = names(self.edges.finish(true)?);
        let cg = write.shards.entry("callgraph").or_default();
        cg.extend(n);
        cg.extend(e);
        if let Some(w) = self.dropped.take() {
            write.dropped_rows = w.rows();
            let d = names(w.finish(true)?);
            write.shards.entry("dropped").or_default().extend(d);
        }
        let failures = self.failures.finish()?;
        self.stats.codemine_version = env!("CARGO_PKG_VERSION");
        self.stats.threads = threads;
        self.stats.stages.write.busy_seconds = self.busy + t.elapsed().as_secs_f64();
        self.stats.wall_seconds = start.elapsed().as_secs_f64();
        self.stats.peak_rss_bytes = crate::stats::peak_rss_bytes();
        output::write_stats(&self.out_dir, &self.stats)?;
        output::write_card(&self.out_dir, &self.stats)?;
        Ok(Summary {
            stats: self.stats,
            failures,
        })
    }
}
