// `--print-sql --dialect`: what the command prints for each warehouse. PostgreSQL's text (its ANALYZE included) runs
// on PGlite, DuckDB's and the standard text on DuckDB, each giving the in-memory engine's numbers; BigQuery's and
// Snowflake's are checked by node-sql-parser's grammar for that database (no such database runs here), which refuses
// the standard text's DOUBLE PRECISION as BigQuery.
import { spawnSync } from "node:child_process";
import { PGlite } from "@electric-sql/pglite";
import sqlParser from "node-sql-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { computeMetric } from "../src/index.ts";
import { DuckDbMetrics } from "../src/sql/duckdb.ts";
import type { Dialect } from "../src/sql/generate.ts";
import { printSql } from "../src/sql/print.ts";
import type { MetricData, MetricDefinition } from "../src/types.ts";
import { METRICS_CLI } from "./command.ts";

const DEFINITIONS: MetricDefinition[] = [
  { type: "conversion", event: "purchase", window_days: 3 },
  { type: "events_per_user", event: "purchase" },
  { type: "events_per_user_per_active_day", event: "purchase", active_day: "any_event", window_days: 7 },
  { type: "retention", event: "purchase", threshold: 2, window_days: 7 },
];
const AS_OF = Date.UTC(2026, 2, 20);
const at = (day: number, hour = 9) => new Date(Date.UTC(2026, 2, day, hour)).toISOString();
const DATA: MetricData = {
  exposures: [
    { user_id: "a", variant: "control", exposed_at: at(2) },
    { user_id: "b", variant: "control", exposed_at: at(3) },
    { user_id: "c", variant: "treatment", exposed_at: at(2) },
    { user_id: "d", variant: "treatment", exposed_at: at(4) },
    { user_id: "e", variant: "control", exposed_at: at(4) },
    { user_id: "e", variant: "treatment", exposed_at: at(5) },
  ],
  events: [
    { user_id: "a", event: "purchase", timestamp: at(2, 12) },
    { user_id: "a", event: "purchase", timestamp: at(4) },
    { user_id: "a", event: "view", timestamp: at(5) },
    { user_id: "c", event: "purchase", timestamp: at(1) },
    { user_id: "c", event: "purchase", timestamp: at(3) },
    { user_id: "c", event: "purchase", timestamp: at(3, 20) },
    { user_id: "d", event: "view", timestamp: at(6) },
    { user_id: "d", event: "purchase", timestamp: at(15) },
    { user_id: "e", event: "purchase", timestamp: at(6) },
  ],
};

/** The printed statements, comments dropped. */
const statements = (text: string) => text.split(/;\s*\n/).map((s) => s.replace(/^--.*$/gm, "").replace(/;\s*$/, "").trim()).filter(Boolean);

/** What the in-memory engine says, as the per-variant query's rows. */
const expected = (def: MetricDefinition) => {
  const r = computeMetric(def, DATA, { as_of: new Date(AS_OF).toISOString() });
  return Object.entries(r.variants).map(([variant, v]) => ({ variant, denominator: v.denominator, total: v.sum }));
};
const rowsOf = (rows: Array<Record<string, unknown>>) => rows.map((r) => ({ variant: String(r.variant), denominator: Number(r.denominator), total: Number(r.total) }));

let pg: PGlite;
let duck: DuckDbMetrics;
beforeAll(async () => {
  pg = new PGlite();
  await pg.exec("CREATE TABLE exposures (user_id VARCHAR, variant VARCHAR, exposed_ms BIGINT); CREATE TABLE events (user_id VARCHAR, event VARCHAR, ts_ms BIGINT);");
  for (const x of DATA.exposures) await pg.query("INSERT INTO exposures VALUES ($1, $2, $3)", [x.user_id, x.variant, Date.parse(x.exposed_at)]);
  for (const e of DATA.events) await pg.query("INSERT INTO events VALUES ($1, $2, $3)", [e.user_id, e.event, Date.parse(e.timestamp)]);
  duck = await DuckDbMetrics.open();
  await duck.connection.run("CREATE TABLE exposures (user_id VARCHAR, variant VARCHAR, exposed_ms BIGINT); CREATE TABLE events (user_id VARCHAR, event VARCHAR, ts_ms BIGINT)");
  for (const x of DATA.exposures) await duck.connection.run(`INSERT INTO exposures VALUES ('${x.user_id}', '${x.variant}', ${Date.parse(x.exposed_at)})`);
  for (const e of DATA.events) await duck.connection.run(`INSERT INTO events VALUES ('${e.user_id}', '${e.event}', ${Date.parse(e.timestamp)})`);
}, 60_000);
afterAll(async () => {
  await pg?.close();
  duck?.close();
});

