// The delivery core (webhooks/delivery-core.ts) over the memory attempt queue, on a clock that moves only when told:
// every rule it owns (the retry schedule, staleness and cancellation, caps and fairness, resend numbering, retention,
// attempts interrupted by a stop) checked to the millisecond, with a real receiver on loopback. The same behaviour on
// PostgreSQL's queue is checked through the API in cluster/stores.test.ts and cluster/cluster.test.ts.
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import type { FixtureDataset } from "../../fixtures/types.ts";
import { Project } from "../src/model/project.ts";
import { MemoryBackend } from "../src/stores/memory/backend.ts";
import { MemoryDeliveries } from "../src/stores/memory/deliveries.ts";
import { MemoryWebhookSettings } from "../src/stores/memory/webhook-settings.ts";
import { DeliveryCore } from "../src/webhooks/delivery-core.ts";
import { INTERRUPTED } from "../src/webhooks/attempt-outcome.ts";
import type { WebhookDelivery } from "../src/webhooks/types.ts";
import { answer, manualClock, startReceiver, waitFor, type Behaviour, type Receiver } from "./webhooks-helpers.ts";

const dataset = JSON.parse(readFileSync(new URL("../../fixtures/data/default.json", import.meta.url), "utf8")) as FixtureDataset;
const interview = dataset.interviews[0];
const study = dataset.studies.find((s) => s.id === interview.study_id);

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close();
});

interface Options {
  behaviour?: Behaviour;
  caps?: { total: number; perTenant: number; perProject: number };
  attemptsKept?: number;
  backend?: MemoryBackend;
}

/** A core over the memory queue on a manual clock, with projects of two tenants and a receiver answering as told. */
async function harness(o: Options = {}) {
  const clock = manualClock(Date.UTC(2026, 0, 1));
  const receiver: Receiver = await startReceiver(o.behaviour ?? answer(500));
  open.push(receiver);
  const backend = o.backend ?? new MemoryBackend();
  const caps = o.caps ?? { total: 64, perTenant: 16, perProject: 8 };
  const queue = new MemoryDeliveries({ backend, caps, eventsKeptPerTenant: 100, attemptsKeptPerProject: o.attemptsKept ?? 1_000 });
  const core = new DeliveryCore(queue, {
    clock, retryDelaysMs: [10_000, 60_000, 300_000], timeoutMs: 2_000, maxConcurrent: caps.total,
    addressPolicy: { allowLoopback: true }, webhookSettings: new MemoryWebhookSettings(backend),
  });
  open.push(core);
  const projects = [new Project({ id: "p-a1", name: "a1", api_key: "", public_key: "" }, "tenant-a"), new Project({ id: "p-a2", name: "a2", api_key: "", public_key: "" }, "tenant-a"), new Project({ id: "p-b1", name: "b1", api_key: "", public_key: "" }, "tenant-b")];
  for (const p of projects) p.setWebhook(receiver.url, ["interview.completed"], "whsec_test");
  core.restore(new Map(projects.map((p) => [p.id, p])));
  const list = async (p: Project) => (await core.attempts(p)) as WebhookDelivery[];
  /** Waits until `p`'s attempts satisfy `done`, flushing the core's look-ups (a real-time wait: the network is real). */
  const until = (what: string, p: Project, done: (a: WebhookDelivery[]) => boolean) => waitFor(what, async () => ((await list(p)).length > 0 && done(await list(p)) ? list(p) : undefined));
  return { clock, receiver, core, projects, list, until };
}

