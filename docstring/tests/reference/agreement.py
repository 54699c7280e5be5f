"""The agreement benchmark of codemine-docstring (BENCHMARKS.md, "Structured docstrings
(issue 36): agreement with docstring-parser and codetext").

Python: every documented function of the repository (Python's `ast`), its docstring given
to docstring-parser 0.18 as Python's `__doc__` holds it and to codemine-docstring as
codemine's extraction holds it (the literal without quotes and prefix, trimmed:
`clean_python_docstring` in miner/src/extract/tokens.rs). Other languages: the documented
functions codetext 0.0.9 finds, the comment cleaned as codemine cleans it
(`strip_comment_delimiters`: markers stripped, lines trimmed) and given to both
codemine-docstring and The Vault's docstring parser (nmd-2000/docstring_parser), with
The Vault's choice among the language's styles (`STYLE_MAP`, `extract_docstring` in
TheVault's src/utils/utils.py).

Usage:
  agreement.py --python PY --parse-jsonl BIN [--vault-python VPY --vault-fork DIR]
               [--save-corpus FILE] [--diffs N] REPO...
  REPO is LANGUAGE=NAME=GIT_DIR (LANGUAGE: python, or codetext's java, javascript, php,
  ruby, go, c, cpp, c_sharp, rust).
Prints a Markdown table per reference, and N differing examples per repository to stderr.
"""
import argparse
import ast
import json
import os
import re
import subprocess
import sys
from collections import Counter, defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
REF = os.path.join(HERE, "docstring_parser_ref.py")
EXTRACT = os.path.join(HERE, "extract_codetext.py")

# The Vault's STYLE_MAP (TheVault src/utils/utils.py) for the codetext languages.
VAULT_STYLES = {
    "java": ["javadoc"], "javascript": ["jsdoc"], "ruby": ["rdoc"], "php": ["phpdoc"],
    "c": ["javadoc"], "cpp": ["javadoc"], "c_sharp": ["xml", "javadoc"],
    "rust": ["rustdoc", "javadoc"], "go": [],
}
# codemine's language names.
OURS = {"c_sharp": "csharp"}
ATTRIBUTE_KEYS = {"attribute", "ivar", "cvar", "var", "receives"}


