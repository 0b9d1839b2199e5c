// A call's characteristics on the call page: the timeline under the player (who talks when,
// the pauses coloured by what fills them, the interruptions), and a card with the figures,
// per speaker and per quarter, whose pauses and interruptions play from their moment.

import { clock, h } from "/app/dom.js";
import { count, t } from "/app/i18n.js";

/** At most this many pauses and interruptions are listed on the card (the timeline shows all). */
const LISTED = 12;

const seconds = (ms) => clock(ms);
const percent = (share) => `${Math.round(share * 100)}%`;
const decibels = (db) => (db == null ? "–" : `${db.toFixed(1)} dB`);

/** Places `el` from `startMs` to `endMs` of `durationMs`, through the CSSOM (the policy forbids
 *  inline style attributes, not style properties). */
function place(el, startMs, endMs, durationMs) {
  el.style.left = `${(100 * startMs) / durationMs}%`;
  el.style.width = `${Math.max(0.3, (100 * (endMs - startMs)) / durationMs)}%`;
  return el;
}

/**
 * The timeline of `call`: a lane per speaker with their turns, a lane of the pauses nobody talks
 * in, and marks where one speaker cut into another. Clicking it plays from that moment. Null
 * for a call not measured.
 */
export function callTimeline(call, speakers, seek) {
  const c = call.characteristics;
  if (!c || c.durationMs <= 0) return null;
  const duration = c.durationMs;
  const lanes = call.speakers.map((s) =>
    h(
      "div",
      { class: "lane" },
      h("span", { class: "lane-name" }, s.name),
      h(
        "div",
        { class: "track" },
        call.turns
          .filter((turn) => turn.speakerId === s.speakerId)
          .map((turn) =>
            place(
              h("span", { class: `seg speaker-${speakers.get(s.speakerId)?.colour ?? 0}` }),
              turn.startMs,
              turn.endMs,
              duration,
            ),
          ),
        c.interruptions
          .filter((i) => i.speakerId === s.speakerId)
          .map((i) => place(h("span", { class: "cut", title: interruptionText(call, i) }), i.atMs, i.atMs, duration)),
      ),
    ),
  );
  const pauses = h(
    "div",
    { class: "lane" },
    h("span", { class: "lane-name" }, t("nonTalk")),
    h(
      "div",
      { class: "track" },
      c.nonTalkStretches.map((p) =>
        place(
          h("span", { class: `seg pause pause-${p.sound || "unknown"}`, title: pauseText(p) }),
          p.startMs,
          p.endMs,
          duration,
        ),
      ),
    ),
  );
  const onHold = c.musicMs ? `, ${t("onHold")} ${seconds(c.musicMs)}` : "";
  const element = h(
    "div",
    {
      class: "timeline",
      id: "timeline",
      role: "img",
      "aria-label": `${t("timeline")}: ${t("nonTalk")} ${percent(c.nonTalkShare)}${onHold}, ${count(c.interruptionCount, "interruption")}`,
    },
    lanes,
    pauses,
    h(
      "div",
      { class: "legend small muted", "aria-hidden": "true" },
      ["silence", "music", "other"].map((sound) =>
        h("span", {}, h("span", { class: `key pause-${sound}` }), t(`sound.${sound}`)),
      ),
      h("span", {}, h("span", { class: "key cut-key" }), t("interruptions")),
    ),
  );
  element.addEventListener("click", (e) => {
    const track = e.target.closest?.(".track") || element.querySelector(".track");
    const box = track.getBoundingClientRect();
    if (box.width > 0) seek(Math.max(0, Math.min(1, (e.clientX - box.left) / box.width)) * duration);
  });
  return element;
}

function nameOf(call, id) {
  return call.speakers.find((s) => s.speakerId === id)?.name || id;
}

function interruptionText(call, i) {
  return t("interrupted")
    .replace("{who}", nameOf(call, i.speakerId))
    .replace("{whom}", nameOf(call, i.interruptedSpeakerId))
    .replace("{overlap}", `${(i.overlapMs / 1000).toFixed(1)} s`);
}

