# Independent reader for codemine's shards (pyarrow): prints, for every *.parquet file under
# argv[1], its schema, its rows and per-column compression and dictionary use, as JSON.
import glob, json, os, sys
import pyarrow.parquet as pq

out = {}
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.parquet"))):
    pf = pq.ParquetFile(f)
    cols = {}
    md = pf.metadata
    for rg in range(md.num_row_groups):
        for c in range(md.num_columns):
            col = md.row_group(rg).column(c)
            info = cols.setdefault(col.path_in_schema, {"compression": col.compression, "dictionary": False})
            info["dictionary"] |= col.dictionary_page_offset is not None
    table = pf.read()
    out[os.path.basename(f)] = {
        "schema": [[fld.name, str(fld.type)] for fld in table.schema],
        "rows": table.to_pylist(),
        "columns": cols,
        "num_rows": md.num_rows,
    }
print(json.dumps(out, default=str))
