//! Repository-level completion rows (issue 16) scored end to end through
//! `codemine_eval::evaluate`: a small Parquet table in the mining side's schema
//! (/work/notes/repo-completion-contract.md: `id`, `repo`, `sha`, `path`, `language`,
//! `partition`, `line`, `prefix`, `suffix`, `gt`, `kind`, `gold_context`,
//! `retrieved_context`) written with arrow-rs, predictions in JSON lines and Parquet, and
//! every expected value computed by hand from the metrics' definitions; the same table
//! written by pyarrow (`$CODEMINE_PYTHON`) scores the same.

use crate::support;

use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use arrow_array::builder::{
    Float64Builder, ListBuilder, StringBuilder, StructBuilder, UInt32Builder,
};
use arrow_array::{ArrayRef, RecordBatch, StringArray, UInt32Array};
use arrow_schema::{DataType, Field, Fields, Schema};
use codemine_eval::{evaluate, Error, EvalOptions, Evaluation};

/// (path, start_line, end_line)
type Loc = (&'static str, u32, u32);

struct Row {
    id: &'static str,
    language: &'static str,
    kind: &'static str,
    gt: &'static str,
    gold: Vec<Loc>,
    /// (retriever, rank, location), in the table's order (retriever, then rank).
    retrieved: Vec<(&'static str, u32, Loc)>,
}

fn rows() -> Vec<Row> {
    vec![
        Row {
            id: "0000000000000001-0000000000000040",
            language: "python",
            kind: "cross_file_first",
            gt: "return self.cache.get(key)",
            gold: vec![("util.py", 10, 20)],
            retrieved: vec![
                ("bm25", 1, ("util.py", 30, 40)),
                ("bm25", 2, ("util.py", 15, 25)),
                ("jaccard", 1, ("util.py", 1, 12)),
            ],
        },
        Row {
            id: "0000000000000002-0000000000000100",
            language: "java",
            kind: "in_file",
            gt: "int n = items.size();",
            gold: vec![],
            retrieved: vec![("bm25", 1, ("A.java", 1, 10))],
        },
        Row {
            id: "0000000000000003-0000000000000007",
            language: "go",
            kind: "cross_file_random",
            gt: "x := pkg.Load(path)",
            gold: vec![("pkg/load.go", 5, 9), ("pkg/types.go", 1, 3)],
            retrieved: vec![
                ("bm25", 1, ("other.go", 1, 2)),
                ("bm25", 2, ("pkg/load.go", 9, 20)),
                ("jaccard", 1, ("pkg/types.go", 3, 8)),
                ("jaccard", 2, ("pkg/load.go", 1, 5)),
            ],
        },
    ]
}

fn utf8(values: Vec<&str>) -> ArrayRef {
    Arc::new(StringArray::from(values))
}

fn gold_fields() -> Fields {
    Fields::from(vec![
        Field::new("path", DataType::Utf8, false),
        Field::new("name", DataType::Utf8, false),
        Field::new("start_line", DataType::UInt32, false),
        Field::new("end_line", DataType::UInt32, false),
        Field::new("code", DataType::Utf8, false),
    ])
}

fn retrieved_fields() -> Fields {
    Fields::from(vec![
        Field::new("retriever", DataType::Utf8, false),
        Field::new("rank", DataType::UInt32, false),
        Field::new("path", DataType::Utf8, false),
        Field::new("start_line", DataType::UInt32, false),
        Field::new("end_line", DataType::UInt32, false),
        Field::new("code", DataType::Utf8, false),
        Field::new("score", DataType::Float64, false),
    ])
}

fn gold_column(rows: &[Row]) -> ArrayRef {
    let mut b = ListBuilder::new(StructBuilder::from_fields(gold_fields(), 0))
        .with_field(Field::new("item", DataType::Struct(gold_fields()), true));
    for r in rows {
        let s = b.values();
        for (path, a, z) in &r.gold {
            s.field_builder::<StringBuilder>(0)
                .unwrap()
                .append_value(path);
            s.field_builder::<StringBuilder>(1)
                .unwrap()
                .append_value("f");
            s.field_builder::<UInt32Builder>(2)
                .unwrap()
                .append_value(*a);
            s.field_builder::<UInt32Builder>(3)
                .unwrap()
                .append_value(*z);
            s.field_builder::<StringBuilder>(4)
                .unwrap()
                .append_value("def f(): ...");
            s.append(true);
        }
        b.append(true);
    }
    Arc::new(b.finish())
}

fn retrieved_column(items: &[Vec<(&str, u32, Loc)>]) -> ArrayRef {
    let mut b = ListBuilder::new(StructBuilder::from_fields(retrieved_fields(), 0)).with_field(
        Field::new("item", DataType::Struct(retrieved_fields()), true),
    );
    for row in items {
        let s = b.values();
        for (retriever, rank, (path, a, z)) in row {
            s.field_builder::<StringBuilder>(0)
                .unwrap()
                .append_value(retriever);
            s.field_builder::<UInt32Builder>(1)
                .unwrap()
                .append_value(*rank);
            s.field_builder::<StringBuilder>(2)
                .unwrap()
                .append_value(path);
            s.field_builder::<UInt32Builder>(3)
                .unwrap()
                .append_value(*a);
            s.field_builder::<UInt32Builder>(4)
                .unwrap()
                .append_value(*z);
            s.field_builder::<StringBuilder>(5)
                .unwrap()
                .append_value("chunk");
            s.field_builder::<Float64Builder>(6)
                .unwrap()
                .append_value(1.0 / f64::from(*rank));
            s.append(true);
        }
        b.append(true);
    }
    Arc::new(b.finish())
}

fn write(path: &Path, batch: &RecordBatch) {
    let f = std::fs::File::create(path).unwrap();
    let mut w = parquet::arrow::ArrowWriter::try_new(f, batch.schema(), None).unwrap();
    w.write(batch).unwrap();
    w.close().unwrap();
}

/// The table in the contract's schema.
fn write_table(path: &Path) {
    let rows = rows();
    let n = rows.len();
    let col = |f: fn(&Row) -> &str| utf8(rows.iter().map(f).collect());
    let gold = gold_column(&rows);
    let retrieved = retrieved_column(&rows.iter().map(|r| r.retrieved.clone()).collect::<Vec<_>>());
    let schema = Schema::new(vec![
        Field::new("id", DataType::Utf8, false),
        Field::new("repo", DataType::Utf8, false),
        Field::new("sha", DataType::Utf8, false),
        Field::new("path", DataType::Utf8, false),
        Field::new("language", DataType::Utf8, false),
        Field::new("partition", DataType::Utf8, false),
        Field::new("line", DataType::UInt32, false),
        Field::new("prefix", DataType::Utf8, false),
        Field::new("suffix", DataType::Utf8, false),
        Field::new("gt", DataType::Utf8, false),
        Field::new("kind", DataType::Utf8, false),
        Field::new("gold_context", gold.data_type().clone(), false),
        Field::new("retrieved_context", retrieved.data_type().clone(), false),
    ]);
    let batch = RecordBatch::try_new(
        Arc::new(schema),
        vec![
            col(|r| r.id),
            utf8(vec!["o/r"; n]),
            utf8(vec!["0123456789abcdef0123456789abcdef01234567"; n]),
            utf8(vec!["src/main.x"; n]),
            col(|r| r.language),
            utf8(vec!["test"; n]),
            Arc::new(UInt32Array::from(vec![3; n])),
            utf8(vec!["import util\n\n    "; n]),
            utf8(vec!["\n"; n]),
            col(|r| r.gt),
            col(|r| r.kind),
            gold,
            retrieved,
        ],
    )
    .unwrap();
    write(path, &batch);
}

/// Predictions: (id, prediction, retrieved locations in rank order).
fn predictions() -> Vec<(&'static str, &'static str, Vec<Loc>)> {
    let ids: Vec<&str> = rows().iter().map(|r| r.id).collect();
    vec![
        (
            ids[0],
            "return self.cache.get(key, None)",
            vec![("util.py", 20, 22)],
        ),
        (ids[1], "int n = items.size();", vec![]),
        (
            ids[2],
            "x := pkg.Load(p)",
            vec![("pkg/types.go", 2, 2), ("pkg/load.go", 100, 120)],
        ),
    ]
}

fn write_predictions_jsonl(path: &Path) {
    let mut out = String::new();
    for (id, text, locs) in predictions() {
        let retrieved: Vec<serde_json::Value> = locs
            .iter()
            .map(|(p, a, z)| serde_json::json!({"path": p, "start_line": a, "end_line": z, "score": 0.5}))
            .collect();
        out.push_str(
            &serde_json::json!({"id": id, "prediction": text, "retrieved": retrieved}).to_string(),
        );
        out.push('\n');
    }
    std::fs::write(path, out).unwrap();
}

fn write_predictions_parquet(path: &Path) {
    let p = predictions();
    let retrieved = retrieved_column(
        &p.iter()
            .map(|(_, _, locs)| {
                locs.iter()
                    .enumerate()
                    .map(|(i, l)| ("mine", i as u32 + 1, *l))
                    .collect::<Vec<_>>()
            })
            .collect::<Vec<_>>(),
    );
    let schema = Schema::new(vec![
        Field::new("id", DataType::Utf8, false),
        Field::new("prediction", DataType::Utf8, false),
        Field::new("retrieved", retrieved.data_type().clone(), false),
    ]);
    let batch = RecordBatch::try_new(
        Arc::new(schema),
        vec![
            utf8(p.iter().map(|x| x.0).collect()),
            utf8(p.iter().map(|x| x.1).collect()),
            retrieved,
        ],
    )
    .unwrap();
    write(path, &batch);
}

fn score(ev: &Evaluation, name: &str) -> f64 {
    let all: Vec<usize> = (0..ev.ids.len()).collect();
    ev.metrics
        .iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("no metric {name}"))
        .1
        .aggregate(&all)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

fn setup() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let completion = dir.path().join("completion");
    std::fs::create_dir(&completion).unwrap();
    write_table(&completion.join("repo-test-00000-of-00001.parquet"));
    (dir, completion)
}

#[test]
fn default_metrics_and_breakdowns_on_a_repo_completion_table() {
    let (dir, completion) = setup();
    let preds = dir.path().join("preds.jsonl");
    write_predictions_jsonl(&preds);
    let ev = evaluate(&EvalOptions {
        data: vec![completion],
        predictions: Some(preds),
        by: vec!["kind".into(), "language".into()],
        ..EvalOptions::default()
    })
    .unwrap();
    let names: Vec<&str> = ev.metrics.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        ["exact_match", "edit_sim", "identifier_em", "identifier_f1"]
    );
    assert_eq!(
        (ev.id_column.as_str(), ev.reference_column.as_str()),
        ("id", "gt")
    );
    assert_eq!(ev.ids.len(), 3);
    // Only the Java line is token-for-token equal.
    assert!(close(score(&ev, "exact_match"), 100.0 / 3.0));
    // Indel ratios: the gt is a subsequence of the prediction in rows 1 and 3:
    // 2·26/(32+26), 100, 2·16/(16+19).
    let es = (5200.0 / 58.0 + 100.0 + 3200.0 / 35.0) / 3.0;
    assert!(
        close(score(&ev, "edit_sim"), es),
        "{}",
        score(&ev, "edit_sim")
    );
    // Python: `None` is a keyword, so the identifiers are equal; Java: `int` is a keyword;
    // Go: {x, pkg, Load, p} against {x, pkg, Load, path}: tp 3, fp 1, fn 1, F1 0.75.
    assert!(close(score(&ev, "identifier_em"), 200.0 / 3.0));
    assert!(close(
        score(&ev, "identifier_f1"),
        (100.0 + 100.0 + 75.0) / 3.0
    ));

    let (col, groups) = &ev.groups[0];
    assert_eq!(col, "kind");
    let kinds: Vec<(&str, usize)> = groups.iter().map(|(v, r)| (v.as_str(), r.len())).collect();
    assert_eq!(
        kinds,
        [
            ("cross_file_first", 1),
            ("cross_file_random", 1),
            ("in_file", 1)
        ]
    );
    let f1 = &ev.metrics[3].1;
    let by: Vec<f64> = groups.iter().map(|(_, r)| f1.aggregate(r)).collect();
    assert!(close(by[0], 100.0) && close(by[1], 75.0) && close(by[2], 100.0));
    let (col, groups) = &ev.groups[1];
    assert_eq!(col, "language");
    let langs: Vec<&str> = groups.iter().map(|(v, _)| v.as_str()).collect();
    assert_eq!(langs, ["go", "java", "python"]);
}

