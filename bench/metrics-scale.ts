/**
 * Warehouse scale: `api-metrics --engine sql` end to end (the built command: DuckDB's readers, every input check in
 * SQL, the metric, the read-out) against DuckDB alone computing the same aggregates on the same files with its own
 * type detection and no checks (bench/metrics-duckdb-alone.mjs), at 10M and 50M events, for CSV and Parquet. Wall
 * time and peak resident memory (DuckDB's native memory included) of each whole process, medians of the runs, the
 * two measured alternately in one run. The targets: at most 2x DuckDB alone, and at 50M under PEAK_BUDGET_MB.
 * Run alone with `npx tsx bench/metrics-scale.ts`, or from `npm run bench`.
 * Options: METRICS_SCALE_SIZES (default 10000000,50000000), METRICS_SCALE_RUNS (default 3).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, renameSync, statSync } from "node:fs";
import os from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { DuckDBInstance } from "@duckdb/node-api";
import { median } from "./load.ts";

const root = resolve(fileURLToPath(import.meta.url), "../..");
const SIZES = (process.env.METRICS_SCALE_SIZES ?? "10000000,50000000").split(",").map(Number);
const RUNS = Number(process.env.METRICS_SCALE_RUNS ?? 3);
const USERS = 1_000_000;
/** The stated ceiling of `--engine sql`'s peak resident memory at 50M events. */
export const PEAK_BUDGET_MB = 4096;
const BASE = Date.UTC(2026, 0, 1);
const AS_OF = BASE + 60 * 86_400_000;
const dir = join(os.tmpdir(), "metrics-scale-bench");

/** The files, written by DuckDB from row formulas (CSV timestamps as ISO text with Z, Parquet as TIMESTAMPTZ). */
async function files(size: number, format: "csv" | "parquet"): Promise<{ exposures: string; events: string }> {
  mkdirSync(dir, { recursive: true });
  const exposures = join(dir, `exposures.${format}`);
  const events = join(dir, `events-${size}.${format}`);
  const db = await (await DuckDBInstance.create(":memory:")).connect();
  await db.run("SET TimeZone = 'UTC'");
  const ts = (ms: string) => (format === "csv" ? `strftime(make_timestamp(${ms} * 1000), '%Y-%m-%dT%H:%M:%S.%gZ')` : `make_timestamptz(${ms} * 1000)`);
  const copy = async (path: string, select: string) => {
    if (existsSync(path)) return;
    await db.run(`COPY (${select}) TO '${path}.tmp' (FORMAT ${format}${format === "csv" ? ", HEADER" : ""})`);
    renameSync(`${path}.tmp`, path);
  };
  await copy(exposures, `SELECT 'u' || u AS user_id, CASE WHEN u % 2 = 1 THEN 'treatment' ELSE 'control' END AS variant, ${ts(`(${BASE} + ((u * 104729) % ${10 * 86_400}) * 1000)`)} AS exposed_at FROM range(${USERS}) t(u)`);
  await copy(events, `SELECT 'u' || ((i * 40503 + 17) % ${USERS + USERS / 10}) AS user_id, CASE WHEN i % 3 = 2 THEN 'page_view' ELSE 'purchase' END AS event, ${ts(`(${BASE} + ((i * 7919) % ${40 * 86_400}) * 1000)`)} AS "timestamp" FROM range(${size}) t(i)`);
  return { exposures, events };
}

interface Measure { ms: number; rss_mb: number; stdout: string }

function measure(args: string[]): Measure {
  const t = performance.now();
  const r = spawnSync(process.execPath, ["--require", join(root, "bench/peak-rss.cjs"), ...args], { cwd: root, encoding: "utf8", maxBuffer: 1 << 26 });
  const ms = performance.now() - t;
  if (r.status !== 0) throw new Error(`${args.slice(0, 2).join(" ")} failed: ${r.stderr.trim().split("\n").slice(-3).join(" ")}`);
  return { ms, rss_mb: Number(/peak_rss_kb=(\d+)/.exec(r.stderr)?.[1]) / 1024, stdout: r.stdout };
}

