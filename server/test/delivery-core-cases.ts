// The delivery core's behaviour (webhooks/delivery-core.ts) on a clock that moves only when told, over any attempt
// queue (stores/deliveries.ts): every rule it owns (the retry schedule, staleness and cancellation, caps and fairness,
// resend numbering, retention, attempts interrupted by a stop) checked to the millisecond, with a real receiver on
// loopback. delivery-core.test.ts runs these cases over the memory queue; cluster/delivery-core-pg.test.ts over
// PostgreSQL's.
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import type { FixtureDataset } from "../../fixtures/types.ts";
import { Project } from "../src/model/project.ts";
import type { Backend, StoredEvent } from "../src/stores/backend.ts";
import type { Deliveries } from "../src/stores/deliveries.ts";
import { MemoryWebhookSettings } from "../src/stores/memory/webhook-settings.ts";
import { DeliveryCore } from "../src/webhooks/delivery-core.ts";
import { INTERRUPTED } from "../src/webhooks/attempt-outcome.ts";
import type { WebhookDelivery } from "../src/webhooks/types.ts";
import { answer, manualClock, startReceiver, waitFor, type Behaviour, type Receiver } from "./webhooks-helpers.ts";

const dataset = JSON.parse(readFileSync(new URL("../../fixtures/data/default.json", import.meta.url), "utf8")) as FixtureDataset;
const interview = dataset.interviews[0];
const study = dataset.studies.find((s) => s.id === interview.study_id);

/** What a queue under test is opened with. */
export interface QueueOptions {
  caps: { total: number; perTenant: number; perProject: number };
  attemptsKept: number;
  /** Events kept per tenant. */
  eventsKept: number;
  projects: ReadonlyMap<string, Project>;
  /** An event with its attempt left in flight, as a process that stopped mid-attempt leaves them. */
  cut?: { event: StoredEvent; tenant: string; record: WebhookDelivery };
}

/** A kind of attempt queue: opens one, empty but for `cut`, with the backend whose changes it writes in. */
export type OpenQueue = (o: QueueOptions) => Promise<{ queue: Deliveries; backend: Backend; close(): Promise<void> }>;

interface Options {
  behaviour?: Behaviour;
  caps?: QueueOptions["caps"];
  attemptsKept?: number;
  eventsKept?: number;
}

