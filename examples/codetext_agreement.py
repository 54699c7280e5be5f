#!/usr/bin/env python3
"""Rust and C# function rows against The Vault's extractor (issue 36): codetext's
RustParser or CsharpParser (PyPI codetext 0.0.9, the The Vault authors' own code) on every
.rs or .cs file of the mined commit, against codemine's call-graph nodes (every function)
and CSN rows (their code). codetext takes no C# constructors or properties: codemine's are
counted as only codemine's.

Functions are matched by path and first line, and their names compared (codetext's C#
metadata gives an empty name when the method name is followed by type parameters or the
parameter list is not its next sibling: counted as `codetext-name`). Compared, for the functions both
take: the last line, the docstring (codetext's comment text cleaned as codemine cleans
it: markers stripped, lines trimmed) and, for the documented ones, the code. Differences
that are codemine's rules on purpose (docs/languages.md, "Rust" and "C#") are counted apart:
  plain-comment   codetext takes any `//` comment run before a function, codemine only
                  rustdoc's outer doc comments (`///`, `/** */`);
  attributes      (Rust) codetext stops at an attribute (`#[inline]`) between the comment
                  and the function and finds no docstring; codemine looks past attributes;
  blank-line      codetext's run of `///` lines stops at a blank line; rustdoc, and
                  codemine, join the whole run.

usage: python examples/codetext_agreement.py OUT GITDIR --vault-python PY [--language csharp]
(OUT mined with no filter; PY a Python with codetext==0.0.9, tree-sitter==0.20.4 and
tree_sitter_languages==1.10.2)
"""
import argparse, json, subprocess, sys
import pyarrow.parquet as pq, pyarrow.dataset as ds

VAULT = r'''
import json, subprocess, sys
from tree_sitter_languages import get_parser
from codetext.parser import RustParser, CsharpParser
git, sha, lang = sys.argv[1], sys.argv[2], sys.argv[3]
Parser, ext = {"rust": (RustParser, ".rs"), "csharp": (CsharpParser, ".cs")}[lang]
parser = get_parser({"rust": "rust", "csharp": "c_sharp"}[lang])
paths = subprocess.run(["git", "--git-dir", git, "ls-tree", "-r", "--name-only", sha],
                       capture_output=True, text=True, check=True).stdout.split("\n")
for path in paths:
    if not path.endswith(ext):
        continue
    blob = subprocess.run(["git", "--git-dir", git, "show", f"{sha}:{path}"],
                          capture_output=True, check=True).stdout
    tree = parser.parse(blob)
    for node in Parser.get_function_list(tree.root_node):
        meta = Parser.get_function_metadata(node)
        comments = Parser.get_docstring_node(node)
        print(json.dumps({
            "path": path, "name": meta["identifier"],
            "start": node.start_point[0] + 1, "end": node.end_point[0] + 1,
            "docstring": Parser.get_docstring(node),
            "comment_rows": [[c.start_point[0], c.end_point[0]] for c in comments],
            "prev": node.prev_sibling.type if node.prev_sibling else None,
            "code": blob[node.start_byte:node.end_byte].decode("utf-8", "replace"),
        }))
'''


def clean(comment):
    """codemine's strip_comment_delimiters (syntax/src/extract/tokens.rs)."""
    lines = []
    for line in comment.split("\n"):
        l = line.strip()
        if l.endswith("*/"):
            l = l[:-2]
        if l.startswith("*"):
            l = l[1:]
        else:
            for p in ("/**", "/*!", "/*", "///", "//!", "//"):
                if l.startswith(p):
                    l = l[len(p):]
                    break
        lines.append(l.strip())
    return "\n".join(lines).strip()


