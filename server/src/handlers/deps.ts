/** What handlers depend on besides the request: injected by app.ts so tests can replace any of it. */
import type { Clock } from "../clock.ts";
import type { Store } from "../model/store.ts";
import type { AddressPolicy } from "../webhooks/address-policy.ts";
import type { WebhookDispatcher } from "../webhooks/types.ts";
import type { EventStreams } from "../webhooks/event-stream.ts";
import type { FaultRegistry } from "../faults/settings.ts";
import type { Journal } from "../stores/journal.ts";
import type { InterviewRunner } from "../simulation/interview-runner.ts";
import type { Quotas } from "../model/tenant-limits.ts";

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
  /** Simulated interviews over time (timers, transitions, completion events). */
  runner: InterviewRunner;
  /** Where changes are written down (`--data-dir`), or nowhere. */
  journal: Journal;
  /** Per-tenant quotas of things kept. */
  quotas: Quotas;
  /** HMAC key of participant launch tokens. */
  launchTokenSecret: Buffer;
  /** Lifetime of a launch token issued with the trigger config. */
  launchTokenTtlMs: number;
  /** How long clients may cache the trigger config. */
  participantConfigTtlSeconds: number;
}