#[test]
fn context_recall_from_predictions_and_from_the_tables_retrievers() {
    let (dir, completion) = setup();
    let names = [
        "identifier_f1",
        "context_recall@1",
        "context_recall@2",
        "context_recall@1:bm25",
        "context_recall@2:bm25",
        "context_recall@1:jaccard",
        "context_recall@5:jaccard",
    ];
    // Gold: row 1 util.py 10-20; row 2 none (left out of the means); row 3 pkg/load.go 5-9
    // and pkg/types.go 1-3.
    // Predictions' lists: row 1 [util.py 20-22] (touches line 20: found); row 3
    // [pkg/types.go 2-2, pkg/load.go 100-120]: types found at rank 1, load never.
    // bm25: row 1 [util.py 30-40, util.py 15-25], row 3 [other.go, pkg/load.go 9-20].
    // jaccard: row 1 [util.py 1-12], row 3 [pkg/types.go 3-8, pkg/load.go 1-5].
    let expected = [
        (100.0 + 100.0 + 75.0) / 3.0,
        (1.0 + 0.5) / 2.0 * 100.0,
        (1.0 + 0.5) / 2.0 * 100.0,
        0.0,
        (1.0 + 0.5) / 2.0 * 100.0,
        (1.0 + 0.5) / 2.0 * 100.0,
        100.0,
    ];
    for preds in ["preds.jsonl", "preds.parquet"] {
        let p = dir.path().join(preds);
        if preds.ends_with(".jsonl") {
            write_predictions_jsonl(&p);
        } else {
            write_predictions_parquet(&p);
        }
        let ev = evaluate(&EvalOptions {
            data: vec![completion.clone()],
            predictions: Some(p),
            metrics: names.iter().map(|s| s.to_string()).collect(),
            by: vec!["kind".into()],
            ..EvalOptions::default()
        })
        .unwrap();
        let got: Vec<&str> = ev.metrics.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(got, names, "{preds}: the asked order");
        for (n, want) in names.iter().zip(expected) {
            assert!(close(score(&ev, n), want), "{preds} {n}: {}", score(&ev, n));
        }
        // The example without a gold context has no recall value, and the in_file group
        // (only that example) has no mean.
        let per = ev.metrics[1].1.per_example.as_ref().unwrap();
        assert!(close(per[0], 1.0) && per[1].is_nan() && close(per[2], 0.5));
        let (_, groups) = &ev.groups[0];
        let in_file = &groups.iter().find(|(v, _)| v == "in_file").unwrap().1;
        assert!(ev.metrics[1].1.aggregate(in_file).is_nan());
        assert!(ev
            .notes
            .iter()
            .any(|n| n.contains("2 of 3 scored examples have a gold context")));
    }
}

