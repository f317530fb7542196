/**
 * Webhook settings when several processes share one PostgreSQL: one row of `webhooks` per project, read per request
 * and held by no process. A project's row exists from its first locked read on (url NULL: none configured), so the
 * lock holds even before its first PUT, and its `version` goes on counting across deletions.
 */
import type { Project, WebhookSetting } from "../../model/project.ts";
import type { WebhookSettings } from "../webhook-settings.ts";
import type { PgBackend } from "./backend.ts";

/**
 * Configures a project's webhook: $1 project, $2 url, $3 events (JSON), $4 secret, $5 the version (NULL: the next
 * one; an older version's log moved in gives the one it kept, stores/postgres/fixtures.ts).
 */
export const SET_WEBHOOK = `INSERT INTO webhooks (project_id, url, events, secret, version) VALUES ($1, $2, $3, $4, COALESCE($5::int, 1))
  ON CONFLICT (project_id) DO UPDATE SET url = excluded.url, events = excluded.events, secret = excluded.secret, version = COALESCE($5::int, webhooks.version + 1)
  RETURNING url, events, secret, version`;

type Row = { url: string | null; events: Array<"interview.completed"> | null; secret: string | null; version: number };

const setting = (r: Row | undefined): WebhookSetting | null =>
  r && r.url !== null ? { url: r.url, events: r.events ?? [], signing_secret: r.secret ?? "", version: r.version } : null;

export class PgWebhookSettings implements WebhookSettings {
  constructor(private readonly backend: PgBackend) {}

  async get(project: Project, lock = false): Promise<WebhookSetting | null> {
    if (lock) await this.backend.query("INSERT INTO webhooks (project_id, version) VALUES ($1, 0) ON CONFLICT (project_id) DO NOTHING", [project.id]);
    const { rows } = await this.backend.query<Row>(`SELECT url, events, secret, version FROM webhooks WHERE project_id = $1${lock ? " FOR UPDATE" : ""}`, [project.id]);
    return setting(rows[0]);
  }

  // The project's row exists from its first locked read (get(project, true)); only a row with no URL takes it.
  async create(project: Project, url: string, events: Array<"interview.completed">, secret: string): Promise<WebhookSetting | null> {
    await this.backend.query("INSERT INTO webhooks (project_id, version) VALUES ($1, 0) ON CONFLICT (project_id) DO NOTHING", [project.id]);
    const { rows } = await this.backend.query<Row>("UPDATE webhooks SET url = $2, events = $3, secret = $4, version = version + 1 WHERE project_id = $1 AND url IS NULL RETURNING url, events, secret, version", [project.id, url, JSON.stringify(events), secret]);
    return setting(rows[0]);
  }

  async set(project: Project, url: string, events: Array<"interview.completed">, secret: string): Promise<WebhookSetting> {
    const { rows } = await this.backend.query<Row>(SET_WEBHOOK, [project.id, url, JSON.stringify(events), secret, null]);
    return setting(rows[0])!;
  }

  async delete(project: Project): Promise<void> {
    await this.backend.query("UPDATE webhooks SET url = NULL, events = NULL, secret = NULL, version = version + 1 WHERE project_id = $1 AND url IS NOT NULL", [project.id]);
  }
}
