// Rules on the web pages: the settings section that writes them (a condition at a time), the
// call page's card of the rules a call matched with their evidence, and the label each shows.

import { api } from "/app/api.js";
import { clock, flattenTree, h, mount, save } from "/app/dom.js";
import { t } from "/app/i18n.js";

/** The types of personal data a rule can ask for, as the API names them. */
const PII_TYPES = [
  "EMAIL",
  "PHONE_NUMBER",
  "PESEL",
  "NIP",
  "REGON",
  "IBAN",
  "PAYMENT_CARD",
  "ID_CARD",
  "PASSPORT",
  "DATE_OF_BIRTH",
  "POSTAL_CODE",
  "ADDRESS",
  "PERSON_NAME",
];
const CONDITION_TYPES = ["phrase", "non_talk", "interruptions", "sentiment", "category", "pii"];
const PARTIES = ["any", "agent", "customer"];

const select = (id, label, values, current) =>
  h(
    "select",
    { id, "aria-label": label },
    values.map(([value, text]) => h("option", { value, selected: value === current }, text)),
  );
const number = (id, label, value) => h("input", { id, type: "number", min: 0, step: 1, value, "aria-label": label });
const party = (id, current) =>
  select(
    id,
    t("rule.by"),
    PARTIES.map((p) => [p, t(`party.${p}`)]),
    current,
  );

/** A condition in words: "customer says manager, supervisor (last 60 s)". */
export function describeCondition(c, categories) {
  switch (c.type) {
    case "phrase": {
      const window = c.window ? ` (${t(`window.${c.window.from}`)} ${c.window.seconds} s)` : "";
      return `${t(`party.${c.by}`)} ${t(c.said ? "rule.says" : "rule.neverSays")}: ${c.phrases.join(", ")}${window}`;
    }
    case "non_talk":
      return `${t("rule.pauseOver")} ${c.overSeconds} s`;
    case "interruptions":
      return `${t("interruptions")} (${t(`party.${c.by}`)}) > ${c.over}`;
    case "sentiment":
      return `${t(`party.${c.by}`)}: ${t(c.level)} (${t(`during.${c.during}`)})`;
    case "category":
      return `${t("category")}: ${categories.find((k) => k.id === c.categoryId)?.name ?? c.categoryId}`;
    default:
      return `${t("rule.pii")}: ${c.piiType}`;
  }
}

/** The fields of one condition of `type`, and how to read the condition back from them. */
function conditionFields(type, categories) {
  const id = (name) => `rule-${type}-${name}`;
  switch (type) {
    case "phrase": {
      const phrases = h("input", {
        id: id("phrases"),
        "aria-label": t("rule.phrases"),
        placeholder: t("rule.phrasesHint"),
      });
      const said = select(
        id("said"),
        t("rule.said"),
        [
          ["true", t("rule.says")],
          ["false", t("rule.neverSays")],
        ],
        "true",
      );
      const by = party(id("by"), "any");
      const window = select(
        id("window"),
        t("rule.window"),
        [
          ["", t("window.any")],
          ["start", t("window.start")],
          ["end", t("window.end")],
        ],
        "",
      );
      const seconds = number(id("seconds"), t("rule.seconds"), 60);
      return {
        fields: [by, said, phrases, window, seconds],
        read: () => ({
          type,
          phrases: phrases.value.split(",").map((p) => p.trim()),
          said: said.value === "true",
          by: by.value,
          ...(window.value ? { window: { from: window.value, seconds: Number(seconds.value) } } : {}),
        }),
      };
    }
    case "non_talk": {
      const over = number(id("over"), t("rule.pauseOver"), 30);
      return { fields: [over], read: () => ({ type, overSeconds: Number(over.value) }) };
    }
    case "interruptions": {
      const over = number(id("over"), t("interruptionsOver"), 2);
      const by = party(id("by"), "any");
      return { fields: [by, over], read: () => ({ type, over: Number(over.value), by: by.value }) };
    }
    case "sentiment": {
      const level = select(
        id("level"),
        t("sentiment"),
        ["negative", "neutral", "positive"].map((l) => [l, t(l)]),
        "negative",
      );
      const by = party(id("by"), "customer");
      const during = select(
        id("during"),
        t("rule.during"),
        ["end", "start", "call"].map((d) => [d, t(`during.${d}`)]),
        "end",
      );
      return {
        fields: [by, level, during],
        read: () => ({ type, level: level.value, by: by.value, during: during.value }),
      };
    }
    case "category": {
      const category = select(
        id("category"),
        t("category"),
        categories.map((c) => [c.id, `${"— ".repeat(c.depth)}${c.name}`]),
        categories[0]?.id,
      );
      return { fields: [category], read: () => ({ type, categoryId: category.value }) };
    }
    default: {
      const kind = select(
        id("pii"),
        t("rule.pii"),
        PII_TYPES.map((p) => [p, p]),
        "PAYMENT_CARD",
      );
      return { fields: [kind], read: () => ({ type: "pii", piiType: kind.value }) };
    }
  }
}

/** The settings section of the project's rules, in `section`: each rule with its conditions,
 *  how far its earlier calls are filed, a link to the calls it matched, a switch and a delete;
 *  and a form that builds a new rule a condition at a time. */
