/**
 * Delivery of `interview.completed` to the project's webhook, with the seed's rules:
 * - sent only when the project has a webhook whose `events` include `interview.completed`;
 * - the body is built and serialised once per event, so every retry carries the byte-identical body and signature
 *   (and `timestamp` is the send time of the first attempt);
 * - a non-2xx answer, a connection error or no answer within `timeoutMs` is retried after `retryDelaysMs[0]`,
 *   `[1]`, `[2]` (10 s, 1 min, 5 min by default), then the event is dropped; a 2xx ends it;
 * - deleting or replacing the webhook cancels the pending retries to the old setting (recorded as `cancelled`),
 *   and an attempt already in flight to the old setting is not retried.
 * Handlers call in and return at once: nothing here is awaited in a request, and no error escapes to the caller.
 *
 * This file only wires the parts, each in a file named for its job: the events with their retention
 * (event-store.ts), the record of attempts in the list and the backend (attempt-records.ts), the slots and the fair
 * line for them (fair-queue.ts), the retries waiting on the clock (attempt-schedule.ts, with schedule.ts's delays), the send itself (delivery.ts) and
 * what an outcome records (attempt-outcome.ts). Several processes on one PostgreSQL use stores/postgres/dispatcher.ts instead.
 */
import type { Logger } from "pino";
import { iso, type Clock } from "../clock.ts";
import type { Project } from "../model/project.ts";
import type { AddressPolicy } from "./address-policy.ts";
import { AttemptRecords, type Attempt } from "./attempt-records.ts";
import { EventStore } from "./event-store.ts";
import { FairQueue } from "./fair-queue.ts";
import { postWebhook } from "./delivery.ts";
import { INTERRUPTED, injectedFields, outcomeFields, readCa, resendNumber, retryAfter, staleReason, type EventDelivery } from "./attempt-outcome.ts";
import { INTERVIEW_COMPLETED } from "./payload.ts";
import { newEvent } from "./new-event.ts";
import { AttemptSchedule } from "./attempt-schedule.ts";
import type { WebhookDelivery, WebhookDispatcher } from "./types.ts";
import type { components } from "../../../generated/schema.d.ts";
import type { EventStreams } from "./event-stream.ts";
import type { FaultRegistry } from "../faults/settings.ts";
import { ApiError, conflict, notFound } from "../http/errors.ts";
import type { LocalBackend } from "../stores/backend.ts";
import { MemoryBackend } from "../stores/memory/backend.ts";

/** Events kept for resends and request lookups, per tenant (the oldest are forgotten first). */
const EVENTS_KEPT_PER_TENANT = 10_000;

export interface WebhookDispatcherOptions {
  clock: Clock;
  /** Waits before the 1st, 2nd, 3rd... retry; its length is the number of retries. */
  retryDelaysMs: readonly number[];
  /** Per attempt: connect + response headers. */
  timeoutMs: number;
  logger?: Logger;
  /** Attempts kept per project for the deliveries list (default 1000). */
  maxAttemptsPerProject?: number;
  /** Which receiver addresses may be called (private, link-local and metadata addresses never; loopback by choice). */
  addressPolicy?: AddressPolicy;
  /** Deliveries on the wire at once, over all projects (default 64); the rest wait their turn, oldest first. */
  maxConcurrent?: number;
  /** Deliveries on the wire at once for one tenant (default 16), so one organisation's stuck receivers leave slots to the others. */
  maxConcurrentPerTenant?: number;
  /** Deliveries on the wire at once for one project (default 8), so one slow receiver cannot take every slot. */
  maxConcurrentPerProject?: number;
  /** Events kept per tenant for resends and lookups (default 10,000). */
  eventsKeptPerTenant?: number;
  /** Where events and attempts are written down (`--data-dir`); pending ones resume at the next start. */
  backend?: LocalBackend;
  /**
   * A PEM file of extra CA certificates trusted for https receivers (`WEBHOOK_CA_FILE`). Read at each attempt,
   * so a certificate written after start-up (a conformance run's receiver) is trusted; a missing file adds nothing.
   */
  caFile?: string;
  /** Where every event is also published as the exact signed request (`GET /_sim/events`). */
  streams?: EventStreams;
  /** Injected webhook endpoint failures (`PUT /_sim/faults` `webhook_failures`). */
  faults?: FaultRegistry;
  /** The project's listener secret, which signs stream events of a project without a webhook. */
  listenerSecret?: (project: Project) => string;
}

/** Why an attempt of `ev` will not be sent, against its project's webhook as this process holds it now. */
const staleNow = (ev: EventDelivery) => staleReason(ev, ev.project.webhook);

export function createWebhookDispatcher(options: WebhookDispatcherOptions): WebhookDispatcher {
  return new LocalDispatcher(options);
}

