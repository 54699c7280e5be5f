#!/usr/bin/env python3
"""Benchmark of `codemine mine --emit completion` against CodeXGLUE's own preprocessing
scripts (issue 15: "How we know it is right" and "Speed").

On real repositories it:
  1. lists every `.py` and `.java` blob of each repository at one commit (git ls-tree; the
     commit is the one given, or HEAD) and writes the bytes to a scratch folder;
  2. runs `codemine mine --manifest M --emit completion --no-dedup --no-history` over the
     same repositories at the same commits (a TOML manifest names each one, so the `repo`
     column tells them apart) and reads `completion/token/token-*.parquet` and
     `completion/line/line-*.parquet`;
  3. loads CodeXGLUE's `Code-Code/CodeCompletion-token/dataset/py150/preprocess.py` and
     `javaCorpus/preprocess.py` (with their `literals.json`) at run time from a CodeXGLUE
     checkout or bare git directory (nothing of CodeXGLUE is copied into codemine) and runs
     the scripts' own functions over the same files:
       - Python: the script's `py_tokenize(args, file_name, file_type)` itself, unchanged,
         over a file list of the scratch files (real file I/O, as the script does);
       - Java: the script's `preprocess(args, file_name, file_type)` itself, once per file,
         with only its I/O replaced: the script reads a text file of one-line sources
         (`readlines()`), so `open` is shimmed to hand it one whole source file as its only
         "line" and to capture what it writes (the tokenization and literal rules are the
         script's code, run as is, including its `strip().lstrip("<s>").rstrip("</s>")`);
  4. compares, per file keyed by (repo, path), the script's line with codemine's `text`:
     identical / differing (first differing token) / codemine skipped what the script
     tokenized / both skipped (the script's `<s> </s>` or, for Java, no line);
  5. checks every line-level row against its file's token line: `input + ' ' + gt` is a
     prefix at a token boundary, `gt` obeys the stop rule (Python: up to `<EOL>` excluded;
     Java: up to `;`/`}` included or `{` excluded) and has a letter or digit, the cut is
     the one the seed draws (SplitMix64 seeded with seed ^ xxh3_64("repo/path"), partial
     Fisher-Yates over the valid positions), `id` is xxh3_64(repo\\0sha\\0path)-position
     and `line` is within the file;
  6. times, side by side on the same files, the scripts (best of --rounds, each run over
     every file) and codemine (best of --rounds of the whole `mine` with and without
     `--emit completion`, per thread count in --jobs; the completion export is the
     difference, and also its own thread CPU time inside the run, stats.json
     `stages.completion.cpu_seconds`: rows, staging and finalize), and prints files/s, MB/s and the ratio, in wall time and in CPU time
     (user + system of the script's process or of the codemine child: on a shared machine
     wall time also counts waiting for a core).

Usage (Python 3.11 with pyarrow, xxhash (examples/requirements-bench.txt) and javalang 0.13
(tests/requirements.txt); a release build: cargo build --release):
  python examples/bench_completion.py --codexglue /path/to/CodeXGLUE \\
      --repo psf/requests=/path/to/requests --repo google/gson=/path/to/gson [--rounds 5]
A repository given as a bare mirror /x/owner+name/repo is named owner/name without NAME=.
--codexglue also reads the environment variable CODEXGLUE.
"""
import argparse, contextlib, io, json, os, re, resource, shutil, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOKEN_DIR = "Code-Code/CodeCompletion-token/dataset"
EXT = {".py": "python", ".java": "java"}
MASK = (1 << 64) - 1


# ---------------------------------------------------------------------------- inputs

def git(gitdir, *args, **kw):
    return subprocess.run(["git", "--git-dir", gitdir, *args], check=True,
                          capture_output=True, **kw).stdout


def git_dir(path):
    """The git directory of a work tree or a bare repository."""
    out = subprocess.run(["git", "-C", path, "rev-parse", "--absolute-git-dir"], check=True,
                         capture_output=True, text=True).stdout.strip()
    return out


