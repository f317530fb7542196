// `npm run metrics`: both engines read the same files and print the same result; the sql engine reads the files
// through DuckDB (never into Node); bad input exits 2 naming the field.
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const dir = mkdtempSync(join(tmpdir(), "metrics-cli-"));
const exposures = join(dir, "exposures.csv");
const events = join(dir, "events.csv");
writeFileSync(exposures, "user_id,variant,exposed_at\na,control,2026-01-01T00:00:00Z\nb,control,2026-01-01T00:00:00Z\nc,treatment,2026-01-02T00:00:00+02:00\nd,treatment,2026-01-08T00:00:00Z\n");
writeFileSync(events, "user_id,event,timestamp\na,purchase,2026-01-02T00:00:00Z\nc,purchase,2026-01-03T00:00:00Z\nc,page_view,2026-01-04T00:00:00-05:00\n");

const run = (...args: string[]) => spawnSync(process.execPath, ["--import", "tsx", "metrics/src/cli.ts", ...args], { encoding: "utf8" });
const definition = JSON.stringify({ type: "conversion", event: "purchase", window_days: 7 });

describe("npm run metrics", () => {
  it("gives the same result with --engine memory and --engine sql, excluding users whose window is still open", () => {
    const [memory, sql] = ["memory", "sql"].map((engine) => run("--engine", engine, "--definition", definition, "--exposures", exposures, "--events", events, "--as-of", "2026-01-10T00:00:00Z", "--control", "control", "--treatment", "treatment"));
    expect(memory.status, memory.stderr).toBe(0);
    expect(sql.status, sql.stderr).toBe(0);
    expect(JSON.parse(sql.stdout)).toEqual(JSON.parse(memory.stdout));
    const { result, comparison } = JSON.parse(memory.stdout);
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
});