def git_files(git_dir, exts):
    names = subprocess.run(
        ["git", f"--git-dir={git_dir}", "ls-tree", "-r", "-z", "--name-only", "HEAD"],
        check=True, capture_output=True).stdout.decode("utf-8", "replace").split("\0")
    names = sorted(n for n in names if n.endswith(exts))
    cat = subprocess.Popen(["git", f"--git-dir={git_dir}", "cat-file", "--batch"],
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    for n in names:
        cat.stdin.write(f"HEAD:{n}\n".encode())
        cat.stdin.flush()
        header = cat.stdout.readline().split()
        if len(header) < 3 or header[1] != b"blob":
            continue
        data = cat.stdout.read(int(header[2]))
        cat.stdout.read(1)
        yield n, data.decode("utf-8", "replace")
    cat.stdin.close()
    cat.wait()


def clean_python_literal(literal):
    """codemine's `clean_python_docstring`."""
    s = literal.strip().lstrip("rRuU")
    return s.strip('"').strip("'").strip()


def strip_comment_delimiters(comment):
    """codemine's `strip_comment_delimiters` (miner/src/extract/tokens.rs)."""
    lines = []
    for line in comment.split("\n"):
        line = line.strip()
        if line.endswith("*/"):
            line = line[:-2]
        if line.startswith("*"):
            line = line[1:]
        else:
            for p in ("/**", "/*!", "/*", "///", "//!", "//"):
                if line.startswith(p):
                    line = line[len(p):]
                    break
        lines.append(line.strip())
    return "\n".join(lines).strip()


def clean_hash(comment):
    """codemine's Ruby cleaning: per line, `#` marks and whitespace."""
    return "\n".join(l.strip().strip("#").strip() for l in comment.split("\n")).strip()


def python_functions(git_dir):
    for path, src in git_files(git_dir, (".py",)):
        try:
            tree = ast.parse(src)
        except (SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or not node.body:
                continue
            first = node.body[0]
            if not (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
                    and isinstance(first.value.value, str)):
                continue
            literal = ast.get_source_segment(src, first.value) or ""
            a = node.args
            params = [x.arg for x in a.posonlyargs + a.args]
            if a.vararg:
                params.append("*" + a.vararg.arg)
            params += [x.arg for x in a.kwonlyargs]
            if a.kwarg:
                params.append("**" + a.kwarg.arg)
            yield {"path": path, "name": node.name, "params": params,
                   "ref_text": first.value.value, "text": clean_python_literal(literal)}


def codetext_functions(vault_python, git_dir, language):
    out = subprocess.run([vault_python, EXTRACT, git_dir, language], check=True,
                         capture_output=True, text=True).stdout
    for line in out.splitlines():
        f = json.loads(line)
        clean = clean_hash(f["raw"]) if language == "ruby" else strip_comment_delimiters(f["raw"])
        if not clean:
            continue
        f["text"] = f["ref_text"] = clean
        yield f


def run_jsonl(cmd, items, env=None):
    data = "".join(json.dumps(i) + "\n" for i in items)
    out = subprocess.run(cmd, input=data, capture_output=True, text=True, check=True, env=env)
    return [json.loads(l) for l in out.stdout.splitlines()]


def ws(s):
    return " ".join((s or "").split())


def norm_type(t):
    t = (t or "").strip()
    return t or None


def view(d, loose, reference):
    """params, returns and raises of a parse as comparable tuples. For docstring-parser,
    attributes and NumPy's Warns/Receives are left out, as codemine maps them to others."""
    text = ws if loose else (lambda s: s or "")
    params = [(p["name"], norm_type(p["type"]), text(p["description"]))
              for p in d["params"] if not (reference and p.get("key") in ATTRIBUTE_KEYS)]
    r = d["returns"]
    ret = None if r is None else (norm_type(r["type"]), text(r["description"]))
    raises = [(norm_type(e["type"]), text(e["description"]))
              for e in d["raises"] if not (reference and e.get("key") == "warns")]
    return params, ret, raises


def cause(language, row, o, r, ov, rv):
    """Which known deviation of The Vault's parser from the convention explains a
    difference (docs/docstrings.md lists them), else "unexplained"."""
    text = row["text"]
    rp = r["params"]
    if language == "javascript":
        ret = r["returns"]
        if ret and ret["type"] is None and (ret["description"] or "").startswith("{") \
                and o["returns"] and o["returns"]["type"]:
            return "`@returns {T}` (plural): the type left in the description"
        if any((p["name"] or "").startswith("[") for p in rp):
            return "`[optional]` name: the brackets kept"
        if any(p["name"] == "" for p in rp):
            return "`@param name` without a `{type}`: no name"
    if language == "ruby":
        if any(p.get("key") == "option" for p in rp):
            return "`@option` taken as a parameter"
        if any(p["name"] is None for p in rp):
            return "`@param name [Type]` without a description: no name"
        if any(e["type"] is None and (e["description"] or "").startswith("[") for e in r["raises"]):
            return "`@raise [E]`: the type left in the description"
    if language == "php":
        types = [p["type"] or "" for p in o["params"]] + [(o["returns"] or {}).get("type") or ""]
        if any(" " in t for t in types) or any(p["name"] is None for p in rp):
            return "a type with spaces (`array<int, string>`) cut at its first space"
    if language in ("c", "cpp"):
        if re.search(r"^([@\\]param\[|\\\w)", text, re.M):
            return "Doxygen's `\\cmd` and `@param[in]`: not read by its Javadoc parser"
    if language == "rust":
        if ov[2] and not rv[2]:
            return "`# Errors` and `# Panics`: not raises"
    if any("\n" in (p["name"] or "") for p in rp):
        return "a name followed by a line break taken with the next line"
    if language == "c_sharp":
        if [p[0] for p in ov[0]] == [p[0] for p in rv[0]] and (ov[1] is None) == (rv[1] is None):
            return "inline elements (`<see cref>`, `<paramref>`) dropped from the text"
    return "unexplained"


def compare(language, rows, ours, refs, loose, diffs, name, per_style, causes=None):
    n = errors = 0
    same = Counter()
    shown = 0
    for row, o, r in zip(rows, ours, refs):
        if "error" in r:
            errors += 1
            continue
        n += 1
        ov, rv = view(o, loose, False), view(r, loose, True)
        eq = [ov[0] == rv[0], ov[1] == rv[1], ov[2] == rv[2]]
        found = any(ov) or any(rv)
        s = per_style[o["style"]]
        s["n"] += 1
        s["all"] += all(eq)
        for k, e in zip(("params", "returns", "raises"), eq):
            same[k] += e
            s[k] += e
        same["all"] += all(eq)
        same["found"] += found
        same["found_same"] += found and all(eq)
        why = None
        if not all(eq) and causes is not None:
            why = cause(language, row, o, r, ov, rv)
            causes[why] += 1
        if not all(eq) and shown < diffs and why in (None, "unexplained"):
            shown += 1
            print(f"--- {name} {row['path']} {row['name']}\n{row['text'][:600]}\n"
                  f"  ours {o['style']}: {ov}\n  ref  {r.get('style')}: {rv}", file=sys.stderr)
    return n, errors, same


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--python", required=True)
    ap.add_argument("--parse-jsonl", required=True)
    ap.add_argument("--vault-python")
    ap.add_argument("--vault-fork")
    ap.add_argument("--save-corpus")
    ap.add_argument("--diffs", type=int, default=0)
    ap.add_argument("repos", nargs="+")
    args = ap.parse_args()
    corpus = open(args.save_corpus, "w") if args.save_corpus else None
    tables = defaultdict(list)
    causes = {}
    styles = defaultdict(lambda: defaultdict(Counter))
    for spec in args.repos:
        language, name, git_dir = spec.split("=", 2)
        if language == "python":
            rows = list(python_functions(git_dir))
            refs = run_jsonl([args.python, REF], [{"text": r["ref_text"]} for r in rows])
            reference, loose = "docstring-parser 0.18", False
        else:
            rows = list(codetext_functions(args.vault_python, git_dir, language))
            env = dict(os.environ, PYTHONPATH=args.vault_fork)
            refs = run_jsonl([args.vault_python, REF],
                             [{"text": r["ref_text"], "styles": VAULT_STYLES[language]}
                              for r in rows], env)
            reference, loose = "The Vault (codetext 0.0.9 + its docstring_parser)", True
        lang = OURS.get(language, language)
        ours = run_jsonl([args.parse_jsonl], [{"language": lang, "text": r["text"]} for r in rows])
        if corpus:
            for r in rows:
                corpus.write(json.dumps({"language": lang, "text": r["text"]}) + "\n")
        repo_causes = Counter()
        n, errors, same = compare(language, rows, ours, refs, loose, args.diffs, name,
                                  styles[reference],
                                  None if language == "python" else repo_causes)
        causes[name] = repo_causes
        # The parser alone: codemine-docstring given the reference's own text. For Python it
        # differs from codemine's text where the literal has escape sequences (`\\n` is
        # two characters in the source, one in `__doc__`).
        if language == "python":
            ours_same = run_jsonl([args.parse_jsonl],
                                  [{"language": lang, "text": r["ref_text"]} for r in rows])
            _, _, same_text = compare(language, rows, ours_same, refs, loose, 0, name,
                                      defaultdict(Counter))
            same["same_text"] = same_text["all"]
        else:
            same["same_text"] = same["all"]
        tables[reference].append((lang, name, len(rows), n, errors, same))
    for reference, rows in tables.items():
        print(f"\nAgainst {reference}:\n")
        print("| language | repository | docstrings | compared | params equal | returns equal "
              "| raises equal | all three | all three, where either found a part "
              "| all three, given the reference's text |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for lang, name, total, n, errors, s in rows:
            pct = lambda k: f"{s[k] / n:.3f}" if n else "-"
            found = (f"{s['found_same'] / s['found']:.3f} of {s['found']}" if s["found"] else "-")
            print(f"| {lang} | {name} | {total} | {n} | {pct('params')} | {pct('returns')} "
                  f"| {pct('raises')} | {pct('all')} | {found} | {pct('same_text')} |")
        if reference.startswith("The Vault"):
            print("\nEqual, or different by one of the listed deviations of The Vault's parser "
                  "from the convention, and the docstrings that parser rejects (no "
                  "`docstring_params` in The Vault):\n")
            print("| repository | equal or a listed deviation | rejected by The Vault's parser |")
            print("|---|---|---|")
            for lang, name, total, n, errors, s in rows:
                if n:
                    ok = (n - causes[name]["unexplained"]) / n
                    print(f"| {name} | {ok:.3f} of {n} | {errors} |")
                else:
                    print(f"| {name} | - | {errors} (every one: no style for {lang}) |")
            print("\nThe differences by cause:\n")
            print("| repository | cause | docstrings |")
            print("|---|---|---|")
            for lang, name, *_ in rows:
                for why, k in causes[name].most_common():
                    print(f"| {name} | {why} | {k} |")
        print("\nBy the style codemine recognised:\n")
        print("| style | docstrings | all three equal |")
        print("|---|---|---|")
        for style, c in sorted(styles[reference].items(), key=lambda x: -x[1]["n"]):
            print(f"| {style} | {c['n']} | {c['all'] / c['n']:.3f} |")


if __name__ == "__main__":
    main()
