/**
 * Listener secrets and forwards when several processes share one PostgreSQL: rows of `listener_secrets` and
 * `forwards`, read per request and held by no process. Two processes making a project's first secret at once keep
 * the first one written (`ON CONFLICT DO NOTHING`, then read), so every listener signs with the same.
 */
import { FORWARDS_KEPT, type Project } from "../../model/project.ts";
import type { Listeners, SimForward } from "../listeners.ts";
import { newListenerSecret } from "../../webhooks/listener.ts";
import type { PgBackend } from "./backend.ts";

export class PgListeners implements Listeners {
  constructor(private readonly backend: PgBackend) {}

  async secret(project: Project): Promise<string> {
    const read = async () => (await this.backend.query<{ secret: string }>("SELECT secret FROM listener_secrets WHERE project_id = $1", [project.id])).rows[0]?.secret;
    const kept = await read();
    if (kept) return kept;
    // In the change in progress: rolled back with it, and what it signed (a stream frame) is never sent then.
    const { rows } = await this.backend.query<{ secret: string }>(
      "INSERT INTO listener_secrets (project_id, secret) VALUES ($1, $2) ON CONFLICT (project_id) DO NOTHING RETURNING secret",
      [project.id, newListenerSecret()],
    );
    // Nothing inserted: another process's came first, committed (the insert waited for it), and a new statement sees it.
    return rows[0]?.secret ?? (await read())!;
  }

  async addForward(project: Project, forward: SimForward): Promise<void> {
    await this.backend.atCommit("INSERT INTO forwards (project_id, id, doc) VALUES ($1, $2, $3)", [project.id, forward.id, JSON.stringify(forward)]);
    await this.backend.atCommit(
      "DELETE FROM forwards WHERE project_id = $1 AND seq <= (SELECT seq FROM forwards WHERE project_id = $1 ORDER BY seq DESC OFFSET $2 LIMIT 1)",
      [project.id, FORWARDS_KEPT],
    );
  }

  async forwards(project: Project): Promise<SimForward[]> {
    const { rows } = await this.backend.query<{ doc: SimForward }>("SELECT doc FROM forwards WHERE project_id = $1 ORDER BY seq", [project.id]);
    return rows.map((r) => r.doc);
  }
}
