"""Extracts the documented functions of a git repository with codetext (The Vault's own
parser, PyPI `codetext` 0.0.9, which needs `tree-sitter==0.20.4` and
`tree_sitter_languages==1.10.2`), for the agreement benchmark (agreement.py).

Usage: extract_codetext.py GIT_DIR LANGUAGE [MAX_FILES]
Prints one JSON line per function with a docstring: {"path", "name", "params", "raw"},
`raw` being the comment text codetext's `get_docstring` returns (comment markers included).
LANGUAGE is codetext's name: java, javascript, php, ruby, go, c, cpp, c_sharp, rust.
"""
import json
import logging
import subprocess
import sys

from codetext.parser import (CppParser, CsharpParser, GoParser, JavaParser,
                             JavascriptParser, PhpParser, RubyParser, RustParser)
from codetext.utils import parse_code

logging.disable(logging.CRITICAL)

PARSERS = {
    "java": (JavaParser, (".java",)),
    "javascript": (JavascriptParser, (".js",)),
    "php": (PhpParser, (".php",)),
    "ruby": (RubyParser, (".rb",)),
    "go": (GoParser, (".go",)),
    "c": (CppParser, (".c",)),
    "cpp": (CppParser, (".cpp", ".cc", ".hpp", ".h")),
    "c_sharp": (CsharpParser, (".cs",)),
    "rust": (RustParser, (".rs",)),
}


def files(git_dir, exts, limit):
    names = subprocess.run(
        ["git", f"--git-dir={git_dir}", "ls-tree", "-r", "-z", "--name-only", "HEAD"],
        check=True, capture_output=True).stdout.decode("utf-8", "replace").split("\0")
    names = sorted(n for n in names if n.endswith(exts))[:limit]
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


def main():
    git_dir, language = sys.argv[1], sys.argv[2]
    limit = int(sys.argv[3]) if len(sys.argv) > 3 else 100000
    parser, exts = PARSERS[language]
    tree_lang = "c" if language == "c" else language
    for path, code in files(git_dir, exts, limit):
        try:
            tree = parse_code(code, tree_lang)
            functions = parser.get_function_list(tree.root_node)
        except Exception:
            continue
        for f in functions:
            try:
                raw = parser.get_docstring(f, code)
                meta = parser.get_function_metadata(f, code)
            except Exception:
                continue
            if not raw or not raw.strip():
                continue
            params = meta.get("parameters") or {}
            print(json.dumps({"path": path, "name": meta.get("identifier", ""),
                              "params": list(params), "raw": raw}))


if __name__ == "__main__":
    main()
