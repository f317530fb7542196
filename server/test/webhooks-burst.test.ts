// A receiver that accepts connections and never answers, a burst of 5,000 completed interviews, and a server run
// with only 256 file descriptors: deliveries are capped (8 per project on the wire, the rest queued), so the API
// keeps answering and the receiver never sees more than the cap.
// Every request of the test opens a connection of its own: a keep-alive pool (fetch's) may write to a socket the
// server is closing at that moment, and the request fails on the client's side ("other side closed", CI of e280fd1 and
// of 26b2734, never reproduced in 23 runs beside the slow-client tests): a race of the client's pool, not something the
// server under test decides. A server that closes, resets or stops answering a fresh connection still fails here, and
// the failure says whether the server had exited and what it wrote to stderr.
import { spawn } from "node:child_process";
import { request } from "node:http";
import { createServer, type Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { freePort, root, waitUntilUp } from "../../test/support/processes.ts";
import { ACME } from "./helpers.ts";
import { sleep } from "../../test/support/wait.ts";

/** One request on a connection of its own; resolves with the status and the body once it is read. */
function requestOnce(port: number, method: string, path: string, body?: unknown): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const headers: Record<string, string> = { authorization: `Bearer ${ACME}`, ...(payload ? { "content-type": "application/json", "content-length": String(Buffer.byteLength(payload)) } : {}) };
    const req = request({ host: "127.0.0.1", port, method, path: `/api${path}`, headers, agent: false, timeout: 10_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", reject);
    });
    req.on("timeout", () => req.destroy(new Error(`${method} ${path}: no answer within 10 s`)));
    req.on("error", reject);
    req.end(payload);
  });
}

describe("webhook delivery under a burst with a hanging receiver", () => {
  it("keeps the API responsive at a low descriptor limit and holds at most the per-project cap of sockets", async () => {
    let open = 0;
    let maxOpen = 0;
    let accepted = 0;
    const sockets = new Set<Socket>();
    const hanging = createServer((socket) => {
      accepted++;
      sockets.add(socket);
      maxOpen = Math.max(maxOpen, ++open);
      socket.on("data", () => undefined); // read the request, never answer
      socket.on("close", () => (open--, sockets.delete(socket)));
      socket.on("error", () => undefined);
    });
    await new Promise<void>((r) => hanging.listen(0, "127.0.0.1", r));
    const receiverPort = (hanging.address() as { port: number }).port;

    const port = await freePort();
    const child = spawn("bash", ["-c", "ulimit -n 256 && exec node --import tsx server/src/main.ts"], {
      cwd: root,
      env: { ...process.env, PORT: String(port), HOST: "127.0.0.1", LOG_LEVEL: "silent", SIM_PROCESSING_MS: "0", WEBHOOK_TIMEOUT_MS: "60000" },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let bursting = true;
    let stderr = "";
    child.stderr!.on("data", (c: Buffer) => void (stderr = (stderr + c.toString("utf8")).slice(-4_000)));
    // What the server was doing when a request failed: still running, or gone, and its last words.
    const withServerState = (err: unknown) => {
      const state = child.exitCode !== null || child.signalCode !== null ? `the server had exited (${child.exitCode ?? child.signalCode})` : "the server was still running";
      return new Error(`${(err as Error).message}; ${state}; its stderr: ${stderr || "(nothing)"}`);
    };
    try {
      await waitUntilUp(`http://127.0.0.1:${port}/api/v1/studies`, 30_000, child);
      const study = JSON.parse((await requestOnce(port, "POST", "/_sim/studies", { name: "Burst" })).body);
      const hook = await requestOnce(port, "PUT", "/v1/webhooks", { url: `http://127.0.0.1:${receiverPort}/hook`, events: ["interview.completed"] });
      expect(hook.status).toBe(201);

      let probes = 0;
      const probe = (async () => {
        while (bursting) {
          const { status } = await requestOnce(port, "GET", "/v1/studies?limit=5").catch((err) => Promise.reject(withServerState(err)));
          probes++;
          expect(status).toBe(200);
          await sleep(20);
        }
      })();
      let created = 0;
      for (let batch = 0; batch < 50; batch++) {
        const replies = await Promise.all(Array.from({ length: 100 }, () => requestOnce(port, "POST", "/_sim/interviews", { study_id: study.id }))).catch((err) => Promise.reject(withServerState(err)));
        created += replies.filter((r) => r.status === 201).length;
      }
      // Let the completions fire and the deliveries queue up behind the hanging ones.
      await sleep(1_000);
      bursting = false;
      await probe;

      expect(created).toBe(5_000);
      // A responsive API at the descriptor limit: every probe answered 200 (one left without an answer for 10 s fails
      // the test above). How fast is a figure for a bench, not a rule the seed sets.
      expect(probes).toBeGreaterThan(5);
      expect(accepted).toBeGreaterThan(0);
      expect(maxOpen).toBeLessThanOrEqual(8);
      const log = JSON.parse((await requestOnce(port, "GET", "/_sim/webhook-deliveries?limit=100")).body);
      expect(log.data.filter((d: any) => d.status === "in_flight").length).toBeLessThanOrEqual(8);
      expect(log.data.some((d: any) => d.status === "pending")).toBe(true);
    } finally {
      bursting = false;
      child.kill("SIGKILL");
      for (const s of sockets) s.destroy();
      await new Promise((r) => hanging.close(() => r(undefined)));
    }
  }, 120_000);
});
