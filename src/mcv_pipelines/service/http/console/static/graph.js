// The task graph as SVG: a layered layout (a task's column is the length of the longest input
// chain before it), nodes coloured by status with a symbol and the status word, edges from input.
import { SYMBOLS } from "./dom.js";

const NS = "http://www.w3.org/2000/svg";
const W = 180, H = 52, GAP_X = 60, GAP_Y = 22, PAD = 12;

function svg(tag, attrs = {}, text) {
  const node = document.createElementNS(NS, tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

// nodes: [{id, label, sub, status, onselect}], edges: [[fromId, toId]]
export function drawGraph(nodes, edges, title) {
  const ids = new Set(nodes.map((n) => n.id));
  const inputs = new Map(nodes.map((n) => [n.id, []]));
  for (const [from, to] of edges) if (ids.has(from) && ids.has(to)) inputs.get(to).push(from);
  const depth = new Map();
  const visiting = new Set();
  function layer(id) {
    if (depth.has(id)) return depth.get(id);
    if (visiting.has(id)) return 0; // a cycle (the checker reports it): draw it anyway
    visiting.add(id);
    const d = Math.max(-1, ...inputs.get(id).map(layer)) + 1;
    visiting.delete(id);
    depth.set(id, d);
    return d;
  }
  const columns = [];
  for (const node of nodes) {
    const d = layer(node.id);
    (columns[d] = columns[d] || []).push(node);
  }
  const place = new Map();
  columns.forEach((column, c) => column.forEach((node, r) => {
    place.set(node.id, { x: PAD + c * (W + GAP_X), y: PAD + r * (H + GAP_Y) });
  }));
  const width = PAD * 2 + Math.max(1, columns.length) * (W + GAP_X) - GAP_X;
  const height = PAD * 2 + Math.max(1, ...columns.map((c) => c.length)) * (H + GAP_Y) - GAP_Y;
  const root = svg("svg", {
    viewBox: `0 0 ${width} ${height}`, width, height, role: "group", class: "graph",
    "aria-label": title || "Task graph",
  });
  const defs = svg("defs");
  const marker = svg("marker", {
    id: "arrow", viewBox: "0 0 10 10", refX: 10, refY: 5, markerWidth: 7, markerHeight: 7,
    orient: "auto-start-reverse",
  });
  marker.append(svg("path", { d: "M0,0 L10,5 L0,10 z", class: "arrow" }));
  defs.append(marker);
  root.append(defs);
  for (const [from, to] of edges) {
    const a = place.get(from), b = place.get(to);
    if (!a || !b) continue;
    const x1 = a.x + W, y1 = a.y + H / 2, x2 = b.x, y2 = b.y + H / 2, mid = (x1 + x2) / 2;
    root.append(svg("path", {
      d: `M${x1},${y1} C${mid},${y1} ${mid},${y2} ${x2},${y2}`, class: "edge", "marker-end": "url(#arrow)",
    }));
  }
  for (const node of nodes) {
    const { x, y } = place.get(node.id);
    const status = node.status || "planned";
    const group = svg("g", { class: `node status-${status}`, "data-task": node.label });
    if (node.onselect) { // reachable by keyboard: Tab to it, Enter or Space shows the task's row
      group.setAttribute("tabindex", "0");
      group.setAttribute("data-focus", `node-${node.id}`);
      group.setAttribute("role", "button");
      group.setAttribute("aria-label", `${node.label}: ${node.sub}`);
      group.addEventListener("click", node.onselect);
      group.addEventListener("keydown", (event) => {
        if (event.key === "Enter" || event.key === " ") { event.preventDefault(); node.onselect(); }
      });
    }
    group.append(svg("rect", { x, y, width: W, height: H, rx: 6 }));
    const symbol = SYMBOLS[status] || "";
    group.append(svg("text", { x: x + 10, y: y + 21, class: "label" }, `${symbol} ${node.label}`.trim()));
    group.append(svg("text", { x: x + 10, y: y + 40, class: "sub" }, node.sub));
    group.append(svg("title", {}, `${node.label}: ${node.sub}`));
    root.append(group);
  }
  return root;
}
