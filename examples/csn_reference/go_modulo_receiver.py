#!/usr/bin/env python3
# usage: go_modulo_receiver.py ROWS.jsonl OUT_DIR  (rows from function_parser_rows.py --lang go)
#
# function_parser's rows vs codemine's, func_name compared after dropping the `Type.` that
# codemine puts before a Go method's name (function_parser names a method bare).
import glob, json, re, sys
import pyarrow.parquet as pq
fp = [json.loads(l) for l in open(sys.argv[1])]
cm = [r for f in glob.glob(sys.argv[2] + '/csn/**/*.parquet', recursive=True)
      for r in pq.read_table(f).to_pylist()]
at = {(r['path'],) + tuple(map(int, re.search(r'#L(\d+)-L(\d+)$', r['url']).groups())): r for r in cm}
ok = 0
for r in fp:
    c = at.get((r['path'], r['start_line'], r['end_line']))
    ok += bool(c) and c['func_name'].split('.')[-1] == r['func_name'] \
        and list(c['docstring_tokens']) == r['docstring_tokens'] and list(c['code_tokens']) == r['code_tokens']
print(f'all four equal, func_name modulo receiver: {ok}/{len(fp)} = {100 * ok / len(fp):.1f}%')
