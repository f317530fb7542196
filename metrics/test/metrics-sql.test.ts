// The SQL engine's text is standard: one generated text runs unchanged on DuckDB (the default engine) and on
// PostgreSQL (PGlite, a real Postgres compiled to WebAssembly), and both give the in-memory engine's results.
import { PGlite } from "@electric-sql/pglite";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { asOfArb, dataArb, iso, windowArb } from "../../conformance/src/metrics/arbitraries.ts";
import { computeMetric } from "../src/index.ts";
import { DuckDbMetrics, queryOfDuckDb } from "../src/sql/duckdb.ts";
import { metricSql } from "../src/sql/generate.ts";
import { runMetricSql, type Query } from "../src/sql/run.ts";
import type { MetricData, MetricDefinition, MetricResult } from "../src/types.ts";

let pg: PGlite;
let duck: DuckDbMetrics;
beforeAll(async () => {
  pg = new PGlite();
  await pg.exec("CREATE TABLE exposures (user_id VARCHAR, variant VARCHAR, exposed_ms BIGINT); CREATE TABLE events (user_id VARCHAR, event VARCHAR, ts_ms BIGINT);");
  duck = await DuckDbMetrics.open();
}, 60_000);
afterAll(async () => {
  await pg?.close();
  duck?.close();
});

/** Loads the data into PostgreSQL's two tables. */
async function loadPg(data: MetricData): Promise<void> {
  await pg.exec("DELETE FROM exposures; DELETE FROM events;");
  for (const x of data.exposures) await pg.query("INSERT INTO exposures VALUES ($1, $2, $3)", [x.user_id, x.variant, Date.parse(x.exposed_at)]);
  for (const e of data.events) await pg.query("INSERT INTO events VALUES ($1, $2, $3)", [e.user_id, e.event, Date.parse(e.timestamp)]);
}

const recording = (query: Query, log: string[]): Query => async (sql) => {
  log.push(sql);
  return query(sql);
};
const pgQuery: Query = async (sql) => (await pg.query<Record<string, unknown>>(sql)).rows;

const definitions: MetricDefinition[] = [
  { type: "conversion", event: "purchase" },
  { type: "conversion", event: "purchase", window_days: 3 },
  { type: "events_per_user", event: "purchase", window_days: 7 },
  { type: "events_per_user_per_active_day", event: "purchase" },
  { type: "events_per_user_per_active_day", event: "purchase", window_days: 5, active_day: "any_event" },
  { type: "retention", event: "purchase", threshold: 2, window_days: 7 },
];

const values = (r: MetricResult) => Object.fromEntries(Object.entries(r.variants).map(([v, x]) => [v, [x.denominator, x.value === null ? null : Number(x.value.toFixed(9)), Number(x.sum_squares.toFixed(9))]]));

describe("metric SQL", () => {
  it("is one text for every database: DuckDB and PostgreSQL receive the same statements and agree with the in-memory engine", async () => {
    await fc.assert(fc.asyncProperty(dataArb, fc.constantFrom(...definitions), windowArb, asOfArb, async (data, def, w, asOfMs) => {
      const definition = def.type === "retention" || w === undefined ? def : { ...def, window_days: w };
      const memory = computeMetric(definition, data, { as_of: iso(asOfMs) });
      const duckLog: string[] = [];
      const pgLog: string[] = [];
      await loadPg(data);
      // analyze: false on both: the statistics step (PostgreSQL's alone) is input-test territory; this compares the metric's text.
      const onPg = await runMetricSql(recording(pgQuery, pgLog), definition, asOfMs, { analyze: false });
      await duck.computeMetric(definition, data, { as_of: iso(asOfMs) });
      const onDuck = await runMetricSql(recording(queryOfDuckDb(duck.connection), duckLog), definition, asOfMs, { analyze: false });
      expect(duckLog).toEqual(pgLog);
      expect(values(onDuck)).toEqual(values(memory));
      expect(values(onPg)).toEqual(values(memory));
      for (const r of [onDuck, onPg]) expect([r.excluded_users, r.immature_users]).toEqual([memory.excluded_users, memory.immature_users]);
    }), { numRuns: 25, seed: 20261123 });
  }, 120_000);

  it("uses only standard constructs (no casts with ::, no dialect functions) and quotes every value", () => {
    const sql = metricSql({ type: "events_per_user_per_active_day", event: "it's; DROP TABLE events; --", window_days: 7, active_day: "any_event" }, Date.UTC(2026, 0, 1));
    const text = `${sql.variants}\n${sql.counts}`;
    expect(text).not.toMatch(/::|\/\/|epoch_ms|date_trunc|QUALIFY|LIST\(|STRUCT|ILIKE|\bIF\(/i);
    expect(text).toContain("'it''s; DROP TABLE events; --'");
    expect(text.match(/'/g)!.length % 2).toBe(0);
  });
});

describe("DuckDB's threads", () => {
  it("runs small tables on one thread and large ones on DuckDB's default, and gives the same answer on both", async () => {
    const def: MetricDefinition = { type: "conversion", event: "purchase" };
    const threadsOf = async (d: DuckDbMetrics) => Number((await queryOfDuckDb(d.connection)("SELECT current_setting('threads') AS t"))[0].t);
    const threads = () => threadsOf(duck);
    const fresh = await DuckDbMetrics.open();
    const all = await threadsOf(fresh); // DuckDB's default: one per core
    fresh.close();
    const users = (n: number): MetricData => ({
      exposures: Array.from({ length: n }, (_, u) => ({ user_id: `u${u}`, variant: u % 2 ? "treatment" : "control", exposed_at: "2026-01-01T00:00:00Z" })),
      events: Array.from({ length: n }, (_, u) => ({ user_id: `u${u}`, event: u % 3 ? "view" : "purchase", timestamp: "2026-01-02T00:00:00Z" })),
    });
    for (const n of [10, 60_000, 10]) {
      const data = users(n);
      expect(await duck.computeMetric(def, data, { as_of: "2026-02-01T00:00:00Z" })).toEqual(computeMetric(def, data, { as_of: "2026-02-01T00:00:00Z" }));
      expect(await threads(), `${2 * n} rows`).toBe(2 * n < 100_000 ? 1 : all);
    }
  }, 60_000);
});
