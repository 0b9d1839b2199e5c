// The dashboard: how customers felt (the distribution and the daily trend), what the calls
// were about (calls per category) and how they went (call characteristics by day), drawn as SVG
// by the page itself.

import { api } from "/app/api.js";
import { flattenTree, h, mount } from "/app/dom.js";
import { count, t } from "/app/i18n.js";

const SVG = "http://www.w3.org/2000/svg";
const COLOURS = { positive: "#1d7a46", neutral: "#8d99a8", negative: "#b3261e", unknown: "#d9dee5" };

/** An SVG element with attributes and children; text children become text nodes. */
function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) el.setAttribute(key, String(value));
  for (const child of children.flat())
    if (child !== null && child !== undefined)
      el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  return el;
}

/** Horizontal bars: one row per [label, value, colour, link]; a row with a link opens it (the
 *  calls behind the bar). */
function bars(rows, title) {
  const max = Math.max(1, ...rows.map((r) => r[1]));
  const height = rows.length * 28 + 8;
  const linked = rows.some((r) => r[3]);
  return s(
    "svg",
    // With links inside, the chart is a group a screen reader walks into, not one picture.
    { viewBox: `0 0 600 ${height}`, role: linked ? "group" : "img", "aria-label": title, class: "chart" },
    s("title", {}, title),
    rows.map(([label, value, colour, link], i) =>
      s(
        link ? "a" : "g",
        { transform: `translate(0 ${i * 28 + 4})`, ...(link ? { href: link, class: "drill" } : {}) },
        s("text", { x: 0, y: 16, class: "label" }, label),
        s("rect", {
          x: 180,
          y: 2,
          height: 18,
          width: Math.max(2, (value / max) * 360),
          fill: colour,
          rx: 3,
          class: "bar-value",
          "data-value": value,
        }),
        s("text", { x: 186 + (value / max) * 360, y: 16, class: "value" }, value),
      ),
    ),
  );
}

/** A share axis for columns standing on `base` and `height` tall at 100 %: lines at 0, 50 and
 *  100 % across `width`, labelled on the left. */
function shareAxis(width, base, height) {
  return [0, 50, 100].map((share) => {
    const y = base - (share / 100) * height;
    return s(
      "g",
      { class: "axis" },
      s("line", { x1: 40, y1: y, x2: width, y2: y, stroke: share === 0 ? "#8d99a8" : "#eceff3" }),
      s("text", { x: 34, y: y + 4, class: "tick", "text-anchor": "end" }, `${share}%`),
    );
  });
}

/** One stacked column per day: positive at the bottom, then neutral, then negative; a share
 *  axis on the left, the day of the month under each column, and a legend above. */
function trend(days, title) {
  const width = Math.max(600, days.length * 28 + 60);
  const levels = ["positive", "neutral", "negative"];
  return s(
    "svg",
    { viewBox: `0 0 ${width} 240`, role: "img", "aria-label": title, class: "chart" },
    s("title", {}, title),
    s(
      "g",
      { class: "legend" },
      levels.map((level, i) =>
        s(
          "g",
          { transform: `translate(${50 + i * 130} 4)` },
          s("rect", { width: 12, height: 12, fill: COLOURS[level], rx: 2 }),
          s("text", { x: 18, y: 11, class: "tick" }, t(level)),
        ),
      ),
    ),
    shareAxis(width, 210, 170),
    days.map((d, i) => {
      let y = 210;
      const x = 50 + i * 28;
      const parts = ["positive", "neutral", "negative"].map((level) => {
        const hgt = (d[`${level}Percent`] / 100) * 170;
        y -= hgt;
        return s(
          "rect",
          { x, y, width: 20, height: hgt, fill: COLOURS[level] },
          s("title", {}, `${d.date}: ${t(level)} ${d[`${level}Percent`]}%`),
        );
      });
      return s(
        "g",
        { class: "day", "data-date": d.date },
        parts,
        s("text", { x: x + 10, y: 226, class: "tick", "text-anchor": "middle" }, d.date.slice(8)),
      );
    }),
  );
}

/** One column per day of the share of the calls nobody talks in, with a share axis and the day
 *  of the month under each column. */
function nonTalkColumns(days, title) {
  const width = Math.max(600, days.length * 28 + 60);
  return s(
    "svg",
    { viewBox: `0 0 ${width} 220`, role: "img", "aria-label": title, class: "chart" },
    s("title", {}, title),
    s(
      "g",
      { class: "legend" },
      s(
        "g",
        { transform: "translate(50 4)" },
        s("rect", { width: 12, height: 12, fill: "#8d99a8", rx: 2 }),
        s("text", { x: 18, y: 11, class: "tick" }, t("nonTalkShare")),
      ),
    ),
    shareAxis(width, 190, 150),
    days.map((d, i) => {
      const x = 50 + i * 28;
      const hgt = d.nonTalkShare * 150;
      return s(
        "g",
        { class: "day", "data-date": d.date },
        s(
          "rect",
          { x, y: 190 - hgt, width: 20, height: hgt, fill: "#8d99a8" },
          s("title", {}, `${d.date}: ${Math.round(d.nonTalkShare * 100)}%`),
        ),
        s("text", { x: x + 10, y: 206, class: "tick", "text-anchor": "middle" }, d.date.slice(8)),
      );
    }),
  );
}

