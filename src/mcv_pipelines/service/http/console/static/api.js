// The key, the API calls and the live stream. The key lives in sessionStorage and goes out only
// as the Authorization header: never in a URL, so never in history, logs or Referer headers.
const STORE = "mcv-console-key";
// The service's root, from the console's own address: "/" normally, "/prefix/" behind a proxy that
// serves the service under a path.
const ROOT = location.pathname.replace(/console\/?$/, "");
const at = (path) => (path.startsWith("/") ? ROOT + path.slice(1) : path);

export function key() { return sessionStorage.getItem(STORE); }
export function setKey(value) { sessionStorage.setItem(STORE, value); }
export function forgetKey() { sessionStorage.removeItem(STORE); }

export class ApiError extends Error {
  constructor(status, body) {
    super((body && body.message) || `HTTP ${status}`);
    this.status = status;
    this.body = body || {};
  }
}

// Called on 401: the app shows the login form again.
let onUnauthenticated = () => {};
export function whenUnauthenticated(handler) { onUnauthenticated = handler; }

export async function api(method, path, body) {
  const headers = { Authorization: `Bearer ${key()}`, Accept: "application/json" };
  const init = { method, headers, cache: "no-store", credentials: "omit" };
  if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(at(path), init);
  if (response.status === 204) return null;
  let data = null;
  try { data = await response.json(); } catch (_) { data = null; }
  if (response.status === 401) onUnauthenticated();
  if (!response.ok) throw new ApiError(response.status, data);
  return data;
}

// Server-Sent Events read with fetch(): EventSource cannot send an Authorization header, and the
// key must not go into the URL. Calls onEvent(name, data); reconnects after a pause when the stream
// ends. Returns a function that stops it.
export function follow(path, onEvent, onState) {
  const controller = new AbortController();
  let stopped = false;
  async function once() {
    const response = await fetch(at(path), {
      headers: { Authorization: `Bearer ${key()}`, Accept: "text/event-stream" },
      cache: "no-store", credentials: "omit", signal: controller.signal,
    });
    if (response.status === 401) { onUnauthenticated(); stopped = true; return; }
    if (response.status === 404) { stopped = true; return; } // the job is gone: nothing to follow
    if (!response.ok || !response.body) throw new ApiError(response.status, null);
    onState("live");
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value.replace(/\r\n/g, "\n");
      let cut;
      while ((cut = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        let name = "message";
        const data = [];
        for (const line of block.split("\n")) {
          if (line.startsWith("event:")) name = line.slice(6).trim();
          else if (line.startsWith("data:")) data.push(line.slice(5).trimStart());
        }
        if (data.length) onEvent(name, JSON.parse(data.join("\n")));
      }
    }
  }
  (async () => {
    while (!stopped) {
      try { await once(); } catch (_) { /* reconnect below */ }
      if (stopped) break;
      onState("reconnecting");
      await new Promise((resolve) => setTimeout(resolve, 2000));
    }
  })();
  return () => { stopped = true; controller.abort(); onState(""); };
}
