/**
 * The attempt queue of one process (memory, SQLite): events and attempts in memory, each written to the data dir's
 * backend as it changes (nothing with the memory store), and read back at the next start. Attempts waiting for their
 * time are kept in due order; once due they join the fair queue's line (webhooks/fair-queue.ts), which hands out the
 * slots under the caps.
 */
import { iso } from "../../clock.ts";
import type { Project } from "../../model/project.ts";
import { ascBy, insertSorted, type Compare } from "../../model/sorted.ts";
import { AttemptRecords, type Attempt } from "../../webhooks/attempt-records.ts";
import type { EventDelivery } from "../../webhooks/attempt-outcome.ts";
import { EventStore } from "../../webhooks/event-store.ts";
import { FairQueue, type Caps } from "../../webhooks/fair-queue.ts";
import type { WebhookDelivery } from "../../webhooks/types.ts";
import type { LocalBackend } from "../backend.ts";
import type { Claimed, Deliveries, Outcome } from "../deliveries.ts";
import { MemoryBackend } from "./backend.ts";

const OWNER = "this process";
const SHUTDOWN = "cancelled: server shutting down";
/** Soonest due first, ties by id: the deliveries list's order (attempt-log.ts). */
const byRecord = ascBy<WebhookDelivery>((d) => d.scheduled_at);
const byDue: Compare<Attempt> = (a, b) => byRecord(a.record, b.record);

export interface MemoryDeliveriesOptions {
  /** Where events and attempts are written down (`--data-dir`); pending ones resume at the next start. */
  backend?: LocalBackend;
  caps: Caps;
  /** Events kept per tenant for resends and lookups (the oldest are forgotten first). */
  eventsKeptPerTenant: number;
  /** Attempts kept per project for the deliveries list. */
  attemptsKeptPerProject: number;
}

export class MemoryDeliveries implements Deliveries {
  private readonly backend: LocalBackend;
  private readonly records: AttemptRecords;
  private readonly events: EventStore;
  private readonly line: FairQueue<Attempt>;
  /** Pending attempts not yet due, soonest first. */
  private waiting: Attempt[] = [];
  /** Attempts on the wire, by id. */
  private readonly onWire = new Map<string, Attempt>();
  /** In flight when the last process stopped: counted interrupted at the first look. */
  private cut: Attempt[] = [];
  private wake: () => void = () => {};

  constructor(o: MemoryDeliveriesOptions) {
    this.backend = o.backend ?? new MemoryBackend();
    this.records = new AttemptRecords(this.backend, o.attemptsKeptPerProject);
    this.events = new EventStore(this.backend, o.eventsKeptPerTenant, (ev) => this.records.list(ev.project.id).filter((d) => d.event_id === ev.id).map((d) => d.status));
    this.line = new FairQueue<Attempt>(o.caps, (a) => ({ tenant: a.ev.project.tenant, project: a.ev.project.id }));
  }

  start(projects: ReadonlyMap<string, Project>, wake: () => void): number {
    this.wake = wake;
    this.events.restore(projects);
    for (const { project_id, record } of this.backend.attempts()) {
      const stored = projects.has(project_id) ? this.events.get(record.event_id) : undefined;
      if (!stored) continue;
      this.records.add(project_id, record);
      // A resend goes to the URL it was made for; other attempts to the event's own.
      const a: Attempt = { ev: record.url === stored.url ? stored : { ...stored, url: record.url }, record };
      if (record.status === "in_flight") this.cut.push(a);
      else if (record.status === "pending") insertSorted(this.waiting, a, byDue);
    }
    return this.waiting.length + this.cut.length;
  }

  private pend(a: Attempt): void {
    insertSorted(this.waiting, a, byDue);
    this.wake();
  }

  async addEvent(ev: EventDelivery, nowMs: number): Promise<void> {
    this.backend.atomically(() => this.events.remember(ev));
    this.pend(this.records.create(ev, 1, nowMs, "event"));
  }

