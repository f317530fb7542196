/**
 * The sandbox's state in PostgreSQL (`--database-url`, `DATABASE_URL`), shared by several sandbox processes behind
 * any load balancer.
 *
 * Every resource is rows of its own table, queried per request and held by no process: studies, interviews, chats and
 * messages, prompt events, created projects and their keys' digests, webhooks, listener secrets and forwards, fault
 * settings, the planted and project quotas (studies.ts, interviews.ts, projects.ts, ... beside this file). Nothing is
 * written to a change log: a change of them (`rowsOnly`) is a plain transaction whose own statements keep the
 * invariants (a quota row's constraint, a row locked while it changes), with no advisory lock and no catch-up; the
 * statements whose answer it does not need go with its COMMIT in one round trip (`atCommit`).
 *
 * One thing every process still holds: the delivery stream's numbered events (webhooks/event-stream.ts), so a listener
 * on any process gets every event and resumes anywhere with `Last-Event-ID`.
 * - A change that numbers an event (an interview completed, a resend) runs under its tenant's transaction-scoped
 *   advisory lock (`write`; the log's lock held shared): the process applies every event it has not seen, numbers the
 *   new one and commits before the caller answers, so ids never repeat, and tenants never wait for each other.
 * - Changes of different tenants commit in any order, so a catch-up goes by transaction id: it reads the stream rows of
 *   transactions from its horizon (`pg_snapshot_xmin`: every id below is finished) on, skips those it applied, and
 *   moves the horizon to its snapshot's (one indexed statement). A read of the stream (`sync`; http/router.ts) catches
 *   up first; `LISTEN`/`NOTIFY` wakes idle processes, so their listeners follow at once.
 * - A change whose commit fails after it numbered an event leaves this process unsure of its numbering: it stops
 *   writing, and main.ts builds the app again from the database (reloading-app.ts).
 *
 * Webhook events and attempts are rows (`events`, `attempts`) that stores/postgres/dispatcher.ts claims with
 * `FOR UPDATE SKIP LOCKED`, and so are the simulated interviews' timers (`timers`, stores/postgres/timers.ts).
 * Migrations (server/migrations, node-pg-migrate) run at start-up under node-pg-migrate's advisory lock: processes
 * starting together wait for the first one's. Every table is in the `sandbox` schema, created if missing.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import pg from "pg";
import { runner } from "node-pg-migrate";
import type { Logger } from "pino";
import { assetPath } from "../../../../lib/assets.ts";
import type { Follower, Journal, Op, StoredStreamEvent } from "../journal.ts";

/** Where the sandbox's tables are, in the database the URL names. */
export const SCHEMA = "sandbox";
/**
 * The log's advisory lock: a tenant's change holds it shared (with that tenant's own lock, exclusive), so tenants never
 * wait for each other; compaction, which rewrites every tenant's changes, holds it exclusive.
 */
const LOG_LOCK = 7_724_120_001;
const TENANT_LOCK = "SELECT pg_advisory_xact_lock(hashtextextended('sandbox tenant ' || $1, 0))";
const CHANNEL = "sandbox_changes";

/** Runs a query in the change's own transaction. */
export type Query = <R extends pg.QueryResultRow>(text: string, values: unknown[]) => Promise<pg.QueryResult<R>>;

type Statement = { text: string; values: unknown[] };

/**
 * A statement of a change of rows only sent with its COMMIT, in one round trip, so a hot row it updates (a tenant's
 * quota) is locked for the time the database takes to run it, not for a round trip to a busy process and back. `sql`
 * has its values written in (no parameters in a string of several statements); `refusal` says what its failure means:
 * an error answered for the change (a 409), or null for a failure of the database. It runs after the rollback.
 */
export interface WithCommit {
  sql: string;
  refusal: (err: unknown, query: Query) => Promise<Error | null>;
}

/** A statement refused the change: answered as the handler's own error, not as the database's. */
class Refused extends Error {
  constructor(readonly answer: Error) {
    super(answer.message);
  }
}

/**
 * `text` with its values written in, for a string of several statements (which takes no parameters): strings as
 * quoted literals, whole numbers and booleans as they are, arrays of strings as arrays of quoted literals; anything
 * else is refused.
 */
