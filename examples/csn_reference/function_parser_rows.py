#!/usr/bin/env python3
"""Reference CodeSearchNet rows from github/CodeSearchNet's own `function_parser`.

    function_parser_rows.py --function-parser DIR --lang LANG [--filters csn|none]
                            [--out rows.jsonl] SRC_DIR

Runs function_parser's unmodified code (DataProcessor.get_function_definitions and
extract_function_data from process.py, the parsers in parsers/*.py) on every file of LANG
under SRC_DIR and writes one JSON line per kept function:

    path, start_line, end_line, func_name, docstring, docstring_tokens, code, code_tokens

DIR is a checkout of github/CodeSearchNet's `function_parser/` folder (or the inner
`function_parser/function_parser/` folder). Nothing of it is copied or edited here: it is
imported as it is and adapted at run time by the shim below.

Filters (`--filters csn`, the default) reproduce what CSN's published rows keep:
  * process.py: FILTER_PATHS on the path (lower-cased), `len(function_tokens) > 1`;
  * the parsers' own blacklists (constructors, toString, ...);
  * the CSN paper (arXiv:1909.09436, sec. 2.2), not in the published code:
    docstring summary shorter than 3 tokens dropped, code shorter than 3 lines dropped,
    func_name containing "test" (any case) dropped;
  * process.py's exact dedup on ' '.join(function_tokens) (first in path order kept).
    The DuplicateDetector near-duplicate pass and the license filter are corpus-wide and
    are not reproduced.
`--filters none` writes every definition process.py's process_dee would keep
(only FILTER_PATHS and `len(function_tokens) > 1`), docstring or not.

TypeScript: function_parser has no TypeScript parser. `--lang typescript` runs its
JavascriptParser over *.ts with the tree-sitter-typescript grammar (*.tsx with the tsx one).

ADAPTATIONS to current py-tree-sitter and grammar wheels (the CSN data was built with
py-tree-sitter 0.0.5 and grammars of early 2019; the parsers' code shows which: Python's
docstring lookup needs functions without a `block` node, added 2019-02-13; JavaScript
declarations were still `function` nodes, split into function_declaration 2019-02-08):
  API
   A1 Parser(): `Parser(Language(wheel.language()))` replaces `set_language(Language(so, name))`.
   A2 process.py imports docopt, dpu_utils, pandas and (via utils.py) requests, which the
      single-file path never uses: stub modules are put in sys.modules when they are absent.
   A3 get_function_definitions derives the repo path from `filepath.split('/')[5:]` (it
      expects /tmp/<tmp>/<owner>/<name>/<path>): files are handed over through a symlink
      /tmp/<tmp>/local/repo -> SRC_DIR so that path is SRC_DIR-relative, as in CSN.
   A4 Nodes are wrapped (class N) so the grammar changes below are seen as the old trees;
      points are plain (row, column) tuples, columns in bytes as before.
  Grammar (each undoes one change of the grammar since early 2019)
   G1 python: `block` children of function_definition/class_definition are inlined (the
      old grammar had the suite's statements directly under the definition).
   G2 javascript/typescript: function_expression and function_declaration are typed
      `function` (one `function` rule before 2019-02; renamed function_expression 2024).
   G3 javascript/typescript: `string_fragment` children of template_string dropped (the
      template characters were a hidden token, so no code token).
   G4 java: line_comment/block_comment typed `comment`; a method_declaration's body
      (`block`, or `;`) typed `method_body` (the old wrapper, used by is_method_body_empty);
      string_literal/text_block are leaves (string_literal was one token); a
      character_literal has its two quotes as children (it was seq("'", hidden characters,
      "'"), not a token, so `'a'` gave `'`, `'`).
   G5 go: raw_string_literal is a leaf (one token before); interpreted_string_literal's
      `interpreted_string_literal_content` children dropped (hidden token before), so its
      tokens stay '"', escape_sequence..., '"' as function_parser saw them.
   G6 php: `declaration_list` children of class/trait declarations inlined; in a
      method_declaration with a body, the children from `function` to the
      compound_statement are grouped into a `function_definition` node (old grammar:
      method_declaration = modifiers + function_definition); encapsed_string typed `string`.
   G7 ruby: `body_statement` children of module/class inlined (old `_body_statement` was
      hidden); `string_content` and `heredoc_content` dropped (the scanner's hidden
      `_string_content`/`_heredoc_content`: a symbol, regex or heredoc gave its delimiters,
      escapes and interpolations only); `bare_string`/`bare_symbol` (words of %w/%i) are
      leaves.
  Errors
   E1 JavascriptParser.get_docstring raises AttributeError when a run of comments reaches the
      first child (prev_sibling None); process.py does not catch it (the CSN run would have
      failed). Such a file is skipped and counted on stderr.
"""
import argparse
import json
import os
import sys
import tempfile
import types
from pathlib import Path

LANGS = {
    # lang: (parser class name in language_data, extensions, grammar factory)
    'python': ('python', ('py',)),
    'java': ('java', ('java',)),
    'go': ('go', ('go',)),
    'javascript': ('javascript', ('js',)),
    'typescript': ('javascript', ('ts', 'tsx')),
    'php': ('php', ('php',)),
    'ruby': ('ruby', ('rb',)),
}


