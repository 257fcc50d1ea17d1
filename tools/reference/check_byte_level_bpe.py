#!/usr/bin/env python3
"""Side-by-side check: MixerLab's byte-level BPE tokenizer.json support against Hugging Face tokenizers.

Run by check_byte_level_bpe.sh, which makes the virtual environment with the pinned `tokenizers`. Trains a
GPT-2-style byte-level BPE (tokenizers.ByteLevelBPETokenizer) on the demo corpus, derives variants from
its tokenizer.json (add_prefix_space with "a b" merges; the Llama-3 form: a regex Split then ByteLevel,
with and without ignore_merges), and for each variant encodes every document of the demo corpora and a
list of awkward texts with Hugging Face and with `mixerlab tokenizer encode`, compares the ids and the
decoded text, and decodes seeded random id sequences with both (ill-formed UTF-8 included). Prints one
line per variant and a final IDENTICAL or DIFFERENT; exits 1 on any difference.

  check_byte_level_bpe.py --mixerlab BUILD/app/cli/mixerlab --work DIR CORPUS...
"""
import argparse
import json
import os
import random
import subprocess
import sys

import tokenizers
from tokenizers import ByteLevelBPETokenizer, Tokenizer

LLAMA3_PATTERN = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|"
    r"\s*[\r\n]+|\s+(?!\S)|\s+"
)

# Texts the corpora lack: other scripts, emoji sequences, digits, whitespace of every kind, contractions
# in capitals, special tokens inside text, and the one code point PCRE2's and Oniguruma's \s disagree on.
AWKWARD_TEXTS = [
    "caf\u00e9 \u732b \U0001F642 na\u00efve r\u00e9sum\u00e9",
    "\u65e5\u672c\u8a9e\u306e\u30c6\u30ad\u30b9\u30c8\u3002\u4e2d\u6587\uff0c\ud55c\uad6d\uc5b4",
    "\u0928\u092e\u0938\u094d\u0924\u0947 \u0645\u0631\u062d\u0628\u0627 \u05e9\u05dc\u05d5\u05dd \u0417\u0434\u0440\u0430\u0432\u0441\u0442\u0432\u0443\u0439",
    "family \U0001F468\u200d\U0001F469\u200d\U0001F467 flags \U0001F1EB\U0001F1F7 skin \U0001F44D\U0001F3FD",
    "1 12 123 1234 12345 1234567890 3.14159 1,000,000 \u0663\u0664\u0665\u0666 \u00bd \u2163",
    "a   b    c\t\td \t e\u00a0\u00a0f\u2003g\u3000h",
    "lines\n\n\nand\r\nwindows\r\n\r\nends\rmac",
    "trailing   ",
    "   leading",
    "\n\n\n",
    "IT'S WE'LL THEY'RE I'M YOU'VE HE'D DON'T it's we'll",
    "x'\u017f y'\u212a",
    "before<|endoftext|>after <|endoftext|> <|endoftext|><|endoftext|>",
    "mongolian\u180evowel\u180e separator \u180e",
    "zero\u200bwidth soft\u00adhyphen \u2028line\u2029para \u0085nel",
    "!!! ??? ... --- *** \"quoted\" (parens) [brackets] {braces} <html> </tag>",
    "combining e\u0301 a\u0308 \ufb01 ligature \u212b",
    "x" * 3000 + " " + " " * 5000 + "y",
    "",
]


def run(command):
    return subprocess.run(command, check=True, capture_output=True).stdout


def train_gpt2_style(corpora, path, vocab_size):
    tokenizer = ByteLevelBPETokenizer(add_prefix_space=False)
    tokenizer.train(files=corpora, vocab_size=vocab_size, min_frequency=2, special_tokens=["<|endoftext|>"],
                    show_progress=False)
    tokenizer.save(path)


