// Settings of a project: its category tree, analysis templates, speaker presets, rules (rules.js),
// vocabulary (vocabulary.js) and webhooks.
// Each change goes to the API at once and the section is read again, so what is shown is what
// is stored.

import { api } from "/app/api.js";
import { flattenTree, h, mount, save, toast } from "/app/dom.js";
import { count, t, when } from "/app/i18n.js";
import { rulesSection } from "/app/rules.js";
import { vocabularySection } from "/app/vocabulary.js";

const ANSWER_TYPES = ["TEXT", "NUMBER", "BOOLEAN", "DATE", "SINGLE_CHOICE", "MULTI_CHOICE"];
const EVENTS = [
  "*",
  "call.completed",
  "call.failed",
  "call.category_changed",
  "call.rule_matched",
  "action_item.created",
  "action_item.updated",
  "action_item.deleted",
];

/** Runs `change` and, when it worked, reads the section again; a refusal is shown and what
 *  was typed stays. */
async function act(change, reload) {
  if ((await save(change)) !== undefined) await reload();
}

/** One `li` for each of `list`, holding what `entry` makes of it, or the line `none` when
 *  the list is empty. */
function listOr(list, none, entry) {
  return list.length === 0
    ? h("p", { class: "muted" }, t(none))
    : h(
        "ul",
        {},
        list.map((x) => h("li", {}, entry(x))),
      );
}

/** A one-row form whose submission makes `change` and then runs `reload`. */
function rowForm(change, reload, ...fields) {
  const submit = (e) => {
    e.preventDefault();
    act(change, reload);
  };
  return h("form", { class: "row", onsubmit: submit }, ...fields);
}

/** A button that makes `change` and then runs `reload`. */
function actButton(label, change, reload) {
  return h("button", { type: "button", onclick: () => act(change, reload) }, label);
}

/** A button that, once the person confirms, deletes `path` (named `name` in the question) and
 *  reads the section again. */
function deleteButton(name, path, reload) {
  return h(
    "button",
    {
      type: "button",
      class: "danger",
      onclick: () => confirm(`${t("delete")} ${name}?`) && act(() => api("DELETE", path), reload),
    },
    t("delete"),
  );
}