def codexglue_file(root, rel):
    """A file of CodeXGLUE from a checkout (if present) or else from git at HEAD."""
    p = os.path.join(root, rel)
    if os.path.isfile(p):
        return open(p, "rb").read()
    return git(git_dir(root), "show", f"HEAD:{rel}")


def load_script(root, name, scratch):
    """Executes CodeXGLUE's `{name}/preprocess.py` (not as __main__) in a fresh namespace.

    The script loads `literals.json` from the current directory when it starts, so it runs
    from a folder holding its own literals.json (the script's I/O; nothing else changes)."""
    d = os.path.join(scratch, "codexglue", name)
    os.makedirs(d, exist_ok=True)
    src = codexglue_file(root, f"{TOKEN_DIR}/{name}/preprocess.py").decode()
    with open(os.path.join(d, "literals.json"), "wb") as f:
        f.write(codexglue_file(root, f"{TOKEN_DIR}/{name}/literals.json"))
    ns = {"__name__": f"codexglue_{name}", "__file__": os.path.join(d, "preprocess.py")}
    cwd = os.getcwd()
    os.chdir(d)
    try:
        exec(compile(src, f"CodeXGLUE/{TOKEN_DIR}/{name}/preprocess.py", "exec"), ns)
    finally:
        os.chdir(cwd)
    return ns


def repo_name(spec):
    if "=" in spec:
        name, path = spec.split("=", 1)
        return name, path
    parts = os.path.abspath(spec).rstrip("/").split("/")
    if parts[-1] in ("repo", ".git") and "+" in parts[-2]:
        return parts[-2].replace("+", "/", 1), spec
    return parts[-1], spec


def list_files(gitdir, rev):
    """(path, language, size) of every regular .py/.java blob at rev (symlinks, submodules
    and other modes are not source files for codemine either)."""
    out = []
    for ent in git(gitdir, "ls-tree", "-r", "-z", "-l", rev).split(b"\0"):
        if not ent:
            continue
        meta, path = ent.split(b"\t", 1)
        mode, kind, _sha, size = meta.split()
        path = path.decode("utf-8", "surrogateescape")
        lang = EXT.get(os.path.splitext(path)[1])
        if lang and kind == b"blob" and mode in (b"100644", b"100755"):
            out.append((path, lang, int(size)))
    return out


def dump_blobs(gitdir, rev, paths, dest):
    """Writes the bytes of rev:path for every path under dest (one git cat-file --batch)."""
    req = b"".join(f"{rev}:{p}\n".encode("utf-8", "surrogateescape") for p in paths)
    out = subprocess.run(["git", "--git-dir", gitdir, "cat-file", "--batch"], input=req,
                         check=True, capture_output=True).stdout
    pos = 0
    for p in paths:
        nl = out.index(b"\n", pos)
        size = int(out[pos:nl].split()[2])
        data = out[nl + 1:nl + 1 + size]
        pos = nl + 1 + size + 1
        full = os.path.join(dest, p)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "wb") as f:
            f.write(data)


# ---------------------------------------------------------------------------- reference

def run_python_script(ns, base_dir, rels, out_dir):
    """The script's own py_tokenize over the files rels (relative to base_dir): one output
    line per listed file, in order."""
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(base_dir, "bench_python_files.txt"), "w") as f:
        f.writelines(r + "\n" for r in rels)
    args = argparse.Namespace(base_dir=base_dir, output_dir=out_dir)
    with contextlib.redirect_stdout(io.StringIO()):  # its "python: 0 are done"
        ns["py_tokenize"](args, file_name="bench_python_files.txt", file_type="python")
    with open(os.path.join(out_dir, "python.txt"), newline="") as f:
        lines = f.read().split("\n")
    assert lines[-1] == "" and len(lines) == len(rels) + 1, "one line per file"
    return lines[:-1]


