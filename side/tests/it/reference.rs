//! SIDE against the reference recipe run in Python (transformers `AutoTokenizer` +
//! `AutoModel`, mean pooling, `F.normalize`, cosine) on a tiny random MPNet: the values in
//! `data/reference.json` and the checkpoints in `data/tiny-*` were made together by
//! `make_tiny_model.py` (torch is too large for CI; `scripts/side-reference.sh` reruns it).

use std::path::{Path, PathBuf};

use codemine_side::{Side, SideError};
use serde_json::Value;

fn data() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}

fn reference() -> Value {
    serde_json::from_slice(&std::fs::read(data().join("reference.json")).unwrap()).unwrap()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-5
}

fn check_model(dir: &Path) {
    let side = Side::load(dir).unwrap();
    let r = reference();
    let pairs = r["pairs"].as_array().unwrap();
    for p in pairs {
        let code = p["code"].as_str().unwrap();
        let summary = p["summary"].as_str().unwrap();
        let got = side.score(&[(code, summary)], 2).unwrap()[0];
        let want = p["side"].as_f64().unwrap();
        assert!(
            close(got as f64, want),
            "{}: {got} vs {want} for {summary:?}",
            dir.display()
        );
        let emb = &side.embed(&[code], 1).unwrap()[0];
        let want_emb: Vec<f64> = p["code_embedding"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect();
        assert_eq!(emb.len(), want_emb.len());
        for (a, b) in emb.iter().zip(&want_emb) {
            assert!(close(*a as f64, *b), "embedding of {code:?}: {a} vs {b}");
        }
    }
    // Every pair at once, grouped and padded by length, and one by one: the same scores.
    let all: Vec<(&str, &str)> = pairs
        .iter()
        .map(|p| (p["code"].as_str().unwrap(), p["summary"].as_str().unwrap()))
        .collect();
    for batch in [1, 3, 32] {
        let got = side.score(&all, batch).unwrap();
        for (g, w) in got.iter().zip(r["batched"].as_array().unwrap()) {
            assert!(
                close(*g as f64, w.as_f64().unwrap()),
                "batch {batch}: {g} vs {w}"
            );
        }
    }
}

#[test]
fn scores_equal_the_reference_from_safetensors() {
    check_model(&data().join("tiny-st"));
}

#[test]
fn scores_equal_the_reference_from_pytorch_bin() {
    check_model(&data().join("tiny-bin"));
}

#[test]
fn token_ids_equal_the_reference_tokenizer() {
    let side = Side::load(&data().join("tiny-st")).unwrap();
    let r = reference();
    let strings = r["strings"].as_array().unwrap();
    let ids = r["ids"].as_array().unwrap();
    assert!(strings.len() > 300);
    for (s, want) in strings.iter().zip(ids) {
        let want: Vec<u32> = want
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap() as u32)
            .collect();
        assert_eq!(side.token_ids(s.as_str().unwrap()).unwrap(), want, "{s}");
    }
    // The longest string is cut at model_max_length, `</s>` included.
    assert_eq!(side.max_len(), 512);
    assert!(ids.iter().any(|v| v.as_array().unwrap().len() == 512));
}

#[test]
fn bad_folders_are_named_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    match Side::load(dir) {
        Err(SideError::Missing(p)) => assert!(p.ends_with("config.json")),
        other => panic!("{:?}", other.err()),
    }
    for f in ["config.json", "tokenizer.json", "tokenizer_config.json"] {
        std::fs::copy(data().join("tiny-st").join(f), dir.join(f)).unwrap();
    }
    match Side::load(dir) {
        Err(SideError::Missing(p)) => assert!(p.ends_with("model.safetensors")),
        other => panic!("{:?}", other.err()),
    }
    std::fs::write(dir.join("model.safetensors"), b"not weights").unwrap();
    let e = Side::load(dir).err().unwrap();
    assert!(matches!(e, SideError::Weights { .. }), "{e}");
    assert!(e.to_string().contains("model.safetensors"), "{e}");

    let cfg = std::fs::read_to_string(dir.join("config.json")).unwrap();
    std::fs::write(
        dir.join("config.json"),
        cfg.replace("\"mpnet\"", "\"bert\""),
    )
    .unwrap();
    let e = Side::load(dir).err().unwrap();
    assert!(matches!(e, SideError::NotMpnet { .. }), "{e}");
    assert!(e.to_string().contains("bert"), "{e}");

    std::fs::write(dir.join("config.json"), "{").unwrap();
    let e = Side::load(dir).err().unwrap();
    assert!(
        e.to_string().contains("config.json") && e.to_string().contains("not JSON"),
        "{e}"
    );
}
