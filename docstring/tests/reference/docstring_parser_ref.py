"""Runs a docstring parser over JSON lines read from stdin and prints one JSON line per
input: the parts docstring-parser finds, with the `args[0]` key of each item so that the
caller can apply codemine's documented mapping (attributes and NumPy's Warns/Receives are
not parameters or raises there).

Input lines: {"text": "...", "style": "rest"|"google"|"numpy"|"epytext"|null}; null or
missing style runs docstring-parser's autodetection (DocstringStyle.AUTO).

With PYTHONPATH pointing at The Vault's fork (nmd-2000/docstring_parser), the same script
runs the fork: then "style" may also name its other styles ("javadoc", "jsdoc", "phpdoc",
"rdoc", "xml", "rustdoc", "doxygen"), and "styles" (a list) runs The Vault's own choice
among several (`extract_docstring` in TheVault's src/utils/utils.py: every style of the
language that does not raise ParseError, the one with the most items).
"""
import json
import sys

import docstring_parser
from docstring_parser import DocstringStyle, ParseError, parse

NAMES = {
    "rest": "REST", "google": "GOOGLE", "numpy": "NUMPYDOC", "epytext": "EPYDOC",
    "javadoc": "JAVADOC", "jsdoc": "JSDOC", "phpdoc": "PHPDOC", "rdoc": "RDOC",
    "xml": "XML", "rustdoc": "RUSTDOC", "doxygen": "DOXYGEN",
}


def style_of(name):
    return getattr(DocstringStyle, NAMES[name])


def vault_choice(text, styles):
    rets = []
    for s in styles:
        try:
            ret = parse(text, style_of(s))
        except ParseError:
            continue
        ret.style = style_of(s)
        rets.append(ret)
    if not rets:
        return None
    return sorted(rets, key=lambda d: len(d.meta), reverse=True)[0]


def shape(d):
    if d is None:
        return {"error": "no style parsed"}
    many = d.many_returns
    r = many[0] if many else None
    return {
        "style": d.style.name.lower() if d.style is not None else None,
        "meta": len(d.meta),
        "params": [
            {"key": p.args[0] if p.args else None, "name": p.arg_name,
             "type": p.type_name, "description": p.description}
            for p in d.params
        ],
        "returns": None if r is None else {
            "key": r.args[0] if r.args else None,
            "type": r.type_name, "description": r.description,
        },
        "raises": [
            {"key": e.args[0] if e.args else None, "type": e.type_name,
             "description": e.description}
            for e in d.raises
        ],
    }


def main():
    out = sys.stdout
    for line in sys.stdin:
        item = json.loads(line)
        text = item["text"]
        try:
            if item.get("styles"):
                res = shape(vault_choice(text, item["styles"]))
            elif item.get("style"):
                d = parse(text, style_of(item["style"]))
                d.style = style_of(item["style"])
                res = shape(d)
            else:
                res = shape(parse(text))
        except Exception as e:  # docstring-parser's own failures (ParseError, IndexError...)
            res = {"error": f"{type(e).__name__}: {e}"}
        out.write(json.dumps(res) + "\n")
    out.flush()


if __name__ == "__main__":
    main()