#[test]
fn the_tables_own_retrievers_need_no_predictions() {
    let (_dir, completion) = setup();
    let ev = evaluate(&EvalOptions {
        data: vec![completion.clone()],
        metrics: vec![
            "context_recall@2:bm25".into(),
            "context_recall@5:jaccard".into(),
        ],
        ..EvalOptions::default()
    })
    .unwrap();
    assert_eq!(ev.ids.len(), 3);
    assert!(close(score(&ev, "context_recall@2:bm25"), 75.0));
    assert!(close(score(&ev, "context_recall@5:jaccard"), 100.0));
    // A retriever the table does not have: every example with a gold context scores 0,
    // and a note says why.
    let ev = evaluate(&EvalOptions {
        data: vec![completion.clone()],
        metrics: vec!["context_recall@5:dense".into()],
        ..EvalOptions::default()
    })
    .unwrap();
    assert!(close(score(&ev, "context_recall@5:dense"), 0.0));
    assert!(ev
        .notes
        .iter()
        .any(|n| n.contains("no scored example has a `dense` item")));
    // The predictions' lists need a predictions file.
    let err = evaluate(&EvalOptions {
        data: vec![completion],
        metrics: vec!["context_recall@5".into()],
        ..EvalOptions::default()
    })
    .err()
    .unwrap();
    assert!(matches!(err, Error::Usage(_)), "{err}");
    assert!(err.to_string().contains("context_recall@K:bm25"), "{err}");
}

