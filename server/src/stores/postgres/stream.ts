/**
 * The stream's events when several processes share one PostgreSQL: rows of `stream`, held by no process. A project's
 * next number is taken from its `stream_heads` row by one `UPSERT ... RETURNING`, which keeps the row locked until the
 * change commits: one project's events commit in the order of their numbers, never a number twice, and projects never
 * wait for each other. The commit notifies every process with the project's id (`pg_notify`), so each process that
 * has a listener of that project reads the rows past what it sent (webhooks/event-stream.ts).
 */
import type { NewStreamEvent, StreamEvent, StreamLog } from "../stream.ts";
import { NOTIFY_WITH_PAYLOAD, STREAM_CHANNEL } from "./channels.ts";
import type { PgBackend } from "./backend.ts";


export class PgStream implements StreamLog {
  constructor(
    private readonly backend: PgBackend,
    private readonly epoch: string,
    private readonly keep: number,
  ) {}

  async append(projectId: string, event: NewStreamEvent): Promise<StreamEvent> {
    const { rows } = await this.backend.query<{ n: string }>(
      "INSERT INTO stream_heads (project_id, n) VALUES ($1, 1) ON CONFLICT (project_id) DO UPDATE SET n = stream_heads.n + 1 RETURNING n",
      [projectId],
    );
    const seq = Number(rows[0].n);
    const e = { seq, id: `${this.epoch}-${seq}`, ...event } as StreamEvent;
    // Their answers are not needed: sent with the COMMIT.
    this.backend.enqueue("INSERT INTO stream (seq, project_id, n, event) VALUES (nextval('change_seq'), $1, $2, $3)", [projectId, seq, JSON.stringify(e)]);
    if (seq > this.keep) this.backend.enqueue("DELETE FROM stream WHERE project_id = $1 AND n <= $2", [projectId, seq - this.keep]);
    this.backend.enqueue(NOTIFY_WITH_PAYLOAD, [STREAM_CHANNEL, projectId]);
    return e;
  }

  async head(projectId: string): Promise<number> {
    const { rows } = await this.backend.query<{ n: string }>("SELECT n FROM stream_heads WHERE project_id = $1", [projectId]);
    return rows[0] ? Number(rows[0].n) : 0;
  }

  async oldest(projectId: string): Promise<number | undefined> {
    const { rows } = await this.backend.query<{ n: number | null }>("SELECT min(n) AS n FROM stream WHERE project_id = $1", [projectId]);
    return rows[0]?.n ?? undefined;
  }

  async after(projectId: string, seq: number): Promise<StreamEvent[]> {
    const { rows } = await this.backend.query<{ event: string }>("SELECT event FROM stream WHERE project_id = $1 AND n > $2 ORDER BY n", [projectId, seq]);
    return rows.map((r) => JSON.parse(r.event) as StreamEvent);
  }

  async find(projectId: string, eventId: string): Promise<StreamEvent | undefined> {
    const { rows } = await this.backend.query<{ event: string }>(
      "SELECT event FROM stream WHERE project_id = $1 AND event::jsonb->>'event_id' = $2 ORDER BY n DESC LIMIT 1",
      [projectId, eventId],
    );
    return rows[0] ? (JSON.parse(rows[0].event) as StreamEvent) : undefined;
  }
}
