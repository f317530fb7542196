// The metric laws can fail: each deliberately wrong engine below (a real mistake an implementer makes) breaks at
// least one law, at a fixed seed. A law suite no mutant can break would prove nothing.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Data, Definition, MetricsEngine, Options } from "../../conformance/src/metrics/engine.ts";
import { metricLaws } from "../../conformance/src/metrics/laws.ts";
import { computeMetric } from "../src/index.ts";

const right = (def: Definition, data: Data, options?: Options) => computeMetric(def as never, data as never, options as never);
/** "2026-01-05T23:30:00.000-02:00" read as if it were UTC wall time: the local date instead of the UTC date. */
const localAsUtc = (ts: string) => `${ts.slice(0, 19)}Z`;

const mutants: Array<[string, MetricsEngine["computeMetric"]]> = [
  ["immature users counted as zeros (no as-of maturity)", (def, data, o) => {
    const asOf = Date.parse(o?.as_of ?? new Date().toISOString());
    const before = { exposures: data.exposures.filter((x) => Date.parse(x.exposed_at) < asOf), events: data.events.filter((e) => Date.parse(e.timestamp) < asOf) };
    return right(def, before, { ...o, as_of: "2100-01-01T00:00:00Z" });
  }],
  ["active days by the timestamp's local date", (def, data, o) => right(def, { exposures: data.exposures, events: data.events.map((e) => ({ ...e, timestamp: localAsUtc(e.timestamp) })) }, o)],
  ["active_day any_event ignored", (def, data, o) => right({ ...def, active_day: undefined } as Definition, data, o)],
  ["users exposed to two variants kept in their first variant", (def, data, o) => {
    const first = new Map<string, string>();
    for (const x of data.exposures) if (!first.has(x.user_id)) first.set(x.user_id, x.variant);
    return right(def, { ...data, exposures: data.exposures.map((x) => ({ ...x, variant: first.get(x.user_id)! })) }, o);
  }],
  ["events before exposure counted", (def, data, o) => right(def, { ...data, exposures: data.exposures.map((x) => ({ ...x, exposed_at: "2025-12-01T00:00:00Z" })) }, o)],
];

describe("the metric laws catch wrong engines", () => {
  it.each(mutants)("%s", async (_name, mutant) => {
    const failing: string[] = [];
    for (const law of metricLaws({ computeMetric: mutant })) if ((await fc.check(law.property, { numRuns: 200, seed: 20261123 })).failed) failing.push(law.name);
    expect(failing.length).toBeGreaterThan(0);
  }, 60_000);
});
