/**
 * The attempt queue webhook delivery runs over (webhooks/delivery-core.ts): where events and their attempts are kept,
 * and how a process takes due attempts to send. One process keeps them in memory and in its data dir
 * (memory/deliveries.ts); processes sharing a PostgreSQL keep them as rows each claims from (postgres/deliveries.ts).
 * Every rule (staleness, cancellation, the retry schedule, retention, resend numbering, caps and fairness) is decided by
 * the core or by the functions it hands in; a queue only stores and takes what they say.
 */
import type { Project } from "../model/project.ts";
import type { EventDelivery } from "../webhooks/attempt-outcome.ts";
import type { WebhookDelivery } from "../webhooks/types.ts";

/** An attempt taken to be sent: its record, and its event with the URL the attempt goes to. */
export interface Claimed {
  record: WebhookDelivery;
  ev: EventDelivery;
  /** The process that holds it (PostgreSQL: the claim's owner; an attempt whose owner is gone is recovered). */
  owner: string;
}

/** What a finished attempt records. */
export type Outcome = Pick<WebhookDelivery, "status" | "response_status" | "error">;

export interface Deliveries {
  /**
   * Starts the queue; `wake` asks the core to look for due attempts now (a new one, another process's notice). Returns
   * the unfinished attempts it read back (a restart from a data dir; 0 where the first look counts them).
   */
  start(projects: ReadonlyMap<string, Project>, wake: () => void): number;
  /** Writes a new event and its first attempt, due at `nowMs`, in the change in progress (the one that completed its interview). */
  addEvent(ev: EventDelivery, nowMs: number): Promise<void>;
  /** Writes a new pending attempt of a kept event, to `url`, in the change in progress. */
  addAttempt(ev: EventDelivery, attempt: number, trigger: WebhookDelivery["trigger"], url: string, dueMs: number): Promise<WebhookDelivery>;
  /**
   * Takes due attempts to send now, oldest due first, at most `room`, as the fair queue (webhooks/fair-queue.ts) chooses
   * them under the caps with every attempt on the wire counted; marks them in flight, sent at `nowMs`.
   */
  claim(nowMs: number, room: number): Promise<Claimed[]>;
  /**
   * Records a claimed attempt's outcome, in one change with what `then` writes (the retry it asks for); `then` runs only
   * when the attempt was still its holder's (a lease run out gave it to another process, which counted it).
   */
  finish(c: Claimed, outcome: Outcome, nowMs: number, then: () => Promise<void>): Promise<void>;
  /**
   * A claimed attempt cut by this process's shutdown: kept for a later start (true), or to be counted now (false: the
   * core records it cancelled).
   */
  abandon(c: Claimed): Promise<boolean>;
  /** Attempts left on the wire by a process that is gone (a restart, a lease run out): the core counts them interrupted. */
  interrupted(nowMs: number): Promise<Claimed[]>;
  /** Cancels the project's pending attempts for which `reasonOf` gives a reason, in the change in progress. */
  cancelPending(project: Project, reasonOf: (ev: EventDelivery, record: WebhookDelivery) => string | null, nowMs: number): Promise<void>;
  /** Every kept attempt of the project's deliveries, oldest scheduled first (ties by id). */
  list(project: Project): Promise<readonly WebhookDelivery[]>;
  /** One of the project's attempts with its event (null: unknown, forgotten, or another project's). */
  find(project: Project, attemptId: string): Promise<{ record: WebhookDelivery; ev: EventDelivery } | null>;
  /**
   * The numbers of every kept attempt of an event; held until the change in progress ends, so two resends number in
   * turn (null: the event was forgotten since it was found).
   */
  attemptNumbers(ev: EventDelivery): Promise<number[] | null>;
  /** When the core should look again (null: only when woken), and the counts for the shutdown log. */
  outlook(nowMs: number): Promise<{ nextMs: number | null; waiting: number; queued: number }>;
  /** Stops what the queue runs; pending attempts of a queue that does not outlive the process are cancelled. */
  close(nowMs: number): Promise<void>;
}
