/**
 * The contract-checking proxy: `api-conformance proxy --target URL`. Put it between any client and any implementation;
 * it forwards every exchange unchanged (forward.ts) and, in a worker of its own (worker.ts, judging.ts), judges each
 * against the contract and the seed (the implementation's answers) and the contract (the client's requests), and across
 * exchanges over what it has seen (memory.ts).
 */
import { Worker } from "node:worker_threads";
import type { Level } from "../rules.ts";
import type { Report } from "../run.ts";
import { Forwarder } from "./forward.ts";
import type { JudgingOptions } from "./judging.ts";
import type { Caps } from "./memory.ts";
import { Relay, RELAY_PATH } from "./relay.ts";
import { toWire, type FromWorker, type ToWorker } from "./wire.ts";

export { RELAY_PATH };

export interface ProxyOptions {
  target: string;
  port?: number;
  host?: string;
  level?: Level;
  via?: boolean;
  /** The client's webhook receiver: deliveries to RELAY_PATH go on to it, judged. */
  relayWebhooks?: string;
  upstreamTimeoutMs?: number;
  requestCapture?: number;
  responseCapture?: number;
  caps?: Caps;
  /** The service's retry delays and receiver timeout, when configured otherwise than the seed's (10 s, 1 min, 5 min; 10 s). */
  webhookRetryDelaysMs?: number[];
  webhookTimeoutMs?: number;
  /** Exchanges waiting for the judge beyond this are forwarded unjudged (and counted): memory stays bounded. */
  maxPending?: number;
  /** Bytes of bodies in flight and waiting for the judge, at most (each side): past it, bodies are not kept. */
  memoryBudget?: number;
  print?(line: string): void;
}

export interface RunningProxy {
  url: string;
  relayUrl: string | null;
  /** Exchanges (and relayed deliveries) forwarded so far. */
  forwarded(): number;
  /** Of those, judged so far (judging runs in the worker just after each answer has gone). */
  judged(): number;
  /** Until everything forwarded so far is judged. */
  settled(): Promise<void>;
  progress(): Promise<string>;
  /** The report so far, without stopping. */
  report(failOnClient?: boolean): Promise<Report>;
  /** Stops listening, judges what is in flight, ends the worker, and returns the report. */
  close(failOnClient?: boolean): Promise<Report>;
}

/** The judge worker's code: the published bundle beside cli.js, or from source one built for this process. */
async function workerFile(): Promise<URL> {
  const here = import.meta.url;
  if (!here.endsWith(".ts")) return new URL("./proxy-worker.js", here);
  // Named by a variable so that the published build leaves it out (and esbuild, which only the source run needs).
  const fromSource: string = "./worker-bundle.ts";
  return ((await import(fromSource)) as typeof import("./worker-bundle.ts")).sourceWorker();
}

