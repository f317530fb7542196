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
import { postWebhook, type PostOutcome } from "./delivery.ts";
import { outcomeFields, readCa, staleReason, type EventDelivery } from "./attempt-outcome.ts";
import { INTERVIEW_COMPLETED } from "./payload.ts";
import { newEvent } from "./new-event.ts";
import { retryDelayAfter } from "./schedule.ts";
import { AttemptSchedule } from "./attempt-schedule.ts";
import type { WebhookDelivery, WebhookDispatcher } from "./types.ts";
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
  const { clock, timeoutMs, logger } = options;
  const retryDelaysMs = [...options.retryDelaysMs];
  const backend = options.backend ?? new MemoryBackend();
  const records = new AttemptRecords(backend, options.maxAttemptsPerProject);
  const events = new EventStore(backend, options.eventsKeptPerTenant ?? EVENTS_KEPT_PER_TENANT);
  const slots = new FairQueue<Attempt>(
    { total: options.maxConcurrent ?? 64, perTenant: options.maxConcurrentPerTenant ?? 16, perProject: options.maxConcurrentPerProject ?? 8 },
    (a) => ({ tenant: a.ev.project.tenant, project: a.ev.project.id }),
  );
  const schedule = new AttemptSchedule(clock);
  /** Attempts on the wire, with what aborts them, and the promises close() waits for. */
  const inFlight = new Map<Attempt, AbortController>();
  const running = new Set<Promise<void>>();
  let closed = false;

  /** The event of one of the project's attempts, or a 404 (unknown, forgotten or another project's). */
  function eventOf(project: Project, attemptId: string): { ev: EventDelivery; record: WebhookDelivery } {
    const record = records.list(project.id).find((d) => d.id === attemptId);
    const ev = record ? events.get(record.event_id) : undefined;
    if (!record || !ev || ev.project !== project) throw notFound(`No such delivery: ${attemptId}`);
    return { ev, record };
  }

  function cancelAttempt(a: Attempt, reason: string): void {
    records.update(a, { status: "cancelled", error: reason, finished_at: iso(clock.now()) });
  }

  /** Sends now when a slot is free, else queues the attempt (it stays `pending` until it goes out). */
  function send(a: Attempt, nowMs = clock.now()): void {
    if (slots.hasSlot(a)) start(a, nowMs);
    else slots.push(a);
  }

  /** Fills free slots from the line (fair-queue.ts); an attempt whose webhook changed meanwhile is cancelled. */
  function pump(): void {
    slots.drain((a) => {
      const stale = staleNow(a.ev);
      if (stale) cancelAttempt(a, stale);
      else start(a, clock.now());
    });
  }

  /** `nowMs`: a first attempt sent at once keeps the event's own time as its send time (the payload's timestamp). */
  function start(a: Attempt, nowMs: number): void {
    const { ev } = a;
    records.update(a, { status: "in_flight", sent_at: iso(nowMs) });
    // An injected endpoint failure: recorded as the endpoint's answer, nothing sent, retried like a real one.
    const taken = options.faults?.takeWebhookFailure(ev.project.id) ?? null;
    // This dispatcher serves one process, whose fault counters are its own (shared ones go with stores/postgres/dispatcher.ts).
    if (taken instanceof Promise) throw new Error("shared fault counters need the PostgreSQL dispatcher");
    const injected = taken;
    if (injected !== null) {
      finish(a, { kind: "answered", status: injected });
      if (a.record.status === "failed") records.update(a, { error: `http_${injected} (simulated: /_sim/faults webhook_failures)` });
      pump();
      return;
    }
    const controller = new AbortController();
    inFlight.set(a, controller);
    slots.take(a);
    const done = postWebhook({ url: ev.url, body: ev.body, headers: ev.headers, timeoutMs, signal: controller.signal, extraCa: readCa(options.caFile), addressPolicy: options.addressPolicy })
      .then((outcome) => finish(a, outcome))
      .catch((err) => logger?.error({ err, event_id: ev.id }, "webhook delivery bookkeeping failed"))
      .finally(() => {
        inFlight.delete(a);
        slots.release(a);
        running.delete(done);
        if (!closed) pump();
      });
    running.add(done);
  }

  function finish(a: Attempt, outcome: PostOutcome): void {
    // Cut by a shutdown with a data dir: left in flight in the backend, so the next start retries it.
    if (outcome.kind === "aborted" && backend.durable) return;
    const now = clock.now();
    records.update(a, { ...outcomeFields(outcome), finished_at: iso(now) });
    if (a.record.status !== "failed" || a.record.trigger === "resend") return;
    logger?.warn({ event_id: a.ev.id, attempt: a.record.attempt, url: a.ev.url, error: a.record.error }, "webhook attempt failed");
    scheduleRetry(a.ev, a.record.attempt, now);
  }

  /** The retry is due `delay` after the failure (`failedAtMs`), which is exactly its `scheduled_at`. */
  function scheduleRetry(ev: EventDelivery, failedAttempt: number, failedAtMs: number): void {
    if (closed) return;
    const delay = retryDelayAfter(retryDelaysMs, failedAttempt);
    if (delay === null) {
      logger?.warn({ event_id: ev.id, url: ev.url }, "webhook retries exhausted; event dropped");
      return;
    }
    // An attempt that was in flight when the webhook changed is not retried against the old setting.
    if (staleNow(ev)) return;
    wait(records.create(ev, failedAttempt + 1, failedAtMs + delay, "retry"));
  }

  /** Arms a pending retry's timer at its `scheduled_at` (at once when that is past: a restart after it was due). */
  function wait(next: Attempt): void {
    schedule.at(next, (a) => {
      const stale = staleNow(a.ev);
      if (stale) cancelAttempt(a, stale);
      else send(a);
    });
  }

  return {
    interviewCompleted(project, interview, study) {
      if (closed) return;
      try {
        // The first attempt goes out now, so its send time is the event's timestamp.
        const now = clock.now();
        const { delivery: ev, streamed } = newEvent(project, project.webhook, interview, study, now, options.listenerSecret && (() => options.listenerSecret!(project)));
        if (streamed) options.streams?.publish(project.id, streamed);
        if (!ev) return;
        backend.atomically(() => events.remember(ev));
        send(records.create(ev, 1, now, "event"), now);
      } catch (err) {
        logger?.error({ err, interview_id: interview.id }, "webhook dispatch failed");
      }
    },

    webhookChanged(project) {
      try {
        // Queued attempts of a replaced or deleted webhook never go out; an identical PUT keeps them.
        for (const a of slots.removeWhere(project.tenant, project.id, (a) => staleNow(a.ev) !== null)) cancelAttempt(a, staleNow(a.ev)!);
        for (const a of schedule.takeOut((a) => a.ev.project === project && staleNow(a.ev) !== null)) cancelAttempt(a, staleNow(a.ev)!);
      } catch (err) {
        logger?.error({ err, project_id: project.id }, "webhook cancellation failed");
      }
    },

    attempts(project) {
      return records.list(project.id);
    },

    request(project, attemptId) {
      const { ev, record } = eventOf(project, attemptId);
      return { delivery_id: record.id, event_id: ev.id, url: record.url, headers: { ...ev.headers }, body: ev.body.toString("utf8") };
    },

    resend(project, attemptId) {
      if (closed) throw new ApiError(503, "api_error", "The server is shutting down", undefined, { "Retry-After": "1" });
      const { ev } = eventOf(project, attemptId);
      const webhook = project.webhook;
      if (!webhook) throw conflict("No webhook is configured: PUT /v1/webhooks first");
      // The same bytes and signature, to the webhook as it is configured now; a resend is not retried.
      const again: EventDelivery = { ...ev, url: webhook.url, version: webhook.version };
      const now = clock.now();
      // Numbered after every attempt of the event still in the log.
      const last = Math.max(...records.list(project.id).filter((d) => d.event_id === ev.id).map((d) => d.attempt));
      const attempt = records.create(again, last + 1, now, "resend");
      options.streams?.publish(project.id, { event_id: ev.id, event: INTERVIEW_COMPLETED, interview_id: ev.interviewId, reason: "resend", headers: ev.headers, body: ev.body.toString("utf8") });
      send(attempt, now);
      return attempt.record;
    },

    pending() {
      return { waiting: schedule.size, queued: slots.waiting, inFlight: inFlight.size };
    },

    restore(projects) {
      events.restore(projects);
      const now = clock.now();
      for (const { project_id, record } of backend.attempts()) {
        const project = projects.get(project_id);
        const stored = events.get(record.event_id);
        if (!project || !stored) continue;
        records.add(project_id, record);
        if (record.status !== "pending" && record.status !== "in_flight") continue;
        // A resend goes to the URL it was made for; other attempts to the event's own.
        const ev = record.url === stored.url ? stored : { ...stored, url: record.url };
        const a: Attempt = { ev, record };
        if (record.status === "in_flight") {
          // Cut by the stop: whether the receiver got it is unknown, so it counts as failed and is retried (webhooks
          // are delivered at least once; the receiver tells a repeat by the event id).
          records.update(a, { status: "failed", error: "interrupted: the sandbox stopped during this attempt", finished_at: iso(now) });
          if (record.trigger !== "resend") scheduleRetry(ev, record.attempt, now);
        } else if (record.trigger === "retry") wait(a);
        else send(a);
      }
    },

    async close() {
      closed = true;
      // With a data dir, pending attempts stay pending in it and resume at the next start; without one they end here.
      const waiting = schedule.clear();
      const queued = slots.clear();
      if (!backend.durable) for (const a of [...waiting, ...queued]) cancelAttempt(a, "cancelled: server shutting down");
      for (const controller of inFlight.values()) controller.abort();
      await Promise.allSettled([...running]);
    },
  };
}
