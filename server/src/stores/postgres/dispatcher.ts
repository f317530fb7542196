/**
 * Webhook delivery when several processes share one PostgreSQL (`--database-url`): the same rules as the
 * dispatcher of one process (dispatcher.ts), with the attempts as rows that every process claims from.
 *
 * Why `FOR UPDATE SKIP LOCKED` on our own `attempts` table, not pg-boss or graphile-worker: the rows are already what
 * the deliveries list shows (a job queue would keep a second copy of every attempt to keep in step), and the
 * fairness rule (slots round the tenants, then round each tenant's projects, with caps per tenant and per project
 * over all processes) is the fair queue of one process (webhooks/fair-queue.ts) applied to those rows under the
 * claim's lock, which neither queue can express. Staleness, outcomes (an answer, an injected failure, an interrupted
 * attempt) and the retry a finished attempt asks for are the functions the dispatcher of one process calls
 * (webhooks/attempt-outcome.ts, over webhooks/schedule.ts).
 *
 * - An event and its first attempt are written in the change that completed the interview; a retry is written in
 *   the same transaction as the failure that asks for it. Nothing is scheduled in memory, so a retry survives the
 *   death of the process that scheduled it.
 * - Each attempt is claimed by exactly one process: a claim locks the rows of the tenants it claims for
 *   (`delivery_tenants`, `FOR UPDATE SKIP LOCKED`), so a tenant's caps count every process's attempts on the wire while
 *   other tenants are claimed elsewhere at the same time (no lock over every tenant); a claimed row carries its owner
 *   and a lease (the timeout plus a margin). A process that found a tenant being claimed by another looks again soon.
 * - A process killed with an attempt on the wire leaves its lease to run out: the next claim counts that attempt
 *   failed ("interrupted") and schedules its retry. Whether the receiver got it is unknown, so it may arrive twice;
 *   an attempt recorded as answered with a 2xx is never sent again.
 * - Every process wakes at the next attempt's due time, at a notice of a new one, and at least every `pollMs`.
 */
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import pg from "pg";
import type { Logger } from "pino";
import { iso, type Clock } from "../../clock.ts";
import type { FaultRegistry } from "../../faults/settings.ts";
import { ApiError, conflict, notFound } from "../../http/errors.ts";
import type { PgBackend } from "./backend.ts";
import type { Project, WebhookSetting } from "../../model/project.ts";
import type { Listeners } from "../listeners.ts";
import type { Projects } from "../projects.ts";
import type { WebhookSettings } from "../webhook-settings.ts";
import type { AddressPolicy } from "../../webhooks/address-policy.ts";
import { forgottenPastCap, INTERRUPTED, injectedFields, outcomeFields, readCa, resendNumber, retryAfter, staleReason, type EventDelivery } from "../../webhooks/attempt-outcome.ts";
import { postWebhook } from "../../webhooks/delivery.ts";
import type { EventStreams } from "../../webhooks/event-stream.ts";
import { INTERVIEW_COMPLETED } from "../../webhooks/payload.ts";
import { newEvent } from "../../webhooks/new-event.ts";
import type { WebhookDelivery, WebhookDispatcher } from "../../webhooks/types.ts";
import type { components } from "../../../../generated/schema.d.ts";
import type { StoredInterview, StoredStudy } from "../../../../fixtures/types.ts";
import { CLAIM_TENANTS, DUE_CANDIDATES, DUE_TENANTS, INSERT_ATTEMPT, ON_THE_WIRE, recordOf, type AttemptRow, type EventRow } from "./attempt-rows.ts";
import { FairQueue, type Slotted } from "../../webhooks/fair-queue.ts";
import { NOTIFY } from "./channels.ts";

const WAKE = "sandbox_deliveries";
/** How soon a process looks again after another process held some tenants' claim. */
const CONTENDED_MS = 25;
/** Added to the attempt timeout: how long a claim outlives its process. */
const LEASE_MARGIN_MS = 5_000;

