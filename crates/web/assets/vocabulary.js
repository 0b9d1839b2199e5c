// A project's vocabulary on the settings page: its terms written one a line, each with the ways
// it is heard after a colon ("Brightwater: bright water, write water"), the company's own names
// (`company` terms) in a box of their own, saved as a whole, as the API stores it.

import { api } from "/app/api.js";
import { h, mount, toast } from "/app/dom.js";
import { count, t } from "/app/i18n.js";

/** An editor's text for a vocabulary's company names, or its other terms: a term a line, its
 *  spoken forms after a colon. */
export function vocabularyText(vocabulary, company = false) {
  return vocabulary.terms
    .filter((term) => Boolean(term.company) === company)
    .map((term) => (term.spokenForms.length > 0 ? `${term.term}: ${term.spokenForms.join(", ")}` : term.term))
    .join("\n");
}

/** The terms an editor's text holds, marked as the company's names or not, and the line each
 *  came from (blank lines are skipped, so that the API's `terms[3]` can be named as the line a
 *  person sees). */
export function parseVocabulary(text, company = false) {
  const terms = [];
  const lines = [];
  text.split("\n").forEach((raw, index) => {
    const line = raw.trim();
    if (line === "") return;
    const colon = line.indexOf(":");
    const term = colon < 0 ? line : line.slice(0, colon).trim();
    const spokenForms =
      colon < 0
        ? []
        : line
            .slice(colon + 1)
            .split(",")
            .map((form) => form.trim())
            .filter(Boolean);
    terms.push({ term, spokenForms, company });
    lines.push(index + 1);
  });
  return { vocabulary: { terms }, lines };
}

/** A refusal of the API with each `terms[i]` told as the line it was written on (`lines[i]`, a
 *  line number or, in the company's box, the words that say so). */
function refusal(error, lines) {
  const fields = error.problem?.errors;
  if (!Array.isArray(fields) || fields.length === 0) return error.message;
  return fields
    .map(({ field, message }) => {
      const at = /^terms\[(\d+)\]/.exec(field);
      const where = at && lines[Number(at[1])] ? lines[Number(at[1])] : field;
      return `${where}: ${message}`;
    })
    .join("; ");
}

export async function vocabularySection(section, project) {
  const path = `/v1/projects/${project.id}/vocabulary`;
  const vocabulary = await api("GET", path);
  const editor = h("textarea", {
    id: "vocabulary-terms",
    rows: Math.min(Math.max(vocabulary.terms.length + 2, 5), 16),
    spellcheck: "false",
    placeholder: t("vocabularyExample"),
  });
  editor.value = vocabularyText(vocabulary);
  const company = h("textarea", {
    id: "vocabulary-company",
    rows: 2,
    spellcheck: "false",
    placeholder: t("vocabularyCompanyExample"),
  });
  company.value = vocabularyText(vocabulary, true);
  const companyCount = vocabulary.terms.filter((term) => term.company).length;
  const problem = h("p", { class: "error", role: "alert" });
  const submit = async (event) => {
    event.preventDefault();
    // The other terms first, so that a refusal's `terms[i]` is the i-th of them.
    const terms = parseVocabulary(editor.value);
    const names = parseVocabulary(company.value, true);
    const written = { terms: [...terms.vocabulary.terms, ...names.vocabulary.terms] };
    const lines = [
      ...terms.lines.map((line) => `${t("line")} ${line}`),
      ...names.lines.map((line) => `${t("vocabularyCompany")}, ${t("line")} ${line}`),
    ];
    try {
      await api("PUT", path, written);
    } catch (error) {
      problem.textContent = refusal(error, lines);
      return;
    }
    toast(t("saved"));
    await vocabularySection(section, project);
  };
  mount(
    section,
    h("h2", {}, t("vocabulary")),
    h("p", { class: "muted" }, t("vocabularyHelp")),
    h(
      "form",
      { class: "stack", onsubmit: submit },
      h(
        "label",
        { for: "vocabulary-terms" },
        `${t("vocabularyTerms")} (${count(vocabulary.terms.length - companyCount, "term")})`,
      ),
      editor,
      h("label", { for: "vocabulary-company" }, t("vocabularyCompany")),
      h("p", { class: "muted" }, t("vocabularyCompanyHelp")),
      company,
      problem,
      h("button", { type: "submit", class: "primary" }, t("save")),
    ),
  );
}