export function inline(text: string, values: unknown[]): string {
  return text.replace(/\$(\d+)/g, (_, n: string) => {
    const v = values[Number(n) - 1];
    if (v === null) return "NULL";
    if (typeof v === "string") return pg.escapeLiteral(v);
    if (typeof v === "number" && Number.isSafeInteger(v)) return String(v);
    if (typeof v === "boolean") return v ? "true" : "false";
    // An array of strings (`= ANY($1::text[])`): an array literal of quoted strings ('{}' when empty, typed by its cast).
    if (Array.isArray(v) && v.every((x) => typeof x === "string")) return v.length === 0 ? "'{}'" : `ARRAY[${v.map((x) => pg.escapeLiteral(x)).join(", ")}]`;
    throw new Error(`cannot write ${typeof v} $${n} into a statement`);
  });
}

async function run(client: pg.PoolClient, s: Statement): Promise<void> {
  await client.query(s.text, s.values);
}

/** One change in progress: its connection, and the statements it writes at commit. */
interface Scope {
  client: pg.PoolClient;
  statements: Statement[];
  /** False once committed or rolled back: a timer armed inside a change inherits its async context, not the change. */
  open: boolean;
  /** What runs once the change is committed (never when it is not). */
  committed: Array<() => void>;
  /** A change of rows only (`Journal.write`'s `rowsOnly`): no lock, no catch-up, and no change to the log. */
  rowsOnly: boolean;
  /** Sent with the COMMIT (rows only). */
  withCommit: WithCommit[];
  /** Whether BEGIN was sent; a change of rows only sends it with its first statement, or with its COMMIT. */
  began: boolean;
  begin(): Promise<void>;
}

/** The database cannot be used now (stopped, restarting, unreachable): the request is answered 503 with Retry-After. */
export class StoreUnavailable extends Error {}

/** This process closed its store (a shutdown, or a reload that replaced it): nothing more is written through it. */
export class StoreClosed extends StoreUnavailable {}

/** A failure of the database itself, as StoreUnavailable; any other error (a handler's 404) as it is. */
export function unavailable(err: unknown): Error {
  if (err instanceof StoreUnavailable) return err;
  return new StoreUnavailable(`the database is unavailable: ${(err as Error)?.message ?? String(err)}`, { cause: err });
}

/** The URL without its password, for logs and the banner. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "(unparsable database URL)";
  }
}

export interface PgJournalOptions {
  /** Values written at the first start only (the fixtures' time shift, the stream epoch, the token key). */
  initialMeta: Record<string, string>;
  logger?: Logger;
  /** Pooled connections per process (default 6; two more only listen: see config.ts). */
  poolSize?: number;
  /** How often an idle process looks for changes when no notification came (default 1 s). */
  pollMs?: number;
}

export class PgJournal implements Journal {
  readonly kind = "postgres";
  readonly durable = true;
  readonly shared = true;
  readonly dir: string;
  readonly pool: pg.Pool;
  private readonly scopes = new AsyncLocalStorage<Scope>();
  private readonly meta = new Map<string, string>();
  private loadedStream: StoredStreamEvent[] = [];
  /**
   * Catch-up by transaction id: every transaction below `horizon` is finished and applied here; `appliedAbove` holds
   * the ids at or above it already applied (or written by this process), whose rows a catch-up skips.
   */
  private horizon = "0";
  private readonly appliedAbove = new Set<string>();
  private follower: Follower | null = null;
  private listener: pg.Client | null = null;
  private poll: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private queued: Promise<void> | null = null;
  private closed = false;
  private migrated = false;
  /** Set when memory and database may differ (a failed commit): /readyz says so from then on. */
  private diverged: string | null = null;
  /** Told once when this process's memory may differ from the database (main.ts reloads the state from it). */
  private divergedListener: ((why: string) => void) | null = null;
  /** Writes made outside any change: written in order, one at a time. */
  private detachedChain: Promise<void> = Promise.resolve();

  /** The change in progress in this async context, if it is still open. */
  private current(): Scope | undefined {
    const scope = this.scopes.getStore();
    return scope?.open ? scope : undefined;
  }

