#!/usr/bin/env python3
"""Writes synthetic dedup inputs, as `codemine mine --rank K --world-size N` leaves them,
for testing and timing the cluster step without mining:

    DIR/staging/functions-rKKKKK-c00000-00000-of-00001.parquet (id, exact_hash, shingles, ...)
    DIR/dedup/bands/bands-rKKKKK-c00000-00000-of-00001.parquet       (id, band, band_hash)
    DIR/staging/dedup-params.json

The corpus is made of families: a base shingle set and members derived from it (exact
copies, copies with the same shingles under another exact hash, edits whose Jaccard to
the base sits on either side of the threshold, chains whose ends are far apart), tiny
functions (no shingles, exact groups only), random ids over the whole unsigned range, tied
and unknown dates. Members of a family share some band hashes, exact copies share all of
them, a few unrelated functions collide in a bucket (rejected candidates), and a few
functions are staged twice under one id (by two ranks).

Usage: synth_tables.py DIR --functions N [--ranks R] [--seed S]
"""

import argparse
import json
import os
import random

import pyarrow as pa
import pyarrow.parquet as pq

PARAMS = {"threshold": 0.7, "shingle": 5, "bands": 25, "rows": 10}
PARTITIONS = ["train", "train", "train", "valid", "test"]


def functions_schema():
    item = pa.field("item", pa.uint64(), nullable=False)
    return pa.schema([
        pa.field("id", pa.uint64(), nullable=False),
        pa.field("exact_hash", pa.binary(16), nullable=False),
        pa.field("shingles", pa.list_(item), nullable=False),
        pa.field("has_docstring", pa.bool_(), nullable=False),
        pa.field("last_commit", pa.timestamp("ms", tz="UTC"), nullable=True),
        pa.field("partition", pa.string(), nullable=False),
    ])


def bands_schema():
    return pa.schema([
        pa.field("id", pa.uint64(), nullable=False),
        pa.field("band", pa.uint32(), nullable=False),
        pa.field("band_hash", pa.uint64(), nullable=False),
    ])


class Gen:
    def __init__(self, seed, bands):
        self.rng = random.Random(seed)
        self.bands = bands
        self.rows = []  # dicts: id, exact, shingles (sorted list), doc, date, partition, bands
        self.ids = set()

    def u64(self):
        return self.rng.getrandbits(64)

    def new_id(self):
        while True:
            i = self.u64() if self.rng.random() < 0.9 else self.rng.choice(
                [0, 1, 2, (1 << 63) - 1, 1 << 63, (1 << 64) - 1, (1 << 63) + 1]) ^ self.rng.getrandbits(3)
            if i not in self.ids:
                self.ids.add(i)
                return i

    def facts(self):
        r = self.rng
        date = None
        if r.random() < 0.8:
            # Few distinct days, so dates tie often; whole seconds as codemine writes them.
            date = (1_700_000_000 + r.randrange(6) * 86_400) * 1000
        return {"doc": r.random() < 0.5, "date": date, "partition": r.choice(PARTITIONS)}

    def add(self, shingles, exact=None, bands=None, **facts):
        f = self.facts()
        f.update(facts)
        row = {
            "id": self.new_id(),
            "exact": exact if exact is not None else self.rng.getrandbits(128).to_bytes(16, "little"),
            "shingles": sorted(set(shingles)),
            "bands": bands if bands is not None else (
                [self.u64() for _ in range(self.bands)] if shingles else []),
            **f,
        }
        self.rows.append(row)
        return row

    def copy(self, row, same_exact=True):
        """An exact copy (same tokens: same shingles and bands), or the same shingle set
        under another exact hash."""
        return self.add(row["shingles"], exact=row["exact"] if same_exact else None,
                        bands=list(row["bands"]))

    def edit(self, row, jaccard, share_bands):
        """A member whose shingle set has about `jaccard` with `row`'s; shares
        `share_bands` of its band hashes."""
        r = self.rng
        base = row["shingles"]
        n = len(base)
        # Keep s of the base and add a new ones: J = s / (n + a).
        a = round(n * (1 - jaccard) / 2)
        s = max(1, min(n, round(jaccard * (n + a))))
        kept = r.sample(base, s)
        new = kept + [self.u64() for _ in range(a)]
        bands = [self.u64() for _ in range(self.bands)]
        for b in r.sample(range(self.bands), share_bands):
            bands[b] = row["bands"][b]
        return self.add(new, bands=bands)

    def exact_boundary(self, k, shared, extra_a, extra_b):
        """Two members sharing one bucket with chosen shared and own shingles."""
        common = [self.u64() for _ in range(shared)]
        a = self.add(common + [self.u64() for _ in range(extra_a)])
        b = self.add(common + [self.u64() for _ in range(extra_b)])
        band = self.rng.randrange(self.bands)
        b["bands"][band] = a["bands"][band]
        return a, b


