/**
 * The retry schedule, judged from relayed deliveries alone (Events: delivery rules 2 and 3; Limits: webhook retries).
 * The deliveries of one event (its `interview_id`, else its `session_id`) that follow an attempt the service counts as
 * failed (answered with anything but a 2xx, or not within its receiver timeout) are its retries: each comes after its
 * configured delay, no more come than configured, and each carries the first attempt's bytes, signature and
 * `session_id`. A retry that never came is judged once its window has passed while the proxy still ran.
 *
 * What it leaves alone, so that no correct service is blamed: an event sent again after a 2xx (the seed delivers at
 * least once), an event whose webhook changed after the failure (its retries may be cancelled or go elsewhere), an
 * event after a resend the proxy saw (`/_sim/webhook-deliveries/{id}/resend`, the sandbox's tooling), and every event
 * while the sandbox's injected delivery failures are set through it. A resend or an injection made without passing
 * through the proxy reads as a retry out of its place.
 */
import { retriesCheck } from "../checks/retries.ts";
import { retryWindow, timeoutSlack } from "../judge/timing.ts";
import type { Exchange } from "./exchange.ts";
import type { Findings } from "./findings.ts";
import { Capped } from "./memory.ts";

const r = retriesCheck.rules;


export interface RetrySchedule {
  delaysMs: number[];
  timeoutMs: number;
}

interface Attempt {
  at: number;
  /** How long the receiver took; null when it did not answer. */
  tookMs: number | null;
  status: number | null;
  raw: Buffer;
  signature: string;
  sessionId: unknown;
  ex: Exchange;
}

/** Whether a `PUT /_sim/faults` body sets injected delivery failures (unreadable: taken as setting them). */
function injectsFailures(body: Buffer | null): boolean {
  try {
    const n = JSON.parse(body?.toString("utf8") ?? "")?.webhook_failures;
    return typeof n === "number" && n > 0;
  } catch {
    return true;
  }
}

/** How late a retry may land past its window: the proxy's own stalls and the service's, on a loaded machine. */
const lateSlack = (delayMs: number) => Math.max(500, delayMs * 0.25);

export class RetryWatch {
  private readonly chains: Capped<string, Attempt[]>;
  private lastWebhookChange = -Infinity;
  private lastResend = -Infinity;
  private injecting = false;

  constructor(private readonly schedule: RetrySchedule, forgot: (what: string) => void) {
    this.chains = new Capped(10_000, "webhook events awaiting their retries", forgot);
  }

  /**
   * An exchange that passed through: a webhook changed, a delivery resent by hand, or the sandbox's injected delivery
   * failures set or cleared (`PUT /_sim/faults` `webhook_failures`: those attempts are recorded failed without being
   * sent, so the retries the proxy sees are not numbered as it would count them; left alone while they are set).
   */
  exchange(ex: Exchange): void {
    if (ex.status < 200 || ex.status >= 300) return;
    if ((ex.method === "PUT" || ex.method === "DELETE") && ex.path === "/v1/webhooks") this.lastWebhookChange = ex.at;
    if (ex.method === "POST" && /^\/_sim\/webhook-deliveries\/[^/]+\/resend$/.test(ex.path)) this.lastResend = ex.at;
    if ((ex.method === "PUT" || ex.method === "DELETE") && ex.path === "/_sim/faults") {
      const injecting = ex.method === "PUT" && injectsFailures(ex.requestBody);
      if (injecting || this.injecting) this.lastWebhookChange = ex.at;
      this.injecting = injecting;
    }
  }

  /** Whether the service counts the attempt failed: no 2xx within its receiver timeout. */
  private failed(a: Attempt): boolean {
    return a.status === null || a.status < 200 || a.status >= 300 || (a.tookMs ?? Infinity) > this.schedule.timeoutMs;
  }

  /** Whether a retry of `a` is the service's to send and the proxy's to judge: failed, and nothing since that excuses it. */
  private retryOwed(a: Attempt): boolean {
    return !this.injecting && this.failed(a) && this.lastWebhookChange < a.at && this.lastResend < a.at;
  }

  /** Until when after its arrival the service had the attempt's answer (a timeout: when it stopped waiting). */
  private answeredAfter(a: Attempt): number {
    return Math.min(a.tookMs ?? Infinity, this.schedule.timeoutMs);
  }

