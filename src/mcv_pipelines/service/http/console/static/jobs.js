// The jobs list and the job page; both follow the service's change stream and re-read through
// the public API when something they show has changed.
import { api, follow } from "./api.js";
import { badge, el, problem, seconds, when } from "./dom.js";
import { drawGraph } from "./graph.js";

const STATUSES = ["processing", "finished", "error"];

// Re-read at most once per animation of changes: a burst of events makes one request.
function debounced(fn, ms = 120) {
  let timer = null;
  return () => { clearTimeout(timer); timer = setTimeout(fn, ms); };
}

function counts(tasks) {
  const by = {};
  for (const task of tasks || []) by[task.status] = (by[task.status] || 0) + 1;
  return Object.entries(by).map(([status, n]) => `${n} ${status}`).join(" · ") || "no tasks";
}

export function jobsView(root, app) {
  const filter = { status: "", tag: "" };
  // The pages shown so far, as the API queries that read them: page 1's own, then each one the
  // `links.next` of the page before (with its seq_below, where that page ended). "Older" follows
  // links.next, "Newer" steps back, and a live re-read asks the same query again: each costs one
  // page at any depth, and jobs created meanwhile do not push this page's rows onto the next.
  let trail = [];
  let next = null;
  const status = el("select", { id: "filter-status", name: "status" },
    el("option", { value: "" }, "any"), ...STATUSES.map((s) => el("option", { value: s }, s)));
  const tag = el("input", { id: "filter-tag", name: "tag", type: "search", placeholder: "exact tag" });
  const form = el("form", { class: "filters", role: "search", onsubmit: (e) => { e.preventDefault(); } },
    el("label", { for: "filter-status" }, "Status"), status,
    el("label", { for: "filter-tag" }, "Tag"), tag);
  const table = el("table", { class: "jobs" },
    el("caption", {}, "Jobs of this key, newest first"),
    el("thead", {}, el("tr", {}, ["Job", "Tag", "Status", "Tasks", "Created"].map((h) => el("th", { scope: "col" }, h)))));
  const body = el("tbody");
  table.append(body);
  const message = el("p", { class: "error", role: "alert" });
  const newer = el("button", { type: "button", onclick: () => { trail.pop(); load(); } }, "← Newer");
  const older = el("button", { type: "button", onclick: () => { trail.push(next); load(); } }, "Older →");
  const where = el("span", { class: "note" });
  root.replaceChildren(el("h1", {}, "Jobs"), form, message, table, el("p", { class: "pages" }, newer, " ", where, " ", older));

  function firstPage() {
    const query = new URLSearchParams({ include: "tasks", per_page: "50" });
    if (filter.status) query.set("filter[status]", filter.status);
    if (filter.tag) query.set("filter[tag]", filter.tag);
    trail = [String(query)];
    load();
  }

  async function load() {
    const query = trail[trail.length - 1];
    try {
      const page = await api("GET", `/v2/jobs?${query}`);
      if (query !== trail[trail.length - 1]) return; // the user moved on meanwhile
      message.textContent = "";
      body.replaceChildren(...page.data.map((job) => el("tr", { "data-job": job.id },
        el("td", {}, el("a", { href: `#/job/${job.id}` }, job.id)),
        el("td", {}, job.tag || "–"),
        el("td", {}, badge(job.status)),
        el("td", { class: "counts" }, counts(job.tasks)),
        el("td", {}, when(job.created_at)))));
      if (!page.data.length) body.replaceChildren(el("tr", {}, el("td", { colspan: 5 }, "No jobs match.")));
      // Only the query of the link: the console asks its own service, under the console's root.
      next = page.links.next ? new URL(page.links.next, location.href).search.slice(1) : null;
      newer.disabled = trail.length < 2;
      older.disabled = !next;
      where.textContent = `page ${trail.length}`;
    } catch (error) { message.textContent = problem(error); }
  }
  const reload = debounced(load);
  status.addEventListener("change", () => { filter.status = status.value; firstPage(); });
  tag.addEventListener("input", debounced(() => { filter.tag = tag.value.trim(); firstPage(); }, 300));
  firstPage();
  return follow("/console/api/events", () => reload(), app.setLive);
}

function files(task) {
  const list = (task.result && task.result.files) || [];
  if (task.operation === "export/url" && list.length) {
    return el("ul", { class: "files" }, list.map((f) => el("li", {},
      el("a", { href: f.url, download: f.filename, rel: "noreferrer" }, f.filename))));
  }
  // an export to the caller's storage: where each file was stored (s3://bucket/key, sftp://host/path)
  const stored = task.operation.startsWith("export/") ? list.filter((f) => f.location) : [];
  if (!stored.length) return "–";
  return el("ul", { class: "files stored" }, stored.map((f) => el("li", {},
    el("code", { title: f.filename }, f.location))));
}