  private constructor(
    readonly url: string,
    private readonly options: PgJournalOptions,
  ) {
    this.dir = redactUrl(url);
    // Every table lives in the `sandbox` schema: a database shared with other things (a DATABASE_URL set for an app)
    // is not touched outside it.
    this.pool = new pg.Pool({ connectionString: url, max: options.poolSize ?? 6, options: `-c search_path=${SCHEMA}` });
    // A connection dropped by the server (PostgreSQL stopped or restarted) must not crash the process: idle ones are
    // the pool's "error"; one checked out between two queries emits "error" on itself, which without a listener
    // would be an uncaught exception. The query in progress, if any, fails on its own and its caller answers.
    this.pool.on("error", (err) => options.logger?.warn({ err: err.message }, "database connection lost"));
    this.pool.on("connect", (client) => client.on("error", (err) => options.logger?.warn({ err: err.message }, "database connection lost")));
  }

  /** Connects, migrates, and loads the state; throws StoreUnavailable with the reason when the database cannot be used. */
  static async open(url: string, options: PgJournalOptions): Promise<PgJournal> {
    const j = new PgJournal(url, options);
    try {
      await j.migrate();
      await j.load();
    } catch (err) {
      await j.pool.end().catch(() => {});
      throw new StoreUnavailable(`Cannot use the database at ${j.dir}: ${(err as Error).message}`);
    }
    return j;
  }

  private async migrate(): Promise<void> {
    const client = await this.pool.connect();
    try {
      await runner({
        dbClient: client,
        dir: assetPath("server/migrations"),
        direction: "up",
        migrationsTable: "sandbox_migrations",
        schema: SCHEMA,
        createSchema: true,
        migrationsSchema: SCHEMA,
        createMigrationsSchema: true,
        count: Infinity,
        // Processes starting together: the others wait for the first one's migrations, then find nothing to do.
        advisoryLockMode: "wait",
        log: (msg) => this.options.logger?.debug({ msg }, "migration"),
        logger: { debug: () => {}, info: () => {}, warn: (m: string) => this.options.logger?.warn(m), error: (m: string) => this.options.logger?.error(m) },
      });
      this.migrated = true;
    } finally {
      client.release();
    }
  }

  private async load(): Promise<void> {
    for (const [key, value] of Object.entries(this.options.initialMeta)) {
      await this.pool.query("INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING", [key, value]);
    }
    for (const r of (await this.pool.query<{ key: string; value: string }>("SELECT key, value FROM meta")).rows) this.meta.set(r.key, r.value);
    // One snapshot of the stream's events up to the highest number committed when it was taken.
    const client = await this.pool.connect();
    try {
      await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ");
      const head = await client.query<{ xmin: string }>("SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS xmin");
      const stream = await client.query<{ seq: string; project_id: string; event: string; xid: string }>("SELECT seq, project_id, event, xid::text AS xid FROM stream ORDER BY seq");
      await client.query("COMMIT");
      this.loadedStream = stream.rows.map((r) => ({ project_id: r.project_id, event: JSON.parse(r.event) }));
      // What the snapshot saw of transactions at or above its horizon is applied; the rest of them come later.
      this.horizon = head.rows[0].xmin;
      for (const r of stream.rows) if (BigInt(r.xid) >= BigInt(this.horizon)) this.appliedAbove.add(r.xid);
    } catch (err) {
      await client.query("ROLLBACK").catch(() => {});
      throw err;
    } finally {
      client.release();
    }
  }

  /** Starts following other processes' changes: a listening connection, and a slow poll in case a notice is lost. */
  follow(follower: Follower): void {
    this.follower = follower;
    void this.listen();
    this.poll = setInterval(() => void this.sync().catch(() => {}), this.options.pollMs ?? 1_000);
    this.poll.unref();
  }

  private async listen(): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client({ connectionString: this.url });
    client.on("notification", () => void this.sync().catch(() => {}));
    client.on("error", () => {
      // Reconnects after a pause; the poll covers the gap.
      if (this.listener === client) this.listener = null;
      client.end().catch(() => {});
      setTimeout(() => void this.listen(), 500).unref();
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
      this.listener = client;
      // Whatever was committed while no connection listened.
      await this.sync();
    } catch {
      client.end().catch(() => {});
      if (!this.closed) setTimeout(() => void this.listen(), 500).unref();
    }
  }

  /**
   * Applies every change committed before this call. Calls made while a catch-up runs share the next one (never the
   * running one, which may have read before their caller's write was acknowledged elsewhere).
   */
  sync(): Promise<void> {
    if (this.closed) return Promise.reject(new StoreClosed("the store is closed"));
    if (this.queued) return this.queued;
    if (this.running) {
      this.queued = this.running.catch(() => {}).then(() => {
        this.queued = null;
        return this.startSync();
      });
      return this.queued;
    }
    return this.startSync();
  }

