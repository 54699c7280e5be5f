"""Reference scores for `codemine eval`'s metrics, from the reference implementations.

Usage: python eval_reference.py MODE SEED N
  summarization: N generated (prediction, reference) pairs with nltk corpus_bleu, rouge-score
                 ROUGE-L (with and without the stemmer), nltk METEOR (exact + stem, exact only;
                 WordNet replaced by an empty one), pycocoevalcap CIDEr and CodeXGLUE's smoothed
                 sentence BLEU (see `codexglue_bleu` below);
  meteor:        (args WORDNET_DIR SEED N) N pairs rich in WordNet synonyms and inflections with
                 nltk's METEOR with the WordNet database in WORDNET_DIR (nltk's own reader),
                 with an empty WordNet, and exact-only;
  generation:    N generated (prediction, reference) code pairs with rapidfuzz / fuzzywuzzy
                 fuzz.ratio and CodeXGLUE line completion's exact match;
  porter:        N words and their nltk PorterStemmer stems;
  classes:       the code points Python's str.isspace() and re's \\w accept.
Or: python eval_reference.py score FILE, FILE a JSON object {"task", "cases": [[prediction,
reference], ...], "groups": {name: [case indices]}, "wordnet": DIR}: the aggregates
`codemine eval` reports for all cases and for each group (CIDEr's document frequencies always
from all cases; METEOR with the WordNet in DIR).
Prints one JSON object on stdout.
"""

import json
import warnings
import random
import re
import sys

# ---------------------------------------------------------------------------------------
# CodeXGLUE Code-Text's evaluator (Code-Text/code-to-text/evaluator/evaluator.py, itself from
# MOSES bleu.py) is not vendored: this is an independent Python rendering of the algorithm it
# runs, from its published description, checked against the original by hand. Per example:
#   tokens(line)  = nist_normalize(split_puncts(line.strip().lower()))
#   split_puncts  = the words of re.findall(r"[\w]+|[^\s\w]") joined by single spaces
#   nist_normalize: drop "<skipped>", "-\n"; "\n" -> " "; XML-unescape &lt; &gt; &quot; &amp;;
#                   pad with spaces; lowercase; put spaces around ASCII punctuation other than
#                   ' , - . and digits/letters; split "." and "," off non-digits on either
#                   side; split "-" after a digit; whitespace split
#   score         = exp(mean_k(log(c_k + s_k + tiny) - log(g_k + s_k + tiny))
#                       + min(0, 1 - (r + 1) / (t + 1)))
#                   with c_k clipped k-gram matches, g_k = max(t - k + 1, 0) test k-grams,
#                   s_k = 1 for k >= 2 else 0, tiny = sys.float_info.min, t and r the test and
#                   reference lengths; the evaluator prints the mean times 100.

_PUNCT = re.compile(r"([{-~\[-` -&(-+:-@/])")
_NONDIGIT_PC = re.compile(r"([^0-9])([.,])")
_PC_NONDIGIT = re.compile(r"([.,])([^0-9])")
_DIGIT_DASH = re.compile(r"([0-9])(-)")


def _nist_normalize(text):
    for old, new in (("<skipped>", ""), ("-\n", ""), ("\n", " ")):
        text = text.replace(old, new)
    for old, new in (("&lt;", "<"), ("&gt;", ">"), ("&quot;", '"'), ("&amp;", "&")):
        text = text.replace(old, new)
    text = (" " + text + " ").lower()
    text = _PUNCT.sub(r" \1 ", text)
    text = _NONDIGIT_PC.sub(r"\1 \2 ", text)
    text = _PC_NONDIGIT.sub(r" \1 \2", text)
    text = _DIGIT_DASH.sub(r"\1 \2 ", text)
    return text.split()


def _codexglue_tokens(line):
    return _nist_normalize(" ".join(re.findall(r"[\w]+|[^\s\w]", line.strip().lower())))


def _ngram_counts(words, n=4):
    counts = {}
    for k in range(1, n + 1):
        for i in range(len(words) - k + 1):
            g = tuple(words[i : i + k])
            counts[g] = counts.get(g, 0) + 1
    return counts