/** The dispatcher of one process: its attempts in memory (and in the data dir's backend), its retries on timers. */
class LocalDispatcher implements WebhookDispatcher {
  private readonly clock: Clock;
  private readonly logger?: Logger;
  private readonly retryDelaysMs: number[];
  private readonly backend: LocalBackend;
  private readonly records: AttemptRecords;
  private readonly events: EventStore;
  private readonly slots: FairQueue<Attempt>;
  private readonly schedule: AttemptSchedule;
  /** Attempts on the wire, with what aborts them, and the promises close() waits for. */
  private readonly inFlight = new Map<Attempt, AbortController>();
  private readonly running = new Set<Promise<void>>();
  private closed = false;

  constructor(private readonly options: WebhookDispatcherOptions) {
    this.clock = options.clock;
    this.logger = options.logger;
    this.retryDelaysMs = [...options.retryDelaysMs];
    this.backend = options.backend ?? new MemoryBackend();
    this.records = new AttemptRecords(this.backend, options.maxAttemptsPerProject);
    this.events = new EventStore(this.backend, options.eventsKeptPerTenant ?? EVENTS_KEPT_PER_TENANT);
    this.slots = new FairQueue<Attempt>(
      { total: options.maxConcurrent ?? 64, perTenant: options.maxConcurrentPerTenant ?? 16, perProject: options.maxConcurrentPerProject ?? 8 },
      (a) => ({ tenant: a.ev.project.tenant, project: a.ev.project.id }),
    );
    this.schedule = new AttemptSchedule(this.clock);
  }

  /** The event of one of the project's attempts, or a 404 (unknown, forgotten or another project's). */
  private eventOf(project: Project, attemptId: string): { ev: EventDelivery; record: WebhookDelivery } {
    const record = this.records.list(project.id).find((d) => d.id === attemptId);
    const ev = record ? this.events.get(record.event_id) : undefined;
    if (!record || !ev || ev.project !== project) throw notFound(`No such delivery: ${attemptId}`);
    return { ev, record };
  }

  private cancelAttempt(a: Attempt, reason: string): void {
    this.records.update(a, { status: "cancelled", error: reason, finished_at: iso(this.clock.now()) });
  }

  /** Sends now when a slot is free, else queues the attempt (it stays `pending` until it goes out). */
  private send(a: Attempt, nowMs = this.clock.now()): void {
    if (this.slots.hasSlot(a)) this.start(a, nowMs);
    else this.slots.push(a);
  }

  /** Fills free slots from the line (fair-queue.ts); an attempt whose webhook changed meanwhile is cancelled. */
  private pump(): void {
    this.slots.drain((a) => {
      const stale = staleNow(a.ev);
      if (stale) this.cancelAttempt(a, stale);
      else this.start(a, this.clock.now());
    });
  }

  /** `nowMs`: a first attempt sent at once keeps the event's own time as its send time (the payload's timestamp). */
  private start(a: Attempt, nowMs: number): void {
    const { ev } = a;
    this.records.update(a, { status: "in_flight", sent_at: iso(nowMs) });
    // An injected endpoint failure: recorded as the endpoint's answer, nothing sent, retried like a real one.
    const taken = this.options.faults?.takeWebhookFailure(ev.project.id) ?? null;
    // This dispatcher serves one process, whose fault counters are its own (shared ones go with stores/postgres/dispatcher.ts).
    if (taken instanceof Promise) throw new Error("shared fault counters need the PostgreSQL dispatcher");
    if (taken !== null) {
      this.finish(a, injectedFields(taken));
      this.pump();
      return;
    }
    const controller = new AbortController();
    this.inFlight.set(a, controller);
    this.slots.take(a);
    const { timeoutMs, caFile, addressPolicy } = this.options;
    const done = postWebhook({ url: ev.url, body: ev.body, headers: ev.headers, timeoutMs, signal: controller.signal, extraCa: readCa(caFile), addressPolicy })
      .then((outcome) => {
        // Cut by a shutdown with a data dir: left in flight in the backend, so the next start retries it.
        if (outcome.kind !== "aborted" || !this.backend.durable) this.finish(a, outcomeFields(outcome));
      })
      .catch((err) => this.logger?.error({ err, event_id: ev.id }, "webhook delivery bookkeeping failed"))
      .finally(() => {
        this.inFlight.delete(a);
        this.slots.release(a);
        this.running.delete(done);
        if (!this.closed) this.pump();
      });
    this.running.add(done);
  }

  private finish(a: Attempt, fields: Pick<WebhookDelivery, "status" | "response_status" | "error">): void {
    const now = this.clock.now();
    this.records.update(a, { ...fields, finished_at: iso(now) });
    this.retry(a, now);
  }

  /** Arms the retry a finished attempt asks for (attempt-outcome.ts's rule), if any. */
  private retry(a: Attempt, failedAtMs: number): void {
    if (this.closed) return;
    const next = retryAfter(a.record, a.ev, failedAtMs, this.retryDelaysMs, staleNow(a.ev) !== null, this.logger);
    if (next) this.wait(this.records.create(a.ev, next.attempt, next.dueMs, "retry"));
  }

