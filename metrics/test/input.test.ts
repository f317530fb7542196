// One input layer for every engine: each case an analyst hit (ids with spaces, timestamps without a zone, Feb 30,
// semicolons, empty files, fractional windows, JSON Lines, Parquet, bad rows) gives one answer, or one clear error
// naming the file, line and column, on the in-memory engine, DuckDB and PostgreSQL alike.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parquetWriteFile } from "hyparquet-writer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DuckDBInstance } from "@duckdb/node-api";
import { PGlite } from "@electric-sql/pglite";
import { computeMetric } from "../src/compute.ts";
import type { ReadOptions } from "../src/input/read.ts";
import { metricSql } from "../src/sql/generate.ts";
import { runMetricSql } from "../src/sql/run.ts";
import { DuckDbMetrics } from "../src/sql/duckdb.ts";
import type { MetricDefinition, MetricOptions, MetricResult } from "../src/types.ts";
import { openEngines, outcomes, type Engines } from "./engines.ts";
import { expectOneAnswer } from "./same.ts";
import { utf8Stream } from "../src/input/utf8.ts";

const dir = mkdtempSync(join(tmpdir(), "metrics-input-"));
const file = (name: string, text: string | Buffer) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const conversion: MetricDefinition = { type: "conversion", event: "purchase" };

let engines: Engines;
beforeAll(async () => {
  engines = await openEngines();
}, 60_000);
afterAll(() => engines?.close());

/** Every engine over the two files; their one answer (a result, or `error: ...`). */
async function answer(exposures: string, events: string, def: MetricDefinition = conversion, read: ReadOptions = {}, options: MetricOptions = {}) {
  return expectOneAnswer(await outcomes(engines, def, { exposures, events, read }, options));
}
const values = (r: MetricResult | string) => {
  if (typeof r === "string") throw new Error(`expected a result, got ${r}`);
  return Object.fromEntries(Object.entries(r.variants).map(([v, x]) => [v, [x.numerator, x.denominator]]));
};

const EXPOSURES = "user_id,variant,exposed_at\nu1,control,2026-03-02T09:00:00Z\nu2,treatment,2026-03-02T09:00:00Z\n";

