/**
 * Webhook delivery when several processes share one PostgreSQL (`--database-url`): the same rules as the
 * dispatcher of one process (dispatcher.ts), with the attempts as rows that every process claims from.
 *
 * Why `FOR UPDATE SKIP LOCKED` on our own `attempts` table, not pg-boss or graphile-worker: the rows are already what
 * the deliveries list shows (a job queue would keep a second copy of every attempt to keep in step), and the
 * fairness rule (slots round the tenants, then round each tenant's projects, with caps per tenant and per project
 * over all processes) is the fair queue of one process (webhooks/fair-queue.ts) applied to those rows under the
 * claim's lock, which neither queue can express. Staleness, the retry schedule and outcomes are the same functions
 * the dispatcher of one process uses (webhooks/attempt-outcome.ts, webhooks/schedule.ts): no rule is written in SQL.
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
import type { Logger } from "pino";
import { iso, type Clock } from "../../clock.ts";
import type { FaultRegistry } from "../../faults/settings.ts";
import { ApiError, conflict, notFound } from "../../http/errors.ts";
import type { PgBackend } from "./backend.ts";
import type { Project } from "../../model/project.ts";
import type { Listeners } from "../listeners.ts";
import type { Projects } from "../projects.ts";
import type { WebhookSettings } from "../webhook-settings.ts";
import type { AddressPolicy } from "../../webhooks/address-policy.ts";
import { outcomeFields, readCa, staleReason, type EventDelivery } from "../../webhooks/attempt-outcome.ts";
import { postWebhook } from "../../webhooks/delivery.ts";
import type { EventStreams } from "../../webhooks/event-stream.ts";
import { INTERVIEW_COMPLETED } from "../../webhooks/payload.ts";
import { newEvent } from "../../webhooks/new-event.ts";
import { retryDelayAfter } from "../../webhooks/schedule.ts";
import type { WebhookDelivery, WebhookDispatcher } from "../../webhooks/types.ts";
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
  const { backend, clock, logger } = o;
  const db = backend.pool;
  const owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const maxTotal = o.maxConcurrent ?? 64;
  const perTenant = o.maxConcurrentPerTenant ?? 16;
  const perProject = o.maxConcurrentPerProject ?? 8;
  const eventsKept = o.eventsKeptPerTenant ?? 10_000;
  const attemptsKept = o.maxAttemptsPerProject ?? 1_000;
  const pollMs = o.pollMs ?? 1_000;
  const inFlight = new Map<string, AbortController>();
  const running = new Set<Promise<void>>();
  let closed = false;
  let timer: NodeJS.Timeout | null = null;
  let ticking: Promise<void> | null = null;
  let again = false;
  let known = { waiting: 0, queued: 0 };
  let listener: import("pg").Client | null = null;

  const insertAttempt = (ev: { id: string; project: Project; interviewId: string }, attempt: number, trigger: WebhookDelivery["trigger"], url: string, dueMs: number) => {
    const id = randomUUID();
    backend.enqueue(INSERT_ATTEMPT, [id, ev.project.tenant, ev.project.id, ev.id, ev.interviewId, attempt, trigger, url, dueMs]);
    return id;
  };

  /** The event of a row, bound to its project (null: a project the database no longer has). */
  const eventOf = async (r: EventRow): Promise<EventDelivery | null> => {
    const project = await o.projects.byId(r.project_id);
    if (!project) return null;
    return { id: r.id, project, interviewId: r.interview_id, url: r.url, secret: r.secret, version: r.version, body: Buffer.from(r.body, "utf8"), headers: JSON.parse(r.headers) };
  };

  async function attemptOf(project: Project, attemptId: string): Promise<{ record: WebhookDelivery; ev: EventDelivery }> {
    const { rows } = await db.query<AttemptRow & { e: string | null }>(
      "SELECT a.*, row_to_json(e)::text AS e FROM attempts a LEFT JOIN events e ON e.id = a.event_id WHERE a.id = $1 AND a.project_id = $2",
      [attemptId, project.id],
    );
    const ev = rows[0]?.e ? await eventOf(JSON.parse(rows[0].e) as EventRow) : null;
    if (!rows[0] || !ev) throw notFound(`No such delivery: ${attemptId}`);
    return { record: recordOf(rows[0]), ev };
  }

  /** Wakes the claim loop now (a notice, a finished attempt) or at `atMs`. */
  function wake(atMs?: number): void {
    if (closed) return;
    const delay = atMs === undefined ? 0 : Math.max(0, Math.min(pollMs, atMs - clock.now()));
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      void tick();
    }, delay);
    timer.unref();
  }

  function tick(): Promise<void> {
    if (ticking) {
      again = true;
      return ticking;
    }
    ticking = claimAndSend()
      .catch((err) => {
        logger?.warn({ err: (err as Error).message }, "webhook claim failed; retrying");
        // The database is away: look again after a poll's pause (a notification may never come).
        wake(clock.now() + pollMs);
      })
      .finally(() => {
        ticking = null;
        if (again) {
          again = false;
          wake();
        }
      });
    return ticking;
  }

  async function claimAndSend(): Promise<void> {
    if (closed) return;
    await recoverExpired();
    const room = maxTotal - inFlight.size;
    const claimed: Array<AttemptRow & { e: string }> = [];
    const due = room > 0 ? (await db.query<{ tenant: string }>(DUE_TENANTS, [clock.now()])).rows.map((r) => r.tenant) : [];
    // No transaction when nothing is due: the claim runs every few milliseconds while a cap is full.
    if (due.length > 0) {
      const client = await db.connect();
      try {
        await client.query("BEGIN");
        const now = clock.now();
        const tenants = (await client.query<{ tenant: string }>(CLAIM_TENANTS, [due])).rows.map((r) => r.tenant);
        const chosen = tenants.length > 0 ? await pickFairly(client, now, room, tenants) : [];
        if (chosen.length > 0) {
          const { rows: taken } = await client.query<AttemptRow & { e: string }>(
            `UPDATE attempts a SET status = 'in_flight', sent_ms = $2, lease_ms = $3, owner = $4 FROM events e
             WHERE a.id = ANY($1::text[]) AND e.id = a.event_id RETURNING a.*, row_to_json(e)::text AS e`,
            [chosen, now, now + o.timeoutMs + LEASE_MARGIN_MS, owner],
          );
          claimed.push(...taken);
        }
        await client.query("COMMIT");
      } catch (err) {
        await client.query("ROLLBACK").catch(() => {});
        throw err;
      } finally {
        client.release();
      }
    }
    for (const row of claimed) start(row);
    await scheduleNext();
  }

  /**
   * Which due attempts of `tenants` this process sends now (at most `room`): the fair queue of one process
   * (webhooks/fair-queue.ts) over their due rows, with what every process has on the wire for them already counted
   * against the caps. Under their rows' locks, so the counts hold until the chosen rows are marked.
   */
  async function pickFairly(client: import("pg").PoolClient, now: number, room: number, tenants: string[]): Promise<string[]> {
    const { rows: wire } = await client.query<{ tenant: string; project_id: string; n: number }>(ON_THE_WIRE, [tenants]);
    const { rows: due } = await client.query<{ id: string; tenant: string; project_id: string }>(DUE_CANDIDATES, [now, perProject, tenants]);
    if (due.length === 0) return [];
    const onWire = wire.reduce((sum, w) => sum + w.n, 0);
    const queue = new FairQueue<Slotted & { id?: string }>({ total: onWire + room, perTenant, perProject }, (x) => x);
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
  async function recoverExpired(): Promise<void> {
    const now = clock.now();
    const { rows } = await db.query<{ tenant: string }>("SELECT DISTINCT tenant FROM attempts WHERE status = 'in_flight' AND lease_ms < $1", [now]);
    // Each tenant's in a change of its own, rows locked: two processes never recover the same attempt (the second skips
    // or finds it recovered), and no tenant waits for another's.
    await Promise.all(rows.map(({ tenant }) => backend.write(async () => {
      const { rows: lost } = await backend.query<AttemptRow & { e: string }>(
        `SELECT a.*, row_to_json(e)::text AS e FROM attempts a JOIN events e ON e.id = a.event_id
         WHERE a.tenant = $2 AND a.status = 'in_flight' AND a.lease_ms < $1 FOR UPDATE OF a SKIP LOCKED`,
        [now, tenant],
      );
      for (const row of lost) {
        const ev = await eventOf(JSON.parse(row.e) as EventRow);
        backend.enqueue("UPDATE attempts SET status = 'failed', error = $2, finished_ms = $3, lease_ms = NULL WHERE id = $1 AND status = 'in_flight'", [
          row.id, "interrupted: the sandbox process sending this attempt stopped", now,
        ]);
        if (ev && row.trigger !== "resend") await retry(ev, row.attempt, now);
      }
    })));
  }

  /** Writes the retry after a failed attempt, in the change in progress (none once retries are exhausted or stale). */
  async function retry(ev: EventDelivery, failedAttempt: number, failedAtMs: number): Promise<void> {
    const delay = retryDelayAfter(o.retryDelaysMs, failedAttempt);
    if (delay === null) {
      logger?.warn({ event_id: ev.id, url: ev.url }, "webhook retries exhausted; event dropped");
      return;
    }
    if (staleReason(ev, await o.webhookSettings.get(ev.project))) return;
    insertAttempt(ev, failedAttempt + 1, "retry", ev.url, failedAtMs + delay);
    backend.enqueue(NOTIFY, [WAKE]);
  }

  function start(row: AttemptRow & { e: string }): void {
    const controller = new AbortController();
    inFlight.set(row.id, controller);
    const done = eventOf(JSON.parse(row.e) as EventRow)
      .then((stored) => send(row, stored, controller))
      .catch((err) => logger?.error({ err: (err as Error).message, event_id: row.event_id }, "webhook delivery bookkeeping failed"))
      .finally(() => {
        inFlight.delete(row.id);
        running.delete(done);
        wake();
      });
    running.add(done);
  }

  async function send(row: AttemptRow, stored: EventDelivery | null, controller: AbortController): Promise<void> {
    const finish = (fields: Pick<WebhookDelivery, "status" | "response_status" | "error">, then?: (now: number) => Promise<void>) =>
      backend.write(async () => {
        const now = clock.now();
        const done = await backend.query("UPDATE attempts SET status = $3, response_status = $4, error = $5, finished_ms = $6, lease_ms = NULL WHERE id = $1 AND owner = $2 AND status = 'in_flight'", [
          row.id, owner, fields.status, fields.response_status, fields.error, now,
        ]);
        // No row: the lease ran out and another process already counted this attempt failed and retried it.
        if (done.rowCount === 1) await then?.(now);
      });
    if (!stored) return void (await finish({ status: "cancelled", response_status: null, error: "cancelled: the project no longer exists" }));
    // A resend goes to the URL it was made for; other attempts to the event's own.
    const ev = row.url === stored.url ? stored : { ...stored, url: row.url };
    const stale = row.trigger === "resend" ? null : staleReason(ev, await o.webhookSettings.get(ev.project));
    if (stale) return void (await finish({ status: "cancelled", response_status: null, error: stale }));
    // An injected endpoint failure: consumed by one UPDATE where the counters are kept, so two processes never take the same one.
    const injected = (await o.faults?.takeWebhookFailure(ev.project.id)) ?? null;
    const outcome = injected !== null
      ? { kind: "answered" as const, status: injected }
      : await postWebhook({ url: ev.url, body: ev.body, headers: ev.headers, timeoutMs: o.timeoutMs, signal: controller.signal, extraCa: readCa(o.caFile), addressPolicy: o.addressPolicy });
    // Cut by this process's shutdown: its lease is given up, so another process retries it at once.
    if (outcome.kind === "aborted") {
      await db.query("UPDATE attempts SET lease_ms = 0 WHERE id = $1 AND owner = $2 AND status = 'in_flight'", [row.id, owner]);
      return;
    }
    const fields = outcomeFields(outcome);
    if (injected !== null && fields.status === "failed") fields.error = `http_${injected} (simulated: /_sim/faults webhook_failures)`;
    await finish(fields, async (now) => {
      if (fields.status !== "failed" || row.trigger === "resend") return;
      logger?.warn({ event_id: ev.id, attempt: row.attempt, url: ev.url, error: fields.error }, "webhook attempt failed");
      await retry(ev, row.attempt, now);
    });
  }

  /** Arms the wake-up for the next due attempt (at most `pollMs` away) and refreshes the counts for the logs. */
  async function scheduleNext(): Promise<void> {
    if (closed) return;
    const { rows } = await db.query<{ next: string | null; waiting: string; queued: string }>(
      "SELECT MIN(scheduled_ms) AS next, COUNT(*) FILTER (WHERE scheduled_ms > $1) AS waiting, COUNT(*) FILTER (WHERE scheduled_ms <= $1) AS queued FROM attempts WHERE status = 'pending'",
      [clock.now()],
    );
    known = { waiting: Number(rows[0].waiting), queued: Number(rows[0].queued) };
    const now = clock.now();
    // Due attempts left behind (another process was claiming for their tenant, or a cap or this process is full): look
    // again shortly, not at once (a cap frees when an attempt on any process finishes, which notifies no one).
    const next = rows[0].next === null ? now + pollMs : Number(rows[0].next);
    wake(next <= now ? now + CONTENDED_MS : next);
  }

  async function listen(): Promise<void> {
    if (closed) return;
    const pg = (await import("pg")).default;
    const client = new pg.Client({ connectionString: backend.url });
    client.on("notification", () => wake());
    client.on("error", () => {
      client.end().catch(() => {});
      if (!closed) setTimeout(() => void listen(), 500).unref();
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${WAKE}`);
      listener = client;
      wake();
    } catch {
      client.end().catch(() => {});
      if (!closed) setTimeout(() => void listen(), 500).unref();
    }
  }

  return {
    async interviewCompleted(project, interview, study) {
      if (closed) return;
      const now = clock.now();
      // Read in the change that completed the interview: the event is bound to the webhook as it is then.
      const webhook = await o.webhookSettings.get(project);
      const secret = webhook || !o.listeners ? undefined : await o.listeners.secret(project);
      const { delivery: ev, streamed } = newEvent(project, webhook, interview, study, now, secret === undefined ? undefined : () => secret);
      if (streamed) await o.streams?.publish(project.id, streamed);
      if (!ev) return;
      // In the change that completed the interview: the event exists exactly when the completion does.
      backend.enqueue("INSERT INTO events (id, tenant, project_id, interview_id, url, secret, version, body, headers) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)", [
        ev.id, project.tenant, project.id, ev.interviewId, ev.url, ev.secret, ev.version, ev.body.toString("utf8"), JSON.stringify(ev.headers),
      ]);
      backend.enqueue("DELETE FROM events WHERE tenant = $1 AND ord <= (SELECT ord FROM events WHERE tenant = $1 ORDER BY ord DESC OFFSET $2 LIMIT 1)", [project.tenant, eventsKept]);
      insertAttempt(ev, 1, "event", ev.url, now);
      backend.enqueue("DELETE FROM attempts WHERE project_id = $1 AND status NOT IN ('pending', 'in_flight') AND id IN (SELECT id FROM attempts WHERE project_id = $1 ORDER BY scheduled_ms DESC, id DESC OFFSET $2)", [project.id, attemptsKept]);
      backend.enqueue(NOTIFY, [WAKE]);
    },

    async webhookChanged(project, current) {
      // Pending attempts of a replaced or deleted webhook never go out; an identical PUT keeps them. Which ones are
      // stale is staleReason's rule, the one the dispatcher of one process applies, read here from their rows.
      const { rows } = await backend.query<{ id: string; e: string }>(
        `SELECT a.id, row_to_json(e)::text AS e FROM attempts a JOIN events e ON e.id = a.event_id
         WHERE a.project_id = $1 AND a.status = 'pending' AND a.trigger <> 'resend' FOR UPDATE OF a`,
        [project.id],
      );
      // One statement per reason, however many attempts it cancels.
      const byReason = new Map<string, string[]>();
      for (const r of rows) {
        const ev = await eventOf(JSON.parse(r.e) as EventRow);
        const reason = ev && staleReason(ev, current);
        if (reason) byReason.set(reason, [...(byReason.get(reason) ?? []), r.id]);
      }
      const now = clock.now();
      for (const [reason, ids] of byReason) {
        backend.enqueue("UPDATE attempts SET status = 'cancelled', error = $2, finished_ms = $3 WHERE id = ANY($1::text[]) AND status = 'pending'", [ids, reason, now]);
      }
    },

    async attempts(project) {
      const { rows } = await db.query<AttemptRow>("SELECT * FROM attempts WHERE project_id = $1 ORDER BY scheduled_ms, id", [project.id]);
      return rows.map(recordOf);
    },

    async request(project, attemptId) {
      const { record, ev } = await attemptOf(project, attemptId);
      return { delivery_id: record.id, event_id: ev.id, url: record.url, headers: { ...ev.headers }, body: ev.body.toString("utf8") };
    },

    async resend(project, attemptId) {
      if (closed) throw new ApiError(503, "api_error", "The server is shutting down", undefined, { "Retry-After": "1" });
      const { ev } = await attemptOf(project, attemptId);
      const webhook = await o.webhookSettings.get(project);
      if (!webhook) throw conflict("No webhook is configured: PUT /v1/webhooks first");
      const now = clock.now();
      // The event's row locked until this change commits: two resends at once number their attempts one after the other.
      await backend.query("SELECT 1 FROM events WHERE id = $1 FOR UPDATE", [ev.id]);
      const { rows } = await backend.query<{ m: number }>("SELECT MAX(attempt) AS m FROM attempts WHERE event_id = $1", [ev.id]);
      const attempt = (rows[0]?.m ?? 0) + 1;
      const id = insertAttempt(ev, attempt, "resend", webhook.url, now);
      backend.enqueue(NOTIFY, [WAKE]);
      await o.streams?.publish(project.id, { event_id: ev.id, event: INTERVIEW_COMPLETED, interview_id: ev.interviewId, reason: "resend", headers: ev.headers, body: ev.body.toString("utf8") });
      return {
        id, object: "webhook_delivery", event_id: ev.id, event: INTERVIEW_COMPLETED, interview_id: ev.interviewId, attempt, trigger: "resend", url: webhook.url,
        status: "pending", response_status: null, error: null, scheduled_at: iso(now), sent_at: null, finished_at: null,
      };
    },

    pending() {
      return { ...known, inFlight: inFlight.size };
    },

    restore() {
      void listen();
      wake();
    },

    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      await ticking?.catch(() => {});
      for (const c of inFlight.values()) c.abort();
      await Promise.allSettled([...running]);
      await listener?.end().catch(() => {});
    },
  };
}
