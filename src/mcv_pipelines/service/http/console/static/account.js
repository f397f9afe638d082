// The account page: credits and the key's scopes, and the webhooks of the account.
import { api } from "./api.js";
import { el, problem, when } from "./dom.js";

const EVENTS = ["job.created", "job.finished", "job.failed"];

export function accountView(root) {
  const account = el("dl", { id: "account" });
  const scopes = el("ul", { id: "scopes" });
  const hooks = el("tbody");
  const message = el("p", { class: "error", role: "alert" });
  const url = el("input", { id: "hook-url", type: "url", required: true, placeholder: "https://example.com/hook" });
  const boxes = EVENTS.map((event) => el("label", { class: "check" },
    el("input", { type: "checkbox", value: event, checked: true }), ` ${event}`));
  const form = el("form", { id: "hook-form", onsubmit: async (e) => {
    e.preventDefault();
    const events = boxes.map((b) => b.firstChild).filter((b) => b.checked).map((b) => b.value);
    try { await api("POST", "/v2/webhooks", { url: url.value, events }); url.value = ""; await loadHooks(); }
    catch (error) { message.textContent = problem(error); }
  } },
  el("label", { for: "hook-url" }, "Webhook URL"), url,
  el("fieldset", {}, el("legend", {}, "Events"), boxes),
  el("button", { type: "submit" }, "Add webhook"));
  root.replaceChildren(
    el("h1", {}, "Account"), message, account,
    el("h2", {}, "Scopes of this key"), scopes,
    el("h2", {}, "Webhooks"),
    el("table", {}, el("thead", {}, el("tr", {},
      ["URL", "Events", "State", "Created", ""].map((h) => el("th", { scope: "col" }, h)))), hooks),
    el("h3", {}, "Add a webhook"), form);

  async function loadHooks() {
    try {
      const page = await api("GET", "/v2/users/me/webhooks");
      hooks.replaceChildren(...page.data.map((hook) => el("tr", {},
        el("td", {}, hook.url), el("td", {}, (hook.events || []).join(", ")),
        el("td", {}, hook.disabled ? "disabled" : hook.failing ? "failing" : "active"),
        el("td", {}, when(hook.created_at)),
        el("td", {}, el("button", { type: "button", class: "danger", "aria-label": `Delete webhook ${hook.url}`,
          onclick: async () => {
            try { await api("DELETE", `/v2/webhooks/${hook.id}`); await loadHooks(); }
            catch (error) { message.textContent = problem(error); }
          } }, "Delete")))));
      if (!page.data.length) hooks.replaceChildren(el("tr", {}, el("td", { colspan: 5 }, "No webhooks.")));
    } catch (error) {
      hooks.replaceChildren(el("tr", {}, el("td", { colspan: 5 }, `Webhooks not shown: ${problem(error)}`)));
    }
  }
  (async () => {
    try {
      const user = (await api("GET", "/v2/users/me")).data;
      account.replaceChildren(el("dt", {}, "User"), el("dd", {}, user.username || user.id),
        el("dt", {}, "Email"), el("dd", {}, user.email || "–"),
        el("dt", {}, "Credits"), el("dd", { id: "credits" }, String(user.credits)));
    } catch (error) { account.replaceChildren(el("dd", {}, `Account not shown: ${problem(error)}`)); }
    try {
      const held = (await api("GET", "/console/api/key")).data.scopes;
      scopes.replaceChildren(...held.map((s) => el("li", {}, s)));
    } catch (error) { message.textContent = problem(error); }
  })();
  loadHooks();
  return () => {};
}
