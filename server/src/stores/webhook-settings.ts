/**
 * Each project's one webhook setting (`/v1/webhooks`). Memory and SQLite keep it on the project
 * (stores/memory/webhook-settings.ts); several processes on one PostgreSQL keep it as a row of `webhooks`, read per
 * request (stores/postgres/webhook-settings.ts).
 */
import type { Project, WebhookSetting } from "../model/project.ts";

export interface WebhookSettings {
  /**
   * The project's webhook, null when none is configured. `lock` (PostgreSQL): its row is held until the change in
   * progress ends, so two processes changing one project's webhook take turns.
   */
  get(project: Project, lock?: boolean): Promise<WebhookSetting | null>;
  /**
   * Creates it (a new version) only while none is configured, in one step: null when one is (two PUTs at once, one
   * of which created it after the other read none). The creation answers 201; the other PUT is an update of it.
   */
  create(project: Project, url: string, events: Array<"interview.completed">, secret: string): Promise<WebhookSetting | null>;
  /** Configures it (a new version), in the change in progress. */
  set(project: Project, url: string, events: Array<"interview.completed">, secret: string): Promise<WebhookSetting>;
  /** Removes it (a new version: attempts made for the old one can tell). */
  delete(project: Project): Promise<void>;
}