export interface PgDispatcherOptions {
  backend: PgBackend;
  /** The projects rows name (a created one is found in its table by any process). */
  projects: Projects;
  /** Each project's webhook, read in the change that needs it. */
  webhookSettings: WebhookSettings;
  /** The listener secret that signs stream events of a project without a webhook. */
  listeners?: Listeners;
  clock: Clock;
  retryDelaysMs: readonly number[];
  timeoutMs: number;
  logger?: Logger;
  addressPolicy?: AddressPolicy;
  caFile?: string;
  streams?: EventStreams;
  faults?: FaultRegistry;
  /** On the wire at once from this process (default 64). */
  maxConcurrent?: number;
  /** On the wire at once per tenant and per project, over all processes (defaults 16 and 8). */
  maxConcurrentPerTenant?: number;
  maxConcurrentPerProject?: number;
  eventsKeptPerTenant?: number;
  maxAttemptsPerProject?: number;
  /** The longest an idle process waits before looking for due attempts (default 1 s). */
  pollMs?: number;
}

export function createPgDispatcher(o: PgDispatcherOptions): WebhookDispatcher {
  return new PgDispatcher(o);
}

type ClaimedRow = AttemptRow & { e: string };
type Finished = Pick<WebhookDelivery, "status" | "response_status" | "error">;

class PgDispatcher implements WebhookDispatcher {
  private readonly backend: PgBackend;
  private readonly clock: Clock;
  private readonly logger?: Logger;
  private readonly db: pg.Pool;
  private readonly owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly maxTotal: number;
  private readonly perTenant: number;
  private readonly perProject: number;
  private readonly eventsKept: number;
  private readonly attemptsKept: number;
  private readonly pollMs: number;
  private readonly inFlight = new Map<string, AbortController>();
  private readonly running = new Set<Promise<void>>();
  private closed = false;
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<void> | null = null;
  private again = false;
  private known = { waiting: 0, queued: 0 };
  private listener: pg.Client | null = null;

  constructor(private readonly o: PgDispatcherOptions) {
    this.backend = o.backend;
    this.clock = o.clock;
    this.logger = o.logger;
    this.db = o.backend.pool;
    this.maxTotal = o.maxConcurrent ?? 64;
    this.perTenant = o.maxConcurrentPerTenant ?? 16;
    this.perProject = o.maxConcurrentPerProject ?? 8;
    this.eventsKept = o.eventsKeptPerTenant ?? 10_000;
    this.attemptsKept = o.maxAttemptsPerProject ?? 1_000;
    this.pollMs = o.pollMs ?? 1_000;
  }

  private insertAttempt(ev: { id: string; project: Project; interviewId: string }, attempt: number, trigger: WebhookDelivery["trigger"], url: string, dueMs: number): string {
    const id = randomUUID();
    this.backend.enqueue(INSERT_ATTEMPT, [id, ev.project.tenant, ev.project.id, ev.id, ev.interviewId, attempt, trigger, url, dueMs]);
    return id;
  }

  /** The event of a row, bound to its project (null: a project the database no longer has). */
  private async eventOf(r: EventRow): Promise<EventDelivery | null> {
    const project = await this.o.projects.byId(r.project_id);
    if (!project) return null;
    return { id: r.id, project, interviewId: r.interview_id, url: r.url, secret: r.secret, version: r.version, body: Buffer.from(r.body, "utf8"), headers: JSON.parse(r.headers) };
  }

  private async attemptOf(project: Project, attemptId: string): Promise<{ record: WebhookDelivery; ev: EventDelivery }> {
    const { rows } = await this.db.query<AttemptRow & { e: string | null }>(
      "SELECT a.*, row_to_json(e)::text AS e FROM attempts a LEFT JOIN events e ON e.id = a.event_id WHERE a.id = $1 AND a.project_id = $2",
      [attemptId, project.id],
    );
    const ev = rows[0]?.e ? await this.eventOf(JSON.parse(rows[0].e) as EventRow) : null;
    if (!rows[0] || !ev) throw notFound(`No such delivery: ${attemptId}`);
    return { record: recordOf(rows[0]), ev };
  }