def codexglue_bleu(prediction, reference):
    import math

    ref = _codexglue_tokens(reference)
    test = _codexglue_tokens(prediction)
    ref_counts = _ngram_counts(ref)
    correct = [0, 0, 0, 0]
    for g, c in _ngram_counts(test).items():
        correct[len(g) - 1] += min(ref_counts.get(g, 0), c)
    tiny = sys.float_info.min
    log_sum = 0.0
    for k in range(4):
        guess = max(len(test) - k, 0)
        smooth = 1 if k > 0 else 0
        log_sum += math.log(correct[k] + smooth + tiny) - math.log(guess + smooth + tiny)
    log_sum /= 4.0
    penalty = min(0, 1 - float(len(ref) + 1) / (len(test) + 1))
    return math.exp(log_sum + penalty) * 100.0


def post_process(code):
    """CodeXGLUE line completion's clean-up of its literal placeholders (evaluator.py)."""
    code = code.replace("<NUM_LIT>", "0").replace("<STR_LIT>", "").replace("<CHAR_LIT>", "")
    for kind, lit in re.findall(r"<(STR|NUM|CHAR)_LIT:(.*?)>", code, re.S):
        code = code.replace(f"<{kind}_LIT:{lit}>", lit)
    return code


# ---------------------------------------------------------------------------------------
# Generated cases

ENGLISH = (
    "the a of to in returns return value values list lists connection connections connected "
    "connecting running runs ran run generously happily happy relational ponies caresses sky "
    "skies dying tying lying news innings file files filing parse parsed parsing parser string "
    "strings given object objects number numbers compute computes computed computation "
    "initialize initializes initialization get gets set sets agreed feed bled hopping hoped "
    "controller controlling generalization hopefulness formalize electricity adjustable "
    "dependent adoption irritant replacement activate angularity homologous effective bowdlerize "
    "probate rate cease controll roll sensibiliti logi analogi fulli radicalli conditional "
    "rational valenci hesitanci digitizer conformabli differentli vileli analogousli "
    "vietnamization predication operator feudalism decisiveness hopefulness callousness "
    "formaliti sensitiviti triplicate formative formalize electriciti electrical goodness "
    "revival allowance inference airliner gyroscopic adjustable defensible irritant "
    "replacement adjustment dependent adoption homologou communism activate angulariti "
    "homologous effective bowdlerize probate cease controll roll yes eyes say says buy "
    "the The THE Returns RETURNS"
).split()
CODE = (
    "foo_bar getValue self.x x[i] a.b.c f(x) == != -> :: && || 1.5 3,000 2-3 - -- ... ' \" "
    "`code` <tag> &amp; &lt; &gt; &quot; <skipped> @param @return # $ % { } _ __init__ "
    "a,b x.y.z 1.2.3 v2 i++ *args **kwargs <T> List<String> std::vector<int> /* */ // "
    "a-b 10-20 e.g. i.e. etc. (a) [b] {c} \\n \\t a/b"
).split()
UNICODE = [
    "é", "naïve", "straße", "İstanbul", "ΣΊΣΥΦΟΣ", "ὈΔΥΣΣΕΎΣ", "όροΣ", "中文", "日本語のテキスト",
    "😀", "👍🏽", "हिन्दी", "Ⅻ", "٣٤", "x\u00a0y", "a\u1680b", "a\u2003b", "a\u001cb", "ǅemal",
    "\u212a", "ﬁle", "İ", "café.", "résumé,", "über-cool", "ß", "ΌΣΟΣ", "n̈", "x\u200by",
]
WS = [" ", " ", " ", "  ", "\t", "\n", " \n "]


def _sentence(rng, n, pools):
    words = []
    for _ in range(n):
        pool = rng.choice(pools)
        words.append(rng.choice(pool))
    out = ""
    for i, w in enumerate(words):
        if i:
            out += rng.choice(WS)
        out += w
    if rng.random() < 0.1:
        out = rng.choice(WS) + out + rng.choice(WS)
    return out


