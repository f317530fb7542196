// Names from the data become keys of results: variants, users and events named `__proto__`, `constructor`,
// `hasOwnProperty` or `toString` are names like any other on every engine (in memory, DuckDB, PostgreSQL), and no run
// can touch Object.prototype.
import { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compareVariants, computeMetric } from "../src/index.ts";
import { DuckDbMetrics } from "../src/sql/duckdb.ts";
import { runMetricSql, type Query } from "../src/sql/run.ts";
import type { MetricData, MetricDefinition, MetricResult } from "../src/types.ts";

const AT = "2026-01-05T00:00:00.000Z";
const LATER = "2026-01-06T00:00:00.000Z";
const AS_OF = "2026-02-01T00:00:00.000Z";
const data: MetricData = {
  exposures: [
    { user_id: "__proto__", variant: "__proto__", exposed_at: AT },
    { user_id: "a", variant: "__proto__", exposed_at: AT },
    { user_id: "constructor", variant: "constructor", exposed_at: AT },
    { user_id: "hasOwnProperty", variant: "hasOwnProperty", exposed_at: AT },
    { user_id: "toString", variant: "toString", exposed_at: AT },
  ],
  events: [
    { user_id: "__proto__", event: "__proto__", timestamp: LATER },
    { user_id: "hasOwnProperty", event: "__proto__", timestamp: LATER },
    { user_id: "hasOwnProperty", event: "__proto__", timestamp: LATER },
    { user_id: "toString", event: "constructor", timestamp: LATER },
  ],
};
const definitions: MetricDefinition[] = [
  { type: "conversion", event: "__proto__" },
  { type: "events_per_user", event: "__proto__" },
  { type: "events_per_user_per_active_day", event: "__proto__", active_day: "any_event" },
  { type: "retention", event: "__proto__", threshold: 2, window_days: 7 },
];
// [variant, numerator, denominator] per definition, by hand: __proto__ has 2 users (one fired once), hasOwnProperty fired twice.
const expected: Record<string, Array<[string, number, number]>> = {
  conversion: [["__proto__", 1, 2], ["constructor", 0, 1], ["hasOwnProperty", 1, 1], ["toString", 0, 1]],
  events_per_user: [["__proto__", 1, 2], ["constructor", 0, 1], ["hasOwnProperty", 2, 1], ["toString", 0, 1]],
  events_per_user_per_active_day: [["__proto__", 1, 2], ["constructor", 0, 1], ["hasOwnProperty", 2, 1], ["toString", 0, 1]],
  retention: [["__proto__", 0, 2], ["constructor", 0, 1], ["hasOwnProperty", 1, 1], ["toString", 0, 1]],
};

let pg: PGlite;
let duck: DuckDbMetrics;
beforeAll(async () => {
  pg = new PGlite();
  await pg.exec("CREATE TABLE exposures (user_id VARCHAR, variant VARCHAR, exposed_ms BIGINT); CREATE TABLE events (user_id VARCHAR, event VARCHAR, ts_ms BIGINT);");
  for (const x of data.exposures) await pg.query("INSERT INTO exposures VALUES ($1, $2, $3)", [x.user_id, x.variant, Date.parse(x.exposed_at)]);
  for (const e of data.events) await pg.query("INSERT INTO events VALUES ($1, $2, $3)", [e.user_id, e.event, Date.parse(e.timestamp)]);
  duck = await DuckDbMetrics.open();
}, 60_000);
afterAll(async () => {
  await pg?.close();
  duck?.close();
});
const pgQuery: Query = async (sql) => (await pg.query<Record<string, unknown>>(sql)).rows;

const engines: Array<[string, (d: MetricDefinition) => Promise<MetricResult>]> = [
  ["in memory", async (d) => computeMetric(d, data, { as_of: AS_OF })],
  ["DuckDB", (d) => duck.computeMetric(d, data, { as_of: AS_OF })],
  ["PostgreSQL", (d) => runMetricSql(pgQuery, d, Date.parse(AS_OF))],
];