  private startSync(): Promise<void> {
    const run = this.catchUp(this.pool).catch((err) => {
      throw unavailable(err);
    }).finally(() => {
      if (this.running === run) this.running = null;
    });
    this.running = run;
    return run;
  }

  /**
   * Reads and applies the changes of transactions from the horizon on that this process has not applied (through
   * `db`: the pool, or a change's own connection), in their numbers' order; then moves the horizon to the snapshot's.
   * One statement, so the rows and the horizon come from one snapshot.
   */
  private async catchUp(db: pg.Pool | pg.PoolClient): Promise<void> {
    const from = this.horizon;
    const { rows } = await db.query<{ xmin: string; seq: string | null; project_id: string | null; body: string | null; xid: string | null }>(
      `WITH h AS (SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS xmin),
            r AS (SELECT seq, project_id, event AS body, xid::text AS xid FROM stream WHERE xid >= $1::xid8)
       SELECT h.xmin, r.* FROM h LEFT JOIN r ON true ORDER BY r.seq`,
      [from],
    );
    // Synchronous from here: no other catch-up of this process runs between the check and the apply.
    const fresh = new Set<string>();
    const horizon = BigInt(this.horizon);
    for (const r of rows) {
      if (r.seq === null || r.xid === null) continue;
      // Below the horizon another catch-up reached meanwhile: applied by it (its ids no longer listed).
      if (BigInt(r.xid) < horizon) continue;
      if (this.appliedAbove.has(r.xid) && !fresh.has(r.xid)) continue;
      if (!this.appliedAbove.has(r.xid)) {
        this.appliedAbove.add(r.xid);
        fresh.add(r.xid);
      }
      try {
        this.follower?.streamEvent({ project_id: r.project_id!, event: JSON.parse(r.body!) });
      } catch (err) {
        // A change this process cannot apply is one it will never have: it no longer matches the others.
        this.diverge(`change ${r.seq} could not be applied (${(err as Error).message})`);
      }
    }
    const xmin = rows[0]?.xmin;
    if (xmin && BigInt(xmin) > BigInt(this.horizon)) {
      this.horizon = xmin;
      for (const x of this.appliedAbove) if (BigInt(x) < BigInt(xmin)) this.appliedAbove.delete(x);
    }
  }

  /** From now on /readyz says this process is not ready (a balancer stops sending it requests), with why. */
  private diverge(why: string): void {
    if (this.diverged) return;
    this.diverged = `${why}; this process's memory may differ from the database until it reads it again`;
    this.options.logger?.error({ why }, "this process no longer matches the database and reports not ready");
    this.divergedListener?.(why);
  }

  /** `fn` is told (once) when this process's memory may no longer match the database. */
  onDiverged(fn: (why: string) => void): void {
    this.divergedListener = fn;
    if (this.diverged) fn(this.diverged);
  }

  afterCommit(fn: () => void): void {
    const scope = this.current();
    if (scope) scope.committed.push(fn);
    else fn();
  }

  write<T>(fn: () => T, tenant?: string, admit?: () => Promise<void>, rowsOnly = false): T | Promise<Awaited<T>> {
    // A change inside a change (a completion a request asked for) is part of it.
    if (this.current()) return fn();
    if (rowsOnly) return (admit ? admit() : Promise.resolve()).then(() => this.changeNow(fn, tenant ?? null, true));
    return this.change(fn, tenant ?? null, admit);
  }

  /** `tenant`: the one tenant whose state the change reads and writes (its lock only); null: any (the log's lock). */
  private change<T>(fn: () => T, tenant: string | null, admit?: () => Promise<void>): Promise<Awaited<T>> {
    const now = () => this.changeNow(fn, tenant);
    const run = admit ? () => admit().then(now) : now;
    return tenant === null ? run() : this.inTurn(tenant, run);
  }

  /** Per tenant, the end of the last change this process queued. */
  private readonly turns = new Map<string, Promise<unknown>>();

  /**
   * One change per tenant at a time in this process: two would wait on the tenant's lock anyway, each holding a
   * pooled connection, and a flood of one tenant's writes would take every connection another tenant's change needs.
   */
  private inTurn<R>(tenant: string, run: () => Promise<R>): Promise<R> {
    const mine = (this.turns.get(tenant) ?? Promise.resolve()).then(run);
    const tail = mine.catch(() => {});
    this.turns.set(tenant, tail);
    void tail.then(() => {
      if (this.turns.get(tenant) === tail) this.turns.delete(tenant);
    });
    return mine;
  }