def _perturb(rng, s, pools):
    words = s.split()
    for _ in range(rng.randint(1, 4)):
        op = rng.random()
        if op < 0.3 and words:
            del words[rng.randrange(len(words))]
        elif op < 0.6:
            words.insert(rng.randint(0, len(words)), rng.choice(rng.choice(pools)))
        elif op < 0.8 and len(words) > 1:
            i = rng.randrange(len(words) - 1)
            words[i], words[i + 1] = words[i + 1], words[i]
        elif words:
            words[rng.randrange(len(words))] = rng.choice(rng.choice(pools))
    return " ".join(words)


def summarization_cases(rng, n):
    mixed = [ENGLISH, ENGLISH, CODE, UNICODE]
    cases = []
    for i in range(n):
        kind = i % 12
        ref = _sentence(rng, rng.randint(1, 25), mixed)
        if kind == 0:
            pred = ref
        elif kind == 1:
            pred = ""
        elif kind == 2:
            pred, ref = _sentence(rng, rng.randint(1, 10), mixed), ""
        elif kind == 3:
            pred = ref = ""
        elif kind == 4:
            pred, ref = rng.choice(ENGLISH), rng.choice(ENGLISH)
        elif kind == 5:
            pred, ref = _sentence(rng, rng.randint(1, 12), [ENGLISH]), _sentence(rng, rng.randint(1, 12), [UNICODE])
        elif kind == 6:
            pred, ref = _sentence(rng, rng.randint(1, 30), [CODE]), _sentence(rng, rng.randint(1, 30), [CODE])
        elif kind == 7:
            ref = _sentence(rng, rng.randint(150, 300), mixed)
            pred = _perturb(rng, ref, mixed)
        elif kind == 8:
            pred = ref.upper()
        elif kind == 9:
            pred = _sentence(rng, rng.randint(1, 3), mixed)
        else:
            pred = _perturb(rng, ref, mixed)
        cases.append([pred, ref])
    return cases


CODE_LINES = [
    "def add(a, b):", "    return a + b", "int main(void) {", "    return 0;", "}",
    "for (int i = 0; i < n; i++) {", "        x += <NUM_LIT>;", "    s = \"<STR_LIT:hello>\"",
    "public static void main(String[] args) {", "    System.out.println(\"héllo 😀\");",
    "    if x is None:", "        raise ValueError('bad')", "# comment", "    // TODO",
    "    std::vector<int> v{1, 2, 3};", "    c = '<CHAR_LIT>'", "\treturn self.value",
]


def _code(rng, lines):
    return "\n".join(rng.choice(CODE_LINES) for _ in range(lines))


def _char_edit(rng, s):
    chars = list(s)
    for _ in range(rng.randint(1, 6)):
        op = rng.random()
        if op < 0.4 and chars:
            del chars[rng.randrange(len(chars))]
        elif op < 0.8:
            chars.insert(rng.randint(0, len(chars)), rng.choice("abcxyz(){};_ \n é中😀"))
        elif chars:
            chars[rng.randrange(len(chars))] = rng.choice("qwe ")
    return "".join(chars)


def generation_cases(rng, n):
    cases = []
    for i in range(n):
        kind = i % 10
        ref = _code(rng, rng.randint(1, 12))
        if kind == 0:
            pred = ref
        elif kind == 1:
            pred = "  " + ref.replace(" ", "   ") + "\n\n"
        elif kind == 2:
            pred = ""
        elif kind == 3:
            pred, ref = _code(rng, 3), ""
        elif kind == 4:
            pred = ref = ""
        elif kind == 5:
            pred, ref = rng.choice("ab"), rng.choice("ab")
        elif kind == 6:
            ref = _code(rng, rng.randint(80, 200))
            pred = _char_edit(rng, ref)
        elif kind == 7:
            pred = "".join(rng.choice("αβγ中文😀") for _ in range(rng.randint(1, 40)))
        else:
            pred = _char_edit(rng, ref)
        cases.append([pred, ref])
    return cases


# ---------------------------------------------------------------------------------------
# References


class _NoWordNet:
    """A WordNet with no synsets: nltk's METEOR then runs only its exact and stem stages."""

    def synsets(self, word):
        return []