export function deliveryCoreCases(kind: string, openQueue: OpenQueue): void {
  const open: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    for (const o of open.splice(0).reverse()) await o.close();
  });

  const newProjects = () => [new Project({ id: "p-a1", name: "a1", api_key: "", public_key: "" }, "tenant-a"), new Project({ id: "p-a2", name: "a2", api_key: "", public_key: "" }, "tenant-a"), new Project({ id: "p-b1", name: "b1", api_key: "", public_key: "" }, "tenant-b")];

  /** A core over the queue on a manual clock, with projects of two tenants and a receiver answering as told. */
  async function harness(o: Options = {}) {
    const clock = manualClock(Date.UTC(2026, 0, 1));
    const receiver: Receiver = await startReceiver(o.behaviour ?? answer(500));
    open.push(receiver);
    const projects = newProjects();
    const byId = new Map(projects.map((p) => [p.id, p]));
    const caps = o.caps ?? { total: 64, perTenant: 16, perProject: 8 };
    const { queue, backend, close } = await openQueue({ caps, attemptsKept: o.attemptsKept ?? 1_000, eventsKept: o.eventsKept ?? 100, projects: byId });
    open.push({ close });
    const core = new DeliveryCore(queue, {
      clock, retryDelaysMs: [10_000, 60_000, 300_000], timeoutMs: 2_000, maxConcurrent: caps.total,
      addressPolicy: { allowLoopback: true }, webhookSettings: new MemoryWebhookSettings({ append() {} } as never),
    });
    open.push(core);
    for (const p of projects) p.setWebhook(receiver.url, ["interview.completed"], "whsec_test");
    core.restore(byId);
    // As the server calls it: in the change that completed the interview, changed the webhook, made the resend.
    const inChange = <T>(fn: () => T) => Promise.resolve(backend.write(fn)) as Promise<Awaited<T>>;
    const complete = (p: Project) => inChange(() => core.interviewCompleted(p, interview, study));
    const changed = (p: Project) => inChange(() => core.webhookChanged(p, p.webhook));
    const resend = (p: Project, id: string) => inChange(() => core.resend(p, id));
    const list = async (p: Project) => [...(await core.attempts(p))] as WebhookDelivery[];
    /** Waits until `p`'s attempts satisfy `done` (a real-time wait: the network and the database are real). */
    const until = (what: string, p: Project, done: (a: WebhookDelivery[]) => boolean) => waitFor(what, async () => {
      const a = await list(p);
      return a.length > 0 && done(a) ? a : undefined;
    });
    /** Lets the core's looks and the receiver's answers run for a moment of real time, the clock standing still. */
    const settle = () => new Promise((r) => setTimeout(r, 100));
    return { clock, receiver, core, projects, list, until, complete, changed, resend, settle };
  }

  describe(`the delivery core on a manual clock, over ${kind}`, () => {
    it("retries a failure after each delay to the millisecond, with the same bytes, then drops the event", async () => {
      const { clock, receiver, core, projects: [p], list, until, complete, settle } = await harness();
      await complete(p);
      await until("the first attempt to fail", p, (a) => a[0].status === "failed");
      for (const [n, delay] of [[2, 10_000], [3, 60_000], [4, 300_000]] as const) {
        clock.advance(delay - 1);
        await settle();
        expect(receiver.requests.length).toBe(n - 1);
        clock.advance(1);
        await until(`attempt ${n} to fail`, p, (a) => a[n - 1]?.status === "failed" && a.length === Math.min(n + 1, 4));
      }
      clock.advance(3_600_000);
      await settle();
      const attempts = await list(p);
      expect(attempts.map((a) => [a.attempt, a.trigger, a.status, a.error])).toEqual([[1, "event", "failed", "http_500"], [2, "retry", "failed", "http_500"], [3, "retry", "failed", "http_500"], [4, "retry", "failed", "http_500"]]);
      for (const a of attempts) expect(a.sent_at).toBe(a.scheduled_at);
      expect(new Set(receiver.requests.map((r) => r.body.toString("hex"))).size).toBe(1);
      expect(core.pending()).toEqual({ waiting: 0, queued: 0, inFlight: 0 });
    });

    it("cancels a pending retry when the webhook is replaced, keeps it through an identical PUT, and never retries a success", async () => {
      const { clock, receiver, projects: [p, q], list, until, complete, changed, settle } = await harness({ behaviour: (n, _req, res) => res.writeHead(n === 1 || n === 3 ? 500 : 200).end() });
      await complete(p);
      await until("the first attempt to fail", p, (a) => a[0].status === "failed" && a.length === 2);
      // An identical PUT bumps the version but keeps the receiver and secret: the retry stays.
      p.setWebhook(receiver.url, ["interview.completed"], "whsec_test");
      await changed(p);
      expect((await list(p))[1].status).toBe("pending");
      clock.advance(10_000);
      await until("the retry to succeed", p, (a) => a[1].status === "succeeded");

      await complete(q);
      await until("q's first attempt to fail", q, (a) => a[0].status === "failed" && a.length === 2);
      q.setWebhook(`${receiver.url}/elsewhere`, ["interview.completed"], "whsec_other");
      await changed(q);
      expect((await list(q)).map((a) => [a.status, a.error])).toEqual([["failed", "http_500"], ["cancelled", "cancelled: webhook replaced"]]);
      clock.advance(3_600_000);
      await settle();
      expect(receiver.requests.length).toBe(3);
    });

    it("numbers a resend after every attempt of its event and never retries it; deleting the webhook cancels the pending retry and refuses a resend", async () => {
      const { clock, receiver, projects: [p], list, until, complete, changed, resend } = await harness();
      await complete(p);
      await until("the first attempt to fail", p, (a) => a[0].status === "failed");
      const resent = await resend(p, (await list(p))[0].id);
      expect([resent.attempt, resent.trigger]).toEqual([3, "resend"]);
      await until("the resend to fail", p, (a) => a.some((x) => x.trigger === "resend" && x.status === "failed"));
      expect((await list(p)).filter((a) => a.trigger === "resend")).toHaveLength(1);
      expect(receiver.requests.at(-1)!.body.equals(receiver.requests[0].body)).toBe(true);

      // The retry (2) is due in 10 s: deleting the webhook first cancels it, and a resend needs a webhook.
      p.deleteWebhook();
      await changed(p);
      expect((await list(p)).find((a) => a.attempt === 2)).toMatchObject({ status: "cancelled", error: "cancelled: webhook deleted" });
      await expect(resend(p, resent.id)).rejects.toMatchObject({ status: 409 });
      clock.advance(3_600_000);
    });

    it("keeps within the caps and goes round the tenants, then a tenant's projects: a backlog never holds another's first attempt behind it", async () => {
      // Each answer a moment late, counting the requests open at once: the cap lets one out at a time. No answer comes
      // before the whole backlog is there (the first attempt waits for it): otherwise a slow machine completes the
      // interviews one by one after the deliveries before them, and the order shows the test's pace, not the core's
      // choice (CI's loaded machine once delivered a1, a1, b1).
      let openNow = 0;
      let mostOpen = 0;
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      const behaviour: Behaviour = (_n, _req, res) => {
        mostOpen = Math.max(mostOpen, ++openNow);
        void released.then(() =>
          setTimeout(() => {
            openNow--;
            res.writeHead(200).end();
          }, 20),
        );
      };
      const { receiver, projects, list, complete } = await harness({ behaviour, caps: { total: 1, perTenant: 1, perProject: 1 } });
      const [a1, a2, b1] = projects;
      for (const p of projects) p.setWebhook(`${receiver.url}/${p.name}`, ["interview.completed"], "whsec_test");
      for (let i = 0; i < 3; i++) await complete(a1);
      await complete(a2);
      await complete(b1);
      release();
      await waitFor("every attempt to succeed", async () => {
        const all = [...(await list(a1)), ...(await list(a2)), ...(await list(b1))];
        return all.length === 5 && all.every((a) => a.status === "succeeded") ? all : undefined;
      });
      const order = receiver.requests.map((r) => r.path.split("/").pop());
      expect(order).toHaveLength(5);
      // Tenants in turn: b's only attempt is first or second; within tenant a, projects in turn: a2's is among a's first two.
      expect(order.indexOf("b1")).toBeLessThanOrEqual(1);
      expect(order.filter((x) => x !== "b1").indexOf("a2")).toBeLessThanOrEqual(1);
      expect(mostOpen).toBe(1);
    });

    it("forgets a project's oldest finished attempts past its cap, never a pending one", async () => {
      const { projects: [p], until, complete } = await harness({ attemptsKept: 1 });
      await complete(p);
      await until("the first attempt to fail", p, (a) => a.length === 1 && a[0].status === "pending" && a[0].attempt === 2);
      await complete(p);
      // Past the newest one, each finished first attempt went; both retries stay pending, though one is past the cap.
      const kept = await until("the second event's attempt to fail", p, (a) => a.length === 2 && a.every((x) => x.attempt === 2));
      expect(kept.map((a) => [a.attempt, a.trigger, a.status])).toEqual([[2, "retry", "pending"], [2, "retry", "pending"]]);
    });

    it("forgets a tenant's oldest events past its cap once none of their attempts is to run, and a resend of one forgotten is a 404", async () => {
      const { clock, core, projects: [p, sibling], list, until, complete, resend, settle } = await harness({ eventsKept: 1 });
      await complete(p);
      const first = await until("the first event's attempt to fail", p, (a) => a.length === 2 && a[1].status === "pending");
      // A second event of the tenant (another project of it): the first is past the cap, but its retry is still to run.
      await complete(sibling);
      await until("the second event's attempt to fail", sibling, (a) => a.length === 2 && a[1].status === "pending");
      await settle();
      expect((await core.request(p, first[0].id)).event_id).toBe(first[0].event_id);
      // The first event's retries run out (the second's too); a third event then leaves only itself.
      for (const delay of [10_000, 60_000, 300_000]) {
        clock.advance(delay);
        await settle();
      }
      await until("the first event's retries to run out", p, (a) => a.length === 4 && a.every((x) => x.status === "failed"));
      await until("the second event's retries to run out", sibling, (a) => a.length === 4 && a.every((x) => x.status === "failed"));
      await complete(p);
      await until("the third event's attempt to fail", p, (a) => a.length === 6 && a[5].status === "pending");
      await waitFor("the first two events to be forgotten", async () => {
        const gone = await Promise.all([first[0].id, (await list(sibling))[0].id].map((id, k) => core.request(k === 0 ? p : sibling, id).then(() => false, (err) => err.status === 404)));
        return gone.every(Boolean) || undefined;
      });
      await expect(resend(p, first[0].id)).rejects.toMatchObject({ status: 404 });
      const third = (await list(p)).find((a) => a.event_id !== first[0].event_id)!;
      expect((await core.request(p, third.id)).event_id).toBe(third.event_id);
      clock.advance(3_600_000);
    });

    it("counts an attempt on the wire when the last process stopped as interrupted, and retries it on the schedule", async () => {
      const projects = newProjects();
      const p = projects[0];
      const at = Date.UTC(2026, 0, 1);
      const event: StoredEvent = { id: "0c1e7a52-5b5e-4b8e-9d43-1f0a2b3c4d5e", project_id: p.id, interview_id: interview.id, url: "http://127.0.0.1:9/hook", secret: "whsec_test", version: 1, body: "{}", headers: {} };
      const record: WebhookDelivery = {
        id: "5f0b8c1d-2e3f-4a5b-8c6d-7e8f9a0b1c2d", object: "webhook_delivery", event_id: event.id, event: "interview.completed", interview_id: interview.id, attempt: 1, trigger: "event",
        url: event.url, status: "in_flight", response_status: null, error: null, scheduled_at: new Date(at).toISOString(), sent_at: new Date(at).toISOString(), finished_at: null,
      };
      const { queue, close } = await openQueue({ caps: { total: 4, perTenant: 4, perProject: 4 }, attemptsKept: 10, eventsKept: 100, projects: new Map(projects.map((x) => [x.id, x])), cut: { event, tenant: p.tenant, record } });
      open.push({ close });
      // A minute later, by which time any lease the stopped process held has run out.
      const clock = manualClock(at + 60_000);
      const core = new DeliveryCore(queue, { clock, retryDelaysMs: [10_000], timeoutMs: 1_000, webhookSettings: new MemoryWebhookSettings({ append() {} } as never) });
      open.push(core);
      p.setWebhook(event.url, ["interview.completed"], "whsec_test");
      core.restore(new Map(projects.map((x) => [x.id, x])));
      const attempts = await waitFor("the interrupted attempt to be counted", async () => {
        const a = [...(await core.attempts(p))] as WebhookDelivery[];
        return a.length === 2 ? a : undefined;
      });
      expect(attempts.map((a) => [a.attempt, a.status, a.error])).toEqual([[1, "failed", INTERRUPTED], [2, "pending", null]]);
      expect(Date.parse(attempts[1].scheduled_at) - clock.now()).toBe(10_000);
    });
  });
}
