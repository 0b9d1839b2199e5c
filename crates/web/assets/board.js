// The action items board: filters, sorting, paging, and each item's status, edited in place.

import { api, blob } from "/app/api.js";
import { download, h, mount } from "/app/dom.js";
import { t, when } from "/app/i18n.js";
import { PRIORITIES, statusPicker } from "/app/items.js";

/** The board: every filter and sort of the action item list, its counters as tabs. */
export async function boardPage(main, project, query, go, fresh = () => true) {
  const status = query.get("status") || "";
  const overdueOnly = status === "OVERDUE";
  const page = Number(query.get("page") || 0);
  const params = new URLSearchParams({
    pageSize: 50,
    page,
    sortBy: query.get("sortBy") || "CREATED_AT",
    sortDir: query.get("sortDir") || "DESC",
  });
  if (status && !overdueOnly) params.set("status", status);
  // "Overdue" is open items past due: the open ones are asked for, the page keeps those due.
  if (overdueOnly) params.set("status", "PENDING,IN_PROGRESS");
  for (const key of ["priority", "responsibleParty", "search"]) if (query.get(key)) params.set(key, query.get(key));
  for (const key of ["from", "to"]) if (query.get(key)) params.set(key, new Date(query.get(key)).toISOString());
  // The pending view lists every open item, overdue first: all of the overdue ones, unpaged.
  const [list, parties, open] = await Promise.all([
    api("GET", `/v1/projects/${project.id}/action-items?${params}`),
    api("GET", `/v1/projects/${project.id}/action-items/responsible-parties`).catch(() => []),
    overdueOnly ? api("GET", `/v1/projects/${project.id}/action-items/pending`) : null,
  ]);
  if (!fresh()) return;
  const items = overdueOnly ? open.filter((i) => i.isOverdue) : list.items;
  const withQuery = (changes) => {
    const next = new URLSearchParams(query);
    for (const [key, value] of Object.entries(changes))
      if (value) next.set(key, value);
      else next.delete(key);
    return `#/p/${project.id}/actions?${next}`;
  };
  const tab = (value, label, count) =>
    h(
      "a",
      {
        href: withQuery({ status: value, page: "" }),
        class: "chip",
        "aria-current": status === value ? "page" : null,
        dataset: { status: value || "ALL" },
      },
      `${label} `,
      h("span", { class: "count" }, count),
    );
  const control = (id, label, el) => [h("label", { for: id }, label), el];
  const select = (id, values, current) =>
    h(
      "select",
      { id },
      values.map(([value, text]) => h("option", { value, selected: value === current }, text)),
    );
  const search = h("input", { id: "item-search", type: "search", value: query.get("search") || "" });
  const priority = select(
    "item-priority",
    [["", t("all")], ...PRIORITIES.map((p) => [p, t(p)])],
    query.get("priority") || "",
  );
  const owner = select(
    "item-owner",
    [["", t("all")], ...(parties.parties || parties).map((p) => [p, p])],
    query.get("responsibleParty") || "",
  );
  const from = h("input", { id: "item-from", type: "date", value: (query.get("from") || "").slice(0, 10) });
  const to = h("input", { id: "item-to", type: "date", value: (query.get("to") || "").slice(0, 10) });
  const sortBy = select(
    "item-sort",
    [
      ["CREATED_AT", t("created")],
      ["CALL_DATE", t("callDate")],
      ["PRIORITY", t("priority")],
      ["STATUS", t("status")],
    ],
    query.get("sortBy") || "CREATED_AT",
  );
  const sortDir = select(
    "item-direction",
    [
      ["DESC", t("descending")],
      ["ASC", t("ascending")],
    ],
    query.get("sortDir") || "DESC",
  );
  sortDir.setAttribute("aria-label", t("direction"));
  const pages = overdueOnly ? 1 : Math.ceil(list.totalCount / 50);
  mount(
    main,
    h("h1", {}, t("actionItems")),
    h(
      "nav",
      { class: "chips", "aria-label": t("status") },
      tab("", t("all"), list.pendingCount + list.inProgressCount + list.doneCount + list.cancelledCount),
      tab("PENDING", t("pending"), list.pendingCount),
      tab("IN_PROGRESS", t("inProgress"), list.inProgressCount),
      tab("DONE", t("done"), list.doneCount),
      tab("CANCELLED", t("cancelled"), list.cancelledCount),
      tab("OVERDUE", t("overdue"), list.overdueCount),
    ),
    h(
      "form",
      {
        class: "filters",
        role: "search",
        onsubmit: (e) => {
          e.preventDefault();
          go(
            withQuery({
              search: search.value.trim(),
              priority: priority.value,
              responsibleParty: owner.value,
              from: from.value && `${from.value}T00:00:00`,
              to: to.value && `${to.value}T23:59:59`,
              sortBy: sortBy.value,
              sortDir: sortDir.value,
              page: "",
            }),
          );
        },
      },
      control("item-search", t("search"), search),
      control("item-priority", t("priority"), priority),
      control("item-owner", t("owner"), owner),
      control("item-from", t("from"), from),
      control("item-to", t("to"), to),
      control("item-sort", t("sortBy"), sortBy),
      sortDir,
      h("button", { type: "submit", class: "primary" }, t("apply")),
      download(t("downloadCsv"), "action-items.csv", () => {
        const filters = new URLSearchParams(params);
        filters.delete("page");
        filters.delete("pageSize");
        return blob(`/v1/projects/${project.id}/action-items/export?${filters}`);
      }),
    ),
    items.length === 0
      ? h("p", { class: "muted" }, t("noItems"))
      : h(
          "table",
          { class: "items" },
          h(
            "thead",
            {},
            h(
              "tr",
              {},
              [t("description"), t("owner"), t("deadline"), t("priority"), t("status"), t("call")].map((c) =>
                h("th", { scope: "col" }, c),
              ),
            ),
          ),
          h(
            "tbody",
            {},
            items.map((i) =>
              h(
                "tr",
                { class: i.isOverdue ? "overdue" : null },
                h("td", {}, i.description, i.isOverdue && h("span", { class: "badge" }, t("overdue"))),
                h("td", {}, i.responsibleParty || ""),
                h("td", {}, i.deadlineMentioned || "", i.dueAt && h("div", { class: "muted small" }, when(i.dueAt))),
                h("td", {}, t(i.priority)),
                h(
                  "td",
                  {},
                  statusPicker(project, i, () => go(location.hash)),
                ),
                h("td", {}, h("a", { href: `#/p/${project.id}/calls/${i.transcriptId}?item=${i.id}` }, i.callFilename)),
              ),
            ),
          ),
        ),
    pages > 1 &&
      h(
        "nav",
        { class: "pager", "aria-label": t("page") },
        page > 0 && h("a", { href: withQuery({ page: String(page - 1) }) }, t("previous")),
        h("span", {}, `${t("page")} ${page + 1} ${t("of")} ${pages}`),
        page + 1 < pages && h("a", { href: withQuery({ page: String(page + 1) }) }, t("next")),
      ),
  );
}