export async function settingsPage(main, project, fresh = () => true) {
  const base = `/v1/projects/${project.id}`;
  const sections = {
    categories: h("section", { class: "card", id: "categories" }),
    templates: h("section", { class: "card", id: "templates" }),
    presets: h("section", { class: "card", id: "presets" }),
    rules: h("section", { class: "card", id: "rules" }),
    vocabulary: h("section", { class: "card", id: "vocabulary" }),
    webhooks: h("section", { class: "card", id: "webhooks" }),
  };
  mount(main, h("h1", {}, t("settings")), Object.values(sections));

  async function categories() {
    const tree = await api("GET", `${base}/categories`);
    const flat = flattenTree(tree);
    const parentPicker = (id, except, of) =>
      h(
        "select",
        { id, "aria-label": of ? `${t("parent")}: ${of}` : t("parent") },
        h("option", { value: "" }, t("topLevel")),
        flat
          .filter((c) => !except || !isUnder(flat, c.id, except))
          .map((c) => h("option", { value: c.id }, `${"— ".repeat(c.depth)}${c.name}`)),
      );
    const name = h("input", { id: "category-name", required: true, maxlength: 200 });
    const description = h("input", { id: "category-description", maxlength: 2000 });
    const parent = parentPicker("category-parent");
    mount(
      sections.categories,
      h("h2", {}, t("categories")),
      flat.length === 0
        ? h("p", { class: "muted" }, t("noCategories"))
        : h(
            "ul",
            { class: "tree" },
            flat.map((c) => {
              const rename = h("input", { value: c.name, "aria-label": `${t("name")}: ${c.name}`, class: "rename" });
              const move = parentPicker(`move-${c.id}`, c.id, c.name);
              move.value = c.parent || "";
              return h(
                "li",
                { class: `depth-${Math.min(c.depth, 4)}`, dataset: { id: c.id } },
                rename,
                h(
                  "button",
                  {
                    type: "button",
                    "aria-label": `${t("rename")}: ${c.name}`,
                    onclick: () =>
                      act(
                        () =>
                          api("PUT", `${base}/categories/${c.id}`, {
                            name: rename.value,
                            description: c.description ?? null,
                          }),
                        categories,
                      ),
                  },
                  t("rename"),
                ),
                move,
                h(
                  "button",
                  {
                    type: "button",
                    "aria-label": `${t("move")}: ${c.name}`,
                    onclick: () =>
                      act(
                        () => api("PATCH", `${base}/categories/${c.id}/move`, { parentId: move.value || null }),
                        categories,
                      ),
                  },
                  t("move"),
                ),
                h("span", { class: "muted small" }, count(c.totalCallCount, "call")),
                h(
                  "button",
                  {
                    type: "button",
                    class: "danger",
                    "aria-label": `${t("delete")}: ${c.name}`,
                    onclick: () => {
                      const below = flat.filter((x) => x.id !== c.id && isUnder(flat, x.id, c.id)).length;
                      const message = t("confirmCategoryDelete")
                        .replace("{name}", c.name)
                        .replace("{below}", below)
                        .replace("{calls}", c.totalCallCount);
                      if (confirm(message)) act(() => api("DELETE", `${base}/categories/${c.id}`), categories);
                    },
                  },
                  t("delete"),
                ),
              );
            }),
          ),
      rowForm(
        () =>
          api("POST", `${base}/categories`, {
            name: name.value,
            description: description.value || null,
            parentId: parent.value || null,
          }),
        categories,
        h("label", { for: "category-name" }, t("name")),
        name,
        h("label", { for: "category-description" }, t("description")),
        description,
        h("label", { for: "category-parent" }, t("parent")),
        parent,
        h("button", { type: "submit", class: "primary" }, t("add")),
      ),
    );
  }

  async function templates() {
    const list = await api("GET", `${base}/analysis-templates`);
    const name = h("input", { id: "template-name", required: true, maxlength: 200 });
    const fields = h("ol", { class: "fields" });
    const addField = () =>
      fields.append(
        h(
          "li",
          { class: "row field" },
          h("input", { class: "label", placeholder: t("label"), "aria-label": t("label"), required: true }),
          h("input", { class: "prompt", placeholder: t("question"), "aria-label": t("question"), required: true }),
          h(
            "select",
            { class: "type", "aria-label": t("answerType") },
            ANSWER_TYPES.map((a) => h("option", { value: a }, t(`answer.${a}`))),
          ),
          h("input", { class: "options", placeholder: t("optionsHelp"), "aria-label": t("options") }),
        ),
      );
    addField();
    mount(
      sections.templates,
      h("h2", {}, t("templates")),
      listOr(list, "noTemplates", (tpl) => [
        h("strong", {}, tpl.name),
        tpl.isActive && h("span", { class: "badge active" }, t("active")),
        h(
          "span",
          { class: "muted small" },
          ` ${tpl.fields.map((f) => `${f.label} (${t(`answer.${f.answerType}`)})`).join(", ")}`,
        ),
        " ",
        actButton(
          tpl.isActive ? t("deactivate") : t("activate"),
          () => api("POST", `${base}/analysis-templates/${tpl.id}/${tpl.isActive ? "deactivate" : "activate"}`),
          templates,
        ),
        deleteButton(tpl.name, `${base}/analysis-templates/${tpl.id}`, templates),
      ]),
      h(
        "form",
        {
          onsubmit: (e) => {
            e.preventDefault();
            const body = {
              name: name.value,
              isActive: true,
              fields: [...fields.children].map((f) => {
                const options = f
                  .querySelector(".options")
                  .value.split(",")
                  .map((o) => o.trim())
                  .filter(Boolean);
                return {
                  label: f.querySelector(".label").value,
                  prompt: f.querySelector(".prompt").value,
                  answerType: f.querySelector(".type").value,
                  ...(options.length ? { options } : {}),
                };
              }),
            };
            act(() => api("POST", `${base}/analysis-templates`, body), templates);
          },
        },
        h("div", { class: "row" }, h("label", { for: "template-name" }, t("name")), name),
        fields,
        h(
          "div",
          { class: "row" },
          h("button", { type: "button", onclick: addField }, t("addField")),
          h("button", { type: "submit", class: "primary" }, t("create")),
        ),
      ),
    );
  }

  async function presets() {
    const list = await api("GET", `${base}/speaker-presets`);
    const name = h("input", { id: "preset-name", required: true });
    const speakers = h("input", { id: "preset-speakers", required: true, placeholder: "Agent, Customer" });
    mount(
      sections.presets,
      h("h2", {}, t("presets")),
      listOr(list, "noPresets", (p) => [
        h("strong", {}, p.name),
        ` ${p.speakers.join(", ")} `,
        p.isDefault
          ? h("span", { class: "badge active" }, t("default"))
          : actButton(t("makeDefault"), () => api("PATCH", `${base}/speaker-presets/${p.id}/default`), presets),
        deleteButton(p.name, `${base}/speaker-presets/${p.id}`, presets),
      ]),
      rowForm(
        () =>
          api("POST", `${base}/speaker-presets`, {
            name: name.value,
            speakers: speakers.value
              .split(",")
              .map((s) => s.trim())
              .filter(Boolean),
          }),
        presets,
        h("label", { for: "preset-name" }, t("name")),
        name,
        h("label", { for: "preset-speakers" }, t("speakers")),
        speakers,
        h("button", { type: "submit", class: "primary" }, t("create")),
      ),
    );
  }

  async function webhooks(secretShown) {
    const list = await api("GET", `${base}/webhooks`);
    const url = h("input", { id: "webhook-url", type: "url", required: true, placeholder: "https://…" });
    const events = h(
      "select",
      { id: "webhook-events", multiple: true, size: 4 },
      EVENTS.map((e) => h("option", { value: e, selected: e === "*" }, e)),
    );
    const log = h("div", { id: "deliveries" });
    const problem = h("p", { class: "error", id: "webhook-error", role: "alert" });
    const showLog = async (hook) => {
      const deliveries = await save(() => api("GET", `${base}/webhooks/${hook.id}/deliveries`));
      if (!deliveries) return;
      mount(
        log,
        h("h3", {}, `${t("deliveries")}: ${hook.url}`),
        deliveries.length === 0
          ? h("p", { class: "muted" }, t("noDeliveries"))
          : h(
              "table",
              {},
              h(
                "thead",
                {},
                h(
                  "tr",
                  {},
                  [t("event"), t("status"), t("attempts"), t("answer"), t("date"), ""].map((c) =>
                    h("th", { scope: "col" }, c),
                  ),
                ),
              ),
              h(
                "tbody",
                {},
                deliveries.map((d) =>
                  h(
                    "tr",
                    {},
                    h("td", {}, d.eventType),
                    h("td", {}, d.status),
                    h("td", { class: "number" }, d.attempts),
                    h(
                      "td",
                      {},
                      d.responseCode ?? "",
                      d.errorMessage && h("div", { class: "muted small" }, d.errorMessage),
                    ),
                    h("td", {}, when(d.lastAttemptAt || d.createdAt)),
                    h(
                      "td",
                      {},
                      h(
                        "button",
                        {
                          type: "button",
                          onclick: () =>
                            act(
                              () => api("POST", `${base}/webhooks/${hook.id}/deliveries/${d.id}/redeliver`),
                              () => showLog(hook),
                            ),
                        },
                        t("redeliver"),
                      ),
                    ),
                  ),
                ),
              ),
            ),
      );
    };
    mount(
      sections.webhooks,
      h("h2", {}, t("webhooks")),
      secretShown &&
        h(
          "div",
          { class: "secret", role: "alert" },
          h("p", {}, t("secretOnce")),
          h("code", { id: "webhook-secret" }, secretShown),
          " ",
          h(
            "button",
            {
              type: "button",
              onclick: () =>
                navigator.clipboard.writeText(secretShown).then(
                  () => toast(t("copied")),
                  () => toast(t("copyFailed"), "error"),
                ),
            },
            t("copy"),
          ),
        ),
      listOr(list, "noWebhooks", (w) => [
        h("strong", {}, w.url),
        ` ${w.events.join(", ")} `,
        h("span", { class: w.active ? "badge active" : "badge" }, w.active ? t("active") : t("paused")),
        " ",
        actButton(w.active ? t("pause") : t("resume"), () => api("PATCH", `${base}/webhooks/${w.id}/toggle`), webhooks),
        actButton(
          t("test"),
          () => api("POST", `${base}/webhooks/${w.id}/test`),
          () => showLog(w),
        ),
        h("button", { type: "button", onclick: () => showLog(w) }, t("deliveries")),
        deleteButton(w.url, `${base}/webhooks/${w.id}`, () => webhooks()),
      ]),
      log,
      h(
        "form",
        {
          class: "row",
          onsubmit: async (e) => {
            e.preventDefault();
            try {
              const created = await api("POST", `${base}/webhooks`, {
                url: url.value,
                events: [...events.selectedOptions].map((o) => o.value),
              });
              await webhooks(created.secret);
            } catch (error) {
              problem.textContent = error.message;
            }
          },
        },
        h("label", { for: "webhook-url" }, "URL"),
        url,
        h("label", { for: "webhook-events" }, t("events")),
        events,
        h("button", { type: "submit", class: "primary" }, t("create")),
      ),
      problem,
    );
  }

  if (!fresh()) return;
  await Promise.all([
    categories(),
    templates(),
    presets(),
    rulesSection(sections.rules, project),
    vocabularySection(sections.vocabulary, project),
    webhooks(),
  ]);
}

/** Whether category `id` is `ancestor` or below it. */
function isUnder(flat, id, ancestor) {
  for (let at = flat.find((c) => c.id === id); at; at = flat.find((c) => c.id === at.parent)) {
    if (at.id === ancestor) return true;
  }
  return false;
}
