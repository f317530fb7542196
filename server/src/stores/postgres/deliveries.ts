/**
 * The attempt queue of processes sharing one PostgreSQL (`--database-url`): events and attempts are rows
 * (`events`, `attempts`) every process claims from, with `FOR UPDATE SKIP LOCKED`.
 *
 * Why our own `attempts` table, not pg-boss or graphile-worker: the rows are already what the deliveries list shows (a
 * job queue would keep a second copy of every attempt to keep in step), and the fairness rule (slots round the tenants,
 * then round each tenant's projects, with caps per tenant and per project over all processes) is the fair queue of one
 * process (webhooks/fair-queue.ts) applied to those rows under the claim's lock, which neither queue can express.
 *
 * - An event and its first attempt are written in the change that completed the interview; a retry is written in
 *   the same transaction as the failure that asks for it. Nothing is scheduled in memory, so a retry survives the
 *   death of the process that scheduled it.
 * - Each attempt is claimed by exactly one process: a claim locks the rows of the tenants it claims for
 *   (`delivery_tenants`, `FOR UPDATE SKIP LOCKED`), so a tenant's caps count every process's attempts on the wire while
 *   other tenants are claimed elsewhere at the same time (no lock over every tenant); a claimed row carries its owner
 *   and a lease (the timeout plus a margin). A process that found a tenant being claimed by another looks again soon.
 * - A process killed with an attempt on the wire leaves its lease to run out: the next look of any process counts that
 *   attempt failed ("interrupted") and writes its retry. Whether the receiver got it is unknown, so it may arrive
 *   twice; an attempt recorded as answered with a 2xx is never sent again.
 * - A new attempt's commit notifies every process (`LISTEN`), which looks at once.
 */
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import pg from "pg";
import type { Logger } from "pino";
import { iso } from "../../clock.ts";
import type { Project } from "../../model/project.ts";
import { forgottenEvents, forgottenPastCap, type EventDelivery } from "../../webhooks/attempt-outcome.ts";
import { FairQueue, type Caps, type Slotted } from "../../webhooks/fair-queue.ts";
import { INTERVIEW_COMPLETED } from "../../webhooks/payload.ts";
import type { WebhookDelivery } from "../../webhooks/types.ts";
import type { Claimed, Deliveries, Outcome } from "../deliveries.ts";
import type { Projects } from "../projects.ts";
import type { PgBackend } from "./backend.ts";
import { CLAIM_TENANTS, DUE_CANDIDATES, DUE_TENANTS, INSERT_ATTEMPT, ON_THE_WIRE, PROJECT_TURNS, recordOf, SERVED, type AttemptRow, type EventRow } from "./attempt-rows.ts";
import { NOTIFY } from "./channels.ts";

const WAKE = "sandbox_deliveries";
/** How soon a process looks again when due attempts were left (another process was claiming for their tenant, a cap). */
const CONTENDED_MS = 25;
/** Added to the attempt timeout: how long a claim outlives its process. */
const LEASE_MARGIN_MS = 5_000;

type WithEvent = AttemptRow & { e: string };

export interface PgDeliveriesOptions {
  backend: PgBackend;
  /** The projects rows name (a created one is found in its table by any process). */
  projects: Projects;
  caps: Caps;
  /** Per attempt: its lease is this plus a margin. */
  timeoutMs: number;
  eventsKeptPerTenant: number;
  attemptsKeptPerProject: number;
  logger?: Logger;
}

export class PgDeliveries implements Deliveries {
  private readonly backend: PgBackend;
  private readonly db: pg.Pool;
  private readonly owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private listener: pg.Client | null = null;
  private closed = false;
  private wake: () => void = () => {};

  constructor(private readonly o: PgDeliveriesOptions) {
    this.backend = o.backend;
    this.db = o.backend.pool;
  }

  start(_projects: ReadonlyMap<string, Project>, wake: () => void): number {
    this.wake = wake;
    void this.listen();
    return 0;
  }

