// Fair admission (http/fair-admission.ts) under long random sequences: teams' requests arrive, finish, or leave while
// they wait. After every step, once the event loop has turned:
// - never more than the slots are at work, and the count admission keeps is the requests' own;
// - work-conserving: no slot is free while a request waits;
// - fair while teams wait: a team with requests waiting never has two more at work than another team still waiting has
//   after a slot was handed on (the fewest-at-work rule), unless the other's requests were already at work;
// and once clients stop asking, every request started or left: nothing waits for ever, and no slot is lost.
import { EventEmitter } from "node:events";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FairAdmission, type Ticket } from "../src/http/fair-admission.ts";

const flush = () => new Promise((r) => setImmediate(r));

type Op = { kind: "arrive"; tenant: number } | { kind: "read"; tenants: number[] } | { kind: "finish"; pick: number } | { kind: "leave"; pick: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant("arrive" as const), tenant: fc.integer({ min: 0, max: 2 }) }) },
  // Several requests read in one turn of the event loop (one poll), before its check phase.
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("read" as const), tenants: fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 2, maxLength: 12 }) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("finish" as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("leave" as const), pick: fc.nat() }) },
);

interface Req {
  tenant: string;
  res: EventEmitter & { closed?: boolean };
  state: "waiting" | "started" | "done" | "refused" | "gone";
  ticket?: Ticket | null;
}

interface Case {
  slots: number;
  ops: Op[];
}

async function replay({ slots, ops }: Case): Promise<void> {
  const fair = new FairAdmission({ slots, queuedPerTenant: 1_000 });
  const reqs: Req[] = [];
  const count = (tenant: string, state: Req["state"]) => reqs.filter((r) => r.tenant === tenant && r.state === state).length;
  const check = () => {
    const started = reqs.filter((r) => r.state === "started").length;
    const waiting = reqs.filter((r) => r.state === "waiting" && !r.res.closed).length;
    expect(started).toBeLessThanOrEqual(slots);
    expect(fair.load.active).toBe(started);
    // Work-conserving: a request waits only while every slot is taken.
    if (waiting > 0) expect(started).toBe(slots);
  };
  const settle = async () => {
    await flush();
    await flush();
    check();
  };
  const arrive = (tenant: number) => {
    const req: Req = { tenant: `t${tenant}`, res: new EventEmitter(), state: "waiting" };
    reqs.push(req);
    const now = fair.enter(req.tenant, req.res as never);
    if (!(now instanceof Promise)) {
      req.ticket = now;
      req.state = "started";
    } else {
      now.then(
        (ticket) => {
          req.ticket = ticket;
          req.state = ticket ? "started" : "gone";
        },
        () => (req.state = "refused"),
      );
    }
  };
  for (const o of ops) {
    if (o.kind === "read") {
      for (const t of o.tenants) arrive(t);
      // Within the turn, at most one of them started as it was read (the rest wait for the check phase).
      expect(reqs.slice(-o.tenants.length).filter((r) => r.state === "started").length).toBeLessThanOrEqual(1);
    } else if (o.kind === "arrive") {
      arrive(o.tenant);
    } else {
      const pool = reqs.filter((r) => (o.kind === "finish" ? r.state === "started" : r.state === "waiting" && !r.res.closed));
      if (pool.length === 0) continue;
      const r = pool[o.pick % pool.length];
      if (o.kind === "finish") {
        // Who waits when this slot is handed on, and how many each has at work then: the slot must go to one of the
        // waiting teams with the fewest at work.
        const waitingTeams = [...new Set(reqs.filter((x) => x.state === "waiting" && !x.res.closed).map((x) => x.tenant))];
        const before = new Map(waitingTeams.map((t) => [t, count(t, "started") - (t === r.tenant ? 1 : 0)]));
        const startedBefore = new Set(reqs.filter((x) => x.state === "started"));
        r.state = "done";
        r.ticket!.done();
        await settle();
        const fresh = reqs.filter((x) => x.state === "started" && !startedBefore.has(x));
        if (waitingTeams.length > 0 && fresh.length === 1) {
          const fewest = Math.min(...before.values());
          expect(before.get(fresh[0].tenant)).toBe(fewest);
        }
        continue;
      }
      r.res.emit("close");
      r.res.closed = true;
    }
    await settle();
  }
  // Nobody asks any more: finish what runs; every waiting request starts (or leaves), in as many rounds as it takes.
  for (let round = 0; round < 500 && reqs.some((r) => r.state === "waiting" || r.state === "started"); round++) {
    for (const r of reqs.filter((x) => x.state === "started")) {
      r.state = "done";
      r.ticket!.done();
    }
    await settle();
  }
  expect(reqs.filter((r) => r.state === "waiting" || r.state === "started")).toEqual([]);
  expect(fair.load).toEqual({ active: 0, queued: 0 });
}

describe("fair admission, modelled", () => {
  it("never leaves a slot free while a request waits, hands each freed slot to a waiting team with the fewest at work, and loses none", async () => {
    await fc.assert(
      fc.asyncProperty(fc.record({ slots: fc.integer({ min: 1, max: 4 }), ops: fc.array(op, { minLength: 30, maxLength: 150, size: "max" }) }), replay),
      { numRuns: 300 },
    );
  });
});
