/**
 * The planted-items quota of several processes on one PostgreSQL: a row per tenant, taken by one conditional statement
 * in the planting change (rolled back with it), so two processes never both take the last unit and no process counts
 * anything in memory. In a change of rows only, the statement runs as the change commits and refuses it past the cap,
 * so the row is locked only from there to the commit; in a change under the tenant's lock (which may change what
 * every process holds), at once, before anything else is changed.
 */
import type { SharedQuota } from "../../model/tenant-limits.ts";
import type { PgJournal, Query } from "./journal.ts";

const TAKE = `INSERT INTO planted (tenant, n) SELECT $1, $2::bigint WHERE $2::bigint <= $3::bigint
  ON CONFLICT (tenant) DO UPDATE SET n = planted.n + excluded.n WHERE planted.n + excluded.n <= $3::bigint RETURNING n`;

export class PgPlanted implements SharedQuota {
  constructor(private readonly journal: PgJournal) {}

  take(tenant: string, n: number, cap: number, refusal: (count: number) => Error): void | Promise<void> {
    // Refused: the count it names is read by a statement of its own (the refused one's snapshot may be older).
    const refused = async (rows: Array<Record<string, unknown>>, query: Query) => {
      if (rows.length > 0) return null;
      const now = await query<{ n: string }>("SELECT n FROM planted WHERE tenant = $1", [tenant]);
      return refusal(Number(now.rows[0]?.n ?? 0));
    };
    if (this.journal.inRowsOnlyChange) return this.journal.enqueueChecked(TAKE, [tenant, n, cap], refused);
    return this.journal.query(TAKE, [tenant, n, cap]).then(async ({ rows }) => {
      const error = await refused(rows, (text, values) => this.journal.query(text, values));
      if (error) throw error;
    });
  }
}
