// `api-metrics` end to end: both engines read the files through the same input layer and print the same result,
// whatever the machine's TZ; the output is a table, JSON or CSV, the sample ratio check first; progress shows on
// files over a million rows; bad input exits 2 naming the file, line and column.
import { spawnSync } from "node:child_process";
import { createWriteStream, mkdtempSync, writeFileSync } from "node:fs";
import { once } from "node:events";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { METRICS_CLI } from "./command.ts";

const dir = mkdtempSync(join(tmpdir(), "metrics-cli-"));
const exposures = join(dir, "exposures.csv");
const events = join(dir, "events.csv");
writeFileSync(exposures, "user_id,variant,exposed_at\na,control,2026-01-01T00:00:00Z\nb,control,2026-01-01T00:00:00Z\nc,treatment,2026-01-02T00:00:00+02:00\nd,treatment,2026-01-08T00:00:00Z\n");
writeFileSync(events, "user_id,event,timestamp\na,purchase,2026-01-02T00:00:00Z\nc,purchase,2026-01-03T00:00:00Z\nc,page_view,2026-01-04T00:00:00-05:00\n");

const run = (...args: string[]) => spawnSync(process.execPath, [METRICS_CLI, ...args], { encoding: "utf8" });
const runIn = (tz: string, ...args: string[]) => spawnSync(process.execPath, [METRICS_CLI, ...args], { encoding: "utf8", env: { ...process.env, TZ: tz } });
const definition = JSON.stringify({ type: "conversion", event: "purchase", window_days: 7 });

