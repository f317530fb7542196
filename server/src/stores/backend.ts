/**
 * The store's backend: where a change runs and commits, and the meta values (`Backend`, below). Memory, SQLite
 * (`--data-dir`) and PostgreSQL (`--database-url`) each have one (stores/<kind>/backend.ts); stores/compose.ts builds
 * every other port over it. The two of one process also keep a log of their changes (`ChangeLog`), so a restart with
 * `--data-dir` finds everything as it was; without a data dir the memory backend writes nothing down. PostgreSQL keeps
 * no log: every change is rows of the tables it changes.
 *
 * Changes are recorded as their results (the interview as created, the fields a transition set), never as
 * requests to run again, so replaying them at the next start is deterministic and sends nothing.
 */
import type { StoredChat, StoredInterview, StoredMessage, StoredRelease, StoredStudy } from "../../../fixtures/types.ts";
import type { components } from "../../../generated/schema.d.ts";

type FaultSettings = Required<components["schemas"]["SimFaultSettings"]>;
type WebhookDelivery = components["schemas"]["WebhookDelivery"];

export type Op =
  | { kind: "project.created"; project: { id: string; name: string; api_key: string; public_key: string; tenant: string; created_at: string } }
  /**
   * `version`: the webhook's version after the change, written by compaction only (a folded change stands for several,
   * each of which counted one); absent, the change counts one.
   */
  | { kind: "webhook.set"; project_id: string; url: string; events: Array<"interview.completed">; secret: string; version?: number }
  | { kind: "webhook.deleted"; project_id: string; version?: number }
  | { kind: "study.planted"; study: StoredStudy }
  /** A study's status set through the simulation surface (a fixture's or a planted one's). */
  | { kind: "study.changed"; project_id: string; id: string; status: StoredStudy["status"] }
  /** `processing_at` / `completes_at`: when the simulated interview's timers fire (null: held, or already done). */
  | { kind: "interview.created"; interview: StoredInterview; processing_at: number | null; completes_at: number | null }
  | { kind: "interview.changed"; project_id: string; id: string; change: Partial<StoredInterview> }
  | { kind: "interview.abandoned"; project_id: string; id: string }
  | { kind: "chat.planted"; chat: StoredChat; messages: StoredMessage[] }
  | { kind: "release.planted"; release: StoredRelease }
  /** The project's whole fault settings after a change (null: cleared), counters included. */
  | { kind: "faults.set"; project_id: string; settings: FaultSettings | null }
  | { kind: "prompt.recorded"; project_id: string; event_id: string; phase: string; received_at: string }
  | { kind: "listener.secret"; project_id: string; secret: string }
  | { kind: "forward.recorded"; project_id: string; forward: components["schemas"]["SimForward"] };

/** A webhook event with its exact request, bound to the webhook setting it was made for. */
export interface StoredEvent {
  id: string;
  project_id: string;
  interview_id: string;
  url: string;
  secret: string;
  version: number;
  body: string;
  headers: Record<string, string>;
}

export interface StoredAttempt {
  project_id: string;
  record: WebhookDelivery;
}

export interface StoredStreamEvent {
  project_id: string;
  event: components["schemas"]["SimStreamEvent"];
}

/**
 * What the attempt queue of one process writes down of its webhook events and attempts (memory/deliveries.ts):
 * nothing in memory, tables of the data dir with SQLite. Several processes on one PostgreSQL keep events and attempts
 * as the rows they claim from (postgres/deliveries.ts), so that store has no such log.
 */
export interface DeliveryLog {
  putEvent(e: StoredEvent): void;
  dropEvent(id: string): void;
  events(): StoredEvent[];
  putAttempt(a: StoredAttempt): void;
  dropAttempt(id: string): void;
  attempts(): StoredAttempt[];
}

/**
 * The log of changes a store of one process keeps (memory: nothing; SQLite: the data dir's tables), replayed at the
 * next start (restore.ts), and its copy of the stream's events. PostgreSQL keeps no such log: every change is rows of
 * the tables it changes.
 */
export interface ChangeLog {
  append(op: Op): void;
  ops(): Op[];
  putStreamEvent(s: StoredStreamEvent): void;
  dropStreamEvents(projectId: string, throughSeq: number): void;
  streamEvents(): StoredStreamEvent[];
  /** Several writes as one (SQLite's transaction). */
  atomically<T>(fn: () => T): T;
}

/** A store of one process (memory, SQLite): its backend, its log of changes and its deliveries' log. */
export type LocalBackend = Backend & ChangeLog & DeliveryLog;

/** Whether the store is one process's (memory, SQLite) rather than rows several processes share. */
export const isLocal = (j: Backend): j is LocalBackend => "attempts" in j;

/**
 * What every store does: a change, its commit, and the meta values. Memory (the default), SQLite (`--data-dir`) and
 * PostgreSQL (`--database-url`, shared by several processes). The resources and the stream each have an interface of
 * their own beside this file (studies.ts, interviews.ts, chats.ts, prompt-events.ts, stream.ts, ...); the same
 * behaviour tests run over each store (server/test/cluster/stores.test.ts).
 */
/**
 * The store cannot be used now (a database stopped, restarting, unreachable): the request is answered 503 with
 * Retry-After, and what the driver said goes to the log only.
 */
export class StoreUnavailable extends Error {}

/** This process closed its store (a shutdown): nothing more is written through it. */
export class StoreClosed extends StoreUnavailable {}

/** Why a store cannot serve yet: what a client may be told, and what only the log may say. */
export interface NotReady {
  reason: string;
  detail?: string;
}

export interface Backend {
  readonly kind: "memory" | "sqlite" | "postgres";
  /** Whether anything outlives the process (the banner and the SIGTERM log say which). */
  readonly durable: boolean;
  /** Where the state is kept, for people: the data dir, or the database URL without its password. */
  readonly dir: string | null;
  /** Several processes share the store (PostgreSQL): every resource is rows of its tables, each change a transaction. */
  readonly shared: boolean;
  /**
   * Runs a change. On a store of one process, at once (synchronously). On a shared one, as one transaction of rows,
   * committed before the promise resolves, so the caller acknowledges nothing lost; `tenant`'s changes take at most
   * all but one of the process's pooled connections at once (the rest wait in memory, holding nothing), and `admit`
   * is awaited once the change's turn has come, before it takes a connection (the router takes the request's
   * admission slot there), so a tenant whose changes wait on its own rows never holds what another tenant needs.
   */
  write<T>(fn: () => T, tenant?: string, admit?: () => Promise<void>): T | Promise<Awaited<T>>;
  /**
   * Runs `fn` once the change in progress is committed (at once outside a change, and on a store of one process):
   * what leaves the process (a stream frame) must never show a change the database then refuses.
   */
  afterCommit(fn: () => void): void;
  /**
   * null when the store answers and is migrated; else why not: `reason` for anyone who asks `/readyz`, `detail` (the
   * driver's message, the database's address) for the log only.
   */
  ready(): Promise<NotReady | null>;
  getMeta(key: string): string | undefined;
  setMeta(key: string, value: string): void;
  close(): void;
}