def wordnet_reader(root):
    """nltk's default `nltk.corpus.wordnet`, the reader `meteor_score` uses, on the WordNet 3.0
    database in `root`: the files are copied into `corpora/wordnet` of a temporary nltk data
    folder (nltk refuses paths outside its data folders, symbolic links included). Debian's
    wordnet-base lacks the `lexnames` file nltk's reader insists on; it names the
    lexicographer file of each synset, which synsets() and lemma names do not use, so
    placeholder names stand in for it. nltk also reads `index.sense` (wordnet-sense-index)."""
    import atexit
    import os
    import shutil
    import tempfile

    import nltk

    data = tempfile.mkdtemp(prefix="nltk-data-")
    atexit.register(shutil.rmtree, data, True)
    corpus = os.path.join(data, "corpora", "wordnet")
    os.makedirs(corpus)
    for f in os.listdir(root):
        if os.path.isfile(os.path.join(root, f)):
            shutil.copy(os.path.join(root, f), corpus)
    if not os.path.exists(os.path.join(corpus, "lexnames")):
        with open(os.path.join(corpus, "lexnames"), "w") as f:
            f.writelines(f"{i:02d}\tlexfile{i}\t0\n" for i in range(45))
    nltk.data.path[:] = [data]
    from nltk.corpus import wordnet

    wordnet.ensure_loaded()
    return wordnet


class _Identity:
    def stem(self, word):
        return word


def summarization(seed, n):
    from nltk.translate.bleu_score import corpus_bleu
    from nltk.translate.meteor_score import meteor_score
    from pycocoevalcap.cider.cider import Cider
    from rouge_score import rouge_scorer

    rng = random.Random(seed)
    cases = summarization_cases(rng, n)
    rouge = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=False)
    rouge_stem = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=True)
    out = {"cases": cases, "smoothed_bleu": [], "rouge_l": [], "rouge_l_stem": [], "meteor_stem": [], "meteor_exact": []}
    for pred, ref in cases:
        out["smoothed_bleu"].append(codexglue_bleu(pred, ref))
        out["rouge_l"].append(rouge.score(ref, pred)["rougeL"].fmeasure)
        out["rouge_l_stem"].append(rouge_stem.score(ref, pred)["rougeL"].fmeasure)
        out["meteor_stem"].append(meteor_score([ref.split()], pred.split(), wordnet=_NoWordNet()))
        out["meteor_exact"].append(
            meteor_score([ref.split()], pred.split(), stemmer=_Identity(), wordnet=_NoWordNet())
        )

    def corpus(idx):
        return corpus_bleu([[cases[i][1].split()] for i in idx], [cases[i][0].split() for i in idx])

    # nltk corpus BLEU: every example alone, consecutive chunks of 7, and the whole set.
    groups = [[i] for i in range(n)] + [list(range(i, min(i + 7, n))) for i in range(0, n, 7)]
    groups.append(list(range(n)))
    out["corpus_bleu"] = [[g, corpus(g)] for g in groups]

    # CIDEr: the whole set, and consecutive chunks of 10 (other document frequencies).
    def cider(idx):
        gts = {k: [cases[i][1]] for k, i in enumerate(idx)}
        res = {k: [cases[i][0]] for k, i in enumerate(idx)}
        mean, scores = Cider().compute_score(gts, res)
        return [float(mean), [float(s) for s in scores]]

    chunks = [list(range(n))] + [list(range(i, min(i + 10, n))) for i in range(0, n, 10)]
    out["cider"] = []
    for g in chunks:
        if any(cases[i][1].split() for i in g):  # pycocoevalcap fails when no reference has a word
            out["cider"].append([g] + cider(g))
    return out


