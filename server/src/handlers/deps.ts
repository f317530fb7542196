/** What handlers depend on besides the request: injected by app.ts so tests can replace any of it. */
import type { Clock } from "../clock.ts";
import type { Store } from "../model/store.ts";
import type { AddressPolicy } from "../webhooks/address-policy.ts";
import type { WebhookDispatcher } from "../webhooks/types.ts";
import type { EventStreams } from "../webhooks/event-stream.ts";
import type { FaultRegistry } from "../faults/settings.ts";
import type { Backend } from "../stores/backend.ts";
import type { InterviewRunner } from "../simulation/interview-runner.ts";
import type { Quotas } from "../model/tenant-limits.ts";
import type { Interviews } from "../stores/interviews.ts";
import type { Studies } from "../stores/studies.ts";
import type { Chats } from "../stores/chats.ts";
import type { Releases } from "../stores/releases.ts";
import type { PromptEvents } from "../stores/prompt-events.ts";
import type { Projects } from "../stores/projects.ts";
import type { WebhookSettings } from "../stores/webhook-settings.ts";
import type { Listeners } from "../stores/listeners.ts";

export interface HandlerDeps {
  store: Store;
  clock: Clock;
  webhooks: WebhookDispatcher;
  /** The delivery stream (`GET /_sim/events`). */
  streams: EventStreams;
  /** Fault settings per project (`/_sim/faults`). */
  faults: FaultRegistry;
  /** Which webhook receiver addresses are allowed. */
  addressPolicy: AddressPolicy;
  /** The projects' interviews (in the process, or in PostgreSQL's table). */
  interviews: Interviews;
  /** The projects' studies (in the process, or in PostgreSQL's table). */
  studies: Studies;
  /** The projects' visible chats and their messages (in the process, or in PostgreSQL's tables). */
  chats: Chats;
  /** The projects' releases (in the process, or in PostgreSQL's table). */
  releases: Releases;
  /** The participant prompt events each project received (in the process, or in PostgreSQL's table). */
  promptEvents: PromptEvents;
  /** Projects by key and id, and the ones created through the simulation surface. */
  projects: Projects;
  /** Each project's webhook setting. */
  webhookSettings: WebhookSettings;
  /** Each project's listener secret and forwards (`api-sandbox listen`). */
  listeners: Listeners;
  /** Simulated interviews over time (timers, transitions, completion events). */
  runner: InterviewRunner;
  /** Where changes are written down (`--data-dir`), or nowhere. */
  backend: Backend;
  /** Per-tenant quotas of things kept. */
  quotas: Quotas;
  /** HMAC key of participant launch tokens. */
  launchTokenSecret: Buffer;
  /** Lifetime of a launch token issued with the trigger config. */
  launchTokenTtlMs: number;
  /** How long clients may cache the trigger config. */
  participantConfigTtlSeconds: number;
}
