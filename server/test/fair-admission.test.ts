// Fair shares of a process's work (http/fair-admission.ts), slot by slot: free slots are taken at once by anyone (a
// team beside teams that are not waiting gets every one), a busy process queues each organisation apart, a freed slot goes to the organisation with the fewest at work (served longest ago
// among equals), a full queue is a 429 with Retry-After, and a client that leaves while waiting gives its slot back.
import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { ApiError } from "../src/http/errors.ts";
import { FairAdmission, type Ticket } from "../src/http/fair-admission.ts";

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

  it("gives a team beside teams that are not waiting every free slot, and each team its share only while both wait", async () => {
    const fair = new FairAdmission({ slots: 4, queuedPerTenant: 10 });
    const started: string[] = [];
    // Globex has one request at work and none waiting: Acme takes the three other slots at once.
    const g0 = request(fair, "globex", started, "g0");
    const acme = Array.from({ length: 5 }, (_, i) => request(fair, "acme", started, `a${i}`));
    await flush();
    expect(started).toEqual(["g0", "a0", "a1", "a2"]);
    expect(fair.load).toEqual({ active: 4, queued: 2 });
    // Globex finishes and asks nothing more: its slot goes to Acme's queue, not left for Globex.
    g0.done();
    await flush();
    expect(started).toEqual(["g0", "a0", "a1", "a2", "a3"]);
    // Now both wait: the next slot goes to Globex (none at work), the one after it to Acme only once Globex has its share.
    const g = [request(fair, "globex", started, "g1"), request(fair, "globex", started, "g2")];
    acme[0].done();
    await flush();
    expect(started.slice(5)).toEqual(["g1"]);
    acme[1].done();
    await flush();
    expect(started.slice(6)).toEqual(["g2"]);
    // Globex has two at work and nothing waiting; Acme's last starts with the next free slot.
    acme[2].done();
    await flush();
    expect(started.slice(7)).toEqual(["a4"]);
    for (const r of [...acme, ...g]) r.done();
    await flush();
    expect(fair.load).toEqual({ active: 0, queued: 0 });
  });

  it("hands a freed slot to the waiting team with the fewest at work, before a flood's backlog, even in the turn they were read in", async () => {
    const fair = new FairAdmission({ slots: 2, queuedPerTenant: 100 });
    const started: string[] = [];
    // One turn of the event loop reads them all: the first starts as it is read, the rest wait for the turn's check
    // phase, where Globex (none at work) goes before Acme's second.
    const flood = Array.from({ length: 6 }, (_, i) => request(fair, "acme", started, `a${i}`));
    const g = [request(fair, "globex", started, "g0"), request(fair, "globex", started, "g1")];
    const i = request(fair, "initech", started, "i0");
    expect(started).toEqual([]);
    await flush();
    expect(started).toEqual(["a0", "g0"]);
    flood[0].done();
    await flush();
    // Acme and Initech have none at work; Initech was never served.
    expect(started.slice(2)).toEqual(["i0"]);
    g[0].done();
    await flush();
    // Acme and Globex none at work: Acme was served longest ago.
    expect(started.slice(3)).toEqual(["a1"]);
    i.done();
    await flush();
    // Acme one at work, Globex none.
    expect(started.slice(4)).toEqual(["g1"]);
    flood[1].done();
    await flush();
    expect(started.slice(5)).toEqual(["a2"]);
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
});
