/**
 * Delivery of `interview.completed` to the project's webhook, with the seed's rules, over an attempt queue
 * (stores/deliveries.ts: in memory for one process, rows for processes sharing a PostgreSQL):
 * - sent only when the project has a webhook whose `events` include `interview.completed`;
 * - the body is built and serialised once per event, so every retry carries the byte-identical body and signature
 *   (and `timestamp` is when the first attempt was scheduled: it goes out at the core's next look);
 * - a non-2xx answer, a connection error or no answer within `timeoutMs` is retried after `retryDelaysMs[0]`,
 *   `[1]`, `[2]` (10 s, 1 min, 5 min by default), then the event is dropped; a 2xx ends it;
 * - deleting or replacing the webhook cancels the pending attempts to the old setting (recorded as `cancelled`),
 *   and an attempt already in flight to the old setting is not retried.
 * Each rule is written once, here or in attempt-outcome.ts; the queue stores what they decide and takes due attempts
 * by the fair queue's rule (fair-queue.ts). Nothing here is awaited by a request beyond the change it belongs to; an
 * error of that change's own writes (the database away) fails it, and any later one is logged.
 */
import type { Logger } from "pino";
import type { Clock } from "../clock.ts";
import type { Project, WebhookSetting } from "../model/project.ts";
import type { AddressPolicy } from "./address-policy.ts";
import { postWebhook } from "./delivery.ts";
import { INTERRUPTED, injectedFields, outcomeFields, readCa, resendNumber, retryAfter, staleAttempt } from "./attempt-outcome.ts";
import { INTERVIEW_COMPLETED } from "./payload.ts";
import { newEvent } from "./new-event.ts";
import { TimerSet } from "./schedule.ts";
import type { WebhookDelivery, WebhookDispatcher } from "./types.ts";
import type { components } from "../../../generated/schema.d.ts";
import type { StoredInterview, StoredStudy } from "../../../fixtures/types.ts";
import type { EventStreams } from "./event-stream.ts";
import type { FaultRegistry } from "../faults/settings.ts";
import { ApiError, conflict, notFound } from "../http/errors.ts";
import type { Claimed, Deliveries, Outcome } from "../stores/deliveries.ts";
import type { WebhookSettings } from "../stores/webhook-settings.ts";
import type { Listeners } from "../stores/listeners.ts";

export interface DeliveryOptions {
  clock: Clock;
  /** Waits before the 1st, 2nd, 3rd... retry; its length is the number of retries. */
  retryDelaysMs: readonly number[];
  /** Per attempt: connect + response headers. */
  timeoutMs: number;
  logger?: Logger;
  /** Which receiver addresses may be called (private, link-local and metadata addresses never; loopback by choice). */
  addressPolicy?: AddressPolicy;
  /** Attempts on the wire at once from this process (default 64); the rest wait their turn. */
  maxConcurrent?: number;
  /**
   * A PEM file of extra CA certificates trusted for https receivers (`WEBHOOK_CA_FILE`). Read at each attempt,
   * so a certificate written after start-up (a conformance run's receiver) is trusted; a missing file adds nothing.
   */
  caFile?: string;
  /** Where every event is also published as the exact signed request (`GET /_sim/events`). */
  streams?: EventStreams;
  /** Injected webhook endpoint failures (`PUT /_sim/faults` `webhook_failures`). */
  faults?: FaultRegistry;
  /** Each project's webhook, read in the change that needs it. */
  webhookSettings: WebhookSettings;
  /** The listener secret that signs stream events of a project without a webhook. */
  listeners?: Listeners;
  /** The longest an idle process waits before looking for due attempts (PostgreSQL: other processes add them); none by default. */
  pollMs?: number;
}