describe("--print-sql --dialect", () => {
  it.each(DEFINITIONS.map((d) => [d.type, d] as const))("PostgreSQL's text runs as printed on PGlite, ANALYZE first, and gives the in-memory numbers (%s)", async (_, def) => {
    for (const cuped of [false, true]) {
      const text = printSql(def, AS_OF, { cuped, dialect: "postgres" });
      const [analyzeExposures, analyzeEvents, variants, counts] = statements(text);
      expect([analyzeExposures, analyzeEvents]).toEqual(["ANALYZE exposures", "ANALYZE events"]);
      await pg.exec(`${analyzeExposures}; ${analyzeEvents};`);
      expect(rowsOf((await pg.query<Record<string, unknown>>(variants)).rows)).toEqual(expected(def));
      expect((await pg.query<Record<string, unknown>>(counts)).rows).toEqual([{ excluded_users: 1, immature_users: 0 }]);
    }
  });

  it.each(DEFINITIONS.map((d) => [d.type, d] as const))("DuckDB's and the standard text run as printed on DuckDB and give the in-memory numbers (%s)", async (_, def) => {
    for (const dialect of ["duckdb", "standard"] as const) {
      const [variants, counts] = statements(printSql(def, AS_OF, { cuped: true, dialect }));
      expect(rowsOf((await duck.connection.runAndReadAll(variants)).getRowObjects() as Array<Record<string, unknown>>)).toEqual(expected(def));
      expect(((await duck.connection.runAndReadAll(counts)).getRowObjects() as Array<Record<string, unknown>>).map((r) => Number(r.excluded_users))).toEqual([1]);
    }
  });

  it("BigQuery's and Snowflake's texts parse in their grammars (node-sql-parser), and the grammar check can fail", () => {
    const parser = new sqlParser.Parser();
    const grammar: Partial<Record<Dialect, string>> = { bigquery: "BigQuery", snowflake: "Snowflake", postgres: "PostgresQL" };
    for (const def of DEFINITIONS) {
      for (const cuped of [false, true]) {
        for (const dialect of ["bigquery", "snowflake", "postgres"] as const) {
          const queries = statements(printSql(def, AS_OF, { cuped, dialect })).filter((s) => !s.startsWith("ANALYZE"));
          expect(queries).toHaveLength(2);
          for (const q of queries) expect(() => parser.astify(q, { database: grammar[dialect] }), `${dialect} ${def.type}`).not.toThrow();
        }
        // BigQuery names its types FLOAT64 and INT64: the standard text is not BigQuery.
        const [standard] = statements(printSql(def, AS_OF, { cuped, dialect: "standard" }));
        expect(() => parser.astify(standard, { database: "BigQuery" })).toThrow();
        const [bigquery] = statements(printSql(def, AS_OF, { cuped, dialect: "bigquery" }));
        expect(bigquery).toContain("AS FLOAT64)");
        expect(bigquery).not.toContain("DOUBLE PRECISION");
      }
    }
  });

  it("is a command-line option printing what printSql prints, refusing an unknown dialect with the list, and needs --print-sql", () => {
    const run = (...args: string[]) => spawnSync(process.execPath, [METRICS_CLI, "--definition", JSON.stringify(DEFINITIONS[0]), ...args], { encoding: "utf8" });
    for (const dialect of ["postgres", "bigquery"] as const) {
      const r = run("--print-sql", "--dialect", dialect, "--as-of", new Date(AS_OF).toISOString());
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout.trim()).toBe(printSql(DEFINITIONS[0], AS_OF, { dialect }));
    }
    const without = run("--dialect", "postgres", "--exposures", "x.csv", "--events", "e.csv");
    expect(without.status).toBe(2);
    expect(without.stderr).toBe("invalid input: --dialect applies to --print-sql: add it, or drop the dialect\n");
    const unknown = run("--print-sql", "--dialect", "oracle");
    expect(unknown.status).not.toBe(0);
    expect(unknown.stderr).toContain("Allowed choices are standard, duckdb, postgres, bigquery, snowflake");
  }, 60_000);
});
