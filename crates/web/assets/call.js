// The call page: the recording over its transcript, word by word. Clicking a word or a turn
// plays from there; while it plays, the word being said is highlighted and kept in view.
// Personal data is marked with its type; the summary, action items (edited in place) and
// template answers sit beside it, each quote a link to its moment.

import { api, blob } from "/app/api.js";
import { clock, flattenTree, h, mount, save, toast } from "/app/dom.js";
import { t, when } from "/app/i18n.js";

const STATUSES = [
  ["PENDING", "pending"],
  ["IN_PROGRESS", "inProgress"],
  ["DONE", "done"],
  ["CANCELLED", "cancelled"],
];
const PRIORITIES = ["LOW", "MEDIUM", "HIGH"];

/** A status picker that saves on change; `changed` runs after the save. */
export function statusPicker(project, item, changed) {
  let was = item.status;
  return h(
    "select",
    {
      class: "status",
      "aria-label": `${t("status")}: ${item.description}`,
      dataset: { item: item.id },
      onchange: async (e) => {
        const el = e.target;
        const saved = await save(
          () => api("PATCH", `/v1/projects/${project.id}/action-items/${item.id}`, { status: el.value }),
          () => {
            el.value = was;
          },
        );
        if (saved) {
          was = el.value;
          changed?.();
        }
      },
    },
    STATUSES.map(([value, key]) => h("option", { value, selected: item.status === value }, t(key))),
  );
}

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