export class DeliveryCore implements WebhookDispatcher {
  private readonly clock: Clock;
  private readonly logger?: Logger;
  private readonly maxConcurrent: number;
  private readonly timers: TimerSet;
  /** Attempts on the wire, with what aborts them, and the promises close() waits for. */
  private readonly inFlight = new Map<string, AbortController>();
  private readonly running = new Set<Promise<void>>();
  private closed = false;
  private ticking: Promise<void> | null = null;
  private again = false;
  private soon: NodeJS.Immediate | null = null;
  /** The armed wake-up: its time and what cancels it. */
  private next: { atMs: number; cancel: () => void } | null = null;
  private known = { waiting: 0, queued: 0 };

  constructor(
    private readonly queue: Deliveries,
    private readonly o: DeliveryOptions,
  ) {
    this.clock = o.clock;
    this.logger = o.logger;
    this.maxConcurrent = o.maxConcurrent ?? 64;
    this.timers = new TimerSet(o.clock);
  }

  /** Looks for due attempts now (once, however many ask before it runs). */
  private wake(): void {
    if (this.closed || this.soon) return;
    this.soon = setImmediate(() => {
      this.soon = null;
      void this.tick();
    });
  }

  /** Looks again at `atMs` on the clock, unless an earlier look is armed. */
  private wakeAt(atMs: number): void {
    if (this.closed) return;
    if (this.next && this.next.atMs <= atMs) return;
    this.next?.cancel();
    const cancel = this.timers.at(atMs, () => {
      this.next = null;
      void this.tick();
    });
    this.next = { atMs, cancel };
  }

