// Building the page from data without ever parsing it as HTML: every value becomes text.

/** An element: h("a", {href: "#/"}, "text", child, [more children]). Attributes starting
 *  with "on" are listeners; `class` sets the class name; false and null children are skipped. */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") el.addEventListener(key.slice(2), value);
    else if (key === "class") el.className = value;
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key === "value") el.value = value;
    else if (key === "checked") el.checked = !!value;
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces an element's content. */
export function mount(el, ...children) {
  el.replaceChildren();
  append(el, children);
}

/** The search snippet's text with its `<mark>` runs as elements: the API escapes everything
 *  else, so the snippet is split on the two tags and its entities decoded into text. */
export function snippet(escaped) {
  const decode = (s) =>
    s.replace(/&(lt|gt|quot|#39|amp);/g, (_, e) => ({ lt: "<", gt: ">", quot: '"', "#39": "'", amp: "&" })[e]);
  const out = h("span", { class: "snippet" });
  escaped.split("<mark>").forEach((part, i) => {
    if (i === 0) {
      out.append(decode(part));
      return;
    }
    const [marked, rest = ""] = part.split("</mark>");
    out.append(h("mark", {}, decode(marked)), decode(rest));
  });
  return out;
}

/** "1:05" or "1:02:05" from milliseconds. */
export function clock(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  const hh = Math.floor(s / 3600),
    mm = Math.floor((s % 3600) / 60),
    ss = String(s % 60).padStart(2, "0");
  return hh ? `${hh}:${String(mm).padStart(2, "0")}:${ss}` : `${mm}:${ss}`;
}

/** A short message at the bottom of the page, read by screen readers. */
export function toast(text, kind = "info") {
  const box = document.getElementById("toast");
  box.className = kind;
  box.textContent = text;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => {
    box.textContent = "";
    box.className = "";
  }, 5000);
}

/** Runs a change the person asked for: "Saved" when it worked, the refusal when it did not
 *  (then `undo` puts the control back as it was). Never throws. */
export async function save(change, undo) {
  try {
    const result = await change();
    toast(document.documentElement.lang === "pl" ? "Zapisano" : "Saved");
    return result;
  } catch (error) {
    toast(error.message, "error");
    undo?.();
    return undefined;
  }
}

/** The category tree (`GET /categories`) as a list in display order: each node with its depth
 *  and its parent's id. */
export function flattenTree(nodes, depth = 0, parent = null, out = []) {
  for (const node of nodes || []) {
    out.push({ ...node, depth, parent });
    flattenTree(node.children, depth + 1, node.id, out);
  }
  return out;
}

/** A link that downloads `content` (a string, or a function that fetches a Blob) as `name`. */
export function download(label, name, content, type) {
  return h(
    "a",
    {
      href: "#",
      onclick: async (e) => {
        e.preventDefault();
        const data = typeof content === "function" ? await save(content) : new Blob([content], { type });
        if (!data) return;
        const url = URL.createObjectURL(data);
        const link = h("a", { href: url, download: name });
        document.body.append(link);
        link.click();
        link.remove();
        setTimeout(() => URL.revokeObjectURL(url), 60_000);
      },
    },
    label,
  );
}