const ours = (f: { exposures: string; events: string }) => measure([join(root, "metrics/dist/cli.js"), "--engine", "sql", "--definition", JSON.stringify({ type: "conversion", event: "purchase", window_days: 14 }),
  "--exposures", f.exposures, "--events", f.events, "--as-of", new Date(AS_OF).toISOString(), "--control", "control", "--treatment", "treatment", "--format", "json", "--no-progress"]);
const alone = (f: { exposures: string; events: string }) => measure([join(root, "bench/metrics-duckdb-alone.mjs"), f.exposures, f.events, String(AS_OF)]);

export interface ScaleRow { events: number; format: string; file_mb: number; ours_ms: number; alone_ms: number; ours_rss_mb: number; alone_rss_mb: number; ratio: number }

export async function benchMetricsScale(): Promise<ScaleRow[]> {
  if (!existsSync(join(root, "metrics/dist/cli.js"))) spawnSync("npm", ["run", "build", "-w", "metrics"], { cwd: root, stdio: "inherit" });
  const rows: ScaleRow[] = [];
  for (const size of SIZES) {
    for (const format of ["csv", "parquet"] as const) {
      const f = await files(size, format);
      const a: Measure[] = [];
      const b: Measure[] = [];
      for (let r = 0; r < RUNS; r++) {
        a.push(ours(f));
        b.push(alone(f));
      }
      // The same numbers, or the comparison means nothing.
      const variants = JSON.parse(a[0].stdout).result.variants;
      const yardstick = JSON.parse(b[0].stdout).variants as Array<{ variant: string; denominator: number; total: number }>;
      for (const v of yardstick) {
        if (variants[v.variant]?.denominator !== v.denominator || variants[v.variant]?.sum !== v.total) throw new Error(`${format} at ${size}: ${v.variant} differs: ${JSON.stringify(variants[v.variant])} vs ${JSON.stringify(v)}`);
      }
      const ours_ms = median(a.map((m) => m.ms));
      const alone_ms = median(b.map((m) => m.ms));
      rows.push({ events: size, format, file_mb: statSync(f.events).size / 2 ** 20, ours_ms, alone_ms, ours_rss_mb: median(a.map((m) => m.rss_mb)), alone_rss_mb: median(b.map((m) => m.rss_mb)), ratio: ours_ms / alone_ms });
    }
  }
  return rows;
}

const fmt = (n: number, digits = 0) => n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });

export function scaleBenchMarkdown(rows: ScaleRow[]): string[] {
  return [
    `### \`--engine sql\` at warehouse scale against DuckDB alone: ${fmt(USERS)} users, median of ${RUNS} runs`,
    "",
    "`api-metrics --engine sql` end to end (DuckDB's readers, every input check in SQL, the metric and the read-out) against DuckDB alone computing the same aggregates on the same files with its own type detection and no checks. Whole processes, measured alternately; results checked equal. Targets: at most 2x, and at 50M events a peak under " + `${fmt(PEAK_BUDGET_MB)} MB.`,
    "",
    "| events | format | events file | `--engine sql` | peak memory | DuckDB alone | peak memory | ratio | within targets |",
    "|---:|---|---:|---:|---:|---:|---:|---:|---|",
    ...rows.map((r) => `| ${fmt(r.events)} | ${r.format} | ${fmt(r.file_mb)} MB | ${fmt(r.ours_ms / 1000, 1)} s | ${fmt(r.ours_rss_mb)} MB | ${fmt(r.alone_ms / 1000, 1)} s | ${fmt(r.alone_rss_mb)} MB | ${fmt(r.ratio, 2)}x | ${r.ratio <= 2 && (r.events < 50_000_000 || r.ours_rss_mb <= PEAK_BUDGET_MB) ? "yes" : "NO"} |`),
    "",
  ];
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log(scaleBenchMarkdown(await benchMetricsScale()).join("\n"));
}
