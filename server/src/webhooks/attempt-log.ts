/**
 * The record of delivery attempts that `GET /api/_sim/webhook-deliveries` lists: per project, sorted oldest
 * scheduled first with ties by id (the list's keyset order, so its cursor can be found by binary search),
 * and bounded so a long-running sandbox with a failing receiver cannot grow memory without limit.
 * Records are the contract's `WebhookDelivery` objects themselves, updated in place as an attempt moves on.
 */
import { ascBy, insertSorted } from "../store/sorted.ts";
import type { WebhookDelivery } from "./types.ts";

export const DEFAULT_ATTEMPTS_PER_PROJECT = 1000;

const order = ascBy<WebhookDelivery>((d) => d.scheduled_at);

export class AttemptLog {
  private readonly byProject = new Map<string, WebhookDelivery[]>();

  constructor(private readonly maxPerProject = DEFAULT_ATTEMPTS_PER_PROJECT) {}

  add(projectId: string, record: WebhookDelivery): void {
    let list = this.byProject.get(projectId);
    if (!list) this.byProject.set(projectId, (list = []));
    insertSorted(list, record, order);
    // The oldest scheduled go first; a record dropped here may still be updated by its attempt, unseen.
    if (list.length > this.maxPerProject) list.splice(0, list.length - this.maxPerProject);
  }

  list(projectId: string): readonly WebhookDelivery[] {
    return this.byProject.get(projectId) ?? [];
  }
}