def grammar(lang, ext):
    import tree_sitter as ts
    if lang == 'python':
        import tree_sitter_python as m; return ts.Language(m.language())
    if lang == 'java':
        import tree_sitter_java as m; return ts.Language(m.language())
    if lang == 'go':
        import tree_sitter_go as m; return ts.Language(m.language())
    if lang == 'javascript':
        import tree_sitter_javascript as m; return ts.Language(m.language())
    if lang == 'typescript':
        import tree_sitter_typescript as m
        return ts.Language(m.language_tsx() if ext == 'tsx' else m.language_typescript())
    if lang == 'php':
        import tree_sitter_php as m; return ts.Language(m.language_php())
    if lang == 'ruby':
        import tree_sitter_ruby as m; return ts.Language(m.language())
    raise SystemExit(f'unknown language {lang}')


# ---------------------------------------------------------------- node shim (A4, G1-G7)

class Rules:
    def __init__(self, lang):
        self.rename = {}          # new type -> old type
        self.flatten = {}         # child type -> parent types whose such children are inlined
        self.leaf = set()         # types whose children are hidden
        self.drop = {}            # child type -> parent types where it is dropped
        self.php_group = False
        self.java_body = False
        if lang == 'python':                                   # G1
            self.flatten['block'] = {'function_definition', 'class_definition'}
        elif lang in ('javascript', 'typescript'):             # G2, G3
            self.rename.update(function_expression='function', function_declaration='function')
            self.drop['string_fragment'] = {'template_string'}
        elif lang == 'java':                                   # G4
            self.rename.update(line_comment='comment', block_comment='comment')
            self.leaf.update({'string_literal', 'text_block'})
            self.java_body = True
        elif lang == 'go':                                     # G5
            self.leaf.add('raw_string_literal')
            self.drop['interpreted_string_literal_content'] = {'interpreted_string_literal'}
        elif lang == 'php':                                    # G6
            self.flatten['declaration_list'] = {'class_declaration', 'trait_declaration'}
            self.rename['encapsed_string'] = 'string'
            self.php_group = True
        elif lang == 'ruby':                                   # G7
            self.flatten['body_statement'] = {'module', 'class'}
            self.leaf.update({'bare_string', 'bare_symbol'})
            for k in ('string_content', 'heredoc_content'):
                self.drop[k] = {'delimited_symbol', 'regex', 'subshell', 'heredoc_body'}


class N:
    """A tree-sitter node as function_parser's early-2019 grammars would have shaped it."""
    __slots__ = ('raw', 'type', 'start_point', 'end_point', '_kids', '_rules', '_key')

    def __init__(self, raw, rules, type_=None, kids=None):
        self.raw = raw
        self._rules = rules
        if raw is not None:
            self.type = type_ or rules.rename.get(raw.type, raw.type)
            self.start_point = (raw.start_point[0], raw.start_point[1])
            self.end_point = (raw.end_point[0], raw.end_point[1])
            self._key = (raw.start_byte, raw.end_byte, raw.kind_id, raw.type)
        else:  # synthetic group node (G6)
            self.type = type_
            self.start_point = kids[0].start_point
            self.end_point = kids[-1].end_point
            self._key = ('group', type_, kids[0]._key, kids[-1]._key)
        self._kids = kids

    def __eq__(self, other):
        return isinstance(other, N) and self._key == other._key

    def __hash__(self):
        return hash(self._key)

    def __repr__(self):
        return f'N({self.type}, {self.start_point}, {self.end_point})'

    def _expand(self, raw_child, parent_type):
        r = self._rules
        t = raw_child.type
        if t in r.drop and parent_type in r.drop[t]:
            return []
        if t in r.flatten and parent_type in r.flatten[t]:
            out = []
            for c in raw_child.children:
                out.extend(self._expand(c, parent_type))
            return out
        type_ = None
        if r.java_body and parent_type == 'method_declaration' and t in ('block', ';'):
            type_ = 'method_body'
        if r.java_body and t == 'character_literal':
            return [N(None, r, 'character_literal', [Quote(raw_child, 0), Quote(raw_child, 1)])]
        return [N(raw_child, r, type_)]

    @property
    def children(self):
        if self._kids is None:
            if self.raw.type in self._rules.leaf:
                self._kids = []
            else:
                kids = []
                for c in self.raw.children:
                    kids.extend(self._expand(c, self.raw.type))
                if self._rules.php_group and self.raw.type == 'method_declaration':
                    kids = php_group(kids, self._rules)
                self._kids = kids
        return self._kids


class Quote:
    """One quote of an old Java character literal (G4): a leaf at its first or last byte."""
    __slots__ = ('type', 'start_point', 'end_point', 'children', '_key')

    def __init__(self, raw, last):
        (r0, c0), (r1, c1) = raw.start_point, raw.end_point
        self.type = "'"
        self.start_point = (r1, c1 - 1) if last else (r0, c0)
        self.end_point = (r1, c1) if last else (r0, c0 + 1)
        self.children = []
        self._key = ('quote', raw.start_byte, last)

    def __eq__(self, other):
        return isinstance(other, Quote) and self._key == other._key

    def __hash__(self):
        return hash(self._key)