#[test]
fn bad_inputs_are_named() {
    let (dir, completion) = setup();
    // A prediction line without its retrieved list.
    let p = dir.path().join("preds.jsonl");
    let ids: Vec<&str> = rows().iter().map(|r| r.id).collect();
    std::fs::write(
        &p,
        format!(
            "{{\"id\": \"{}\", \"prediction\": \"a\", \"retrieved\": []}}\n{{\"id\": \"{}\", \"prediction\": \"b\"}}\n",
            ids[0], ids[1]
        ),
    )
    .unwrap();
    let err = evaluate(&EvalOptions {
        data: vec![completion.clone()],
        predictions: Some(p.clone()),
        metrics: vec!["context_recall@5".into()],
        intersection: true,
        ..EvalOptions::default()
    })
    .err()
    .unwrap();
    let msg = err.to_string();
    assert!(
        msg.contains("preds.jsonl:2:") && msg.contains("no `retrieved` field"),
        "{msg}"
    );
    // A bad item.
    std::fs::write(
        &p,
        format!(
            "{{\"id\": \"{}\", \"retrieved\": [{{\"path\": \"a.py\", \"start_line\": \"x\", \"end_line\": 3}}]}}\n",
            ids[0]
        ),
    )
    .unwrap();
    let err = evaluate(&EvalOptions {
        data: vec![completion.clone()],
        predictions: Some(p),
        metrics: vec!["context_recall@5".into()],
        intersection: true,
        ..EvalOptions::default()
    })
    .err()
    .unwrap();
    assert!(
        err.to_string().contains("item 1: no integer `start_line`"),
        "{err}"
    );
    // Bad metric names.
    for bad in ["context_recall@0", "context_recall@x:bm25"] {
        let err = evaluate(&EvalOptions {
            data: vec![completion.clone()],
            metrics: vec![bad.into()],
            ..EvalOptions::default()
        })
        .err()
        .unwrap();
        assert!(matches!(err, Error::Usage(_)), "{bad}: {err}");
    }
    // An unknown language for the identifier metrics.
    let err = evaluate(&EvalOptions {
        data: vec![completion.clone()],
        prediction_column: Some("gt".into()),
        language: Some("cobol".into()),
        metrics: vec!["identifier_em".into()],
        ..EvalOptions::default()
    })
    .err()
    .unwrap();
    assert!(err.to_string().contains("3 `cobol`"), "{err}");
    // A folder with both line- and repo- shards needs a hint.
    std::fs::copy(
        completion.join("repo-test-00000-of-00001.parquet"),
        completion.join("line-test-00000-of-00001.parquet"),
    )
    .unwrap();
    let err = evaluate(&EvalOptions {
        data: vec![completion.clone()],
        prediction_column: Some("gt".into()),
        ..EvalOptions::default()
    })
    .err()
    .unwrap();
    assert!(matches!(err, Error::Usage(_)), "{err}");
    let ev = evaluate(&EvalOptions {
        data: vec![completion],
        prediction_column: Some("gt".into()),
        metrics: vec!["identifier_em".into(), "exact_match".into()],
        ..EvalOptions::default()
    })
    .unwrap();
    assert_eq!(ev.files.len(), 1);
    assert!(ev.files[0].ends_with("repo-test-00000-of-00001.parquet"));
    assert!(close(score(&ev, "identifier_em"), 100.0) && close(score(&ev, "exact_match"), 100.0));
}

