"""Compares codemine's JavaScript CSN rows with CodeSearchNet's function_parser rules.

function_parser (github/CodeSearchNet, `function_parser/parsers/javascript_parser.py`) is
re-implemented here from its rules, run with today's grammar wheel (tree-sitter-javascript
0.25): its grammar called a function expression `function`, today's `function_expression`
(and `generator_function`); that is the only adaptation. `--declarations` also takes
function declarations, which the 2019 grammar named `function_declaration` too, so that
function_parser never took them (it is the variant a port to today's grammar might choose).

For every function_parser row with a docstring, codemine's row at the same file and lines
is looked up (`url`'s line range) and `docstring_tokens` and `code_tokens` compared, and
`func_name`: function_parser's identifier is the function's own name, empty for an
anonymous function expression (`var f = function () {}`), where codemine names the
binding (`f`); the report gives the match rate with and without func_name for those.

Usage: python3 examples/csn_compare_js.py CHECKOUT OUT [--declarations]
  (pyarrow, tree-sitter and tree-sitter-javascript from PyPI)
"""
import argparse
import glob
import json
import os
import re

import pyarrow.parquet as pq
import tree_sitter_javascript
from tree_sitter import Language, Parser

TOKEN = re.compile(
    r"[^\s,'\"`.():\[\]=*;>{\}+-/\\]+|\\+|\.+|\(\)|{\}|\[\]|\(+|\)+|:+|\[+|\]+|{+|\}+|=+|\*+|;+|>+|\++|-+|/+"
)
FILTER_PATHS = ("test", "node_modules")
BLACKLIST = {"toString", "toLocaleString", "valueOf"}


def strip_c_style(comment):
    out = []
    for line in comment.split("\n"):
        line = line.strip()
        if line.endswith("*/"):
            line = line[:-2]
        if line.startswith("*"):
            line = line[1:]
        elif line.startswith("/**"):
            line = line[3:]
        elif line.startswith("//"):
            line = line[2:]
        out.append(line.strip())
    return "\n".join(out)


def summary(doc):
    if "\n\n" in doc:
        return doc.split("\n\n")[0]
    if "@" in doc:
        return doc[: doc.find("@")]
    return doc


def text(node, blob):
    return blob[node.start_byte : node.end_byte].decode("utf-8", "replace")


def tokens(node, blob):
    out = []
    stack = [node]
    while stack:
        n = stack.pop()
        if n.type == "string" or not n.children:
            out.append(text(n, blob))
            continue
        stack.extend(reversed(n.children))
    return out


def docstring(node, blob):
    parent = node.parent
    if parent.type == "variable_declarator":
        base = parent.parent
    elif parent.type == "pair":
        base = parent
    else:
        base = node
    prev = base.prev_sibling
    if prev is None or prev.type != "comment":
        return ""
    comments = [prev]
    prev = prev.prev_sibling
    while prev is not None and prev.type == "comment":
        comments.append(prev)
        last_start = prev.start_point[0]
        prev = prev.prev_sibling
        if prev is None or prev.end_point[0] + 1 < last_start:
            break
    return " ".join(strip_c_style(text(c, blob)) for c in reversed(comments))


def function_parser_rows(root, kinds):
    parser = Parser(Language(tree_sitter_javascript.language()))
    rows = []
    for path in sorted(glob.glob(os.path.join(root, "**", "*.js"), recursive=True)):
        rel = os.path.relpath(path, root)
        if any(p in rel.lower() for p in FILTER_PATHS):
            continue
        blob = open(path, "rb").read()
        tree = parser.parse(blob)
        stack = [tree.root_node]
        while stack:
            n = stack.pop()
            stack.extend(n.children)
            if n.type not in kinds or not n.children:
                continue
            ident = [c for c in n.children if c.type == "identifier"]
            name = text(ident[0], blob) if ident else ""
            if name in BLACKLIST:
                continue
            doc = docstring(n, blob)
            if not doc:
                continue
            rows.append(
                {
                    "path": rel,
                    "lines": (n.start_point[0] + 1, n.end_point[0] + 1),
                    "func_name": name,
                    "docstring_tokens": [t for t in TOKEN.findall(summary(doc)) if t],
                    "code_tokens": tokens(n, blob),
                }
            )
    return rows


def codemine_rows(out):
    rows = {}
    for f in glob.glob(os.path.join(out, "csn", "*.parquet")):
        for r in pq.read_table(f).to_pylist():
            if r["language"] != "javascript":
                continue
            a, b = r["url"].rsplit("#L", 1)[1].split("-L")
            rows[(r["path"], (int(a), int(b)))] = r
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("checkout")
    ap.add_argument("out")
    ap.add_argument("--declarations", action="store_true")
    args = ap.parse_args()
    kinds = {"function_expression", "generator_function"}
    if args.declarations:
        kinds |= {"function_declaration", "generator_function_declaration"}
    ref = function_parser_rows(args.checkout, kinds)
    ours = codemine_rows(args.out)
    found = strict = lenient = tokens_only = 0
    misses = []
    for r in ref:
        c = ours.get((r["path"], r["lines"]))
        if c is None:
            misses.append(("missing", r["path"], r["lines"], r["func_name"]))
            continue
        found += 1
        same = (
            list(c["docstring_tokens"]) == r["docstring_tokens"]
            and list(c["code_tokens"]) == r["code_tokens"]
        )
        tokens_only += same
        if same and (r["func_name"] == "" or c["func_name"] == r["func_name"]):
            lenient += 1
        if same and c["func_name"] == r["func_name"]:
            strict += 1
        if not same:
            misses.append(("differs", r["path"], r["lines"], r["func_name"]))
        elif r["func_name"] and c["func_name"] != r["func_name"]:
            misses.append(("func_name", r["path"], r["lines"], r["func_name"], c["func_name"]))
    n = len(ref)
    pct = lambda k: round(100.0 * k / n, 1) if n else 0.0
    print(
        json.dumps(
            {
                "function_parser_docstring_rows": n,
                "same_function_found": found,
                "matched_lines_and_tokens": tokens_only,
                "matched_tokens_and_name_where_named": lenient,
                "matched_pct": pct(lenient),
                "matched_strict_func_name": strict,
                "matched_strict_pct": pct(strict),
                "first_misses": misses[:15],
            },
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
