// Login, the router (#/jobs, #/job/ID, #/pipeline, #/account) and the live indicator.
// `/console/#key=KEY` logs in too: the fragment never reaches the server, and the address bar is
// cleared of it at once.
import { api, forgetKey, key, setKey, whenUnauthenticated } from "./api.js";
import { accountView } from "./account.js";
import { jobsView, jobView } from "./jobs.js";
import { pipelineView } from "./pipeline.js";

const $ = (id) => document.getElementById(id);
let stop = () => {};

const app = {
  setLive(state) {
    const live = $("live");
    live.textContent = state === "live" ? "● live" : state === "reconnecting" ? "○ reconnecting…" : "";
    live.dataset.state = state;
  },
};

function takeKeyFromAddress() {
  const match = /^#key=([^&]+)/.exec(location.hash);
  if (!match) return;
  setKey(decodeURIComponent(match[1]));
  history.replaceState(null, "", `${location.pathname}#/jobs`);
}

function showLogin(reason) {
  stop(); stop = () => {};
  $("nav").hidden = true; $("logout").hidden = true; $("view").hidden = true;
  $("login").hidden = false;
  $("login-error").textContent = reason || "";
  $("key").focus();
}

function route() {
  if (!key()) { showLogin(); return; }
  $("login").hidden = true; $("nav").hidden = false; $("logout").hidden = false;
  const view = $("view");
  view.hidden = false;
  stop();
  const [, page, id] = location.hash.split("/");
  for (const link of document.querySelectorAll("#nav a")) {
    const here = link.getAttribute("href") === `#/${page === "job" ? "jobs" : page}`;
    if (here) link.setAttribute("aria-current", "page"); else link.removeAttribute("aria-current");
  }
  if (page === "job" && id) stop = jobView(view, app, decodeURIComponent(id));
  else if (page === "pipeline") stop = pipelineView(view, app);
  else if (page === "account") stop = accountView(view, app);
  else stop = jobsView(view, app);
  $("main").focus({ preventScroll: true });
}

whenUnauthenticated(() => { forgetKey(); showLogin("The service refused the key: log in again."); });

$("login-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  setKey($("key").value.trim());
  $("key").value = "";
  try {
    await api("GET", "/console/api/key");
  } catch (error) {
    if (error.status !== 401) { $("login-error").textContent = error.message; forgetKey(); }
    return;
  }
  if (!location.hash.startsWith("#/")) history.replaceState(null, "", `${location.pathname}#/jobs`);
  route();
});
$("logout").addEventListener("click", () => {
  forgetKey();
  history.replaceState(null, "", location.pathname);
  showLogin("Logged out: the key is forgotten.");
});
// The skip link moves the focus without touching the address (the hash is the router's).
document.querySelector(".skip").addEventListener("click", (event) => {
  event.preventDefault();
  $("main").focus();
});
window.addEventListener("hashchange", () => { takeKeyFromAddress(); route(); });
takeKeyFromAddress();
route();