/// The same rows written by pyarrow (`$CODEMINE_PYTHON`) in the contract's types: what
/// another tool's table looks like (its list items are named `element`, fields nullable).
fn write_table_with_pyarrow(path: &Path) {
    let rows: Vec<serde_json::Value> = rows()
        .iter()
        .map(|r| {
            serde_json::json!({
                "id": r.id, "repo": "o/r", "sha": "0123", "path": "src/main.x",
                "language": r.language, "partition": "test", "line": 3,
                "prefix": "import util\n\n    ", "suffix": "\n", "gt": r.gt, "kind": r.kind,
                "gold_context": r.gold.iter().map(|(p, a, z)| serde_json::json!(
                    {"path": p, "name": "f", "start_line": a, "end_line": z, "code": "def f(): ..."}
                )).collect::<Vec<_>>(),
                "retrieved_context": r.retrieved.iter().map(|(ret, rank, (p, a, z))| serde_json::json!(
                    {"retriever": ret, "rank": rank, "path": p, "start_line": a, "end_line": z,
                     "code": "chunk", "score": 1.0 / f64::from(*rank)}
                )).collect::<Vec<_>>(),
            })
        })
        .collect();
    let script = r#"
import json, sys
import pyarrow as pa, pyarrow.parquet as pq
s = pa.string(); u = pa.uint32()
gold = pa.list_(pa.struct([("path", s), ("name", s), ("start_line", u), ("end_line", u), ("code", s)]))
ret = pa.list_(pa.struct([("retriever", s), ("rank", u), ("path", s), ("start_line", u),
                          ("end_line", u), ("code", s), ("score", pa.float64())]))
schema = pa.schema([("id", s), ("repo", s), ("sha", s), ("path", s), ("language", s),
                    ("partition", s), ("line", u), ("prefix", s), ("suffix", s), ("gt", s),
                    ("kind", s), ("gold_context", gold), ("retrieved_context", ret)])
rows = json.load(sys.stdin)
pq.write_table(pa.Table.from_pylist(rows, schema=schema), sys.argv[1], use_compliant_nested_type=True)
"#;
    let mut child = Command::new(support::python())
        .arg("-c")
        .arg(script)
        .arg(path)
        .stdin(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    serde_json::to_writer(child.stdin.take().unwrap(), &rows).unwrap();
    let status = child.wait().unwrap();
    assert!(
        status.success(),
        "pyarrow could not write the table (is $CODEMINE_PYTHON set?)"
    );
}

#[test]
fn a_pyarrow_written_table_scores_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("repo-test-00000-of-00001.parquet");
    write_table_with_pyarrow(&table);
    let preds = dir.path().join("preds.jsonl");
    write_predictions_jsonl(&preds);
    let ev = evaluate(&EvalOptions {
        data: vec![table],
        predictions: Some(preds),
        metrics: vec![
            "identifier_em".into(),
            "identifier_f1".into(),
            "context_recall@1".into(),
            "context_recall@2:bm25".into(),
            "context_recall@5:jaccard".into(),
        ],
        by: vec!["kind".into()],
        ..EvalOptions::default()
    })
    .unwrap();
    assert!(close(score(&ev, "identifier_em"), 200.0 / 3.0));
    assert!(close(
        score(&ev, "identifier_f1"),
        (100.0 + 100.0 + 75.0) / 3.0
    ));
    assert!(close(score(&ev, "context_recall@1"), 75.0));
    assert!(close(score(&ev, "context_recall@2:bm25"), 75.0));
    assert!(close(score(&ev, "context_recall@5:jaccard"), 100.0));
    assert_eq!(ev.groups[0].1.len(), 3);
}