class _OneSource:
    """What the Java script's open(...) gets for its input: readlines() is one whole file."""
    def __init__(self, source):
        self.source = source

    def readlines(self):
        return [self.source]


class _Capture:
    """What the Java script's open(..., 'w') gets: the lines it writes."""
    def __init__(self):
        self.parts = []

    def write(self, s):
        self.parts.append(s)

    def close(self):
        pass


def run_java_script(ns, files):
    """The script's own preprocess(args, file_name, file_type), once per file: its line for
    the file (without the newline) or None when it writes nothing (tokenizer error or no
    token). Reading a file is Python's open(path).read(), as the Python script does."""
    state = {}

    def shim_open(path, mode="r", *a, **kw):
        if "w" in mode:
            state["out"] = _Capture()
            return state["out"]
        return _OneSource(state["source"])

    ns["open"] = shim_open
    ns["print"] = lambda *a, **kw: None  # its "{file_type} are done"
    args = argparse.Namespace(base_dir="", output_dir="")
    res = []
    for full in files:
        try:
            state["source"] = open(full).read()
        except UnicodeDecodeError:
            res.append(None)  # the script would stop here: not a line of its input
            continue
        ns["preprocess"](args, file_name="in.txt", file_type="java")
        text = "".join(state["out"].parts)
        res.append(text[:-1] if text else None)
    return res


# ---------------------------------------------------------------------------- codemine

def write_manifest(path, repos):
    with open(path, "w") as f:
        for r in repos:
            f.write(f'[[repos]]\nurl = {json.dumps(os.path.abspath(r["path"]))}\n'
                    f'rev = "{r["sha"]}"\nname = {json.dumps(r["name"])}\n\n')


def run_codemine(binary, manifest, out, jobs, emit, extra=()):
    shutil.rmtree(out, ignore_errors=True)
    cmd = [binary, "mine", "--manifest", manifest, "--out", out, "--no-dedup", "--no-history",
           "-q", "-j", str(jobs), *extra]
    if emit:
        cmd += ["--emit", "completion"]
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(cmd, check=True)
    wall = time.perf_counter() - t
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def read_parquet_rows(out, prefix):
    import pyarrow.parquet as pq
    d = os.path.join(out, "completion", prefix)
    rows = []
    for name in sorted(os.listdir(d)):
        if name.startswith(prefix + "-") and name.endswith(".parquet"):
            rows.extend(pq.read_table(os.path.join(d, name)).to_pylist())
    return rows


# ---------------------------------------------------------------------------- line level

def splitmix_cuts(n_valid, take, seed, key):
    import xxhash
    state = [(seed ^ xxhash.xxh3_64_intdigest(key.encode())) & MASK]

    def nxt():
        state[0] = (state[0] + 0x9E3779B97F4A7C15) & MASK
        z = state[0]
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    idx = list(range(n_valid))
    for k in range(min(take, n_valid)):
        r = k + nxt() % (n_valid - k)
        idx[k], idx[r] = idx[r], idx[k]
    return sorted(idx[:min(take, n_valid)])


def gt_end(toks, lang, p):
    for k in range(p, len(toks)):
        t = toks[k]
        if lang == "python" and t == "<EOL>":
            return k
        if lang == "java" and t in (";", "}"):
            return k + 1
        if lang == "java" and t == "{":
            return k
    return len(toks)


def substantive(toks):
    return any(ch.isalnum() for t in toks for ch in t)


