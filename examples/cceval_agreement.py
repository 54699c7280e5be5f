"""Agreement of codemine's CrossCodeEval identifier metrics (`identifier_em`,
`identifier_f1`, eval/src/repo_completion.rs) with cceval's own code.

cceval's functions are imported from a checkout given on the command line (its `scripts`
folder; nothing of cceval is in this repository):

    git -C /work/.mirror/amazon-science+cceval/repo archive HEAD scripts | tar -x -C /tmp/cceval
    cargo build -p codemine-eval --example cceval_ids
    python examples/cceval_agreement.py /tmp/cceval/scripts [--bin target/debug/examples/cceval_ids] [--n 4000] [--seed 1]

For each generated (prediction, gt, language) case it runs cceval's pipeline after the
postprocessing step (codemine does not truncate predictions; see the module docs):
`remove_comments` on both sides, `extract_identifiers(text, lang)`, `id_em =
int(pred_ids == target_ids)`, `compute_id_match(pred_ids, target_ids)` and the precision /
recall / F1 expressions of `compute_metric_stmt` (written out below: they are inline there),
and compares the identifier lists and the four values with what codemine's example binary
prints for the same cases. cceval has keyword lists for Python (the interpreter's
`keyword.kwlist`), Java, JavaScript and TypeScript (and C#); for C, C++, Go, PHP and Ruby its
`get_language_keywords` is given codemine's data files (eval/data/keywords/), so those
languages check everything but the lists themselves.

Tokenizer: cceval cuts code into words with nltk's `RegexpTokenizer(r'\w+')`. Up to nltk
3.9 that is the standard library's `re` (what cceval ran with when it was published, March
2024); later nltk releases compile it with the third-party `regex` module, whose `\w`
differs for a few non-ASCII characters (numbers such as `²` are not word characters there,
combining marks are). The pass/fail comparison is against the `re` tokenizer (codemine
follows it); the summary also counts the agreement with the installed nltk's tokenizer.

Imports of eval_utils.py / eval_metric.py that the compared functions do not use (torch,
timeout_decorator, sacrebleu, tqdm, tree_sitter) are stubbed when they are not installed.
Prints a JSON summary; exits 1 on any disagreement.
"""

import argparse
import json
import os
import random
import re
import subprocess
import sys
import types

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
LANGS = ["python", "java", "c", "cpp", "go", "javascript", "typescript", "php", "ruby"]
OWN_LISTS = {"c", "cpp", "go", "php", "ruby"}


def stub(name, **attrs):
    """Installs a stand-in module when the real one cannot be imported."""
    try:
        __import__(name)
        return
    except Exception:
        pass
    parts = name.split(".")
    for i in range(1, len(parts) + 1):
        sub = ".".join(parts[:i])
        if sub not in sys.modules:
            sys.modules[sub] = types.ModuleType(sub)
        if i > 1:
            setattr(sys.modules[".".join(parts[: i - 1])], parts[i - 1], sys.modules[sub])
    for k, v in attrs.items():
        setattr(sys.modules[name], k, v)


def load_cceval(scripts):
    stub("timeout_decorator", timeout=lambda *a, **k: (lambda f: f))
    stub("torch")
    stub("torch.multiprocessing")
    stub("tqdm", tqdm=None)
    stub("tree_sitter", Language=None, Parser=None)
    stub("fuzzywuzzy.fuzz", ratio=None)
    stub("nltk.tokenize", RegexpTokenizer=None)
    stub("sacrebleu.tokenizers.tokenizer_intl", TokenizerV14International=lambda: None)
    sys.path.insert(0, scripts)
    import eval_utils  # noqa: E402
    import eval_metric  # noqa: E402

    original = eval_utils.get_language_keywords

    def keywords(lang):
        if lang in OWN_LISTS:
            path = os.path.join(ROOT, "eval", "data", "keywords", lang + ".txt")
            with open(path, encoding="utf-8") as f:
                return frozenset(
                    l.strip() for l in f if l.strip() and not l.startswith("#")
                )
        return original(lang)

    eval_utils.get_language_keywords = keywords
    return eval_utils, eval_metric


class StdlibTokenizer:
    """nltk <= 3.9's RegexpTokenizer(r'\w+'): stdlib re.findall with nltk's flags."""

    def __init__(self):
        self._rx = re.compile(r"\w+", re.UNICODE | re.MULTILINE | re.DOTALL)

    def tokenize(self, text):
        return self._rx.findall(text)


def cceval_values(eu, em_mod, pred, gt, lang):
    prediction = eu.remove_comments(pred)
    target = eu.remove_comments(gt)
    pred_ids = eu.extract_identifiers(prediction, lang)
    target_ids = eu.extract_identifiers(target, lang)
    identifier_em = int(pred_ids == target_ids)
    tp, fp, fn = em_mod.compute_id_match(pred_ids, target_ids)
    return {
        "pred_ids": pred_ids,
        "gt_ids": target_ids,
        "em": identifier_em,
        # compute_metric_stmt's expressions.
        "precision": tp / (tp + fp) if (tp + fp) != 0 else 0,
        "recall": tp / (tp + fn) if (tp + fn) != 0 else 0,
        "f1": 2 * tp / (2 * tp + fp + fn) if (2 * tp + fp + fn) != 0 else 0,
    }


WORDS = ["x", "y", "self", "cache", "get", "items", "_private", "__init__", "getValue",
         "snake_case", "HTTPServer", "i", "n", "a2", "b_3", "value", "key", "None",
         "null", "nil", "true", "false", "True", "this", "$this", "$x", "std", "vector",
         "café", "naïve", "ß", "数据", "x²", "٣x", "_", "__", "é_x"]