  private async listen(): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client({ connectionString: this.backend.url });
    const again = () => {
      client.end().catch(() => {});
      if (!this.closed) setTimeout(() => void this.listen(), 500).unref();
    };
    client.on("notification", () => this.wake());
    client.on("error", again);
    try {
      await client.connect();
      await client.query(`LISTEN ${WAKE}`);
      this.listener = client;
      this.wake();
    } catch {
      again();
    }
  }

  /** The event of a row, bound to its project (null: a project the database no longer has). */
  private async eventOf(r: EventRow): Promise<EventDelivery | null> {
    const project = await this.o.projects.byId(r.project_id);
    if (!project) return null;
    return { id: r.id, project, interviewId: r.interview_id, url: r.url, secret: r.secret, version: r.version, body: Buffer.from(r.body, "utf8"), headers: JSON.parse(r.headers) };
  }

  /** A row with its event as a claimed attempt (a resend goes to the URL it was made for); null without its project. */
  private async claimedOf(row: WithEvent): Promise<Claimed | null> {
    const ev = await this.eventOf(JSON.parse(row.e) as EventRow);
    return ev && { record: recordOf(row), ev: row.url === ev.url ? ev : { ...ev, url: row.url }, owner: row.owner ?? "" };
  }

  async addEvent(ev: EventDelivery, nowMs: number): Promise<void> {
    const { tenant } = ev.project;
    this.backend.enqueue("INSERT INTO events (id, tenant, project_id, interview_id, url, secret, version, body, headers) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)", [
      ev.id, tenant, ev.project.id, ev.interviewId, ev.url, ev.secret, ev.version, ev.body.toString("utf8"), JSON.stringify(ev.headers),
    ]);
    // As the memory queue does at every event added: the tenant's events stay within their bound after each one.
    this.backend.afterCommit(() => void this.forgetEventsPastCap(tenant));
    await this.addAttempt(ev, 1, "event", ev.url, nowMs);
  }

  /**
   * The tenant's events past its newest N that attempt-outcome.ts's rule forgets, after the commit that added one. Their
   * rows are locked before their attempts are read, so a resend of one (which locks it too) either comes first and keeps
   * it, or finds it gone.
   */
  private async forgetEventsPastCap(tenant: string): Promise<void> {
    const PAST = "SELECT id FROM events WHERE tenant = $1 ORDER BY ord DESC OFFSET $2";
    // Within the bound (nearly always): one read, no transaction.
    const over = await this.db.query(`${PAST} LIMIT 1`, [tenant, this.o.eventsKeptPerTenant]).catch(() => null);
    if (!over || over.rows.length === 0) return;
    const client = await this.db.connect().catch(() => null);
    if (!client) return;
    try {
      await client.query("BEGIN");
      const past = (await client.query<{ id: string }>(`${PAST} FOR UPDATE`, [tenant, this.o.eventsKeptPerTenant])).rows.map((r) => r.id);
      if (past.length > 0) {
        const { rows } = await client.query<{ event_id: string; status: WebhookDelivery["status"] }>("SELECT event_id, status FROM attempts WHERE event_id = ANY($1::text[])", [past]);
        const ids = forgottenEvents(past.map((id) => ({ id, statuses: rows.filter((r) => r.event_id === id).map((r) => r.status) }))).map((e) => e.id);
        if (ids.length > 0) await client.query("DELETE FROM events WHERE id = ANY($1::text[])", [ids]);
      }
      await client.query("COMMIT");
    } catch (err) {
      await client.query("ROLLBACK").catch(() => undefined);
      this.o.logger?.warn({ err: (err as Error).message, tenant }, "could not forget a tenant's oldest webhook events; the next event tries again");
    } finally {
      client.release();
    }
  }

  async addAttempt(ev: EventDelivery, attempt: number, trigger: WebhookDelivery["trigger"], url: string, dueMs: number): Promise<WebhookDelivery> {
    const id = randomUUID();
    this.backend.enqueue(INSERT_ATTEMPT, [id, ev.project.tenant, ev.project.id, ev.id, ev.interviewId, attempt, trigger, url, dueMs]);
    this.backend.enqueue(NOTIFY, [WAKE]);
    // As the memory queue does at every attempt added: the list stays within its cap after each one.
    this.backend.afterCommit(() => void this.forgetPastCap(ev.project.id));
    return {
      id, object: "webhook_delivery", event_id: ev.id, event: INTERVIEW_COMPLETED, interview_id: ev.interviewId, attempt, trigger, url,
      status: "pending", response_status: null, error: null, scheduled_at: iso(dueMs), sent_at: null, finished_at: null,
    };
  }

  /**
   * The project's attempts past the newest N that attempt-outcome.ts's rule forgets, after the commit of each change that
   * added one (keeping the list bounded is no part of any change).
   */
  private async forgetPastCap(projectId: string): Promise<void> {
    try {
      const { rows } = await this.db.query<{ id: string; status: WebhookDelivery["status"] }>(
        "SELECT id, status FROM attempts WHERE project_id = $1 ORDER BY scheduled_ms DESC, id DESC OFFSET $2",
        [projectId, this.o.attemptsKeptPerProject],
      );
      const ids = forgottenPastCap(rows).map((r) => r.id);
      // A finished attempt stays finished: nothing read here changes before the delete.
      if (ids.length > 0) await this.db.query("DELETE FROM attempts WHERE id = ANY($1::text[])", [ids]);
    } catch (err) {
      this.o.logger?.warn({ err: (err as Error).message, project_id: projectId }, "could not forget a project's oldest webhook attempts; the next event tries again");
    }
  }

  async claim(nowMs: number, room: number): Promise<Claimed[]> {
    const due = (await this.db.query<{ tenant: string }>(DUE_TENANTS, [nowMs])).rows.map((r) => r.tenant);
    // No transaction when nothing is due: the look runs every few milliseconds while a cap is full.
    if (due.length === 0) return [];
    const client = await this.db.connect();
    try {
      await client.query("BEGIN");
      const tenants = (await client.query<{ tenant: string; served: string }>(CLAIM_TENANTS, [due])).rows;
      const chosen = tenants.length > 0 ? await this.pickFairly(client, nowMs, room, tenants) : [];
      let taken: WithEvent[] = [];
      if (chosen.length > 0) {
        ({ rows: taken } = await client.query<WithEvent>(
          `UPDATE attempts a SET status = 'in_flight', sent_ms = $2, lease_ms = $3, owner = $4 FROM events e
           WHERE a.id = ANY($1::text[]) AND e.id = a.event_id RETURNING a.*, row_to_json(e)::text AS e`,
          [chosen, nowMs, nowMs + this.o.timeoutMs + LEASE_MARGIN_MS, this.owner],
        ));
      }
      await client.query("COMMIT");
      const claimed = await Promise.all(taken.map((row) => this.claimedOf(row)));
      // A row whose project is gone is ended here: there is nothing to send it for.
      for (const [i, c] of claimed.entries()) if (!c) await this.db.query("UPDATE attempts SET status = 'cancelled', error = $2, finished_ms = $3, lease_ms = NULL WHERE id = $1", [taken[i].id, "cancelled: the project no longer exists", nowMs]);
      return claimed.filter((c): c is Claimed => c !== null);
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
   * against the caps, its line starting where the last claim of any process left it (the tenants, then each tenant's
   * projects, served longest ago first). Under the tenants' row locks, so the counts and turns hold until the chosen
   * rows are marked.
   */
  private async pickFairly(client: pg.PoolClient, now: number, room: number, tenants: Array<{ tenant: string; served: string }>): Promise<string[]> {
    const { perTenant, perProject } = this.o.caps;
    const names = tenants.map((t) => t.tenant);
    const { rows: wire } = await client.query<{ tenant: string; project_id: string; n: number }>(ON_THE_WIRE, [names]);
    const { rows: due } = await client.query<{ id: string; tenant: string; project_id: string }>(DUE_CANDIDATES, [now, perProject, names]);
    if (due.length === 0) return [];
    const tenantTurn = new Map(tenants.map((t) => [t.tenant, BigInt(t.served)]));
    const { rows: projects } = await client.query<{ project_id: string; served: string }>(PROJECT_TURNS, [[...new Set(due.map((d) => d.project_id))]]);
    const projectTurn = new Map(projects.map((p) => [p.project_id, BigInt(p.served)]));
    const turn = (m: Map<string, bigint>, k: string) => m.get(k) ?? 0n;
    const cmp = (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0);
    // Stable: within a project, oldest due first (DUE_CANDIDATES's order).
    const line = [...due].sort((a, b) => cmp(turn(tenantTurn, a.tenant), turn(tenantTurn, b.tenant)) || cmp(turn(projectTurn, a.project_id), turn(projectTurn, b.project_id)));
    const onWire = wire.reduce((sum, w) => sum + w.n, 0);
    const queue = new FairQueue<Slotted & { id?: string }>({ total: onWire + room, perTenant, perProject }, (x) => x);
    for (const w of wire) for (let i = 0; i < w.n; i++) queue.take({ tenant: w.tenant, project: w.project_id });
    for (const d of line) queue.push({ id: d.id, tenant: d.tenant, project: d.project_id });
    const chosen: string[] = [];
    const servedTenants = new Map<string, number>();
    const servedProjects = new Map<string, number>();
    queue.drain((item) => {
      queue.take(item);
      servedTenants.set(item.tenant, chosen.length);
      servedProjects.set(item.project, chosen.length);
      chosen.push(item.id!);
    });
    if (chosen.length > 0) {
      // This claim's turns come after every earlier claim's: one number from the sequence, then the slot's place in it.
      const { rows } = await client.query<{ base: string }>("SELECT nextval('delivery_turns') * 1024 AS base");
      const at = (i: number) => String(BigInt(rows[0].base) + BigInt(i) + 1n);
      await client.query(SERVED, [[...servedTenants.keys()], [...servedTenants.values()].map(at), [...servedProjects.keys()], [...servedProjects.values()].map(at)]);
    }
    return chosen;
  }

  async finish(c: Claimed, outcome: Outcome, nowMs: number, then: () => Promise<void>): Promise<void> {
    await this.backend.write(async () => {
      const done = await this.backend.query(
        "UPDATE attempts SET status = $3, response_status = $4, error = $5, finished_ms = $6, lease_ms = NULL WHERE id = $1 AND owner = $2 AND status = 'in_flight'",
        [c.record.id, c.owner, outcome.status, outcome.response_status, outcome.error, nowMs],
      );
      // No row: its lease ran out and another process already counted it.
      if (done.rowCount === 1) await then();
    });
  }

  async abandon(c: Claimed): Promise<boolean> {
    // Its lease given up: another process (or this one's next start) counts it interrupted at once.
    await this.db.query("UPDATE attempts SET lease_ms = 0 WHERE id = $1 AND owner = $2 AND status = 'in_flight'", [c.record.id, c.owner]);
    return true;
  }

  async interrupted(nowMs: number): Promise<Claimed[]> {
    const { rows } = await this.db.query<WithEvent>(
      "SELECT a.*, row_to_json(e)::text AS e FROM attempts a JOIN events e ON e.id = a.event_id WHERE a.status = 'in_flight' AND a.lease_ms < $1",
      [nowMs],
    );
    // Two processes may both find one: finish's update (its owner still the one gone, still in flight) counts it once.
    const claimed = await Promise.all(rows.map((row) => this.claimedOf(row)));
    return claimed.filter((c): c is Claimed => c !== null);
  }

  async cancelPending(project: Project, reasonOf: (ev: EventDelivery, record: WebhookDelivery) => string | null, nowMs: number): Promise<void> {
    const { rows } = await this.backend.query<WithEvent>(
      `SELECT a.*, row_to_json(e)::text AS e FROM attempts a JOIN events e ON e.id = a.event_id
       WHERE a.project_id = $1 AND a.status = 'pending' FOR UPDATE OF a`,
      [project.id],
    );
    // One statement per reason, however many attempts it cancels.
    const byReason = new Map<string, string[]>();
    for (const row of rows) {
      const c = await this.claimedOf(row);
      const reason = c && reasonOf(c.ev, c.record);
      if (reason) byReason.set(reason, [...(byReason.get(reason) ?? []), row.id]);
    }
    for (const [reason, ids] of byReason) {
      this.backend.enqueue("UPDATE attempts SET status = 'cancelled', error = $2, finished_ms = $3 WHERE id = ANY($1::text[]) AND status = 'pending'", [ids, reason, nowMs]);
    }
  }

  async list(project: Project): Promise<WebhookDelivery[]> {
    const { rows } = await this.db.query<AttemptRow>("SELECT * FROM attempts WHERE project_id = $1 ORDER BY scheduled_ms, id", [project.id]);
    return rows.map(recordOf);
  }

  async find(project: Project, attemptId: string): Promise<{ record: WebhookDelivery; ev: EventDelivery } | null> {
    const { rows } = await this.db.query<AttemptRow & { e: string | null }>(
      "SELECT a.*, row_to_json(e)::text AS e FROM attempts a LEFT JOIN events e ON e.id = a.event_id WHERE a.id = $1 AND a.project_id = $2",
      [attemptId, project.id],
    );
    const ev = rows[0]?.e ? await this.eventOf(JSON.parse(rows[0].e) as EventRow) : null;
    return rows[0] && ev ? { record: recordOf(rows[0]), ev } : null;
  }

  async attemptNumbers(ev: EventDelivery): Promise<number[] | null> {
    // The event's row locked until this change commits: two resends at once number their attempts one after the other,
    // and the event is not forgotten under the resend (forgetEventsPastCap locks it too).
    const locked = await this.backend.query("SELECT 1 FROM events WHERE id = $1 FOR UPDATE", [ev.id]);
    if (locked.rows.length === 0) return null;
    const { rows } = await this.backend.query<{ attempt: number }>("SELECT attempt FROM attempts WHERE event_id = $1", [ev.id]);
    return rows.map((r) => r.attempt);
  }

  async outlook(nowMs: number): Promise<{ nextMs: number | null; waiting: number; queued: number }> {
    const { rows } = await this.db.query<{ next: string | null; waiting: string; queued: string }>(
      "SELECT MIN(scheduled_ms) AS next, COUNT(*) FILTER (WHERE scheduled_ms > $1) AS waiting, COUNT(*) FILTER (WHERE scheduled_ms <= $1) AS queued FROM attempts WHERE status = 'pending'",
      [nowMs],
    );
    const next = rows[0].next === null ? null : Number(rows[0].next);
    // Due attempts left behind (another process was claiming for their tenant, or a cap or this process is full): look
    // again shortly, not at once (a cap frees when an attempt on any process finishes, which notifies no one).
    return { nextMs: next === null ? null : Math.max(next, nowMs + (next <= nowMs ? CONTENDED_MS : 0)), waiting: Number(rows[0].waiting), queued: Number(rows[0].queued) };
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.listener?.end().catch(() => {});
  }
}
