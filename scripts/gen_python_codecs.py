"""Writes completion/src/data/python_codecs.tsv: every codec name CPython 3.11's
`codecs.lookup` accepts (after `encodings.normalize_encoding`), the codec it names, and
whether it reads ASCII text unchanged. CodeXGLUE's Python preprocessing decodes each file with the codec its PEP 263
coding cookie names; codemine emulates that for ASCII files through this table.

Usage: python3 scripts/gen_python_codecs.py   (CPython 3.11)
"""
import codecs
import encodings
import encodings.aliases
import pkgutil
import string
import sys
from pathlib import Path

assert sys.version_info[:2] == (3, 11), sys.version
names = set(encodings.aliases.aliases) | {m.name for m in pkgutil.iter_modules(encodings.__path__)}
sample = (string.printable + "\\u00").encode("ascii")
rows = []
for name in sorted(names):
    try:
        info = codecs.lookup(name)
    except LookupError:
        continue
    try:
        transparent = info._is_text_encoding and sample.decode(name) == sample.decode("ascii")
    except Exception:
        transparent = False
    rows.append(f"{name}\t{info.name}\t{int(transparent)}")
out = Path(__file__).resolve().parent.parent / "completion/src/data/python_codecs.tsv"
out.write_text(
    "# name (encodings.normalize_encoding form)\tcodec\treads ASCII unchanged; "
    "made by scripts/gen_python_codecs.py\n" + "\n".join(rows) + "\n"
)
print(f"{len(rows)} codecs -> {out}")