export function jobView(root, app, jobId) {
  const heading = el("h1", {}, "Job ", el("code", {}, jobId));
  const summary = el("p", { class: "summary", role: "status", "aria-live": "polite" });
  const message = el("p", { class: "error", role: "alert" });
  const remove = el("button", { type: "button", class: "danger", onclick: async () => {
    if (!window.confirm(`Delete job ${jobId} and its files?`)) return;
    try { await api("DELETE", `/v2/jobs/${jobId}`); location.hash = "#/jobs"; }
    catch (error) { message.textContent = problem(error); }
  } }, "Delete job");
  const graph = el("figure", { class: "graph-box" });
  const table = el("table", { class: "tasks" },
    el("caption", {}, "Tasks"),
    el("thead", {}, el("tr", {}, ["Task", "Operation", "Engine", "Status", "%", "Started", "Ended", "Took",
      "Credits", "Code", "Message", "Files", "Actions"].map((h) => el("th", { scope: "col" }, h)))));
  const body = el("tbody");
  table.append(body);
  root.replaceChildren(heading, summary, el("p", {}, remove), message, graph, table);

  async function act(method, path) {
    try { await api(method, path); message.textContent = ""; await load(); }
    catch (error) { message.textContent = problem(error); }
  }

  async function load() {
    let job;
    try { job = (await api("GET", `/v2/jobs/${jobId}`)).data; }
    catch (error) { message.textContent = problem(error); return; }
    const tasks = job.tasks || [];
    const retried = new Map(tasks.filter((t) => t.retry_of_task_id).map((t) => [t.retry_of_task_id, t.id]));
    const latest = (id) => { while (retried.has(id)) id = retried.get(id); return id; };
    summary.replaceChildren("Status ", badge(job.status), ` · tag ${job.tag || "–"} · ${counts(tasks)}`);
    const current = tasks.filter((t) => !retried.has(t.id));
    const nodes = current.map((t) => ({
      id: t.id, label: t.name || t.id, status: t.status,
      onselect: () => document.getElementById(`task-${t.id}`)?.focus(),
      sub: `${t.operation} · ${t.status}${t.status === "processing" && t.percent ? ` ${t.percent}%` : ""}`,
    }));
    // A re-render replaces the elements: the keyboard focus moves to the new one of the same name.
    const focused = document.activeElement && document.activeElement.dataset
      ? document.activeElement.dataset.focus : null;
    const edges = current.flatMap((t) => (t.depends_on_task_ids || []).map((d) => [latest(d), t.id]));
    graph.replaceChildren(drawGraph(nodes, edges, `Task graph of job ${jobId}`),
      el("figcaption", {}, "Arrows run from a task's input to the task."));
    body.replaceChildren(...tasks.map((t) => {
      const ended = ["finished", "error"].includes(t.status);
      const actions = [];
      if (ended && !retried.has(t.id)) {
        actions.push(el("button", { type: "button", onclick: () => act("POST", `/v2/tasks/${t.id}/retry`),
          "aria-label": `Retry ${t.name}`, "data-focus": `retry-${t.id}` }, "Retry"));
      }
      if (!ended) {
        actions.push(el("button", { type: "button", onclick: () => act("POST", `/v2/tasks/${t.id}/cancel`),
          "aria-label": `Cancel ${t.name}`, "data-focus": `cancel-${t.id}` }, "Cancel"));
      }
      const name = retried.has(t.id) ? [t.name, el("small", {}, " (retried)")] : t.name;
      return el("tr", { id: `task-${t.id}`, tabindex: -1, "data-task": t.name, "data-status": t.status,
        "data-focus": `row-${t.id}` },
        el("th", { scope: "row" }, name),
        el("td", {}, t.operation), el("td", {}, t.engine || "–"), el("td", { class: "status" }, badge(t.status)),
        el("td", {}, t.percent ?? "–"), el("td", {}, when(t.started_at)), el("td", {}, when(t.ended_at)),
        el("td", {}, seconds(t.started_at, t.ended_at)), el("td", {}, t.credits ?? "–"),
        el("td", { class: "code" }, t.code || "–"), el("td", { class: "message" }, t.message || "–"),
        el("td", {}, files(t)), el("td", {}, actions));
    }));
    if (focused) root.querySelector(`[data-focus="${CSS.escape(focused)}"]`)?.focus();
  }
  const reload = debounced(load);
  load();
  return follow(`/console/api/events?job=${encodeURIComponent(jobId)}`, () => reload(), app.setLive);
}