  /** Wakes the claim loop now (a notice, a finished attempt) or at `atMs`. */
  private wake(atMs?: number): void {
    if (this.closed) return;
    const delay = atMs === undefined ? 0 : Math.max(0, Math.min(this.pollMs, atMs - this.clock.now()));
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.tick();
    }, delay);
    this.timer.unref();
  }

  private tick(): Promise<void> {
    if (this.ticking) {
      this.again = true;
      return this.ticking;
    }
    this.ticking = this.claimAndSend()
      .catch((err) => {
        this.logger?.warn({ err: (err as Error).message }, "webhook claim failed; retrying");
        // The database is away: look again after a poll's pause (a notification may never come).
        this.wake(this.clock.now() + this.pollMs);
      })
      .finally(() => {
        this.ticking = null;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
    return this.ticking;
  }

  private async claimAndSend(): Promise<void> {
    if (this.closed) return;
    await this.recoverExpired();
    const room = this.maxTotal - this.inFlight.size;
    const due = room > 0 ? (await this.db.query<{ tenant: string }>(DUE_TENANTS, [this.clock.now()])).rows.map((r) => r.tenant) : [];
    // No transaction when nothing is due: the claim runs every few milliseconds while a cap is full.
    const claimed = due.length > 0 ? await this.claim(due, room) : [];
    for (const row of claimed) this.start(row);
    await this.scheduleNext();
  }

  /** Marks the attempts this process sends now as its own, in one transaction over the due tenants' rows it could lock. */
  private async claim(due: string[], room: number): Promise<ClaimedRow[]> {
    const client = await this.db.connect();
    try {
      await client.query("BEGIN");
      const now = this.clock.now();
      const tenants = (await client.query<{ tenant: string }>(CLAIM_TENANTS, [due])).rows.map((r) => r.tenant);
      const chosen = tenants.length > 0 ? await this.pickFairly(client, now, room, tenants) : [];
      let taken: ClaimedRow[] = [];
      if (chosen.length > 0) {
        ({ rows: taken } = await client.query<ClaimedRow>(
          `UPDATE attempts a SET status = 'in_flight', sent_ms = $2, lease_ms = $3, owner = $4 FROM events e
           WHERE a.id = ANY($1::text[]) AND e.id = a.event_id RETURNING a.*, row_to_json(e)::text AS e`,
          [chosen, now, now + this.o.timeoutMs + LEASE_MARGIN_MS, this.owner],
        ));
      }
      await client.query("COMMIT");
      return taken;
    } catch (err) {
      await client.query("ROLLBACK").catch(() => {});
      throw err;
    } finally {
      client.release();
    }
  }

  /**
   * Which due attempts of `tenants` this process sends now (at most `room`): the fair queue of one process
   * (webhooks/fair-queue.ts) over their due rows, with what every process has on the wire for them already counted
   * against the caps. Under their rows' locks, so the counts hold until the chosen rows are marked.
   */
  private async pickFairly(client: pg.PoolClient, now: number, room: number, tenants: string[]): Promise<string[]> {
    const { rows: wire } = await client.query<{ tenant: string; project_id: string; n: number }>(ON_THE_WIRE, [tenants]);
    const { rows: due } = await client.query<{ id: string; tenant: string; project_id: string }>(DUE_CANDIDATES, [now, this.perProject, tenants]);
    if (due.length === 0) return [];
    const onWire = wire.reduce((sum, w) => sum + w.n, 0);
    const queue = new FairQueue<Slotted & { id?: string }>({ total: onWire + room, perTenant: this.perTenant, perProject: this.perProject }, (x) => x);
    for (const w of wire) for (let i = 0; i < w.n; i++) queue.take({ tenant: w.tenant, project: w.project_id });
    for (const d of due) queue.push({ id: d.id, tenant: d.tenant, project: d.project_id });
    const chosen: string[] = [];
    queue.drain((item) => {
      queue.take(item);
      chosen.push(item.id!);
    });
    return chosen;
  }

  /** Attempts whose process died on the wire (their lease ran out): failed, and retried on the schedule. */
  private async recoverExpired(): Promise<void> {
    const now = this.clock.now();
    const { rows } = await this.db.query<{ tenant: string }>("SELECT DISTINCT tenant FROM attempts WHERE status = 'in_flight' AND lease_ms < $1", [now]);
    // Each tenant's in a change of its own, rows locked: two processes never recover the same attempt (the second skips
    // or finds it recovered), and no tenant waits for another's.
    await Promise.all(rows.map(({ tenant }) => this.backend.write(async () => {
      const { rows: lost } = await this.backend.query<ClaimedRow>(
        `SELECT a.*, row_to_json(e)::text AS e FROM attempts a JOIN events e ON e.id = a.event_id
         WHERE a.tenant = $2 AND a.status = 'in_flight' AND a.lease_ms < $1 FOR UPDATE OF a SKIP LOCKED`,
        [now, tenant],
      );
      for (const row of lost) {
        const ev = await this.eventOf(JSON.parse(row.e) as EventRow);
        this.backend.enqueue("UPDATE attempts SET status = 'failed', error = $2, finished_ms = $3, lease_ms = NULL WHERE id = $1 AND status = 'in_flight'", [row.id, INTERRUPTED, now]);
        if (ev) await this.retry(ev, { ...recordOf(row), status: "failed", error: INTERRUPTED }, now);
      }
    })));
  }

  /** Writes the retry a finished attempt asks for (attempt-outcome.ts's rule), in the change in progress. */
  private async retry(ev: EventDelivery, finished: Pick<WebhookDelivery, "status" | "trigger" | "attempt" | "error">, failedAtMs: number): Promise<void> {
    if (finished.status !== "failed" || finished.trigger === "resend") return;
    const stale = staleReason(ev, await this.o.webhookSettings.get(ev.project)) !== null;
    const next = retryAfter(finished, ev, failedAtMs, this.o.retryDelaysMs, stale, this.logger);
    if (!next) return;
    this.insertAttempt(ev, next.attempt, "retry", ev.url, next.dueMs);
    this.backend.enqueue(NOTIFY, [WAKE]);
  }

  private start(row: ClaimedRow): void {
    const controller = new AbortController();
    this.inFlight.set(row.id, controller);
    const done = this.eventOf(JSON.parse(row.e) as EventRow)
      .then((stored) => this.send(row, stored, controller))
      .catch((err) => this.logger?.error({ err: (err as Error).message, event_id: row.event_id }, "webhook delivery bookkeeping failed"))
      .finally(() => {
        this.inFlight.delete(row.id);
        this.running.delete(done);
        this.wake();
      });
    this.running.add(done);
  }

  /** Records a claimed attempt's outcome, and the retry it asks for in the same change (none if the lease ran out). */
  private finish(row: AttemptRow, fields: Finished, ev?: EventDelivery): Promise<void> {
    return this.backend.write(async () => {
      const now = this.clock.now();
      const done = await this.backend.query("UPDATE attempts SET status = $3, response_status = $4, error = $5, finished_ms = $6, lease_ms = NULL WHERE id = $1 AND owner = $2 AND status = 'in_flight'", [
        row.id, this.owner, fields.status, fields.response_status, fields.error, now,
      ]);
      // No row: the lease ran out and another process already counted this attempt failed and retried it.
      if (done.rowCount === 1 && ev) await this.retry(ev, { ...recordOf(row), ...fields }, now);
    });
  }

  private async send(row: AttemptRow, stored: EventDelivery | null, controller: AbortController): Promise<void> {
    if (!stored) return this.finish(row, { status: "cancelled", response_status: null, error: "cancelled: the project no longer exists" });
    // A resend goes to the URL it was made for; other attempts to the event's own.
    const ev = row.url === stored.url ? stored : { ...stored, url: row.url };
    const stale = row.trigger === "resend" ? null : staleReason(ev, await this.o.webhookSettings.get(ev.project));
    if (stale) return this.finish(row, { status: "cancelled", response_status: null, error: stale });
    // An injected endpoint failure: consumed by one UPDATE where the counters are kept, so two processes never take the same one.
    const injected = (await this.o.faults?.takeWebhookFailure(ev.project.id)) ?? null;
    if (injected !== null) return this.finish(row, injectedFields(injected), ev);
    const { timeoutMs, caFile, addressPolicy } = this.o;
    const outcome = await postWebhook({ url: ev.url, body: ev.body, headers: ev.headers, timeoutMs, signal: controller.signal, extraCa: readCa(caFile), addressPolicy });
    // Cut by this process's shutdown: its lease is given up, so another process retries it at once.
    if (outcome.kind === "aborted") {
      await this.db.query("UPDATE attempts SET lease_ms = 0 WHERE id = $1 AND owner = $2 AND status = 'in_flight'", [row.id, this.owner]);
      return;
    }
    return this.finish(row, outcomeFields(outcome), ev);
  }

  /** Arms the wake-up for the next due attempt (at most `pollMs` away) and refreshes the counts for the logs. */
  private async scheduleNext(): Promise<void> {
    if (this.closed) return;
    const { rows } = await this.db.query<{ next: string | null; waiting: string; queued: string }>(
      "SELECT MIN(scheduled_ms) AS next, COUNT(*) FILTER (WHERE scheduled_ms > $1) AS waiting, COUNT(*) FILTER (WHERE scheduled_ms <= $1) AS queued FROM attempts WHERE status = 'pending'",
      [this.clock.now()],
    );
    this.known = { waiting: Number(rows[0].waiting), queued: Number(rows[0].queued) };
    const now = this.clock.now();
    // Due attempts left behind (another process was claiming for their tenant, or a cap or this process is full): look
    // again shortly, not at once (a cap frees when an attempt on any process finishes, which notifies no one).
    const next = rows[0].next === null ? now + this.pollMs : Number(rows[0].next);
    this.wake(next <= now ? now + CONTENDED_MS : next);
  }

  private async listen(): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client({ connectionString: this.backend.url });
    client.on("notification", () => this.wake());
    client.on("error", () => {
      client.end().catch(() => {});
      if (!this.closed) setTimeout(() => void this.listen(), 500).unref();
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${WAKE}`);
      this.listener = client;
      this.wake();
    } catch {
      client.end().catch(() => {});
      if (!this.closed) setTimeout(() => void this.listen(), 500).unref();
    }
  }

  async interviewCompleted(project: Project, interview: StoredInterview, study: StoredStudy | undefined): Promise<void> {
    if (this.closed) return;
    const now = this.clock.now();
    // Read in the change that completed the interview: the event is bound to the webhook as it is then.
    const webhook = await this.o.webhookSettings.get(project);
    const secret = webhook || !this.o.listeners ? undefined : await this.o.listeners.secret(project);
    const { delivery: ev, streamed } = newEvent(project, webhook, interview, study, now, secret === undefined ? undefined : () => secret);
    if (streamed) await this.o.streams?.publish(project.id, streamed);
    if (!ev) return;
    // In the change that completed the interview: the event exists exactly when the completion does.
    this.backend.enqueue("INSERT INTO events (id, tenant, project_id, interview_id, url, secret, version, body, headers) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)", [
      ev.id, project.tenant, project.id, ev.interviewId, ev.url, ev.secret, ev.version, ev.body.toString("utf8"), JSON.stringify(ev.headers),
    ]);
    this.backend.enqueue("DELETE FROM events WHERE tenant = $1 AND ord <= (SELECT ord FROM events WHERE tenant = $1 ORDER BY ord DESC OFFSET $2 LIMIT 1)", [project.tenant, this.eventsKept]);
    this.insertAttempt(ev, 1, "event", ev.url, now);
    this.backend.enqueue(NOTIFY, [WAKE]);
    this.backend.afterCommit(() => void this.forgetPastCap(project.id));
  }

  /**
   * The project's attempts past the newest `maxAttemptsPerProject` that attempt-outcome.ts's rule forgets, after the
   * commit of the change that added one (keeping the list bounded is no part of any change).
   */
  private async forgetPastCap(projectId: string): Promise<void> {
    try {
      const { rows } = await this.db.query<{ id: string; status: WebhookDelivery["status"] }>(
        "SELECT id, status FROM attempts WHERE project_id = $1 ORDER BY scheduled_ms DESC, id DESC OFFSET $2",
        [projectId, this.attemptsKept],
      );
      const ids = forgottenPastCap(rows).map((r) => r.id);
      // A finished attempt stays finished: nothing read here changes before the delete.
      if (ids.length > 0) await this.db.query("DELETE FROM attempts WHERE id = ANY($1::text[])", [ids]);
    } catch (err) {
      this.logger?.warn({ err: (err as Error).message, project_id: projectId }, "could not forget a project's oldest webhook attempts; the next event tries again");
    }
  }

  async webhookChanged(project: Project, current: WebhookSetting | null): Promise<void> {
    // Pending attempts of a replaced or deleted webhook never go out; an identical PUT keeps them. Which ones are
    // stale is staleReason's rule, the one the dispatcher of one process applies, read here from their rows.
    const { rows } = await this.backend.query<{ id: string; e: string }>(
      `SELECT a.id, row_to_json(e)::text AS e FROM attempts a JOIN events e ON e.id = a.event_id
       WHERE a.project_id = $1 AND a.status = 'pending' AND a.trigger <> 'resend' FOR UPDATE OF a`,
      [project.id],
    );
    // One statement per reason, however many attempts it cancels.
    const byReason = new Map<string, string[]>();
    for (const r of rows) {
      const ev = await this.eventOf(JSON.parse(r.e) as EventRow);
      const reason = ev && staleReason(ev, current);
      if (reason) byReason.set(reason, [...(byReason.get(reason) ?? []), r.id]);
    }
    const now = this.clock.now();
    for (const [reason, ids] of byReason) {
      this.backend.enqueue("UPDATE attempts SET status = 'cancelled', error = $2, finished_ms = $3 WHERE id = ANY($1::text[]) AND status = 'pending'", [ids, reason, now]);
    }
  }

  async attempts(project: Project): Promise<WebhookDelivery[]> {
    const { rows } = await this.db.query<AttemptRow>("SELECT * FROM attempts WHERE project_id = $1 ORDER BY scheduled_ms, id", [project.id]);
    return rows.map(recordOf);
  }

  async request(project: Project, attemptId: string): Promise<components["schemas"]["SimDeliveryRequest"]> {
    const { record, ev } = await this.attemptOf(project, attemptId);
    return { delivery_id: record.id, event_id: ev.id, url: record.url, headers: { ...ev.headers }, body: ev.body.toString("utf8") };
  }

  async resend(project: Project, attemptId: string): Promise<WebhookDelivery> {
    if (this.closed) throw new ApiError(503, "api_error", "The server is shutting down", undefined, { "Retry-After": "1" });
    const { ev } = await this.attemptOf(project, attemptId);
    const webhook = await this.o.webhookSettings.get(project);
    if (!webhook) throw conflict("No webhook is configured: PUT /v1/webhooks first");
    const now = this.clock.now();
    // The event's row locked until this change commits: two resends at once number their attempts one after the other.
    await this.backend.query("SELECT 1 FROM events WHERE id = $1 FOR UPDATE", [ev.id]);
    const { rows } = await this.backend.query<{ attempt: number }>("SELECT attempt FROM attempts WHERE event_id = $1", [ev.id]);
    const attempt = resendNumber(rows.map((r) => r.attempt));
    const id = this.insertAttempt(ev, attempt, "resend", webhook.url, now);
    this.backend.enqueue(NOTIFY, [WAKE]);
    await this.o.streams?.publish(project.id, { event_id: ev.id, event: INTERVIEW_COMPLETED, interview_id: ev.interviewId, reason: "resend", headers: ev.headers, body: ev.body.toString("utf8") });
    return {
      id, object: "webhook_delivery", event_id: ev.id, event: INTERVIEW_COMPLETED, interview_id: ev.interviewId, attempt, trigger: "resend", url: webhook.url,
      status: "pending", response_status: null, error: null, scheduled_at: iso(now), sent_at: null, finished_at: null,
    };
  }

  pending(): { waiting: number; queued: number; inFlight: number } {
    return { ...this.known, inFlight: this.inFlight.size };
  }

  restore(): void {
    void this.listen();
    this.wake();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    await this.ticking?.catch(() => {});
    for (const c of this.inFlight.values()) c.abort();
    await Promise.allSettled([...this.running]);
    await this.listener?.end().catch(() => {});
  }
}