describe("one input layer, every engine", () => {
  it("keeps ids byte-exact: ' u1' and 'u1 ' are not u1 on any engine (the in-memory engine trimmed them)", async () => {
    const exposures = file("ids-x.csv", 'user_id,variant,exposed_at\nu1,control,2026-03-02T09:00:00Z\n" u2",treatment,2026-03-02T09:00:00Z\nu2,treatment,2026-03-02T09:00:00Z\n');
    const events = file("ids-e.csv", "user_id,event,timestamp\nu1 ,purchase,2026-03-03T09:00:00Z\n u2,purchase,2026-03-03T09:00:00Z\nu2,purchase,2026-03-03T09:00:00Z\n");
    // "u1 " is nobody; " u2" (quoted in the exposures) is its own user, distinct from u2, and both of them converted.
    expect(values(await answer(exposures, events))).toEqual({ control: [0, 1], treatment: [2, 2] });
  });

  it("refuses a timestamp without an offset, naming file, line and column, unless --timezone names the zone", async () => {
    const exposures = file("naive-x.csv", "user_id,variant,exposed_at\nu1,control,2026-03-02 09:00:00\n");
    const events = file("naive-e.csv", "user_id,event,timestamp\nu1,purchase,2026-03-02 10:00:00\n");
    expect(await answer(exposures, events)).toBe(`error: ${exposures} line 2, column 3 (exposed_at) has no UTC offset (add Z or +hh:mm, or name the data's time zone with --timezone): "2026-03-02 09:00:00"`);
    const paris = await answer(exposures, events, conversion, { timezone: "Europe/Paris" }, { timezone: "Europe/Paris" });
    expect(values(paris)).toEqual({ control: [1, 1] });
    expect((paris as MetricResult).as_of).toBe("2026-03-02T09:00:00.001Z"); // 10:00 in Paris is 09:00 UTC
    expect(await answer(exposures, events, conversion, { timezone: "Mars/Olympus" })).toBe('error: --timezone is not an IANA time zone name (such as UTC or Europe/Paris): "Mars/Olympus"');
  });

  it("reads a Parquet TIMESTAMP without a zone (isAdjustedToUTC false) as wall-clock time: refused without --timezone, read in it with one, as CSV", async () => {
    const csvExposures = file("naive-x2.csv", "user_id,variant,exposed_at\nu1,control,2026-03-02 09:00:00\n");
    const csvEvents = file("naive-e2.csv", "user_id,event,timestamp\nu1,purchase,2026-03-02 10:00:00\n");
    const fromCsv = await answer(csvExposures, csvEvents, conversion, { timezone: "Europe/Paris" }, { timezone: "Europe/Paris" });
    // Written with the zone-less logical type (what Spark's TIMESTAMP_NTZ and DuckDB's TIMESTAMP write).
    const px = join(dir, "naive-x.parquet");
    const pe = join(dir, "naive-e.parquet");
    const local = { type: "INT64", logical_type: { type: "TIMESTAMP", isAdjustedToUTC: false, unit: "MILLIS" }, repetition_type: "REQUIRED" } as const;
    const text = { type: "BYTE_ARRAY", converted_type: "UTF8", repetition_type: "REQUIRED" } as const;
    parquetWriteFile({ filename: px, schema: [{ name: "root", num_children: 3 }, { name: "user_id", ...text }, { name: "variant", ...text }, { name: "exposed_at", ...local }], columnData: [{ name: "user_id", data: ["u1"] }, { name: "variant", data: ["control"] }, { name: "exposed_at", data: [BigInt(Date.UTC(2026, 2, 2, 9))] }] } as never);
    // DuckDB's own plain TIMESTAMP, read by our reader.
    const duck = await DuckDbMetrics.open();
    await duck.connection.run(`COPY (SELECT 'u1' AS user_id, 'purchase' AS event, TIMESTAMP '2026-03-02 10:00:00' AS timestamp) TO '${pe}' (FORMAT parquet)`);
    duck.close();
    expect(await answer(px, pe)).toBe(`error: ${px} row 1, column exposed_at has no UTC offset (add Z or +hh:mm, or name the data's time zone with --timezone): "2026-03-02T09:00:00.000"`);
    const paris = await answer(px, pe, conversion, { timezone: "Europe/Paris" }, { timezone: "Europe/Paris" });
    expect(paris).toEqual(fromCsv);
    expect((paris as MetricResult).as_of).toBe("2026-03-02T09:00:00.001Z"); // 10:00 in Paris is 09:00 UTC
  });

  it("reads wall-clock times across a DST change by the zone's rules (the hour that repeats, the hour that does not exist)", async () => {
    // Paris, 2026-03-29: 02:30 does not exist (moves to 03:30 +02:00); 2026-10-25: 02:30 happens twice (the later, +01:00).
    const exposures = file("dst-x.csv", "user_id,variant,exposed_at\nu1,a,2026-03-29 02:30:00\nu2,a,2026-10-25 02:30:00\n");
    const events = file("dst-e.csv", "user_id,event,timestamp\nu1,purchase,2026-03-29T01:30:00Z\nu2,purchase,2026-10-25T01:30:00Z\n");
    const r = await answer(exposures, events, conversion, { timezone: "Europe/Paris" }, { timezone: "Europe/Paris" });
    // u1 exposed 01:30Z: its event at 01:30Z counts. u2 exposed 01:30Z (02:30 +01:00): its event at 01:30Z counts.
    expect(values(r)).toEqual({ a: [2, 2] });
  });

  it("refuses invalid calendar dates and times (Feb 30, 24:00, minute 60) instead of rolling them over", async () => {
    for (const [bad, problem] of [["2026-02-30T10:00:00Z", "is not a calendar date"], ["2026-03-02T24:00:00Z", "is not a time of day"], ["2026-03-02T10:60:00Z", "is not a time of day"], ["2025-02-29T10:00:00Z", "is not a calendar date"]]) {
      const events = file("feb30-e.csv", `user_id,event,timestamp\nu1,purchase,2026-03-03T09:00:00Z\nu1,purchase,${bad}\n`);
      expect(await answer(file("feb30-x.csv", EXPOSURES), events)).toBe(`error: ${events} line 3, column 3 (timestamp) ${problem}: "${bad}"`);
    }
    const leap = file("leap-e.csv", "user_id,event,timestamp\nu1,purchase,2028-02-29T10:00:00Z\n");
    expect(values(await answer(file("leap-x.csv", EXPOSURES), leap))).toEqual({ control: [1, 1], treatment: [0, 1] });
  });

  it("detects ; tab and | delimiters from the header, and takes --delimiter", async () => {
    const want = { control: [1, 1], treatment: [0, 1] };
    for (const d of [";", "\t", "|"]) {
      const exposures = file("d-x.csv", EXPOSURES.replaceAll(",", d));
      const events = file("d-e.csv", `user_id${d}event${d}timestamp\nu1${d}purchase${d}2026-03-03T09:00:00Z\n`);
      expect(values(await answer(exposures, events))).toEqual(want);
      expect(values(await answer(exposures, events, conversion, { delimiter: d }))).toEqual(want);
    }
    // A comma inside a quoted id stays in the id with any delimiter.
    const exposures = file("q-x.csv", 'user_id;variant;exposed_at\n"u,1";control;2026-03-02T09:00:00Z\n');
    const events = file("q-e.csv", 'user_id;event;timestamp\n"u,1";purchase;2026-03-03T09:00:00Z\n');
    expect(values(await answer(exposures, events))).toEqual({ control: [1, 1] });
  });

  it("gives one defined answer for an empty events file, an empty exposures file and a header-only file", async () => {
    const exposures = file("e-x.csv", EXPOSURES);
    for (const empty of ["", "user_id,event,timestamp\n"]) {
      const r = await answer(exposures, file("empty-e.csv", empty));
      expect(values(r)).toEqual({ control: [0, 1], treatment: [0, 1] }); // everyone exposed, nobody converted: 0%
      expect((r as MetricResult).as_of).toBe("2026-03-02T09:00:00.001Z");
    }
    for (const empty of ["", "user_id,variant,exposed_at\n"]) {
      const r = (await answer(file("empty-x.csv", empty), file("empty-e2.csv", ""), conversion, {}, { variants: ["control", "treatment"] })) as MetricResult;
      expect(r.variants.control).toEqual({ value: null, numerator: 0, denominator: 0, sum: 0, sum_squares: 0 });
      expect([r.as_of, r.excluded_users, r.immature_users]).toEqual([null, 0, 0]);
    }
  });

  it("ends a fractional window at the same millisecond on every engine (window_days 1/7 is 12,342,857 ms)", async () => {
    const exposed = Date.UTC(2026, 2, 2, 9);
    const at = (ms: number) => new Date(exposed + ms).toISOString();
    const exposures = file("w-x.csv", `user_id,variant,exposed_at\nin,a,${at(0)}\nedge,a,${at(0)}\n`);
    const events = file("w-e.csv", `user_id,event,timestamp\nin,purchase,${at(12_342_856)}\nedge,purchase,${at(12_342_857)}\n`);
    const def: MetricDefinition = { type: "conversion", event: "purchase", window_days: 1 / 7 };
    expect(values(await answer(exposures, events, def, {}, { as_of: "2026-04-01T00:00:00Z" }))).toEqual({ a: [1, 2] });
  });

  it("reads JSON Lines and Parquet into the same rows as CSV", async () => {
    const csv = await answer(file("f-x.csv", EXPOSURES), file("f-e.csv", "user_id,event,timestamp\nu1,purchase,2026-03-03T09:00:00Z\nu2,view,2026-03-03T10:00:00Z\n"));
    const jx = file("f-x.jsonl", ['{"user_id":"u1","variant":"control","exposed_at":"2026-03-02T09:00:00Z"}', "", '{"user_id":"u2","variant":"treatment","exposed_at":"2026-03-02T09:00:00Z","extra":1}'].join("\n"));
    const je = file("f-e.ndjson", '{"user_id":"u1","event":"purchase","timestamp":"2026-03-03T09:00:00Z"}\n{"user_id":"u2","event":"view","timestamp":"2026-03-03T10:00:00Z"}\n');
    expect(await answer(jx, je)).toEqual(csv);
    const px = join(dir, "f-x.parquet");
    const pe = join(dir, "f-e.parquet");
    parquetWriteFile({ filename: px, columnData: [{ name: "user_id", data: ["u1", "u2"], type: "STRING" }, { name: "variant", data: ["control", "treatment"], type: "STRING" }, { name: "exposed_at", data: ["2026-03-02T09:00:00Z", "2026-03-02T09:00:00Z"], type: "STRING" }] });
    parquetWriteFile({ filename: pe, columnData: [{ name: "user_id", data: ["u1", "u2"], type: "STRING" }, { name: "event", data: ["purchase", "view"], type: "STRING" }, { name: "timestamp", data: [new Date("2026-03-03T09:00:00Z"), new Date("2026-03-03T10:00:00Z")], type: "TIMESTAMP" }] });
    expect(await answer(px, pe)).toEqual(csv);
    // Parquet as DuckDB writes it (TIMESTAMP WITH TIME ZONE), read by our reader, not DuckDB's.
    const duck = await DuckDbMetrics.open();
    const dx = join(dir, "duck-x.parquet");
    await duck.connection.run(`COPY (SELECT * FROM (VALUES ('u1', 'control', TIMESTAMPTZ '2026-03-02 09:00:00+00'), ('u2', 'treatment', TIMESTAMPTZ '2026-03-02 09:00:00+00')) t(user_id, variant, exposed_at)) TO '${dx}' (FORMAT parquet)`);
    duck.close();
    expect(await answer(dx, pe)).toEqual(csv);
  });

  it("names the file, line and column of every kind of bad row, the same on every engine and never in DuckDB's words", async () => {
    const x = file("bad-x.csv", EXPOSURES);
    const cases: Array<[string, string, string]> = [
      ["bad1.csv", "user_id,event,timestamp\nu1,,2026-03-03T09:00:00Z\n", "line 2, column 2 (event) is empty"],
      ["bad2.csv", "user_id,event,timestamp\nu1,purchase,2026-03-03T09:00:00Z\nu1,purchase\n", "line 3 is not valid CSV (delimiter \",\"): has 2 fields where the header has 3"],
      ["bad3.csv", "user_id,event,when\nu1,purchase,2026-03-03T09:00:00Z\n", "line 1 must be a header naming the columns user_id, event, timestamp"],
      ["bad4.csv", "timestamp,user_id,event\nyesterday,u1,purchase\n", "line 2, column 1 (timestamp) must be an ISO 8601 timestamp such as 2026-03-02T09:30:00Z, got \"yesterday\""],
      ["bad5.jsonl", '{"user_id":"u1","event":"purchase","timestamp":"2026-03-03T09:00:00Z"}\n{"user_id":"u1","event":"purchase",\n', "line 2, column 36 is not valid JSON"],
      ["bad6.jsonl", '{"user_id":"u1","event":"purchase","timestamp":"2026-03-03T09:00:00+25:00"}\n', "line 1, column 36 (timestamp) has an invalid UTC offset"],
      ["bad7.jsonl", '{"user_id":1.5,"event":"purchase","timestamp":"2026-03-03T09:00:00Z"}\n', "line 1, column 2 (user_id) must be a string, got 1.5"],
      ["bad8.jsonl", '{"event":"purchase","timestamp":"2026-03-03T09:00:00Z"}\n', "line 1 (user_id) is missing"],
      ["bad9.json", '[{"user_id":"u1"}]\n', "line 1 is a JSON array: give one object per line (JSON Lines)"],
      ["bad11.csv", 'user_id,event,timestamp\n"u1,purchase,2026-03-03T09:00:00Z\n', "opens a quote that is never closed"],
      ["bad12.csv", 'user_id,event,timestamp\nu"1,purchase,2026-03-03T09:00:00Z\n', "line 2 is not valid CSV (delimiter \",\"): has a quote inside an unquoted value"],
      ["bad10.parquet", "not parquet at all", "is not a readable Parquet file"],
    ];
    for (const [name, text, problem] of cases) {
      const path = file(name, text);
      const got = await answer(x, path);
      expect(got).toContain(`error: ${path}`);
      expect(got).toContain(problem);
      expect(got).not.toMatch(/duckdb|binder|conversion error|SELECT/i);
      expect(got).not.toMatch(/LINE \d/);
    }
    expect(await answer(x, join(dir, "missing.csv"))).toBe(`error: ${join(dir, "missing.csv")} cannot be read (no such file, or no permission)`);
  });

  it("refuses invalid UTF-8, NUL and lines past the limit (a JSON array on one line) on every engine, DuckDB's readers included", async () => {
    const x = file("h-x.csv", EXPOSURES);
    const row = '{"user_id":"u1","event":"purchase","timestamp":"2026-03-03T09:00:00Z"}';
    const latin1 = Buffer.concat([Buffer.from("user_id,event,timestamp\nu1,purchase,2026-03-03T09:00:00Z\ncaf"), Buffer.from([0xe9]), Buffer.from(",purchase,2026-03-03T09:00:00Z\n")]);
    const cases: Array<[string, string | Buffer, string]> = [
      ["h-latin1.csv", latin1, "line 3 is not valid UTF-8 at byte offset 60"],
      ["h-latin1.jsonl", Buffer.concat([Buffer.from(`${row}\n{"user_id":"caf`), Buffer.from([0xe9]), Buffer.from('","event":"purchase","timestamp":"2026-03-03T09:00:00Z"}\n')]), "line 2 is not valid UTF-8 at byte offset"],
      ["h-nul.csv", "user_id,event,timestamp\nu1\u0000,purchase,2026-03-03T09:00:00Z\n", "line 2, column 1 (user_id) contains a NUL character"],
      ["h-nul.jsonl", '{"user_id":"u1\\u0000","event":"purchase","timestamp":"2026-03-03T09:00:00Z"}\n', "line 1, column 2 (user_id) contains a NUL character"],
      ["h-surrogate.jsonl", '{"user_id":"\\ud800","event":"purchase","timestamp":"2026-03-03T09:00:00Z"}\n', "(user_id) is not valid Unicode text (a lone surrogate)"],
      ["h-huge-id.jsonl", '{"user_id":1e300,"event":"purchase","timestamp":"2026-03-03T09:00:00Z"}\n', "(user_id) must be a string, got 1e+300"],
      ["h-array.json", `[${Array.from({ length: 300_000 }, () => row).join(",")}]\n`, "line 1 is longer than 16 MiB without a line break (from byte offset 0): every row is one line; a JSON array? give one object per line"],
      ["h-long.csv", `user_id,event,timestamp\nu1,${"x".repeat(17 * 2 ** 20)},2026-03-03T09:00:00Z\n`, "line 2 is longer than 16 MiB without a line break (from byte offset 24)"],
      // A quoted field across many short lines: the row, not any line, passes the limit.
      ["h-long-quoted.csv", `user_id,event,timestamp\n"u1,${`${"x".repeat(2 ** 20)}\n`.repeat(17)}",purchase,2026-03-03T09:00:00Z\n`, "is not valid CSV (delimiter \",\"): has a row longer than 16 MiB (a quote never closed?)"],
    ];
    for (const [name, text, problem] of cases) {
      const path = file(name, text);
      const got = await answer(x, path);
      expect(got).toContain(`error: ${path}`);
      expect(got).toContain(problem);
    }
    // What DuckDB's JSON reader refuses or reads as another type, the input layer reads: one answer still.
    const loose = file("h-loose.jsonl", '{"user_id":"u1","user_id":"u2","event":"purchase","timestamp":"2026-03-03T09:00:00Z"}\n{"user_id":1.0,"event":"purchase","timestamp":"2026-03-03T09:00:00Z"}\n');
    expect(values(await answer(file("h-x2.csv", "user_id,variant,exposed_at\nu2,control,2026-03-02T09:00:00Z\n1,treatment,2026-03-02T09:00:00Z\n"), loose))).toEqual({ control: [1, 1], treatment: [1, 1] });
  }, 120_000);

  it("reads a file whose name looks like a glob as that file on every engine (DuckDB's readers would expand it)", async () => {
    file("g1.csv", "user_id,event,timestamp\nu2,purchase,2026-03-03T09:00:00Z\n"); // what `g[1].csv` matches as a glob
    const named = file("g[1].csv", "user_id,event,timestamp\nu1,purchase,2026-03-03T09:00:00Z\n");
    expect(values(await answer(file("g-x.csv", EXPOSURES), named))).toEqual({ control: [1, 1], treatment: [0, 1] });
  });

  it("finishes 100,000 users with 10 events each in seconds on PostgreSQL (PGlite) with the default options, by analysing the fresh tables", async () => {
    // The same data twice: objects for the in-memory engine, and rows PostgreSQL generates itself (loading is not
    // what is measured: the plan is).
    const BASE = Date.UTC(2026, 0, 1);
    const data = {
      exposures: Array.from({ length: 100_000 }, (_, u) => ({ user_id: `u${u}`, variant: u % 2 ? "treatment" : "control", exposed_at: new Date(BASE + u * 1000).toISOString() })),
      events: Array.from({ length: 1_000_000 }, (_, i) => ({ user_id: `u${(i * 7919) % 100_000}`, event: i % 3 ? "view" : "purchase", timestamp: new Date(BASE + i * 500).toISOString() })),
    };
    const pg = new PGlite();
    try {
      await pg.exec(`CREATE TABLE exposures (user_id VARCHAR, variant VARCHAR, exposed_ms BIGINT); CREATE TABLE events (user_id VARCHAR, event VARCHAR, ts_ms BIGINT);
        INSERT INTO exposures SELECT 'u' || u, CASE WHEN u % 2 = 1 THEN 'treatment' ELSE 'control' END, ${BASE} + u::bigint * 1000 FROM generate_series(0, 99999) u;
        INSERT INTO events SELECT 'u' || ((i::bigint * 7919) % 100000), CASE WHEN i % 3 <> 0 THEN 'view' ELSE 'purchase' END, ${BASE} + i::bigint * 500 FROM generate_series(0, 999999) i;`);
      const def: MetricDefinition = { type: "conversion", event: "purchase", window_days: 3 };
      const sent: string[] = [];
      const query = async (sql: string) => (sent.push(sql), (await pg.query<Record<string, unknown>>(sql)).rows);
      const plan = async () => (await pg.query<Record<string, unknown>>(`EXPLAIN ${metricSql(def, BASE + 30 * 86_400_000).variants}`)).rows.map((r) => String(r["QUERY PLAN"])).join("\n");
      // Freshly loaded, without statistics: the planner expects one row and nests loops over a million events (this ran
      // for minutes).
      expect(await plan()).toMatch(/Nested Loop[^\n]*\n(.*\n)*.*Seq Scan on events/);
      const started = performance.now();
      const result = await runMetricSql(query, def, undefined);
      const seconds = (performance.now() - started) / 1000;
      expect(sent.filter((q) => q.startsWith("ANALYZE"))).toEqual(["ANALYZE exposures", "ANALYZE events"]);
      expect(await plan()).not.toMatch(/Nested Loop/);
      expect(seconds).toBeLessThan(60); // seconds, measured around 2 s; a nested loop would take minutes
      expect(result).toEqual(computeMetric(def, data));
      // Analysed now: the next call analyses nothing again.
      sent.length = 0;
      await runMetricSql(query, def, undefined);
      expect(sent.filter((q) => q.startsWith("ANALYZE"))).toEqual([]);
    } finally {
      await pg.close();
    }
  }, 180_000);

  it("analyses by default only on PostgreSQL, always with analyze: true, never with analyze: false", async () => {
    const DEF: MetricDefinition = { type: "conversion", event: "purchase" };
    // DuckDB's version() is not PostgreSQL's: no ANALYZE, no catalogue query.
    const duck = await DuckDBInstance.create(":memory:");
    const connection = await duck.connect();
    try {
      await connection.run("CREATE TABLE exposures (user_id VARCHAR, variant VARCHAR, exposed_ms BIGINT); CREATE TABLE events (user_id VARCHAR, event VARCHAR, ts_ms BIGINT)");
      const sent: string[] = [];
      await runMetricSql(async (sql) => (sent.push(sql), (await connection.runAndReadAll(sql)).getRowObjectsJS()), DEF, undefined);
      expect(sent.some((q) => /ANALYZE|pg_class/.test(q))).toBe(false);
    } finally {
      connection.closeSync();
    }
    // A database that refuses version() (BigQuery, Snowflake) is not PostgreSQL either.
    const refusing: string[] = [];
    await runMetricSql(async (sql) => {
      refusing.push(sql);
      if (sql.includes("version()")) throw new Error("Function not found: version");
      return [];
    }, DEF, undefined);
    expect(refusing.some((q) => /ANALYZE|pg_class/.test(q))).toBe(false);
    const pg = new PGlite();
    try {
      await pg.exec("CREATE TABLE exposures (user_id VARCHAR, variant VARCHAR, exposed_ms BIGINT); CREATE TABLE events (user_id VARCHAR, event VARCHAR, ts_ms BIGINT)");
      const sent: string[] = [];
      const query = async (sql: string) => (sent.push(sql), (await pg.query<Record<string, unknown>>(sql)).rows);
      await runMetricSql(query, DEF, undefined, { analyze: false });
      expect(sent.some((q) => /ANALYZE|pg_class|version/.test(q))).toBe(false);
      await runMetricSql(query, DEF, undefined, { analyze: true });
      await runMetricSql(query, DEF, undefined, { analyze: true });
      expect(sent.filter((q) => q.startsWith("ANALYZE"))).toHaveLength(4);
    } finally {
      await pg.close();
    }
  });

  it("reads Parquet events in the metric's own pass, and still checks every row: a bad row the metric would skip is refused", async () => {
    const px = file("view-x.csv", EXPOSURES);
    const pe = join(dir, "view-e.parquet");
    const rows = (users: string[], events: string[], stamps: string[]) => [
      { name: "user_id", data: users, type: "STRING" }, { name: "event", data: events, type: "STRING" }, { name: "timestamp", data: stamps, type: "STRING" },
    ];
    parquetWriteFile({ filename: pe, columnData: rows(["u1", "u2", "u9"], ["purchase", "view", "purchase"], ["2026-03-03T09:00:00Z", "2026-03-03T10:00:00Z", "2026-03-03T11:00:00Z"]) as never });
    const duck = await DuckDbMetrics.open();
    try {
      const { readers, result } = await duck.computeMetricFromFiles(conversion, px, pe, {}, {});
      expect(readers).toEqual({ exposures: "duckdb", events: "duckdb" });
      expect(result).toEqual(await answer(px, pe));
    } finally {
      duck.close();
    }
    // Rows no metric pass would use (another event, a user never exposed, after the analysis time): each is checked.
    for (const [name, users, events, stamps, says] of [
      ["other-event", ["u1", ""], ["purchase", "view"], ["2026-03-03T09:00:00Z", "2026-03-03T10:00:00Z"], "row 2, column user_id is empty"],
      ["never-exposed", ["u1", "u9"], ["purchase", "purchase"], ["2026-03-03T09:00:00Z", "0999-03-03T10:00:00Z"], "row 2, column timestamp is before the year 1000"],
      ["nul-event", ["u1", "u2"], ["purchase", "vi\u0000ew"], ["2026-03-03T09:00:00Z", "2026-03-03T10:00:00Z"], "row 2, column event contains a NUL character"],
    ] as const) {
      const bad = join(dir, `view-${name}.parquet`);
      parquetWriteFile({ filename: bad, columnData: rows([...users], [...events], [...stamps]) as never });
      expect(String(await answer(px, bad)), name).toContain(says);
    }
  });

  it("reads CSV events in the metric's own pass too, and still checks every row, used by the metric or not", async () => {
    const px = file("keep-x.csv", EXPOSURES);
    const AS_OF = { as_of: "2026-03-10T00:00:00Z" };
    const good = file("keep-e.csv", "user_id,event,timestamp\nu1,purchase,2026-03-03T09:00:00Z\nu2,view,2026-03-03T10:00:00Z\nu2,purchase,2026-03-11T10:00:00Z\n");
    const duck = await DuckDbMetrics.open();
    try {
      const { readers, result } = await duck.computeMetricFromFiles(conversion, px, good, {}, AS_OF);
      expect(readers).toEqual({ exposures: "duckdb", events: "duckdb" });
      expect(result).toEqual(await answer(px, good, conversion, {}, AS_OF));
      // Nothing of the events was held in a table: they are a view over the file.
      const kinds = (await duck.connection.runAndReadAll("SELECT table_name, table_type FROM information_schema.tables ORDER BY table_name")).getRowObjects();
      expect(kinds).toEqual([{ table_name: "events", table_type: "VIEW" }, { table_name: "exposures", table_type: "BASE TABLE" }]);
    } finally {
      duck.close();
    }
    for (const [name, text, says] of [
      ["other-event", "user_id,event,timestamp\nu1,purchase,2026-03-03T09:00:00Z\nu2,view,2026-02-30T10:00:00Z\n", "line 3, column 3 (timestamp) is not a calendar date"],
      ["after-as-of", "user_id,event,timestamp\nu1,purchase,2026-03-03T09:00:00Z\n,purchase,2026-03-11T10:00:00Z\n", "line 3, column 1 (user_id) is empty"],
      ["never-exposed", "user_id,event,timestamp\nu1,purchase,2026-03-03T09:00:00Z\nu9,view,2026-03-03 10:00:00\n", "line 3, column 3 (timestamp) has no UTC offset"],
      ["a-comment-line", "user_id,event,timestamp\n#u1,purchase,2026-03-03T09:00:00Z\nu1,purchase,2026-03-03T09:00:00Z\n", ""],
    ] as const) {
      const events = file(`keep-${name}.csv`, text);
      const outcome = await answer(px, events, conversion, {}, AS_OF);
      if (says) expect(String(outcome), name).toContain(says);
      // A line that looks like a comment is a row: user "#u1", never exposed (DuckDB's sniffer must not skip it).
      else expect(outcome, name).toEqual(await answer(px, file("keep-plain.csv", "user_id,event,timestamp\nu1,purchase,2026-03-03T09:00:00Z\n"), conversion, {}, AS_OF));
    }
  });

  it("takes a 3 MiB CSV line (past DuckDB's 2 MiB line limit, within the input layer's 16 MiB) with one answer everywhere", async () => {
    const long = `u${"x".repeat(3 * 1024 * 1024)}`;
    const px = file("long-x.csv", `user_id,variant,exposed_at\n${long},control,2026-03-02T09:00:00Z\nu2,treatment,2026-03-02T09:00:00Z\n`);
    const pe = file("long-e.csv", `user_id,event,timestamp\n${long},purchase,2026-03-03T09:00:00Z\nu2,view,2026-03-03T10:00:00Z\n`);
    const result = await answer(px, pe);
    expect(values(result as MetricResult)).toEqual({ control: [1, 1], treatment: [0, 1] });
  });

  it("defaults --as-of to just after the data's last timestamp (exposures or events), and says so", async () => {
    const r = (await answer(file("a-x.csv", EXPOSURES), file("a-e.csv", "user_id,event,timestamp\nu1,view,2026-03-09T10:00:00.250Z\nu1,purchase,2026-03-04T09:00:00Z\n"), { type: "conversion", event: "purchase", window_days: 7 })) as MetricResult;
    expect([r.as_of, r.as_of_source]).toEqual(["2026-03-09T10:00:00.251Z", "data"]);
    expect(r.immature_users).toBe(0); // exposed 03-02 09:00 with 7 days: mature at 03-09 09:00, before as_of
    const given = (await answer(file("a-x.csv", EXPOSURES), file("a-e2.csv", "user_id,event,timestamp\n"), conversion, {}, { as_of: "2026-03-03T00:00:00+01:00" })) as MetricResult;
    expect([given.as_of, given.as_of_source]).toEqual(["2026-03-02T23:00:00.000Z", "options"]);
  });
});

describe("the UTF-8 check", () => {
  const through = async (chunks: Buffer[]) => {
    const out: Buffer[] = [];
    for await (const c of utf8Stream((async function* () { yield* chunks; })(), "f.csv")) out.push(c as Buffer);
    return Buffer.concat(out);
  };
  it("passes every valid text through unchanged, wherever chunks cut its characters", async () => {
    const text = Buffer.from("id,é,日本,😀\nx\n");
    for (let a = 1; a < text.length; a++) {
      for (let b = a + 1; b <= text.length; b++) {
        expect((await through([text.subarray(0, a), text.subarray(a, b), text.subarray(b)])).equals(text)).toBe(true);
      }
    }
  });
  it("refuses overlong forms, surrogates, stray continuation bytes and a cut final character", async () => {
    for (const bad of [[0xc0, 0x80], [0xed, 0xa0, 0x80], [0x80], [0xf4, 0x90, 0x80, 0x80], [0xe6, 0x97]]) {
      await expect(through([Buffer.from("ok\n"), Buffer.from(bad)])).rejects.toThrow(/f\.csv line .* (is not valid UTF-8 at byte offset 3|ends inside a character at byte offset 3)/);
    }
  });
});
