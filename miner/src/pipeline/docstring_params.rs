//! The structured-docstrings step (`mine --docstring-params`, issue 36): every kept
//! function's cleaned docstring ([`Function::docstring`]: comment markers gone, lines
//! trimmed, Python's literal without its quotes) parsed by `codemine_docstring` in its
//! language's convention, for the `docstring_params` column of the CSN rows and the
//! call-graph nodes (docs/docstrings.md).
//!
//! The step runs after the filters, so only the functions they keep are parsed (their
//! `param_docs` rule parses on its own); the nodes of the others, and of functions without
//! a docstring, hold null. Its stats: per repository the functions parsed
//! ([`RepoDocstringParams`]); for the run, the CSN rows written with the column and their
//! conventions, counted from the final rows as finalize writes them ([`count_rows`]), and
//! the card line (`crate::stats::card`).
//!
//! [`Function::docstring`]: crate::extract::Function

use std::time::Instant;

use arrow_array::cast::AsArray;
use arrow_array::{Array, RecordBatch};
use codemine_docstring::{parse, DocstringParams, Language};
use codemine_schemas::docstring_params::{append_column, DocstringParamsBuilder, DOCSTRING_PARAMS};

use super::repo::each_function;
use super::steps::{Enriching, RepoStep};
use super::MineOptions;
use crate::source::RepoSpec;
use crate::stats::steps::{DocstringParamsStage, RepoDocstringParams};

/// Parses the docstrings of the functions the filters kept.
pub(super) struct ParseDocstrings;

impl RepoStep for ParseDocstrings {
    fn wanted(&self, opts: &MineOptions, _spec: &RepoSpec) -> bool {
        opts.docstring_params
    }

    fn run(&self, s: &mut Enriching) {
        let t = Instant::now();
        let mut functions = 0;
        for (k, u, f) in each_function(s.units) {
            let (Some(doc), Some(slot)) = (&f.docstring, s.docstring_params.get_mut(k)) else {
                continue;
            };
            if s.outcome[k].is_err() {
                continue;
            }
            *slot = Some(parse(doc, Language::from_name(u.lang.name())));
            functions += 1;
        }
        s.stats.docstring_params = Some(RepoDocstringParams {
            functions,
            seconds: t.elapsed().as_secs_f64(),
        });
    }
}

/// Node batches (the functions' nodes first, in node order, then the extra nodes) with
/// the column appended: `parts[k]` for the function of node `k`, null beyond.
pub(super) fn node_batches(
    batches: &[RecordBatch],
    parts: &[Option<DocstringParams>],
) -> Result<Vec<RecordBatch>, arrow_schema::ArrowError> {
    let mut at = 0;
    let mut b = DocstringParamsBuilder::default();
    batches
        .iter()
        .map(|batch| {
            for k in at..at + batch.num_rows() {
                b.append(parts.get(k).and_then(Option::as_ref));
            }
            at += batch.num_rows();
            append_column(batch, b.finish()?)
        })
        .collect()
}

/// Counts a final CSN batch's `docstring_params` in the run's stage.
pub(super) fn count_rows(batch: &RecordBatch, stage: &mut DocstringParamsStage) {
    let Some(col) = batch
        .column_by_name(DOCSTRING_PARAMS)
        .and_then(|c| c.as_struct_opt())
    else {
        return;
    };
    let (Some(params), Some(returns), Some(style)) = (
        col.column_by_name("params")
            .and_then(|c| c.as_list_opt::<i32>()),
        col.column_by_name("returns"),
        col.column_by_name("style")
            .and_then(|c| c.as_string_opt::<i32>()),
    ) else {
        return;
    };
    for k in (0..col.len()).filter(|&k| col.is_valid(k)) {
        stage.rows += 1;
        *stage.styles.entry(style.value(k).to_string()).or_default() += 1;
        stage.with_params += u64::from(params.value_length(k) > 0);
        stage.with_returns += u64::from(returns.is_valid(k));
    }
}
