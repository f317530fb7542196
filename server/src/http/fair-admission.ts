/**
 * Fair shares of one process's work between organisations (tenants). A request holds a slot from the moment its
 * handler starts until its handler has answered (or failed): the process's work, not the socket's sending. While slots are free, every request starts
 * at once: a team alone gets the whole process. Once they are all taken, a request waits in its organisation's own
 * queue, and each freed slot goes to the waiting organisation with the fewest requests at work (among equals, the one
 * served longest ago), so a flood from one team waits behind itself while another team's request goes first. While
 * another team has requests at work or waiting, a queue past its bound answers 429 with Retry-After, naming the option
 * that raises it.
 *
 * While another organisation has been served in the last second, an organisation works on at most `perTenantShared`
 * requests at once (its share; more wait in its queue even with slots free): on a store whose requests take several
 * round trips to a database, a flood with every slot of every process keeps the machine's cores busy, and another
 * team's request then waits behind the flood's in the event loop, the pool and the run queue, however soon it is
 * admitted. Alone, an organisation gets every slot.
 *
 * Several processes over one store are one sandbox (`shareWith()`): each tells the others which organisations it serves,
 * so an organisation is present on every process as soon as it is served on one; and an organisation held to its share
 * rests, after each request, for as long as the request took times the number of other live processes. Its share is
 * then of the whole sandbox (about `perTenantShared` requests at work over all processes), not of each process: three
 * processes each working on one request of a flood kept a two-core machine's cores busy, and another team's p99 at
 * 2.7-3.9x of alone (bench/fairness.ts; 1.4-2.3x with the share of the sandbox).
 *
 * A freed slot is handed on only after the event loop's next poll for input when requests wait: the requests read in
 * that poll are in their queues when it is, and the fewest-at-work rule chooses among them, not the order their sockets
 * were read (bench/fairness.ts measures the difference). On a store whose handlers never wait (memory, SQLite), a
 * request's work ends before the next is read: slots are never all taken, no request queues, and admission costs a
 * counter (issue #63: holding the slot until the response closed queued a lone team's requests behind its own).
 */
import type { SharedAdmission } from "../stores/limits.ts";
import { tooMany } from "../model/tenant-limits.ts";

export interface AdmissionLimits {
  /** Requests the process works on at once (`--max-active-requests`). */
  slots: number;
  /** Requests one organisation may have waiting for a slot (`--max-queued-per-tenant`). */
  queuedPerTenant: number;
  /**
   * Requests one organisation works on at once while another has been served in the last second
   * (`--max-active-per-tenant`; default: every slot).
   */
  perTenantShared?: number;
}

/** How long after its last request another organisation still counts as present. */
const PRESENT_MS = 1_000;
/** How often a process tells the others again that it serves an organisation. */
const ANNOUNCE_MS = 250;
/**
 * The longest a request counts as work for its organisation's rest: longer is waiting (a row lock, a slow peer), not
 * the process's time, and must not keep the organisation out for seconds.
 */
const REST_BASIS_MS = 100;

