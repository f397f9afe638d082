// The official Node SDK (cloudconvert on npm), unchanged, against the local service.
// Usage: node node_sdk_scenario.cjs BASE_URL PNG_PATH DOWNLOAD_PATH   (API key in MCV_TEST_API_KEY)
// Prints one JSON line of what it saw; exits 1 with the error on the first surprise.
"use strict";
const fs = require("node:fs");
const http = require("node:http");
const CloudConvert = require("cloudconvert");

const [base, pngPath, downloadPath] = process.argv.slice(2);
const apiKey = process.env.MCV_TEST_API_KEY;

// The SDK builds its hosts into call() and wait(); both go through callWithBase, so this subclass
// sends the main host to BASE/v2/ and the sync host to BASE/sync/v2/. Absolute URLs (the upload
// form) are left alone, as URL(route, base) does.
class LocalCloudConvert extends CloudConvert {
  callWithBase(baseURL, method, route, parameters, options) {
    const local = new URL(baseURL).hostname.includes("sync.") ? `${base}/sync/v2/` : `${base}/v2/`;
    return super.callWithBase(local, method, route, parameters, options);
  }
}

function check(condition, what) {
  if (!condition) throw new Error(`check failed: ${what}`);
}

async function statusOf(promise) {
  try {
    await promise;
    return 200;
  } catch (error) {
    return error.cause && error.cause.status;
  }
}

function receiver() {
  // A webhook receiver on loopback: resolves with the first delivery's raw body and headers.
  let deliver;
  const delivered = new Promise((resolve) => (deliver = resolve));
  const server = http.createServer((request, response) => {
    const chunks = [];
    request.on("data", (chunk) => chunks.push(chunk));
    request.on("end", () => {
      response.writeHead(200).end();
      deliver({ raw: Buffer.concat(chunks).toString("utf-8"), headers: request.headers });
    });
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve({ server, delivered, url: `http://127.0.0.1:${server.address().port}/hook` })),
  );
}

async function main() {
  const cc = new LocalCloudConvert(apiKey);
  const seen = {};

  const me = await cc.users.me();
  check(Number.isInteger(me.id) && typeof me.credits === "number", "users.me has id and credits");
  seen.user = me.username;

  const hookReceiver = await receiver();
  const hook = await cc.call("POST", "webhooks", { url: hookReceiver.url, events: ["job.finished"] });
  check(typeof hook.signing_secret === "string" && hook.signing_secret.length > 0, "the webhook has a secret");

  const job = await cc.jobs.create({
    tag: "node-sdk",
    tasks: {
      "upload-it": { operation: "import/upload" },
      "to-jpg": { operation: "convert", input: "upload-it", output_format: "jpg" },
      "export-it": { operation: "export/url", input: "to-jpg" },
    },
  });
  const uploadTask = job.tasks.find((task) => task.name === "upload-it");
  const size = fs.statSync(pngPath).size;
  await cc.tasks.upload(uploadTask, fs.createReadStream(pngPath), "photo.png", size);

  const done = await cc.jobs.wait(job.id);
  check(done.status === "finished", `the job finished (it is ${done.status})`);
  const files = cc.jobs.getExportUrls(done);
  check(files.length === 1, "one export URL");
  const download = await fetch(files[0].url);
  check(download.ok, `the export URL answers (${download.status})`);
  fs.writeFileSync(downloadPath, Buffer.from(await download.arrayBuffer()));
  seen.exported = files[0].filename;

  const listed = await cc.jobs.all({ "filter[tag]": "node-sdk" });
  check(listed.length === 1 && listed[0].id === job.id, "jobs.all finds the job by tag");
  const again = await cc.jobs.get(job.id, { include: "tasks" });
  check(again.status === "finished" && again.tasks.length === 3, "jobs.get shows the job and its tasks");

  const delivery = await Promise.race([
    hookReceiver.delivered,
    new Promise((_, reject) => setTimeout(() => reject(new Error("no webhook within 20 s")), 20000).unref()),
  ]);
  hookReceiver.server.close();
  hookReceiver.server.closeAllConnections(); // the service keeps its connection open for more
  const signature = delivery.headers["cloudconvert-signature"];
  check(cc.webhooks.verify(delivery.raw, signature, hook.signing_secret), "the SDK verifies the delivery");
  check(!cc.webhooks.verify(delivery.raw + " ", signature, hook.signing_secret), "a changed body fails verify");
  const event = JSON.parse(delivery.raw);
  check(event.event === "job.finished" && event.job.id === job.id, "the delivery is this job's job.finished");
  seen.webhook = event.event;

  const standalone = await cc.tasks.create("import/base64", {
    file: fs.readFileSync(pngPath).toString("base64"),
    filename: "standalone.png",
  });
  const waited = await cc.tasks.wait(standalone.id);
  check(waited.status === "finished" && waited.result.files[0].filename === "standalone.png", "the standalone task finished");
  const tasks = await cc.tasks.all({ "filter[operation]": "import/base64" });
  check(tasks.some((task) => task.id === standalone.id), "tasks.all lists the standalone task");
  await cc.tasks.delete(standalone.id);
  seen.deleted_task = await statusOf(cc.tasks.get(standalone.id));

  await cc.jobs.delete(job.id);
  seen.deleted_job = await statusOf(cc.jobs.get(job.id));
  seen.bad_key = await statusOf(new LocalCloudConvert("not-a-key").users.me());
  console.log(JSON.stringify(seen));
}

main().catch((error) => {
  const status = error.cause && error.cause.status;
  console.error(`node SDK scenario: ${error.message}${status ? ` (HTTP ${status})` : ""}`);
  process.exit(1);
});
