// The participant client's 10-second bound in a process that collects garbage every 50 ms, as a long-running app (or
// Jest, or server rendering on Node) does. The typed client lost its timeout this way on Node 20 (issue #41): a signal
// carried through a Request is followed weakly. This client passed its signal straight to fetch and held here
// already; it now races its own timer as well, so the bound does not depend on fetch honouring the signal, and names
// the request that hung (before: "This operation was aborted").
import { execFileSync } from "node:child_process";
import { resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";

const api = pathToFileURL(resolve(fileURLToPath(import.meta.url), "../../src/core/api.ts")).href;
const script = `
import { createServer } from "node:http";
const { ParticipantApi } = await import(${JSON.stringify(api)});
const server = createServer(() => undefined); // accepts, reads, never answers
await new Promise((r) => server.listen(0, "127.0.0.1", r));
let junk = [];
const churn = setInterval(() => { junk = Array.from({ length: 2000 }, (_, i) => ({ i })); globalThis.gc(); }, 50);
const t = performance.now();
const watchdog = new Promise((r) => setTimeout(() => r("still pending after 20 s"), 20_000).unref());
const outcome = await Promise.race([
  new ParticipantApi("http://127.0.0.1:" + server.address().port + "/api", "pk_test", (url, init) => fetch(url, init)).config(null).then(() => "answered", (e) => e.message),
  watchdog,
]);
clearInterval(churn);
server.closeAllConnections();
server.close();
console.log(JSON.stringify({ outcome, ms: Math.round(performance.now() - t) }));
`;

describe("the participant client's timeout", () => {
  it("rejects a hung request after 10 s under forced garbage collection", () => {
    const out = JSON.parse(execFileSync(process.execPath, ["--expose-gc", "--import", "tsx", "--input-type=module", "-e", script], { encoding: "utf8", timeout: 60_000 }));
    expect(out.outcome).toBe("GET /v1/interview-participant/config: no answer within 10 s");
    expect(out.ms).toBeGreaterThanOrEqual(9_900);
    expect(out.ms).toBeLessThan(15_000);
  }, 60_000);
});
