//! Opt-in: SIDE with real pretrained MPNet weights against the reference recipe run in
//! Python with torch (`side_reference.py`). Set `CODEMINE_SIDE_MODEL` to a checkpoint folder
//! (the SIDE checkpoint, or a sentence-transformers MPNet such as all-mpnet-base-v2) and
//! `CODEMINE_SIDE_PYTHON` to a Python with side/tests/requirements-torch.txt, then run
//! `cargo test --release -p codemine-side --test it real_model:: -- --ignored`
//! (`scripts/side-reference.sh` does all of it).

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use codemine_side::Side;

/// Real code of this repository (Rust, Python, Java) with summaries good and bad, a pair
/// past 512 tokens, an empty summary and a literal `<pad>`.
fn pairs() -> Vec<(String, String)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let read = |p: &str| std::fs::read_to_string(root.join(p)).unwrap();
    let java = read("examples/sample/java/src/main/java/org/sample/Ledger.java");
    let python = read("tests/harness/completion_reference.py");
    let rust = read("side/src/mpnet.rs");
    let pop = "public Object pop() throws EmptyStackException {\n  try {\n    Object aObject = this.stackElements.get(stackElements.size() - 1);\n    stackElements.remove(stackElements.size() - 1);\n    return aObject;\n  }\n  catch (Exception e) {\n    throw new EmptyStackException(e);\n  }\n}";
    let mut out = vec![
        (pop.to_string(), "pop the top of the stack".to_string()),
        (pop.to_string(), "Parses an XML document.".to_string()),
        (pop.to_string(), String::new()),
        (format!("{pop} // <pad> <s>"), "<pad> pops".to_string()),
    ];
    for (code, summary) in [
        (&java, "A ledger of accounts."),
        (&python, "Reference lines for CodeXGLUE completion."),
        (&rust, "MPNet's encoder."),
    ] {
        // The whole file (past 512 tokens) and its first 40 lines.
        out.push((code.clone(), summary.to_string()));
        let head: String = code.lines().take(40).collect::<Vec<_>>().join("\n");
        out.push((head, summary.to_string()));
    }
    out
}

#[test]
#[ignore = "needs CODEMINE_SIDE_MODEL (a real MPNet checkpoint) and CODEMINE_SIDE_PYTHON (torch)"]
fn real_weights_agree_with_transformers() {
    let model =
        PathBuf::from(std::env::var_os("CODEMINE_SIDE_MODEL").expect("CODEMINE_SIDE_MODEL"));
    let python = std::env::var_os("CODEMINE_SIDE_PYTHON").expect("CODEMINE_SIDE_PYTHON");
    let pairs = pairs();
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/side_reference.py");
    let mut child = Command::new(python)
        .arg(script)
        .arg(&model)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(serde_json::to_string(&pairs).unwrap().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let want: Vec<f64> = serde_json::from_slice(&out.stdout).unwrap();

    let side = Side::load(&model).unwrap();
    let refs: Vec<(&str, &str)> = pairs
        .iter()
        .map(|(c, s)| (c.as_str(), s.as_str()))
        .collect();
    let got = side.score(&refs, 8).unwrap();
    for ((g, w), (_, s)) in got.iter().zip(&want).zip(&pairs) {
        eprintln!("{g:.6} {w:.6} {s:?}");
        assert!((*g as f64 - w).abs() <= 1e-5, "{s:?}: {g} vs {w}");
    }
}