export async function callPage(main, project, callId, query, go, fresh = () => true) {
  const base = `/v1/projects/${project.id}/calls/${callId}`;
  const [call, timeline, tree] = await Promise.all([
    api("GET", base),
    api("GET", `${base}/words`),
    api("GET", `/v1/projects/${project.id}/categories`).catch(() => null),
  ]);
  if (!fresh()) return;
  const words = timeline.words;
  const speakers = new Map(call.speakers.map((s, i) => [s.speakerId, { ...s, colour: i % 6 }]));
  const audio = h("audio", {
    controls: true,
    preload: "metadata",
    id: "player",
    "aria-label": `${t("recording")}: ${call.title}`,
  });

  // Each word once, as a button-like span in its turn; personal data keeps its type beside it.
  const spans = [];
  const inPii = (w) => timeline.piiSpans.find((p) => w.startMs < p.endMs && w.endMs > p.startMs);
  // Made directly rather than through h(): there may be 10,000 of them.
  const wordEls = words.map((w, i) => {
    const pii = timeline.piiSpans.length ? inPii(w) : null;
    const el = document.createElement("span");
    el.className = pii ? "w pii" : "w";
    el.textContent = w.text;
    el.dataset.i = i;
    el.dataset.start = w.startMs;
    // The type is part of the word's name, so a screen reader says it, not only a tooltip.
    if (pii) {
      el.title = pii.type;
      el.setAttribute("aria-label", `${w.text} (${pii.type})`);
    }
    spans.push(el);
    return el;
  });
  const seek = (ms, play = true) => {
    audio.currentTime = ms / 1000;
    highlight(ms);
    if (play) audio.play().catch(() => {});
  };
  // Each word to the turn of its speaker that it falls in, in one pass over both (both are in
  // time order): a one-hour call has some 10,000 words in 700 turns.
  const byTurn = call.turns.map(() => []);
  const turnsOf = new Map();
  call.turns.forEach((turn, i) => {
    if (!turnsOf.has(turn.speakerId)) turnsOf.set(turn.speakerId, []);
    turnsOf.get(turn.speakerId).push(i);
  });
  const cursor = new Map();
  words.forEach((w, i) => {
    const list = turnsOf.get(w.speakerId);
    if (!list) return;
    let at = cursor.get(w.speakerId) || 0;
    while (at + 1 < list.length && call.turns[list[at + 1]].startMs <= w.startMs) at++;
    cursor.set(w.speakerId, at);
    const turn = call.turns[list[at]];
    if (w.startMs >= turn.startMs && w.startMs < Math.max(turn.endMs, turn.startMs + 1)) byTurn[list[at]].push(i);
  });
  const turns = call.turns.map((turn, index) => {
    const speaker = speakers.get(turn.speakerId) || { name: turn.speakerId, colour: 0 };
    const body = byTurn[index].length ? byTurn[index].flatMap((i) => [wordEls[i], " "]) : [turn.text];
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
      h("span", { class: "who" }, speaker.name),
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
  const transcript = h(
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
  function highlight(ms) {
    const at = wordAt(words, ms + 1);
    if (at === current) return;
    if (current >= 0) spans[current].classList.remove("now");
    current = at;
    if (at < 0) return;
    const el = spans[at];
    el.classList.add("now");
    const box = transcript.getBoundingClientRect(),
      r = el.getBoundingClientRect();
    if (r.top < box.top || r.bottom > box.bottom) el.scrollIntoView({ block: "center", behavior: "smooth" });
  }
  // timeupdate comes a few times a second; while playing, follow every frame instead.
  let frame = 0;
  const follow = () => {
    highlight(audio.currentTime * 1000);
    frame = requestAnimationFrame(follow);
  };
  audio.addEventListener("play", () => {
    cancelAnimationFrame(frame);
    frame = requestAnimationFrame(follow);
  });
  audio.addEventListener("pause", () => cancelAnimationFrame(frame));
  audio.addEventListener("seeked", () => highlight(audio.currentTime * 1000));

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

  const summary = call.summary || {};
  const items = summary.actionItems || [];
  const classification = call.classification?.primary;
  const level = call.sentimentLevel;
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
            `${Math.round(s.talkRatio * 100)}% ${t("talk")} · ${s.wordCount} ${t("words")} · ${s.turnCount} ${t("turns")}`,
          ),
        ),
      ),
    ),
  );
  // Widths through the CSSOM: the policy forbids inline style attributes, not style properties.
  stats.querySelectorAll(".fill").forEach((f) => {
    f.style.width = `${f.dataset.ratio}%`;
  });

  const itemRow = (item) => {
    const field = (name, value, type = "text") => {
      let was = value || "";
      return h("input", {
        type,
        value: was,
        "aria-label": `${t(name)}: ${item.description}`,
        class: name,
        onchange: async (e) => {
          const el = e.target,
            body = {};
          if (name === "owner") body.responsibleParty = el.value || null;
          if (name === "notes") {
            if (el.value) body.notes = el.value;
            else body.clearNotes = true;
          }
          if (name === "deadline") {
            if (el.value) body.dueAt = new Date(`${el.value}T23:59:59`).toISOString();
            else body.clearDeadline = true;
          }
          if (
            await save(
              () => api("PATCH", `/v1/projects/${project.id}/action-items/${item.id}`, body),
              () => {
                el.value = was;
              },
            )
          )
            was = el.value;
        },
      });
    };
    return h(
      "li",
      { class: item.isOverdue ? "item overdue" : "item", id: `item-${item.id}` },
      h("p", { class: "what" }, item.description, item.isOverdue && h("span", { class: "badge" }, t("overdue"))),
      h(
        "div",
        { class: "row" },
        statusPicker(project, item),
        h(
          "select",
          {
            "aria-label": `${t("priority")}: ${item.description}`,
            dataset: { was: item.priority },
            onchange: async (e) => {
              const el = e.target;
              if (
                await save(
                  () => api("PATCH", `/v1/projects/${project.id}/action-items/${item.id}`, { priority: el.value }),
                  () => {
                    el.value = el.dataset.was;
                  },
                )
              )
                el.dataset.was = el.value;
            },
          },
          PRIORITIES.map((p) => h("option", { value: p, selected: item.priority === p }, p)),
        ),
        field("owner", item.responsibleParty),
        field("deadline", item.dueAt ? item.dueAt.slice(0, 10) : "", "date"),
        field("notes", item.notes),
      ),
      item.deadlineMentioned && h("p", { class: "muted small" }, `${t("deadline")}: “${item.deadlineMentioned}”`),
      item.evidence && h("p", { class: "small" }, quote(item.evidence)),
    );
  };

  const categories = flattenTree(tree);
  const picker = h(
    "select",
    { id: "category", "aria-label": t("category") },
    h("option", { value: "" }, t("uncategorized")),
    categories.map((c) =>
      h("option", { value: c.id, selected: classification?.categoryId === c.id }, `${"— ".repeat(c.depth)}${c.name}`),
    ),
  );

  const answers = call.templateAnalysis?.results || [];
  const text = call.turns
    .map((turn) => `[${clock(turn.startMs)}] ${speakers.get(turn.speakerId)?.name || turn.speakerId}: ${turn.text}`)
    .join("\n");
  const download = (label, name, content, type) =>
    h(
      "a",
      {
        href: "#",
        onclick: async (e) => {
          e.preventDefault();
          const data = typeof content === "function" ? await save(content) : new Blob([content], { type });
          if (!data) return;
          const url = URL.createObjectURL(data);
          const link = h("a", { href: url, download: name });
          document.body.append(link);
          link.click();
          link.remove();
          setTimeout(() => URL.revokeObjectURL(url), 60_000);
        },
      },
      label,
    );

  mount(
    main,
    h("p", {}, h("a", { href: `#/p/${project.id}/calls` }, `← ${t("back")}`)),
    h("h1", { id: "call-title" }, call.title),
    h(
      "p",
      { class: "facts" },
      h("span", {}, when(call.createdAt)),
      " · ",
      h("span", {}, call.durationS == null ? "" : clock(call.durationS * 1000)),
      " · ",
      h("span", {}, call.language),
      " · ",
      h("span", { class: `level level-${level}` }, t(level)),
      " · ",
      h(
        "span",
        { class: "category-path" },
        classification ? classification.categoryNames.join(" › ") : t("uncategorized"),
      ),
      " · ",
      h("span", { class: "muted" }, call.filename),
    ),
    h("div", { class: "player" }, audio),
    h(
      "div",
      { class: "columns" },
      h(
        "section",
        { class: "card transcript-card", "aria-labelledby": "transcript-title" },
        h("h2", { id: "transcript-title" }, t("transcript")),
        transcript,
      ),
      h(
        "div",
        { class: "side" },
        stats,
        h(
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
          summary.sentiment?.evidence &&
            h("p", { class: "small" }, `${t("sentiment")}: `, quote(summary.sentiment.evidence)),
        ),
        h(
          "section",
          { class: "card", "aria-labelledby": "items-title" },
          h("h2", { id: "items-title" }, t("actionItems")),
          items.length
            ? h("ul", { class: "call-items" }, items.map(itemRow))
            : h("p", { class: "muted" }, t("noItems")),
        ),
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
                    ? String(Array.isArray(a.value) ? a.value.join(", ") : a.value)
                    : h("span", { class: "muted" }, t("noAnswer")),
                  (a.evidence || []).map((e) => h("div", { class: "small" }, quote(e))),
                ),
              ]),
            ),
          ),
        h(
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
                    (await save(() => api("PATCH", `${base}/category`, { categoryId: picker.value || null }))) !==
                    undefined
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
            h(
              "button",
              { type: "button", onclick: () => save(() => api("POST", `${base}/reanalyze`, {})) },
              t("reanalyse"),
            ),
            download(t("downloadAudio"), call.filename, () => blob(`${base}/audio/content`)),
            download(t("downloadTranscript"), `${call.filename}.txt`, text, "text/plain"),
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
        ),
      ),
    ),
  );

  // The player streams the recording with Range requests (an hour of audio is tens of
  // megabytes) through a short-lived link, since an <audio> element cannot send the key. A link
  // that expires while the page stays open is replaced, and playback goes on where it was.
  let [relinks, linkedAt] = [0, 0];
  const linkAudio = async () => {
    linkedAt = Date.now();
    const link = await api("POST", `${base}/audio/link`);
    if (!fresh()) return;
    const [at, playing] = [audio.currentTime, !audio.paused];
    audio.src = link.url;
    if (at > 0) audio.currentTime = at;
    if (playing) audio.play().catch(() => {});
  };
  // A link that played for a minute worked: the next failure may be its expiry again.
  audio.addEventListener("playing", () => {
    if (Date.now() - linkedAt > 60_000) relinks = 0;
  });
  audio.addEventListener("error", () => {
    // A few tries, so that a recording that keeps failing does not ask forever.
    if (fresh() && relinks++ < 2) linkAudio().catch((e) => toast(e.message, "error"));
  });
  linkAudio().catch((e) => toast(e.message, "error"));

  // Opened from the board: go to the item's moment.
  const item = items.find((i) => i.id === query.get("item"));
  if (item) {
    document.getElementById(`item-${item.id}`)?.scrollIntoView({ block: "center" });
    const ms = momentOf(item.evidence);
    if (ms !== null) {
      audio.currentTime = ms / 1000;
      highlight(ms);
    }
  }
}
