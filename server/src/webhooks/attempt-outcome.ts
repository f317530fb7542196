/**
 * The rules of webhook delivery the core applies (delivery-core.ts) and the attempt queues store the results of
 * (stores/memory/deliveries.ts, stores/postgres/deliveries.ts): whether an attempt's webhook setting is still the
 * current one, what an attempt's outcome records (a real answer, an injected failure, an attempt cut by its process's
 * end), which retry a finished attempt asks for, which attempts a project forgets past its cap, and a resend's number.
 * Each is written once, here.
 */
import { readFileSync } from "node:fs";
import type { Logger } from "pino";
import { retryDelayAfter } from "./schedule.ts";
import type { Project, WebhookSetting } from "../model/project.ts";
import type { PostOutcome } from "./delivery.ts";
import { INTERVIEW_COMPLETED } from "./payload.ts";
import type { WebhookDelivery } from "./types.ts";

/** One event bound to the webhook setting it was created for. */
export interface EventDelivery {
  id: string;
  project: Project;
  interviewId: string;
  url: string;
  secret: string;
  version: number;
  body: Buffer;
  headers: Record<string, string>;
}

/** Why an attempt of `ev` will not be sent; null while its webhook setting is still `current` (the project's now). */
function staleReason(ev: EventDelivery, current: WebhookSetting | null): string | null {
  if (!current) return "cancelled: webhook deleted";
  if (!current.events.includes(INTERVIEW_COMPLETED)) return "cancelled: event unsubscribed";
  // The version is bumped by every PUT, even one that changes nothing; such a PUT keeps the same receiver and
  // secret, so its retries go on. A different url or secret is a replaced webhook.
  if (current.version !== ev.version && (current.url !== ev.url || current.signing_secret !== ev.secret)) return "cancelled: webhook replaced";
  return null;
}

/**
 * Why attempt `attempt` of `ev` will not be sent against the project's webhook `current`. A resend was made for the
 * webhook as it was configured then (its `url`): it goes unless that webhook is gone, unsubscribed or elsewhere now.
 */
export function staleAttempt(ev: EventDelivery, attempt: Pick<WebhookDelivery, "trigger" | "url">, current: WebhookSetting | null): string | null {
  if (attempt.trigger !== "resend" || !current) return staleReason(ev, current);
  if (!current.events.includes(INTERVIEW_COMPLETED)) return "cancelled: event unsubscribed";
  return current.url === attempt.url ? null : "cancelled: webhook replaced";
}

export function outcomeFields(outcome: PostOutcome): Pick<WebhookDelivery, "status" | "response_status" | "error"> {
  switch (outcome.kind) {
    case "answered":
      return outcome.status >= 200 && outcome.status < 300
        ? { status: "succeeded", response_status: outcome.status, error: null }
        : { status: "failed", response_status: outcome.status, error: `http_${outcome.status}` };
    case "timeout":
      return { status: "failed", response_status: null, error: "timeout" };
    case "connection_error":
      return { status: "failed", response_status: null, error: `connection_error: ${outcome.code}` };
    case "blocked":
      return { status: "failed", response_status: null, error: `blocked: ${outcome.reason}` };
    case "aborted":
      return { status: "cancelled", response_status: null, error: "cancelled: server shutting down" };
  }
}

/** What an injected endpoint failure (`PUT /_sim/faults` `webhook_failures`) records: the endpoint's answer, marked. */
export function injectedFields(status: number): Pick<WebhookDelivery, "status" | "response_status" | "error"> {
  const fields = outcomeFields({ kind: "answered", status });
  if (fields.status === "failed") fields.error = `http_${status} (simulated: /_sim/faults webhook_failures)`;
  return fields;
}

/**
 * An attempt on the wire when its process stopped (a restart from a data dir, a lease run out on PostgreSQL): whether
 * the receiver got it is unknown, so it counts as failed and is retried (at least once; the event id tells a repeat).
 */
export const INTERRUPTED = "interrupted: the sandbox stopped during this attempt";

/**
 * The retry a finished attempt asks for, due `delay` after its failure (`failedAtMs`): none after a success, after a
 * resend (never retried), or once the webhook changed (`stale`, asked only for a failure: no retry against an old
 * setting); none either once the schedule is spent (the event is dropped, and logged).
 */
export async function retryAfter(
  finished: Pick<WebhookDelivery, "status" | "trigger" | "attempt" | "error">,
  ev: Pick<EventDelivery, "id" | "url">,
  failedAtMs: number,
  retryDelaysMs: readonly number[],
  stale: () => Promise<boolean>,
  logger?: Logger,
): Promise<{ attempt: number; dueMs: number } | null> {
  if (finished.status !== "failed" || finished.trigger === "resend") return null;
  logger?.warn({ event_id: ev.id, attempt: finished.attempt, url: ev.url, error: finished.error }, "webhook attempt failed");
  const delay = retryDelayAfter(retryDelaysMs, finished.attempt);
  if (delay === null) {
    logger?.warn({ event_id: ev.id, url: ev.url }, "webhook retries exhausted; event dropped");
    return null;
  }
  return (await stale()) ? null : { attempt: finished.attempt + 1, dueMs: failedAtMs + delay };
}

/**
 * Which of a project's attempts past the newest `max` of its deliveries list (in the list's order) are forgotten: the
 * finished ones. A pending or in-flight attempt is never forgotten: it still runs, and its outcome is still to be
 * listed; it goes once finished, at the next attempt the project makes.
 */
export function forgottenPastCap<T extends Pick<WebhookDelivery, "status">>(pastCap: readonly T[]): T[] {
  return pastCap.filter((a) => !live(a.status));
}

/** An attempt still to run or running: its outcome is still to come. */
const live = (status: WebhookDelivery["status"]) => status === "pending" || status === "in_flight";

/**
 * Which of a tenant's events past its newest `eventsKept` (oldest first) are forgotten: those none of whose attempts
 * is pending or in flight. An event with a live attempt stays (the attempt still needs its exact bytes); it goes once
 * they finish, at the tenant's next event. Each queue finds the events past the cap with their attempts' statuses;
 * this rule alone decides.
 */
export function forgottenEvents<T extends { statuses: readonly WebhookDelivery["status"][] }>(pastCap: readonly T[]): T[] {
  return pastCap.filter((e) => !e.statuses.some(live));
}

/** A resend's number: after every attempt of its event still recorded. */
export function resendNumber(attemptsOfEvent: readonly number[]): number {
  return attemptsOfEvent.reduce((a, b) => Math.max(a, b), 0) + 1;
}

/**
 * A PEM file of extra CA certificates trusted for https receivers (`WEBHOOK_CA_FILE`). Read at each attempt, so a
 * certificate written after start-up (a conformance run's receiver) is trusted; a missing file adds nothing.
 */
export function readCa(file: string | undefined): string | undefined {
  if (!file) return undefined;
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}
