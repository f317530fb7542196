/**
 * The events of one process's attempt queue (stores/memory/deliveries.ts): each with its exact bytes and the webhook setting it was
 * made for, by id, for retries, resends and request lookups; written to the backend, and kept per tenant up to a
 * bound: past it, the oldest are forgotten first, as attempt-outcome.ts's `forgottenEvents` decides (never one whose
 * attempt is still to run), in memory and in the backend alike.
 */
import type { LocalBackend, StoredEvent } from "../stores/backend.ts";
import type { Project } from "../model/project.ts";
import { forgottenEvents, type EventDelivery } from "./attempt-outcome.ts";
import type { WebhookDelivery } from "./types.ts";

export class EventStore {
  private readonly byId = new Map<string, EventDelivery>();
  /** Event ids per tenant, oldest first. */
  private readonly ofTenant = new Map<string, Set<string>>();

  constructor(
    private readonly backend: LocalBackend,
    private readonly keptPerTenant: number,
    /** The statuses of an event's attempts. */
    private readonly statusesOf: (ev: EventDelivery) => WebhookDelivery["status"][],
  ) {}

  get(id: string): EventDelivery | undefined {
    return this.byId.get(id);
  }

  /** Keeps `ev` (and writes it, unless it was read back from the backend). */
  remember(ev: EventDelivery, write = true): void {
    this.byId.set(ev.id, ev);
    if (write) this.backend.putEvent(stored(ev));
    const tenant = ev.project.tenant;
    let ids = this.ofTenant.get(tenant);
    if (!ids) this.ofTenant.set(tenant, (ids = new Set()));
    ids.add(ev.id);
    // Read back at a restart, before the attempts: what was kept stays.
    if (write) this.forgetPastCap(ids);
  }

  private forgetPastCap(ids: Set<string>): void {
    let over = ids.size - this.keptPerTenant;
    if (over <= 0) return;
    const pastCap: Array<{ id: string; statuses: WebhookDelivery["status"][] }> = [];
    for (const id of ids) {
      if (over-- <= 0) break;
      pastCap.push({ id, statuses: this.statusesOf(this.byId.get(id)!) });
    }
    for (const { id } of forgottenEvents(pastCap)) {
      ids.delete(id);
      this.byId.delete(id);
      this.backend.dropEvent(id);
    }
  }

  /** The backend's events, bound to the projects they belong to (a restart). */
  restore(projects: ReadonlyMap<string, Project>): void {
    for (const e of this.backend.events()) {
      const project = projects.get(e.project_id);
      if (!project) continue;
      this.remember({ id: e.id, project, interviewId: e.interview_id, url: e.url, secret: e.secret, version: e.version, body: Buffer.from(e.body, "utf8"), headers: e.headers }, false);
    }
  }
}

const stored = (ev: EventDelivery): StoredEvent => ({
  id: ev.id, project_id: ev.project.id, interview_id: ev.interviewId, url: ev.url, secret: ev.secret, version: ev.version, body: ev.body.toString("utf8"), headers: ev.headers,
});