def php_group(kids, rules):
    types_ = [k.type for k in kids]
    if 'function' in types_ and types_[-1] == 'compound_statement':
        i = types_.index('function')
        return kids[:i] + [N(None, rules, 'function_definition', kids[i:])]
    return kids


class Tree:
    def __init__(self, raw, rules):
        self.root_node = N(raw.root_node, rules)


class ShimParser:
    def __init__(self, language, rules):
        import tree_sitter as ts
        self.p = ts.Parser(language)    # A1
        self.rules = rules

    def parse(self, data):
        return Tree(self.p.parse(data), self.rules)


# ---------------------------------------------------------------- loading function_parser

def load_function_parser(fp_dir):
    d = Path(fp_dir)
    if not (d / 'process.py').exists():
        d = d / 'function_parser'
    if not (d / 'process.py').exists():
        raise SystemExit(f'no process.py under {fp_dir}')
    for name in ('docopt', 'dpu_utils', 'dpu_utils.codeutils', 'dpu_utils.codeutils.deduplication',
                 'pandas', 'requests'):                        # A2
        try:
            __import__(name)
        except ImportError:
            m = types.ModuleType(name)
            m.docopt = None
            m.DuplicateDetector = None
            sys.modules[name] = m
    sys.path.insert(0, str(d))
    import process                                              # noqa: E402
    import language_data                                        # noqa: E402
    from parsers import language_parser                         # noqa: E402
    return process, language_data, language_parser


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--function-parser', required=True)
    ap.add_argument('--lang', required=True, choices=sorted(LANGS))
    ap.add_argument('--filters', default='csn', choices=('csn', 'none'))
    ap.add_argument('--out', help='JSONL file (default: stdout)')
    ap.add_argument('src_dir')
    a = ap.parse_args()

    process, language_data, lp = load_function_parser(a.function_parser)
    fp_lang, exts = LANGS[a.lang]
    parser_cls = language_data.LANGUAGE_METADATA[fp_lang]['language_parser']
    rules = Rules(a.lang)
    processor = process.DataProcessor(language=fp_lang, language_parser=parser_cls)

    src = Path(a.src_dir).resolve()
    tmp = tempfile.mkdtemp(dir='/tmp')                          # A3
    assert len(tmp.split('/')) == 3, tmp
    os.mkdir(os.path.join(tmp, 'local'))
    os.symlink(src, os.path.join(tmp, 'local', 'repo'))

    files = []
    for root, dirs, names in os.walk(src):
        dirs[:] = sorted(x for x in dirs if x != '.git')
        for f in sorted(names):
            for ext in exts:
                if f.endswith('.' + ext):
                    files.append((os.path.relpath(os.path.join(root, f), src).replace(os.sep, '/'), ext))
                    break
    parsers = {ext: ShimParser(grammar(a.lang, ext), rules) for ext in exts}

    out = open(a.out, 'w') if a.out else sys.stdout
    seen = set()
    stats = dict(files=len(files), filtered_path=0, errors=0, definitions=0, rows=0)
    for rel, ext in sorted(files):
        process.DataProcessor.PARSER = parsers[ext]
        try:
            definitions = processor.get_function_definitions(os.path.join(tmp, 'local', 'repo', rel))
        except AttributeError as e:                             # E1
            stats['errors'] += 1
            print(f'function_parser failed on {rel}: {e!r}', file=sys.stderr)
            continue
        if definitions is None:
            stats['filtered_path'] += 1
            continue
        _, path, functions = definitions
        assert path == rel, (path, rel)
        for func in functions:
            if not len(func['function_tokens']) > 1:            # process_dee
                continue
            d = processor.extract_function_data(func, 'local/repo', path, '')
            stats['definitions'] += 1
            if a.filters == 'csn':
                if len(d['docstring_tokens']) < 3:
                    continue
                if len(d['function'].split('\n')) < 3:
                    continue
                if 'test' in d['identifier'].lower():
                    continue
                key = ' '.join(d['function_tokens'])
                if key in seen:
                    continue
                seen.add(key)
            start, end = d['url'].rsplit('#L', 1)[1].split('-L')
            row = dict(path=path, start_line=int(start), end_line=int(end), func_name=d['identifier'],
                       docstring=d['docstring'], docstring_tokens=d['docstring_tokens'],
                       code=d['function'], code_tokens=d['function_tokens'])
            out.write(json.dumps(row, ensure_ascii=False) + '\n')
            stats['rows'] += 1
    if a.out:
        out.close()
    os.unlink(os.path.join(tmp, 'local', 'repo'))
    os.rmdir(os.path.join(tmp, 'local'))
    os.rmdir(tmp)
    print(json.dumps(stats), file=sys.stderr)


if __name__ == '__main__':
    if not sys.flags.utf8_mode:
        # process.py reads files with open() in the locale encoding; CSN's container used UTF-8.
        os.execv(sys.executable, [sys.executable, '-X', 'utf8'] + sys.argv)
    main()
