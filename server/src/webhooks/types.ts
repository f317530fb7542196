/**
 * What the rest of the server needs from webhook delivery (delivery-core.ts, over an attempt queue in memory or in
 * PostgreSQL's rows, hence the promises). The dispatcher owns signing, the retry
 * schedule, timeouts and the record of attempts; handlers only tell it what happened.
 */
import type { components } from "../../../generated/schema.d.ts";
import type { StoredInterview, StoredStudy } from "../../../fixtures/types.ts";
import type { Project, WebhookSetting } from "../model/project.ts";

export type WebhookDelivery = components["schemas"]["WebhookDelivery"];

export interface WebhookDispatcher {
  /** An interview of `project` finished processing: send `interview.completed` if the project's webhook subscribes to it. */
  interviewCompleted(project: Project, interview: StoredInterview, study: StoredStudy | undefined): void | Promise<void>;
  /**
   * The project's webhook was deleted or replaced (`current`: the setting now, null when deleted): cancel every pending
   * delivery to the old setting (in the change that changed it; with several processes the attempts are rows, read and written in that change, hence a promise).
   */
  webhookChanged(project: Project, current: WebhookSetting | null): void | Promise<void>;
  /** Every attempt of the project's deliveries, oldest scheduled first (ties by id). */
  attempts(project: Project): readonly WebhookDelivery[] | Promise<readonly WebhookDelivery[]>;
  /** The exact request of one of the project's attempts (404 when unknown). */
  request(project: Project, attemptId: string): components["schemas"]["SimDeliveryRequest"] | Promise<components["schemas"]["SimDeliveryRequest"]>;
  /** Sends an attempt's event again, byte for byte, to the configured webhook (404 unknown, 409 none configured). */
  resend(project: Project, attemptId: string): WebhookDelivery | Promise<WebhookDelivery>;
  /** Attempts not finished: waiting for a retry, queued for a slot, on the wire (the SIGTERM log). */
  pending(): { waiting: number; queued: number; inFlight: number };
  /** Loads events and attempts from the backend and resumes the pending ones (a restart from the data dir). */
  restore(projects: ReadonlyMap<string, Project>): void;
  /** Stops timers and aborts in-flight requests (server shutdown). */
  close(): Promise<void>;
}
