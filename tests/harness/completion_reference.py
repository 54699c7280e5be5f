"""Reference for codemine's CodeXGLUE token-level completion lines (completion/tests/it/completion.rs).

Reads {"lang": "python"|"java", "files": [source, ...], "literals": {...}} as JSON on stdin and
writes one line per file: the `<s> ... </s>` line, or null where CodeXGLUE's preprocessing
writes `<s> </s>` (Python: tokenize raises, or no token) or drops the file (Java: javalang
raises, or no token). The rules are those of CodeXGLUE's
Code-Code/CodeCompletion-token/dataset/{py150,javaCorpus}/preprocess.py, written out here;
the tokenizers are the real ones: CPython 3.11's `tokenize` and javalang 0.13.
"""
import io
import json
import re
import sys
import tokenize as tk

import javalang

SPECIAL = {" ": "U+0020", ",": "U+002C"}
QUOTES = ["'''", '"""', "'", '"']


def literal(token, lits, java):
    prefix = re.match(r"[a-z]*" if java else r"[a-zA-Z]*", token).group(0)
    rest = token[len(prefix):]
    body, open_q, close_q = rest, "", ""
    for q in QUOTES:
        if rest.startswith(q):
            open_q = q
            body = body[len(q):]
            if rest.endswith(q):
                close_q = q
                body = body[: -len(q)]
            break
    is_char = java and open_q == "'" and len(body) == 1
    for k, v in SPECIAL.items():
        body = body.replace(k, v)
    tag, listed = ("CHAR_LIT", body in lits.get("char", [])) if is_char else ("STR_LIT", body in lits["str"])
    return f"{prefix}{open_q}<{tag}:{body}>{close_q}" if listed else f"{prefix}{open_q}<{tag}>{close_q}"


def python_line(code, lits):
    try:
        out, prev_eol = [], False
        for tok in tk.tokenize(io.BytesIO(code.encode("utf8")).readline):
            val = " ".join(tok.string.split())
            if tok.type == tk.STRING:
                out.append(literal(val, lits, False))
                prev_eol = False
            elif tok.type == tk.NUMBER:
                out.append(f"<NUM_LIT:{val}>" if val in lits["num"] else "<NUM_LIT>")
                prev_eol = False
            elif tok.type in (tk.NEWLINE, tk.NL):
                if not prev_eol:
                    out.append("<EOL>")
                    prev_eol = True
            elif tok.type in (tk.COMMENT, tk.INDENT, tk.ENCODING, tk.ENDMARKER) or not val:
                continue
            else:
                out.append(val)
                prev_eol = False
        if out and out[0] == "<EOL>":
            out = out[1:]
        if out and out[-1] == "<EOL>":
            out = out[:-1]
    except Exception:
        return None
    return "<s> " + " ".join(out) + " </s>" if out else None


def java_line(code, lits):
    out = []
    try:
        for tok in javalang.tokenizer.tokenize(code):
            name = type(tok).__name__
            if name in ("String", "Character"):
                if "\n" in tok.value or "\r" in tok.value:
                    return None
                out.append(literal(tok.value, lits, True))
            elif "Integer" in name or "FloatingPoint" in name:
                out.append(f"<NUM_LIT:{tok.value}>" if tok.value in lits["num"] else "<NUM_LIT>")
            else:
                out.append(tok.value)
    except Exception:
        return None
    return "<s> " + " ".join(out) + " </s>" if out else None


def main():
    req = json.load(sys.stdin)
    fn = python_line if req["lang"] == "python" else java_line
    res = []
    for src in req["files"]:
        # open(path).read(): universal newlines.
        code = src.replace("\r\n", "\n").replace("\r", "\n")
        try:
            line = fn(code, req["literals"])
            # A lone surrogate from a \uD800 escape cannot be written as UTF-8: the script
            # would crash writing it; codemine leaves such files out.
            if line is not None:
                line.encode("utf8")
        except UnicodeEncodeError:
            line = None
        res.append(line)
    json.dump(res, sys.stdout)


if __name__ == "__main__":
    main()
