/**
 * The record of delivery attempts that `GET /api/_sim/webhook-deliveries` lists: per project, sorted oldest
 * scheduled first with ties by id (the list's keyset order, so its cursor can be found by binary search),
 * and bounded so a long-running sandbox with a failing receiver cannot grow memory without limit: past the newest N,
 * finished attempts are forgotten (attempt-outcome.ts's `forgottenPastCap`).
 *
 * Records are the contract's `WebhookDelivery` objects and are never mutated: an update puts a new object in
 * the old one's place. The response serializer caches each list item's JSON text by object identity
 * (http/serialize.ts), so a record changed in place would keep being listed with its old status.
 */
import { ascBy, insertSorted, lowerBound } from "../model/sorted.ts";
import { forgottenPastCap } from "./attempt-outcome.ts";
import type { WebhookDelivery } from "./types.ts";

const order = ascBy<WebhookDelivery>((d) => d.scheduled_at);

/** What may change on an attempt after it is recorded; its place in the order (scheduled_at, id) never does. */
export type AttemptChange = Partial<Pick<WebhookDelivery, "status" | "response_status" | "error" | "sent_at" | "finished_at">>;

export class AttemptLog {
  private readonly byProject = new Map<string, WebhookDelivery[]>();

  constructor(private readonly maxPerProject: number) {}

  /** Returns the records no longer listed (the backend forgets them too). */
  add(projectId: string, record: WebhookDelivery): WebhookDelivery[] {
    let list = this.byProject.get(projectId);
    if (!list) this.byProject.set(projectId, (list = []));
    insertSorted(list, record, order);
    if (list.length <= this.maxPerProject) return [];
    // Past the newest `maxPerProject`, the finished ones go (attempt-outcome.ts's rule, PostgreSQL's too).
    const forgotten = new Set(forgottenPastCap(list.slice(0, list.length - this.maxPerProject)));
    if (forgotten.size > 0) this.byProject.set(projectId, list.filter((r) => !forgotten.has(r)));
    return [...forgotten];
  }

  /** Returns the updated copy of `record`, which takes its place in the list (if it is still listed). */
  update(projectId: string, record: WebhookDelivery, change: AttemptChange): WebhookDelivery {
    const next: WebhookDelivery = { ...record, ...change };
    const list = this.byProject.get(projectId);
    if (list) {
      const i = lowerBound(list, record, order);
      if (list[i] === record) list[i] = next;
    }
    return next;
  }

  list(projectId: string): readonly WebhookDelivery[] {
    return this.byProject.get(projectId) ?? [];
  }
}
