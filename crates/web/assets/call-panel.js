// The call page's side panel: who spoke how much, the summary, the action items (edited in
// place), the template's answers, and what can be done with the call.

import { api, blob } from "/app/api.js";
import { download, flattenTree, h, save } from "/app/dom.js";
import { count, levelOf, t } from "/app/i18n.js";
import { addItemForm, itemRow } from "/app/items.js";

/** The speakers' names, to correct: each renamed in place, or two swapped, all saved at once
 *  (the call's action items follow their owner's new name). */
function speakerNames(call, base, go) {
  if (call.speakers.length === 0) return null;
  const inputs = call.speakers.map((s) =>
    h("input", {
      class: "speaker-name",
      value: s.name,
      "aria-label": `${t("speakerName")} ${s.speakerId}`,
      maxlength: 100,
    }),
  );
  const send = async () => {
    const names = Object.fromEntries(call.speakers.map((s, i) => [s.speakerId, inputs[i].value.trim()]));
    if ((await save(() => api("PUT", `${base}/speakers`, { names }))) !== undefined) go(location.hash);
  };
  return h(
    "form",
    {
      class: "row",
      id: "speaker-names",
      onsubmit: (e) => {
        e.preventDefault();
        send();
      },
    },
    inputs,
    inputs.length === 2 &&
      h(
        "button",
        {
          type: "button",
          id: "swap-speakers",
          onclick: () => {
            [inputs[0].value, inputs[1].value] = [inputs[1].value, inputs[0].value];
            send();
          },
        },
        t("swapSpeakers"),
      ),
    h("button", { type: "submit" }, t("renameSpeakers")),
  );
}

/** Each speaker's share of the talk, as a bar, and their names to correct. */
function speakerBars(call, base, go) {
  const stats = h(
    "section",
    { class: "card", "aria-labelledby": "speakers-title" },
    h("h2", { id: "speakers-title" }, t("speakers")),
    h(
      "ul",
      { class: "bars" },
      call.speakers.map((s, i) =>
        h(
          "li",
          { class: `speaker-${i % 6}` },
          h("span", { class: "who" }, s.name),
          h(
            "span",
            { class: "bar", role: "img", "aria-label": `${Math.round(s.talkRatio * 100)}%` },
            h("span", { class: "fill", dataset: { ratio: Math.round(s.talkRatio * 100) } }),
          ),
          h(
            "span",
            { class: "muted small" },
            `${Math.round(s.talkRatio * 100)}% ${t("talk")} · ${count(s.wordCount, "word")} · ${count(s.turnCount, "turn")}`,
            s.role && ` · ${t("roleGuessed").replace("{percent}", Math.round(s.roleConfidence * 100))}`,
          ),
        ),
      ),
    ),
    speakerNames(call, base, go),
  );
  // Widths through the CSSOM: the policy forbids inline style attributes, not style properties.
  stats.querySelectorAll(".fill").forEach((f) => {
    f.style.width = `${f.dataset.ratio}%`;
  });
  return stats;
}

/** Each speaker's sentiment in each quarter of the call, as a table of levels with their
 *  scores (−1 to 1); nothing for a call whose turns were not scored. */
function sentimentQuarters(call) {
  const rows = call.sentimentByQuarter || [];
  if (rows.length === 0) return null;
  const name = (id) => call.speakers.find((s) => s.speakerId === id)?.name || id;
  return h(
    "table",
    { class: "quarters", id: "sentiment-quarters" },
    h("caption", {}, t("sentimentByQuarter")),
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        h("th", { scope: "col" }, t("speaker")),
        [1, 2, 3, 4].map((q) => h("th", { scope: "col" }, `${t("quarter")} ${q}`)),
      ),
    ),
    h(
      "tbody",
      {},
      rows.map((row) =>
        h(
          "tr",
          {},
          h("th", { scope: "row" }, name(row.speakerId)),
          row.quarters.map((score) =>
            h(
              "td",
              {},
              score === null
                ? h("span", { class: "muted" }, "–")
                : h("span", { class: `level level-${levelOf(score)}` }, `${t(levelOf(score))} ${score.toFixed(2)}`),
            ),
          ),
        ),
      ),
    ),
  );
}

