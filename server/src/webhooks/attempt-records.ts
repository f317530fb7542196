/**
 * The record of one process's attempts (stores/memory/deliveries.ts): every attempt is a `WebhookDelivery` in the deliveries list
 * (attempt-log.ts) and in the backend, written as it is made and at every change of its status.
 */
import { randomUUID } from "node:crypto";
import { iso } from "../clock.ts";
import type { LocalBackend } from "../stores/backend.ts";
import { AttemptLog, type AttemptChange } from "./attempt-log.ts";
import type { EventDelivery } from "./attempt-outcome.ts";
import { INTERVIEW_COMPLETED } from "./payload.ts";
import type { WebhookDelivery } from "./types.ts";

/** One attempt as the dispatcher tracks it: `record` is the latest (immutable) version of its log entry. */
export interface Attempt {
  ev: EventDelivery;
  record: WebhookDelivery;
}

export class AttemptRecords {
  readonly log: AttemptLog;

  constructor(
    private readonly backend: LocalBackend,
    maxPerProject: number,
  ) {
    this.log = new AttemptLog(maxPerProject);
  }

  /** A new pending attempt of `ev`, listed and written. */
  create(ev: EventDelivery, attempt: number, scheduledAtMs: number, trigger: WebhookDelivery["trigger"]): Attempt {
    const record: WebhookDelivery = {
      id: randomUUID(),
      object: "webhook_delivery",
      event_id: ev.id,
      event: INTERVIEW_COMPLETED,
      interview_id: ev.interviewId,
      attempt,
      trigger,
      url: ev.url,
      status: "pending",
      response_status: null,
      error: null,
      scheduled_at: iso(scheduledAtMs),
      sent_at: null,
      finished_at: null,
    };
    this.add(ev.project.id, record);
    this.backend.putAttempt({ project_id: ev.project.id, record });
    return { ev, record };
  }

  /** Lists a record (one read back from the backend, or just made). */
  add(projectId: string, record: WebhookDelivery): void {
    for (const dropped of this.log.add(projectId, record)) this.backend.dropAttempt(dropped.id);
  }

  update(a: Attempt, change: AttemptChange): void {
    a.record = this.log.update(a.ev.project.id, a.record, change);
    this.backend.putAttempt({ project_id: a.ev.project.id, record: a.record });
  }

  list(projectId: string): readonly WebhookDelivery[] {
    return this.log.list(projectId);
  }
}
