// The typed client's timeout and abort in a process that collects garbage all the time, as a long-running
// application does: `node --expose-gc client-under-gc.mjs [--default]`. CLIENT_MODULE names the client to import
// (the installed "@service/api-client" by default; a file URL of sdk/src for the fast test). Every case runs at once
// against local servers; one JSON line reports each case's outcome and time. On Node 20 a signal that reaches fetch
// through a Request is weakly held: before the fix every case here stayed pending (issue #41).
import { createServer } from "node:http";

if (typeof globalThis.gc !== "function") throw new Error("run with node --expose-gc");
const { createApiClient } = await import(process.env.CLIENT_MODULE ?? "@service/api-client");
const withDefault = process.argv.includes("--default");

// Collections every 50 ms, and garbage to collect between them.
let junk = [];
const churn = setInterval(() => {
  junk = Array.from({ length: 2_000 }, (_, i) => ({ i, s: String(i).repeat(8) }));
  globalThis.gc();
}, 50);

const seen = new Map();
const server = createServer((req, res) => {
  const n = (seen.get(req.url) ?? 0) + 1;
  seen.set(req.url, n);
  // /api/v1/studies?case=retry: the first attempt gets a 503 to retry, the next one hangs.
  if (req.url.includes("case=retry") && n === 1) {
    res.writeHead(503, { "content-type": "application/json", "retry-after": "0" });
    return res.end(JSON.stringify({ error: { type: "api_error", message: "try again" } }));
  }
  // ?case=stall: the headers and half the JSON body, then nothing.
  if (req.url.includes("case=stall")) {
    res.writeHead(200, { "content-type": "application/json" });
    return res.write('{"data": [');
  }
  // Every other request: accepted, read, never answered.
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const baseUrl = `http://127.0.0.1:${server.address().port}/api`;

async function outcome(call) {
  const t = performance.now();
  try {
    const result = await call();
    return { outcome: `answered ${result.response?.status}`, ms: Math.round(performance.now() - t) };
  } catch (err) {
    return { outcome: err?.name ?? String(err), ms: Math.round(performance.now() - t) };
  }
}

const cases = {
  timeout: () => createApiClient({ baseUrl, apiKey: "k", retry: false, timeoutMs: 1_500 }).GET("/v1/studies", { params: { query: { case: "timeout" } } }),
  retriedTimeout: () => createApiClient({ baseUrl, apiKey: "k", retry: { retries: 2, baseDelayMs: 10 }, timeoutMs: 1_500 }).GET("/v1/studies", { params: { query: { case: "retry" } } }),
  stalledBody: () => createApiClient({ baseUrl, apiKey: "k", retry: false, timeoutMs: 1_500 }).GET("/v1/studies", { params: { query: { case: "stall" } } }),
  callerAbort: () => createApiClient({ baseUrl, apiKey: "k", retry: false, timeoutMs: 0 }).GET("/v1/studies", { params: { query: { case: "abort" } }, signal: AbortSignal.timeout(1_000) }),
  ...(withDefault ? { defaultTimeout: () => createApiClient({ baseUrl, apiKey: "k", retry: false }).GET("/v1/studies", { params: { query: { case: "default" } } }) } : {}),
};
// A watchdog past every bound: a case still pending then is reported as such, not waited for.
const limit = withDefault ? 45_000 : 10_000;
const results = Object.fromEntries(await Promise.all(Object.entries(cases).map(async ([name, call]) => [name, await Promise.race([
  outcome(call),
  new Promise((r) => setTimeout(() => r({ outcome: "still pending", ms: limit }), limit).unref()),
])])));
results.retriedTimeout.attempts = seen.get("/api/v1/studies?case=retry") ?? 0;
clearInterval(churn);
server.closeAllConnections();
server.close();
console.log(JSON.stringify({ node: process.version, results }));
