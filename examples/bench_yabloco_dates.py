"""Agreement of codemine's YABLoCo `meta.last_commit` with a published YABLoCo table.

Usage: python examples/bench_yabloco_dates.py PUBLISHED.csv OUT_DIR [OUT_DIR ...]

PUBLISHED.csv is one of yabloco-codegen/yabloco-benchmark's
`data_extraction/tables/*_wTestCovHits.csv` (columns fname, file, pos, last_commit); each
OUT_DIR is a `codemine mine --out` folder of the same repository and commit. Rows are joined
on (path inside the repository, start line, function name); the first folder component of
`file` is the repository's short name, which is dropped on both sides. Prints, per OUT_DIR,
the rows joined and the share whose dd.mm.YYYY dates are equal.
"""

import json
import sys

import pandas as pd
import pyarrow.dataset as ds


def key(file, pos, fname):
    return (file.split("/", 1)[1] if "/" in file else file, int(pos), fname)


def main():
    published = pd.read_csv(sys.argv[1], dtype={"last_commit": str})
    want = {}
    for row in published.itertuples():
        if isinstance(row.last_commit, str) and row.last_commit:
            want[key(row.file, row.pos, row.fname)] = row.last_commit
    report = {"published_rows_with_a_date": len(want)}
    for out in sys.argv[2:]:
        table = ds.dataset(f"{out}/yabloco", format="parquet").to_table(columns=["meta"])
        joined = equal = 0
        for meta in table.column("meta").to_pylist():
            k = key(meta["file"], meta["pos"], meta["fname"])
            if k in want and meta["last_commit"] is not None:
                joined += 1
                equal += meta["last_commit"] == want[k]
        report[out] = {
            "joined": joined,
            "equal": equal,
            "agreement": round(equal / joined, 4) if joined else None,
        }
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