export async function rulesSection(section, project) {
  const base = `/v1/projects/${project.id}`;
  const reload = () => rulesSection(section, project);
  const [rules, tree] = await Promise.all([api("GET", `${base}/rules`), api("GET", `${base}/categories`)]);

  const categories = flattenTree(tree);
  const name = h("input", { id: "rule-name", required: true, maxlength: 100 });
  const require = select(
    "rule-require",
    t("rule.require"),
    [
      ["all", t("rule.all")],
      ["any", t("rule.any")],
    ],
    "all",
  );
  const written = [];
  const writtenList = h("ul", { id: "rule-conditions" });
  const type = select(
    "rule-type",
    t("rule.condition"),
    CONDITION_TYPES.filter((c) => c !== "category" || categories.length).map((c) => [c, t(`condition.${c}`)]),
    "phrase",
  );
  const fieldsBox = h("span", { class: "row" });
  let current = null;
  const showFields = () => {
    current = conditionFields(type.value, categories);
    mount(fieldsBox, current.fields);
  };
  type.addEventListener("change", showFields);
  showFields();
  const addCondition = () => {
    written.push(current.read());
    mount(
      writtenList,
      written.map((c) => h("li", {}, describeCondition(c, categories))),
    );
  };
  const create = async (e) => {
    e.preventDefault();
    // What is typed in the condition's fields counts even when not added by hand.
    const conditions = written.length ? written : [current.read()];
    const body = { name: name.value, require: require.value, conditions };
    if ((await save(() => api("POST", `${base}/rules`, body))) !== undefined) await reload();
  };
  const listBox = h("div", { id: "rule-list" });
  // The list alone is drawn again while earlier calls are being filed, every few seconds as long
  // as the section is shown: the form, and a rule half written in it, stay as they are.
  const drawList = (rules) => {
    mount(
      listBox,
      rules.length === 0
        ? h("p", { class: "muted" }, t("noRules"))
        : h(
            "ul",
            { class: "rules" },
            rules.map((r) =>
              h(
                "li",
                { dataset: { id: r.id } },
                h("strong", {}, r.name),
                " ",
                h("span", { class: r.enabled ? "badge active" : "badge" }, r.enabled ? t("active") : t("paused")),
                r.filingPending && h("span", { class: "muted small" }, ` ${t("rule.filing")} (${r.callsFiled})`),
                h(
                  "ul",
                  { class: "small" },
                  r.conditions.map((c) => h("li", {}, describeCondition(c, categories))),
                ),
                h("a", { href: `#/p/${project.id}/calls?ruleId=${r.id}` }, t("rule.calls")),
                " ",
                h(
                  "button",
                  {
                    type: "button",
                    onclick: async () => {
                      const body = {
                        name: r.name,
                        description: r.description,
                        enabled: !r.enabled,
                        require: r.require,
                        conditions: r.conditions,
                      };
                      if ((await save(() => api("PUT", `${base}/rules/${r.id}`, body))) !== undefined) await reload();
                    },
                  },
                  r.enabled ? t("pause") : t("resume"),
                ),
                h(
                  "button",
                  {
                    type: "button",
                    class: "danger",
                    onclick: async () => {
                      if (!confirm(`${t("delete")} ${r.name}?`)) return;
                      if ((await save(() => api("DELETE", `${base}/rules/${r.id}`))) !== undefined) await reload();
                    },
                  },
                  t("delete"),
                ),
              ),
            ),
          ),
    );
    if (rules.some((r) => r.filingPending))
      setTimeout(async () => {
        if (!listBox.isConnected) return;
        const again = await api("GET", `${base}/rules`).catch(() => null);
        if (again && listBox.isConnected) drawList(again);
      }, 3000);
  };
  drawList(rules);
  mount(
    section,
    h("h2", {}, t("rules")),
    h("p", { class: "muted help" }, t("rulesHelp")),
    listBox,
    h(
      "form",
      { id: "rule-form", onsubmit: create },
      h(
        "div",
        { class: "row" },
        h("label", { for: "rule-name" }, t("name")),
        name,
        h("label", { for: "rule-require" }, t("rule.require")),
        require,
      ),
      writtenList,
      h(
        "div",
        { class: "row" },
        h("label", { for: "rule-type" }, t("rule.condition")),
        type,
        fieldsBox,
        h("button", { type: "button", id: "rule-add-condition", onclick: addCondition }, t("rule.addCondition")),
      ),
      h("button", { type: "submit", class: "primary" }, t("create")),
    ),
  );
}

/** The call page's card of the rules the call matched, each with the moments that made it
 *  (a button plays from each); nothing when it matched none. */
export function ruleMatchesCard(call, seek) {
  const matches = call.ruleMatches || [];
  if (matches.length === 0) return null;
  return h(
    "section",
    { class: "card", "aria-labelledby": "rule-matches-title", id: "rule-matches" },
    h("h2", { id: "rule-matches-title" }, t("rules")),
    h(
      "ul",
      { class: "moments" },
      matches.map((m) =>
        h(
          "li",
          {},
          h("span", { class: "badge active" }, m.label),
          h(
            "ul",
            { class: "moments" },
            m.evidence.map((e) =>
              h(
                "li",
                {},
                h("button", { type: "button", class: "link", onclick: () => seek(e.atMs) }, clock(e.atMs)),
                ` ${e.text}`,
              ),
            ),
          ),
        ),
      ),
    ),
  );
}
