// The application: sign-in, projects, the calls list with search and upload, and the action
// items board. Pages are addressed by the URL's fragment (#/p/{project}/calls), so the server
// serves one page and every view can be bookmarked.

import { ApiError, api, session, upload } from "/app/api.js";
import { callPage, statusPicker } from "/app/call.js";
import { dashboardPage } from "/app/dashboard.js";
import { clock, flattenTree, h, mount, save, snippet } from "/app/dom.js";
import { lang, t, toggleLanguage, when } from "/app/i18n.js";
import { settingsPage } from "/app/settings.js";

const main = document.getElementById("main");
const top = document.getElementById("top");

/** The current route: `#/p/{project}/{view}/{id}` plus query parameters after `?`. */
function route() {
  const [path, query = ""] = location.hash.replace(/^#/, "").split("?");
  const parts = path.split("/").filter(Boolean);
  return { parts, query: new URLSearchParams(query) };
}

function go(hash) {
  if (location.hash === hash) render();
  else location.hash = hash;
}

let projects = [];
// Each render has a number; a slow one that finishes after a newer one started draws nothing.
let rendering = 0;

async function render() {
  const mine = ++rendering;
  document.documentElement.lang = lang;
  if (!session.key) return signIn();
  const { parts, query } = route();
  try {
    if (!projects.length) projects = (await api("GET", "/v1/projects?pageSize=100")).data;
    let project = parts[0] === "p" ? projects.find((p) => p.id === parts[1]) : null;
    // A project made elsewhere since the list was read, or past its first hundred: by its id.
    if (parts[0] === "p" && !project) {
      project = await api("GET", `/v1/projects/${encodeURIComponent(parts[1])}`).catch(() => null);
      if (mine !== rendering) return;
      if (project) projects.push(project);
    }
    header(project);
    if (!project) return projectPicker();
    const view = parts[2] || "calls";
    if (view === "calls" && parts[3]) await callPage(main, project, parts[3], query, go, () => mine === rendering);
    else if (view === "actions") await board(project, query, () => mine === rendering);
    else if (view === "dashboard") await dashboardPage(main, project, query, go, () => mine === rendering);
    else if (view === "settings") await settingsPage(main, project, () => mine === rendering);
    else await callsPage(project, query, () => mine === rendering);
    if (mine === rendering) arrived(project);
  } catch (error) {
    if (!session.key) return signIn();
    if (mine === rendering) mount(main, h("p", { class: "error", role: "alert" }, `${t("error")}: ${error.message}`));
  }
}

/** After a page is drawn: its title in the tab, and focus at its heading for screen readers. */
function arrived(project) {
  // Which address the content now shows (scripts and tests can wait for it).
  main.dataset.shows = location.hash;
  const heading = main.querySelector("h1");
  document.title = [heading?.textContent, project?.name, "callscope"].filter(Boolean).join(" · ");
  if (heading && !main.contains(document.activeElement)) {
    heading.setAttribute("tabindex", "-1");
    heading.focus({ preventScroll: true });
  }
}

function header(project) {
  const link = (hash, text, current) => h("a", { href: hash, "aria-current": current ? "page" : null }, text);
  const view = route().parts[2] || "calls";
  mount(
    top,
    h(
      "a",
      { class: "brand", href: "#/" },
      h("img", { src: "/app/icon.svg", alt: "", width: 24, height: 24 }),
      t("appName"),
    ),
    project &&
      h(
        "nav",
        { "aria-label": "Sections" },
        h("span", { class: "project" }, project.name),
        link(`#/p/${project.id}/calls`, t("calls"), view === "calls"),
        link(`#/p/${project.id}/actions`, t("actionItems"), view === "actions"),
        link(`#/p/${project.id}/dashboard`, t("dashboard"), view === "dashboard"),
        link(`#/p/${project.id}/settings`, t("settings"), view === "settings"),
      ),
    h("span", { class: "spacer" }),
    h(
      "button",
      {
        type: "button",
        class: "link",
        id: "language",
        onclick: () => {
          toggleLanguage();
          render();
        },
      },
      t("switchLanguage"),
    ),
    h(
      "button",
      {
        type: "button",
        class: "link",
        id: "sign-out",
        onclick: () => {
          session.signOut();
          projects = [];
          go("#/");
        },
      },
      t("signOut"),
    ),
  );
}

function signIn() {
  mount(
    top,
    h("span", { class: "brand" }, h("img", { src: "/app/icon.svg", alt: "", width: 24, height: 24 }), t("appName")),
    h("span", { class: "spacer" }),
    h(
      "button",
      {
        type: "button",
        class: "link",
        id: "language",
        onclick: () => {
          toggleLanguage();
          signIn();
        },
      },
      t("switchLanguage"),
    ),
  );
  const input = h("input", {
    id: "api-key",
    type: "password",
    autocomplete: "off",
    required: true,
    spellcheck: "false",
  });
  const problem = h("p", { class: "error", role: "alert" });
  const form = h(
    "form",
    {
      class: "card narrow",
      onsubmit: async (e) => {
        e.preventDefault();
        session.signIn(input.value.trim());
        try {
          projects = (await api("GET", "/v1/projects?pageSize=100")).data;
          render();
        } catch (error) {
          session.signOut();
          problem.textContent = error instanceof ApiError && error.status === 401 ? t("badKey") : error.message;
        }
      },
    },
    h("h1", {}, t("signInTitle")),
    h("label", { for: "api-key" }, t("apiKey")),
    input,
    h("p", { class: "muted" }, t("keyHelp")),
    problem,
    h("button", { type: "submit", class: "primary" }, t("signIn")),
  );
  mount(main, form);
  input.focus();
}

function projectPicker() {
  const name = h("input", { id: "project-name", required: true, maxlength: 200 });
  mount(
    main,
    h("h1", {}, t("projects")),
    projects.length
      ? h(
          "ul",
          { class: "projects" },
          projects.map((p) =>
            h(
              "li",
              {},
              h("a", { href: `#/p/${p.id}/calls` }, p.name),
              p.description && h("span", { class: "muted" }, ` — ${p.description}`),
            ),
          ),
        )
      : h("p", { class: "muted" }, t("noProjects")),
    h(
      "form",
      {
        class: "card inline",
        onsubmit: async (e) => {
          e.preventDefault();
          const project = await save(() => api("POST", "/v1/projects", { name: name.value }));
          if (!project) return;
          projects.unshift(project);
          go(`#/p/${project.id}/calls`);
        },
      },
      h("label", { for: "project-name" }, t("newProject")),
      name,
      h("button", { type: "submit", class: "primary" }, t("create")),
    ),
  );
}

// --- calls ---

const levelClass = (level) => `level level-${level}`;

async function callsPage(project, query, fresh) {
  const q = query.get("q") || "";
  const list = h("div", { id: "call-list" }, h("p", { class: "muted" }, t("loading")));
  // The list follows finished uploads without losing the upload panel's rows.
  const refresh = () =>
    callList(project, query, list).catch((error) =>
      mount(list, h("p", { class: "error", role: "alert" }, error.message)),
    );
  // The page of calls is asked for together with the category tree the filters need, not after it.
  const listed = refresh();
  const tree = await api("GET", `/v1/projects/${project.id}/categories`).catch(() => []);
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
      ["en", "en"],
      ["pl", "pl"],
    ],
    query.get("language") || "",
  );
  const [categoryLabel, category] = choice("filter-category", t("category"), categories, query.get("categoryId") || "");
  const overdue = h("input", {
    id: "filter-overdue",
    type: "checkbox",
    checked: query.get("hasOverdueItems") === "true",
  });
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
    if (overdue.checked) next.set("hasOverdueItems", "true");
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
      h("label", { class: "check" }, overdue, ` ${t("hasOverdue")}`),
      h("button", { type: "submit", class: "primary" }, t("apply")),
      [...query.keys()].some((k) => k !== "page") && h("a", { href: `#/p/${project.id}/calls` }, t("clear")),
      h("p", { id: "search-help", class: "muted help" }, t("searchHelp"), q ? ` ${t("searchIgnoresFilters")}` : ""),
    ),
    list,
  );
  await listed;
}