/** The characteristics dashboard's card: a chart of the non-talk share by day and a table of
 *  every daily average, with the range's average last. */
function characteristicsCard(board) {
  const row = (label, a) =>
    h(
      "tr",
      {},
      h("th", { scope: "row" }, label),
      h("td", { class: "number" }, a.calls),
      h("td", { class: "number" }, `${Math.round(a.nonTalkShare * 100)}%`),
      h("td", { class: "number" }, `${a.longestNonTalkS.toFixed(1)} s`),
      h("td", { class: "number" }, `${a.onHoldS.toFixed(1)} s`),
      h("td", { class: "number" }, a.interruptions.toFixed(1)),
      h("td", { class: "number" }, a.wordsPerMinute == null ? "–" : Math.round(a.wordsPerMinute)),
    );
  return h(
    "section",
    { class: "card", "aria-labelledby": "daily-characteristics-title", id: "daily-characteristics" },
    h("h2", { id: "daily-characteristics-title" }, t("dailyCharacteristics")),
    board.days.length === 0
      ? h("p", { class: "muted" }, t("noCalls"))
      : [
          h("div", { class: "chart-scroll" }, nonTalkColumns(board.days, t("nonTalkShare"))),
          h(
            "div",
            { class: "table-scroll" },
            h(
              "table",
              { class: "quarters" },
              h(
                "thead",
                {},
                h(
                  "tr",
                  {},
                  [
                    t("date"),
                    t("calls"),
                    t("nonTalkShare"),
                    t("longestPause"),
                    t("onHold"),
                    t("interruptions"),
                    t("wordsPerMinute"),
                  ].map((label) => h("th", { scope: "col" }, label)),
                ),
              ),
              h(
                "tbody",
                {},
                board.days.map((d) => row(d.date, d)),
                row(t("average"), board.overall),
              ),
            ),
          ),
        ],
  );
}

export async function dashboardPage(main, project, query, go, fresh = () => true) {
  const zone = query.get("tz") || Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
  const params = new URLSearchParams({ tz: zone });
  for (const key of ["from", "to"]) if (query.get(key)) params.set(key, new Date(query.get(key)).toISOString());
  const [board, tree, shape] = await Promise.all([
    api("GET", `/v1/projects/${project.id}/dashboard/sentiment?${params}`),
    api("GET", `/v1/projects/${project.id}/categories`),
    api("GET", `/v1/projects/${project.id}/dashboard/characteristics?${params}`),
  ]);
  if (!fresh()) return;
  const d = board.distribution;
  // Each category's bar opens its calls (the category with everything below it).
  const categories = flattenTree(tree).map((c) => [
    `${"  ".repeat(c.depth)}${c.name}`,
    c.totalCallCount,
    "#1f5fae",
    `#/p/${project.id}/calls?categoryId=${c.id}`,
  ]);
  const zones = [...new Set([zone, "UTC", "Europe/Warsaw", "Europe/London", "America/New_York"])];
  const picker = h(
    "select",
    {
      id: "time-zone",
      onchange: (e) => {
        const next = new URLSearchParams(query);
        next.set("tz", e.target.value);
        go(`#/p/${project.id}/dashboard?${next}`);
      },
    },
    zones.map((z) => h("option", { value: z, selected: z === zone }, z)),
  );
  mount(
    main,
    h("h1", {}, t("dashboard")),
    h(
      "div",
      { class: "row" },
      h("label", { for: "time-zone" }, t("timeZone")),
      picker,
      h(
        "span",
        { class: "muted" },
        `${count(d.total, "call")} · ${t("confidence")} ${Math.round(board.averageConfidence * 100)}%`,
      ),
    ),
    h(
      "div",
      { class: "columns" },
      h(
        "section",
        { class: "card", "aria-labelledby": "distribution-title" },
        h("h2", { id: "distribution-title" }, t("sentiment")),
        bars(
          [
            [t("positive"), d.positive, COLOURS.positive],
            [t("neutral"), d.neutral, COLOURS.neutral],
            [t("negative"), d.negative, COLOURS.negative],
            [t("unknown"), d.unknown, COLOURS.unknown],
          ],
          t("sentiment"),
        ),
      ),
      h(
        "section",
        { class: "card", "aria-labelledby": "categories-title" },
        h("h2", { id: "categories-title" }, t("callsPerCategory")),
        categories.length ? bars(categories, t("callsPerCategory")) : h("p", { class: "muted" }, t("uncategorized")),
      ),
    ),
    h(
      "section",
      { class: "card", "aria-labelledby": "trend-title" },
      h("h2", { id: "trend-title" }, t("trend")),
      board.trend.length
        ? h("div", { class: "chart-scroll" }, trend(board.trend, t("trend")))
        : h("p", { class: "muted" }, t("noCalls")),
    ),
    characteristicsCard(shape),
  );
}
