"""PyTorch's side of the SIDE benchmark: the same pairs as bench_side.rs, the README recipe
(transformers AutoModel + masked mean pooling + normalize), batched and grouped by length the
same way, with `torch.set_num_threads(N)`.

Usage: python bench_side_torch.py --model DIR --pairs PAIRS.jsonl [--threads N] [--limit N] [--batch N]
(needs side/tests/requirements-torch.txt)
"""
import argparse
import json
import resource
import time

import torch
import torch.nn.functional as F
from transformers import AutoModel, AutoTokenizer


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    ap.add_argument("--pairs", required=True)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--batch", type=int, default=32)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    pairs = [json.loads(l) for l in open(a.pairs)][: a.limit]
    t = time.perf_counter()
    tok = AutoTokenizer.from_pretrained(a.model)
    model = AutoModel.from_pretrained(a.model).eval()
    load = time.perf_counter() - t
    texts = [x for p in pairs for x in (p["code"], p["docstring"])]
    ids = [tok(x, truncation=True)["input_ids"] for x in texts]
    order = sorted(range(len(texts)), key=lambda i: (len(ids[i]), i))
    emb = [None] * len(texts)
    t = time.perf_counter()
    with torch.no_grad():
        for k in range(0, len(order), a.batch):
            chunk = order[k : k + a.batch]
            enc = tok([texts[i] for i in chunk], padding=True, truncation=True, return_tensors="pt")
            states = model(**enc)[0]
            mask = enc["attention_mask"].unsqueeze(-1).expand(states.size()).float()
            pooled = F.normalize(torch.sum(states * mask, 1) / torch.clamp(mask.sum(1), min=1e-9), p=2, dim=1)
            for j, i in enumerate(chunk):
                emb[i] = pooled[j]
    secs = time.perf_counter() - t
    scores = [float(torch.dot(emb[2 * i], emb[2 * i + 1])) for i in range(len(pairs))]
    tokens = sum(len(x) for x in ids)
    print(json.dumps({
        "impl": f"PyTorch {torch.__version__}", "threads": a.threads, "batch": a.batch,
        "pairs": len(pairs), "tokens": tokens, "load_s": load, "seconds": secs,
        "pairs_per_s": len(pairs) / secs, "tokens_per_s": tokens / secs,
        "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "mean_side": sum(scores) / len(scores),
    }))


if __name__ == "__main__":
    main()