/** One page of calls (or of search hits, when there is a query) into `into`. */
async function callList(project, query, into) {
  const base = `/v1/projects/${project.id}/calls`;
  const page = Number(query.get("page") || 1);
  const q = query.get("q") || "";
  const params = new URLSearchParams({ page, pageSize: 25 });
  for (const key of ["from", "to"]) if (query.get(key)) params.set(key, new Date(query.get(key)).toISOString());
  for (const key of ["sentimentLevel", "language", "categoryId", "hasOverdueItems"])
    if (!q && query.get(key)) params.set(key, query.get(key));
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
              [t("title"), t("date"), t("duration"), t("sentiment"), t("category"), t("items")].map((c) =>
                h("th", { scope: "col" }, c),
              ),
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
                  c.snippet !== undefined && h("div", { class: "small" }, snippet(c.snippet)),
                ),
                h("td", {}, when(c.createdAt)),
                h("td", {}, c.durationS == null ? "" : clock(c.durationS * 1000)),
                h("td", {}, h("span", { class: levelClass(c.sentimentLevel) }, t(c.sentimentLevel))),
                h("td", {}, c.primaryCategory || h("span", { class: "muted" }, t("uncategorized"))),
                h("td", { class: "number" }, c.actionItemsCount),
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

/** Uploads sent at once: the rest wait their turn, so that a folder of calls does not open a
 *  connection (and spend an upload of the key's budget) each at the same moment. */
