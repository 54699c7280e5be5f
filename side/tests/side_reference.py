"""SIDE as its README computes it (transformers AutoTokenizer + AutoModel, padding=True,
truncation=True, mean pooling under the attention mask, F.normalize, cosine similarity), for
side/tests/it/real_model.rs: `python side_reference.py MODEL_DIR < pairs.json` prints one score
per [code, summary] pair, each pair encoded as one padded batch as in the README.
"""
import json
import sys

import torch
import torch.nn.functional as F
from transformers import AutoModel, AutoTokenizer


def main():
    model_dir = sys.argv[1]
    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModel.from_pretrained(model_dir).eval()
    out = []
    for code, summary in json.load(sys.stdin):
        enc = tokenizer([code, summary], padding=True, truncation=True, return_tensors="pt")
        with torch.no_grad():
            states = model(**enc)[0]
        mask = enc["attention_mask"].unsqueeze(-1).expand(states.size()).float()
        pooled = torch.sum(states * mask, 1) / torch.clamp(mask.sum(1), min=1e-9)
        e = F.normalize(pooled, p=2, dim=1)
        out.append(float(torch.dot(e[0], e[1])))
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
