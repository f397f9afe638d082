// The pipeline page: YAML in, diagnostics as you type (the service's own checker, the one behind
// `mcv validate`), the job body and graph; then params, files and Run: the job is created through
// the public API, the files go to the upload forms, and the job page follows it.
import { api } from "./api.js";
import { el, problem } from "./dom.js";
import { drawGraph } from "./graph.js";

const STARTER = `version: 1
name: web-image
params:
  photo: {type: string, description: the photo to convert, example: photo.jpg}
  width: {type: integer, minimum: 16, default: 320}
tasks:
  original:
    operation: import/upload
    upload_from: "{{ params.photo }}"
  web:
    operation: convert
    input: original
    output_format: webp
    width: "{{ params.width }}"
  publish:
    operation: export/url
    input: web
`;

let saved = { text: STARTER, name: "pipeline.yaml" }; // kept while the tab moves between pages

function basename(path) { return String(path).split(/[\\/]/).pop(); }

export function pipelineView(root) {
  const editor = el("textarea", { id: "yaml", spellcheck: "false", wrap: "off", rows: 22,
    "aria-describedby": "diagnostics-heading" }); // no wrapping: a line on screen is a line of the file
  editor.value = saved.text;
  const opener = el("input", { id: "open-file", type: "file", accept: ".yaml,.yml,text/yaml" });
  const diagnostics = el("ul", { id: "diagnostics", class: "diagnostics", "aria-live": "polite" });
  const verdict = el("p", { id: "verdict", role: "status" });
  const paramsBox = el("fieldset", { id: "params" }, el("legend", {}, "Params"));
  const graph = el("figure", { class: "graph-box" });
  const bodyView = el("pre", { id: "job-body", class: "body", tabindex: 0 });
  const message = el("p", { class: "error", role: "alert" });
  const runButton = el("button", { type: "submit", id: "run" }, "Run");
  const values = {}; // param name -> text typed
  const files = {}; // param name -> File chosen
  let params = [];

  const form = el("form", { id: "run-form", onsubmit: (event) => { event.preventDefault(); run(); } },
    paramsBox, runButton, message);
  root.replaceChildren(
    el("h1", {}, "Pipeline"),
    el("div", { class: "columns" },
      el("div", {},
        el("label", { for: "yaml" }, "Pipeline YAML"), editor,
        el("p", {}, el("label", { for: "open-file" }, "Open a pipeline file "), opener)),
      el("div", {},
        el("h2", { id: "diagnostics-heading" }, "Diagnostics"), verdict, diagnostics, form)),
    el("h2", {}, "Graph"), graph, el("h2", {}, "Job body"), bodyView);

  function jump(line, column) {
    const lines = editor.value.split("\n");
    let offset = 0;
    for (let i = 0; i < line - 1 && i < lines.length; i++) offset += lines[i].length + 1;
    offset += Math.max(0, column - 1);
    editor.focus();
    editor.setSelectionRange(offset, offset);
  }

  function showParams(list) {
    const same = JSON.stringify(list) === JSON.stringify(params);
    params = list;
    if (same) return; // keep the inputs (and the focus) while the user types elsewhere
    paramsBox.replaceChildren(el("legend", {}, "Params"));
    if (!list.length) paramsBox.append(el("p", {}, "This pipeline declares no params."));
    for (const p of list) {
      const id = `param-${p.name}`;
      const hint = [p.type, p.description, p.default !== undefined && p.default !== null ? `default ${JSON.stringify(p.default)}` : null]
        .filter(Boolean).join(" · ");
      let input;
      if (p.file) {
        input = el("input", { id, type: "file", "data-param": p.name, onchange: () => {
          const file = input.files[0];
          if (file) { files[p.name] = file; values[p.name] = file.name; } else { delete files[p.name]; delete values[p.name]; }
          check();
        } });
      } else if (Array.isArray(p.enum) || p.type === "boolean") {
        const choices = Array.isArray(p.enum) ? p.enum : [true, false];
        input = el("select", { id, "data-param": p.name, onchange: () => { values[p.name] = input.value; check(); } },
          el("option", { value: "" }, "(default)"), choices.map((v) => el("option", { value: String(v) }, String(v))));
      } else {
        input = el("input", { id, type: "text", "data-param": p.name, placeholder: p.example ?? p.default ?? "",
          oninput: () => { values[p.name] = input.value; schedule(); } });
        if (values[p.name]) input.value = values[p.name];
      }
      paramsBox.append(el("div", { class: "param" },
        el("label", { for: id }, p.file ? `${p.name} (file to upload)` : p.name), input,
        hint ? el("small", {}, hint) : null));
    }
  }

  function showDiagnostics(answer) {
    diagnostics.replaceChildren(...answer.diagnostics.map((d) => {
      const where = d.line ? `${d.line}:${d.column}` : "–";
      const text = `${where} ${d.severity}[${d.rule}]: ${d.message}${d.hint ? ` (${d.hint})` : ""}`;
      return el("li", { class: `diagnostic ${d.severity}` },
        d.line ? el("button", { type: "button", class: "link", onclick: () => jump(d.line, d.column) }, text) : text);
    }));
    verdict.textContent = answer.ok
      ? `Valid${answer.diagnostics.length ? ", with notes" : ""}.`
      : `${answer.diagnostics.filter((d) => d.severity === "error").length} error(s).`;
    verdict.className = answer.ok ? "ok" : "error";
    showParams(answer.params || []);
    if (answer.graph) {
      graph.replaceChildren(drawGraph(
        answer.graph.nodes.map((n) => ({ id: n.name, label: n.name, sub: n.operation })),
        answer.graph.edges, "Task graph of the pipeline"));
    }
    if (answer.body) bodyView.textContent = JSON.stringify(answer.body, null, 2);
  }

  let sequence = 0;
  async function check(runNow = false) {
    const mine = ++sequence;
    saved = { text: editor.value, name: saved.name };
    const answer = await api("POST", "/console/api/check",
      { text: editor.value, name: saved.name, params: values, run: runNow });
    if (mine === sequence) showDiagnostics(answer); // a slower, older answer never wins
    return answer;
  }
  let timer = null;
  function schedule() { clearTimeout(timer); timer = setTimeout(() => check().catch(showError), 250); }
  function showError(error) { message.textContent = problem(error); }

  async function run() {
    message.textContent = "";
    runButton.disabled = true;
    try {
      const answer = await check(true);
      if (!answer.ok) { message.textContent = "Fix the errors above first."; return; }
      const chosen = Object.values(files);
      const uploads = Object.entries(answer.uploads || {}).map(([task, path]) => {
        const file = chosen.find((f) => f.name === basename(path));
        if (!file) throw new Error(`task ${task} uploads ${path}: choose that file in the params`);
        return [task, file];
      });
      const job = (await api("POST", "/v2/jobs", answer.body)).data;
      for (const [name, file] of uploads) {
        const task = job.tasks.find((t) => t.name === name);
        const upload = task.result.form;
        const data = new FormData();
        for (const [field, value] of Object.entries(upload.parameters || {})) data.append(field, value);
        data.append("file", file, file.name);
        const response = await fetch(upload.url, { method: "POST", body: data, credentials: "omit" });
        if (!response.ok) throw new Error(`upload of ${file.name} to task ${name} failed: HTTP ${response.status}`);
      }
      location.hash = `#/job/${job.id}`;
    } catch (error) { showError(error); }
    finally { runButton.disabled = false; }
  }

  editor.addEventListener("input", schedule);
  opener.addEventListener("change", async () => {
    const file = opener.files[0];
    if (!file) return;
    editor.value = await file.text();
    saved.name = file.name;
    check().catch(showError);
  });
  check().catch(showError);
  return () => clearTimeout(timer);
}