  /** The window within which retry `n` (1-based) may arrive after the attempt before it arrived. */
  private window(prev: Attempt, n: number): [number, number] {
    const delay = this.schedule.delaysMs[n - 1];
    const [lo, hi] = retryWindow(delay);
    const timedOut = prev.status === null || (prev.tookMs ?? Infinity) > this.schedule.timeoutMs;
    // Early: counted from the arrival (a service may count its delay from the send); after a timeout, not before the
    // service could have stopped waiting. Late: from the answer, with room for stalls.
    const from = timedOut ? this.schedule.timeoutMs - timeoutSlack(this.schedule.timeoutMs) : 0;
    return [from + lo, this.answeredAfter(prev) + hi + lateSlack(delay)];
  }

  delivery(payload: any, raw: Buffer, headers: Record<string, string>, status: number | null, tookMs: number, ex: Exchange, label: string, findings: Findings): void {
    const key = payload?.data?.interview_id ?? payload?.data?.session_id;
    if (typeof key !== "string") return;
    const attempt: Attempt = { at: ex.at, tookMs: status === null ? null : tookMs, status, raw, signature: String(headers["x-webhook-signature"]), sessionId: payload?.data?.session_id, ex };
    const chain = this.chains.get(key);
    const prev = chain?.[chain.length - 1];
    // A first attempt, or one after a 2xx, a webhook change, a resend or while failures are injected: a chain of its own.
    if (!chain || !prev || !this.retryOwed(prev)) {
      this.chains.set(key, [attempt]);
      return;
    }
    const n = chain.length;
    const first = chain[0];
    const what = `${label}: interview ${key}'s attempt ${n + 1}`;
    const answered = prev.status === null ? "not answered" : `answered ${prev.status} after ${Math.round(prev.tookMs ?? 0)} ms`;
    const gap = Math.round(attempt.at - prev.at);
    if (n > this.schedule.delaysMs.length) {
      findings.verdict("implementation", r["retry-count"], false, `${what} arrived ${gap} ms after attempt ${n} (${answered}): after ${this.schedule.delaysMs.length} retries the event is dropped`, ex, [prev.ex]);
    } else {
      const [early, late] = this.window(prev, n);
      findings.verdict("implementation", r.retries, gap >= early && gap <= late, `${what} (retry ${n}) arrived ${gap} ms after attempt ${n} (${answered}); the configured delay is ${this.schedule.delaysMs[n - 1]} ms (accepted ${Math.round(early)}..${Math.round(late)} ms)`, ex, [prev.ex]);
    }
    findings.verdict("implementation", r["identical-retries"], raw.equals(first.raw) && attempt.signature === first.signature, `${what} differs from the first attempt's bytes or signature`, ex, [first.ex]);
    findings.verdict("implementation", r["dedupe-key"], attempt.sessionId === first.sessionId, `${what} carries session_id ${JSON.stringify(attempt.sessionId)}, the first attempt ${JSON.stringify(first.sessionId)}: receivers de-duplicate on it`, ex, [first.ex]);
    chain.push(attempt);
    this.chains.set(key, chain);
  }

  /** Retries whose window has passed with none arriving: each judged once. */
  overdue(now: number, findings: Findings): void {
    for (const [key, chain] of this.chains) {
      const prev = chain[chain.length - 1];
      const n = chain.length;
      if (n > this.schedule.delaysMs.length + 1 || !this.retryOwed(prev)) continue;
      if (n === this.schedule.delaysMs.length + 1) {
        // Every retry came and failed: the event is dropped, which a while as long as the last delay's window shows.
        const [, late] = this.window(prev, n - 1);
        if (now - prev.at <= late) continue;
        findings.verdict("implementation", r["retry-count"], true, "", prev.ex);
        this.chains.delete(key);
        continue;
      }
      const [, late] = this.window(prev, n);
      if (now - prev.at <= late) continue;
      findings.verdict("implementation", r.retries, false, `interview ${key}'s attempt ${n} was ${prev.status === null ? "not answered" : `answered ${prev.status}`}, and no retry came within ${Math.round(late)} ms (the configured delay is ${this.schedule.delaysMs[n - 1]} ms)`, prev.ex);
      this.chains.delete(key);
    }
  }
}
