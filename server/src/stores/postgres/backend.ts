/**
 * The sandbox's state in PostgreSQL (`--database-url`, `DATABASE_URL`), shared by several sandbox processes behind
 * any load balancer.
 *
 * Every resource is rows of its own table, queried per request and held by no process: studies, interviews, chats and
 * messages, prompt events, created projects and their keys' digests, webhooks, listener secrets and forwards, fault
 * settings, the planted and project quotas, the delivery stream's events and each project's last number
 * (studies.ts, interviews.ts, projects.ts, stream.ts, ... beside this file). A process keeps only open streams, held
 * requests and what the contract fixes (the fixtures' projects and releases).
 * - A change is one plain transaction (`write`), committed before the request is answered, so a read on any process
 *   sees every write any process acknowledged. Its own statements keep the invariants: a quota row's constraint, a row
 *   locked while it changes (an interview's transition, a webhook, a project's stream number). No advisory lock over a
 *   tenant or over every tenant, no change log, no catch-up, nothing to compact, nothing that can drift.
 * - The statements whose answer a change does not need go with its COMMIT in one round trip, values bound
 *   (`atCommit`, `enqueue`; one-sync.ts), so a hot row (a tenant's quota) is locked for the time the database takes
 *   to run them. A change made only of those is written with others of its tenant in one transaction under load
 *   (`groupCommit`; batched.ts makes the same statement of all of them one).
 * - A stream event's commit notifies every process with its project's id (`LISTEN`/`NOTIFY` on a connection that only
 *   listens), and each one sends that project's listeners the rows past what it sent them (webhooks/event-stream.ts).
 * Webhook events and attempts are rows (`events`, `attempts`) that stores/postgres/deliveries.ts claims with
 * `FOR UPDATE SKIP LOCKED`, and so are the simulated interviews' timers (`timers`, stores/postgres/timers.ts).
 * Migrations (server/migrations, node-pg-migrate) run at start-up under node-pg-migrate's advisory lock: processes
 * starting together wait for the first one's. Every table is in the `sandbox` schema, created if missing.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import pg from "pg";
import { runner } from "node-pg-migrate";
import type { Logger } from "pino";
import { assetPath } from "../../../../lib/assets.ts";
import { StoreClosed, StoreUnavailable, type Backend, type NotReady } from "../backend.ts";
import { STREAM_CHANNEL } from "./channels.ts";
import { batched } from "./batched.ts";
import { sendAsOne, type Statement } from "./one-sync.ts";

/** Where the sandbox's tables are, in the database the URL names. */
export const SCHEMA = "sandbox";
/** Runs a query in the change's own transaction. */
export type Query = <R extends pg.QueryResultRow>(text: string, values: unknown[]) => Promise<pg.QueryResult<R>>;

/**
 * A statement of a change sent with its COMMIT, in the same write to the connection (one-sync.ts), so a hot
 * row it updates (a tenant's quota) is locked for the time the database takes to run it, not for a round trip to a
 * busy process and back. Its values are bound parameters. `refusal` says what its failure means: an error answered
 * for the change (a 409), or null for a failure of the database. It runs after the rollback.
 */
export interface WithCommit extends Statement {
  refusal: (err: unknown, query: Query) => Promise<Error | null>;
}

/** A statement refused the change: answered as the handler's own error, not as the database's. */
class Refused extends Error {
  constructor(readonly answer: Error) {
    super(answer.message);
  }
}

/**
 * Writes a change's statements sent with its COMMIT, each with its values bound, in one write and one answer
 * (one-sync.ts): on their own they are one implicit transaction; after BEGIN (`began`) the COMMIT goes with them. On
 * failure, asks each statement what it means (a refusal is thrown as Refused).
 */
async function commitWith(client: pg.PoolClient, withCommit: WithCommit[], began: boolean): Promise<void> {
  if (withCommit.length === 0) {
    if (began) await client.query("COMMIT");
    return;
  }
  try {
    await sendAsOne(client, began ? [...withCommit, COMMIT] : withCommit);
  } catch (err) {
    // An error skipped the COMMIT and left BEGIN's transaction aborted; on their own, the statements were rolled back.
    if (began) await client.query("ROLLBACK").catch(() => {});
    for (const w of withCommit) {
      // On this connection, out of its transaction now: another from the pool could wait for ever when every one of
      // them is held by a refused change.
      const answer = await w.refusal(err, (text, values) => client.query(text, values));
      if (answer) throw new Refused(answer);
    }
    throw err;
  }
}

