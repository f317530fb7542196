/**
 * Fair shares of one process's work between organisations (tenants), work-conserving: a slot is never left idle while a
 * request waits for one.
 *
 * A request holds a slot from the moment its handler starts until its handler has answered (or failed): the process's
 * work, not the socket's sending. The slots bound the requests at work to what the machine can run
 * (`--max-active-requests`): past them, more requests at once only make each one slower. While slots are free every
 * request starts at once, so a team alone, or beside teams that are not waiting, gets the whole process (and, each
 * process deciding alone, the whole sandbox). Once they are all taken, a request waits in its organisation's own queue,
 * and each freed slot goes to the waiting organisation with the fewest requests at work, the one served longest ago
 * among equals: round robin over the organisations waiting, weighted by what each already has. A flood therefore
 * waits behind itself, and another team's request takes the next slot that frees. Only while others wait is a team held
 * to its share; nothing is announced between processes, and nobody rests.
 *
 * While another organisation has requests at work or waiting, a queue past its bound answers 429 with Retry-After,
 * naming the option that raises it; a team alone waits only on itself (its connections are capped anyway:
 * http/connection-limits.ts).
 *
 * The event loop is a slot too. One poll for input reads many requests at once (a flood's 24 connections and another
 * team's one); run as they are read, each handler that never waits (the memory store's) runs before the next request
 * is even looked at, and the other team's request waits behind the whole flood's batch. So only the first
 * `BURST_PER_TURN` requests of a turn of the event loop start as they are read; the rest of the turn's join their
 * queues, and the queues are handed slots in the turn's check phase (`setImmediate`), fairly, before the next poll. A
 * slot given back is handed on there too, so the requests read meanwhile are in their queues when the choice is made,
 * not chosen by the order their sockets were read. Nothing idles: the loop goes on reading and answering meanwhile, and
 * every request waiting is looked at in the same turn. A request that starts at once costs a counter (issue #63).
 */
import { tooMany } from "../model/tenant-limits.ts";

export interface AdmissionLimits {
  /** Requests the process works on at once (`--max-active-requests`). */
  slots: number;
  /** Requests one organisation may have waiting for a slot (`--max-queued-per-tenant`). */
  queuedPerTenant: number;
}

type Waiting = () => void;

/**
 * Requests started as they are read in one turn of the event loop; the rest of the turn's wait for its check phase,
 * where the queues are served fairly (see the top of this file).
 */
const BURST_PER_TURN = 1;

/** An admitted request's slot: `done()` gives it back (at most once, whatever calls it again). */
export interface Ticket {
  done(): void;
}

/** What admission sees of a response: whether, and when, its client left. */
export interface Leaving {
  readonly closed?: boolean;
  once(event: "close", fn: () => void): unknown;
  removeListener(event: "close", fn: () => void): unknown;
}

export class FairAdmission {
  private activeTotal = 0;
  private readonly active = new Map<string, number>();
  private readonly queues = new Map<string, Waiting[]>();
  private queued = 0;
  /** When each organisation with work or a queue was last given a slot (a counter, not a time). */
  private readonly served = new Map<string, number>();
  private turn = 0;
  /** Requests started at once in this turn of the event loop, and whether its check phase is booked. */
  private burst = 0;
  private booked = false;
  private readonly checkPhase = () => {
    this.booked = false;
    this.burst = 0;
    this.drain();
  };

  constructor(private readonly limits: AdmissionLimits) {}

  /** Requests at work now, and waiting (the bench and `/readyz`-style figures). */
  get load(): { active: number; queued: number } {
    return { active: this.activeTotal, queued: this.queued };
  }

  /**
   * Takes a slot for `tenant`: null when one was free (the request starts now), else a promise that resolves when a
   * slot is given to it. Throws the 429 when the tenant's queue is full while another organisation wants the process.
   */
  admit(tenant: string): Promise<void> | null {
    if (this.activeTotal < this.limits.slots && this.queued === 0 && this.burst < BURST_PER_TURN) {
      this.burst++;
      this.book();
      this.take(tenant);
      return null;
    }
    let queue = this.queues.get(tenant);
    if ((queue?.length ?? 0) >= this.limits.queuedPerTenant && this.othersThan(tenant)) {
      throw tooMany(`This organisation already has ${this.limits.queuedPerTenant} requests waiting for this sandbox process (--max-queued-per-tenant); other organisations' requests go first while it is busy`);
    }
    if (!queue) this.queues.set(tenant, (queue = []));
    this.queued++;
    this.book();
    return new Promise<void>((resolve) => queue.push(resolve));
  }