type Waiting = () => void;

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
  /** When each organisation was last given a slot (ms), while it may still count as present. */
  private readonly seen = new Map<string, number>();
  private readonly share: number;
  /** When this process last told the others it serves each organisation (ms). */
  private readonly announced = new Map<string, number>();
  /** Per organisation held to its share, until when each of its finished requests rests (ms). */
  private readonly resting = new Map<string, number[]>();
  private shared: SharedAdmission | null = null;
  private timer: NodeJS.Timeout | null = null;
  private timerAt = Infinity;

  constructor(
    private readonly limits: AdmissionLimits,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.share = Math.max(1, limits.perTenantShared ?? limits.slots);
  }

  /** Makes this process one of several over a shared store (see the top of this file). */
  shareWith(shared: SharedAdmission): void {
    this.shared = shared;
  }

  /** Another process served `tenant` just now. */
  present(tenant: string): void {
    if (this.share < this.limits.slots) this.seen.set(tenant, this.now());
  }

  /** Whether `tenant` has its share at work (or resting) while another organisation is present. */
  private pastShare(tenant: string): boolean {
    if (this.share >= this.limits.slots) return false;
    const now = this.now();
    if ((this.active.get(tenant) ?? 0) + this.restingNow(tenant, now) < this.share) return false;
    return this.othersPresent(tenant, now);
  }

  private othersPresent(tenant: string, now: number): boolean {
    for (const [t, at] of this.seen) {
      if (now - at >= PRESENT_MS && !this.active.has(t) && !this.queues.has(t)) {
        this.seen.delete(t);
        this.announced.delete(t);
      } else if (t !== tenant) return true;
    }
    return false;
  }

  /** How many of `tenant`'s finished requests still rest at `now`. */
  private restingNow(tenant: string, now: number): number {
    const until = this.resting.get(tenant);
    if (!until) return 0;
    const left = until.filter((t) => t > now);
    if (left.length === 0) this.resting.delete(tenant);
    else if (left.length < until.length) this.resting.set(tenant, left);
    return left.length;
  }

  /**
   * A request of `tenant` that worked `workedMs` is done: if more of its requests wait (it is held to its share), with
   * other processes and another organisation present, it rests for that long times the other processes, and whoever
   * waits is looked at again when it has rested. A team that waits for each answer before it asks again never rests.
   */
  private rest(tenant: string, workedMs: number): void {
    const others = (this.shared?.processes() ?? 1) - 1;
    if (others < 1 || this.share >= this.limits.slots || !this.queues.has(tenant)) return;
    const now = this.now();
    if (!this.othersPresent(tenant, now)) return;
    const ms = Math.min(Math.max(workedMs, 0), REST_BASIS_MS) * others;
    if (ms <= 0) return;
    const until = this.resting.get(tenant) ?? [];
    until.push(now + ms);
    this.resting.set(tenant, until);
  }

  /** Hands free slots to the waiting organisations with the fewest at work. */
  private drain(): void {
    while (this.activeTotal < this.limits.slots && this.queued > 0) if (!this.next()) break;
    this.schedule();
  }

  /**
   * With slots free and requests still waiting (held to their share), no release may come to start them: looks at the
   * queues again when the first rest ends or another organisation stops counting as present. One timer at a time.
   */
  private schedule(): void {
    if (this.queued === 0 || this.activeTotal >= this.limits.slots) return;
    const now = this.now();
    let at = Infinity;
    for (const tenant of this.queues.keys()) for (const until of this.resting.get(tenant) ?? []) if (until > now) at = Math.min(at, until);
    for (const [tenant, seen] of this.seen) {
      if (!this.active.has(tenant) && !this.queues.has(tenant) && seen + PRESENT_MS > now) at = Math.min(at, seen + PRESENT_MS);
    }
    // A rest or a presence that ended since the queues were last looked at (the clock moves between two reads of it)
    // leaves a queue that may start now, and is in none of the times above: look again at once.
    if ([...this.queues.keys()].some((t) => !this.pastShare(t))) at = now;
    if (at === Infinity || (this.timer && this.timerAt <= at)) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.timerAt = Infinity;
      // Early by this clock, the queues still rest, and the drain's own look sets the next time.
      this.drain();
    }, Math.max(1, Math.ceil(at - now)));
    this.timer.unref();
  }

  /** Requests at work now, and waiting (the bench and `/readyz`-style figures). */
  get load(): { active: number; queued: number } {
    return { active: this.activeTotal, queued: this.queued };
  }

  /**
   * Takes a slot for `tenant`: null when it was free (the request starts now), else a promise that resolves when a
   * slot is given to it. Throws the 429 when the tenant's queue is full. Each admission is released exactly once.
   */
  admit(tenant: string): Promise<void> | null {
    // With slots free, those waiting have their share at work: a request within its own share starts beside them.
    if (this.activeTotal < this.limits.slots && !this.pastShare(tenant) && (this.queued === 0 || (!this.queues.has(tenant) && [...this.queues.keys()].every((t) => this.pastShare(t))))) {
      this.take(tenant);
      return null;
    }
    let queue = this.queues.get(tenant);
    // The bound is on a team past its share while others want the process too; a team alone waits only on itself
    // (its connections are capped anyway: http/connection-limits.ts).
    if ((queue?.length ?? 0) >= this.limits.queuedPerTenant && this.othersThan(tenant)) {
      throw tooMany(`This organisation already has ${this.limits.queuedPerTenant} requests waiting for this sandbox process (--max-queued-per-tenant); other organisations' requests go first while it is busy`);
    }
    if (!queue) this.queues.set(tenant, (queue = []));
    this.queued++;
    const waiting = new Promise<void>((resolve) => queue.push(resolve));
    this.schedule();
    return waiting;
  }

  /**
   * Gives back `tenant`'s slot (of a request that worked `workedMs`), and hands free slots to the waiting organisations
   * with the fewest at work.
   */
  release(tenant: string, workedMs = 0): void {
    this.rest(tenant, workedMs);
    this.activeTotal--;
    const left = (this.active.get(tenant) ?? 1) - 1;
    if (left > 0) this.active.set(tenant, left);
    else {
      this.active.delete(tenant);
      if (!this.queues.has(tenant)) this.served.delete(tenant);
    }
    this.drain();
  }

  /**
   * Admits the request behind `res` for `tenant`: a ticket whose `done()` gives the slot back once the request's work is
   * done (its handler has answered or failed: sending the bytes is the socket's, not the process's, work), or null when
   * the client left while it waited (its slot is given back at once; the handler should not run). Synchronous when a
   * slot is free: a request that starts at once pays a counter and a ticket, no promise, listener or timer.
   */
  enter(tenant: string, res: Leaving): Ticket | null | Promise<Ticket | null> {
    // The client left before the request got here (during a delay, or its body): its "close" has
    // been emitted already.
    if (res.closed) return null;
    const wait = this.admit(tenant);
    if (wait === null) return this.ticket(tenant);
    let gone = false;
    const left = () => void (gone = true);
    res.once("close", left);
    return wait.then(() => {
      res.removeListener("close", left);
      if (!gone) return this.ticket(tenant);
      this.release(tenant);
      return null;
    });
  }

  /** Only a process held to shares over several processes times its requests (their rests are made of it). */
  private get timed(): boolean {
    return this.shared !== null && this.share < this.limits.slots;
  }

  private ticket(tenant: string): Ticket {
    return new Slot(this, tenant, this.timed ? this.now() : null);
  }

  /**
   * A slot's work is done: with requests waiting, it is handed on after the poll phase (requests that arrived meanwhile
   * are in their queues when it is; see the top of this file); with nobody waiting there is no one to choose.
   */
  finished(tenant: string, startedAt: number | null): void {
    const worked = startedAt === null ? 0 : this.now() - startedAt;
    if (this.queued === 0) this.release(tenant, worked);
    else setImmediate(() => this.release(tenant, worked));
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
    if (this.share < this.limits.slots) {
      const now = this.now();
      this.seen.set(tenant, now);
      if (this.shared && now - (this.announced.get(tenant) ?? -Infinity) >= ANNOUNCE_MS) {
        this.announced.set(tenant, now);
        this.shared.announce(tenant);
      }
    }
  }

  /**
   * Starts the head of the queue of the waiting organisation with the fewest requests at work, the one served longest
   * ago among equals (never served first; then the queue that formed first, as the map keeps insertion order); false
   * when every waiting organisation has its share at work (one of its own releases starts the next).
   */
  private next(): boolean {
    let best: string | null = null;
    let bestActive = Infinity;
    let bestServed = Infinity;
    for (const tenant of this.queues.keys()) {
      if (this.pastShare(tenant)) continue;
      const at = this.active.get(tenant) ?? 0;
      const served = this.served.get(tenant) ?? -1;
      if (at < bestActive || (at === bestActive && served < bestServed)) {
        best = tenant;
        bestActive = at;
        bestServed = served;
      }
    }
    if (best === null) return false;
    const queue = this.queues.get(best)!;
    const admit = queue.shift()!;
    if (queue.length === 0) this.queues.delete(best);
    this.queued--;
    this.take(best);
    admit();
    return true;
  }
}

/** An admitted request's slot (a class, not a closure: one small object per request on the path every request takes). */
class Slot implements Ticket {
  private open = true;

  constructor(
    private readonly admission: FairAdmission,
    private readonly tenant: string,
    private readonly startedAt: number | null,
  ) {}

  done(): void {
    if (!this.open) return;
    this.open = false;
    this.admission.finished(this.tenant, this.startedAt);
  }
}