def meteor_cases(rng, wn, n):
    """Docstring-like references, and predictions that swap words for WordNet synonyms (any
    lemma name of any synset: case kept, some with `_`), inflect them (regular endings, and
    irregular forms from WordNet's exception lists, e.g. ran, better, mice), or reorder them;
    a quarter are the general summarization cases."""
    words = sorted({w for w in ENGLISH if w.isalpha()} | {
        "make", "create", "build", "delete", "remove", "erase", "begin", "start", "end",
        "finish", "big", "large", "small", "little", "fast", "quick", "show", "display",
        "find", "search", "look", "check", "test", "read", "write", "send", "receive", "good",
        "well", "bad", "new", "old", "close", "open", "store", "save", "load", "key", "map",
        "table", "node", "tree", "graph", "path", "name", "type", "class", "method", "call",
        "user", "data", "information", "error", "mistake", "message", "request", "response",
        "quickly", "rapidly", "often", "again", "really", "easily", "directly", "currently",
        "already", "badly", "early", "late", "only", "just", "once", "first", "finally",
    })
    exceptions = sorted(
        (form, bases[0]) for pos in ("n", "v", "a", "r") for form, bases in wn._exception_map[pos].items()
        if bases and form.isalpha()
    )

    # Traps for a morphy that also applies the rules to a word with an exception entry, as
    # nltk's once did: (stem-stable exception form, a word only those rules would reach).
    from nltk.stem.porter import PorterStemmer

    stem = PorterStemmer().stem
    index = wn._lemma_pos_offset_map

    def names(form, pos):
        return {
            l.name()
            for o in index.get(form, {}).get(pos, [])
            for l in wn.synset_from_pos_and_offset(pos, o).lemmas()
            if "_" not in l.name()
        }

    traps = []
    for pos in "nvar":
        for form in sorted(wn._exception_map[pos]):
            if stem(form) != form:
                continue
            ruled = set()
            for old, new in wn.MORPHOLOGICAL_SUBSTITUTIONS[pos]:
                if form.endswith(old):
                    ruled |= names(form[: -len(old)] + new, pos)
            reached = {n for p in "nvar" for f in wn._morphy(form, p) for n in names(f, p)}
            for extra in sorted(ruled - reached):
                if stem(extra.lower()) == extra:
                    traps.append((form, extra))

    def synonym(w):
        names = sorted({l.name() for s in wn.synsets(w) for l in s.lemmas()})
        return rng.choice(names) if names else w

    def inflect(w):
        if rng.random() < 0.5:
            form, base = rng.choice(exceptions)
            return form
        return w + rng.choice(["s", "es", "ed", "ing", "er", "est", "ies", "men"])

    general = summarization_cases(rng, n // 4)
    cases = []
    for i in range(n - len(general)):
        ref = [rng.choice(words) for _ in range(rng.randint(1, 20))]
        if i % 5 == 4:
            form, base = rng.choice(exceptions)
            ref.insert(rng.randint(0, len(ref)), base)
        pred = []
        for w in ref:
            r = rng.random()
            if r < 0.35:
                pred.append(synonym(w))
            elif r < 0.5:
                pred.append(inflect(w))
            elif r < 0.55:
                pred.append(w.upper())
            elif r < 0.6:
                continue
            else:
                pred.append(w)
        if i % 6 == 5 and traps:
            for _ in range(rng.randint(1, 3)):
                form, extra = rng.choice(traps)
                pred.insert(rng.randint(0, len(pred)), form)
                ref.insert(rng.randint(0, len(ref)), extra)
        if i % 7 == 0:
            rng.shuffle(pred)
        if i % 11 == 0:
            ref, pred = pred, ref
        cases.append([" ".join(pred), " ".join(ref)])
    return cases + general


def meteor(root, seed, n):
    from nltk.translate.meteor_score import meteor_score

    wn = wordnet_reader(root)
    rng = random.Random(seed)
    cases = meteor_cases(rng, wn, n)
    out = {"cases": cases, "meteor": [], "meteor_stem": [], "meteor_exact": []}
    for pred, ref in cases:
        out["meteor"].append(meteor_score([ref.split()], pred.split(), wordnet=wn))
        out["meteor_stem"].append(meteor_score([ref.split()], pred.split(), wordnet=_NoWordNet()))
        out["meteor_exact"].append(
            meteor_score([ref.split()], pred.split(), stemmer=_Identity(), wordnet=_NoWordNet())
        )
    return out


def generation(seed, n):
    from fuzzywuzzy import fuzz as fw
    from rapidfuzz import fuzz

    rng = random.Random(seed)
    cases = generation_cases(rng, n)
    out = {"cases": cases, "exact_match": [], "edit_sim": [], "edit_sim_fuzzywuzzy": []}
    for pred, ref in cases:
        p, g = post_process(pred.strip()), post_process(ref)
        out["exact_match"].append(1.0 if p.split() == g.split() else 0.0)
        out["edit_sim"].append(fuzz.ratio(p, g))
        out["edit_sim_fuzzywuzzy"].append(float(fw.ratio(p, g)))
    return out


def porter(seed, n):
    from nltk.stem.porter import PorterStemmer

    rng = random.Random(seed)
    st = PorterStemmer()
    words = list(dict.fromkeys(ENGLISH + [w.lower() for w in ENGLISH]))
    letters = "aeiouybcdlmnrstgz"
    suffixes = ["", "s", "es", "ies", "ied", "ed", "ing", "eed", "ational", "tional", "alli", "logi",
                "fulli", "ousli", "ization", "ness", "ful", "ement", "ion", "ll", "e", "y", "*d"]
    while len(words) < n:
        stem = "".join(rng.choice(letters) for _ in range(rng.randint(1, 7)))
        words.append(stem + rng.choice(suffixes))
    words += ["", "a", "ab", "ABC", "Ab", "é", "éés", "日本", "x1y2", "_", "()", "(s", "a*d", "yy", "ys", "İes"]
    return {"words": words, "stems": [st.stem(w) for w in words]}


def classes():
    import unicodedata

    space, word, unassigned = [], [], []
    for cp in range(0x110000):
        if 0xD800 <= cp <= 0xDFFF:
            continue
        c = chr(cp)
        if c.isspace():
            space.append(cp)
        if re.fullmatch(r"\w", c):
            word.append(cp)
        if unicodedata.category(c) == "Cn":
            unassigned.append(cp)
    return {"unicode": unicodedata.unidata_version, "space": space, "word": word, "unassigned": unassigned}


def score(path):
    with open(path, encoding="utf-8") as f:
        spec = json.load(f)
    cases, groups = spec["cases"], spec.get("groups", {})
    n = len(cases)
    if spec["task"] == "generation":
        from rapidfuzz import fuzz

        pairs = [(post_process(p.strip()), post_process(r)) for p, r in cases]
        em = [1.0 if p.split() == r.split() else 0.0 for p, r in pairs]
        es = [fuzz.ratio(p, r) for p, r in pairs]

        def agg(idx):
            return {
                "exact_match": sum(em[i] for i in idx) / len(idx) * 100,
                "edit_sim": sum(es[i] for i in idx) / len(idx),
            }

    else:
        from nltk.translate.bleu_score import corpus_bleu
        from nltk.translate.meteor_score import meteor_score
        from pycocoevalcap.cider.cider import Cider
        from rouge_score import rouge_scorer

        rouge = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=False)
        sb = [codexglue_bleu(p, r) for p, r in cases]
        rl = [rouge.score(r, p)["rougeL"].fmeasure for p, r in cases]
        wn = wordnet_reader(spec["wordnet"])
        me = [meteor_score([r.split()], p.split(), wordnet=wn) for p, r in cases]
        _, ci = Cider().compute_score({i: [cases[i][1]] for i in range(n)}, {i: [cases[i][0]] for i in range(n)})

        def agg(idx):
            return {
                "smoothed_bleu": sum(sb[i] for i in idx) / len(idx),
                "corpus_bleu": corpus_bleu([[cases[i][1].split()] for i in idx], [cases[i][0].split() for i in idx]),
                "rouge_l": sum(rl[i] for i in idx) / len(idx),
                "meteor": sum(me[i] for i in idx) / len(idx),
                "cider": float(sum(ci[i] for i in idx) / len(idx)),
            }

    return {"all": agg(list(range(n))), "groups": {k: agg(v) for k, v in groups.items()}}


def main():
    warnings.filterwarnings("ignore")
    mode = sys.argv[1]
    if mode == "score":
        print(json.dumps(score(sys.argv[2])))
        return
    if mode == "classes":
        print(json.dumps(classes()))
        return
    if mode == "meteor":
        print(json.dumps(meteor(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))))
        return
    seed, n = int(sys.argv[2]), int(sys.argv[3])
    fn = {"summarization": summarization, "generation": generation, "porter": porter}[mode]
    print(json.dumps(fn(seed, n)))


if __name__ == "__main__":
    main()