PUNCT = [".", "(", ")", "[", "]", "{", "}", ",", ";", ":", "::", "->", "=", "==", "+",
         "-", "*", "/", "//", "#", "%", "&&", "||", "!", "?", "<", ">", "@", "\\", " ", " ",
         "  ", "\t", "\n"]
NUMS = ["0", "1", "42", "3.14", "0x1F", "1e9", "2fast", "10L"]


def literal(rng):
    q = rng.choice(['"', "'"])
    body = "".join(rng.choice(["a", "b c", "\\" + q, "\\\\", "\\n", "#", "//", q * 0,
                                 "x_y", "\\", "\n", "é"]) for _ in range(rng.randint(0, 4)))
    close = q if rng.random() < 0.85 else ""
    return q + body + close


def code(rng, keywords):
    out = []
    for _ in range(rng.randint(0, 14)):
        r = rng.random()
        if r < 0.35:
            out.append(rng.choice(WORDS))
        elif r < 0.5 and keywords:
            out.append(rng.choice(keywords))
        elif r < 0.58:
            out.append(rng.choice(NUMS))
        elif r < 0.66:
            out.append(literal(rng))
        elif r < 0.69:
            out.append(rng.choice(["# note " + rng.choice(WORDS), "// " + rng.choice(WORDS)]))
        else:
            out.append(rng.choice(PUNCT))
    sep = rng.choice(["", " "])
    return sep.join(out)


def mutate(rng, gt, keywords):
    r = rng.random()
    if r < 0.2:
        return gt
    if r < 0.3:
        return ""
    if r < 0.45:
        return " ".join(gt.split())
    toks = gt.split(" ")
    if r < 0.6 and len(toks) > 1:
        i = rng.randrange(len(toks))
        return " ".join(toks[:i] + toks[i + 1:])
    if r < 0.7:
        return gt + " " + rng.choice(WORDS)
    if r < 0.8 and len(toks) > 1:
        rng.shuffle(toks)
        return " ".join(toks)
    if r < 0.92:
        # Rename one word inside the line (a partial identifier overlap).
        words = re.findall(r"[A-Za-z_]\w*", gt)
        if words:
            w = rng.choice(words)
            return gt.replace(w, rng.choice(WORDS), 1)
    return code(rng, keywords)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("scripts", help="cceval's scripts folder")
    ap.add_argument("--bin", default=os.path.join(ROOT, "target", "debug", "examples", "cceval_ids"))
    ap.add_argument("--n", type=int, default=4000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    eu, em_mod = load_cceval(os.path.abspath(args.scripts))

    rng = random.Random(args.seed)
    cases = []
    for i in range(args.n):
        lang = LANGS[i % len(LANGS)]
        kws = sorted(eu.get_language_keywords(lang))
        gt = code(rng, kws)
        cases.append({"pred": mutate(rng, gt, kws), "gt": gt, "lang": lang})
    stdin = "".join(json.dumps(c, ensure_ascii=False) + "\n" for c in cases)
    run = subprocess.run([args.bin], input=stdin.encode("utf-8"), capture_output=True, check=True)
    ours = [json.loads(l) for l in run.stdout.decode("utf-8").splitlines() if l.strip()]
    assert len(ours) == len(cases), (len(ours), len(cases))

    installed_tokenizer = eu.code_tokenizer
    per_lang = {l: {"cases": 0, "agree": 0} for l in LANGS}
    agree_installed = 0
    installed_non_ascii = 0  # of the disagreements with the installed nltk
    disagreements = []
    keys = ["pred_ids", "gt_ids", "em", "precision", "recall", "f1"]
    for c, o in zip(cases, ours):
        def same_as(ref):
            return all(
                (abs(ref[k] - o[k]) <= 1e-12) if isinstance(ref[k], (int, float)) else ref[k] == o[k]
                for k in keys
            )

        eu.code_tokenizer = installed_tokenizer
        if same_as(cceval_values(eu, em_mod, c["pred"], c["gt"], c["lang"])):
            agree_installed += 1
        elif not (c["pred"] + c["gt"]).isascii():
            installed_non_ascii += 1
        eu.code_tokenizer = StdlibTokenizer()
        ref = cceval_values(eu, em_mod, c["pred"], c["gt"], c["lang"])
        same = same_as(ref)
        per_lang[c["lang"]]["cases"] += 1
        per_lang[c["lang"]]["agree"] += int(same)
        if not same and len(disagreements) < 10:
            disagreements.append({"case": c, "cceval": ref, "codemine": o})
    total = sum(v["agree"] for v in per_lang.values())
    summary = {
        "cases": len(cases),
        "agree": total,
        "per_language": per_lang,
        "agree_with_installed_nltk": agree_installed,
        "installed_nltk_disagreements_with_non_ascii_text": installed_non_ascii,
        "installed_nltk": sys.modules["nltk"].__version__ if "nltk" in sys.modules and hasattr(sys.modules["nltk"], "__version__") else None,
        "cases_with_identifiers": sum(1 for o in ours if o["gt_ids"]),
        "identifier_em_true": sum(1 for o in ours if o["em"] == 1),
        "f1_strictly_between_0_and_1": sum(1 for o in ours if 0 < o["f1"] < 1),
        "first_disagreements": disagreements,
    }
    print(json.dumps(summary, ensure_ascii=False, indent=1))
    sys.exit(0 if total == len(cases) else 1)


if __name__ == "__main__":
    main()
