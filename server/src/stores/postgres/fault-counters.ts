/**
 * The fault counters (`fail_next`, `webhook_failures`) of several processes on one PostgreSQL, as rows: a PUT writes
 * them in its own change, and each is consumed by one conditional UPDATE, so a counter of 2 fails exactly 2 requests
 * over every process, and a consumption never writes stale settings back over a newer PUT made elsewhere.
 */
import type { FaultCounter, FaultSettings, SharedFaultCounters } from "../../faults/settings.ts";
import type { PgJournal } from "./journal.ts";

// Column names are only ever these two (never from input).
const COLUMNS: Record<FaultCounter, string> = { fail_next: "fail_next", webhook_failures: "webhook_failures" };

export class PgFaultCounters implements SharedFaultCounters {
  constructor(private readonly journal: PgJournal) {}

  set(projectId: string, settings: FaultSettings | null): void {
    if (settings === null) this.journal.enqueue("DELETE FROM fault_counters WHERE project_id = $1", [projectId]);
    else {
      this.journal.enqueue(
        "INSERT INTO fault_counters (project_id, fail_next, webhook_failures) VALUES ($1, $2, $3) ON CONFLICT (project_id) DO UPDATE SET fail_next = excluded.fail_next, webhook_failures = excluded.webhook_failures",
        [projectId, settings.fail_next, settings.webhook_failures],
      );
    }
  }

  async take(projectId: string, counter: FaultCounter): Promise<number | null> {
    const column = COLUMNS[counter];
    const { rows } = await this.journal.query<{ left: number }>(
      `UPDATE fault_counters SET ${column} = ${column} - 1 WHERE project_id = $1 AND ${column} > 0 RETURNING ${column} AS left`,
      [projectId],
    );
    return rows.length === 0 ? null : Number(rows[0].left);
  }

  async read(projectId: string): Promise<Record<FaultCounter, number>> {
    const { rows } = await this.journal.query<Record<FaultCounter, number>>("SELECT fail_next, webhook_failures FROM fault_counters WHERE project_id = $1", [projectId]);
    return rows[0] ?? { fail_next: 0, webhook_failures: 0 };
  }
}
