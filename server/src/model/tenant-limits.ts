/**
 * What one organisation (tenant) may hold or open on a shared sandbox, so one team's flood never takes what another
 * team needs. Every limit has a default, an option (server/README.md lists them) and a clear answer when it is hit:
 * 409 for a quota of things kept (projects, planted data), 429 with Retry-After for things open at once (streams,
 * held requests).
 */
import { ApiError, conflict } from "../http/errors.ts";
import type { Project } from "./project.ts";
import type { SharedCounter, SharedQuota } from "../stores/limits.ts";

export interface TenantLimits {
  /** Projects a tenant may create through `POST /_sim/projects`. */
  projects: number;
  /** Planted items (studies, interviews, chats, messages) a tenant may add through the simulation surface. */
  planted: number;
  /** Webhook events kept per tenant for resends, request lookups and the stream (the oldest are forgotten first). */
  eventsKept: number;
  /**
   * Webhook attempts each project's deliveries list keeps: past the newest this many, finished attempts are forgotten
   * (pending and in-flight ones never are: webhooks/attempt-outcome.ts).
   */
  attemptsKept: number;
  /** Open event streams (`GET /_sim/events`) per tenant, and per source address. */
  streams: number;
  streamsPerAddress: number;
  /** Requests held open by a delay (`Prefer: delay=`, fault latency) per tenant, and per source address. */
  held: number;
  heldPerAddress: number;
  /** Unread bytes an event stream may buffer before the server drops that listener. */
  streamBufferBytes: number;
  /** Webhook attempts on the wire at once per tenant (then per project, then overall). */
  deliveriesPerTenant: number;
  /**
   * API requests one process works on at once; past it, each tenant's requests wait in the tenant's own queue and a
   * freed slot goes to the tenant with the fewest at work (http/fair-admission.ts).
   */
  requestSlots: number;
  /** API requests one tenant may have waiting for a slot; past it, 429 with Retry-After. */
  queuedPerTenant: number;
}

export const DEFAULT_TENANT_LIMITS: TenantLimits = {
  projects: 200,
  planted: 100_000,
  eventsKept: 10_000,
  attemptsKept: 1_000,
  streams: 32,
  streamsPerAddress: 16,
  held: 64,
  heldPerAddress: 32,
  streamBufferBytes: 1024 * 1024,
  deliveriesPerTenant: 16,
  requestSlots: 8,
  queuedPerTenant: 256,
};

export const tooMany = (message: string, retryAfterS = 1) => new ApiError(429, "api_error", message, undefined, { "Retry-After": String(retryAfterS) });

/** A count per key with a cap: `take` refuses past the cap, `give` returns one. */
export class Counter {
  private readonly counts = new Map<string, number>();
  constructor(readonly cap: number) {}
  get(key: string): number {
    return this.counts.get(key) ?? 0;
  }
  /** Takes `n` when that stays within the cap; false otherwise (nothing taken). */
  take(key: string, n = 1): boolean {
    const now = this.get(key);
    if (now + n > this.cap) return false;
    this.counts.set(key, now + n);
    return true;
  }
  give(key: string, n = 1): void {
    const left = this.get(key) - n;
    if (left <= 0) this.counts.delete(key);
    else this.counts.set(key, left);
  }
  /** Counts `n` whatever the cap (what was accepted before a restart is never refused). */
  add(key: string, n: number): void {
    this.counts.set(key, this.get(key) + n);
  }
}

/**
 * Things open at once, capped per tenant and per source address: one slot is taken from both or from neither. The
 * refusals name the options that raise each cap.
 */
export class OpenSlots {
  private readonly perTenant: Counter;
  private readonly perAddress: Counter;
  /** With several processes on one PostgreSQL: the tenant cap counted over all of them (stores/postgres/shared-slots.ts). */
  private shared: { counter: SharedCounter; kind: string } | null = null;

  constructor(
    private readonly tenantCap: number,
    addressCap: number,
    private readonly refusal: { tenant: () => ApiError; address: () => ApiError },
  ) {
    this.perTenant = new Counter(tenantCap);
    this.perAddress = new Counter(addressCap);
  }

  /** Counts the tenant cap over every process sharing `counter`, as `kind`. */
  share(counter: SharedCounter, kind: string): void {
    this.shared = { counter, kind };
  }

  /**
   * `take`, and then, with several processes, the tenant's slot over all of them; refused (nothing taken) when either
   * is full. `give` returns both.
   */
  async admit(tenant: string, address: string): Promise<void> {
    this.take(tenant, address);
    if (!this.shared) return;
    let ok = false;
    try {
      ok = await this.shared.counter.take(this.shared.kind, tenant, this.tenantCap);
    } finally {
      if (!ok) {
        this.perTenant.give(tenant);
        this.perAddress.give(address);
      }
    }
    if (!ok) throw this.refusal.tenant();
  }

  /** Returns a slot taken by `admit`. */
  release(tenant: string, address: string): void {
    this.give(tenant, address);
    this.shared?.counter.give(this.shared.kind, tenant);
  }

  /** Takes a slot for `tenant` and `address`, or throws the refusal of the cap that is full (nothing taken). */
  take(tenant: string, address: string): void {
    if (!this.perTenant.take(tenant)) throw this.refusal.tenant();
    if (this.perAddress.take(address)) return;
    this.perTenant.give(tenant);
    throw this.refusal.address();
  }

  give(tenant: string, address: string): void {
    this.perTenant.give(tenant);
    this.perAddress.give(address);
  }
}

/** The quotas of things kept, per tenant: planted data (projects are counted by the store). */
export class Quotas {
  private readonly planted: Counter;
  private shared: SharedQuota | null = null;

  constructor(readonly limits: TenantLimits) {
    this.planted = new Counter(limits.planted);
  }

  /** Several processes on one PostgreSQL: planted items are counted in its table, not in the process. */
  share(quota: SharedQuota): void {
    this.shared = quota;
  }

  /** Counts `n` planted items against the project's tenant, or refuses them with a 409 naming the quota. */
  plant(project: Project, n: number): void | Promise<void> {
    if (this.shared) return this.shared.take(project.tenant, n, this.limits.planted, (count) => this.refusal(count, n));
    if (this.planted.take(project.tenant, n)) return;
    throw this.refusal(this.planted.get(project.tenant), n);
  }

  private refusal(count: number, n: number): ApiError {
    return conflict(`This organisation has planted ${count} of its ${this.limits.planted} simulated items (studies, interviews, chats and messages); this request adds ${n}. Start a sandbox with a larger --max-planted, or a fresh data dir`);
  }

  /** Counts items found in the data dir at start-up (never refused: they were accepted before). */
  restored(project: Project, n: number): void {
    this.planted.add(project.tenant, n);
  }
}
