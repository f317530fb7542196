/**
 * The one place that knows which store it has: it builds every port (stores/<job>.ts) from the implementations of the
 * store's kind (stores/memory/ over a process's log, stores/postgres/ over shared tables), and the parts that differ by
 * kind with them (the webhook dispatcher, the interviews' timers, the counts shared by processes). createApp (app.ts)
 * takes what this returns and never asks which store it is.
 */
import type { Logger } from "pino";
import type { FixtureDataset } from "../../../fixtures/types.ts";
import type { Clock } from "../clock.ts";
import { FaultRegistry } from "../faults/settings.ts";
import { Store } from "../model/store.ts";
import { Quotas, type TenantLimits } from "../model/tenant-limits.ts";
import { InterviewRunner } from "../simulation/interview-runner.ts";
import type { AddressPolicy } from "../webhooks/address-policy.ts";
import { DeliveryCore } from "../webhooks/delivery-core.ts";
import type { Caps } from "../webhooks/fair-queue.ts";
import { MemoryDeliveries } from "./memory/deliveries.ts";
import { EventStreams } from "../webhooks/event-stream.ts";
import type { WebhookDispatcher } from "../webhooks/types.ts";
import type { Chats } from "./chats.ts";
import type { Releases } from "./releases.ts";
import { MemoryReleases } from "./memory/releases.ts";
import { PgReleases } from "./postgres/releases.ts";
import type { Interviews } from "./interviews.ts";
import { isLocal, type Backend, type LocalBackend } from "./backend.ts";
import type { SharedCounter } from "./limits.ts";
import type { Listeners } from "./listeners.ts";
import { MemoryChats } from "./memory/chats.ts";
import { MemoryInterviews } from "./memory/interviews.ts";
import { MemoryListeners } from "./memory/listeners.ts";
import { MemoryProjects } from "./memory/projects.ts";
import { MemoryPromptEvents } from "./memory/prompt-events.ts";
import { MemoryStream } from "./memory/stream.ts";
import { MemoryStudies } from "./memory/studies.ts";
import { MemoryWebhookSettings } from "./memory/webhook-settings.ts";
import { PgChats } from "./postgres/chats.ts";
import { PgDeliveries } from "./postgres/deliveries.ts";
import { PgFaultSettings } from "./postgres/fault-settings.ts";
import { seedFixtures } from "./postgres/fixtures.ts";
import { PgInterviews } from "./postgres/interviews.ts";
import { PgBackend } from "./postgres/backend.ts";
import { PgListeners } from "./postgres/listeners.ts";
import { PgPlanted } from "./postgres/planted.ts";
import { PgProjects } from "./postgres/projects.ts";
import { PgPromptEvents } from "./postgres/prompt-events.ts";
import { SharedSlots } from "./postgres/shared-slots.ts";
import { PgStream } from "./postgres/stream.ts";
import { PgStudies } from "./postgres/studies.ts";
import { PgTimers } from "./postgres/timers.ts";
import { PgWebhookSettings } from "./postgres/webhook-settings.ts";
import type { Projects } from "./projects.ts";
import type { PromptEvents } from "./prompt-events.ts";
import { replay } from "./restore.ts";
import type { Studies } from "./studies.ts";
import type { WebhookSettings } from "./webhook-settings.ts";

export interface ComposeOptions {
  clock: Clock;
  /** The fixtures, already shifted to the clock. */
  dataset: FixtureDataset;
  limits: TenantLimits;
  addressPolicy: AddressPolicy;
  retryDelaysMs: number[];
  timeoutMs: number;
  caFile?: string;
  maxConcurrent?: number;
  maxConcurrentPerProject?: number;
  simProcessingMs: number;
  /** A dispatcher to use instead of the store's own (tests). */
  webhooks?: WebhookDispatcher;
  logger?: Logger;
}

/** Every port and every part built with them, ready for the handlers. */
export interface Composed {
  store: Store;
  projects: Projects;
  interviews: Interviews;
  studies: Studies;
  chats: Chats;
  releases: Releases;
  promptEvents: PromptEvents;
  webhookSettings: WebhookSettings;
  listeners: Listeners;
  streams: EventStreams;
  faults: FaultRegistry;
  quotas: Quotas;
  webhooks: WebhookDispatcher;
  runner: InterviewRunner;
  /** Counts of things open at once over every process of the sandbox (null: one process counts alone). */
  sharedCounts: SharedCounter | null;
  /** Store changes replayed from the data dir at start-up (0 without one, and always on a shared store). */
  restoredChanges: number;
  /**
   * Settles once the store can serve requests (a shared store: the fixtures written to its tables); absent, it always
   * can (requests then wait for nothing).
   */
  ready?: () => Promise<void>;
  /** Stops what the store runs (timers, beats); the backend itself is closed by its owner. */
  close(): Promise<void>;
}

export function composeStores(backend: Backend, o: ComposeOptions): Composed {
  if (backend instanceof PgBackend) return composeShared(backend, o);
  if (isLocal(backend)) return composeLocal(backend, o);
  throw new Error(`unknown store: ${backend.kind}`);
}

/** The delivery core's settings, the same over either queue. */
const deliveryOf = (o: ComposeOptions, streams: EventStreams, faults: FaultRegistry) => ({
  streams,
  faults,
  clock: o.clock,
  retryDelaysMs: o.retryDelaysMs,
  timeoutMs: o.timeoutMs,
  caFile: o.caFile,
  addressPolicy: o.addressPolicy,
  maxConcurrent: capsOf(o).total,
  logger: o.logger,
});