describe.each(engines)("names that are Object.prototype's keys, on %s", (_engine, run) => {
  it.each(definitions.map((d) => [d.type, d] as const))("%s: every variant is its own key with the hand-computed counts, and Object.prototype is untouched", async (type, definition) => {
    const before = Object.getOwnPropertyNames(Object.prototype).sort();
    const result = await run(definition);
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(before);
    expect(({} as Record<string, unknown>).denominator).toBeUndefined();
    expect(Object.getPrototypeOf(result.variants)).toBe(Object.prototype);
    expect(Object.keys(result.variants).sort()).toEqual(["__proto__", "constructor", "hasOwnProperty", "toString"]);
    for (const [variant, numerator, denominator] of expected[type]) {
      const got = Object.getOwnPropertyDescriptor(result.variants, variant)?.value;
      expect(got, variant).toMatchObject({ denominator });
      expect(got.numerator, `${variant} numerator`).toBeCloseTo(numerator, 12);
    }
    const comparison = compareVariants(result, "__proto__", "hasOwnProperty");
    expect(comparison.control).toBe("__proto__");
    expect(comparison.absolute_lift).not.toBeNull();
    expect(() => compareVariants(result, "valueOf", "__proto__")).toThrow(/no variant "valueOf"/);
  });
});

describe("names that are Object.prototype's keys, read from files and read out", () => {
  it("a JSON Lines file with __proto__ keys and names, through the input layer, every engine and the read-out, leaves Object.prototype untouched", async () => {
    const { mkdtempSync, writeFileSync } = await import("node:fs");
    const { join } = await import("node:path");
    const { tmpdir } = await import("node:os");
    const { readFiles } = await import("../src/input/read.ts");
    const { readOut } = await import("../src/arms.ts");
    const { openEngines, outcomes } = await import("./engines.ts");
    const { expectOneAnswer } = await import("./same.ts");
    const dir = mkdtempSync(join(tmpdir(), "metrics-proto-"));
    // A line whose own "__proto__" key JSON.parse keeps as data: it must not become the record's prototype.
    writeFileSync(join(dir, "x.jsonl"), data.exposures.map((x) => JSON.stringify(x)).join("\n") + '\n{"__proto__":{"user_id":"ghost"},"user_id":"constructor","variant":"constructor","exposed_at":"2026-01-05T00:00:00Z"}\n');
    writeFileSync(join(dir, "e.jsonl"), data.events.map((e) => JSON.stringify(e)).join("\n") + '\n{"user_id":"hasOwnProperty","event":"hasOwnProperty","timestamp":"2026-01-06T00:00:00Z"}\n');
    const before = Object.getOwnPropertyNames(Object.prototype).sort();
    const engines = await openEngines();
    try {
      for (const event of ["__proto__", "constructor", "hasOwnProperty"]) {
        const result = expectOneAnswer(await outcomes(engines, { type: "events_per_user", event }, { exposures: join(dir, "x.jsonl"), events: join(dir, "e.jsonl") }, { as_of: AS_OF, cuped: true })) as MetricResult;
        const counts = Object.fromEntries(Object.entries(result.variants).map(([v, r]) => [v, r.numerator]));
        // Built with fromEntries: a `__proto__:` in an object literal would set the prototype, not a key.
        expect(counts).toEqual(Object.fromEntries([["__proto__", event === "__proto__" ? 1 : 0], ["constructor", 0], ["hasOwnProperty", event === "__proto__" ? 2 : event === "hasOwnProperty" ? 1 : 0], ["toString", event === "constructor" ? 1 : 0]]));
        const out = readOut(result, "__proto__", ["constructor", "hasOwnProperty", "toString"], { split: JSON.parse('{"__proto__":1,"constructor":1,"hasOwnProperty":1,"toString":1}') });
        expect(Object.keys(out.srm.observed)).toEqual(["__proto__", "constructor", "hasOwnProperty", "toString"]);
        expect(out.comparisons.map((c) => c.treatment)).toEqual(["constructor", "hasOwnProperty", "toString"]);
      }
    } finally {
      await engines.close();
    }
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(before);
    expect(({} as Record<string, unknown>).user_id).toBeUndefined();
  }, 60_000);
});
