// Fair shares of a process's work (http/fair-admission.ts), slot by slot: free slots are taken at once, a busy process
// queues each organisation apart, a freed slot goes to the organisation with the fewest at work (served longest ago
// among equals), a full queue is a 429 with Retry-After, and a client that leaves while waiting gives its slot back.
import { EventEmitter } from "node:events";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ApiError } from "../src/http/errors.ts";
import { FairAdmission, type Ticket } from "../src/http/fair-admission.ts";
import type { SharedAdmission } from "../src/stores/limits.ts";

/**
 * Admits `tenant` and records when its request starts; `done()` ends it: its work done when it was admitted (the router
 * calls its ticket's done()), its client gone while it still waits.
 */
function request(fair: FairAdmission, tenant: string, started: string[], name = tenant) {
  const res = new EventEmitter();
  const now = fair.enter(tenant, res as never);
  // Admitted at once: its ticket is there before any promise settles.
  let ticket: Ticket | null = now instanceof Promise ? null : now;
  const entered = Promise.resolve(now).then((t) => {
    ticket = t;
    if (t) started.push(name);
    return t !== null;
  });
  return { entered, done: () => (ticket ? ticket.done() : res.emit("close")) };
}

const flush = () => new Promise((r) => setImmediate(r));
/** With fake timers and clock: moves both to `ms`, runs what fell due, then lets the promises settle. */
async function at(ms: number) {
  vi.advanceTimersByTime(ms - Date.now());
  await flush();
}

/** The other processes of one sandbox, as a process over PostgreSQL sees them: a count, and what it announced. */
function sandboxOf(processes: number) {
  const announced: string[] = [];
  const shared: SharedAdmission = { processes: () => processes, announce: (tenant) => announced.push(tenant) };
  return { shared, announced };
}