def is_doc(comment):
    return all((c.startswith("///") and not c.startswith("////")) or
               (c.startswith("/**") and not c.startswith("/***"))
               for c in comment.split("\n") if c.strip())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("git")
    ap.add_argument("--vault-python", required=True)
    ap.add_argument("--language", default="rust", choices=["rust", "csharp"])
    a = ap.parse_args()
    sha = pq.read_table(f"{a.out}/repositories").to_pylist()[0]["sha"]
    vault = [json.loads(l) for l in subprocess.run(
        [a.vault_python, "-c", VAULT, a.git, sha, a.language], capture_output=True, text=True,
        check=True).stdout.splitlines()]
    nodes = ds.dataset(f"{a.out}/callgraph/nodes", format="parquet").to_table(
        columns=["id", "path", "name", "start_line", "end_line", "docstring", "language"]).to_pylist()
    nodes = [n for n in nodes if n["language"] == a.language]
    rows = ds.dataset(f"{a.out}/csn", format="parquet").to_table(
        columns=["path", "func_name", "code", "url"]).to_pylist()
    code_of = {}
    for r in rows:
        line = int(r["url"].rsplit("#L", 1)[1].split("-")[0])
        code_of[(r["path"], line)] = r["code"]
    ours = {(n["path"], n["start_line"]): n for n in nodes}
    theirs = {(v["path"], v["start"]): v for v in vault}
    both = sorted(set(ours) & set(theirs))
    counts = {"name": 0, "lines": 0, "docstring": 0, "code": 0, "code_compared": 0, "all": 0,
              "all_or_listed": 0}
    deviations = {"plain-comment": 0, "attributes": 0, "blank-line": 0, "codetext-name": 0}
    examples = []
    for k in both:
        o, t = ours[k], theirs[k]
        name = o["name"] == t["name"]
        counts["name"] += name
        if not name and t["name"] == "":
            deviations["codetext-name"] += 1
        name_ok = name or t["name"] == ""
        lines = o["end_line"] == t["end"]
        ours_doc = o["docstring"] or ""
        their_doc = clean(t["docstring"]) if t["docstring"] else ""
        doc = ours_doc == their_doc
        code = True
        if k in code_of:
            counts["code_compared"] += 1
            code = code_of[k] == t["code"]
            counts["code"] += code
        counts["lines"] += lines
        counts["docstring"] += doc
        counts["all"] += name and lines and doc and code
        listed = None
        if not doc:
            if t["docstring"] and not is_doc(t["docstring"]) and not ours_doc:
                listed = "plain-comment"
            elif not t["docstring"] and t["prev"] == "attribute_item" and ours_doc:
                listed = "attributes"
            elif t["docstring"] and ours_doc.endswith(their_doc) and len(ours_doc) > len(their_doc):
                listed = "blank-line"
            if listed:
                deviations[listed] += 1
        ok = name_ok and lines and code and (doc or listed)
        counts["all_or_listed"] += bool(ok)
        if not ok and len(examples) < 8:
            examples.append({"key": k, "ours": [o["end_line"], ours_doc[:80]],
                             "theirs": [t["end"], their_doc[:80], t["prev"]]})
    n = len(both)
    print(json.dumps({
        "codetext_functions": len(theirs), "codemine_functions": len(ours), "both": n,
        "only_codetext": len(set(theirs) - set(ours)), "only_codemine": len(set(ours) - set(theirs)),
        **{f"{k}_equal": round(v / n, 4) if n else None for k, v in counts.items()
           if k not in ("code_compared", "code")},
        "code_equal": round(counts["code"] / counts["code_compared"], 4) if counts["code_compared"] else None,
        "code_compared": counts["code_compared"],
        "deviations": deviations, "examples": examples,
        # Declarations without a body (`partial void F();`, `extern`): codemine takes none.
        "only_codetext_bodiless": sum(1 for k in set(theirs) - set(ours)
                                      if "{" not in theirs[k]["code"] and "=>" not in theirs[k]["code"]),
        "only_codetext_examples": sorted(k for k in set(theirs) - set(ours)
                                         if "{" in theirs[k]["code"] or "=>" in theirs[k]["code"])[:5],
        "only_codemine_examples": sorted(set(ours) - set(theirs))[:5],
    }, indent=1))


if __name__ == "__main__":
    main()
