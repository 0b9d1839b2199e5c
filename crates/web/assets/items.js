// Action items' controls, shared by the board and the call page: a status and a priority that
// save when changed, and the call page's row of an item with every field edited in place.

import { api } from "/app/api.js";
import { h, save } from "/app/dom.js";
import { t } from "/app/i18n.js";

const STATUSES = [
  ["PENDING", "pending"],
  ["IN_PROGRESS", "inProgress"],
  ["DONE", "done"],
  ["CANCELLED", "cancelled"],
];
/** Priorities, lowest first; each is also its text's key. */
export const PRIORITIES = ["LOW", "MEDIUM", "HIGH"];

/** Saves `body` as a change of the item; on failure, `undo` puts the control back. */
const patch = (project, item, body, undo) =>
  save(() => api("PATCH", `/v1/projects/${project.id}/action-items/${item.id}`, body), undo);

/** A select of `options` (`[value, text]`) for one field of the item, saved when changed. */
function picker(project, item, field, options, extra, changed) {
  let was = item[field];
  return h(
    "select",
    {
      ...extra,
      "aria-label": `${t(field)}: ${item.description}`,
      onchange: async (e) => {
        const el = e.target;
        const saved = await patch(project, item, { [field]: el.value }, () => {
          el.value = was;
        });
        if (saved) {
          was = el.value;
          changed?.();
        }
      },
    },
    options.map(([value, text]) => h("option", { value, selected: item[field] === value }, text)),
  );
}

/** A status picker that saves on change; `changed` runs after the save. */
export const statusPicker = (project, item, changed) =>
  picker(
    project,
    item,
    "status",
    STATUSES.map(([value, key]) => [value, t(key)]),
    { class: "status", dataset: { item: item.id } },
    changed,
  );

/** A priority picker that saves on change. */
export const priorityPicker = (project, item) =>
  picker(
    project,
    item,
    "priority",
    PRIORITIES.map((p) => [p, t(p)]),
    { class: "priority" },
  );

/** An input for one of the item's free fields, saved when changed. */
function field(project, item, name, value, type = "text") {
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
        await patch(project, item, body, () => {
          el.value = was;
        })
      )
        was = el.value;
    },
  });
}

/** A select that merges the item into another of its call; `merged` runs after. */
function mergePicker(project, item, others, merged) {
  return h(
    "select",
    {
      class: "merge",
      "aria-label": `${t("mergeInto")}: ${item.description}`,
      onchange: async (e) => {
        const into = e.target.value;
        if (!into) return;
        const done = await save(
          () => api("POST", `/v1/projects/${project.id}/action-items/${item.id}/merge`, { into }),
          () => {
            e.target.value = "";
          },
        );
        if (done) merged?.();
      },
    },
    h("option", { value: "" }, `${t("mergeInto")}…`),
    others.map((o) => h("option", { value: o.id }, o.description)),
  );
}

/** The call page's form for an item the analysis missed; `added` runs after the save. */
export function addItemForm(project, callId, added) {
  const description = h("input", {
    id: "new-item",
    type: "text",
    required: true,
    maxlength: 2000,
    placeholder: t("newItem"),
    "aria-label": t("newItem"),
  });
  const owner = h("input", {
    id: "new-item-owner",
    type: "text",
    maxlength: 200,
    placeholder: t("owner"),
    "aria-label": t("owner"),
  });
  const due = h("input", { id: "new-item-deadline", type: "date", "aria-label": t("deadline") });
  return h(
    "form",
    {
      class: "add-item row",
      onsubmit: async (e) => {
        e.preventDefault();
        const body = { description: description.value };
        if (owner.value.trim()) body.responsibleParty = owner.value.trim();
        if (due.value) body.dueAt = new Date(`${due.value}T23:59:59`).toISOString();
        const done = await save(() => api("POST", `/v1/projects/${project.id}/calls/${callId}/action-items`, body));
        if (done) added?.();
      },
    },
    description,
    owner,
    due,
    h("button", { type: "submit" }, t("addItem")),
  );
}

/**
 * The call page's row of an item: every field edited in place, its quote a link to its moment,
 * and a picker that merges it into another of `others`; `changed` runs after a merge.
 */
export function itemRow(project, item, quote, others = [], changed = undefined) {
  return h(
    "li",
    { class: item.isOverdue ? "item overdue" : "item", id: `item-${item.id}` },
    h("p", { class: "what" }, item.description, item.isOverdue && h("span", { class: "badge" }, t("overdue"))),
    h(
      "div",
      { class: "row" },
      statusPicker(project, item),
      priorityPicker(project, item),
      field(project, item, "owner", item.responsibleParty),
      field(project, item, "deadline", item.dueAt ? item.dueAt.slice(0, 10) : "", "date"),
      field(project, item, "notes", item.notes),
      others.length > 0 && mergePicker(project, item, others, changed),
    ),
    item.deadlineMentioned && h("p", { class: "muted small" }, `${t("deadline")}: “${item.deadlineMentioned}”`),
    item.evidence && h("p", { class: "small" }, quote(item.evidence)),
  );
}
