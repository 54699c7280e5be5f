"""Makes the tiny MPNet checkpoint and the reference values of side/tests/it/reference.rs.

A random MPNet (fixed seed, 2 layers, hidden size 32) with an MPNet-style WordPiece tokenizer
trained on a small text, saved both as `model.safetensors` and as `pytorch_model.bin`, and the
scores of the SIDE recipe (the README of antonio-mastropaolo/code-summarization-metric:
AutoTokenizer + AutoModel, padding=True, truncation=True, mean pooling under the attention mask,
F.normalize, cosine similarity) on the cases below, plus the tokenizer's ids of generated
strings. The outputs are committed; rerun this (needs side/tests/requirements-torch.txt, about
5.6 GB with torch's CUDA libraries) only to change them: `scripts/side-reference.sh`.
"""
import json
import random
import shutil
import sys
from pathlib import Path

import torch
import torch.nn.functional as F
from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors, trainers
from transformers import AutoModel, AutoTokenizer, MPNetConfig, MPNetModel

HERE = Path(__file__).resolve().parent
OUT = HERE / "data"

CORPUS = [
    "public Object pop() throws EmptyStackException { return stack.remove(stack.size() - 1); }",
    "pop the top of the stack", "Returns the number of elements in this list.",
    "def get_vid_from_url(url): return match1(url, r'youtu\\.be/([^?]+)')",
    "Extracts video ID from URL.", "static int add(int a, int b) { return a + b; }",
    "Adds two integers and returns the sum.", "for (int i = 0; i < n; i++) { sum += a[i]; }",
    "Reads the configuration file and returns a dictionary of settings.",
    "if (key == null) throw new NullPointerException(\"key\");",
    "Über café naïve résumé 数据 кодирование",
] * 20

CASES = [
    ["public Object pop() throws EmptyStackException {\n  try {\n    Object aObject = this.stackElements.get(stackElements.size() - 1);\n    stackElements.remove(stackElements.size() - 1);\n    return aObject;\n  } catch (Exception e) {\n    throw new EmptyStackException(e);\n  }\n}", "pop the top of the stack"],
    ["static int add(int a, int b) { return a + b; }", "Adds two integers."],
    ["static int add(int a, int b) { return a + b; }", ""],
    ["String s = \"<pad>\" + x; // <pad> <s> </s>", "Concatenates <pad>."],
    ["def f(x):\n\treturn x\x00\x1f\u200b", "Identity \u00e9\u4e2d\u0416 function"],
    [" ".join(["sum += a[i];"] * 400), "Sums a very long array past the 512-token limit."],
]


def mean_pooling(model_output, attention_mask):
    token_embeddings = model_output[0]
    mask = attention_mask.unsqueeze(-1).expand(token_embeddings.size()).float()
    return torch.sum(token_embeddings * mask, 1) / torch.clamp(mask.sum(1), min=1e-9)


def side(tokenizer, model, texts):
    enc = tokenizer(texts, padding=True, truncation=True, return_tensors="pt")
    with torch.no_grad():
        out = model(**enc)
    return F.normalize(mean_pooling(out, enc["attention_mask"]), p=2, dim=1)


def reference_values(tokenizer, model, strings=None):
    pairs = []
    for code, summary in CASES:
        e = side(tokenizer, model, [code, summary])
        pairs.append({"code": code, "summary": summary,
                      "side": float(torch.dot(e[0], e[1])), "code_embedding": e[0].tolist()})
    # All cases in one padded batch: the same scores (padding is masked).
    texts = [t for c in CASES for t in c]
    batch = side(tokenizer, model, texts)
    batched = [float(torch.dot(batch[2 * i], batch[2 * i + 1])) for i in range(len(CASES))]
    if strings is None:
        rng = random.Random(7)
        alphabet = list("abcdefghijklmnopqrstuvwxyz ABCXYZ0123456789(){}[];.,_\t\n\"'<>/\\") + \
            ["<pad>", "<s>", "</s>", "<mask>", "\u00e9", "\u4e2d", "\u0416", "\x00", "\x1f", "\u200b", "\U0001F600"]
        strings = ["", " ", "<pad>", "<s></s>", "pop the top of the stack"]
        strings += ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 80))) for _ in range(300)]
        strings.append("word " * 700)
    ids = [tokenizer(s, truncation=True)["input_ids"] for s in strings]
    return {"pairs": pairs, "batched": batched, "strings": strings, "ids": ids}


