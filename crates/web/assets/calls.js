// The calls list: filters, search with highlighted snippets, paging, and the upload queue above it.

import { api, blob } from "/app/api.js";
import { clock, download, flattenTree, h, mount, snippet } from "/app/dom.js";
import { t, when } from "/app/i18n.js";
import { uploader } from "/app/uploads.js";

const levelClass = (level) => `level level-${level}`;

export async function callsPage(main, project, query, go, fresh = () => true) {
  const q = query.get("q") || "";
  const list = h("div", { id: "call-list" }, h("p", { class: "muted" }, t("loading")));
  // The list follows finished uploads without losing the upload panel's rows.
  const refresh = () =>
    callList(project, query, list).catch((error) =>
      mount(list, h("p", { class: "error", role: "alert" }, error.message)),
    );
  // The page of calls is asked for together with the category tree the filters need, not after it.
  const listed = refresh();
  const [tree, rules] = await Promise.all([
    api("GET", `/v1/projects/${project.id}/categories`).catch(() => []),
    api("GET", `/v1/projects/${project.id}/rules`).catch(() => []),
  ]);
  if (!fresh()) return;
  const categories = flattenTree(tree).map((c) => [c.id, `${"— ".repeat(c.depth)}${c.name}`]);
  const choice = (id, label, values, current) => [
    h("label", { for: id }, label),
    h(
      "select",
      { id },
      h("option", { value: "" }, t("all")),
      values.map(([value, text]) => h("option", { value, selected: value === current }, text)),
    ),
  ];
  const [sentimentLabel, sentiment] = choice(
    "filter-sentiment",
    t("sentiment"),
    ["positive", "neutral", "negative", "unknown"].map((l) => [l, t(l)]),
    query.get("sentimentLevel") || "",
  );
  const [languageLabel, language] = choice(
    "filter-language",
    t("language"),
    [
      ["en", t("language.en")],
      ["pl", t("language.pl")],
    ],
    query.get("language") || "",
  );
  const [categoryLabel, category] = choice("filter-category", t("category"), categories, query.get("categoryId") || "");
  const [ruleLabel, rule] = choice(
    "filter-rule",
    t("rule.matched"),
    rules.map((r) => [r.id, r.name]),
    query.get("ruleId") || "",
  );
  const overdue = h("input", {
    id: "filter-overdue",
    type: "checkbox",
    checked: query.get("hasOverdueItems") === "true",
  });
  const pauseOver = h("input", {
    id: "filter-pause",
    type: "number",
    min: 0,
    step: 1,
    inputmode: "numeric",
    value: query.get("nonTalkOverS") || "",
  });
  const interruptionsOver = h("input", {
    id: "filter-interruptions",
    type: "number",
    min: 0,
    step: 1,
    inputmode: "numeric",
    value: query.get("interruptionsOver") || "",
  });
  const sort = h(
    "select",
    { id: "sort-by" },
    SORTS.map((key) =>
      h("option", { value: key, selected: key === (query.get("sortBy") || "CREATED_AT") }, t(`sort.${key}`)),
    ),
  );
  const searchBox = h("input", { id: "search", type: "search", value: q, "aria-describedby": "search-help" });
  const from = h("input", { id: "from", type: "date", value: (query.get("from") || "").slice(0, 10) });
  const to = h("input", { id: "to", type: "date", value: (query.get("to") || "").slice(0, 10) });
  const apply = (e) => {
    e.preventDefault();
    const next = new URLSearchParams();
    if (searchBox.value.trim()) next.set("q", searchBox.value.trim());
    if (from.value) next.set("from", `${from.value}T00:00:00`);
    if (to.value) next.set("to", `${to.value}T23:59:59`);
    if (sentiment.value) next.set("sentimentLevel", sentiment.value);
    if (language.value) next.set("language", language.value);
    if (category.value) next.set("categoryId", category.value);
    if (rule.value) next.set("ruleId", rule.value);
    if (overdue.checked) next.set("hasOverdueItems", "true");
    if (pauseOver.value !== "") next.set("nonTalkOverS", pauseOver.value);
    if (interruptionsOver.value !== "") next.set("interruptionsOver", interruptionsOver.value);
    if (sort.value !== "CREATED_AT") next.set("sortBy", sort.value);
    go(`#/p/${project.id}/calls?${next}`);
  };
  mount(
    main,
    h("h1", {}, t("calls")),
    uploader(project, refresh),
    h(
      "form",
      { class: "filters", role: "search", onsubmit: apply },
      h("label", { for: "search" }, t("search")),
      searchBox,
      h("label", { for: "from" }, t("from")),
      from,
      h("label", { for: "to" }, t("to")),
      to,
      sentimentLabel,
      sentiment,
      languageLabel,
      language,
      categoryLabel,
      category,
      rules.length > 0 && [ruleLabel, rule],
      h("label", { for: "filter-pause" }, t("pauseOverS")),
      pauseOver,
      h("label", { for: "filter-interruptions" }, t("interruptionsOver")),
      interruptionsOver,
      h("label", { for: "sort-by" }, t("sortBy")),
      sort,
      h("label", { class: "check" }, overdue, ` ${t("hasOverdue")}`),
      h("button", { type: "submit", class: "primary" }, t("apply")),
      [...query.keys()].some((k) => k !== "page") && h("a", { href: `#/p/${project.id}/calls` }, t("clear")),
      download(t("downloadCsv"), "calls.csv", () =>
        blob(`/v1/projects/${project.id}/calls/export?${listFilters(query)}`),
      ),
      h("p", { id: "search-help", class: "muted help" }, t("searchHelp"), q ? ` ${t("searchIgnoresFilters")}` : ""),
    ),
    list,
  );
  await listed;
}