  private tick(): Promise<void> {
    if (this.ticking) {
      this.again = true;
      return this.ticking;
    }
    this.ticking = this.claimAndSend()
      .catch((err) => {
        this.logger?.warn({ err: (err as Error).message }, "webhook claim failed; retrying");
        // The database is away: look again after a poll's pause (a notification may never come).
        this.wakeAt(this.clock.now() + (this.o.pollMs ?? 1_000));
      })
      .finally(() => {
        this.ticking = null;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
    return this.ticking;
  }

  private async claimAndSend(): Promise<void> {
    if (this.closed) return;
    for (const c of await this.queue.interrupted(this.clock.now())) await this.record(c, { status: "failed", response_status: null, error: INTERRUPTED });
    const room = this.maxConcurrent - this.inFlight.size;
    if (room > 0) for (const c of await this.queue.claim(this.clock.now(), room)) this.start(c);
    const { nextMs, waiting, queued } = await this.queue.outlook(this.clock.now());
    this.known = { waiting, queued };
    const poll = this.o.pollMs === undefined ? null : this.clock.now() + this.o.pollMs;
    const at = nextMs === null ? poll : poll === null ? nextMs : Math.min(nextMs, poll);
    if (at !== null) this.wakeAt(at);
  }

  private start(c: Claimed): void {
    const controller = new AbortController();
    this.inFlight.set(c.record.id, controller);
    const done = this.send(c, controller.signal)
      .catch((err) => this.logger?.error({ err: (err as Error).message, event_id: c.ev.id }, "webhook delivery bookkeeping failed"))
      .finally(() => {
        this.inFlight.delete(c.record.id);
        this.running.delete(done);
        this.wake();
      });
    this.running.add(done);
  }

  private async send(c: Claimed, signal: AbortSignal): Promise<void> {
    const stale = staleAttempt(c.ev, c.record, await this.o.webhookSettings.get(c.ev.project));
    if (stale) return this.record(c, { status: "cancelled", response_status: null, error: stale });
    // An injected endpoint failure: recorded as the endpoint's answer, nothing sent, retried like a real one.
    const injected = (await this.o.faults?.takeWebhookFailure(c.ev.project.id)) ?? null;
    if (injected !== null) return this.record(c, injectedFields(injected));
    const { timeoutMs, caFile, addressPolicy } = this.o;
    const { ev } = c;
    const outcome = await postWebhook({ url: ev.url, body: ev.body, headers: ev.headers, timeoutMs, signal, extraCa: readCa(caFile), addressPolicy });
    // Cut by this process's shutdown: kept for the next start (or another process), else counted cancelled.
    if (outcome.kind === "aborted" && (await this.queue.abandon(c))) return;
    return this.record(c, outcomeFields(outcome));
  }

  /** Records an attempt's outcome, with the retry it asks for (attempt-outcome.ts's rule) written in the same change. */
  private record(c: Claimed, outcome: Outcome): Promise<void> {
    const now = this.clock.now();
    const stale = async () => staleAttempt(c.ev, c.record, await this.o.webhookSettings.get(c.ev.project)) !== null;
    return this.queue.finish(c, outcome, now, async () => {
      const next = await retryAfter({ ...c.record, ...outcome }, c.ev, now, this.o.retryDelaysMs, stale, this.logger);
      if (next) await this.queue.addAttempt(c.ev, next.attempt, "retry", c.ev.url, next.dueMs);
    });
  }

  async interviewCompleted(project: Project, interview: StoredInterview, study: StoredStudy | undefined): Promise<void> {
    if (this.closed) return;
    // The first attempt is due now, the event's timestamp. The webhook is read in the change that completed the
    // interview: the event is bound to it as it is then.
    const now = this.clock.now();
    const webhook = await this.o.webhookSettings.get(project);
    const secret = webhook || !this.o.listeners ? undefined : await this.o.listeners.secret(project);
    const { delivery: ev, streamed } = newEvent(project, webhook, interview, study, now, secret === undefined ? undefined : () => secret);
    if (streamed) await this.o.streams?.publish(project.id, streamed);
    if (ev) await this.queue.addEvent(ev, now);
  }

  async webhookChanged(project: Project, current: WebhookSetting | null): Promise<void> {
    // Pending attempts of a replaced or deleted webhook never go out; an identical PUT keeps them.
    await this.queue.cancelPending(project, (ev, record) => staleAttempt(ev, record, current), this.clock.now());
  }

  attempts(project: Project): Promise<readonly WebhookDelivery[]> {
    return this.queue.list(project);
  }

  private async found(project: Project, attemptId: string) {
    const found = await this.queue.find(project, attemptId);
    if (!found) throw notFound(`No such delivery: ${attemptId}`);
    return found;
  }

  async request(project: Project, attemptId: string): Promise<components["schemas"]["SimDeliveryRequest"]> {
    const { record, ev } = await this.found(project, attemptId);
    return { delivery_id: record.id, event_id: ev.id, url: record.url, headers: { ...ev.headers }, body: ev.body.toString("utf8") };
  }

  async resend(project: Project, attemptId: string): Promise<WebhookDelivery> {
    if (this.closed) throw new ApiError(503, "api_error", "The server is shutting down", undefined, { "Retry-After": "1" });
    const { ev } = await this.found(project, attemptId);
    const webhook = await this.o.webhookSettings.get(project);
    if (!webhook) throw conflict("No webhook is configured: PUT /v1/webhooks first");
    // The same bytes and signature, to the webhook as it is configured now; a resend is not retried.
    const numbers = await this.queue.attemptNumbers(ev);
    if (!numbers) throw notFound(`No such delivery: ${attemptId}`);
    const number = resendNumber(numbers);
    const record = await this.queue.addAttempt(ev, number, "resend", webhook.url, this.clock.now());
    await this.o.streams?.publish(project.id, { event_id: ev.id, event: INTERVIEW_COMPLETED, interview_id: ev.interviewId, reason: "resend", headers: ev.headers, body: ev.body.toString("utf8") });
    return record;
  }

  pending(): { waiting: number; queued: number; inFlight: number } {
    return { ...this.known, inFlight: this.inFlight.size };
  }

  restore(projects: ReadonlyMap<string, Project>): void {
    // Until the first look, what the start read back (the banner's count).
    this.known = { waiting: this.queue.start(projects, () => this.wake()), queued: 0 };
    this.wake();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.soon) clearImmediate(this.soon);
    this.timers.clearAll();
    await this.ticking?.catch(() => {});
    for (const c of this.inFlight.values()) c.abort();
    await Promise.allSettled([...this.running]);
    await this.queue.close(this.clock.now());
  }
}

