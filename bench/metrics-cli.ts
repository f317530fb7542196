/**
 * The metrics command end to end, as an analyst runs it: `api-metrics` (the built package's CLI) on the same CSV
 * files for both engines, at 1,000,000 and 10,000,000 events (100,000 users), with the wall time and the peak
 * resident memory of the whole process (DuckDB's native memory included). The in-memory engine reads the files through
 * the input layer in JavaScript; `--engine sql` has DuckDB read them and checks the same rules in SQL. Their outputs
 * are checked byte-identical before any figure is printed.
 * Run alone with `npx tsx bench/metrics-cli.ts` (prints a markdown section), or from `npm run bench`.
 * Options: METRICS_SIZES (default 1000000,10000000), METRICS_RUNS (default 3).
 */
import { spawnSync } from "node:child_process";
import { once } from "node:events";
import { createWriteStream, existsSync, mkdirSync, statSync } from "node:fs";
import os from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { median } from "./load.ts";

const root = resolve(fileURLToPath(import.meta.url), "../..");
const SIZES = (process.env.METRICS_SIZES ?? "1000000,10000000").split(",").map(Number);
const RUNS = Number(process.env.METRICS_RUNS ?? 3);
const USERS = 100_000;
const BASE = Date.UTC(2026, 0, 1);
const dir = join(os.tmpdir(), "metrics-cli-bench");
// Row formulas (all products below 2^53): the same data as the preloaded benchmark.
const userOf = (i: number) => (i * 40_503 + 17) % 110_000;
const eventOf = (i: number) => (i % 3 === 2 ? "page_view" : "purchase");
const tsOf = (i: number) => BASE + ((i * 7_919) % (40 * 86_400)) * 1000;
const exposedOf = (u: number) => BASE + ((u * 104_729) % (10 * 86_400)) * 1000;

async function writeCsv(path: string, header: string, rows: number, line: (i: number) => string): Promise<void> {
  if (existsSync(path)) return;
  const out = createWriteStream(`${path}.tmp`);
  out.write(`${header}\n`);
  let chunk = "";
  for (let i = 0; i < rows; i++) {
    chunk += `${line(i)}\n`;
    if (chunk.length > 1 << 20) {
      if (!out.write(chunk)) await once(out, "drain");
      chunk = "";
    }
  }
  out.end(chunk);
  await once(out, "finish");
  const { renameSync } = await import("node:fs");
  renameSync(`${path}.tmp`, path);
}

interface Measure { ms: number; rss_mb: number; stdout: string }

function runCli(engine: string, events: string, exposures: string): Measure {
  const cli = join(root, "metrics/dist/cli.js");
  const args = ["--require", join(root, "bench/peak-rss.cjs"), cli, "--engine", engine, "--definition", JSON.stringify({ type: "conversion", event: "purchase", window_days: 14 }),
    "--exposures", exposures, "--events", events, "--as-of", new Date(BASE + 60 * 86_400_000).toISOString(), "--control", "control", "--treatment", "treatment", "--format", "json", "--no-progress"];
  const t = performance.now();
  const r = spawnSync(process.execPath, args, { cwd: root, encoding: "utf8", maxBuffer: 1 << 26 });
  const ms = performance.now() - t;
  if (r.status !== 0) throw new Error(`api-metrics --engine ${engine} failed: ${r.stderr.trim().split("\n").slice(-3).join(" ")}`);
  const kb = Number(/peak_rss_kb=(\d+)/.exec(r.stderr)?.[1]);
  return { ms, rss_mb: kb / 1024, stdout: r.stdout };
}

export interface CliBenchRow { events: number; file_mb: number; memory_ms: number; duckdb_ms: number; memory_rss_mb: number; duckdb_rss_mb: number }

export async function benchMetricsCli(): Promise<CliBenchRow[]> {
  if (!existsSync(join(root, "metrics/dist/cli.js"))) spawnSync("npm", ["run", "build", "-w", "metrics"], { cwd: root, stdio: "inherit" });
  mkdirSync(dir, { recursive: true });
  const exposures = join(dir, "exposures.csv");
  await writeCsv(exposures, "user_id,variant,exposed_at", USERS, (u) => `u${u},${u % 2 ? "treatment" : "control"},${new Date(exposedOf(u)).toISOString()}`);
  const rows: CliBenchRow[] = [];
  for (const size of SIZES) {
    const events = join(dir, `events-${size}.csv`);
    await writeCsv(events, "user_id,event,timestamp", size, (i) => `u${userOf(i)},${eventOf(i)},${new Date(tsOf(i)).toISOString()}`);
    const runs: Record<string, Measure[]> = { memory: [], sql: [] };
    for (let r = 0; r < RUNS; r++) for (const engine of ["memory", "sql"]) runs[engine].push(runCli(engine, events, exposures));
    if (runs.memory[0].stdout !== runs.sql[0].stdout) throw new Error(`engines disagree at ${size} events:\n${runs.memory[0].stdout}\n${runs.sql[0].stdout}`);
    rows.push({
      events: size, file_mb: statSync(events).size / 2 ** 20,
      memory_ms: median(runs.memory.map((m) => m.ms)), duckdb_ms: median(runs.sql.map((m) => m.ms)),
      memory_rss_mb: median(runs.memory.map((m) => m.rss_mb)), duckdb_rss_mb: median(runs.sql.map((m) => m.rss_mb)),
    });
  }
  return rows;
}

const fmt = (n: number, digits = 0) => n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });

export function cliBenchMarkdown(rows: CliBenchRow[]): string[] {
  return [
    `### \`api-metrics\` end to end: the same CSV files for both engines, ${fmt(USERS)} users, median of ${RUNS} runs`,
    "",
    "Wall time of the whole command (start-up, reading and checking every row, computing, the comparison, printing JSON) and its peak resident memory (DuckDB's included). Outputs checked byte-identical between engines.",
    "",
    "| events | events file | in-memory: time | in-memory: peak memory | DuckDB: time | DuckDB: peak memory | in-memory / DuckDB time |",
    "|---:|---:|---:|---:|---:|---:|---:|",
    ...rows.map((r) => `| ${fmt(r.events)} | ${fmt(r.file_mb)} MB | ${fmt(r.memory_ms / 1000, 1)} s | ${fmt(r.memory_rss_mb)} MB | ${fmt(r.duckdb_ms / 1000, 1)} s | ${fmt(r.duckdb_rss_mb)} MB | ${fmt(r.memory_ms / r.duckdb_ms, 2)} |`),
    "",
  ];
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log(cliBenchMarkdown(await benchMetricsCli()).join("\n"));
}