/** The summary with its key points, the sentiment's quote and its course over the call. */
function summaryCard(call, summary, quote) {
  return h(
    "section",
    { class: "card", "aria-labelledby": "summary-title" },
    h("h2", { id: "summary-title" }, t("summary")),
    h("p", { id: "executive-summary" }, summary.summary?.executiveSummary || ""),
    (summary.summary?.keyDiscussionPoints || []).length > 0 &&
      h(
        "ul",
        {},
        summary.summary.keyDiscussionPoints.map((p) => h("li", {}, p)),
      ),
    summary.sentiment?.evidence && h("p", { class: "small" }, `${t("sentiment")}: `, quote(summary.sentiment.evidence)),
    sentimentQuarters(call),
  );
}

/** The template's answers with their quotes; nothing when there are none. */
function answersCard(call, quote) {
  const answers = call.templateAnalysis?.results || [];
  return (
    answers.length > 0 &&
    h(
      "section",
      { class: "card", "aria-labelledby": "answers-title" },
      h("h2", { id: "answers-title" }, t("templateAnswers")),
      h(
        "dl",
        {},
        answers.flatMap((a) => [
          h("dt", {}, a.label),
          h(
            "dd",
            {},
            a.answered
              ? typeof a.value === "boolean"
                ? t(a.value ? "yes" : "no")
                : String(Array.isArray(a.value) ? a.value.join(", ") : a.value)
              : h("span", { class: "muted" }, t("noAnswer")),
            (a.evidence || []).map((e) => h("div", { class: "small" }, quote(e))),
          ),
        ]),
      ),
    )
  );
}

/** Recategorising, re-analysis, downloads and erasure. */
function actionsCard(project, call, base, tree, go) {
  const classification = call.classification?.primary;
  const picker = h(
    "select",
    { id: "category", "aria-label": t("category") },
    h("option", { value: "" }, t("uncategorized")),
    flattenTree(tree).map((c) =>
      h("option", { value: c.id, selected: classification?.categoryId === c.id }, `${"— ".repeat(c.depth)}${c.name}`),
    ),
  );
  // Files are named after the upload: "invoice call.wav" gives "invoice call.srt".
  const stem = call.filename.replace(/\.[^.]*$/, "") || "call";
  const file = (format) => () => blob(`${base}/transcript?format=${format}`);
  return h(
    "section",
    { class: "card", "aria-labelledby": "actions-title" },
    h("h2", { id: "actions-title" }, t("recategorise")),
    h(
      "div",
      { class: "row" },
      picker,
      h(
        "button",
        {
          type: "button",
          id: "save-category",
          onclick: async () => {
            if (
              (await save(() => api("PATCH", `${base}/category`, { categoryId: picker.value || null }))) !== undefined
            )
              go(location.hash);
          },
        },
        t("save"),
      ),
    ),
    h(
      "div",
      { class: "row" },
      h("button", { type: "button", onclick: () => save(() => api("POST", `${base}/reanalyze`, {})) }, t("reanalyse")),
      download(t("downloadAudio"), call.filename, () => blob(`${base}/audio/content`)),
      download(t("downloadTranscript"), `${stem}.txt`, file("txt")),
      download(t("downloadSrt"), `${stem}.srt`, file("srt")),
      download(t("downloadVtt"), `${stem}.vtt`, file("vtt")),
      download(t("downloadJson"), `${stem}.json`, JSON.stringify(call, null, 2), "application/json"),
      h(
        "button",
        {
          type: "button",
          class: "danger",
          onclick: async () => {
            if (!confirm(t("confirmDelete"))) return;
            if ((await save(() => api("DELETE", base))) !== undefined) go(`#/p/${project.id}/calls`);
          },
        },
        t("delete"),
      ),
    ),
  );
}

/**
 * The side panel of `call` (served at `base`): `tree` is the project's categories,
 * `quote(text)` a quote linked to its moment, `extra` cards shown under the speakers.
 */
export function callPanel({ project, call, base, tree, quote, go, extra }) {
  const items = call.summary?.actionItems || [];
  return h(
    "div",
    { class: "side" },
    speakerBars(call, base, go),
    extra,
    summaryCard(call, call.summary || {}, quote),
    h(
      "section",
      { class: "card", "aria-labelledby": "items-title" },
      h("h2", { id: "items-title" }, t("actionItems")),
      items.length
        ? h(
            "ul",
            { class: "call-items" },
            items.map((item) =>
              itemRow(
                project,
                item,
                quote,
                items.filter((o) => o.id !== item.id),
                () => go(location.hash),
              ),
            ),
          )
        : h("p", { class: "muted" }, t("noItems")),
      addItemForm(project, call.id, () => go(location.hash)),
    ),
    answersCard(call, quote),
    actionsCard(project, call, base, tree, go),
  );
}
