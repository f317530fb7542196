/**
 * Webhook delivery end to end: interviews completed through the API (`POST /_sim/interviews` with a past
 * `created_at`, which completes at once) on 16 connections, each in a study of its own, each event signed and sent to a receiver on loopback
 * that answers 204; the figure is events delivered per second, from the first request until the receiver has every
 * one. On the memory store and on one process over PostgreSQL, and on the memory store to an https receiver whose
 * certificate only WEBHOOK_CA_FILE vouches for (what the conformance suite's receiver asks a service to trust).
 *
 *   npx tsx bench/deliveries.ts                 # this tree
 *   npx tsx bench/deliveries.ts --against DIR   # and a checkout of another commit (with node_modules), alternating
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createTlsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { startPostgres } from "../server/test/cluster/postgres.ts";
import { loopbackCertificate, type Certificate } from "../test/support/tls.ts";
import { median } from "./load.ts";
import { startReference } from "./servers.ts";

const ACME = "svc_live_acme_0123456789abcdef0123456789abcdef";
const EVENTS = 1_500;
const CONNECTIONS = 16;
const ROUNDS = Number(process.env.DELIVERIES_ROUNDS ?? 3);

/** A receiver answering 204: plain http, or https with `tls`'s certificate. */
async function receiver(tls?: Certificate) {
  let got = 0;
  let waiter: { n: number; done: () => void } | null = null;
  const answer = (req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(204).end();
      got++;
      if (waiter && got >= waiter.n) waiter.done();
    });
  };
  const server = tls ? createTlsServer(tls, answer) : createServer(answer);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `${tls ? "https" : "http"}://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    /** Resolves once `n` more requests than now have arrived. */
    next(n: number) {
      const target = got + n;
      return new Promise<void>((done) => (waiter = { n: target, done }));
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

const call = async (base: string, path: string, method = "GET", body?: unknown) => {
  const res = await fetch(`${base}${path}`, { method, headers: { authorization: `Bearer ${ACME}`, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json() as Promise<any>;
};

/** Events delivered per second through one sandbox started from `cwd`. */
async function round(cwd: string, env: Record<string, string>, tls?: Certificate): Promise<number> {
  const hook = await receiver(tls);
  const proc = await startReference({ MAX_PLANTED_PER_TENANT: "10000000", ...env }, cwd);
  try {
    await call(proc.baseUrl, "/v1/webhooks", "PUT", { url: hook.url, events: ["interview.completed"] });
    // A study per connection: creations in one study take turns on its row (its caps), which is not what is measured.
    const studies = await Promise.all(Array.from({ length: CONNECTIONS }, (_, i) => call(proc.baseUrl, "/_sim/studies", "POST", { name: `deliveries bench ${i}` })));
    const createdAt = new Date(Date.now() - 3_600_000).toISOString();
    const arrived = hook.next(EVENTS);
    const t0 = performance.now();
    let left = EVENTS;
    await Promise.all(studies.map(async (study) => {
      while (left-- > 0) await call(proc.baseUrl, "/_sim/interviews", "POST", { study_id: study.id, created_at: createdAt });
    }));
    const created = performance.now();
    await arrived;
    if (process.env.DELIVERIES_DEBUG) console.error(`created in ${Math.round(created - t0)} ms, delivered in ${Math.round(performance.now() - t0)} ms`);
    return EVENTS / ((performance.now() - t0) / 1000);
  } finally {
    await proc.stop();
    await hook.close();
  }
}

async function main() {
  const { values } = parseArgs({ options: { against: { type: "string" } } });
  const trees: Array<[string, string]> = [["this tree", process.cwd()], ...(values.against ? [["against", values.against] as [string, string]] : [])];
  const pg = await startPostgres();
  // The https receiver's certificate, self-signed, and the CA file the sandbox is told to trust.
  const tls = await loopbackCertificate("deliveries bench receiver");
  const certDir = mkdtempSync(join(tmpdir(), "deliveries-bench-"));
  const caFile = join(certDir, "ca.pem");
  writeFileSync(caFile, tls.cert);
  try {
    console.log(`| store | ${trees.map(([name]) => `${name}: events/s (rounds)`).join(" | ")} |${values.against ? " this / against |" : ""}`);
    console.log(`|---|${trees.map(() => "---|").join("")}${values.against ? "---:|" : ""}`);
    const cases: Array<[string, (i: number) => Record<string, string>, Certificate | undefined]> = [
      ["memory", () => ({}), undefined],
      ["PostgreSQL, one process", (i) => ({ DATABASE_URL: pg.database(`deliveries_${i}`) }), undefined],
      ["memory, https receiver (WEBHOOK_CA_FILE)", () => ({ WEBHOOK_CA_FILE: caFile }), tls],
    ];
    for (const [store, envOf, receiverTls] of cases) {
      const rates = trees.map(() => [] as number[]);
      let db = 0;
      for (let r = 0; r < ROUNDS; r++) for (const [i, [, cwd]] of trees.entries()) rates[i].push(await round(cwd, envOf(db++), receiverTls));
      const m = rates.map(median);
      console.log(`| ${store} | ${rates.map((rs, i) => `${Math.round(m[i])} (${rs.map(Math.round).join(", ")})`).join(" | ")} |${values.against ? ` ${(m[0] / m[1]).toFixed(2)}x |` : ""}`);
    }
  } finally {
    pg.stop();
    rmSync(certDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
