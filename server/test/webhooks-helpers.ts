/**
 * Plumbing shared by the webhook tests: loopback receivers that record every request and answer as told,
 * a manual clock, bounded polling, and shortcuts for the sandbox calls (register a hook, simulate an interview,
 * list deliveries). Receivers listen on 127.0.0.1 only.
 */
import { createContractAjv, describeErrors } from "../../lib/openapi-ajv.ts";
import { waitFor } from "../../test/support/wait.ts";
import { ACME, type Api } from "./helpers.ts";

export { answer, closedPort, startReceiver, type Behaviour, type ReceivedRequest, type Receiver } from "../../test/support/receiver.ts";
export { sleep, waitFor } from "../../test/support/wait.ts";

/** Deletes any webhook, then creates one for `url`, so the creation answer carries the secret. */
export async function registerHook(api: Api, url: string, key = ACME): Promise<string> {
  await api.req("/v1/webhooks", { method: "DELETE", key });
  const res = await api.req("/v1/webhooks", { method: "PUT", key, body: { url, events: ["interview.completed"] } });
  if (res.status !== 201) throw new Error(`PUT /v1/webhooks answered ${res.status}: ${res.text}`);
  return res.body.signing_secret as string;
}

/** An active study that accepts responses and has room for `room` more interviews this week and month. */
export async function acceptingStudy(api: Api, key = ACME, room = 1): Promise<any> {
  const res = await api.req("/v1/studies?limit=100", { key });
  const roomIn = (l: { limit: number | null; used: number }) => l.limit === null || l.limit - l.used >= room;
  const study = res.body.data.find((s: any) => s.accepting_responses && roomIn(s.limits.weekly) && roomIn(s.limits.monthly));
  if (!study) throw new Error(`no study of this key has room for ${room} interviews`);
  return study;
}

export async function simulate(api: Api, studyId: string, extra: Record<string, unknown> = {}, key = ACME): Promise<any> {
  const res = await api.req("/_sim/interviews", { method: "POST", key, body: { study_id: studyId, ...extra } });
  if (res.status !== 201) throw new Error(`POST /_sim/interviews answered ${res.status}: ${res.text}`);
  return res.body;
}

export async function deliveries(api: Api, interviewId?: string, key = ACME): Promise<any[]> {
  const query = interviewId ? `?interview_id=${interviewId}&limit=100` : "?limit=100";
  const res = await api.req(`/_sim/webhook-deliveries${query}`, { key });
  if (res.status !== 200) throw new Error(`GET /_sim/webhook-deliveries answered ${res.status}: ${res.text}`);
  assertValid(DELIVERY_LIST, res.body);
  return res.body.data;
}

/** Waits until the interview's attempts satisfy `done` and returns them. */
export function waitForAttempts(api: Api, interviewId: string, what: string, done: (attempts: any[]) => boolean, timeoutMs = 5_000): Promise<any[]> {
  return waitFor(what, async () => {
    const attempts = await deliveries(api, interviewId);
    return done(attempts) ? attempts : undefined;
  }, timeoutMs);
}

export const contract = createContractAjv();
export const WEBHOOK_BODY = "#/webhooks/interview.completed/post/requestBody/content/application~1json/schema";
export const DELIVERY_LIST = "#/components/schemas/WebhookDeliveryList";

export function assertValid(pointer: string, value: unknown): void {
  const validate = contract.validator(pointer);
  if (!validate(value)) throw new Error(`not a valid ${pointer}: ${describeErrors(validate.errors)}`);
}

/** Milliseconds between two ISO timestamps. */
export const gapMs = (from: string, to: string) => Date.parse(to) - Date.parse(from);

/**
 * A clock that only moves when told: `advance(ms)` runs every timer due by then, in due order, at its due time.
 * It drives the server's retry schedule and simulated interviews; network I/O still happens in real time.
 */
export function manualClock(startMs = Date.now()) {
  let now = startMs;
  let nextId = 1;
  const timers = new Map<number, { at: number; fn: () => void }>();
  return {
    now: () => now,
    setTimeout(fn: () => void, ms: number): unknown {
      const id = nextId++;
      timers.set(id, { at: now + Math.max(0, ms), fn });
      // Due already (armed by a look that ran while the test advanced the clock): it fires soon, as a real timer of 0
      // ms does, not at the next advance, which may never come.
      if (ms <= 0) setImmediate(() => timers.delete(id) && fn());
      return id;
    },
    clearTimeout(handle: unknown) {
      timers.delete(handle as number);
    },
    /** Timers waiting to fire. */
    get pending() {
      return timers.size;
    },
    advance(ms: number) {
      const target = now + ms;
      for (let guard = 0; guard < 100_000; guard++) {
        let due: [number, { at: number; fn: () => void }] | undefined;
        for (const entry of timers) if (entry[1].at <= target && (!due || entry[1].at < due[1].at)) due = entry;
        if (!due) break;
        timers.delete(due[0]);
        now = due[1].at;
        due[1].fn();
      }
      now = target;
    },
  };
}