def build(functions, seed, bands=25):
    g = Gen(seed, bands)
    r = g.rng
    while len(g.rows) < functions:
        kind = r.random()
        if kind < 0.45:  # a singleton
            g.add([g.u64() for _ in range(r.randrange(5, 120))])
        elif kind < 0.55:  # tiny functions, some exact copies
            t = g.add([], bands=[])
            for _ in range(r.randrange(0, 3)):
                g.copy(t)
        elif kind < 0.85:  # a family around a base
            base = g.add([g.u64() for _ in range(r.randrange(10, 150))])
            for _ in range(r.randrange(1, 7)):
                c = r.random()
                if c < 0.25:
                    g.copy(base)
                elif c < 0.32:
                    g.copy(base, same_exact=False)
                else:
                    member = g.edit(base, r.choice([0.95, 0.85, 0.75, 0.71, 0.7, 0.69, 0.6, 0.4]),
                                    r.randrange(0, 4))
                    if r.random() < 0.3:  # chain on: near the member, maybe far from base
                        g.edit(member, r.choice([0.9, 0.75, 0.7]), r.randrange(1, 4))
        elif kind < 0.95:  # Jaccard exactly at and around 0.7
            shared, ea, eb = r.choice([(14, 3, 3), (7, 1, 2), (14, 3, 4), (21, 4, 5),
                                       (70, 15, 15), (70, 15, 16), (69, 15, 15), (35, 8, 7)])
            g.exact_boundary(0, shared, ea, eb)
        elif kind < 0.96 and g.rows:
            # The same function staged twice under one id (a repository listed at two
            # revisions, the function unchanged): the first occurrence stands.
            g.rows.append(dict(r.choice(g.rows)))
        else:  # a bucket collision between unrelated functions (a rejected candidate)
            a = g.add([g.u64() for _ in range(r.randrange(5, 60))])
            b = g.add([g.u64() for _ in range(r.randrange(5, 60))])
            band = r.randrange(bands)
            b["bands"][band] = a["bands"][band]
    r.shuffle(g.rows)
    return g.rows


def write(out, rows, ranks=1, params=PARAMS):
    os.makedirs(os.path.join(out, "staging"), exist_ok=True)
    os.makedirs(os.path.join(out, "dedup", "bands"), exist_ok=True)
    with open(os.path.join(out, "staging", "dedup-params.json"), "w") as f:
        json.dump(params, f)
    fs, bs = functions_schema(), bands_schema()
    for k in range(ranks):
        part = rows[k::ranks]
        table = pa.table({
            "id": [r["id"] for r in part],
            "exact_hash": [r["exact"] for r in part],
            "shingles": [r["shingles"] for r in part],
            "has_docstring": [r["doc"] for r in part],
            "last_commit": [r["date"] for r in part],
            "partition": [r["partition"] for r in part],
        }, schema=fs)
        pq.write_table(table, os.path.join(out, "staging",
                                           f"functions-r{k:05d}-c00000-00000-of-00001.parquet"),
                       compression="zstd")
        ids, band, hashes = [], [], []
        for r in sorted(part, key=lambda r: r["id"]):
            for b, h in enumerate(r["bands"]):
                ids.append(r["id"])
                band.append(b)
                hashes.append(h)
        pq.write_table(pa.table({"id": ids, "band": band, "band_hash": hashes}, schema=bs),
                       os.path.join(out, "dedup", "bands", f"bands-r{k:05d}-c00000-00000-of-00001.parquet"),
                       compression="zstd")


def main():
    p = argparse.ArgumentParser(description="synthetic dedup tables")
    p.add_argument("out")
    p.add_argument("--functions", type=int, default=2000)
    p.add_argument("--ranks", type=int, default=2)
    p.add_argument("--seed", type=int, default=7)
    a = p.parse_args()
    rows = build(a.functions, a.seed)
    write(a.out, rows, a.ranks)
    print(json.dumps({"functions": len(rows),
                      "band_rows": sum(len(r["bands"]) for r in rows)}))


if __name__ == "__main__":
    main()
