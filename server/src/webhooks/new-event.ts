/**
 * An interview completed: the `interview.completed` event both dispatchers make (dispatcher.ts, stores/postgres/dispatcher.ts).
 * The body is built and serialised once, now, so every retry carries these very bytes and `timestamp` is the send
 * time of the first attempt. Without a webhook subscribed to it there is nothing to deliver, but listeners still get
 * the event, signed with the project's listener secret.
 */
import { randomUUID } from "node:crypto";
import type { StoredInterview, StoredStudy } from "../../../fixtures/types.ts";
import { iso } from "../clock.ts";
import type { Project, WebhookSetting } from "../model/project.ts";
import type { EventDelivery } from "./attempt-outcome.ts";
import type { EventStreams } from "./event-stream.ts";
import { INTERVIEW_COMPLETED, interviewCompletedEvent, serializeEvent } from "./payload.ts";
import { signWebhookBody } from "./signing.ts";

export interface ListenersOnly {
  streams?: EventStreams;
  /** The project's listener secret (made on first use), which signs the event for listeners when no webhook takes it. */
  listenerSecret?: () => string;
}

const headersFor = (secret: string, body: Buffer) => ({ "Content-Type": "application/json", "X-Webhook-Event": INTERVIEW_COMPLETED, "X-Webhook-Signature": signWebhookBody(secret, body) });

/**
 * The event to deliver to `webhook` (the project's, as the change that completed the interview reads it); null when
 * it does not subscribe (the listeners were given it already).
 */
export function newEvent(project: Project, webhook: WebhookSetting | null, interview: StoredInterview, study: StoredStudy | undefined, nowMs: number, listeners: ListenersOnly): EventDelivery | null {
  const body = serializeEvent(interviewCompletedEvent(interview, study, iso(nowMs)));
  if (!webhook || !webhook.events.includes(INTERVIEW_COMPLETED)) {
    if (listeners.streams && listeners.listenerSecret) {
      const headers = headersFor(listeners.listenerSecret(), body);
      listeners.streams.publish(project.id, { event_id: randomUUID(), event: INTERVIEW_COMPLETED, interview_id: interview.id, reason: "delivery", headers, body: body.toString("utf8") });
    }
    return null;
  }
  return { id: randomUUID(), project, interviewId: interview.id, url: webhook.url, secret: webhook.signing_secret, version: webhook.version, body, headers: headersFor(webhook.signing_secret, body) };
}
