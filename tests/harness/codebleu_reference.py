# Scores cases with the `codebleu` PyPI package (k4black/codebleu, pinned in
# tests/requirements.txt), the reference the Rust port in eval/src/codebleu is checked against.
#
#   codebleu_reference.py CASES.json [--debug] [--no-examples] [--time]
#
# CASES.json: {"lang": "python"|"java"|"c"|"cpp",
#              "cases": [{"refs": [str, ...], "pred": str}, ...],
#              "groups": [[case index, ...], ...]}          (optional)
# Prints JSON: {"examples": [scores of calc_codebleu([refs], [pred]) per case],
#               "corpus": scores of calc_codebleu over all cases,
#               "groups": [scores of calc_codebleu over each group's cases],
#               "hash_seed": PYTHONHASHSEED, "versions": {...},
#               "seconds" / "cpu_seconds": wall / CPU time of the corpus call}
# where scores = {codebleu, ngram_match_score, weighted_ngram_match_score,
# syntax_match_score, dataflow_match_score}; each example also has parse_errors, the number
# of the trees parsed for it that have syntax errors. With --debug each example also carries the
# inputs of the syntax and data-flow matches (subtree s-expressions, normalised data flows).
#
# The package's data-flow match depends on the iteration order of Python sets of strings, so
# on the string hash seed: the script re-executes itself with PYTHONHASHSEED=0 unless the
# variable is set (the Rust port reproduces seed 0 by default).
import json, logging, os, sys, time

if "PYTHONHASHSEED" not in os.environ:
    os.environ["PYTHONHASHSEED"] = "0"
    os.execv(sys.executable, [sys.executable] + sys.argv)

from importlib.metadata import version

from codebleu import calc_codebleu
from codebleu.dataflow_match import dfg_function, get_data_flow, normalize_dataflow
from codebleu.parser import remove_comments_and_docstrings
from codebleu.utils import get_tree_sitter_language
from tree_sitter import Parser

# The package warns on stderr for every example without reference data flow.
logging.disable(logging.WARNING)

args = [a for a in sys.argv[1:] if not a.startswith("--")]
debug = "--debug" in sys.argv
with open(args[0], encoding="utf-8") as f:
    spec = json.load(f)
lang = spec["lang"]
cases = spec["cases"]


def score(idx):
    refs = [cases[i]["refs"] for i in idx]
    preds = [cases[i]["pred"] for i in idx]
    return calc_codebleu(refs, preds, lang)


def cleaned(case):
    # (prediction, reference) per reference as the package's syntax and data-flow matches
    # see them: comments removed, the prediction cleaned once more for every reference.
    cand = case["pred"].strip()
    for ref in case["refs"]:
        ref = ref.strip()
        try:
            cand = remove_comments_and_docstrings(cand, lang)
        except Exception:
            pass
        try:
            ref = remove_comments_and_docstrings(ref, lang)
        except Exception:
            pass
        yield cand, ref


def parse_errors(case):
    # How many of the trees the package parses for one case have syntax errors: there the
    # match depends on the tree-sitter version's error recovery.
    parser = Parser()
    parser.language = get_tree_sitter_language(lang)
    n = 0
    for cand, ref in cleaned(case):
        for code in (cand, ref):
            n += parser.parse(bytes(code, "utf8")).root_node.has_error
    return n


def subtrees(parser, code):
    # The package's get_all_sub_trees (syntax_match.py): the root and every node with children.
    out, stack = [], [parser.parse(bytes(code, "utf8")).root_node]
    while stack:
        node = stack.pop()
        out.append(str(node))
        stack.extend(c for c in node.children if len(c.children) != 0)
    return out


def debug_info(case):
    # Mirrors corpus_syntax_match / corpus_dataflow_match for one case, keeping the inputs.
    parser = Parser()
    parser.language = get_tree_sitter_language(lang)
    out = []
    for cand, ref in cleaned(case):
        out.append(
            {
                "cand_code": cand,
                "ref_code": ref,
                "cand_subtrees": subtrees(parser, cand),
                "ref_subtrees": subtrees(parser, ref),
                "cand_dfg": normalize_dataflow(get_data_flow(cand, [parser, dfg_function[lang]])),
                "ref_dfg": normalize_dataflow(get_data_flow(ref, [parser, dfg_function[lang]])),
            }
        )
    return out


result = {
    "hash_seed": os.environ["PYTHONHASHSEED"],
    "python": sys.version.split()[0],
    "versions": {
        p: version(p)
        for p in ["codebleu", "tree-sitter", "tree-sitter-" + lang]
    },
}
if "--no-examples" not in sys.argv:
    result["examples"] = [score([i]) for i in range(len(cases))]
    for ex, case in zip(result["examples"], cases):
        ex["parse_errors"] = parse_errors(case)
    if debug:
        for ex, case in zip(result["examples"], cases):
            ex["debug"] = debug_info(case)
start, cpu = time.perf_counter(), time.process_time()
result["corpus"] = score(range(len(cases)))
result["seconds"] = time.perf_counter() - start
result["cpu_seconds"] = time.process_time() - cpu
result["groups"] = [score(g) for g in spec.get("groups", [])]
json.dump(result, sys.stdout)
