#!/usr/bin/env python3
"""Compares codemine's CodeSearchNet rows with function_parser's reference rows.

    compare.py --rows rows.jsonl --out OUT_DIR --lang LANG [--repo OWNER/NAME] [--examples N]
               [--json report.json]

rows.jsonl is written by function_parser_rows.py. OUT_DIR is a `codemine mine` output
folder; its CSN rows are OUT_DIR/csn/**/*.parquet (columns repo, path, func_name,
original_string, language, code_tokens, docstring, docstring_tokens, sha, url, partition;
the url ends with `#L{start}-L{end}`). Rows are matched on (path, start line, end line).

Reported over function_parser's rows: the share codemine has at the same path and lines;
of those, the share with equal func_name, docstring (function_parser's text after
process.py's `.strip()`, the published form), docstring_tokens and code_tokens; and the
share equal on location, func_name, docstring_tokens and code_tokens (`all_four`). Also: codemine rows of the same files
that function_parser does not have. Up to N mismatches per field are printed with both
sides. Always exits 0.
"""
import argparse
import glob
import json
import os
import re
import sys
from collections import defaultdict

import pyarrow.parquet as pq

URL_LINES = re.compile(r'#L(\d+)-L(\d+)$')


def load_codemine(out_dir, lang, repo):
    files = sorted(glob.glob(os.path.join(out_dir, 'csn', '**', '*.parquet'), recursive=True))
    if not files:
        sys.exit(f'no Parquet files under {out_dir}/csn')
    rows = []
    for f in files:
        t = pq.read_table(f)
        cols = set(t.column_names)
        want = [c for c in ('repo', 'path', 'func_name', 'language', 'url', 'docstring',
                            'docstring_tokens', 'code_tokens', 'original_string', 'code') if c in cols]
        for r in t.select(want).to_pylist():
            if lang and r.get('language') not in (lang, None):
                continue
            if repo and r.get('repo') != repo:
                continue
            m = URL_LINES.search(r.get('url') or '')
            if not m:
                continue
            r['start_line'], r['end_line'] = int(m.group(1)), int(m.group(2))
            rows.append(r)
    return rows, files


def short(v, n=300):
    s = json.dumps(v, ensure_ascii=False)
    return s if len(s) <= n else s[:n] + '...'


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--rows', required=True)
    ap.add_argument('--out', required=True, help='codemine output folder')
    ap.add_argument('--lang', required=True)
    ap.add_argument('--repo', help='only codemine rows of this repo (owner/name)')
    ap.add_argument('--examples', type=int, default=5)
    ap.add_argument('--json', help='also write the figures to this JSON file')
    a = ap.parse_args()

    ref = [json.loads(l) for l in open(a.rows, encoding='utf-8') if l.strip()]
    cm, files = load_codemine(a.out, a.lang, a.repo)
    repos = sorted({r.get('repo') for r in cm})
    if len(repos) > 1:
        print(f'warning: codemine rows of {len(repos)} repos ({", ".join(map(str, repos[:5]))}...); '
              f'pass --repo to pick one', file=sys.stderr)

    by_loc = {}
    by_path = defaultdict(list)
    for r in cm:
        by_loc.setdefault((r['path'], r['start_line'], r['end_line']), r)
        by_path[r['path']].append(r)

    fields = ('func_name', 'docstring', 'docstring_tokens', 'code_tokens')
    four = ('func_name', 'docstring_tokens', 'code_tokens')
    matched = 0
    equal = dict.fromkeys(fields, 0)
    all4 = 0
    missing, diffs = [], defaultdict(list)
    ref_locs = set()
    for r in ref:
        loc = (r['path'], r['start_line'], r['end_line'])
        ref_locs.add(loc)
        c = by_loc.get(loc)
        if c is None:
            missing.append(r)
            continue
        matched += 1
        ok = True
        for f in fields:
            if list(c.get(f) or []) == list(r[f]) if f.endswith('_tokens') else c.get(f) == r[f]:
                equal[f] += 1
            else:
                ok = ok and f not in four
                diffs[f].append((r, c))
        all4 += ok
    ref_paths = {r['path'] for r in ref}
    extra = [r for r in cm if r['path'] in ref_paths and (r['path'], r['start_line'], r['end_line']) not in ref_locs]

    n = len(ref)
    pct = lambda x, d: (100.0 * x / d) if d else 0.0
    rep = {
        'lang': a.lang, 'reference_rows': n, 'codemine_rows': len(cm), 'codemine_repos': repos,
        'located': matched, 'located_pct': round(pct(matched, n), 1),
        **{f'{f}_equal_pct_of_located': round(pct(equal[f], matched), 1) for f in fields},
        'all_four_pct': round(pct(all4, n), 1),
        'codemine_extra_rows_in_same_files': len(extra),
    }
    print(f'== {a.lang}: {n} function_parser rows, {len(cm)} codemine rows ({len(files)} Parquet files)')
    print(f'same path and lines : {matched}/{n} = {rep["located_pct"]}%')
    for f in fields:
        print(f'  {f:17s}: {equal[f]}/{matched} = {rep[f + "_equal_pct_of_located"]}% of those')
    print(f'all four equal      : {all4}/{n} = {rep["all_four_pct"]}%')
    print(f'codemine rows in the same files that function_parser lacks: {len(extra)}')

    k = a.examples
    if missing and k:
        print(f'\n-- not located in codemine ({len(missing)}), up to {k}:')
        for r in missing[:k]:
            near = [c for c in by_path.get(r['path'], []) if c.get('func_name') == r['func_name']
                    or abs(c['start_line'] - r['start_line']) <= 3]
            print(f'  function_parser: {r["path"]}:{r["start_line"]}-{r["end_line"]} {r["func_name"]!r}')
            for c in near[:2]:
                print(f'     codemine near: {c["path"]}:{c["start_line"]}-{c["end_line"]} {c.get("func_name")!r}')
            if not near:
                print('     codemine near: none')
    for f in fields:
        if diffs[f] and k:
            print(f'\n-- {f} differs ({len(diffs[f])}), up to {k}:')
            for r, c in diffs[f][:k]:
                print(f'  {r["path"]}:{r["start_line"]}-{r["end_line"]}')
                print(f'     function_parser: {short(r[f])}')
                print(f'     codemine       : {short(c.get(f))}')
    if extra and k:
        print(f'\n-- codemine rows function_parser lacks ({len(extra)}), up to {k}:')
        for c in extra[:k]:
            print(f'  {c["path"]}:{c["start_line"]}-{c["end_line"]} {c.get("func_name")!r} '
                  f'docstring_tokens={short(c.get("docstring_tokens"), 120)}')
    if a.json:
        with open(a.json, 'w') as fh:
            json.dump(rep, fh, indent=1)
    return 0


if __name__ == '__main__':
    main()
    sys.exit(0)
