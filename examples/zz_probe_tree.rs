// temporary probe, not committed
use miner::extract::{Extractor, Lang};
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = &args[0];
    let src = std::fs::read_to_string(path).unwrap();
    let lang = Lang::from_path(path).unwrap();
    let mut x = Extractor::default();
    let tree = x.parse_path(lang, path, &src).unwrap();
    let root = tree.root_node();
    println!(
        "root {} err={} [{}..{}]",
        root.kind(),
        root.has_error(),
        root.start_position().row + 1,
        root.end_position().row + 1
    );
    let mut c = root.walk();
    if c.goto_first_child() {
        loop {
            let n = c.node();
            println!(
                "  {} err={} lines {}..{} bytes {}..{}",
                n.kind(),
                n.has_error(),
                n.start_position().row + 1,
                n.end_position().row + 1,
                n.start_byte(),
                n.end_byte()
            );
            if args.len() > 1 && n.is_error() {
                let mut d = n.walk();
                if d.goto_first_child() {
                    loop {
                        let m = d.node();
                        println!(
                            "      {} lines {}..{}",
                            m.kind(),
                            m.start_position().row + 1,
                            m.end_position().row + 1
                        );
                        if !d.goto_next_sibling() {
                            break;
                        }
                    }
                }
            }
            if !c.goto_next_sibling() {
                break;
            }
        }
    }
    if std::env::var("DUMP").is_ok() {
        let mut c = root.walk();
        let mut d = 0;
        loop {
            let n = c.node();
            println!(
                "{}{} {}..{} err={} miss={}",
                " ".repeat(d),
                n.kind(),
                n.start_position().row + 1,
                n.end_position().row + 1,
                n.has_error(),
                n.is_missing()
            );
            if c.goto_first_child() {
                d += 1;
                continue;
            }
            loop {
                if c.goto_next_sibling() {
                    break;
                }
                if !c.goto_parent() {
                    d = usize::MAX;
                    break;
                }
                d -= 1;
            }
            if d == usize::MAX {
                break;
            }
        }
    }
    let out = x.extract_path(lang, path, &src).unwrap();
    for f in &out.functions {
        println!(
            "F {} {}..{} err={} doc={:?} calls={:?}",
            f.qualified_name,
            f.start_line,
            f.end_line,
            f.syntax_error,
            f.docstring,
            f.calls.iter().map(|c| c.text.clone()).collect::<Vec<_>>()
        );
    }
    println!(
        "imports {:?} classes {:?}",
        out.info
            .imports
            .iter()
            .map(|i| i.module.clone())
            .collect::<Vec<_>>(),
        out.info
            .classes
            .iter()
            .map(|c| c.name.clone())
            .collect::<Vec<_>>()
    );
    println!(
        "dropped {} has_errors {}",
        out.dropped_syntax_error, out.has_errors
    );
}