/** The orders the list offers; each but the first by a characteristic, largest first. */
const SORTS = ["CREATED_AT", "DURATION", "NON_TALK", "LONGEST_NON_TALK", "MUSIC", "INTERRUPTIONS", "TALK_SPEED"];

/** The filters and order a list without a search takes from the page's query. */
const LIST_KEYS = [
  "sentimentLevel",
  "language",
  "categoryId",
  "ruleId",
  "hasOverdueItems",
  "nonTalkOverS",
  "interruptionsOver",
  "sortBy",
];

/** The list's filters as the API takes them (the export file gets the same). */
function listFilters(query) {
  const params = new URLSearchParams();
  for (const key of ["from", "to"]) if (query.get(key)) params.set(key, new Date(query.get(key)).toISOString());
  for (const key of LIST_KEYS) if (query.get(key)) params.set(key, query.get(key));
  return params;
}

/** The figure a list sorted by a characteristic shows in its own column: [heading, value]. */
function sortedFigure(sortBy, call) {
  const f = call.figures;
  const secs = (ms) => (ms == null ? "–" : clock(ms));
  switch (sortBy) {
    case "NON_TALK":
      return [t("nonTalk"), secs(f?.nonTalkMs)];
    case "LONGEST_NON_TALK":
      return [t("longestPause"), secs(f?.longestNonTalkMs)];
    case "MUSIC":
      return [t("onHold"), secs(f?.musicMs)];
    case "INTERRUPTIONS":
      return [t("interruptions"), f ? f.interruptionCount : "–"];
    case "TALK_SPEED":
      return [t("wordsPerMinute"), f?.wordsPerMinute == null ? "–" : Math.round(f.wordsPerMinute)];
    default:
      return null;
  }
}

/** One page of calls (or of search hits, when there is a query) into `into`. */
async function callList(project, query, into) {
  const base = `/v1/projects/${project.id}/calls`;
  const page = Number(query.get("page") || 1);
  const q = query.get("q") || "";
  const params = new URLSearchParams({ page, pageSize: 25 });
  for (const key of ["from", "to"]) if (query.get(key)) params.set(key, new Date(query.get(key)).toISOString());
  for (const key of LIST_KEYS) if (!q && query.get(key)) params.set(key, query.get(key));
  const sortBy = q ? null : query.get("sortBy");
  const figureHeading = sortBy && sortedFigure(sortBy, {})?.[0];
  if (q) params.set("q", q);
  const {
    data: rows,
    total,
    totalPages: pages,
  } = await api("GET", q ? `${base}/search?${params}` : `${base}?${params}`);
  const link = (n) => {
    const next = new URLSearchParams(query);
    next.set("page", n);
    return `#/p/${project.id}/calls?${next}`;
  };
  mount(
    into,
    rows.length === 0
      ? h("p", { class: "muted" }, t("noCalls"))
      : h(
          "table",
          { class: "calls" },
          h(
            "thead",
            {},
            h(
              "tr",
              {},
              [t("title"), t("date"), t("duration"), t("sentiment"), t("category"), t("items"), figureHeading]
                .filter(Boolean)
                .map((c) => h("th", { scope: "col" }, c)),
            ),
          ),
          h(
            "tbody",
            {},
            rows.map((c) =>
              h(
                "tr",
                {},
                h(
                  "td",
                  {},
                  h("a", { href: `#/p/${project.id}/calls/${c.id}`, class: "call-link" }, c.title),
                  h("div", { class: "muted small" }, c.filename),
                  c.ruleLabels?.length > 0 &&
                    h(
                      "div",
                      { class: "rule-labels" },
                      c.ruleLabels.map((label) => h("span", { class: "badge active" }, label)),
                    ),
                  c.snippet !== undefined && h("div", { class: "small" }, snippet(c.snippet)),
                ),
                h("td", {}, when(c.createdAt)),
                h("td", {}, c.durationS == null ? "" : clock(c.durationS * 1000)),
                h("td", {}, h("span", { class: levelClass(c.sentimentLevel) }, t(c.sentimentLevel))),
                h("td", {}, c.primaryCategory || h("span", { class: "muted" }, t("uncategorized"))),
                h("td", { class: "number" }, c.actionItemsCount),
                figureHeading && h("td", { class: "number figure" }, sortedFigure(sortBy, c)[1]),
              ),
            ),
          ),
        ),
    pages > 1 &&
      h(
        "nav",
        { class: "pager", "aria-label": t("page") },
        page > 1 && h("a", { href: link(page - 1) }, t("previous")),
        h("span", {}, `${t("page")} ${page} ${t("of")} ${pages} (${total})`),
        page < pages && h("a", { href: link(page + 1) }, t("next")),
      ),
  );
}
