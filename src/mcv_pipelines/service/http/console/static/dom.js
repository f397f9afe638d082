// Small helpers that build elements from data. Text always goes in as text (never as HTML), so a
// task message or a tag can never become markup or script.
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else if (value === true) node.setAttribute(name, "");
    else node.setAttribute(name, String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

// Status is said by a symbol and a word as well as a colour.
export const SYMBOLS = { waiting: "◌", processing: "▶", finished: "✓", error: "✗", deleted: "–" };

export function badge(status) {
  return el("span", { class: `badge status-${status}` }, `${SYMBOLS[status] || "•"} ${status}`);
}

export function when(iso) {
  if (!iso) return "–";
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const today = date.toDateString() === new Date().toDateString();
  return today ? date.toLocaleTimeString() : date.toLocaleString();
}

export function seconds(start, end) {
  if (!start) return "–";
  const span = ((end ? new Date(end) : new Date()) - new Date(start)) / 1000;
  return Number.isFinite(span) ? `${span.toFixed(1)} s` : "–";
}

export function problem(error) {
  const body = error && error.body;
  const code = body && body.code ? ` (${body.code})` : "";
  return `${(error && error.message) || String(error)}${code}`;
}