  async addAttempt(ev: EventDelivery, attempt: number, trigger: WebhookDelivery["trigger"], url: string, dueMs: number): Promise<WebhookDelivery> {
    const a = this.records.create({ ...ev, url }, attempt, dueMs, trigger);
    this.pend(a);
    return a.record;
  }

  /** No `room`: the line's total cap is the core's, and counts the same attempts on the wire. */
  async claim(nowMs: number): Promise<Claimed[]> {
    // The due ones join the line, oldest due first.
    let n = 0;
    while (n < this.waiting.length && Date.parse(this.waiting[n].record.scheduled_at) <= nowMs) n++;
    for (const a of this.waiting.splice(0, n)) this.line.push(a);
    const taken: Claimed[] = [];
    this.line.drain((a) => {
      this.line.take(a);
      this.records.update(a, { status: "in_flight", sent_at: iso(nowMs) });
      this.onWire.set(a.record.id, a);
      taken.push({ record: a.record, ev: a.ev, owner: OWNER });
    });
    return taken;
  }

  async finish(c: Claimed, outcome: Outcome, nowMs: number, then: () => Promise<void>): Promise<void> {
    const a = this.onWire.get(c.record.id) ?? this.cut.find((x) => x.record.id === c.record.id);
    if (!a) return;
    this.release(a);
    this.records.update(a, { ...outcome, finished_at: iso(nowMs) });
    await then();
  }

  private release(a: Attempt): void {
    if (this.onWire.delete(a.record.id)) this.line.release(a);
    this.cut = this.cut.filter((x) => x !== a);
  }

  async abandon(c: Claimed): Promise<boolean> {
    // With a data dir it stays in flight there, and the next start counts it interrupted; without one it ends here.
    if (!this.backend.durable) return false;
    const a = this.onWire.get(c.record.id);
    if (a) this.release(a);
    return true;
  }

  async interrupted(): Promise<Claimed[]> {
    return this.cut.map((a) => ({ record: a.record, ev: a.ev, owner: OWNER }));
  }

  async cancelPending(project: Project, reasonOf: (ev: EventDelivery, record: WebhookDelivery) => string | null, nowMs: number): Promise<void> {
    const stale = (a: Attempt) => a.ev.project.id === project.id && reasonOf(a.ev, a.record) !== null;
    const gone = [...this.line.removeWhere(project.tenant, project.id, stale), ...this.waiting.filter(stale)];
    this.waiting = this.waiting.filter((a) => !stale(a));
    for (const a of gone) this.records.update(a, { status: "cancelled", error: reasonOf(a.ev, a.record), finished_at: iso(nowMs) });
  }

  async list(project: Project): Promise<readonly WebhookDelivery[]> {
    return this.records.list(project.id);
  }

  async find(project: Project, attemptId: string): Promise<{ record: WebhookDelivery; ev: EventDelivery } | null> {
    const record = this.records.list(project.id).find((d) => d.id === attemptId);
    const ev = record ? this.events.get(record.event_id) : undefined;
    return record && ev && ev.project === project ? { record, ev } : null;
  }

  async attemptNumbers(ev: EventDelivery): Promise<number[] | null> {
    if (!this.events.get(ev.id)) return null;
    return this.records.list(ev.project.id).filter((d) => d.event_id === ev.id).map((d) => d.attempt);
  }

  async outlook(): Promise<{ nextMs: number | null; waiting: number; queued: number }> {
    // Attempts queued for a slot go when one frees (an attempt ends, which wakes the core).
    const nextMs = this.waiting.length > 0 ? Date.parse(this.waiting[0].record.scheduled_at) : null;
    return { nextMs, waiting: this.waiting.length, queued: this.line.waiting };
  }

  async close(nowMs: number): Promise<void> {
    const pending = [...this.waiting, ...this.line.clear()];
    this.waiting = [];
    // With a data dir, pending attempts stay pending in it and resume at the next start; without one they end here.
    if (!this.backend.durable) for (const a of pending) this.records.update(a, { status: "cancelled", error: SHUTDOWN, finished_at: iso(nowMs) });
  }
}
