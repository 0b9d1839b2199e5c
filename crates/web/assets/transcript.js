// The call page's transcript: each turn with its words, a word or a turn plays from its moment,
// the word being said is highlighted and kept in view, personal data is marked with its type,
// and a quote from the analysis links to the moment it was said.

import { clock, h } from "/app/dom.js";
import { levelOf, t } from "/app/i18n.js";

/** The index of the last word starting at or before `ms` (words are in time order). */
function wordAt(words, ms) {
  let lo = 0,
    hi = words.length - 1,
    found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (words[mid].startMs <= ms) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/** Words' folded text, for finding a quote's moment. */
const fold = (s) =>
  s
    .toLowerCase()
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();

/** Each word's index to the turn of its speaker that it falls in. */
function wordsByTurn(turns, words) {
  // One pass over both (both are in time order): a one-hour call has some 10,000 words in 700
  // turns.
  const byTurn = turns.map(() => []);
  const turnsOf = new Map();
  turns.forEach((turn, i) => {
    if (!turnsOf.has(turn.speakerId)) turnsOf.set(turn.speakerId, []);
    turnsOf.get(turn.speakerId).push(i);
  });
  const cursor = new Map();
  words.forEach((w, i) => {
    const list = turnsOf.get(w.speakerId);
    if (!list) return;
    let at = cursor.get(w.speakerId) || 0;
    while (at + 1 < list.length && turns[list[at + 1]].startMs <= w.startMs) at++;
    cursor.set(w.speakerId, at);
    const turn = turns[list[at]];
    if (w.startMs >= turn.startMs && w.startMs < Math.max(turn.endMs, turn.startMs + 1)) byTurn[list[at]].push(i);
  });
  return byTurn;
}

/**
 * The transcript of `call` with the word timeline, speakers by id (with their colour), and
 * `seek(ms)` to play from a moment.
 */
export function transcript(call, timeline, speakers, seek) {
  const words = timeline.words;
  // Each word once, as a button-like span in its turn; personal data keeps its type beside it.
  const inPii = (w) => timeline.piiSpans.find((p) => w.startMs < p.endMs && w.endMs > p.startMs);
  // Made directly rather than through h(): there may be 10,000 of them.
  const spans = words.map((w, i) => {
    const pii = timeline.piiSpans.length ? inPii(w) : null;
    const el = document.createElement("span");
    // A word the recognizer was unsure of is underlined, so a reader knows where to listen.
    const unsure = w.confidence != null && w.confidence < 0.5;
    el.className = `w${pii ? " pii" : ""}${unsure ? " unsure" : ""}`;
    el.textContent = w.text;
    el.dataset.i = i;
    el.dataset.start = w.startMs;
    // The type is part of the word's name, so a screen reader says it, not only a tooltip.
    if (pii) {
      el.title = pii.type;
      el.setAttribute("aria-label", `${w.text} (${pii.type})`);
    }
    return el;
  });
  const byTurn = wordsByTurn(call.turns, words);
  // Each turn's sentiment (−1…1), when the analysis scored it: marked beside the speaker's name.
  const scores = call.summary?.sentiment?.turnScores || [];
  const mood = (score) => {
    if (score === null || score === undefined) return null;
    const level = levelOf(score);
    return level === "neutral" ? null : h("span", { class: `mood level-${level}` }, `${t(level)} ${score.toFixed(2)}`);
  };
  const turns = call.turns.map((turn, index) => {
    const speaker = speakers.get(turn.speakerId) || { name: turn.speakerId, colour: 0 };
    const body = byTurn[index].length ? byTurn[index].flatMap((i) => [spans[i], " "]) : [turn.text];
    const piiTypes = [...new Set(timeline.piiSpans.filter((p) => p.turn === index).map((p) => p.type))];
    return h(
      "li",
      { class: `turn speaker-${speaker.colour}`, dataset: { start: turn.startMs } },
      h(
        "button",
        {
          type: "button",
          class: "when",
          "aria-label": `${t("moment")} ${clock(turn.startMs)}`,
          onclick: () => seek(turn.startMs),
        },
        clock(turn.startMs),
      ),
      h("span", { class: "who" }, speaker.name, scores.length === call.turns.length && mood(scores[index])),
      h("p", { class: "said" }, body),
      piiTypes.length > 0 &&
        h(
          "span",
          { class: "pii-types" },
          piiTypes.map((type) => h("span", { class: "badge pii-badge" }, type)),
        ),
    );
  });

  // The keyboard reaches words one at a time: one word is in the tab order (the first, then the
  // last one moved to), the arrow keys move between words and Enter or Space plays from there.
  // That word is a button to assistive technology, named by the word; the others stay text, so
  // a screen reader reads the transcript as prose rather than as 10,000 buttons.
  const reachable = (el, yes) => {
    if (yes) {
      el.tabIndex = 0;
      el.setAttribute("role", "button");
    } else {
      el.removeAttribute("tabindex");
      el.removeAttribute("role");
    }
  };
  if (spans.length) reachable(spans[0], true);
  let focusAt = 0;
  const moveTo = (i) => {
    if (i < 0 || i >= spans.length) return;
    reachable(spans[focusAt], false);
    focusAt = i;
    reachable(spans[i], true);
    spans[i].focus();
  };
  const element = h(
    "ol",
    {
      class: "transcript",
      id: "transcript",
      "aria-label": t("transcriptKeys"),
      onclick: (e) => {
        const word = e.target.closest(".w");
        if (word) seek(Number(word.dataset.start));
      },
      onkeydown: (e) => {
        const word = e.target.closest(".w");
        if (!word) return;
        const i = Number(word.dataset.i);
        if (e.key === "ArrowRight" || e.key === "ArrowDown") {
          e.preventDefault();
          moveTo(e.key === "ArrowDown" ? Math.min(i + 10, spans.length - 1) : i + 1);
        } else if (e.key === "ArrowLeft" || e.key === "ArrowUp") {
          e.preventDefault();
          moveTo(e.key === "ArrowUp" ? Math.max(i - 10, 0) : i - 1);
        } else if (e.key === "Enter" || e.key === " ") {
          e.preventDefault();
          seek(Number(word.dataset.start));
        }
      },
    },
    turns,
  );

  let current = -1;
  /** Marks the word said at `ms`, scrolling it into view when it is out of it. */
  const highlight = (ms) => {
    const at = wordAt(words, ms + 1);
    if (at === current) return;
    if (current >= 0) spans[current].classList.remove("now");
    current = at;
    if (at < 0) return;
    const el = spans[at];
    el.classList.add("now");
    const box = element.getBoundingClientRect(),
      r = el.getBoundingClientRect();
    if (r.top < box.top || r.bottom > box.bottom) el.scrollIntoView({ block: "center", behavior: "smooth" });
  };

  let folded = null;
  /** The moment a quote was said: the first word where the quote's words begin. */
  const momentOf = (quote) => {
    const target = fold(quote || "")
      .split(" ")
      .filter(Boolean)
      .slice(0, 4);
    if (!target.length) return null;
    folded ??= words.map((w) => fold(w.text));
    for (let i = 0; i < folded.length; i++) {
      if (target.every((word, k) => folded[i + k] === word)) return words[i].startMs;
    }
    return null;
  };
  /** A quote, as a link to its moment when it is found in the words. */
  const quote = (text) => {
    const ms = momentOf(text);
    return ms === null
      ? h("q", {}, text)
      : h(
          "a",
          {
            href: "#",
            class: "quote",
            onclick: (e) => {
              e.preventDefault();
              seek(ms);
            },
          },
          h("q", {}, text),
        );
  };

  return { element, highlight, momentOf, quote };
}