const UPLOADS_AT_ONCE = 2;
/** Tries of an upload the server turns away for now (429, 503), each after its Retry-After. */
const UPLOAD_TRIES = 6;

const wait = (ms) => new Promise((r) => setTimeout(r, ms));

/** Drag-and-drop upload of several files with language, channel roles and recording date, then
 *  each job's stage and progress until its call can be opened. */
function uploader(project, uploaded) {
  const language = h(
    "select",
    { id: "upload-language" },
    ["en", "pl"].map((l) => h("option", { value: l, selected: l === project.defaultLanguage }, l)),
  );
  const roles = h("input", { id: "upload-roles", placeholder: "agent,customer", "aria-describedby": "roles-help" });
  const recorded = h("input", { id: "upload-recorded", type: "date" });
  const files = h("input", {
    id: "upload-files",
    type: "file",
    multiple: true,
    accept: "audio/*,.wav,.mp3,.flac,.ogg,.m4a",
  });
  const list = h("ul", { class: "uploads", "aria-live": "polite" });
  const queue = [];
  let sending = 0;
  const next = () => {
    while (sending < UPLOADS_AT_ONCE && queue.length) {
      sending += 1;
      const task = queue.shift();
      sendOne(task).finally(() => {
        sending -= 1;
        next();
      });
    }
  };
  const sendOne = async ({ file, query, bar, state, row }) => {
    for (let attempt = 1; ; attempt += 1) {
      state.textContent = t("uploading");
      try {
        const accepted = await upload(project.id, file, query, (f) => {
          bar.value = f;
        });
        // Followed apart from the queue: the next upload need not wait for this one's job.
        follow(project, accepted, bar, state, row).then((done) => done && uploaded());
        return;
      } catch (error) {
        if (error.retryAfter && attempt < UPLOAD_TRIES && row.isConnected) {
          bar.value = 0;
          state.textContent = `${t("serverBusyRetry")} ${error.retryAfter} s`;
          await wait(error.retryAfter * 1000);
          continue;
        }
        row.classList.add("failed");
        if (error.status === 409 && error.problem?.transcriptId) {
          mount(
            state,
            `${t("duplicate")} `,
            h("a", { href: `#/p/${project.id}/calls/${error.problem.transcriptId}` }, t("open")),
          );
        } else {
          state.textContent = `${t("failed")}: ${error.message}`;
        }
        return;
      }
    }
  };
  const send = (chosen) => {
    for (const file of chosen) {
      const bar = h("progress", { max: 1, value: 0 });
      const state = h("span", { class: "state" }, t("waitingToUpload"));
      const row = h("li", { class: "upload" }, h("span", { class: "file" }, file.name), bar, state);
      list.append(row);
      const query = { language: language.value };
      if (roles.value.trim()) query.channel_roles = roles.value.trim();
      if (recorded.value) query.recorded_at = new Date(recorded.value).toISOString();
      queue.push({ file, query, bar, state, row });
    }
    next();
  };
  files.addEventListener("change", () => {
    send([...files.files]);
    files.value = "";
  });
  const zone = h(
    "div",
    {
      class: "dropzone",
      id: "dropzone",
      ondragover: (e) => {
        e.preventDefault();
        zone.classList.add("over");
      },
      ondragleave: () => zone.classList.remove("over"),
      ondrop: (e) => {
        e.preventDefault();
        zone.classList.remove("over");
        send([...e.dataTransfer.files]);
      },
    },
    h("p", {}, t("dropHere")),
    h("label", { class: "button", for: "upload-files" }, t("chooseFiles")),
    files,
  );
  return h(
    "section",
    { class: "card", "aria-labelledby": "upload-title" },
    h("h2", { id: "upload-title" }, t("upload")),
    h(
      "div",
      { class: "row" },
      h("label", { for: "upload-language" }, t("language")),
      language,
      h("label", { for: "upload-roles" }, t("channelRoles")),
      roles,
      h("label", { for: "upload-recorded" }, t("recordedAt")),
      recorded,
    ),
    h("p", { id: "roles-help", class: "muted help" }, t("channelRolesHelp")),
    zone,
    list,
  );
}

