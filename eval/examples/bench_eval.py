"""Times the reference implementations of `codemine eval`'s metrics on the data that
eval/examples/bench_eval.rs wrote (JSON {"summarization": [[pred, ref], ...], "generation": [...]})
and prints one JSON object: per metric, the seconds and the aggregate score.

CodeXGLUE's smoothed BLEU runs as tests/harness/eval_reference.py renders its algorithm (the
same per-example work as the evaluator's bleu.py); the others are the PyPI packages of
tests/requirements.txt. CodeBLEU is timed on the first `codebleu_examples` generation examples
and its time scaled to all of them.
"""

import json
import logging
import os
import sys
import time
import warnings

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tests", "harness"))
import eval_reference as er  # noqa: E402


def timed(fn):
    t = time.perf_counter()
    value = fn()
    return {"seconds": time.perf_counter() - t, "score": float(value)}


def main():
    warnings.filterwarnings("ignore")
    with open(sys.argv[1], encoding="utf-8") as f:
        data = json.load(f)
    from fuzzywuzzy import fuzz as fw
    from nltk.translate.bleu_score import corpus_bleu
    from nltk.translate.meteor_score import meteor_score
    from pycocoevalcap.cider.cider import Cider
    from rapidfuzz import fuzz
    from rouge_score import rouge_scorer

    s = data["summarization"]
    g = data["generation"]
    out = {}
    out["smoothed_bleu"] = timed(lambda: sum(er.codexglue_bleu(p, r) for p, r in s) / len(s))
    out["corpus_bleu"] = timed(lambda: corpus_bleu([[r.split()] for _, r in s], [p.split() for p, _ in s]))
    rouge = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=False)
    out["rouge_l"] = timed(lambda: sum(rouge.score(r, p)["rougeL"].fmeasure for p, r in s) / len(s))
    nown = er._NoWordNet()
    out["meteor_stem"] = timed(lambda: sum(meteor_score([r.split()], p.split(), wordnet=nown) for p, r in s) / len(s))
    if data.get("wordnet"):
        wn = er.wordnet_reader(data["wordnet"])
        out["meteor"] = timed(lambda: sum(meteor_score([r.split()], p.split(), wordnet=wn) for p, r in s) / len(s))
    out["cider"] = timed(
        lambda: Cider().compute_score({i: [r] for i, (_, r) in enumerate(s)}, {i: [p] for i, (p, _) in enumerate(s)})[0]
    )
    pp = er.post_process
    out["exact_match"] = timed(lambda: sum(pp(p.strip()).split() == pp(r).split() for p, r in g) / len(g) * 100)
    out["edit_sim"] = timed(lambda: sum(fuzz.ratio(pp(p.strip()), pp(r)) for p, r in g) / len(g))
    out["edit_sim_fuzzywuzzy"] = timed(lambda: sum(fw.ratio(pp(p.strip()), pp(r)) for p, r in g) / len(g))
    # The codebleu package on a prefix (it runs at a few hundred examples/s), its time scaled
    # to all examples; PYTHONHASHSEED=0 is set by the driver.
    from codebleu import calc_codebleu

    m = data.get("codebleu_examples", 0)
    if m:
        logging.disable(logging.WARNING)
        prefix = g[:m]
        cb = timed(lambda: calc_codebleu([[r] for _, r in prefix], [p for p, _ in prefix], "python")["codebleu"])
        cb["seconds"] *= len(g) / m
        out["codebleu"] = cb
    # How much of the generated code parses, as Python's own parser sees it.
    import ast

    def parses(code):
        try:
            ast.parse(code)
            return True
        except SyntaxError:
            return False

    out["_syntax"] = {
        "examples": len(g),
        "references_not_parsing": sum(not parses(r) for _, r in g),
        "predictions_not_parsing": sum(not parses(p) for p, _ in g),
    }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
