/**
 * Per-tenant caps of things open at once (event streams, requests held by a delay) over every process sharing one
 * PostgreSQL. Each process writes its own counts (`open_slots`) and says it is alive every few seconds
 * (`slot_holders`); a take counts every live process's slots under an advisory lock per kind and tenant, so two
 * processes never both take the last one. A process killed with slots open stops counting once it has not been seen
 * for `STALE_MS`, and its rows are removed by the next process that notices.
 */
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type pg from "pg";
import type { Logger } from "pino";
import type { SharedCounter } from "../limits.ts";
import { unavailable } from "./backend.ts";

const BEAT_MS = 5_000;
const STALE_MS = 15_000;

export class SharedSlots implements SharedCounter {
  private readonly owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly beat: NodeJS.Timeout;
  /** Gives are written in order, one after another, so a count never goes below what is open. */
  private chain: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly logger?: Logger,
  ) {
    void this.alive();
    this.beat = setInterval(() => void this.alive(), BEAT_MS);
    this.beat.unref();
  }

  private async alive(): Promise<void> {
    if (this.closed) return;
    const now = Date.now();
    try {
      await this.pool.query("INSERT INTO slot_holders (owner, seen_ms) VALUES ($1, $2) ON CONFLICT (owner) DO UPDATE SET seen_ms = excluded.seen_ms", [this.owner, now]);
      await this.pool.query("DELETE FROM open_slots WHERE owner IN (SELECT owner FROM slot_holders WHERE seen_ms < $1)", [now - STALE_MS * 4]);
      await this.pool.query("DELETE FROM slot_holders WHERE seen_ms < $1", [now - STALE_MS * 4]);
    } catch (err) {
      this.logger?.warn({ err: (err as Error).message }, "could not record this process as alive; its open slots stop counting after 15 s");
    }
  }

  async take(kind: string, tenant: string, cap: number): Promise<boolean> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      throw unavailable(err);
    }
    try {
      await client.query("BEGIN");
      await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`slots ${kind} ${tenant}`]);
      const { rows } = await client.query<{ n: string }>(
        `SELECT COALESCE(SUM(s.n), 0) AS n FROM open_slots s JOIN slot_holders h ON h.owner = s.owner
         WHERE s.kind = $1 AND s.tenant = $2 AND (h.seen_ms > $3 OR s.owner = $4)`,
        [kind, tenant, Date.now() - STALE_MS, this.owner],
      );
      const ok = Number(rows[0].n) < cap;
      if (ok) {
        await client.query(
          "INSERT INTO open_slots (owner, kind, tenant, n) VALUES ($1, $2, $3, 1) ON CONFLICT (owner, kind, tenant) DO UPDATE SET n = open_slots.n + 1",
          [this.owner, kind, tenant],
        );
      }
      await client.query("COMMIT");
      return ok;
    } catch (err) {
      await client.query("ROLLBACK").catch(() => {});
      throw unavailable(err);
    } finally {
      client.release();
    }
  }

  give(kind: string, tenant: string): void {
    this.chain = this.chain
      .then(() => this.pool.query("UPDATE open_slots SET n = GREATEST(n - 1, 0) WHERE owner = $1 AND kind = $2 AND tenant = $3", [this.owner, kind, tenant]))
      .catch((err) => this.logger?.warn({ err: (err as Error).message }, "could not give back an open slot"));
  }

  /** Removes this process's counts (a clean stop). */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.beat);
    await this.chain.catch(() => {});
    await this.pool.query("DELETE FROM open_slots WHERE owner = $1", [this.owner]).catch(() => {});
    await this.pool.query("DELETE FROM slot_holders WHERE owner = $1", [this.owner]).catch(() => {});
  }
}