def check_lines(line_rows, token_rows, sources, seed, cuts):
    """Checks every line row against its file's token line; returns counts and examples."""
    import xxhash
    by_file = {}
    for r in line_rows:
        by_file.setdefault((r["repo"], r["path"]), []).append(r)
    c = {"rows": len(line_rows), "prefix_at_boundary": 0, "stop_rule": 0, "substantive": 0,
         "line_in_file": 0, "id": 0, "files_with_rows": len(by_file),
         "files_without_valid_cut": 0, "files_cut_as_seed_draws": 0, "files_checked": 0,
         "orphan_rows": 0}
    bad, no_cut = [], []
    for key, row in token_rows.items():
        toks = row["text"].split(" ")
        assert toks[0] == "<s>" and toks[-1] == "</s>"
        body = toks[1:-1]
        lang = row["language"]
        rows = by_file.get(key, [])
        c["files_checked"] += 1
        valid = [p for p in range(1, len(body))
                 if gt_end(body, lang, p) > p and substantive(body[p:gt_end(body, lang, p)])]
        if not valid:
            c["files_without_valid_cut"] += 1
            no_cut.append(f"{key[0]}:{key[1]}")
        want = [valid[i] for i in splitmix_cuts(len(valid), cuts, seed, f"{key[0]}/{key[1]}")]
        got = []
        nlines = sources[key].count("\n") + 1
        for r in rows:
            inp, gt = r["input"].split(" "), r["gt"].split(" ")
            n = len(inp) - 1  # tokens before the cut, without <s>
            got.append(n)
            ok_prefix = (inp[0] == "<s>" and toks[:len(inp)] == inp
                         and toks[len(inp):len(inp) + len(gt)] == gt
                         and row["text"].startswith(r["input"] + " " + r["gt"] + " "))
            nxt = toks[len(inp) + len(gt)] if len(inp) + len(gt) < len(toks) else None
            if lang == "python":
                ok_stop = "<EOL>" not in gt and nxt in ("<EOL>", "</s>")
            else:
                if gt[-1] in (";", "}"):
                    ok_stop = not any(t in (";", "}", "{") for t in gt[:-1])
                else:
                    ok_stop = (not any(t in (";", "}", "{") for t in gt)
                               and nxt in ("{", "</s>"))
            ok_sub = bool(r["gt"]) and substantive(gt)
            ok_line = 1 <= r["line"] <= nlines
            fid = xxhash.xxh3_64_intdigest(f'{r["repo"]}\0{r["sha"]}\0{r["path"]}'.encode())
            ok_id = r["id"] == f"{fid:016x}-{n:016x}"
            for k, v in (("prefix_at_boundary", ok_prefix), ("stop_rule", ok_stop),
                         ("substantive", ok_sub), ("line_in_file", ok_line), ("id", ok_id)):
                c[k] += v
            if not (ok_prefix and ok_stop and ok_sub and ok_line and ok_id) and len(bad) < 10:
                bad.append({"repo": key[0], "path": key[1], "id": r["id"], "gt": r["gt"],
                            "prefix": ok_prefix, "stop": ok_stop, "substantive": ok_sub,
                            "line": ok_line, "id_ok": ok_id})
        if sorted(got) == want:
            c["files_cut_as_seed_draws"] += 1
        elif len(bad) < 10:
            bad.append({"repo": key[0], "path": key[1], "cut_positions": sorted(got),
                        "seed_draws": want})
    c["orphan_rows"] = sum(len(v) for k, v in by_file.items() if k not in token_rows)
    return c, bad, no_cut


# ---------------------------------------------------------------------------- main

def first_difference(a, b):
    ta, tb = a.split(" "), b.split(" ")
    for i, (x, y) in enumerate(zip(ta, tb)):
        if x != y:
            return i, x, y
    i = min(len(ta), len(tb))
    return i, (ta[i] if i < len(ta) else "<end>"), (tb[i] if i < len(tb) else "<end>")