/** How long a pause lasts and what fills it: "(32 s) · music". */
function pauseDetail(p) {
  const sound = p.sound ? ` · ${t(`sound.${p.sound}`)}` : "";
  return `(${((p.endMs - p.startMs) / 1000).toFixed(0)} s)${sound}`;
}

function pauseText(p) {
  return `${seconds(p.startMs)}–${seconds(p.endMs)} ${pauseDetail(p)}`;
}

/** A small table: its first cell of each row heads the row. */
function table(id, caption, headings, rows) {
  return h(
    "div",
    { class: "table-scroll" },
    h(
      "table",
      { class: "quarters", id },
      h("caption", {}, caption),
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          headings.map((label) => h("th", { scope: "col" }, label)),
        ),
      ),
      h(
        "tbody",
        {},
        rows.map(([head, ...cells]) =>
          h(
            "tr",
            {},
            h("th", { scope: "row" }, head),
            cells.map((cell) => h("td", {}, cell)),
          ),
        ),
      ),
    ),
  );
}

/** The characteristics card: the call's figures, each speaker's, and the long pauses and the
 *  interruptions to play. Null for a call not measured. */
export function characteristicsCard(call, seek) {
  const c = call.characteristics;
  if (!c) return null;
  const fact = (label, value) => [h("dt", {}, label), h("dd", {}, value)];
  const moment = (ms, text) =>
    h("li", {}, h("button", { type: "button", class: "link", onclick: () => seek(ms) }, seconds(ms)), ` ${text}`);
  return h(
    "section",
    { class: "card", "aria-labelledby": "characteristics-title", id: "characteristics" },
    h("h2", { id: "characteristics-title" }, t("characteristics")),
    h(
      "dl",
      { class: "facts-list" },
      fact(t("talkTime"), `${seconds(c.talkMs)} (${percent(1 - c.nonTalkShare)})`),
      fact(t("nonTalk"), `${seconds(c.nonTalkMs)} (${percent(c.nonTalkShare)})`),
      fact(t("longestPause"), seconds(c.longestNonTalkMs)),
      c.musicMs != null && fact(t("onHold"), seconds(c.musicMs)),
      c.silenceMs != null && fact(t("silenceTime"), seconds(c.silenceMs)),
      fact(t("overlap"), seconds(c.overlapMs)),
      fact(t("interruptions"), `${c.interruptionCount} (${seconds(c.interruptionMs)})`),
      fact(t("wordsPerMinute"), c.wordsPerMinute == null ? "–" : Math.round(c.wordsPerMinute)),
    ),
    table(
      "speaker-characteristics",
      t("bySpeaker"),
      [t("speaker"), t("talkTime"), t("wordsPerMinute"), t("interruptionsMade"), t("loudness")],
      c.speakers.map((s) => [
        nameOf(call, s.speakerId),
        percent(s.talkShare),
        s.wordsPerMinute == null ? "–" : Math.round(s.wordsPerMinute),
        s.interruptionsMade,
        decibels(s.loudnessDb),
      ]),
    ),
    table(
      "loudness-quarters",
      t("loudnessByQuarter"),
      [t("speaker"), ...[1, 2, 3, 4].map((q) => `${t("quarter")} ${q}`)],
      c.speakers.map((s) => [nameOf(call, s.speakerId), ...s.loudnessByQuarterDb.map(decibels)]),
    ),
    c.nonTalkStretches.length > 0 &&
      h(
        "div",
        {},
        h("h3", {}, t("longPauses")),
        h(
          "ul",
          { class: "moments", id: "pauses" },
          c.nonTalkStretches.slice(0, LISTED).map((p) => moment(p.startMs, pauseDetail(p))),
        ),
      ),
    c.interruptions.length > 0 &&
      h(
        "div",
        {},
        h("h3", {}, t("interruptions")),
        h(
          "ul",
          { class: "moments", id: "interruptions" },
          c.interruptions.slice(0, LISTED).map((i) => moment(i.atMs, interruptionText(call, i))),
        ),
      ),
  );
}
