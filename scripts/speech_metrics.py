#!/usr/bin/env python3
"""Scores speech recognition and speaker attribution for scripts/bench-speech.

  speech_metrics.py wer REF_TEXT HYP_TEXT          word error rate of one pair (files)
  speech_metrics.py der REF.rttm CALL.json         diarization error rate of a call's turns
  speech_metrics.py stereo SCRIPT.tsv CALL.json    share of words on the right speaker

Standard library only. Text is normalised before scoring: lower case, punctuation removed
(apostrophes kept), a few spelled-out forms made equal ("mr" and "mister").
"""
import json
import re
import sys

EQUIVALENT = {"mr": "mister", "mrs": "missus", "dr": "doctor", "ok": "okay", "&": "and"}


def words(text):
    text = text.lower().replace("-", " ")
    text = re.sub(r"[^\w' ]+", " ", text)
    out = []
    for w in text.split():
        w = w.strip("'")
        if w:
            out.append(EQUIVALENT.get(w, w))
    return out


def edit_distance(ref, hyp):
    """Levenshtein distance over words (substitutions, deletions, insertions)."""
    previous = list(range(len(hyp) + 1))
    for i, r in enumerate(ref, 1):
        current = [i] + [0] * len(hyp)
        for j, h in enumerate(hyp, 1):
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (r != h))
        previous = current
    return previous[-1]


def wer(ref_text, hyp_text):
    ref, hyp = words(ref_text), words(hyp_text)
    return edit_distance(ref, hyp), len(ref)


def read_rttm(path):
    segments = []
    for line in open(path):
        parts = line.split()
        if parts and parts[0] == "SPEAKER":
            start, duration = float(parts[3]), float(parts[4])
            segments.append((start, start + duration, parts[7]))
    return segments


def frames(segments, step=0.01):
    """Speaker sets per 10 ms frame."""
    end = max((s[1] for s in segments), default=0.0)
    table = [set() for _ in range(int(end / step) + 2)]
    for start, stop, who in segments:
        for f in range(int(round(start / step)), int(round(stop / step))):
            table[f].add(who)
    return table


def der(ref_segments, hyp_segments):
    """Frame-level diarization error rate (missed speech + false alarm + confusion) over the
    reference speaker time, with the best one-to-one mapping of hypothesis to reference
    speakers. No collar."""
    ref, hyp = frames(ref_segments), frames(hyp_segments)
    n = max(len(ref), len(hyp))
    ref += [set()] * (n - len(ref))
    hyp += [set()] * (n - len(hyp))
    ref_speakers = sorted({s[2] for s in ref_segments})
    hyp_speakers = sorted({s[2] for s in hyp_segments})
    # Overlap time of each pair, then the best one-to-one mapping over all permutations (the
    # calls measured here have two to four speakers).
    import itertools

    overlap = {(h, r): 0 for h in hyp_speakers for r in ref_speakers}
    for rf, hf in zip(ref, hyp):
        for h in hf:
            for r in rf:
                overlap[(h, r)] += 1
    best, best_map = -1, {}
    k = min(len(hyp_speakers), len(ref_speakers))
    for hs in itertools.permutations(hyp_speakers, k):
        for rs in itertools.permutations(ref_speakers, k):
            score = sum(overlap[(h, r)] for h, r in zip(hs, rs))
            if score > best:
                best, best_map = score, dict(zip(hs, rs))
    total = miss = false_alarm = confusion = 0
    for rf, hf in zip(ref, hyp):
        total += len(rf)
        miss += max(0, len(rf) - len(hf))
        false_alarm += max(0, len(hf) - len(rf))
        mapped = {best_map.get(h) for h in hf}
        confusion += min(len(rf), len(hf)) - len(rf & mapped)
    return {
        "der": (miss + false_alarm + confusion) / max(total, 1),
        "missed": miss / max(total, 1),
        "falseAlarm": false_alarm / max(total, 1),
        "confusion": confusion / max(total, 1),
        "speakersFound": len(hyp_speakers),
        "speakersInReference": len(ref_speakers),
    }


def call_segments(call):
    return [(t["startMs"] / 1000.0, t["endMs"] / 1000.0, t["speakerId"]) for t in call["turns"]]


def stereo(script_path, call):
    """The script holds `start_s<TAB>speaker<TAB>text` lines: when each line was spoken and by
    whom. A word is on the right speaker when the turn holding it belongs to the speaker whose
    line covers the word's time."""
    lines = []
    for raw in open(script_path):
        start, who, text = raw.rstrip("\n").split("\t")
        lines.append((float(start), who, text))
    names = {s["speakerId"]: s["name"] for s in call["speakers"]}
    right = total = 0
    for turn in call["turns"]:
        middle = (turn["startMs"] + turn["endMs"]) / 2000.0
        owner = max((l for l in lines if l[0] <= middle), key=lambda l: l[0], default=lines[0])
        n = len(words(turn["text"]))
        total += n
        if names.get(turn["speakerId"]) == owner[1]:
            right += n
    return right, total


def main():
    mode = sys.argv[1]
    if mode == "wer":
        errors, n = wer(open(sys.argv[2]).read(), open(sys.argv[3]).read())
        print(json.dumps({"errors": errors, "words": n, "wer": errors / max(n, 1)}))
    elif mode == "der":
        call = json.load(open(sys.argv[3]))
        print(json.dumps(der(read_rttm(sys.argv[2]), call_segments(call))))
    elif mode == "stereo":
        right, total = stereo(sys.argv[2], json.load(open(sys.argv[3])))
        print(json.dumps({"rightWords": right, "words": total, "share": right / max(total, 1)}))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
