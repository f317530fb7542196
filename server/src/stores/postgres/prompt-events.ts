/** Prompt events of several processes on one PostgreSQL: one row each, a duplicate found by the insert that conflicts. */
import type { Project } from "../../model/project.ts";
import type { PromptEvents } from "../prompt-events.ts";
import type { PgBackend } from "./backend.ts";

export class PgPromptEvents implements PromptEvents {
  constructor(private readonly backend: PgBackend) {}

  async record(project: Project, eventId: string, phase: string, receivedAt: string): Promise<boolean> {
    const { rows } = await this.backend.query(
      "INSERT INTO prompt_events (project_id, event_id, phase, received_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING RETURNING 1",
      [project.id, eventId, phase, receivedAt],
    );
    return rows.length === 1;
  }
}
