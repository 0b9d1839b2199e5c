// The call page: the recording (player.js) over its transcript, word by word (transcript.js),
// with the analysis beside it (call-panel.js). Clicking a word, a turn or a quote plays from
// that moment; while it plays, the word being said is highlighted and kept in view.

import { api } from "/app/api.js";
import { callPanel } from "/app/call-panel.js";
import { callTimeline, characteristicsCard } from "/app/characteristics.js";
import { clock, h, mount } from "/app/dom.js";
import { t, when } from "/app/i18n.js";
import { player } from "/app/player.js";
import { ruleMatchesCard } from "/app/rules.js";
import { transcript } from "/app/transcript.js";

export async function callPage(main, project, callId, query, go, fresh = () => true) {
  const base = `/v1/projects/${project.id}/calls/${callId}`;
  const [call, timeline, tree] = await Promise.all([
    api("GET", base),
    api("GET", `${base}/words`),
    api("GET", `/v1/projects/${project.id}/categories`).catch(() => null),
  ]);
  if (!fresh()) return;
  const speakers = new Map(call.speakers.map((s, i) => [s.speakerId, { ...s, colour: i % 6 }]));
  // The player tells the transcript what it plays; the transcript asks the player to play.
  let words = null;
  const recording = player(base, call, (ms) => words?.highlight(ms), fresh);
  words = transcript(call, timeline, speakers, recording.seek);
  const classification = call.classification?.primary;
  const level = call.sentimentLevel;

  mount(
    main,
    h("p", {}, h("a", { href: `#/p/${project.id}/calls` }, `← ${t("back")}`)),
    h("h1", { id: "call-title" }, call.title),
    qualityNotice(call.transcriptQuality),
    h(
      "p",
      { class: "facts" },
      // When the call took place, which its deadlines count from, where the upload said so.
      call.recordedAt
        ? h("span", { class: "recorded", title: `${t("uploaded")} ${when(call.createdAt)}` }, when(call.recordedAt))
        : h("span", {}, when(call.createdAt)),
      " · ",
      h("span", {}, call.durationS == null ? "" : clock(call.durationS * 1000)),
      " · ",
      h("span", {}, t(`language.${call.language}`)),
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
    h("div", { class: "player" }, recording.element),
    callTimeline(call, speakers, recording.seek),
    h(
      "div",
      { class: "columns" },
      h(
        "section",
        { class: "card transcript-card", "aria-labelledby": "transcript-title" },
        h("h2", { id: "transcript-title" }, t("transcript")),
        words.element,
      ),
      callPanel({
        project,
        call,
        base,
        tree,
        quote: words.quote,
        go,
        extra: [ruleMatchesCard(call, recording.seek), characteristicsCard(call, recording.seek)],
      }),
    ),
  );
  recording.load();

  // Opened from the board: go to the item's moment.
  const item = (call.summary?.actionItems || []).find((i) => i.id === query.get("item"));
  if (item) {
    document.getElementById(`item-${item.id}`)?.scrollIntoView({ block: "center" });
    const ms = words.momentOf(item.evidence);
    if (ms !== null) recording.seek(ms, false);
  }
}

/** The warning a call whose transcript cannot be trusted carries above everything drawn from
 *  it, naming the speech model that would do better when a small one made it. */
function qualityNotice(quality) {
  if (!quality || quality.reliable) return null;
  const percent = (share) => `${Math.round(share * 100)}%`;
  const said = t("unreliableTranscript")
    .replace("{mean}", percent(quality.meanWordConfidence))
    .replace("{unsure}", percent(quality.unsureWordShare));
  const better =
    quality.betterModel &&
    t("betterSpeechModel")
      .replace("{model}", quality.speechModel || "")
      .replace("{better}", quality.betterModel);
  return h(
    "div",
    { class: "notice", id: "transcript-quality", role: "alert" },
    h("p", {}, said),
    better && h("p", {}, better),
  );
}
