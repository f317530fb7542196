// A receiver cannot exhaust or slow the server: a 50 MB answer is cut after a few KB, hanging receivers do not
// slow the API, and shutdown aborts what is in flight.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemClock } from "../src/clock.ts";
import { MAX_RESPONSE_BYTES } from "../src/webhooks/delivery.ts";
import { startApi, type Api } from "./helpers.ts";
import { acceptingStudy, deliveries, registerHook, simulate, startReceiver, waitFor, waitForAttempts, type Receiver } from "./webhooks-helpers.ts";

const MB = 1024 * 1024;
const HANGING_TIMEOUT_MS = 4_000;

let api: Api;
let study: any;
const receivers: Receiver[] = [];

beforeAll(async () => {
  // Retries far in the future: each test sees only first attempts.
  api = await startApi({ clock: systemClock, simProcessingMs: 20, webhookRetryDelaysMs: [60_000, 60_000, 60_000], webhookTimeoutMs: HANGING_TIMEOUT_MS });
  study = await acceptingStudy(api, undefined, 8);
});
afterAll(async () => {
  await api.server.close();
  await Promise.all(receivers.map((r) => r.close()));
});

async function track(r: Promise<Receiver>): Promise<Receiver> {
  const receiver = await r;
  receivers.push(receiver);
  return receiver;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Median latency of 20 sequential `GET /v1/studies`. */
async function studiesLatency(): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < 20; i++) {
    const t0 = performance.now();
    const res = await api.req("/v1/studies");
    times.push(performance.now() - t0);
    expect(res.status).toBe(200);
  }
  return median(times);
}

describe("receiver answers that could hurt the server", () => {
  it("reads at most a few KB of a 50 MB answer, then closes the socket", async () => {
    let written = 0;
    let gaveUp = false;
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    const huge = await track(startReceiver((_n, _req, res) => {
      res.writeHead(200, { "content-type": "application/octet-stream", "content-length": String(50 * MB) });
      let sent = 0;
      const pump = () => {
        // Bounded: 800 chunks of 64 KB are the whole 50 MB; backpressure pauses the loop until the reader drains.
        while (sent < 800) {
          if (res.destroyed) return void (gaveUp = true);
          sent++;
          written += chunk.length;
          if (!res.write(chunk)) return void res.once("drain", pump);
        }
        res.end();
      };
      res.on("close", () => void (gaveUp ||= !res.writableFinished));
      pump();
    }));
    await registerHook(api, huge.url);
    const interview = await simulate(api, study.id);
    const [attempt] = await waitForAttempts(api, interview.id, "the attempt to finish", (a) => a.length === 1 && a[0].status !== "pending" && a[0].status !== "in_flight");
    expect(attempt).toMatchObject({ status: "succeeded", response_status: 200, error: null });
    await waitFor("the receiver's socket to close", () => (huge.requests[0]?.closedAt != null ? true : undefined), 3_000);
    expect(gaveUp).toBe(true);
    // What the kernel's socket buffers absorbed before the close, far from the 50 MB offered.
    expect(written).toBeLessThan(25 * MB);
    expect(MAX_RESPONSE_BYTES).toBeLessThanOrEqual(64 * 1024);
    expect((await api.req("/v1/studies")).status).toBe(200);
  });

  it("hanging receivers do not slow GET /v1/studies", async () => {
    await studiesLatency(); // warm-up, so the idle figure is not inflated by the first requests
    const idle = await studiesLatency();
    const hanging = await track(startReceiver(() => {}));
    await registerHook(api, hanging.url);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await simulate(api, study.id)).id);
    await waitFor("5 hanging requests", () => (hanging.requests.length === 5 ? true : undefined));

    const t0 = performance.now();
    const busy = await studiesLatency();
    const measuredFor = performance.now() - t0;
    // Every delivery was still hanging during the measurement, or it did not measure what it claims.
    expect(hanging.requests.every((r) => r.closedAt === null)).toBe(true);
    expect(measuredFor).toBeLessThan(HANGING_TIMEOUT_MS);
    expect(busy).toBeLessThan(5 * idle + 50);
    for (const id of ids) expect((await deliveries(api, id))[0].status).toBe("in_flight");
  });
});

describe("shutdown", () => {
  it("aborts in-flight deliveries and cancels pending retries at once", async () => {
    const own = await startApi({ clock: systemClock, simProcessingMs: 10, webhookRetryDelaysMs: [60_000], webhookTimeoutMs: 60_000 });
    const hanging = await track(startReceiver(() => {}));
    const failing = await track(startReceiver((_n, _req, res) => res.writeHead(503).end()));
    const s = await acceptingStudy(own, undefined, 2);
    await registerHook(own, hanging.url);
    const stuck = await simulate(own, s.id);
    await waitFor("the hanging request", () => (hanging.requests.length === 1 ? true : undefined));
    await registerHook(own, failing.url);
    const retried = await simulate(own, s.id);
    await waitForAttempts(own, retried.id, "a retry pending", (a) => a.length === 2 && a[1].status === "pending");

    const project = [...own.server.app.store.projects.values()].find((p) => p.webhook !== null)!;
    const t0 = performance.now();
    await own.server.close();
    // At once, not after the 60 s timeout or the 60 s retry (the bound leaves a loaded machine its spread).
    expect(performance.now() - t0).toBeLessThan(10_000);
    await waitFor("the hanging socket to close", () => (hanging.requests[0].closedAt !== null ? true : undefined), 2_000);
    const attempts = await own.server.app.webhooks.attempts(project);
    // The first event was cut off by the re-registration (it was in flight) and then by the shutdown.
    expect(attempts.find((a) => a.interview_id === stuck.id)).toMatchObject({ status: "cancelled", error: "cancelled: server shutting down" });
    expect(attempts.filter((a) => a.interview_id === retried.id).map((a) => a.status)).toEqual(["failed", "cancelled"]);
  });
});