const COMMIT: Statement = { text: "COMMIT", values: [] };

/** A change waiting for a group commit: `key` is its statements' texts. */
interface Grouped {
  key: string;
  withCommit: WithCommit[];
  /** Its statements' values, written out (computed once, when first asked for): groups lock rows in this order. */
  order?: string;
  done: (err?: unknown) => void;
}

const orderOf = (c: Grouped) => (c.order ??= JSON.stringify(c.withCommit.map((w) => w.values)));

/** A tenant's turns in a process (PgBackend.inTurn). */
interface Turns {
  /** Turns taken: changes running their handler or a statement, and group commits being written. */
  running: number;
  /** Changes waiting for a turn. */
  waiting: Array<() => void>;
  /** Group commits being written. */
  groups: number;
  /** Changes waiting for a group commit, in the order they came. */
  grouped: Grouped[];
}

/** At most this many changes in one group commit. */
const MAX_GROUP = 64;

/** One change in progress: its connection, and what it sends with its COMMIT. */
interface Scope {
  /** Taken by the change's first statement that needs an answer. */
  client: pg.PoolClient | null;
  /** False once committed or rolled back: a timer armed inside a change inherits its async context, not the change. */
  open: boolean;
  /** What runs once the change is committed (never when it is not). */
  committed: Array<() => void>;
  /** Sent with the COMMIT. */
  withCommit: WithCommit[];
  /** Whether BEGIN was sent: with the change's first statement, or with its COMMIT. */
  began: boolean;
  begin(): Promise<void>;
}

export { StoreClosed, StoreUnavailable };

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

export interface PgBackendOptions {
  /** Values written at the first start only (the fixtures' time shift, the stream epoch, the token key). */
  initialMeta: Record<string, string>;
  logger?: Logger;
  /** Pooled connections per process (default 6; two more only listen: see config.ts). */
  poolSize?: number;
  /** Group commits written at once per tenant in a process (default 2, at least 1; see PgBackend.groupCommit). */
  groups?: number;
  /** How often a process with listeners looks for stream events when no notification came (default 1 s). */
  pollMs?: number;
}

/**
 * A name per statement text (texts are written in code, values are parameters): each pooled connection parses and
 * plans a named statement once, then only binds its values, which took about a fifth of PostgreSQL's time per write
 * (BENCHMARKS.md). A text that selects every column (`*`) is not named: a migration that adds a column while this
 * process runs would make the kept plan fail. At most `MAX_NAMES` texts are named; past them, statements are unnamed.
 */
const NAMES = new Map<string, string>();
const MAX_NAMES = 1_000;

export function prepared(text: string, values: unknown[]): pg.QueryConfig {
  let name = NAMES.get(text);
  if (name === undefined && NAMES.size < MAX_NAMES && !text.includes("*")) NAMES.set(text, (name = `sandbox_${NAMES.size}`));
  return name === undefined ? { text, values } : { name, text, values };
}

export class PgBackend implements Backend {
  readonly kind = "postgres";
  readonly durable = true;
  readonly shared = true;
  readonly dir: string;
  readonly pool: pg.Pool;
  private readonly scopes = new AsyncLocalStorage<Scope>();
  private readonly meta = new Map<string, string>();
  private listener: pg.Client | null = null;
  /** What each channel this process listens on is for. */
  private readonly channels = new Map<string, (payload: string) => void>();
  private streamPoll: (() => void) | null = null;
  private poll: NodeJS.Timeout | null = null;
  private closed = false;
  private migrated = false;
  /** Writes made outside any change: written in order, one at a time. */
  private detachedChain: Promise<void> = Promise.resolve();

  /** The change in progress in this async context, if it is still open. */
  private current(): Scope | undefined {
    const scope = this.scopes.getStore();
    return scope?.open ? scope : undefined;
  }