def rate(n_files, n_bytes, secs):
    return f"{secs:7.3f} s {n_files / secs:9.0f} files/s {n_bytes / secs / 1e6:8.2f} MB/s"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--codexglue", default=os.environ.get("CODEXGLUE"),
                    help="CodeXGLUE checkout or bare git dir (env CODEXGLUE)")
    ap.add_argument("--repo", action="append", required=True,
                    help="[NAME=]PATH of a repository (work tree or bare), optionally PATH@REV")
    ap.add_argument("--codemine", default=os.path.join(ROOT, "target/release/codemine"))
    ap.add_argument("--rounds", type=int, default=5, help="timed runs of each side (best kept)")
    ap.add_argument("--jobs", default="1,2", help="codemine thread counts to time")
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--cuts", type=int, default=1)
    ap.add_argument("--show", type=int, default=10)
    ap.add_argument("--json", help="also write the results here")
    ap.add_argument("--keep", action="store_true", help="keep the scratch folder")
    a = ap.parse_args()
    if not a.codexglue:
        ap.error("--codexglue (or CODEXGLUE) is required")
    if sys.version_info[:2] != (3, 11):
        print(f"warning: CPython {sys.version.split()[0]}, the comparison is defined for 3.11",
              file=sys.stderr)
    import javalang
    jl_version = getattr(javalang, "__version__", "?")

    scratch = tempfile.mkdtemp(prefix="bench-completion-")
    py_ns = load_script(a.codexglue, "py150", scratch)
    java_ns = load_script(a.codexglue, "javaCorpus", scratch)
    cx_sha = git(git_dir(a.codexglue), "rev-parse", "HEAD", text=True).strip()

    # 1. the files
    files_dir = os.path.join(scratch, "files")
    repos, files = [], []  # files: (repo, path, lang, size)
    for spec in a.repo:
        name, path = repo_name(spec)
        rev = "HEAD"
        if "@" in os.path.basename(path):
            path, rev = path.rsplit("@", 1)
        gd = git_dir(path)
        sha = git(gd, "rev-parse", rev + "^{commit}", text=True).strip()
        listed = list_files(gd, sha)
        dump_blobs(gd, sha, [p for p, _, _ in listed], os.path.join(files_dir, name))
        repos.append({"name": name, "path": path, "sha": sha, "files": len(listed)})
        files += [(name, p, lang, size) for p, lang, size in listed]
    sources = {}
    for name, p, _, _ in files:
        with open(os.path.join(files_dir, name, p), newline=None, errors="replace") as f:
            sources[(name, p)] = f.read()
    py_files = [f for f in files if f[2] == "python"]
    java_files = [f for f in files if f[2] == "java"]
    py_bytes = sum(f[3] for f in py_files)
    java_bytes = sum(f[3] for f in java_files)
    print(f"CodeXGLUE {cx_sha[:10]}, CPython {sys.version.split()[0]}, javalang {jl_version}")
    for r in repos:
        print(f"  {r['name']} @ {r['sha'][:10]}: {r['files']} Python/Java files")
    print(f"files: {len(py_files)} Python ({py_bytes / 1e6:.2f} MB), "
          f"{len(java_files)} Java ({java_bytes / 1e6:.2f} MB)")

    # 2. codemine
    manifest = os.path.join(scratch, "repos.toml")
    write_manifest(manifest, repos)
    out = os.path.join(scratch, "out")
    extra = ["--completion-seed", str(a.seed), "--completion-cuts", str(a.cuts)]
    run_codemine(a.codemine, manifest, out, 2, True, extra)  # the output compared
    stats = json.load(open(os.path.join(out, "stats.json")))["stages"]["completion"]
    token_rows, dup = {}, 0
    for r in read_parquet_rows(out, "token"):
        dup += (r["repo"], r["path"]) in token_rows
        token_rows[(r["repo"], r["path"])] = r
    line_rows = read_parquet_rows(out, "line")

    # 3. the scripts, timed (the first round's output is the one compared)
    py_times, java_times = [], []
    for k in range(a.rounds):
        t, c = time.perf_counter(), time.process_time()
        py_ref = run_python_script(py_ns, files_dir, [f"{n}/{p}" for n, p, _, _ in py_files],
                                   os.path.join(scratch, f"ref{k}"))
        py_times.append((time.perf_counter() - t, time.process_time() - c))
        t, c = time.perf_counter(), time.process_time()
        java_ref = run_java_script(java_ns, [os.path.join(files_dir, n, p)
                                             for n, p, _, _ in java_files])
        java_times.append((time.perf_counter() - t, time.process_time() - c))
        if k == 0:
            ref = {}
            for (n, p, _, _), line in zip(py_files, py_ref):
                ref[(n, p)] = None if line == "<s> </s>" else line
            for (n, p, _, _), line in zip(java_files, java_ref):
                ref[(n, p)] = line

    # 4. token level
    print("\n== token level: codemine `text` vs the CodeXGLUE script, per file ==")
    diff, cm_only, ref_only, both_skip = [], [], [], []
    same = {"python": 0, "java": 0}
    tokenized = {"python": 0, "java": 0}
    for n, p, lang, _ in files:
        want, got = ref[(n, p)], token_rows.get((n, p))
        got = got["text"] if got else None
        if want is not None:
            tokenized[lang] += 1
        if want is None and got is None:
            both_skip.append((n, p, lang))
        elif got is None:
            ref_only.append((n, p, lang))
        elif want is None:
            cm_only.append((n, p, lang))
        elif want == got:
            same[lang] += 1
        else:
            diff.append((n, p, lang) + first_difference(want, got))
    java_lstrip = sum(1 for n, p, _, _ in java_files
                      if sources[(n, p)].strip() != sources[(n, p)].strip().lstrip("<s>").rstrip("</s>"))
    for lang in ("python", "java"):
        t = tokenized[lang]
        print(f"{lang:6}: script tokenizes {t}, identical {same[lang]} "
              f"({100 * same[lang] / max(t, 1):.1f}%), differ "
              f"{sum(1 for d in diff if d[2] == lang)}, codemine skipped "
              f"{sum(1 for d in ref_only if d[2] == lang)}; both skip "
              f"{sum(1 for d in both_skip if d[2] == lang)}, only codemine tokenizes "
              f"{sum(1 for d in cm_only if d[2] == lang)}")
    print(f"codemine stages.completion: files {stats['files']}, skipped {stats['skipped']}, "
          f"duplicate_files {stats['duplicate_files']}; token rows {len(token_rows)} "
          f"(rows with the same repo+path: {dup}); Java files the script's "
          f"lstrip('<s>')/rstrip('</s>') changes: {java_lstrip}")
    # f-strings: one STRING token up to 3.11 (CodeXGLUE ran 3.7); 3.12's tokenize splits them
    fstr = re.compile(r"^[a-zA-Z]*[fF][a-zA-Z]*[\"']+<STR_LIT")
    ftoks = [sum(1 for t in ref[(n, p)].split(" ") if fstr.match(t))
             for n, p, _, _ in py_files if ref[(n, p)]]
    print(f"f-string literals in the compared Python lines: {sum(ftoks)} in "
          f"{sum(1 for x in ftoks if x)} files (one STRING token each, as CPython 3.11 and 3.7)")
    for n, p, lang in both_skip[:a.show]:
        print(f"  both skip: {n}:{p}")
    for n, p, lang, i, x, y in diff[:a.show]:
        print(f"  differs: {n}:{p} token {i}: script {x!r}, codemine {y!r}")
    for n, p, lang in (ref_only + cm_only)[:a.show]:
        print(f"  only one side tokenizes: {n}:{p} script {ref[(n, p)] is not None}")

    # 5. line level
    lc, lbad, no_cut = check_lines(line_rows, token_rows, sources, a.seed, a.cuts)
    print("\n== line level: every row against its file's token line ==")
    print(", ".join(f"{k} {v}" for k, v in lc.items()))
    for b in lbad:
        print("  bad:", json.dumps(b))
    for f in no_cut[:a.show]:
        print("  no valid cut (no line row):", f)

    # 6. speed. The machine may be shared: wall time counts waiting for a core, CPU time
    # (user + system of the script's process, or of the codemine child) does not.
    jobs = [int(j) for j in a.jobs.split(",")]
    cm, cm_own = {}, {}
    load0 = os.getloadavg()
    for _ in range(a.rounds):
        for j in jobs:
            for emit in (False, True):
                wall, cpu = run_codemine(a.codemine, manifest, out, j, emit, extra if emit else ())
                best = cm.get((j, emit), (wall, cpu))
                cm[(j, emit)] = (min(best[0], wall), min(best[1], cpu))
                if emit:
                    # The export's own thread CPU time inside this run (stats.json).
                    st = json.load(open(os.path.join(out, "stats.json")))["stages"]["completion"]
                    own = st.get("cpu_seconds")
                    if own and (j not in cm_own or own["total"] < cm_own[j]["total"]):
                        cm_own[j] = own
    load1 = os.getloadavg()
    nf, nb = len(files), py_bytes + java_bytes
    py_t = tuple(min(x[i] for x in py_times) for i in (0, 1))
    java_t = tuple(min(x[i] for x in java_times) for i in (0, 1))
    both = (py_t[0] + java_t[0], py_t[1] + java_t[1])
    print(f"\n== speed (best of {a.rounds}; {nf} files, {nb / 1e6:.2f} MB; load average "
          f"{load0[0]:.1f} before the codemine runs, {load1[0]:.1f} after) ==")
    print(f"{'':37} {'wall':>9} {'files/s':>9} {'MB/s':>7}  {'CPU':>8} {'files/s':>9} {'MB/s':>7}")

    def line(label, n, b, w, c, ratio=True):
        r = f"  {both[0] / w:5.1f}x {both[1] / c:5.1f}x" if ratio else ""
        print(f"{label:37} {w:8.3f}s {n / w:9.0f} {b / w / 1e6:7.2f}  {c:7.3f}s {n / c:9.0f} "
              f"{b / c / 1e6:7.2f}{r}")

    line("CodeXGLUE py150/preprocess.py", len(py_files), py_bytes, *py_t, ratio=False)
    line("CodeXGLUE javaCorpus/preprocess.py", len(java_files), java_bytes, *java_t, ratio=False)
    line("CodeXGLUE scripts, both", nf, nb, *both, ratio=False)
    print(f"{'(ratios: scripts / codemine)':>95} {'wall':>5}  {'CPU':>5}")
    speed = {"files": nf, "bytes": nb, "script_python": py_t, "script_java": java_t,
             "load": [load0, load1]}
    for j in jobs:
        w, c = cm[(j, True)]
        w0, c0 = cm[(j, False)]
        print(f"codemine -j {j} without --emit        {w0:8.3f}s {'':17}  {c0:7.3f}s")
        line(f"codemine -j {j} --emit completion", nf, nb, w, c)
        if w - w0 > 0 and c - c0 > 0:
            line(f"codemine -j {j} completion (difference)", nf, nb, w - w0, c - c0)
        else:
            print(f"codemine -j {j} completion (difference): below the noise "
                  f"({w - w0:.3f} s wall, {c - c0:.3f} s CPU)")
        if j in cm_own:
            o = cm_own[j]
            print(f"codemine -j {j} export, own thread CPU (stats.json): rows {o['rows']:.3f}s, "
                  f"staging {o['staging']:.3f}s, finalize {o['finalize']:.3f}s")
            line(f"codemine -j {j} completion (own CPU)", nf, nb, o["total"], o["total"])
        speed[f"codemine_j{j}"] = {"with": cm[(j, True)], "without": cm[(j, False)],
                                   "own_cpu": cm_own.get(j)}

    if a.json:
        json.dump({"codexglue": cx_sha, "python": sys.version.split()[0], "repos": repos,
                   "tokenized": tokenized, "identical": same, "differ": diff,
                   "codemine_skipped": ref_only, "codemine_only": cm_only,
                   "both_skip": both_skip, "stats": stats, "line": lc, "line_bad": lbad, "no_cut": no_cut,
                   "speed": speed}, open(a.json, "w"), indent=1)
    if not a.keep:
        shutil.rmtree(scratch, ignore_errors=True)
    else:
        print("scratch:", scratch)


if __name__ == "__main__":
    main()
