/**
 * An interview completed: the `interview.completed` event the delivery core makes (delivery-core.ts).
 * The body is built and serialised once, now, so every retry carries these very bytes and `timestamp` is the send
 * time of the first attempt. Without a webhook subscribed to it there is nothing to deliver, but listeners still get
 * the event, signed with the project's listener secret; the core publishes `streamed` to the stream.
 */
import { randomUUID } from "node:crypto";
import type { StoredInterview, StoredStudy } from "../../../fixtures/types.ts";
import { iso } from "../clock.ts";
import type { Project, WebhookSetting } from "../model/project.ts";
import type { EventDelivery } from "./attempt-outcome.ts";
import type { NewStreamEvent } from "../stores/stream.ts";
import { INTERVIEW_COMPLETED, interviewCompletedEvent, serializeEvent } from "./payload.ts";
import { signWebhookBody } from "./signing.ts";

const headersFor = (secret: string, body: Buffer) => ({ "Content-Type": "application/json", "X-Webhook-Event": INTERVIEW_COMPLETED, "X-Webhook-Signature": signWebhookBody(secret, body) });

export interface NewEvent {
  /** The event to deliver to the webhook; null when none subscribes. */
  delivery: EventDelivery | null;
  /**
   * What the delivery stream's listeners get: the delivery's exact request, or without one the event signed with the
   * project's listener secret (null when there is none to sign with: no stream).
   */
  streamed: NewStreamEvent | null;
}

/**
 * The event of a completed interview, bound to `webhook` (the project's, as the change that completed the interview
 * reads it). `listenerSecret` gives the project's listener secret, asked only when no webhook takes the event.
 */
export function newEvent(project: Project, webhook: WebhookSetting | null, interview: StoredInterview, study: StoredStudy | undefined, nowMs: number, listenerSecret?: () => string): NewEvent {
  const body = serializeEvent(interviewCompletedEvent(interview, study, iso(nowMs)));
  if (!webhook || !webhook.events.includes(INTERVIEW_COMPLETED)) {
    const streamed: NewStreamEvent | null = listenerSecret
      ? { event_id: randomUUID(), event: INTERVIEW_COMPLETED, interview_id: interview.id, reason: "delivery" as const, headers: headersFor(listenerSecret(), body), body: body.toString("utf8") }
      : null;
    return { delivery: null, streamed };
  }
  const delivery: EventDelivery = { id: randomUUID(), project, interviewId: interview.id, url: webhook.url, secret: webhook.signing_secret, version: webhook.version, body, headers: headersFor(webhook.signing_secret, body) };
  return { delivery, streamed: { event_id: delivery.id, event: INTERVIEW_COMPLETED, interview_id: delivery.interviewId, reason: "delivery", headers: delivery.headers, body: body.toString("utf8") } };
}
