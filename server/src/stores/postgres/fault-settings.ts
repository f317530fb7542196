/**
 * The fault settings (`PUT /_sim/faults`) of several processes on one PostgreSQL, one row per project (migration 7):
 * a PUT writes it, every request reads it whichever process answers, and each counter (`fail_next`,
 * `webhook_failures`) is consumed by one conditional UPDATE, so a counter of 2 fails exactly 2 requests over every
 * process, and no process holds settings another process's PUT has replaced.
 */
import type { FaultCounter, FaultSettings, SharedFaultSettings } from "../../faults/settings.ts";
import type { PgJournal } from "./journal.ts";

// Column names are only ever these two (never from input).
const COLUMNS: Record<FaultCounter, string> = { fail_next: "fail_next", webhook_failures: "webhook_failures" };

/** Sets a project's fault settings: $1 project, $2 the settings (JSON), $3 and $4 their counters. */
export const SET_FAULT_SETTINGS = `INSERT INTO fault_settings (project_id, settings, fail_next, webhook_failures) VALUES ($1, $2, $3, $4)
  ON CONFLICT (project_id) DO UPDATE SET settings = excluded.settings, version = fault_settings.version + 1,
    fail_next = excluded.fail_next, webhook_failures = excluded.webhook_failures`;

export class PgFaultSettings implements SharedFaultSettings {
  constructor(private readonly journal: PgJournal) {}

  set(projectId: string, settings: FaultSettings | null): Promise<void> {
    if (settings === null) return this.journal.atCommit("DELETE FROM fault_settings WHERE project_id = $1", [projectId]);
    return this.journal.atCommit(SET_FAULT_SETTINGS, [projectId, JSON.stringify(settings), settings.fail_next, settings.webhook_failures]);
  }

  async read(projectId: string): Promise<{ settings: FaultSettings; version: string } | null> {
    const { rows } = await this.journal.query<{ settings: FaultSettings; version: string; fail_next: number; webhook_failures: number }>(
      "SELECT settings, version::text AS version, fail_next, webhook_failures FROM fault_settings WHERE project_id = $1",
      [projectId],
    );
    const r = rows[0];
    return r ? { settings: { ...r.settings, fail_next: r.fail_next, webhook_failures: r.webhook_failures }, version: r.version } : null;
  }

  async take(projectId: string, counter: FaultCounter): Promise<number | null> {
    const column = COLUMNS[counter];
    const { rows } = await this.journal.query<{ left: number }>(
      `UPDATE fault_settings SET ${column} = ${column} - 1 WHERE project_id = $1 AND ${column} > 0 RETURNING ${column} AS left`,
      [projectId],
    );
    return rows.length === 0 ? null : Number(rows[0].left);
  }
}
