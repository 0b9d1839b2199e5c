// The application's frame: sign-in, the project picker, the header and the router that draws each
// screen (calls.js, call.js, board.js, dashboard.js, settings.js) into the page. Pages are
// addressed by the URL's fragment (#/p/{project}/calls), so the server serves one page and every
// view can be bookmarked.

import { ApiError, api, session } from "/app/api.js";
import { boardPage } from "/app/board.js";
import { callPage } from "/app/call.js";
import { callsPage } from "/app/calls.js";
import { dashboardPage } from "/app/dashboard.js";
import { h, mount, save } from "/app/dom.js";
import { lang, t, toggleLanguage } from "/app/i18n.js";
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
    else if (view === "actions") await boardPage(main, project, query, go, () => mine === rendering);
    else if (view === "dashboard") await dashboardPage(main, project, query, go, () => mine === rendering);
    else if (view === "settings") await settingsPage(main, project, () => mine === rendering);
    else await callsPage(main, project, query, go, () => mine === rendering);
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
