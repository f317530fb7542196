/**
 * The fault settings (`PUT /_sim/faults`) of several processes on one PostgreSQL, one row per project (migration 7):
 * a PUT writes it, every request reads it whichever process answers, and each counter (`fail_next`,
 * `webhook_failures`) is consumed by one conditional UPDATE, so a counter of 2 fails exactly 2 requests over every
 * process, and no process holds settings another process's PUT has replaced.
 */
import type { FaultSettings } from "../../faults/settings.ts";
import type { FaultCounter, SharedFaultSettings } from "../faults.ts";
import type { PgBackend } from "./backend.ts";

// Column names are only ever these two (never from input).
const COLUMNS: Record<FaultCounter, string> = { fail_next: "fail_next", webhook_failures: "webhook_failures" };

/** Sets a project's fault settings: $1 project, $2 the settings (JSON), $3 and $4 their counters. */
export const SET_FAULT_SETTINGS = `INSERT INTO fault_settings (project_id, settings, fail_next, webhook_failures) VALUES ($1, $2, $3, $4)
  ON CONFLICT (project_id) DO UPDATE SET settings = excluded.settings, version = fault_settings.version + 1,
    fail_next = excluded.fail_next, webhook_failures = excluded.webhook_failures`;

type Row = { settings: FaultSettings; version: string };

export class PgFaultSettings implements SharedFaultSettings {
  constructor(private readonly backend: PgBackend) {}

  set(projectId: string, settings: FaultSettings | null): Promise<void> {
    if (settings === null) return this.backend.atCommit("DELETE FROM fault_settings WHERE project_id = $1", [projectId]);
    return this.backend.atCommit(SET_FAULT_SETTINGS, [projectId, JSON.stringify(settings), settings.fail_next, settings.webhook_failures]);
  }

  /** Reads asked for while one is in flight: sent together as the next one (see read). */
  private asked = new Map<string, Array<{ resolve: (row: Row | null) => void; reject: (err: unknown) => void }>>();
  private reading = false;

  /**
   * Every request reads its project's settings; under load, those asked for while a read is in flight go together in
   * the next one, one statement for many requests. Each is still read after it was asked for, so it sees every
   * change acknowledged before.
   */
  read(projectId: string): Promise<Row | null> {
    // Inside a change, its own transaction's view.
    if (this.backend.inChange()) return this.readIn([projectId]).then((rows) => rows.get(projectId) ?? null);
    return new Promise((resolve, reject) => {
      let waiting = this.asked.get(projectId);
      if (!waiting) this.asked.set(projectId, (waiting = []));
      waiting.push({ resolve, reject });
      if (!this.reading) void this.readAsked();
    });
  }

  private async readAsked(): Promise<void> {
    this.reading = true;
    while (this.asked.size > 0) {
      const asked = this.asked;
      this.asked = new Map();
      try {
        const found = await this.readIn([...asked.keys()], true);
        for (const [id, waiting] of asked) for (const w of waiting) w.resolve(found.get(id) ?? null);
      } catch (err) {
        for (const waiting of asked.values()) for (const w of waiting) w.reject(err);
      }
    }
    this.reading = false;
  }

  private async readIn(projectIds: string[], outside = false): Promise<Map<string, Row>> {
    const text = "SELECT project_id, settings, version::text AS version, fail_next, webhook_failures FROM fault_settings WHERE project_id = ANY($1::text[])";
    type Found = { project_id: string; settings: FaultSettings; version: string; fail_next: number; webhook_failures: number };
    const { rows } = await (outside ? this.backend.queryOutside<Found>(text, [projectIds]) : this.backend.query<Found>(text, [projectIds]));
    return new Map(rows.map((r) => [r.project_id, { settings: { ...r.settings, fail_next: r.fail_next, webhook_failures: r.webhook_failures }, version: r.version }]));
  }

  async take(projectId: string, counter: FaultCounter): Promise<number | null> {
    const column = COLUMNS[counter];
    const { rows } = await this.backend.query<{ left: number }>(
      `UPDATE fault_settings SET ${column} = ${column} - 1 WHERE project_id = $1 AND ${column} > 0 RETURNING ${column} AS left`,
      [projectId],
    );
    return rows.length === 0 ? null : Number(rows[0].left);
  }
}