  /**
   * Gives back `tenant`'s slot; with requests waiting, the turn's check phase hands it to the waiting organisation with
   * the fewest at work.
   */
  release(tenant: string): void {
    this.activeTotal--;
    const left = (this.active.get(tenant) ?? 1) - 1;
    if (left > 0) this.active.set(tenant, left);
    else {
      this.active.delete(tenant);
      if (!this.queues.has(tenant)) this.served.delete(tenant);
    }
    if (this.queued > 0) this.book();
  }

  /**
   * Admits the request behind `res` for `tenant`: a ticket whose `done()` gives the slot back once the request's work is
   * done (its handler has answered or failed: sending the bytes is the socket's, not the process's, work), or null when
   * the client left while it waited (its slot is given back at once; the handler should not run). Synchronous when a
   * slot is free: a request that starts at once pays a counter and a ticket, no promise, listener or timer.
   */
  enter(tenant: string, res: Leaving): Ticket | null | Promise<Ticket | null> {
    // The client left before the request got here (during a delay, or its body): its "close" has been emitted already.
    if (res.closed) return null;
    const wait = this.admit(tenant);
    if (wait === null) return new Slot(this, tenant);
    let gone = false;
    const left = () => void (gone = true);
    res.once("close", left);
    return wait.then(() => {
      res.removeListener("close", left);
      if (!gone) return new Slot(this, tenant);
      // Nothing was done with it: the slot goes on now, in the same check phase.
      this.release(tenant);
      this.drain();
      return null;
    });
  }

  /** Books the check phase of this turn of the event loop (once a turn). */
  private book(): void {
    if (this.booked) return;
    this.booked = true;
    setImmediate(this.checkPhase);
  }

  /**
   * Hands every free slot to the waiting organisations, the fewest at work first. The handlers admitted here run after
   * it (their promises settle after this callback), so a handler that never waits gives its slot back after the loop
   * and the next ones are handed on in the next turn's check phase, after its poll: the requests read then are chosen
   * among too.
   */
  private drain(): void {
    while (this.activeTotal < this.limits.slots && this.queued > 0) this.next();
  }

  /** Whether another organisation has requests at work or waiting. */
  private othersThan(tenant: string): boolean {
    for (const t of this.active.keys()) if (t !== tenant) return true;
    for (const t of this.queues.keys()) if (t !== tenant) return true;
    return false;
  }

  private take(tenant: string): void {
    this.activeTotal++;
    this.active.set(tenant, (this.active.get(tenant) ?? 0) + 1);
    this.served.set(tenant, this.turn++);
  }

  /**
   * Starts the head of the queue of the waiting organisation with the fewest requests at work, the one served longest
   * ago among equals (never served first; then the queue that formed first, as the map keeps insertion order).
   */
  private next(): void {
    let best: string | null = null;
    let bestActive = Infinity;
    let bestServed = Infinity;
    for (const tenant of this.queues.keys()) {
      const at = this.active.get(tenant) ?? 0;
      const served = this.served.get(tenant) ?? -1;
      if (at < bestActive || (at === bestActive && served < bestServed)) {
        best = tenant;
        bestActive = at;
        bestServed = served;
      }
    }
    const queue = this.queues.get(best!)!;
    const admit = queue.shift()!;
    if (queue.length === 0) this.queues.delete(best!);
    this.queued--;
    this.take(best!);
    admit();
  }
}

/** An admitted request's slot (a class, not a closure: one small object per request on the path every request takes). */
class Slot implements Ticket {
  private open = true;

  constructor(
    private readonly admission: FairAdmission,
    private readonly tenant: string,
  ) {}

  done(): void {
    if (!this.open) return;
    this.open = false;
    this.admission.release(this.tenant);
  }
}
