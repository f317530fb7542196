// The delivery line's order and caps, alone (webhooks/fair-queue.ts): slots go round the tenants, then round each
// tenant's projects, oldest first within a project; no tenant, project or process holds more than its cap; items
// taken out keep the others' places. Deterministic: no clock, no server.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FairQueue } from "../src/webhooks/fair-queue.ts";

interface Item {
  tenant: string;
  project: string;
  n: number;
}
const item = (tenant: string, project: string, n: number): Item => ({ tenant, project, n });
const queue = (total: number, perTenant: number, perProject: number) => new FairQueue<Item>({ total, perTenant, perProject }, (i) => i);
/** Drains once, taking a slot for each item started; returns what started, in order. */
const drained = (q: FairQueue<Item>) => {
  const started: Item[] = [];
  q.drain((i) => (q.take(i), started.push(i)));
  return started;
};

describe("the delivery line", () => {
  it("goes round the tenants, then round a tenant's projects, oldest first within a project", () => {
    const q = queue(100, 100, 100);
    for (const i of [item("t1", "p1", 1), item("t1", "p1", 2), item("t1", "p2", 3), item("t2", "p3", 4), item("t2", "p3", 5), item("t1", "p1", 6)]) q.push(i);
    expect(drained(q).map((i) => i.n)).toEqual([1, 4, 3, 5, 2, 6]);
    expect(q.waiting).toBe(0);
    expect(q.onWire).toBe(6);
  });

  it("holds each cap: a tenant whose receivers never answer keeps at most its share, and the others still get slots", () => {
    const q = queue(4, 2, 1);
    for (let n = 0; n < 10; n++) q.push(item("flood", `p${n % 2}`, n));
    q.push(item("quiet", "q", 100));
    const first = drained(q);
    expect(first.filter((i) => i.tenant === "flood")).toHaveLength(2);
    expect(first.map((i) => i.n)).toContain(100);
    // Nothing more starts until a slot is given back; then the next of the flood's waiting items, oldest first.
    expect(drained(q)).toEqual([]);
    q.release(first[0]);
    expect(drained(q).map((i) => i.n)).toEqual([2]);
  });

  it("never exceeds a cap, and starts everything once slots are given back (any pushes, any caps)", () => {
    fc.assert(fc.property(fc.array(fc.tuple(fc.constantFrom("t1", "t2", "t3"), fc.constantFrom("a", "b", "c", "d")), { maxLength: 60 }), fc.integer({ min: 1, max: 6 }), fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 3 }), (pushes, total, perTenant, perProject) => {
      const q = queue(total, perTenant, perProject);
      pushes.forEach(([t, p], n) => q.push(item(t, `${t}/${p}`, n)));
      const seen: number[] = [];
      for (let round = 0; round < 200 && (q.waiting > 0 || q.onWire > 0); round++) {
        const started = drained(q);
        const wire = started.length;
        expect(q.onWire).toBeLessThanOrEqual(total);
        for (const t of ["t1", "t2", "t3"]) expect(started.filter((i) => i.tenant === t).length).toBeLessThanOrEqual(perTenant);
        seen.push(...started.map((i) => i.n));
        for (const i of started) q.release(i);
        if (wire === 0 && q.waiting > 0) throw new Error("the line stalled with free slots");
      }
      expect(seen.sort((a, b) => a - b)).toEqual(pushes.map((_, n) => n));
      // Within a project, oldest first.
      for (const [t, p] of pushes) {
        const mine = seen.filter((n) => pushes[n][0] === t && pushes[n][1] === p);
        expect(mine).toEqual([...mine].sort((a, b) => a - b));
      }
    }), { seed: 20261127, numRuns: 200 });
  });

  it("takes out one project's items in line order and keeps everyone else's place", () => {
    const q = queue(100, 100, 100);
    for (const i of [item("t", "p", 1), item("t", "p", 2), item("t", "p", 3), item("t", "other", 4)]) q.push(i);
    expect(q.removeWhere("t", "p", (i) => i.n !== 2).map((i) => i.n)).toEqual([1, 3]);
    expect(q.waiting).toBe(2);
    expect(drained(q).map((i) => i.n)).toEqual([2, 4]);
    expect(q.clear()).toEqual([]);
  });
});