describe("npm run metrics", () => {
  it("gives the same result with --engine memory and --engine sql, excluding users whose window is still open", () => {
    const [memory, sql] = ["memory", "sql"].map((engine) => run("--engine", engine, "--definition", definition, "--exposures", exposures, "--events", events, "--as-of", "2026-01-10T00:00:00Z", "--control", "control", "--treatment", "treatment"));
    expect(memory.status, memory.stderr).toBe(0);
    expect(sql.status, sql.stderr).toBe(0);
    expect(sql.stdout).toBe(memory.stdout); // byte for byte: the same variants in the same order
    const { result, comparisons: [comparison] } = JSON.parse(memory.stdout);
    expect(result).toMatchObject({ immature_users: 1, variants: { control: { value: 0.5, denominator: 2 }, treatment: { value: 1, denominator: 1 } } });
    expect(comparison.method).toBe("newcombe_wilson");
  }, 30_000);

  it("prints the standard SQL for a warehouse, and refuses a bad definition with exit 2 naming the field", () => {
    const sql = run("--definition", definition, "--print-sql", "--as-of", "2026-01-10T00:00:00Z");
    expect(sql.status).toBe(0);
    expect(sql.stdout).toContain("FROM exposures");
    expect(sql.stdout).toContain(`WHERE exposed_ms < ${Date.UTC(2026, 0, 10)}`);
    const bad = run("--definition", JSON.stringify({ type: "retention", event: "purchase" }), "--print-sql");
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain("definition.threshold");
  }, 30_000);

  it("gives one answer on both engines whatever the machine's TZ, for wall-clock times read with --timezone", () => {
    const x = join(dir, "tz-x.csv");
    const e = join(dir, "tz-e.csv");
    writeFileSync(x, "user_id,variant,exposed_at\na,control,2026-03-28 23:30:00\nb,treatment,2026-03-29 01:30:00\n");
    writeFileSync(e, "user_id,event,timestamp\na,purchase,2026-03-29 03:10:00\nb,purchase,2026-03-29 03:20:00\n");
    const def = JSON.stringify({ type: "conversion", event: "purchase", window_days: 0.125 }); // 3 hours
    const outs = ["UTC", "America/New_York", "Asia/Kolkata"].flatMap((tz) => ["memory", "sql"].map((engine) => runIn(tz, "--engine", engine, "--definition", def, "--exposures", x, "--events", e, "--timezone", "Europe/Paris", "--as-of", "2026-04-01T00:00:00Z", "--format", "json")));
    for (const o of outs) expect(o.status, o.stderr).toBe(0);
    expect(new Set(outs.map((o) => o.stdout)).size).toBe(1);
    // Paris skips 02:00-03:00 that night: a's 23:30 +01:00 to 03:10 +02:00 is 2h40 (inside 3 h), b's 01:30 to 03:20 is 50 min.
    expect(JSON.parse(outs[0].stdout).result.variants).toMatchObject({ control: { numerator: 1 }, treatment: { numerator: 1 } });
    const refused = runIn("Asia/Kolkata", "--engine", "sql", "--definition", def, "--exposures", x, "--events", e);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toBe(`invalid input: ${x} line 2, column 3 (exposed_at) has no UTC offset (add Z or +hh:mm, or name the data's time zone with --timezone): "2026-03-28 23:30:00"\n`);
  }, 60_000);

  it("prints the sample ratio check first, every treatment against the control with Holm, as a table, JSON or CSV", () => {
    const x = join(dir, "arms-x.csv");
    const e = join(dir, "arms-e.csv");
    const users = Array.from({ length: 90 }, (_, i) => `u${i},${["control", "b", "c"][i % 3]},2026-01-01T00:00:00Z`);
    writeFileSync(x, `user_id,variant,exposed_at\n${users.join("\n")}\n`);
    writeFileSync(e, `user_id,event,timestamp\n${Array.from({ length: 90 }, (_, i) => (i % 3 === 0 ? i % 2 : i % 3 === 1 ? i % 5 !== 0 : i % 4 !== 0) ? `u${i},purchase,2026-01-02T00:00:00Z` : "").filter(Boolean).join("\n")}\n`);
    const args = ["--definition", JSON.stringify({ type: "conversion", event: "purchase" }), "--exposures", x, "--events", e, "--control", "control", "--treatment", "b,c"];
    const json = run(...args, "--format", "json");
    expect(json.status, json.stderr).toBe(0);
    const out = JSON.parse(json.stdout);
    expect(Object.keys(out)).toEqual(["srm", "result", "comparisons"]);
    expect(out.srm).toMatchObject({ observed: { control: 30, b: 30, c: 30 }, chi_square: 0, df: 2, p_value: 1, mismatch: false });
    expect(out.comparisons.map((c: { treatment: string }) => c.treatment)).toEqual(["b", "c"]);
    const ps = out.comparisons.map((c: { p_value: number }) => c.p_value);
    const sorted = [...ps].sort((a, b) => a - b);
    // Holm by hand: the smaller p times 2, the larger times 1 but never below the first.
    const first = Math.min(1, 2 * sorted[0]);
    expect(out.comparisons.map((c: { p_adjusted: number }) => c.p_adjusted)).toEqual(ps.map((p: number) => (p === sorted[0] ? first : Math.max(first, p))));
    const table = run(...args, "--format", "table");
    expect(table.stdout.split("\n")[0]).toMatch(/^Sample ratio: ok: p = 1\.0000, chi-square 0\.000 on 2 df/);
    expect(table.stdout).toContain("as of: 2026-01-02T00:00:00.001Z (just after the data's last timestamp; set --as-of to choose)");
    expect(table.stdout).toMatch(/│ b\s+│ 30\s+│/);
    const csv = run(...args, "--format", "csv");
    const [head, ...rows] = csv.stdout.trim().split("\n");
    expect(head.split(",").slice(0, 8)).toEqual(["metric", "event", "as_of", "as_of_source", "arm", "role", "users", "value"]);
    expect(rows.map((r) => r.split(",")[4])).toEqual(["control", "b", "c"]);
    expect(rows.find((r) => r.includes(",control,control,"))).toBeDefined();
    const skewed = run(...args, "--split", "control=80,b=10,c=10", "--format", "json");
    expect(JSON.parse(skewed.stdout).srm.mismatch).toBe(true);
    expect(run(...args, "--split", "control=80,b=20", "--format", "json").stderr).toContain("split.c must be a weight > 0");
  }, 60_000);

  it("escapes CSV cells a spreadsheet would run as formulas, and leaves negative numbers as numbers", () => {
    const x = join(dir, "formula-x.csv");
    const e = join(dir, "formula-e.csv");
    const arms = ["=HYPERLINK(\"http://evil.example\")", "@SUM(A1)"];
    const users = Array.from({ length: 40 }, (_, i) => `u${i},"${arms[i % 2].replace(/"/g, '""')}",2026-01-01T00:00:00Z`);
    writeFileSync(x, `user_id,variant,exposed_at\n${users.join("\n")}\n`);
    // The treatment converts less: its lift is negative.
    writeFileSync(e, `user_id,event,timestamp\n${Array.from({ length: 40 }, (_, i) => (i % 2 === 0 || i % 8 === 1 ? `u${i},purchase,2026-01-02T00:00:00Z` : "")).filter(Boolean).join("\n")}\n`);
    const r = run("--definition", JSON.stringify({ type: "conversion", event: "purchase" }), "--exposures", x, "--events", e, "--control", arms[0], "--treatment", arms[1], "--format", "csv");
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stdout.trim().split("\n").slice(1);
    expect(lines.some((l) => l.includes(`"'=HYPERLINK(""http://evil.example"")"`))).toBe(true);
    expect(lines.some((l) => l.includes(",'@SUM(A1),"))).toBe(true);
    // No cell of any line starts a formula, and the negative lift is written as a number.
    for (const l of lines) for (const cell of l.split(",")) expect(cell, l).not.toMatch(/^"?[=@]/);
    expect(lines.find((l) => l.includes("'@SUM"))).toMatch(/,-0\.\d+,/);
  }, 30_000);

  it.each(["memory", "sql"])("refuses invalid UTF-8 with the file, line and byte offset, never a replacement character (%s)", (engine) => {
    const x = join(dir, `latin1-${engine}.csv`);
    // Line 3 holds "caf\xe9" in Latin-1: as UTF-8 it is not a character, and replacing it could merge two user ids.
    writeFileSync(x, Buffer.concat([Buffer.from("user_id,variant,exposed_at\na,control,2026-01-01T00:00:00Z\ncaf"), Buffer.from([0xe9]), Buffer.from(",treatment,2026-01-01T00:00:00Z\n")]));
    const r = run("--engine", engine, "--definition", definition, "--exposures", x, "--events", events);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(`invalid input: ${x} line 3 is not valid UTF-8 at byte offset 61 (0xe92c7472); save the file as UTF-8: nothing is replaced or guessed\n`);
    // Valid multi-byte text passes.
    const ok = join(dir, `utf8-${engine}.csv`);
    writeFileSync(ok, "user_id,variant,exposed_at\ncafé,control,2026-01-01T00:00:00Z\n日本,treatment,2026-01-01T00:00:00Z\n");
    expect(run("--engine", engine, "--definition", definition, "--exposures", ok, "--events", events, "--format", "json").status).toBe(0);
  }, 60_000);

  it("refuses, suggesting --engine sql, more users than the in-memory engine can hold, instead of running out of memory; --engine sql reads them", async () => {
    const x = join(dir, "many-users.csv");
    const out = createWriteStream(x);
    out.write("user_id,variant,exposed_at\n");
    for (let i = 0; i < 300_000; i++) out.write(`user-${i},${i % 2 ? "treatment" : "control"},2026-01-01T00:00:00Z\n`);
    out.end();
    await once(out, "finish");
    // A small heap stands in for a file too large for the machine: the limit follows the heap the process has.
    const small = (engine: string) => spawnSync(process.execPath, ["--max-old-space-size=64", METRICS_CLI, "--engine", engine, "--definition", JSON.stringify({ type: "conversion", event: "purchase" }), "--exposures", x, "--events", events, "--format", "json"], { encoding: "utf8" });
    const memory = small("memory");
    expect(memory.status, memory.stderr).toBe(2);
    expect(memory.stderr).toMatch(/^invalid input: exposures name more than [\d,]+ users, more than the in-memory engine holds in this process \(one entry per exposed user\): run with --engine sql, which keeps them in DuckDB\n$/);
    const sql = small("sql");
    expect(sql.status, sql.stderr).toBe(0);
    expect(JSON.parse(sql.stdout).result.variants.control.denominator).toBe(150_000);
  }, 60_000);

  it("writes a non-finite number by its name in JSON and CSV, never as null, and refuses a threshold past 2^53, the same on both engines", () => {
    // A split weight of 1e-320 expects almost nobody in the treatment: the chi-square overflows to Infinity.
    const base = ["--definition", JSON.stringify({ type: "conversion", event: "purchase" }), "--exposures", exposures, "--events", events, "--control", "control", "--treatment", "treatment", "--split", "control=1,treatment=1e-320"];
    const [memory, sql] = ["memory", "sql"].map((engine) => run("--engine", engine, ...base, "--format", "json"));
    expect(memory.status, memory.stderr).toBe(0);
    expect(sql.stdout).toBe(memory.stdout);
    const srm = JSON.parse(memory.stdout).srm;
    expect([srm.chi_square, srm.p_value, srm.mismatch]).toEqual(["Infinity", 0, true]);
    const csv = run(...base, "--format", "csv");
    expect(csv.status, csv.stderr).toBe(0);
    expect(csv.stdout.split("\n")[1].split(",")).toContain("true"); // a valid CSV row with the mismatch flagged
    const huge = ["memory", "sql"].map((engine) => run("--engine", engine, "--definition", JSON.stringify({ type: "retention", event: "purchase", threshold: 1e300, window_days: 7 }), "--exposures", exposures, "--events", events));
    for (const r of huge) {
      expect(r.status).toBe(2);
      expect(r.stderr).toBe("invalid input: definition.threshold must be an integer from 1 to 9007199254740991, got 1e+300\n");
    }
  }, 60_000);

  it("answers a run with no exposed users with null values, not an error, when no arm is named", () => {
    const empty = join(dir, "none.csv");
    writeFileSync(empty, "");
    const r = run("--definition", JSON.stringify({ type: "conversion", event: "purchase" }), "--exposures", empty, "--events", empty, "--format", "json");
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.result).toMatchObject({ as_of: null, variants: {} });
  }, 30_000);

  it.each(["memory", "sql"])("refuses an arm named in --control, --treatment or --split that the data never names, listing the arms found (%s)", (engine) => {
    const base = ["--engine", engine, "--definition", definition, "--exposures", exposures, "--events", events, "--as-of", "2026-01-10T00:00:00Z", "--format", "json"];
    const typo = run(...base, "--control", "control", "--treatment", "treatmnet");
    expect(typo.status).toBe(2);
    expect(typo.stdout).toBe("");
    expect(typo.stderr).toContain(`--control/--treatment names an arm the exposures never name: "treatmnet"; the arms found: "control", "treatment"`);
    const split = run(...base, "--control", "control", "--treatment", "treatment", "--split", "control=50,treatment=40,holdout=10");
    expect(split.status).toBe(2);
    expect(split.stderr).toContain(`--split names an arm the exposures never name: "holdout"`);
    const empty = join(dir, "none.csv");
    writeFileSync(empty, "");
    const none = run("--engine", engine, "--definition", definition, "--exposures", empty, "--events", empty, "--control", "control", "--treatment", "treatment");
    expect(none.status).toBe(2);
    expect(none.stderr).toContain("the arms found: none (no exposures)");
  }, 60_000);

  it("shows progress on stderr for a file over a million rows, and not with --no-progress", async () => {
    const x = join(dir, "big-x.csv");
    const e = join(dir, "big-e.csv");
    writeFileSync(x, "user_id,variant,exposed_at\nu0,control,2026-01-01T00:00:00Z\nu1,treatment,2026-01-01T00:00:00Z\n");
    const out = createWriteStream(e);
    out.write("user_id,event,timestamp\n");
    const line = "u1,purchase,2026-01-02T00:00:00Z\n";
    for (let i = 0; i < 1_050_000 / 10_000; i++) if (!out.write(line.repeat(10_000))) await once(out, "drain");
    out.end();
    await once(out, "finish");
    const r = run("--definition", JSON.stringify({ type: "events_per_user", event: "purchase" }), "--exposures", x, "--events", e, "--format", "json");
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toBe(`${e}: 1,000,000 rows read so far\n${e}: 1,050,000 rows read\n`);
    expect(JSON.parse(r.stdout).result.variants.treatment.numerator).toBe(1_050_000);
    const quiet = run("--definition", JSON.stringify({ type: "events_per_user", event: "purchase" }), "--exposures", x, "--events", e, "--format", "json", "--no-progress");
    expect(quiet.stderr).toBe("");
    // --engine sql: DuckDB's own progress while it reads, checks and computes over the events file (polled every
    // 20 ms here, every second by default), ending with "done"; nothing with --no-progress.
    const sqlArgs = ["--engine", "sql", "--definition", JSON.stringify({ type: "events_per_user", event: "purchase" }), "--exposures", x, "--events", e, "--format", "json"];
    const env = { ...process.env, API_METRICS_PROGRESS_MS: "20" };
    const sql = spawnSync(process.execPath, [METRICS_CLI, ...sqlArgs], { encoding: "utf8", env });
    expect(sql.status, sql.stderr).toBe(0);
    expect(sql.stderr).toMatch(new RegExp(`^${e.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: reading, checking and computing the metric: \\d+%\n`, "m"));
    expect(sql.stderr).toContain(`${e}: reading, checking and computing the metric: done\n`);
    expect(JSON.parse(sql.stdout).result).toEqual(JSON.parse(r.stdout).result);
    const sqlQuiet = spawnSync(process.execPath, [METRICS_CLI, ...sqlArgs, "--no-progress"], { encoding: "utf8", env });
    expect(sqlQuiet.stderr).toBe("");
  }, 120_000);
});