  private constructor(
    readonly url: string,
    private readonly options: PgBackendOptions,
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

  /** Connects, migrates, and reads the meta values; throws StoreUnavailable with the reason when the database cannot be used. */
  static async open(url: string, options: PgBackendOptions): Promise<PgBackend> {
    const j = new PgBackend(url, options);
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

  /** The meta values (the epoch, the time shift, the token key), written by the first start only. */
  private async load(): Promise<void> {
    for (const [key, value] of Object.entries(this.options.initialMeta)) {
      await this.pool.query("INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING", [key, value]);
    }
    for (const r of (await this.pool.query<{ key: string; value: string }>("SELECT key, value FROM meta")).rows) this.meta.set(r.key, r.value);
  }

  /**
   * Tells `woken` the project of every stream event another process (or this one) commits, through a connection that
   * only listens; `poll` runs every `pollMs` besides, in case a notification is lost (a dropped connection).
   */
  onStreamEvents(woken: (projectId: string) => void, poll: () => void): void {
    this.streamPoll = poll;
    this.onNotify(STREAM_CHANNEL, woken);
    this.poll = setInterval(poll, this.options.pollMs ?? 1_000);
    this.poll.unref();
  }

  /**
   * Calls `fn` with the payload of every notification on `channel` (a name written in code), through the one
   * connection of this process that only listens.
   */
  onNotify(channel: string, fn: (payload: string) => void): void {
    const first = this.channels.size === 0;
    this.channels.set(channel, fn);
    if (first) void this.listen();
    else this.listener?.query(`LISTEN ${channel}`).catch(() => {});
  }

  private async listen(): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client({ connectionString: this.url });
    client.on("notification", (n) => {
      if (n.payload) this.channels.get(n.channel)?.(n.payload);
    });
    client.on("error", () => {
      // Reconnects after a pause; the poll covers the gap.
      if (this.listener === client) this.listener = null;
      client.end().catch(() => {});
      setTimeout(() => void this.listen(), 500).unref();
    });
    try {
      await client.connect();
      for (const channel of this.channels.keys()) await client.query(`LISTEN ${channel}`);
      this.listener = client;
      // Whatever was committed while no connection listened.
      this.streamPoll?.();
    } catch {
      client.end().catch(() => {});
      if (!this.closed) setTimeout(() => void this.listen(), 500).unref();
    }
  }

  afterCommit(fn: () => void): void {
    const scope = this.current();
    if (scope) scope.committed.push(fn);
    else fn();
  }

  /**
   * Runs a change: one plain transaction, committed before the promise resolves, so the caller acknowledges nothing
   * lost. Its own statements keep the invariants (a quota row's constraint, a row locked while it changes); no
   * advisory lock, nothing held in memory to catch up with. A change inside a change is part of it. `tenant` and
   * `admit`: see Backend.write.
   */
  write<T>(fn: () => T, tenant?: string, admit?: () => Promise<void>): T | Promise<Awaited<T>> {
    if (this.current()) return fn();
    if (tenant === undefined) return (admit ? admit() : Promise.resolve()).then(() => this.change(fn));
    return this.inTurn(tenant, (leave) => (admit ? admit() : Promise.resolve()).then(() => this.change(fn, tenant, leave)));
  }

  /**
   * Per tenant in this process: its turns taken (changes running, and group commits being written), the changes
   * waiting for a turn, and the changes waiting for a group commit (which hold no turn).
   */
  private readonly turns = new Map<string, Turns>();

  /**
   * At most all but one of the pooled connections per tenant: a tenant whose changes wait on its own rows (a row
   * locked by a long change of its own) leaves a connection, and admission slots, to every other tenant. A change takes
   * a turn before its handler runs; a group commit being written holds one too.
   */
  private async inTurn<R>(tenant: string, run: (leave: () => void) => Promise<R>): Promise<R> {
    const cap = Math.max(1, (this.options.poolSize ?? 6) - 1);
    let t = this.turns.get(tenant);
    if (!t) this.turns.set(tenant, (t = { running: 0, waiting: [], groups: 0, grouped: [] }));
    if (t.running >= cap) await new Promise<void>((resolve) => t!.waiting.push(resolve));
    else t.running++;
    let left = false;
    const leave = () => {
      if (left) return;
      left = true;
      this.passTurn(tenant, t!);
    };
    try {
      return await run(leave);
    } finally {
      leave();
    }
  }

  /**
   * A turn given back passes on: to the tenant's changes waiting for a group commit (their handlers are done, their
   * requests wait only for it), else to its next change waiting for a turn; or it is returned.
   */
  private passTurn(tenant: string, t: Turns): void {
    // At least one group at a time, or its changes would wait for ever.
    if (t.grouped.length > 0 && t.groups < Math.max(1, this.options.groups ?? 2)) return this.startGroup(tenant, t);
    const next = t.waiting.shift();
    if (next) return next();
    if (--t.running === 0) this.turns.delete(tenant);
  }

  /** A pooled connection, or StoreUnavailable. */
  private async connect(): Promise<pg.PoolClient> {
    try {
      return await this.pool.connect();
    } catch (err) {
      throw unavailable(err);
    }
  }

  /**
   * `leave`: gives back the tenant's turn (inTurn). A change written in a group commit gives it back while it waits for
   * one, holding no connection: the tenant's next change may run its handler meanwhile and join the same group.
   */
  private async change<T>(fn: () => T, tenant?: string, leave?: () => void): Promise<Awaited<T>> {
    if (this.closed) throw new StoreClosed("the store is closed");
    // A connection is taken by the change's first statement that needs an answer; a change without one takes none and
    // is written with others (groupCommit).
    let beginning: Promise<void> | null = null;
    const scope: Scope = {
      client: null,
      open: true,
      committed: [],
      withCommit: [],
      began: false,
      begin: () =>
        (beginning ??= (async () => {
          scope.client = await this.connect();
          await scope.client.query("BEGIN");
          scope.began = true;
        })()),
    };
    // What the handler throws is its own answer (a 404); anything else that fails is the database.
    let handlerFailed = false;
    let committed: Array<() => void> = [];
    try {
      let out: T;
      try {
        out = await this.scopes.run(scope, fn);
      } catch (err) {
        handlerFailed = true;
        throw err;
      } finally {
        scope.open = false;
      }
      if (beginning === null) {
        // A change of no tenant (a meta value) may hold rows of several: never grouped.
        if (scope.withCommit.length > 0) await (tenant === undefined || !leave ? this.writeAlone(scope.withCommit) : this.groupCommit(tenant, scope.withCommit, leave));
      } else {
        await beginning;
        try {
          await commitWith(scope.client!, scope.withCommit, true);
        } finally {
          scope.began = false;
        }
      }
      committed = scope.committed;
      return out as Awaited<T>;
    } catch (err) {
      // A handler that failed without waiting for its query may have left BEGIN on the way.
      await (beginning as Promise<void> | null)?.catch(() => {});
      if (scope.began) await scope.client!.query("ROLLBACK").catch(() => {});
      if (err instanceof Refused) throw err.answer;
      throw handlerFailed ? err : unavailable(err);
    } finally {
      scope.client?.release();
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

  /**
   * Group commit: a change none of whose statements needs an answer (a study planted: its tenant's quota row and the
   * study's row) gives back its turn and waits for a group commit; one starts with a turn of the tenant while fewer
   * than `groups` of its groups are being written, and takes every change of the tenant with the same statements
   * waiting then, in one transaction and one round trip. Under load the database commits once for many changes, and a
   * process sends one string for them.
   * - A group holds one tenant's changes and one of its turns: a tenant whose groups wait on its own rows (a row locked
   *   by a long change) holds at most `groups` connections and never delays another tenant's.
   * - Its changes are ordered by their statements, so two groups lock the rows they share in the same order.
   * - A group the server refuses (a quota's constraint, a deadlock) committed nothing: its changes are written again
   *   one at a time, so only a refused change fails. A group whose outcome is unknown (the connection lost) fails
   *   whole (503): nothing is written twice.
   */
  private groupCommit(tenant: string, withCommit: WithCommit[], leave: () => void): Promise<void> {
    return new Promise((resolve, reject) => {
      const key = withCommit.map((w) => w.text).join("\n");
      // The change still holds its turn here, so its tenant's entry is there.
      this.turns.get(tenant)!.grouped.push({ key, withCommit, done: (err) => (err === undefined ? resolve() : reject(err)) });
      leave();
    });
  }

  /** Writes the tenant's first waiting change with every other of the same statements, holding the turn given to it. */
  private startGroup(tenant: string, t: Turns): void {
    const { key } = t.grouped[0];
    const group: Grouped[] = [];
    const rest: Grouped[] = [];
    for (const c of t.grouped) (c.key === key && group.length < MAX_GROUP ? group : rest).push(c);
    t.grouped = rest;
    group.sort((a, b) => (orderOf(a) < orderOf(b) ? -1 : orderOf(a) > orderOf(b) ? 1 : 0));
    t.groups++;
    void this.writeGroup(group).finally(() => {
      t.groups--;
      this.passTurn(tenant, t);
    });
  }

  private async writeAlone(withCommit: WithCommit[]): Promise<void> {
    const client = await this.connect();
    try {
      await commitWith(client, withCommit, false);
    } finally {
      client.release();
    }
  }

  private async writeGroup(group: Grouped[]): Promise<void> {
    let client: pg.PoolClient;
    try {
      client = await this.connect();
    } catch (err) {
      for (const c of group) c.done(err);
      return;
    }
    try {
      if (group.length > 1) {
        // Statement by statement, every change's in one (batched.ts), or each change's when its text cannot be; all of
        // them one transaction (one-sync.ts).
        const statements: Statement[] = [];
        group[0].withCommit.forEach((w, i) => {
          const rows = group.map((c) => c.withCommit[i].values);
          const one = batched(w.text, rows);
          if (one) statements.push(one);
          else for (const values of rows) statements.push({ text: w.text, values });
        });
        try {
          await sendAsOne(client, statements);
          for (const c of group) c.done();
          return;
        } catch (err) {
          if (!(err instanceof pg.DatabaseError)) {
            for (const c of group) c.done(err);
            return;
          }
        }
      }
      for (const c of group) {
        try {
          await commitWith(client, c.withCommit, false);
          c.done();
        } catch (err) {
          c.done(err);
        }
      }
    } finally {
      client.release();
    }
  }

  /** Runs a query now: inside the change in progress (its transaction) when there is one. */
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values: unknown[]): Promise<pg.QueryResult<R>> {
    const scope = this.current();
    if (!scope) return this.queryOutside<R>(text, values);
    const q = prepared(text, values);
    return scope
      .begin()
      .then(() => scope.client!.query<R>(q))
      .catch((err) => {
        throw unavailable(err);
      });
  }

  /** Whether a change is in progress in this async context. */
  inChange(): boolean {
    return this.current() !== undefined;
  }

  /** Runs a query on a pooled connection of its own, outside any change in progress. */
  queryOutside<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values: unknown[]): Promise<pg.QueryResult<R>> {
    return this.pool.query<R>(prepared(text, values)).catch((err) => {
      throw unavailable(err);
    });
  }

  /**
   * A statement whose answer the change does not need, sent with its COMMIT (see WithCommit); outside a change, run
   * now. `refusal` says what its failure means (null: the database's).
   */
  async atCommit(text: string, values: unknown[], refusal?: WithCommit["refusal"]): Promise<void> {
    const scope = this.current();
    if (scope) {
      scope.withCommit.push({ text, values, refusal: refusal ?? (async () => null) });
      return;
    }
    try {
      await this.query(text, values);
    } catch (err) {
      throw (await refusal?.((err as Error).cause ?? err, (t, v) => this.query(t, v))) ?? err;
    }
  }

  /** Adds a statement to the change in progress (sent with its COMMIT); outside one, writes it on its own. */
  enqueue(text: string, values: unknown[]): void {
    const scope = this.current();
    if (scope) scope.withCommit.push({ text, values, refusal: async () => null });
    else this.detached(text, values);
  }

  /** A write made outside any change (a meta value): a change of its own, one after another in order. */
  private detached(text: string, values: unknown[]): void {
    this.detachedChain = this.detachedChain
      .then(() => this.change(() => this.enqueue(text, values)))
      .catch((err) => this.options.logger?.error({ err: (err as Error).message }, "a change could not be written to the database"));
  }

  getMeta(key: string): string | undefined {
    return this.meta.get(key);
  }

  setMeta(key: string, value: string): void {
    this.meta.set(key, value);
    this.enqueue("INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value", [key, value]);
  }

  async ready(): Promise<NotReady | null> {
    if (this.closed) return { reason: "the store is closed" };
    if (!this.migrated) return { reason: "migrations have not run" };
    try {
      await this.pool.query("SELECT 1 FROM sandbox_migrations LIMIT 1");
    } catch (err) {
      return { reason: "the database does not answer", detail: (err as Error).message };
    }
    return null;
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
