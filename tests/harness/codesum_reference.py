"""Reference values of the BLEU variants of Shi et al. (ICSE 2022), from their own code.

Usage: python codesum_reference.py CODESUM_DIR MODE ...
  CODESUM_DIR: a folder holding DeepSoftwareAnalytics/CodeSumEvaluation's metrics/evaluate.py
               and metrics/bleu/{codenn,google,rencos}_bleu.py (eval/tests/codesum.rs extracts
               them from a checkout or git directory at test time; they are not vendored).
  cases SEED N:   N generated (prediction, reference) pairs and, from the references: nltk
                  sentence_bleu with each SmoothingFunction method 0-7 (null where nltk raises),
                  CodeNN's bleu()[0] of each pair as evaluate.py prepares it (null where it raises
                  or evaluate.py skips the pair), Google's compute_bleu(smooth=True), Rencos's
                  per-example BLEU-4; and evaluate.py's `bleus` (with `round` made the identity,
                  so unrounded) on the whole set and on generated groups, plus the rounded
                  values it prints on the whole set.
  files PRED GOLD...: evaluate.py's `bleus` (rounded, as printed) on each pair of files, the
                  references cut to the predictions' length as RQ1.ipynb does.
Prints one JSON object on stdout, every float as its IEEE-754 bits (an unsigned integer), so
it is read back exactly (JSON readers may round decimal floats by an ulp); null where none.
"""

import json
import os
import random
import struct
import sys
import types
import warnings


def load(codesum_dir):
    metrics = os.path.join(codesum_dir, "metrics")
    sys.path.insert(0, metrics)
    # evaluate.py imports prettytable only to print its table; `bleus` does not use it.
    if "prettytable" not in sys.modules:
        try:
            import prettytable  # noqa: F401
        except ImportError:
            sys.modules["prettytable"] = types.ModuleType("prettytable")
    import evaluate
    from bleu import codenn_bleu, google_bleu, rencos_bleu

    warnings.filterwarnings("ignore")
    return evaluate, codenn_bleu, google_bleu, rencos_bleu


VOCAB = [
    "returns", "the", "a", "of", "to", "value", "list", "if", "is", "given", "file", "node",
    "Returns", "THE", "sum", "get", "set", "name", "path", "key", "in", "for", "and", "or",
    ".", ",", "(", ")", "-", ":", "'s", "3.5", "1,000", "0-based", "a.b", "x,y", "&amp;",
    "&lt;T&gt;", "&quot;", "foo_bar", "fooBar", "über", "naïve", "日本", "<skipped>", "e.g.",
    "i.e", "n't", "--", "...", "@param", "{@link", "}", "#", "$x", "100%", "a/b", "C++",
]

SPACES = [" ", " ", " ", "  ", "\t", "\u3000", "\x1c", "\u2028", "\xa0"]


def words(rng, n, vocab):
    return [rng.choice(vocab) for _ in range(n)]


def join(rng, toks):
    out = ""
    for i, t in enumerate(toks):
        if i:
            out += rng.choice(SPACES)
        out += t
    if rng.random() < 0.2:
        out = rng.choice(SPACES) + out + rng.choice(SPACES)
    return out