  /** Arms a pending retry's timer at its `scheduled_at` (at once when that is past: a restart after it was due). */
  private wait(next: Attempt): void {
    this.schedule.at(next, (a) => {
      const stale = staleNow(a.ev);
      if (stale) this.cancelAttempt(a, stale);
      else this.send(a);
    });
  }

  interviewCompleted(project: Project, interview: Parameters<WebhookDispatcher["interviewCompleted"]>[1], study: Parameters<WebhookDispatcher["interviewCompleted"]>[2]): void {
    if (this.closed) return;
    try {
      // The first attempt goes out now, so its send time is the event's timestamp.
      const now = this.clock.now();
      const secret = this.options.listenerSecret;
      const { delivery: ev, streamed } = newEvent(project, project.webhook, interview, study, now, secret && (() => secret(project)));
      if (streamed) this.options.streams?.publish(project.id, streamed);
      if (!ev) return;
      this.backend.atomically(() => this.events.remember(ev));
      this.send(this.records.create(ev, 1, now, "event"), now);
    } catch (err) {
      this.logger?.error({ err, interview_id: interview.id }, "webhook dispatch failed");
    }
  }

  webhookChanged(project: Project): void {
    try {
      // Queued attempts of a replaced or deleted webhook never go out; an identical PUT keeps them.
      for (const a of this.slots.removeWhere(project.tenant, project.id, (a) => staleNow(a.ev) !== null)) this.cancelAttempt(a, staleNow(a.ev)!);
      for (const a of this.schedule.takeOut((a) => a.ev.project === project && staleNow(a.ev) !== null)) this.cancelAttempt(a, staleNow(a.ev)!);
    } catch (err) {
      this.logger?.error({ err, project_id: project.id }, "webhook cancellation failed");
    }
  }

  attempts(project: Project): readonly WebhookDelivery[] {
    return this.records.list(project.id);
  }

  request(project: Project, attemptId: string): components["schemas"]["SimDeliveryRequest"] {
    const { ev, record } = this.eventOf(project, attemptId);
    return { delivery_id: record.id, event_id: ev.id, url: record.url, headers: { ...ev.headers }, body: ev.body.toString("utf8") };
  }

  resend(project: Project, attemptId: string): WebhookDelivery {
    if (this.closed) throw new ApiError(503, "api_error", "The server is shutting down", undefined, { "Retry-After": "1" });
    const { ev } = this.eventOf(project, attemptId);
    const webhook = project.webhook;
    if (!webhook) throw conflict("No webhook is configured: PUT /v1/webhooks first");
    // The same bytes and signature, to the webhook as it is configured now; a resend is not retried.
    const again: EventDelivery = { ...ev, url: webhook.url, version: webhook.version };
    const now = this.clock.now();
    const number = resendNumber(this.records.list(project.id).filter((d) => d.event_id === ev.id).map((d) => d.attempt));
    const attempt = this.records.create(again, number, now, "resend");
    this.options.streams?.publish(project.id, { event_id: ev.id, event: INTERVIEW_COMPLETED, interview_id: ev.interviewId, reason: "resend", headers: ev.headers, body: ev.body.toString("utf8") });
    this.send(attempt, now);
    return attempt.record;
  }

  pending(): { waiting: number; queued: number; inFlight: number } {
    return { waiting: this.schedule.size, queued: this.slots.waiting, inFlight: this.inFlight.size };
  }

  restore(projects: ReadonlyMap<string, Project>): void {
    this.events.restore(projects);
    const now = this.clock.now();
    for (const { project_id, record } of this.backend.attempts()) {
      const project = projects.get(project_id);
      const stored = this.events.get(record.event_id);
      if (!project || !stored) continue;
      this.records.add(project_id, record);
      if (record.status !== "pending" && record.status !== "in_flight") continue;
      // A resend goes to the URL it was made for; other attempts to the event's own.
      const ev = record.url === stored.url ? stored : { ...stored, url: record.url };
      const a: Attempt = { ev, record };
      if (record.status === "in_flight") {
        // Cut by the stop (attempt-outcome.ts's INTERRUPTED), retried on the schedule.
        this.records.update(a, { status: "failed", error: INTERRUPTED, finished_at: iso(now) });
        this.retry(a, now);
      } else if (record.trigger === "retry") this.wait(a);
      else this.send(a);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    // With a data dir, pending attempts stay pending in it and resume at the next start; without one they end here.
    const waiting = this.schedule.clear();
    const queued = this.slots.clear();
    if (!this.backend.durable) for (const a of [...waiting, ...queued]) this.cancelAttempt(a, "cancelled: server shutting down");
    for (const controller of this.inFlight.values()) controller.abort();
    await Promise.allSettled([...this.running]);
  }
}