describe("the delivery core on a manual clock", () => {
  it("retries a failure after each delay to the millisecond, with the same bytes, then drops the event", async () => {
    const { clock, receiver, core, projects: [p], list, until } = await harness();
    await core.interviewCompleted(p, interview, study);
    await until("the first attempt to fail", p, (a) => a[0].status === "failed");
    for (const [n, delay] of [[2, 10_000], [3, 60_000], [4, 300_000]] as const) {
      clock.advance(delay - 1);
      await new Promise((r) => setTimeout(r, 30));
      expect(receiver.requests.length).toBe(n - 1);
      clock.advance(1);
      await until(`attempt ${n} to fail`, p, (a) => a[n - 1]?.status === "failed" && a.length === Math.min(n + 1, 4));
    }
    clock.advance(3_600_000);
    await new Promise((r) => setTimeout(r, 30));
    const attempts = await list(p);
    expect(attempts.map((a) => [a.attempt, a.trigger, a.status, a.error])).toEqual([[1, "event", "failed", "http_500"], [2, "retry", "failed", "http_500"], [3, "retry", "failed", "http_500"], [4, "retry", "failed", "http_500"]]);
    for (const a of attempts) expect(a.sent_at).toBe(a.scheduled_at);
    expect(new Set(receiver.requests.map((r) => r.body.toString("hex"))).size).toBe(1);
    expect(core.pending()).toEqual({ waiting: 0, queued: 0, inFlight: 0 });
  });

  it("cancels a pending retry when the webhook is replaced, keeps it through an identical PUT, and never retries a success", async () => {
    const { clock, receiver, core, projects: [p, q], list, until } = await harness({ behaviour: (n, _req, res) => res.writeHead(n === 1 || n === 3 ? 500 : 200).end() });
    await core.interviewCompleted(p, interview, study);
    await until("the first attempt to fail", p, (a) => a[0].status === "failed" && a.length === 2);
    // An identical PUT bumps the version but keeps the receiver and secret: the retry stays.
    p.setWebhook(receiver.url, ["interview.completed"], "whsec_test");
    await core.webhookChanged(p, p.webhook);
    expect((await list(p))[1].status).toBe("pending");
    clock.advance(10_000);
    await until("the retry to succeed", p, (a) => a[1].status === "succeeded");

    await core.interviewCompleted(q, interview, study);
    await until("q's first attempt to fail", q, (a) => a[0].status === "failed" && a.length === 2);
    q.setWebhook(`${receiver.url}/elsewhere`, ["interview.completed"], "whsec_other");
    await core.webhookChanged(q, q.webhook);
    expect((await list(q)).map((a) => [a.status, a.error])).toEqual([["failed", "http_500"], ["cancelled", "cancelled: webhook replaced"]]);
    clock.advance(3_600_000);
    await new Promise((r) => setTimeout(r, 30));
    expect(receiver.requests.length).toBe(3);
  });

  it("numbers a resend after every attempt of its event and never retries it; deleting the webhook cancels the pending retry and refuses a resend", async () => {
    const { clock, receiver, core, projects: [p], list, until } = await harness();
    await core.interviewCompleted(p, interview, study);
    await until("the first attempt to fail", p, (a) => a[0].status === "failed");
    const resent = await core.resend(p, (await list(p))[0].id);
    expect([resent.attempt, resent.trigger]).toEqual([3, "resend"]);
    await until("the resend to fail", p, (a) => a.some((x) => x.trigger === "resend" && x.status === "failed"));
    expect((await list(p)).filter((a) => a.trigger === "resend")).toHaveLength(1);
    expect(receiver.requests.at(-1)!.body.equals(receiver.requests[0].body)).toBe(true);

    // The retry (2) is due in 10 s: deleting the webhook first cancels it, and a resend needs a webhook.
    p.deleteWebhook();
    await core.webhookChanged(p, null);
    expect((await list(p)).find((a) => a.attempt === 2)).toMatchObject({ status: "cancelled", error: "cancelled: webhook deleted" });
    await expect(core.resend(p, resent.id)).rejects.toMatchObject({ status: 409 });
    clock.advance(3_600_000);
  });

  it("keeps within the caps and goes round the tenants, then a tenant's projects: a backlog never holds another's first attempt behind it", async () => {
    const { receiver, core, projects, list } = await harness({ behaviour: answer(200), caps: { total: 1, perTenant: 1, perProject: 1 } });
    const [a1, a2, b1] = projects;
    for (const p of projects) p.setWebhook(`${receiver.url}/${p.name}`, ["interview.completed"], "whsec_test");
    for (let i = 0; i < 3; i++) await core.interviewCompleted(a1, interview, study);
    await core.interviewCompleted(a2, interview, study);
    await core.interviewCompleted(b1, interview, study);
    await waitFor("every attempt to succeed", async () => {
      const all = [...(await list(a1)), ...(await list(a2)), ...(await list(b1))];
      return all.length === 5 && all.every((a) => a.status === "succeeded") ? all : undefined;
    });
    const order = receiver.requests.map((r) => r.path.split("/").pop());
    expect(order).toHaveLength(5);
    // Tenants in turn: b's only attempt is first or second; within tenant a, projects in turn: a2's is among a's first two.
    expect(order.indexOf("b1")).toBeLessThanOrEqual(1);
    expect(order.filter((x) => x !== "b1").indexOf("a2")).toBeLessThanOrEqual(1);
    // One on the wire at a time: each request arrived after the previous one was answered.
    for (let i = 1; i < receiver.requests.length; i++) expect(receiver.requests[i].at).toBeGreaterThanOrEqual(receiver.requests[i - 1].at);
  });

  it("forgets a project's oldest finished attempts past its cap, never a pending one", async () => {
    const { core, projects: [p], list, until } = await harness({ attemptsKept: 1 });
    await core.interviewCompleted(p, interview, study);
    await until("the first attempt to fail", p, (a) => a.length === 1 && a[0].status === "pending" && a[0].attempt === 2);
    await core.interviewCompleted(p, interview, study);
    // Past the newest one, each finished first attempt went; both retries stay pending, though one is past the cap.
    const kept = await until("the second event's attempt to fail", p, (a) => a.length === 2 && a.every((x) => x.attempt === 2));
    expect(kept.map((a) => [a.attempt, a.trigger, a.status])).toEqual([[2, "retry", "pending"], [2, "retry", "pending"]]);
  });

  it("counts an attempt on the wire when the last process stopped as interrupted, and retries it on the schedule", async () => {
    const backend = new MemoryBackend();
    const projects = new Map([["p-a1", new Project({ id: "p-a1", name: "a1", api_key: "", public_key: "" }, "tenant-a")]]);
    const ev = { id: "evt-1", project_id: "p-a1", interview_id: interview.id, url: "http://127.0.0.1:9/hook", secret: "whsec_test", version: 1, body: "{}", headers: {} };
    const cut: WebhookDelivery = {
      id: "att-1", object: "webhook_delivery", event_id: ev.id, event: "interview.completed", interview_id: interview.id, attempt: 1, trigger: "event",
      url: ev.url, status: "in_flight", response_status: null, error: null, scheduled_at: new Date(Date.UTC(2026, 0, 1)).toISOString(), sent_at: new Date(Date.UTC(2026, 0, 1)).toISOString(), finished_at: null,
    };
    // What a data dir's backend reads back after a stop (SQLite's tables): the event and its attempt still in flight.
    Object.assign(backend, { events: () => [ev], attempts: () => [{ project_id: "p-a1", record: cut }] });
    const clock = manualClock(Date.UTC(2026, 0, 1, 0, 1));
    const queue = new MemoryDeliveries({ backend, caps: { total: 4, perTenant: 4, perProject: 4 }, eventsKeptPerTenant: 10, attemptsKeptPerProject: 10 });
    const core = new DeliveryCore(queue, { clock, retryDelaysMs: [10_000], timeoutMs: 1_000, webhookSettings: new MemoryWebhookSettings(backend) });
    open.push(core);
    projects.get("p-a1")!.setWebhook(ev.url, ["interview.completed"], "whsec_test");
    core.restore(projects);
    const p = projects.get("p-a1")!;
    const attempts = await waitFor("the interrupted attempt to be counted", async () => {
      const a = (await core.attempts(p)) as WebhookDelivery[];
      return a.length === 2 ? a : undefined;
    });
    expect(attempts.map((a) => [a.attempt, a.status, a.error])).toEqual([[1, "failed", INTERRUPTED], [2, "pending", null]]);
    expect(Date.parse(attempts[1].scheduled_at) - clock.now()).toBe(10_000);
  });
});