describe("fair admission", () => {
  it("gives a team alone every slot, and queues past them in arrival order", async () => {
    const fair = new FairAdmission({ slots: 3, queuedPerTenant: 10 });
    const started: string[] = [];
    const rs = Array.from({ length: 5 }, (_, i) => request(fair, "acme", started, `a${i}`));
    await flush();
    expect(started).toEqual(["a0", "a1", "a2"]);
    expect(fair.load).toEqual({ active: 3, queued: 2 });
    rs[1].done();
    await flush();
    expect(started).toEqual(["a0", "a1", "a2", "a3"]);
    rs[0].done();
    rs[2].done();
    await flush();
    expect(started).toEqual(["a0", "a1", "a2", "a3", "a4"]);
    expect(fair.load).toEqual({ active: 2, queued: 0 });
  });

  it("holds a team to its share while another team was served in the last second, and gives it every slot alone", async () => {
    let now = 0;
    const fair = new FairAdmission({ slots: 4, queuedPerTenant: 10, perTenantShared: 1 }, () => now);
    const started: string[] = [];
    const acme = Array.from({ length: 3 }, (_, i) => request(fair, "acme", started, `a${i}`));
    const globex = request(fair, "globex", started, "g0");
    await flush();
    expect(started).toEqual(["a0", "a1", "a2", "g0"]);
    globex.done();
    await flush();
    // A slot is free, but Globex was just served: Acme, with three at work against a share of one, waits.
    const a3 = request(fair, "acme", started, "a3");
    await flush();
    expect(fair.load).toEqual({ active: 3, queued: 1 });
    // Globex's next request starts at once beside it.
    const g1 = request(fair, "globex", started, "g1");
    await flush();
    expect(started).toEqual(["a0", "a1", "a2", "g0", "g1"]);
    g1.done();
    acme[0].done();
    acme[1].done();
    await flush();
    expect(fair.load).toEqual({ active: 1, queued: 1 });
    // A second after Globex's last request Acme is alone again: its next release starts the waiting one, and the
    // rest of the slots are its own.
    now = 1_500;
    acme[2].done();
    await flush();
    expect(await a3.entered).toBe(true);
    const more = Array.from({ length: 3 }, (_, i) => request(fair, "acme", started, `b${i}`));
    await flush();
    expect(started.slice(-4)).toEqual(["a3", "b0", "b1", "b2"]);
    expect(fair.load).toEqual({ active: 4, queued: 0 });
    for (const r of [a3, ...more]) r.done();
  });

  it("hands a freed slot to the waiting team with the fewest at work, before a flood's backlog", async () => {
    const fair = new FairAdmission({ slots: 2, queuedPerTenant: 100 });
    const started: string[] = [];
    const flood = Array.from({ length: 6 }, (_, i) => request(fair, "acme", started, `a${i}`));
    const g = [request(fair, "globex", started, "g0"), request(fair, "globex", started, "g1")];
    const i = request(fair, "initech", started, "i0");
    await flush();
    expect(started).toEqual(["a0", "a1"]);
    flood[0].done();
    await flush();
    // Globex and Initech have none at work and were never served; Globex's queue formed first.
    expect(started.slice(2)).toEqual(["g0"]);
    flood[1].done();
    await flush();
    // Acme has none at work now either, but it was served, Initech never: Initech goes before Acme's older backlog.
    expect(started.slice(3)).toEqual(["i0"]);
    g[0].done();
    await flush();
    // Acme and Globex none at work: Acme was served longest ago.
    expect(started.slice(4)).toEqual(["a2"]);
    i.done();
    await flush();
    // Acme one at work, Globex none.
    expect(started.slice(5)).toEqual(["g1"]);
    flood[2].done();
    await flush();
    expect(started.slice(6)).toEqual(["a3"]);
    for (const r of [...flood, ...g]) r.done();
    await flush();
    expect(fair.load.queued).toBe(0);
  });

  it("never refuses a team alone: past the bound its requests still wait their turn", async () => {
    const fair = new FairAdmission({ slots: 1, queuedPerTenant: 2 });
    const started: string[] = [];
    const rs = Array.from({ length: 6 }, (_, i) => request(fair, "acme", started, `a${i}`));
    expect(fair.load).toEqual({ active: 1, queued: 5 });
    for (const r of rs) {
      r.done();
      await flush();
    }
    expect(started).toEqual(["a0", "a1", "a2", "a3", "a4", "a5"]);
  });

  it("answers 429 with Retry-After once a team's queue is full while another team wants the process, and only that team's", async () => {
    const fair = new FairAdmission({ slots: 1, queuedPerTenant: 2 });
    const started: string[] = [];
    const first = request(fair, "acme", started);
    request(fair, "acme", started);
    request(fair, "acme", started);
    // Globex waits too: Acme is now past its share with others waiting.
    request(fair, "globex", started);
    let refusal: unknown;
    try {
      fair.admit("acme");
    } catch (err) {
      refusal = err;
    }
    expect(refusal).toBeInstanceOf(ApiError);
    expect((refusal as ApiError).status).toBe(429);
    expect((refusal as ApiError).headers).toEqual({ "Retry-After": "1" });
    expect((refusal as ApiError).message).toContain("--max-queued-per-tenant");
    // Another team still queues.
    expect(fair.admit("initech")).toBeInstanceOf(Promise);
    first.done();
    await flush();
    // The freed slot went to Globex (none at work, never served), ahead of Acme's queue.
    expect(started).toEqual(["acme", "globex"]);
    expect(fair.load).toEqual({ active: 1, queued: 3 });
  });

  it("takes no slot for a client that left before its request reached admission", async () => {
    // The counterexample of the cluster soak: autocannon's sockets closed while requests awaited the store's catch-up,
    // their "close" already emitted, and every slot leaked until all requests hung.
    const fair = new FairAdmission({ slots: 1, queuedPerTenant: 10 });
    const left = Object.assign(new EventEmitter(), { closed: true });
    expect(fair.enter("acme", left as never)).toBe(null);
    expect(fair.load).toEqual({ active: 0, queued: 0 });
    const started: string[] = [];
    await request(fair, "acme", started, "next").entered;
    expect(started).toEqual(["next"]);
  });

  it("gives the slot back when a client leaves while it waits, and never runs its handler", async () => {
    const fair = new FairAdmission({ slots: 1, queuedPerTenant: 10 });
    const started: string[] = [];
    const first = request(fair, "acme", started, "first");
    const leaving = request(fair, "globex", started, "leaving");
    const next = request(fair, "acme", started, "next");
    leaving.done();
    first.done();
    expect(await leaving.entered).toBe(false);
    await next.entered;
    expect(started).toEqual(["first", "next"]);
    expect(fair.load).toEqual({ active: 1, queued: 0 });
    next.done();
    // A ticket done twice releases once.
    next.done();
    await flush();
    expect(fair.load).toEqual({ active: 0, queued: 0 });
  });

  it("admits a request at once, with no promise, while a slot is free, and holds the slot until its work is done, not its response's closing", async () => {
    const fair = new FairAdmission({ slots: 1, queuedPerTenant: 10 });
    const res = new EventEmitter();
    const ticket = fair.enter("acme", res as never);
    expect(ticket).not.toBeInstanceOf(Promise);
    expect(ticket).toHaveProperty("done");
    // The client leaving while its handler works does not free the slot: the work goes on.
    res.emit("close");
    expect(fair.load).toEqual({ active: 1, queued: 0 });
    const started: string[] = [];
    const next = request(fair, "acme", started, "next");
    await flush();
    expect(started).toEqual([]);
    (ticket as Ticket).done();
    await next.entered;
    expect(started).toEqual(["next"]);
    next.done();
    await flush();
    expect(fair.load).toEqual({ active: 0, queued: 0 });
  });

  afterEach(() => {
    vi.useRealTimers();
  });

  it("holds a team to its share when another process served another team, and tells the others whom it serves", async () => {
    // Timers and the clock together, faked: a rest ends on a timer.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"], now: 0 });
    const fair = new FairAdmission({ slots: 4, queuedPerTenant: 10, perTenantShared: 1 }, () => Date.now());
    const { shared, announced } = sandboxOf(2);
    fair.shareWith(shared);
    const started: string[] = [];
    const a0 = request(fair, "acme", started, "a0");
    const a1 = request(fair, "acme", started, "a1");
    await flush();
    // Alone in the whole sandbox: every slot.
    expect(started).toEqual(["a0", "a1"]);
    // Announced once, not for every request within a quarter of a second; again after it.
    expect(announced).toEqual(["acme"]);
    // Globex is served by the other process: Acme, two at work against a share of one, waits with slots free.
    fair.present("globex");
    const a2 = request(fair, "acme", started, "a2");
    await flush();
    expect(fair.load).toEqual({ active: 2, queued: 1 });
    await at(300);
    a0.done();
    a1.done();
    await flush();
    // Each worked 300 ms, and the other process serves too: they rest 100 ms (the most a request counts) before a2.
    expect(started).toEqual(["a0", "a1"]);
    await at(399);
    expect(started).toEqual(["a0", "a1"]);
    await at(400);
    expect(started).toEqual(["a0", "a1", "a2"]);
    expect(announced).toEqual(["acme", "acme"]);
    // A second later Globex is gone from the sandbox: Acme has every slot again.
    await at(2_000);
    a2.done();
    await flush();
    const more = Array.from({ length: 4 }, (_, i) => request(fair, "acme", started, `b${i}`));
    await flush();
    expect(started.slice(3)).toEqual(["b0", "b1", "b2", "b3"]);
    for (const r of more) r.done();
  });

  it("rests a team held to its share, after each request, for as long as it took times the other processes", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"], now: 0 });
    const fair = new FairAdmission({ slots: 4, queuedPerTenant: 10, perTenantShared: 1 }, () => Date.now());
    fair.shareWith(sandboxOf(3).shared);
    const started: string[] = [];
    fair.present("globex");
    const acme = Array.from({ length: 3 }, (_, i) => request(fair, "acme", started, `a${i}`));
    await flush();
    expect(started).toEqual(["a0"]);
    await at(10);
    acme[0].done();
    await flush();
    // It worked 10 ms, with two other processes: it rests 20 ms, though a slot is free and its next request waits.
    expect(started).toEqual(["a0"]);
    expect(fair.load).toEqual({ active: 0, queued: 2 });
    // Globex, which asks one request at a time, goes at once.
    const g = request(fair, "globex", started, "g0");
    await flush();
    expect(started).toEqual(["a0", "g0"]);
    await at(29);
    expect(started).toEqual(["a0", "g0"]);
    await at(30);
    expect(started).toEqual(["a0", "g0", "a1"]);
    // Globex's request took 25 ms, and no other of its own waited: it does not rest.
    await at(35);
    g.done();
    await flush();
    const g1 = request(fair, "globex", started, "g1");
    await flush();
    expect(started).toEqual(["a0", "g0", "a1", "g1"]);
    // A request that waited long counts 100 ms at most: Acme's next waits 200 ms, not 2 s.
    await at(1_030);
    fair.present("globex");
    acme[1].done();
    await flush();
    await at(1_229);
    expect(started).toEqual(["a0", "g0", "a1", "g1"]);
    await at(1_230);
    expect(started).toEqual(["a0", "g0", "a1", "g1", "a2"]);
    g1.done();
    acme[2].done();
  });

  it("starts a team's waiting requests when the other team stops counting as present, with no release to start them", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"], now: 0 });
    const fair = new FairAdmission({ slots: 4, queuedPerTenant: 10, perTenantShared: 1 }, () => Date.now());
    const started: string[] = [];
    const g = request(fair, "globex", started, "g0");
    const acme = Array.from({ length: 3 }, (_, i) => request(fair, "acme", started, `a${i}`));
    await flush();
    expect(started).toEqual(["g0", "a0"]);
    await at(100);
    g.done();
    await flush();
    // a0 is still at work (waiting on a row, say): no release comes, yet Acme is alone a second after Globex's last
    // request started.
    await at(999);
    expect(started).toEqual(["g0", "a0"]);
    await at(1_000);
    expect(started).toEqual(["g0", "a0", "a1", "a2"]);
    for (const r of acme) r.done();
  });

  it("never rests a team alone, nor one process alone, nor with the share off", async () => {
    for (const [processes, share, others] of [[1, 1, true], [3, 1, false], [3, 4, true]] as const) {
      let now = 0;
      const fair = new FairAdmission({ slots: 4, queuedPerTenant: 10, perTenantShared: share }, () => now);
      const { shared, announced } = sandboxOf(processes);
      fair.shareWith(shared);
      if (others) fair.present("globex");
      const started: string[] = [];
      const acme = Array.from({ length: 6 }, (_, i) => request(fair, "acme", started, `a${i}`));
      await flush();
      const first = started.length;
      now = 50;
      acme[0].done();
      await flush();
      // The freed slot goes on at once.
      expect(started.length).toBe(first + 1);
      // With the share off, nobody is told anything.
      if (share >= 4) expect(announced).toEqual([]);
      for (const r of acme) r.done();
    }
  });
});

