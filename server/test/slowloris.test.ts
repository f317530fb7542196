// Slowloris: the sandbox under `ulimit -n 1024` keeps answering while 1,500 connections from one address each send
// one header line every 5 s (the outside breaker's attack, which took every probe down before). Probes on fresh
// connections from another address must all be answered, p99 under 1 s. Bounded: 25 s of attack, then everything
// is closed. Linux only (loopback addresses beyond 127.0.0.1).
import { spawn, type ChildProcess } from "node:child_process";
import { request } from "node:http";
import { connect, type Socket } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { freePort, root, waitUntilUp } from "../../test/support/processes.ts";
import { ACME } from "./helpers.ts";

const ATTACKERS = 1_500;
const ATTACK_MS = 25_000;
let server: ChildProcess | undefined;
const sockets = new Set<Socket>();
afterAll(() => {
  for (const s of sockets) s.destroy();
  server?.kill("SIGKILL");
});

/** One GET on a fresh connection from 127.0.0.1; resolves with its latency, or rejects. */
function probe(port: number): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path: "/api/v1/studies?limit=1", headers: { authorization: `Bearer ${ACME}`, connection: "close" }, agent: false, timeout: 5_000 }, (res) => {
      res.resume();
      res.on("end", () => (res.statusCode === 200 ? resolve(performance.now() - started) : reject(new Error(`status ${res.statusCode}`))));
    });
    req.on("timeout", () => req.destroy(new Error("probe timed out")));
    req.on("error", reject);
    req.end();
  });
}

describe("slowloris", () => {
  it("keeps answering probes (p99 < 1 s) under 1,500 slow connections at ulimit -n 1024", async () => {
    const port = await freePort();
    server = spawn("bash", ["-c", "ulimit -n 1024 && exec node --import tsx server/src/main.ts"], { cwd: root, env: { ...process.env, PORT: String(port), LOG_LEVEL: "silent" }, stdio: "ignore" });
    await waitUntilUp(`http://127.0.0.1:${port}/api/v1/studies`, 30_000, server);

    const end = Date.now() + ATTACK_MS;
    let opened = 0;
    const attack = (n: number) => {
      if (Date.now() > end) return;
      // Each attacker starts a request and trickles one header line every 5 s; closed by the server, it comes back a
      // second later.
      const s = connect({ host: "127.0.0.1", port, localAddress: "127.0.0.2" });
      sockets.add(s);
      opened++;
      let timer: NodeJS.Timeout | undefined;
      s.on("connect", () => {
        s.write(`GET /api/v1/studies HTTP/1.1\r\nHost: x\r\n`);
        timer = setInterval(() => s.write(`X-Slow-${n}: ${Date.now()}\r\n`), 5_000);
      });
      s.on("error", () => undefined);
      s.on("close", () => {
        clearInterval(timer);
        sockets.delete(s);
        setTimeout(() => attack(n), 1_000);
      });
    };
    for (let i = 0; i < ATTACKERS; i++) attack(i);

    const latencies: number[] = [];
    const failures: string[] = [];
    await new Promise((r) => setTimeout(r, 1_000));
    while (Date.now() < end) {
      try {
        latencies.push(await probe(port));
      } catch (err) {
        failures.push((err as Error).message);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    for (const s of sockets) s.destroy();
    latencies.sort((a, b) => a - b);
    const p99 = latencies[Math.floor(latencies.length * 0.99)] ?? Infinity;
    console.log(`slowloris: ${opened} attacking connections opened, ${latencies.length} probes, median ${latencies[latencies.length >> 1]?.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms`);
    expect(opened, "the attack really opened its connections").toBeGreaterThanOrEqual(ATTACKERS);
    expect(failures, `${failures.length} of ${failures.length + latencies.length} probes failed`).toEqual([]);
    expect(latencies.length).toBeGreaterThan(50);
    expect(p99).toBeLessThan(1_000);
  }, 60_000);
});
