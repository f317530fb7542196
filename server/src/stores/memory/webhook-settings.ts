/** Webhook settings kept on the project in the process (memory and SQLite), each change written to the backend. */
import type { Project, WebhookSetting } from "../../model/project.ts";
import type { ChangeLog } from "../backend.ts";
import type { WebhookSettings } from "../webhook-settings.ts";

export class MemoryWebhookSettings implements WebhookSettings {
  constructor(private readonly backend: ChangeLog) {}

  async get(project: Project): Promise<WebhookSetting | null> {
    return project.webhook;
  }

  // No await between the look and the write: two PUTs at once in this process never both create it.
  async create(project: Project, url: string, events: Array<"interview.completed">, secret: string): Promise<WebhookSetting | null> {
    return project.webhook ? null : this.set(project, url, events, secret);
  }

  async set(project: Project, url: string, events: Array<"interview.completed">, secret: string): Promise<WebhookSetting> {
    this.backend.append({ kind: "webhook.set", project_id: project.id, url, events, secret });
    return project.setWebhook(url, events, secret);
  }

  async delete(project: Project): Promise<void> {
    this.backend.append({ kind: "webhook.deleted", project_id: project.id });
    project.deleteWebhook();
  }
}