  private async changeNow<T>(fn: () => T, tenant: string | null, rowsOnly = false): Promise<Awaited<T>> {
    if (this.closed) throw new StoreClosed("the store is closed");
    // Memory may hold what the database does not (a phantom interview whose timers still fire): nothing more is
    // written from it. The app built on the state read again writes instead.
    if (this.diverged) throw new StoreClosed(`this process reads its state again: ${this.diverged}`);
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      throw unavailable(err);
    }
    let beginning: Promise<void> | null = null;
    const scope: Scope = {
      client,
      statements: [],
      open: true,
      committed: [],
      rowsOnly,
      withCommit: [],
      began: false,
      begin: () =>
        (beginning ??= client.query("BEGIN").then(() => {
          scope.began = true;
        })),
    };
    // What the handler throws is its own answer (a 404); anything else that fails is the database.
    let handlerFailed = false;
    let committed: Array<() => void> = [];
    // Set once the handler recorded a change: this process's memory holds it from then on, so a change that is not
    // committed after that leaves memory ahead of the database.
    let inMemory = false;
    try {
      if (rowsOnly) {
        // Rows only: their own statements (a conditional quota update) keep the invariants; nothing held in memory is
        // read. BEGIN goes with the first statement.
      } else {
        await scope.begin();
        if (tenant === null) await client.query("SELECT pg_advisory_xact_lock($1)", [LOG_LOCK]);
        else {
          await client.query("SELECT pg_advisory_xact_lock_shared($1)", [LOG_LOCK]);
          await client.query(TENANT_LOCK, [tenant]);
        }
        await this.catchUp(client);
      }
      let out: T;
      try {
        out = await this.scopes.run(scope, fn);
      } catch (err) {
        handlerFailed = true;
        throw err;
      } finally {
        scope.open = false;
        inMemory = !rowsOnly && scope.statements.length > 0;
      }
      if (rowsOnly) {
        if (scope.statements.length > 0) await scope.begin();
        for (const s of scope.statements) await run(client, s);
        if (scope.withCommit.length > 0) {
          // One round trip: BEGIN (unless a statement sent it), these statements, COMMIT.
          const sql = [...(scope.began ? [] : ["BEGIN"]), ...scope.withCommit.map((w) => w.sql), "COMMIT"].join("; ");
          scope.began = true;
          try {
            await client.query(sql);
          } catch (err) {
            await client.query("ROLLBACK").catch(() => {});
            scope.began = false;
            for (const w of scope.withCommit) {
              // On this connection, out of its transaction now: another from the pool could wait for ever when every
              // one of them is held by a refused change.
              const answer = await w.refusal(err, (text, values) => client.query(text, values));
              if (answer) throw new Refused(answer);
            }
            throw err;
          }
          scope.began = false;
        }
      } else if (scope.statements.length > 0) {
        // This change's rows are this process's own: marked applied before the commit, so a catch-up answered right
        // after it never applies them again.
        const { rows } = await client.query<{ xid: string }>("SELECT pg_current_xact_id()::text AS xid");
        this.appliedAbove.add(rows[0].xid);
        for (const s of scope.statements) await run(client, s);
        await client.query("SELECT pg_notify($1, '')", [CHANNEL]);
      }
      if (scope.began) await client.query("COMMIT");
      committed = scope.committed;
      return out as Awaited<T>;
    } catch (err) {
      // Whether the handler, a statement or the commit failed: what memory holds, the database does not. Said before
      // anything else can run (a catch-up would apply others' stream events over this change's numbers).
      if (inMemory) this.diverge(`a change could not be committed (${(err as Error).message})`);
      // A handler that failed without waiting for its query may have left BEGIN on the way.
      await (beginning as Promise<void> | null)?.catch(() => {});
      if (scope.began) await client.query("ROLLBACK").catch(() => {});
      if (err instanceof Refused) throw err.answer;
      throw handlerFailed ? err : unavailable(err);
    } finally {
      client.release();
      // Outside the try: what runs after the commit can no longer make the change look failed.
      for (const fn of committed) {
        try {
          fn();
        } catch (err) {
          this.options.logger?.error({ err: (err as Error).message }, "an action after a commit failed");
        }
      }
    }
  }

  /** Runs a query now: inside the change in progress (its transaction, its lock) when there is one. */
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values: unknown[]): Promise<pg.QueryResult<R>> {
    const scope = this.current();
    const result = scope ? scope.begin().then(() => scope.client.query<R>(text, values)) : this.pool.query<R>(text, values);
    return result.catch((err) => {
      throw unavailable(err);
    });
  }

  /**
   * A statement whose answer the change does not need: in a change of rows only it is sent with the COMMIT (see
   * WithCommit); in any other change it runs now. `refusal` says what its failure means (null: the database's).
   */
  async atCommit(text: string, values: unknown[], refusal?: WithCommit["refusal"]): Promise<void> {
    const scope = this.current();
    if (scope?.rowsOnly) {
      scope.withCommit.push({ sql: inline(text, values), refusal: refusal ?? (async () => null) });
      return;
    }
    if (!refusal) return void (await this.query(text, values));
    // In a change: a failure ends its transaction, so the refusal reads from a savepoint before the statement.
    if (scope) await this.query("SAVEPOINT at_commit", []);
    try {
      await this.query(text, values);
    } catch (err) {
      if (scope) await this.query("ROLLBACK TO SAVEPOINT at_commit", []);
      throw (await refusal((err as Error).cause ?? err, (t, v) => this.query(t, v))) ?? err;
    }
  }

  /**
   * Adds a statement to the change in progress (a change of rows only sends it with its COMMIT); outside one, writes
   * it on its own (see `detached`).
   */
  enqueue(text: string, values: unknown[]): void {
    const scope = this.current();
    if (scope?.rowsOnly) scope.withCommit.push({ sql: inline(text, values), refusal: async () => null });
    else if (scope) scope.statements.push({ text, values });
    else this.detached({ text, values });
  }

  /**
   * A write made outside any change (a meta value): written in a change of its own, one after another in order.
   */
  private detached(statement: Statement): void {
    this.detachedChain = this.detachedChain
      .then(() =>
        this.change(() => {
          this.current()!.statements.push(statement);
        }, null),
      )
      .catch((err) => this.options.logger?.error({ err: (err as Error).message }, "a change could not be written to the database"));
  }

  /** Nothing is written to a change log on PostgreSQL: every change is rows of the tables it changes. */
  append(op: Op): void {
    throw new Error(`the change log is not written on PostgreSQL (${op.kind}): the change belongs in its table`);
  }

  /** An older version's log is moved into the tables by the first start (fixtures.ts), not replayed. */
  ops(): Op[] {
    return [];
  }

  getMeta(key: string): string | undefined {
    return this.meta.get(key);
  }

  setMeta(key: string, value: string): void {
    this.meta.set(key, value);
    this.enqueue("INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value", [key, value]);
  }

  putStreamEvent(s: StoredStreamEvent): void {
    if (this.current()?.rowsOnly) throw new Error("a change of rows only numbered a stream event");
    this.enqueue("INSERT INTO stream (seq, project_id, n, event) VALUES (nextval('change_seq'), $1, $2, $3)", [s.project_id, s.event.seq, JSON.stringify(s.event)]);
  }

  dropStreamEvents(projectId: string, throughSeq: number): void {
    this.enqueue("DELETE FROM stream WHERE project_id = $1 AND n <= $2", [projectId, throughSeq]);
  }

  streamEvents(): StoredStreamEvent[] {
    const events = this.loadedStream;
    this.loadedStream = [];
    return events;
  }

  /** Statements of one change are one transaction already. */
  atomically<T>(fn: () => T): T {
    return fn();
  }

  async ready(): Promise<string | null> {
    if (this.closed) return "the store is closed";
    if (!this.migrated) return "migrations have not run";
    try {
      await this.pool.query("SELECT 1 FROM sandbox_migrations LIMIT 1");
    } catch (err) {
      return `the database does not answer: ${(err as Error).message}${this.diverged ? `; and ${this.diverged}` : ""}`;
    }
    return this.diverged;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.poll) clearInterval(this.poll);
    const listener = this.listener;
    this.listener = null;
    void this.detachedChain.finally(() => {
      listener?.end().catch(() => {});
      this.pool.end().catch(() => {});
    });
  }
}