def edit(rng, toks, vocab):
    out = list(toks)
    for _ in range(rng.randint(0, max(1, len(out) // 3))):
        op = rng.random()
        if op < 0.3 and out:
            out.pop(rng.randrange(len(out)))
        elif op < 0.6 and out:
            out[rng.randrange(len(out))] = rng.choice(vocab)
        elif op < 0.8:
            out.insert(rng.randint(0, len(out)), rng.choice(vocab))
        elif out:
            i = rng.randrange(len(out))
            out.insert(i, out[i])
    return out


def generate(seed, n):
    rng = random.Random(seed)
    cases = [
        ("", ""), ("", "a b c"), ("a b c", ""), ("a", "a"), ("a", "a b c d"), ("x", "a b c d"),
        ("a b", "a b"), ("a b c", "a b c"), ("a b c d", "a b c d"), ("a b c d e", "a b c d e"),
        ("<skipped>", "a b"), ("a b", "<skipped>"), ("   ", "a"), ("a a a a a a", "a"),
        ("the the the the", "the cat is on the mat"), ("a b c d", "a b x d"),
        ("a b a b a b", "a b a b"), ("Returns THE sum", "returns the sum"),
    ]
    small = VOCAB[:12]
    while len(cases) < n:
        kind = rng.random()
        vocab = small if rng.random() < 0.5 else VOCAB
        if kind < 0.08:
            # one-token and very short outputs
            ref = words(rng, rng.randint(1, 6), vocab)
            hyp = words(rng, rng.randint(0, 2), vocab)
        elif kind < 0.14:
            # very long
            ref = words(rng, rng.randint(200, 1500), vocab)
            hyp = edit(rng, ref, vocab) if rng.random() < 0.7 else words(rng, rng.randint(100, 2000), vocab)
        elif kind < 0.18:
            ref = words(rng, rng.randint(0, 8), vocab)
            hyp = list(ref)
        elif kind < 0.22:
            ref = words(rng, rng.randint(1, 10), vocab)
            hyp = words(rng, rng.randint(1, 10), VOCAB[30:])
        else:
            ref = words(rng, rng.randint(1, 30), vocab)
            hyp = edit(rng, ref, vocab)
        cases.append((join(rng, hyp), join(rng, ref)))
    return cases[:n]


def nltk_methods(evaluate, ref, hyp):
    from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu

    out = []
    for m in range(8):
        fn = getattr(SmoothingFunction(), "method%d" % m)
        try:
            out.append(float(sentence_bleu([ref], hyp, smoothing_function=fn)))
        except Exception:  # method 6 asserts a non-zero trigram precision
            out.append(None)
    return out


def bits(x):
    if x is None:
        return None
    return struct.unpack("<Q", struct.pack("<d", float(x)))[0]


def per_example(mods, cases):
    evaluate, codenn_bleu, google_bleu, rencos_bleu = mods
    refs = [[r.split()] for _, r in cases]
    preds = [p.split() for p, _ in cases]
    nltk = [nltk_methods(evaluate, r[0], p) for r, p in zip(refs, preds)]
    codenn = []
    for r, p in zip(refs, preds):
        # evaluate.py's preparation: skipped when a side has no token, tokens joined by spaces.
        if len(r[0]) == 0 or len(p) == 0:
            codenn.append(None)
            continue
        try:
            codenn.append(codenn_bleu.bleu([" ".join(r[0])], " ".join(p))[0])
        except Exception:
            codenn.append(None)
    google = [google_bleu.compute_bleu([r], [p], smooth=True)[0] for r, p in zip(refs, preds)]
    res = {k: [" ".join(v)] for k, v in enumerate(preds)}
    gts = {k: [" ".join(v[0])] for k, v in enumerate(refs)}
    _, scores = rencos_bleu.Bleu(4).compute_score(gts, res)
    return {
        "nltk": [[bits(x) for x in row] for row in nltk],
        "codenn": [bits(x) for x in codenn],
        "google": [bits(x) for x in google],
        "rencos": [bits(x) for x in scores[3]],
    }


def bleus(evaluate, cases, rounded):
    refs = [[r.split()] for _, r in cases]
    preds = [p.split() for p, _ in cases]
    if rounded:
        evaluate.round = round
    else:
        evaluate.round = lambda x, n=None: x
    try:
        return {k: bits(v) for k, v in evaluate.bleus(refs, preds).items()}
    finally:
        del evaluate.round


def groups(seed, n, cases):
    rng = random.Random(seed + 1)
    out = [list(range(n))]
    for _ in range(60):
        size = rng.choice([1, 2, 3, 5, 10, 40, 150])
        out.append(sorted(rng.sample(range(n), min(size, n))))
    # Groups with a hypothesis that CodeNN cannot score, and without.
    fails = [i for i, (p, r) in enumerate(cases) if p.split() and r.split() and p.split() == ["<skipped>"]]
    ok = [i for i, (p, r) in enumerate(cases) if p.split() and r.split() and "<skipped>" not in p]
    if fails and len(ok) > 5:
        out.append(sorted(set(ok[:5] + fails[:1])))
    empty = [i for i, (p, r) in enumerate(cases) if not p.split() or not r.split()]
    if empty:
        out.append(empty[:4])
    return out


def main():
    mods = load(sys.argv[1])
    evaluate = mods[0]
    mode = sys.argv[2]
    if mode == "cases":
        seed, n = int(sys.argv[3]), int(sys.argv[4])
        cases = generate(seed, n)
        out = {"cases": cases}
        out.update(per_example(mods, cases))
        out["groups"] = [[g, bleus(evaluate, [cases[i] for i in g], False)] for g in groups(seed, n, cases)]
        out["printed"] = bleus(evaluate, cases, True)
        # One failing CodeNN example makes BLEU-CN 0: print the rest too.
        fine = [i for i, (p, r) in enumerate(cases) if not (p.split() and r.split()) or out["codenn"][i] is not None]
        out["scorable"] = fine
        out["printed_scorable"] = bleus(evaluate, [cases[i] for i in fine], True)
    elif mode == "files":
        out = {"files": []}
        args = sys.argv[3:]
        for pred, gold in zip(args[::2], args[1::2]):
            preds = evaluate.read_to_list(pred)
            refs = [[t] for t in evaluate.read_to_list(gold)][: len(preds)]
            evaluate.round = round
            out["files"].append({"pred": pred, "gold": gold, "examples": len(preds),
                                 "bleus": {k: bits(v) for k, v in evaluate.bleus(refs, preds).items()}})
    else:
        sys.exit("unknown mode " + mode)

    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