#[test]
fn an_output_folder_with_repository_level_metrics_reads_its_repo_shards() {
    let (dir, _completion) = setup();
    // An output folder also has CSN shards: without a repository-level metric they are the
    // dataset (summarization); with one, completion/repo-*.
    std::fs::create_dir(dir.path().join("csn")).unwrap();
    let ev = evaluate(&EvalOptions {
        data: vec![dir.path().to_path_buf()],
        metrics: vec!["context_recall@2:bm25".into()],
        split: Some("test".into()),
        ..EvalOptions::default()
    })
    .unwrap();
    assert_eq!(ev.files.len(), 1);
    assert!(ev.files[0].ends_with("completion/repo-test-00000-of-00001.parquet"));
    assert!(close(score(&ev, "context_recall@2:bm25"), 75.0));
    // Another split has no repo shards: the folder is read as before (and has no CSN test
    // shards).
    let err = evaluate(&EvalOptions {
        data: vec![dir.path().to_path_buf()],
        metrics: vec!["context_recall@2:bm25".into()],
        split: Some("valid".into()),
        ..EvalOptions::default()
    })
    .err()
    .unwrap();
    assert!(matches!(err, Error::Usage(_)), "{err}");
}

/// Issue 33, item 10: `context_recall@K` reads only the first K items of each prediction's
/// `retrieved` list; the rest is read past, not kept (a list of 1,000 items keeps K).
#[test]
fn retrieved_lists_keep_only_k_items() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("preds.jsonl");
    let mut text = String::new();
    for id in ["a", "b"] {
        let items: Vec<serde_json::Value> = (0..1000)
            .map(|i| serde_json::json!({"path": format!("f{i}.py"), "start_line": i, "end_line": i + 1}))
            .collect();
        text += &serde_json::json!({"id": id, "retrieved": items}).to_string();
        text.push('\n');
    }
    std::fs::write(&p, text).unwrap();
    let (preds, spans) = codemine_eval::dataset::read_retrieved(&p, "id", "retrieved", 3).unwrap();
    assert_eq!(preds.ids, ["a", "b"]);
    assert_eq!(spans.iter().map(Vec::len).collect::<Vec<_>>(), [3, 3]);
    assert_eq!(spans[1][2].path, "f2.py");
}