/** The jobs followed to their end, by one poller: one request at a time; each job asked again
 *  after an interval that doubles (1 s up to 15 s) while its progress stands still, and after a
 *  429's or 503's Retry-After. A page following twenty uploads asks a few times a second, not
 *  twenty. */
const followed = new Map();
let polling = false;

function follow(project, accepted, bar, state, row) {
  const jobId = accepted.jobId || accepted.existingJobId;
  return new Promise((resolve) => {
    followed.set(jobId, { project, bar, state, row, resolve, due: 0, interval: 1000, progress: null });
    if (!polling) poll();
  });
}

async function poll() {
  polling = true;
  while (followed.size) {
    for (const [jobId, f] of [...followed]) {
      // The row is gone (the page was left): stop following.
      if (!f.row.isConnected) {
        followed.delete(jobId);
        f.resolve(false);
        continue;
      }
      if (f.due > Date.now()) continue;
      try {
        const job = await api("GET", `/v1/projects/${f.project.id}/calls/jobs/${jobId}`);
        f.bar.value = job.progress;
        f.state.textContent = `${job.status === "PENDING" ? t("queued") : job.stage} ${Math.round(job.progress * 100)}%`;
        if (job.status === "COMPLETED" || job.status === "FAILED") {
          followed.delete(jobId);
          f.row.classList.add(job.status === "COMPLETED" ? "completed" : "failed");
          if (job.status === "COMPLETED") {
            mount(
              f.state,
              `${t("completed")} `,
              h("a", { href: `#/p/${f.project.id}/calls/${job.transcriptId}` }, t("open")),
            );
          } else {
            f.state.textContent = `${t("failed")}: ${job.errorMessage || ""}`;
          }
          f.resolve(job.status === "COMPLETED");
          continue;
        }
        f.interval = job.progress !== f.progress ? 1000 : Math.min(f.interval * 2, 15000);
        f.progress = job.progress;
        f.due = Date.now() + f.interval;
      } catch (error) {
        f.due = Date.now() + (error.retryAfter || 5) * 1000;
      }
    }
    await wait(250);
  }
  polling = false;
}

// --- action items ---

/** The board: every filter and sort of the action item list, its counters as tabs. */
async function board(project, query, fresh) {
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
    [
      ["", t("all")],
      ["LOW", "LOW"],
      ["MEDIUM", "MEDIUM"],
      ["HIGH", "HIGH"],
    ],
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
                h("td", {}, i.priority),
                h("td", {}, statusPicker(project, i, render)),
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

window.addEventListener("hashchange", render);
// The skip link moves focus to the content; as a fragment link it would change the route.
document.querySelector(".skip").addEventListener("click", (e) => {
  e.preventDefault();
  main.focus();
});
// A key that stops working (revoked) sends the tab back to sign-in, unless it is there already.
window.addEventListener("signedout", () => {
  projects = [];
  if (!document.getElementById("api-key")) render();
});
render();