def write_variants(base_path, work):
    base = json.load(open(base_path, encoding="utf-8"))
    variants = {"gpt2": base_path}

    prefix = json.loads(json.dumps(base))
    prefix["pre_tokenizer"]["add_prefix_space"] = True
    prefix["model"]["merges"] = [m if isinstance(m, str) else " ".join(m) for m in prefix["model"]["merges"]]
    variants["gpt2-prefix-space-string-merges"] = prefix

    for ignore_merges in (True, False):
        llama = json.loads(json.dumps(base))
        llama["pre_tokenizer"] = {
            "type": "Sequence",
            "pretokenizers": [
                {"type": "Split", "pattern": {"Regex": LLAMA3_PATTERN}, "behavior": "Isolated", "invert": False},
                {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False},
            ],
        }
        llama["model"]["ignore_merges"] = ignore_merges
        size = len(llama["model"]["vocab"]) + len(
            [t for t in llama["added_tokens"] if t["content"] not in llama["model"]["vocab"]])
        for offset, content in enumerate(["<|begin_of_text|>", "<|end_of_text|>"]):
            llama["added_tokens"].append({"id": size + offset, "content": content, "single_word": False,
                                          "lstrip": False, "rstrip": False, "normalized": False, "special": True})
        variants["llama3" + ("" if ignore_merges else "-no-ignore-merges")] = llama

    paths = {}
    for name, spec in variants.items():
        if isinstance(spec, str):
            paths[name] = spec
            continue
        paths[name] = os.path.join(work, name + ".json")
        with open(paths[name], "w", encoding="utf-8") as out:
            json.dump(spec, out, ensure_ascii=False)
    return paths


def check_variant(name, path, mixerlab, corpora, rng):
    hf = Tokenizer.from_file(path)
    documents = tokens = id_mismatches = decode_mismatches = 0
    examples = []

    def compare(text, ours, ours_decoded):
        nonlocal documents, tokens, id_mismatches, decode_mismatches
        theirs = hf.encode(text, add_special_tokens=False).ids
        documents += 1
        tokens += len(theirs)
        if ours != theirs:
            id_mismatches += 1
            if len(examples) < 3:
                examples.append(f"ids differ for {text[:60]!r}: HF {theirs[:12]} MixerLab {ours[:12]}")
        if ours_decoded != hf.decode(theirs, skip_special_tokens=False):
            decode_mismatches += 1
            if len(examples) < 3:
                examples.append(f"decode differs for {text[:60]!r}")

    for corpus in corpora:
        for line in run([mixerlab, "tokenizer", "encode", "--model", path, "--corpus", corpus]).splitlines():
            record = json.loads(line)
            compare(record["text"], record["ids"], record["decoded"])
    for text in AWKWARD_TEXTS:
        pieces = json.loads(run([mixerlab, "tokenizer", "encode", "--model", path, "--text", text]))
        ids = [p["id"] for p in pieces]
        decoded = run([mixerlab, "tokenizer", "decode", "--model", path, "--ids", *map(str, ids)]) if ids else b"\n"
        compare(text, ids, decoded.decode("utf-8")[:-1])

    # Random ids: most sequences of byte-level tokens are not UTF-8, so this checks the lossy decode.
    random_mismatches = 0
    for _ in range(20):
        ids = [rng.randrange(hf.get_vocab_size()) for _ in range(rng.randrange(1, 12))]
        ours = run([mixerlab, "tokenizer", "decode", "--model", path, "--ids", *map(str, ids)]).decode("utf-8")[:-1]
        if ours != hf.decode(ids, skip_special_tokens=False):
            random_mismatches += 1
            if len(examples) < 3:
                examples.append(f"decode of random ids {ids} differs")

    same = id_mismatches == 0 and decode_mismatches == 0 and random_mismatches == 0
    print(f"{name}: {documents} documents, {tokens} tokens compared; {id_mismatches} with other ids, "
          f"{decode_mismatches} decoded differently; {random_mismatches} of 20 random id lists decoded "
          f"differently: {'identical' if same else 'DIFFERENT'}")
    for example in examples:
        print("    " + example)
    return same


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mixerlab", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--vocab-size", type=int, default=2048)
    parser.add_argument("corpora", nargs="+")
    args = parser.parse_args()

    print(f"tokenizers {tokenizers.__version__}; vocab {args.vocab_size}; corpora {', '.join(args.corpora)}")
    base = os.path.join(args.work, "gpt2.json")
    train_gpt2_style(args.corpora[:1], base, args.vocab_size)
    rng = random.Random(20240917)
    results = [check_variant(name, path, args.mixerlab, args.corpora, rng)
               for name, path in write_variants(base, args.work).items()]
    print("IDENTICAL" if all(results) else "DIFFERENT")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
