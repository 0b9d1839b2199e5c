#!/usr/bin/env python3
"""Speaks a corpus split's calls into mono WAV files with RTTM references, for diarize_eval.

The calls sound as analysis_e2e's `--mono` makes them (crates/server/examples/support/spoken.rs:
espeak-ng, a voice, pitch and speed per party, 8 kHz, half a second between turns, both parties
in one channel), resampled to the 16 kHz diarize_eval reads. Each call is written once; a file
already there is kept.

    scripts/mono-calls.py CORPUS.json SPLIT LANGUAGE OUT_DIR
"""
import array
import json
import os
import subprocess
import sys
import tempfile
import wave

# (espeak-ng voice, pitch, words per minute) of each party, as spoken.rs has them.
VOICES = {
    ("en", True): ("en-gb", "45", "165"),
    ("en", False): ("en-us", "70", "150"),
    ("pl", True): ("pl", "40", "160"),
    ("pl", False): ("pl", "75", "145"),
}
RATE = 8000
GAP = RATE // 2


def speak(text, voice, scratch):
    """One turn's 8 kHz samples."""
    name, pitch, speed = voice
    raw, phone = os.path.join(scratch, "raw.wav"), os.path.join(scratch, "8k.wav")
    subprocess.run(["espeak-ng", "-v", name, "-p", pitch, "-s", speed, "-w", raw, text], check=True)
    subprocess.run(["sox", "-R", raw, "-r", str(RATE), "-c", "1", "-b", "16", phone], check=True, stderr=subprocess.DEVNULL)
    with wave.open(phone) as w:
        return array.array("h", w.readframes(w.getnframes()))


def main():
    corpus, split, language, out = sys.argv[1:5]
    os.makedirs(out, exist_ok=True)
    calls = [c for c in json.load(open(corpus))["calls"] if c["split"] == split and c["language"] == language]
    with tempfile.TemporaryDirectory() as scratch:
        for call in calls:
            wav = os.path.join(out, call["id"] + ".wav")
            if os.path.exists(wav):
                continue
            mix, rows = array.array("h"), []
            for party, text in call["turns"]:
                agent = party == "agent"
                said = speak(text, VOICES[(language, agent)], scratch)
                rows.append(f"SPEAKER {call['id']} 1 {len(mix) / RATE:.3f} {len(said) / RATE:.3f} <NA> <NA> {'agent' if agent else 'customer'} <NA> <NA>")
                mix.extend(said)
                mix.extend([0] * GAP)
            mono = os.path.join(scratch, "mono.wav")
            with wave.open(mono, "wb") as w:
                w.setnchannels(1)
                w.setsampwidth(2)
                w.setframerate(RATE)
                w.writeframes(mix.tobytes())
            subprocess.run(["sox", "-R", mono, "-r", "16000", wav + ".part.wav"], check=True, stderr=subprocess.DEVNULL)
            with open(os.path.join(out, call["id"] + ".rttm"), "w") as f:
                f.write("\n".join(rows) + "\n")
            os.replace(wav + ".part.wav", wav)
    print(len(calls))


if __name__ == "__main__":
    main()