export async function startProxy(o: ProxyOptions): Promise<RunningProxy> {
  const target = new URL(o.target);
  const print = o.print ?? (() => undefined);
  const data: JudgingOptions = { target: target.href, level: o.level ?? "contract", caps: o.caps, webhookRetryDelaysMs: o.webhookRetryDelaysMs, webhookTimeoutMs: o.webhookTimeoutMs };
  const worker = new Worker(await workerFile(), { workerData: data });
  const maxPending = o.maxPending ?? 2_000;
  const memoryBudget = o.memoryBudget ?? 256 * 1_048_576;
  /** Bytes of each exchange waiting for the judge, in the order posted (the worker answers in that order). */
  const queued: number[] = [];
  let queuedBytes = 0;
  let forwarded = 0;
  let judged = 0;
  let dropped = 0;
  let nextId = 0;
  const waiting = new Map<number, (m: any) => void>();
  const settledWaiters: Array<() => void> = [];
  let failed: Error | null = null;
  worker.on("message", (m: FromWorker) => {
    if (m.type === "print") print(m.line);
    else if (m.type === "judged") {
      judged++;
      queuedBytes -= queued.shift() ?? 0;
      if (judged + dropped >= forwarded) settledWaiters.splice(0).forEach((w) => w());
    } else waiting.get(m.id)?.(m), waiting.delete(m.id);
  });
  worker.on("error", (err) => {
    failed = err;
    print(`the proxy's judge stopped: ${err.stack ?? err.message}; traffic is still forwarded, unjudged`);
    for (const w of waiting.values()) w(null);
    settledWaiters.splice(0).forEach((w) => w());
  });
  type Question = { type: "progress" } | { type: "report"; failOnClient: boolean };
  const ask = <T>(m: Question): Promise<T> =>
    new Promise((resolve, reject) => {
      if (failed) return reject(failed);
      const id = ++nextId;
      waiting.set(id, (reply) => (reply ? resolve(reply) : reject(failed)));
      worker.postMessage({ ...m, id });
    });
  const sizeOf = (m: ToWorker) => (m.type === "exchange" ? (m.ex.requestBody?.length ?? 0) + (m.ex.responseBody?.length ?? 0) : m.type === "delivery" ? m.delivery.raw.length : 0);
  const post = (m: ToWorker) => {
    forwarded++;
    const size = sizeOf(m);
    if (failed || forwarded - judged - dropped > maxPending || queuedBytes + size > memoryBudget) {
      if (dropped++ === 0) print(`note: the judge is behind (${maxPending} exchanges or ${memoryBudget} bytes waiting): exchanges are forwarded unjudged (and counted) until it catches up`);
      return;
    }
    queued.push(size);
    queuedBytes += size;
    worker.postMessage(m);
  };
  // A client that kept the target's base path in its own base URL (`.../api/v1/...` through a proxy of `.../api`)
  // reaches the target at `/api/api/...`, and its 404s are judged as the implementation's: said once, where to point.
  const prefix = target.pathname.replace(/\/$/, "");
  let toldPrefix = false;
  const doubledPrefix = (path: string) => {
    if (toldPrefix || prefix === "" || !path.startsWith(`${prefix}/`)) return;
    toldPrefix = true;
    print(`note: ${path} reached the target as ${prefix}${path}: the proxy adds the target's ${prefix} itself; point the client at the proxy's address without ${prefix}`);
  };
  const relay = o.relayWebhooks ? new Relay(new URL(o.relayWebhooks), (delivery) => post({ type: "delivery", delivery })) : null;
  const forwarder = new Forwarder({
    target, via: o.via ?? false, requestCapture: o.requestCapture ?? 1_048_576, responseCapture: o.responseCapture ?? 16_777_216,
    captureBudget: memoryBudget, upstreamTimeoutMs: o.upstreamTimeoutMs ?? 30_000,
    onExchange: (ex) => {
      doubledPrefix(ex.path);
      const relaying = relay?.earliestInFlight();
      if (relaying !== undefined) ex.relayingSince = relaying;
      post({ type: "exchange", ex: toWire(ex) });
    },
    intercept: relay ? (req, res) => (relay.handles(req) ? (relay.handle(req, res), true) : false) : undefined,
  });
  const url = await forwarder.listen(o.port ?? 0, o.host ?? "127.0.0.1");
  const settled = () => new Promise<void>((r) => (judged + dropped >= forwarded || failed ? r() : settledWaiters.push(r)));
  const report = async (failOnClient = false) => {
    await settled();
    const r = (await ask<{ report: Report }>({ type: "report", failOnClient })).report;
    if (dropped) r.results[0].notes.push(`${dropped} exchange(s) were forwarded unjudged: the judge fell behind (${maxPending} exchanges or ${memoryBudget} bytes waiting)`);
    return r;
  };
  let closed: Promise<Report> | null = null;
  return {
    url, relayUrl: relay ? `${url}${RELAY_PATH}` : null, forwarded: () => forwarded, judged: () => judged, settled,
    progress: async () => `${(await ask<{ line: string }>({ type: "progress" })).line}${dropped ? `, ${dropped} unjudged (the judge fell behind)` : ""}`,
    report,
    close(failOnClient = false) {
      closed ??= (async () => {
        // Every exchange that ended was handed to the judge as it ended (forward.ts), so the report below has it.
        await forwarder.close();
        try {
          return await report(failOnClient);
        } finally {
          await worker.terminate();
        }
      })();
      return closed;
    },
  };
}