def check():
    want = json.loads((OUT / "reference.json").read_text())
    for name in ["tiny-st", "tiny-bin"]:
        tokenizer = AutoTokenizer.from_pretrained(OUT / name)
        model = AutoModel.from_pretrained(OUT / name).eval()
        got = reference_values(tokenizer, model, want["strings"])
        assert got["ids"] == want["ids"], f"{name}: token ids differ"
        for g, w in zip(got["pairs"], want["pairs"]):
            assert abs(g["side"] - w["side"]) < 1e-6, (name, g["summary"], g["side"], w["side"])
        for g, w in zip(got["batched"], want["batched"]):
            assert abs(g - w) < 1e-6, (name, g, w)
    print("reference.json agrees with transformers on the committed checkpoints")


def main():
    assert sys.version_info[:2] == (3, 11)
    if "--check" in sys.argv:
        return check()
    shutil.rmtree(OUT / "tiny-st", ignore_errors=True)
    shutil.rmtree(OUT / "tiny-bin", ignore_errors=True)
    tok = Tokenizer(models.WordPiece(unk_token="<unk>"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    specials = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
    tok.train_from_iterator(CORPUS, trainers.WordPieceTrainer(vocab_size=400, special_tokens=specials))
    tok.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>", pair="<s> $A </s> </s> $B </s>",
        special_tokens=[("<s>", 0), ("</s>", 2)])
    # Settings the reference call overrides (padding=True, truncation at model_max_length):
    # codemine must ignore them too.
    tok.enable_truncation(max_length=16)
    tok.enable_padding(length=40, pad_id=1, pad_token="<pad>")
    vocab = tok.get_vocab_size()

    torch.manual_seed(20240415)
    cfg = MPNetConfig(vocab_size=vocab, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                      intermediate_size=64, max_position_embeddings=514,
                      relative_attention_num_buckets=32, pad_token_id=1, bos_token_id=0,
                      eos_token_id=2, hidden_act="gelu", layer_norm_eps=1e-5)
    model = MPNetModel(cfg, add_pooling_layer=False)
    with torch.no_grad():
        for p in model.parameters():
            p.normal_(0.0, 0.3)
        # Layer norms near the identity, so that the pooled states, not the last bias,
        # decide the embeddings.
        for m in model.modules():
            if isinstance(m, torch.nn.LayerNorm):
                m.weight.normal_(1.0, 0.2)
                m.bias.normal_(0.0, 0.05)
    model.eval()
    tok_config = {"model_max_length": 512, "tokenizer_class": "MPNetTokenizer", "do_lower_case": True,
                  "bos_token": "<s>", "eos_token": "</s>", "sep_token": "</s>", "cls_token": "<s>",
                  "unk_token": "<unk>", "pad_token": "<pad>", "mask_token": "<mask>"}
    for name in ["tiny-st", "tiny-bin"]:
        d = OUT / name
        model.save_pretrained(d)
        if name == "tiny-bin":
            # transformers 5 writes safetensors only; the .bin is torch's zip pickle of the
            # state dict, as older checkpoints (and SIDE's) have it.
            (d / "model.safetensors").unlink()
            torch.save(model.state_dict(), d / "pytorch_model.bin")
        tok.save(str(d / "tokenizer.json"))
        (d / "tokenizer_config.json").write_text(json.dumps(tok_config, indent=1))

    tokenizer = AutoTokenizer.from_pretrained(OUT / "tiny-st")
    loaded = AutoModel.from_pretrained(OUT / "tiny-st").eval()
    ref = reference_values(tokenizer, loaded)
    (OUT / "reference.json").write_text(json.dumps(ref, ensure_ascii=False))
    pairs, strings = ref["pairs"], ref["strings"]
    print(f"vocab {vocab}, {len(pairs)} pairs, {len(strings)} strings -> {OUT}")


if __name__ == "__main__":
    main()
