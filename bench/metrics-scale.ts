/**
 * Warehouse scale: `api-metrics --engine sql` end to end (the built command: DuckDB's readers, every input check in
 * SQL, the metric, the read-out) against DuckDB alone computing the same aggregates on the same files with its own
 * type detection and no checks (bench/metrics-duckdb-alone.mjs), at 10M and 50M events, for CSV and Parquet, in two
 * data shapes (both real, both must hold):
 * - "1M users": 1,000,000 users, CSV timestamps as ISO text in UTC with milliseconds (`...T09:30:00.250Z`);
 * - "100k users, mixed offsets": 100,000 users (a hundred events each), CSV timestamps as ISO text with mixed UTC
 *   offsets (`Z` and `+05:30`, no fraction), the shape of the outside bench of issue #41.
 * Parquet holds TIMESTAMPTZ in both. Wall time and peak resident memory (DuckDB's native memory included) of each
 * whole process, medians of the runs, the two measured alternately in one run. The targets: at most 2x DuckDB alone
 * in time and in peak memory, and at 50M a peak under PEAK_BUDGET_MB.
 * Run alone with `npx tsx bench/metrics-scale.ts`, or from `npm run bench`. Prints each measurement as it is made.
 * Options: METRICS_SCALE_SIZES (default 10000000,50000000), METRICS_SCALE_RUNS (default 3), METRICS_SCALE_SHAPES
 * (default "1m,100k").
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
/** The data shapes: users, and whether CSV instants mix offsets. */
const SHAPES = {
  "1m": { label: "1M users", users: 1_000_000, mixed: false },
  "100k": { label: "100k users, mixed offsets", users: 100_000, mixed: true },
} as const;
type Shape = (typeof SHAPES)[keyof typeof SHAPES];
const SHAPE_KEYS = (process.env.METRICS_SCALE_SHAPES ?? "1m,100k").split(",") as Array<keyof typeof SHAPES>;
/** The stated ceiling of `--engine sql`'s peak resident memory at 50M events. */
export const PEAK_BUDGET_MB = 4096;
const BASE = Date.UTC(2026, 0, 1);
const AS_OF = BASE + 60 * 86_400_000;
const dir = join(os.tmpdir(), "metrics-scale-bench");

/**
 * The files, written by DuckDB from row formulas. CSV instants as ISO text: in UTC with milliseconds, or (mixed) every
 * other one in India's wall clock with `+05:30`, the same instant. Parquet as TIMESTAMPTZ.
 */
