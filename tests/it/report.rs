//! The dataset report: `codemine mine` draws the card's figures, `codemine report OUT --html`
//! redraws them and writes report.html. The numbers behind the figures (plots.json) are
//! checked against stats.json and against pyarrow reading the tables
//! (`tests/harness/report_check.py`); the images are checked as SVG and PNG files; the page
//! is opened in headless Chromium, which must load every figure.

use std::path::Path;
use std::process::Command;

use harness::*;
use serde_json::Value;

const SHAPES_PY: &str = include_str!("../fixtures/shapes.py");
const SHAPES_JAVA: &str = include_str!("../fixtures/Shapes.java");

fn mined(tmp: &Path) -> std::path::PathBuf {
    let mut r = RepoBuilder::init(&tmp.join("demo"));
    r.set_time(1_500_000_000); // 2017-07-14
    r.write("pkg/shapes.py", SHAPES_PY);
    r.commit("shapes");
    r.set_time(1_700_000_000); // 2023-11-14
                               // A copy in another folder: one exact-duplicate cluster per function.
    r.write("pkg/copy/shapes.py", SHAPES_PY)
        .write("src/main/java/org/example/Shapes.java", SHAPES_JAVA);
    r.commit("more");
    mine_into(&r.path, tmp, &[])
}

fn figures(out: &Path) -> Vec<Value> {
    let json: Value =
        serde_json::from_slice(&std::fs::read(out.join("plots.json")).unwrap()).unwrap();
    json["figures"].as_array().unwrap().clone()
}

fn figure<'a>(figs: &'a [Value], name: &str) -> &'a Value {
    figs.iter()
        .find(|f| f["name"] == name)
        .unwrap_or_else(|| panic!("no figure {name}"))
}

/// A figure's series as {name: values}.
fn series(f: &Value) -> Value {
    let mut m = serde_json::Map::new();
    for s in f["series"].as_array().unwrap() {
        m.insert(s["name"].as_str().unwrap().into(), s["values"].clone());
    }
    Value::Object(m)
}

#[test]
fn the_figures_show_the_numbers_of_the_tables() {
    let tmp = tempfile::tempdir().unwrap();
    let out = mined(tmp.path());
    let figs = figures(&out);
    let check = python_json(
        include_str!("../harness/report_check.py"),
        &[out.to_str().unwrap()],
    );
    for name in [
        "languages",
        "categories",
        "code_length",
        "docstring_length",
        "dates",
        "clusters",
    ] {
        let f = figure(&figs, name);
        let mut want = check[name].clone();
        // The figure lists categories in its own order (rules, categories in pipeline
        // order); compare as label -> values.
        let got_labels: Vec<&str> = f["labels"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l.as_str().unwrap())
            .collect();
        let got = series(f);
        let want_labels: Vec<String> = want["labels"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l.as_str().unwrap().to_string())
            .collect();
        let mut sorted_got = got_labels.clone();
        sorted_got.sort();
        let mut sorted_want: Vec<&str> = want_labels.iter().map(String::as_str).collect();
        sorted_want.sort();
        assert_eq!(sorted_got, sorted_want, "{name}: labels");
        for (s, values) in want["series"].as_object_mut().unwrap() {
            for (i, label) in want_labels.iter().enumerate() {
                let j = got_labels.iter().position(|l| l == label).unwrap();
                assert_eq!(got[s][j], values[i], "{name}: {s} of {label}");
            }
        }
    }
    // Two commit years, as written by the fixture.
    assert_eq!(
        figure(&figs, "dates")["labels"].as_array().unwrap().first(),
        Some(&Value::from("2017"))
    );
    // The funnel starts with every extracted function and ends with the rows written.
    let stats = stats(&out);
    let funnel = figure(&figs, "funnel");
    let values = &funnel["series"][0]["values"];
    assert_eq!(values[0], stats["stages"]["filter"]["input"]);
    let rows: u64 = stats["stages"]["write"]["csn_rows"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_u64().unwrap())
        .sum();
    assert_eq!(
        values.as_array().unwrap().last().unwrap(),
        &Value::from(rows)
    );
    assert!(rows > 0);

    // Every figure is drawn twice, and the card shows each one.
    let card = std::fs::read_to_string(out.join("README.md")).unwrap();
    for f in &figs {
        let name = f["name"].as_str().unwrap();
        let svg = std::fs::read_to_string(out.join(format!("plot_{name}.svg"))).unwrap();
        assert!(
            svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"),
            "{name}"
        );
        assert!(svg.contains(f["title"].as_str().unwrap().split(' ').next().unwrap()));
        let png = std::fs::read(out.join(format!("plot_{name}.png"))).unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "{name}");
        // IHDR: width 900.
        assert_eq!(u32::from_be_bytes(png[16..20].try_into().unwrap()), 900);
        assert!(card.contains(&format!("(plot_{name}.svg)")), "{name}");
    }
}

#[test]
fn report_redraws_and_the_page_loads_in_chromium() {
    let tmp = tempfile::tempdir().unwrap();
    let out = mined(tmp.path());
    let before = figures(&out);
    for f in &before {
        std::fs::remove_file(out.join(format!("plot_{}.svg", f["name"].as_str().unwrap())))
            .unwrap();
    }
    let card_before = std::fs::read_to_string(out.join("README.md")).unwrap();
    let res = codemine(
        &["report", out.to_str().unwrap(), "--html"],
        &tmp.path().join("cache"),
    );
    assert_success(&res);
    assert_eq!(figures(&out), before);
    for f in &before {
        assert!(out
            .join(format!("plot_{}.svg", f["name"].as_str().unwrap()))
            .exists());
    }
    // The card's figures section is replaced, not repeated.
    let card = std::fs::read_to_string(out.join("README.md")).unwrap();
    assert_eq!(card, card_before);
    assert_eq!(card.matches("## Figures").count(), 1);

    let chromium = ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|c| Command::new(c).arg("--version").output().is_ok())
        .expect("Chromium is needed for this test: run scripts/setup.sh");
    let profile = tmp.path().join("chromium-profile");
    let page = format!("file://{}", out.join("report.html").display());
    let run = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--enable-logging=stderr",
            "--v=0",
            "--virtual-time-budget=5000",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("--dump-dom")
        .arg(&page)
        .output()
        .unwrap();
    let dom = String::from_utf8_lossy(&run.stdout);
    let log = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "chromium failed:\n{log}");
    let n = before.len();
    assert!(n >= 7, "{n} figures");
    assert!(
        dom.contains(&format!("data-figures=\"{n}\""))
            && dom.contains(&format!("data-figures-loaded=\"{n}\"")),
        "not every figure loaded: {}",
        dom.lines().find(|l| l.contains("<body")).unwrap_or("")
    );
    assert!(!log.contains("Uncaught"), "script error:\n{log}");
}

#[test]
fn report_names_a_folder_that_is_not_an_output() {
    let tmp = tempfile::tempdir().unwrap();
    let res = codemine(
        &["report", tmp.path().to_str().unwrap()],
        &tmp.path().join("cache"),
    );
    assert_eq!(res.status.code(), Some(1));
    let err = String::from_utf8_lossy(&res.stderr);
    assert!(err.contains("stats.json"), "{err}");
}
