// A receiver that accepts connections and never answers, a burst of 5,000 completed interviews, and a server run
// with only 256 file descriptors: deliveries are capped (8 per project on the wire, the rest queued), so the API
// keeps answering and the receiver never sees more than the cap.
// The probe opens a fresh connection per request: fetch's pool reuses a keep-alive socket until its own timer (the
// server's 5 s hint less 1 s) fires, and on a loaded machine that timer fires late, after the server closed the socket
// ("other side closed", CI of e280fd1): a race of the client's pool, not a slow API.
import { spawn } from "node:child_process";
import { request } from "node:http";
import { createServer, type Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { freePort, root, waitUntilUp } from "../../test/support/processes.ts";
import { ACME } from "./helpers.ts";
import { sleep } from "../../test/support/wait.ts";

/** GET /v1/studies on a connection of its own; resolves with the status once the body is read. */
function probeOnce(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path: "/api/v1/studies?limit=5", headers: { authorization: `Bearer ${ACME}` }, agent: false, timeout: 10_000 }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
      res.on("error", reject);
    });
    req.on("timeout", () => req.destroy(new Error("probe: no answer within 10 s")));
    req.on("error", reject);
    req.end();
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
      stdio: "ignore",
    });
    const base = `http://127.0.0.1:${port}/api`;
    const auth = { authorization: `Bearer ${ACME}`, "content-type": "application/json" };
    try {
      await waitUntilUp(`${base}/v1/studies`, 30_000, child);
      const study = await (await fetch(`${base}/_sim/studies`, { method: "POST", headers: auth, body: JSON.stringify({ name: "Burst" }) })).json();
      const hook = await fetch(`${base}/v1/webhooks`, { method: "PUT", headers: auth, body: JSON.stringify({ url: `http://127.0.0.1:${receiverPort}/hook`, events: ["interview.completed"] }) });
      expect(hook.status).toBe(201);

      const latencies: number[] = [];
      let bursting = true;
      const probe = (async () => {
        while (bursting) {
          const t = performance.now();
          const status = await probeOnce(port);
          latencies.push(performance.now() - t);
          expect(status).toBe(200);
          await sleep(20);
        }
      })();
      let created = 0;
      for (let batch = 0; batch < 50; batch++) {
        const replies = await Promise.all(Array.from({ length: 100 }, () => fetch(`${base}/_sim/interviews`, { method: "POST", headers: auth, body: JSON.stringify({ study_id: study.id }) })));
        for (const r of replies) {
          if (r.status === 201) created++;
          await r.arrayBuffer();
        }
      }
      // Let the completions fire and the deliveries queue up behind the hanging ones.
      await sleep(1_000);
      bursting = false;
      await probe;

      expect(created).toBe(5_000);
      expect(latencies.length).toBeGreaterThan(5);
      // A responsive API at the descriptor limit: every probe answered, none took seconds.
      expect(Math.max(...latencies)).toBeLessThan(2_000);
      expect(accepted).toBeGreaterThan(0);
      expect(maxOpen).toBeLessThanOrEqual(8);
      const log = await (await fetch(`${base}/_sim/webhook-deliveries?limit=100`, { headers: auth })).json();
      expect(log.data.filter((d: any) => d.status === "in_flight").length).toBeLessThanOrEqual(8);
      expect(log.data.some((d: any) => d.status === "pending")).toBe(true);
    } finally {
      child.kill("SIGKILL");
      for (const s of sockets) s.destroy();
      await new Promise((r) => hanging.close(() => r(undefined)));
    }
  }, 120_000);
});