async function files(size: number, format: "csv" | "parquet", shape: Shape): Promise<{ exposures: string; events: string }> {
  mkdirSync(dir, { recursive: true });
  const tag = `${shape.users}${shape.mixed ? "-mixed" : ""}`;
  const exposures = join(dir, `exposures-${tag}.${format}`);
  const events = join(dir, `events-${size}-${tag}.${format}`);
  const db = await (await DuckDBInstance.create(":memory:")).connect();
  await db.run("SET TimeZone = 'UTC'");
  const iso = (ms: string) => (shape.mixed
    ? `CASE WHEN (${ms}) // 1000 % 2 = 0 THEN strftime(make_timestamp((${ms}) * 1000), '%Y-%m-%dT%H:%M:%SZ') ELSE strftime(make_timestamp((${ms} + 19800000) * 1000), '%Y-%m-%dT%H:%M:%S+05:30') END`
    : `strftime(make_timestamp(${ms} * 1000), '%Y-%m-%dT%H:%M:%S.%gZ')`);
  const ts = (ms: string) => (format === "csv" ? iso(ms) : `make_timestamptz(${ms} * 1000)`);
  const copy = async (path: string, select: string) => {
    if (existsSync(path)) return;
    await db.run(`COPY (${select}) TO '${path}.tmp' (FORMAT ${format}${format === "csv" ? ", HEADER" : ""})`);
    renameSync(`${path}.tmp`, path);
  };
  const users = shape.users;
  await copy(exposures, `SELECT 'u' || u AS user_id, CASE WHEN u % 2 = 1 THEN 'treatment' ELSE 'control' END AS variant, ${ts(`(${BASE} + ((u * 104729) % ${10 * 86_400}) * 1000)`)} AS exposed_at FROM range(${users}) t(u)`);
  await copy(events, `SELECT 'u' || ((i * 40503 + 17) % ${users + users / 10}) AS user_id, CASE WHEN i % 3 = 2 THEN 'page_view' ELSE 'purchase' END AS event, ${ts(`(${BASE} + ((i * 7919) % ${40 * 86_400}) * 1000)`)} AS "timestamp" FROM range(${size}) t(i)`);
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

export interface ScaleRow { shape: string; events: number; format: string; file_mb: number; ours_ms: number; alone_ms: number; ours_rss_mb: number; alone_rss_mb: number; ratio: number; rss_ratio: number }

const withinTargets = (r: ScaleRow) => r.ratio <= 2 && r.rss_ratio <= 2 && (r.events < 50_000_000 || r.ours_rss_mb <= PEAK_BUDGET_MB);

export async function benchMetricsScale(): Promise<ScaleRow[]> {
  if (!existsSync(join(root, "metrics/dist/cli.js"))) spawnSync("npm", ["run", "build", "-w", "metrics"], { cwd: root, stdio: "inherit" });
  const rows: ScaleRow[] = [];
  for (const key of SHAPE_KEYS) {
    const shape = SHAPES[key];
    if (!shape) throw new Error(`METRICS_SCALE_SHAPES: unknown shape ${key} (known: ${Object.keys(SHAPES).join(", ")})`);
    for (const size of SIZES) {
      for (const format of ["csv", "parquet"] as const) {
        // Progress on stderr: a full run takes many minutes, and each line says where it stands.
        console.error(`metrics scale: ${shape.label}, ${size.toLocaleString("en-US")} events, ${format}: writing the files...`);
        const f = await files(size, format, shape);
        const a: Measure[] = [];
        const b: Measure[] = [];
        for (let r = 0; r < RUNS; r++) {
          a.push(ours(f));
          b.push(alone(f));
          console.error(`  run ${r + 1}/${RUNS}: --engine sql ${(a[r].ms / 1000).toFixed(1)} s ${Math.round(a[r].rss_mb)} MB, DuckDB alone ${(b[r].ms / 1000).toFixed(1)} s ${Math.round(b[r].rss_mb)} MB`);
        }
        // The same numbers, or the comparison means nothing.
        const variants = JSON.parse(a[0].stdout).result.variants;
        const yardstick = JSON.parse(b[0].stdout).variants as Array<{ variant: string; denominator: number; total: number }>;
        for (const v of yardstick) {
          if (variants[v.variant]?.denominator !== v.denominator || variants[v.variant]?.sum !== v.total) throw new Error(`${format} at ${size}: ${v.variant} differs: ${JSON.stringify(variants[v.variant])} vs ${JSON.stringify(v)}`);
        }
        const ours_ms = median(a.map((m) => m.ms));
        const alone_ms = median(b.map((m) => m.ms));
        const ours_rss_mb = median(a.map((m) => m.rss_mb));
        const alone_rss_mb = median(b.map((m) => m.rss_mb));
        rows.push({ shape: shape.label, events: size, format, file_mb: statSync(f.events).size / 2 ** 20, ours_ms, alone_ms, ours_rss_mb, alone_rss_mb, ratio: ours_ms / alone_ms, rss_ratio: ours_rss_mb / alone_rss_mb });
        const r = rows[rows.length - 1];
        console.error(`  medians: ${r.ratio.toFixed(2)}x the time, ${r.rss_ratio.toFixed(2)}x the peak memory of DuckDB alone`);
      }
    }
  }
  return rows;
}

const fmt = (n: number, digits = 0) => n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });

export function scaleBenchMarkdown(rows: ScaleRow[]): string[] {
  return [
    `### \`--engine sql\` at warehouse scale against DuckDB alone, median of ${RUNS} runs`,
    "",
    "`api-metrics --engine sql` end to end (DuckDB's readers, every input check in SQL, the metric and the read-out) against DuckDB alone computing the same aggregates on the same files with its own type detection and no checks. Two data shapes: 1M users with CSV instants in UTC with milliseconds; 100k users with CSV instants in mixed offsets (`Z` and `+05:30`), the outside bench's. Whole processes, measured alternately; results checked equal. Targets: at most 2x in time and in peak memory, and at 50M events a peak under " + `${fmt(PEAK_BUDGET_MB)} MB.`,
    "",
    "| shape | events | format | events file | `--engine sql` | peak memory | DuckDB alone | peak memory | time ratio | memory ratio | within targets |",
    "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---|",
    ...rows.map((r) => `| ${r.shape} | ${fmt(r.events)} | ${r.format} | ${fmt(r.file_mb)} MB | ${fmt(r.ours_ms / 1000, 1)} s | ${fmt(r.ours_rss_mb)} MB | ${fmt(r.alone_ms / 1000, 1)} s | ${fmt(r.alone_rss_mb)} MB | ${fmt(r.ratio, 2)}x | ${fmt(r.rss_ratio, 2)}x | ${withinTargets(r) ? "yes" : "NO"} |`),
    "",
  ];
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log(scaleBenchMarkdown(await benchMetricsScale()).join("\n"));
}