/** Attempts on the wire at once: from this process, per tenant and per project (over every process on PostgreSQL). */
const capsOf = (o: ComposeOptions): Caps => ({ total: o.maxConcurrent ?? 64, perTenant: o.limits.deliveriesPerTenant, perProject: o.maxConcurrentPerProject ?? 8 });

/** One process (memory, SQLite): every resource in memory, each change written to the store's log and replayed at start. */
function composeLocal(local: LocalBackend, o: ComposeOptions): Composed {
  const store = new Store(o.dataset);
  const streams = new EventStreams(local, (epoch, keep) => new MemoryStream(local, epoch, keep), { limits: o.limits, logger: o.logger });
  const faults = new FaultRegistry((projectId, settings) => local.append({ kind: "faults.set", project_id: projectId, settings }));
  const quotas = new Quotas(o.limits);
  const interviews = new MemoryInterviews(local);
  const studies = new MemoryStudies(local);
  const webhookSettings = new MemoryWebhookSettings(local);
  const listeners = new MemoryListeners(local);
  const queue = new MemoryDeliveries({ backend: local, caps: capsOf(o), eventsKeptPerTenant: o.limits.eventsKept, attemptsKeptPerProject: o.limits.attemptsKept });
  const webhooks = o.webhooks ?? new DeliveryCore(queue, { ...deliveryOf(o, streams, faults), webhookSettings, listeners });
  const runner = new InterviewRunner(o.clock, webhooks, local, interviews, studies, o.simProcessingMs, o.logger);
  const restoredChanges = replay(local, { store, faults, runner, quotas });
  webhooks.restore(store.projects);
  return {
    store,
    projects: new MemoryProjects(store, local),
    interviews,
    studies,
    chats: new MemoryChats(local),
    releases: new MemoryReleases(local),
    promptEvents: new MemoryPromptEvents(local),
    webhookSettings,
    listeners,
    streams,
    faults,
    quotas,
    webhooks,
    runner,
    sharedCounts: null,
    restoredChanges,
    close: async () => {
      streams.dispose();
      await webhooks.close();
    },
  };
}

/**
 * Several processes on one PostgreSQL: every resource is rows of its tables, fault counters and the planted quota
 * included; webhook attempts and interview timers are rows claimed by one process each; a stream event committed by
 * any process wakes the listeners of its project here.
 */
function composeShared(pg: PgBackend, o: ComposeOptions): Composed {
  // The process's model holds the projects only: studies, interviews, chats and releases are read from their tables.
  const store = new Store({ ...o.dataset, studies: [], interviews: [], chats: [], messages: [], releases: [] });
  const streams = new EventStreams(pg, (epoch, keep) => new PgStream(pg, epoch, keep), { limits: o.limits, logger: o.logger });
  const faults = new FaultRegistry(() => {});
  faults.share(new PgFaultSettings(pg));
  const quotas = new Quotas(o.limits);
  quotas.share(new PgPlanted(pg));
  const projects = new PgProjects(pg, store);
  const webhookSettings = new PgWebhookSettings(pg);
  const listeners = new PgListeners(pg);
  const interviews = new PgInterviews(pg);
  const studies = new PgStudies(pg);
  const queue = new PgDeliveries({ backend: pg, projects, caps: capsOf(o), timeoutMs: o.timeoutMs, eventsKeptPerTenant: o.limits.eventsKept, attemptsKeptPerProject: o.limits.attemptsKept, logger: o.logger });
  // Other processes add attempts too: an idle process looks at least every second (a notice may be lost).
  const webhooks = o.webhooks ?? new DeliveryCore(queue, { ...deliveryOf(o, streams, faults), webhookSettings, listeners, pollMs: 1_000 });
  const runner = new InterviewRunner(o.clock, webhooks, pg, interviews, studies, o.simProcessingMs, o.logger);
  const timers = new PgTimers(pg, o.clock, projects, (p, id, kind) => runner.make(p, id, kind), o.logger);
  runner.useRows(timers);
  pg.onStreamEvents((projectId) => streams.wake(projectId), () => streams.wakeAll());
  const sharedSlots = new SharedSlots(pg.pool, o.logger);
  streams.share(sharedSlots);
  // The fixtures' studies, interviews and chats are written to their tables first (by the database's first start; later
  // ones find them); requests, and the claims of due timers, wait for it. A failure (the database away) is tried again
  // by the next request.
  let seeding: Promise<void> | null = null;
  const ready = () =>
    (seeding ??= seedFixtures(pg, o.dataset).then(
      () => timers.start(),
      (err) => {
        seeding = null;
        throw err;
      },
    ));
  ready().catch((err) => o.logger?.warn({ err: (err as Error).message }, "the fixtures could not be written to the database yet"));
  webhooks.restore(store.projects);
  return {
    store,
    projects,
    interviews,
    studies,
    chats: new PgChats(pg),
    releases: new PgReleases(pg),
    promptEvents: new PgPromptEvents(pg),
    webhookSettings,
    listeners,
    streams,
    faults,
    quotas,
    webhooks,
    runner,
    sharedCounts: sharedSlots,
    restoredChanges: 0,
    ready,
    close: async () => {
      timers.close();
      streams.dispose();
      await webhooks.close();
      await sharedSlots.close();
    },
  };
}
