/**
 * The slots of one process's deliveries and the line for them (stores/memory/deliveries.ts). A receiver that accepts and never
 * answers holds a socket per attempt until the timeout, so attempts on the wire are capped overall, per tenant and per
 * project; attempts due while their caps are full wait here, per tenant, then per project, oldest first. Slots go
 * round the tenants, then round each tenant's projects, so a tenant whose receivers never answer holds at most its own
 * share and no project waits behind a sibling's burst. Over several processes on one PostgreSQL the claim applies this
 * same queue to the due rows, with every process's attempts on the wire counted (stores/postgres/deliveries.ts).
 */
export interface Caps {
  total: number;
  perTenant: number;
  perProject: number;
}

export interface Slotted {
  tenant: string;
  project: string;
}

export class FairQueue<T> {
  private readonly line = new Map<string, Map<string, T[]>>();
  private waitingCount = 0;
  private readonly onWireProject = new Map<string, number>();
  private readonly onWireTenant = new Map<string, number>();
  private onWireTotal = 0;

  constructor(
    private readonly caps: Caps,
    private readonly where: (item: T) => Slotted,
  ) {}

  /** Items waiting for a slot. */
  get waiting(): number {
    return this.waitingCount;
  }

  /** Items holding a slot. */
  get onWire(): number {
    return this.onWireTotal;
  }

  /** Takes a slot for `item` (drain chose it, or it is already on the wire); `release` gives it back. */
  take(item: T): void {
    const { tenant, project } = this.where(item);
    this.onWireTotal++;
    this.onWireTenant.set(tenant, (this.onWireTenant.get(tenant) ?? 0) + 1);
    this.onWireProject.set(project, (this.onWireProject.get(project) ?? 0) + 1);
  }

  release(item: T): void {
    const { tenant, project } = this.where(item);
    this.onWireTotal--;
    this.onWireTenant.set(tenant, (this.onWireTenant.get(tenant) ?? 1) - 1);
    this.onWireProject.set(project, (this.onWireProject.get(project) ?? 1) - 1);
  }

  /** Puts `item` at the back of its project's line. */
  push(item: T): void {
    const { tenant, project } = this.where(item);
    let projects = this.line.get(tenant);
    if (!projects) this.line.set(tenant, (projects = new Map()));
    const list = projects.get(project);
    if (list) list.push(item);
    else projects.set(project, [item]);
    this.waitingCount++;
  }

  /**
   * Hands items to `start` while slots are free: one per tenant per round, and within a tenant one project after
   * another. `start` takes the slot (or not, when it decides the item will not be sent after all).
   */
  drain(start: (item: T) => void): void {
    let progressed = true;
    while (progressed && this.onWireTotal < this.caps.total && this.line.size > 0) {
      progressed = false;
      for (const [tenant, projects] of [...this.line]) {
        if (this.onWireTotal >= this.caps.total) break;
        if ((this.onWireTenant.get(tenant) ?? 0) >= this.caps.perTenant) continue;
        for (const [project, list] of [...projects]) {
          if ((this.onWireProject.get(project) ?? 0) >= this.caps.perProject) continue;
          const item = list.shift()!;
          this.waitingCount--;
          // Round robin: the project served goes to the back of its tenant's line, the tenant to the back of the line.
          projects.delete(project);
          if (list.length > 0) projects.set(project, list);
          this.line.delete(tenant);
          if (projects.size > 0) this.line.set(tenant, projects);
          progressed = true;
          start(item);
          break;
        }
      }
    }
  }

  /** Takes out the waiting items of one project that `drop` says go (in line order); the others keep their place. */
  removeWhere(tenant: string, project: string, drop: (item: T) => boolean): T[] {
    const projects = this.line.get(tenant);
    const list = projects?.get(project) ?? [];
    const gone = list.filter(drop);
    const keep = list.filter((item) => !gone.includes(item));
    this.waitingCount -= gone.length;
    if (keep.length) projects!.set(project, keep);
    else projects?.delete(project);
    if (projects && projects.size === 0) this.line.delete(tenant);
    return gone;
  }

  /** Empties the line; returns what waited. */
  clear(): T[] {
    const all = [...this.line.values()].flatMap((projects) => [...projects.values()].flat());
    this.line.clear();
    this.waitingCount = 0;
    return all;
  }
}
