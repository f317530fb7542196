// `api-metrics` on numbers that are not numbers (issue #41): non-finite and overflowing --split weights, weights near
// a double's largest, NaN and Infinity in Parquet DOUBLE columns and in definitions. Each case through the command;
// "both engines" where the engine could matter (the refusal of an option happens before either runs).
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { METRICS_CLI } from "./command.ts";

const dir = mkdtempSync(join(tmpdir(), "metrics-cli-numbers-"));
const exposures = join(dir, "exposures.csv");
const events = join(dir, "events.csv");
writeFileSync(exposures, "user_id,variant,exposed_at\na,control,2026-01-01T00:00:00Z\nb,control,2026-01-01T00:00:00Z\nc,treatment,2026-01-02T00:00:00+02:00\nd,treatment,2026-01-08T00:00:00Z\n");
writeFileSync(events, "user_id,event,timestamp\na,purchase,2026-01-02T00:00:00Z\nc,purchase,2026-01-03T00:00:00Z\nc,page_view,2026-01-04T00:00:00-05:00\n");
const run = (...args: string[]) => spawnSync(process.execPath, [METRICS_CLI, ...args], { encoding: "utf8" });
const definition = JSON.stringify({ type: "conversion", event: "purchase", window_days: 7 });

describe("api-metrics: numbers that are not numbers", () => {
  const base = ["--definition", definition, "--exposures", exposures, "--events", events, "--as-of", "2026-01-10T00:00:00Z", "--control", "control", "--treatment", "treatment", "--format", "json"];
  const both = (...args: string[]) => ["memory", "sql"].map((engine) => run("--engine", engine, ...args));

  it("refuses a non-finite or overflowing --split weight with its own text, on both engines", () => {
    for (const [weight, says] of [["Infinity", '"Infinity"'], ["1e400", '"1e400" (past a double'], ["-Infinity", '"-Infinity"'], ["NaN", '"NaN"'], ["1e-400", '"1e-400" (below a double']]) {
      // Refused while the options are read, before an engine runs: both engines once, the rest on one.
      const outs = weight === "Infinity" ? both(...base, "--split", `control=${weight},treatment=50`) : [run(...base, "--split", `control=${weight},treatment=50`)];
      for (const o of outs) {
        expect(o.status, o.stderr).toBe(2);
        expect(o.stderr).toContain("the weight of control");
        expect(o.stderr).toContain(says);
        expect(o.stderr).not.toContain("null");
      }
      if (outs.length === 2) expect(outs[1].stderr).toBe(outs[0].stderr);
    }
  }, 60_000);

  it("computes the sample ratio check of weights near a double's largest as the equal split they are", () => {
    const equal = JSON.parse(run(...base).stdout).srm;
    expect(equal.chi_square).toBeCloseTo(1 / 3, 12); // 2 users against 1
    for (const o of both(...base, "--split", "control=1e308,treatment=1e308")) {
      expect(o.status, o.stderr).toBe(0);
      expect(JSON.parse(o.stdout).srm).toEqual(equal);
    }
    // Unequal but both huge: the same as 1 to 1.5.
    const huge = JSON.parse(run(...base, "--split", "control=1e308,treatment=1.5e308").stdout).srm;
    const small = JSON.parse(run(...base, "--split", "control=2,treatment=3").stdout).srm;
    expect(huge.chi_square).toBeCloseTo(small.chi_square, 12);
    expect(huge.p_value).toBeCloseTo(small.p_value, 12);
    // A share below a double's smallest: users where none are expected are an infinite mismatch (p = 0), not NaN.
    const tiny = JSON.parse(run(...base, "--split", "control=1e308,treatment=1e-10").stdout).srm;
    expect([tiny.chi_square, tiny.p_value, tiny.mismatch]).toEqual(["Infinity", 0, true]);
  }, 60_000);

  it("refuses Parquet DOUBLE ids and instants of NaN or Infinity by name, with one message on both engines", async () => {
    const { DuckDbMetrics } = await import("../src/sql/duckdb.ts");
    const duck = await DuckDbMetrics.open();
    const cases: Array<[string, string, string]> = [];
    try {
      for (const [name, value] of [["nan", "NaN"], ["inf", "Infinity"], ["ninf", "-Infinity"]] as const) {
        const ids = join(dir, `double-id-${name}.parquet`);
        await duck.connection.run(`COPY (SELECT * FROM (VALUES (CAST(1 AS DOUBLE), 'control', TIMESTAMPTZ '2026-01-01 00:00:00+00'), (CAST('${value}' AS DOUBLE), 'treatment', TIMESTAMPTZ '2026-01-01 00:00:00+00')) t(user_id, variant, exposed_at)) TO '${ids}' (FORMAT parquet)`);
        cases.push([ids, events, `user_id must be a string, got ${value}`]);
        const instants = join(dir, `double-ts-${name}.parquet`);
        await duck.connection.run(`COPY (SELECT 'a' AS user_id, 'purchase' AS event, CAST('${value}' AS DOUBLE) AS timestamp) TO '${instants}' (FORMAT parquet)`);
        cases.push([exposures, instants, `timestamp must be an ISO 8601 timestamp, got ${value}`]);
      }
    } finally {
      duck.close();
    }
    for (const [x, e, says] of cases) {
      const outs = both("--definition", definition, "--exposures", x, "--events", e, "--format", "json");
      for (const o of outs) {
        expect(o.status, `${x} ${e}: ${o.stdout}`).toBe(2);
        expect(o.stderr).toContain(says);
        expect(o.stderr).not.toContain("got null");
      }
      expect(outs[1].stderr).toBe(outs[0].stderr);
    }
  }, 120_000);

  it("names an overflowing number in a definition as Infinity, not null", () => {
    const o = run("--definition", '{"type":"conversion","event":"purchase","window_days":1e400}', "--print-sql");
    expect(o.status).toBe(2);
    expect(o.stderr).toContain("definition.window_days must be a finite number > 0, got Infinity (a number past");
  });
});
