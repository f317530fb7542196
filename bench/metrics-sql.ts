/**
 * Preloaded, not end to end: 10,000,000 events / 100,000 users through the SQL engine on embedded DuckDB against the in-memory engine, side
 * by side in one process, medians of 3 runs per metric. Both engines get the same data: every row is a function
 * of its index, computed in JavaScript for the in-memory engine and in SQL for DuckDB (so no 10M-row transfer is
 * timed as part of either). The results are checked equal before any figure is printed.
 * Run alone with `node --max-old-space-size=8192 --import tsx bench/metrics-sql.ts` (what `npm run bench` does).
 */
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { computeMetric } from "../metrics/src/index.ts";
import { DuckDbMetrics } from "../metrics/src/sql/duckdb.ts";
import type { MetricDefinition, MetricResult } from "../metrics/src/types.ts";
import { median } from "./load.ts";

const EVENTS = Number(process.env.METRICS_EVENTS ?? 10_000_000);
const USERS = 100_000;
const BASE = Date.UTC(2026, 0, 1);
const AS_OF = new Date(BASE + 60 * 86_400_000).toISOString();
// Row formulas shared by both generators (all products stay below 2^53).
const userOf = (i: number) => (i * 40_503 + 17) % 110_000;
const eventOf = (i: number) => (i % 3 === 2 ? "page_view" : "purchase");
const tsOf = (i: number) => BASE + ((i * 7_919) % (40 * 86_400)) * 1000;
const exposedOf = (u: number) => BASE + ((u * 104_729) % (10 * 86_400)) * 1000;

function jsData() {
  const exposures = Array.from({ length: USERS }, (_, u) => ({ user_id: `u${u}`, variant: u % 2 ? "treatment" : "control", exposed_at: new Date(exposedOf(u)).toISOString() }));
  const events = new Array(EVENTS);
  for (let i = 0; i < EVENTS; i++) events[i] = { user_id: `u${userOf(i)}`, event: eventOf(i), timestamp: new Date(tsOf(i)).toISOString() };
  return { exposures, events };
}

async function duckData(db: DuckDbMetrics): Promise<void> {
  await db.connection.run(`CREATE OR REPLACE TABLE exposures AS SELECT 'u' || CAST(u AS VARCHAR) AS user_id, CASE WHEN u % 2 = 1 THEN 'treatment' ELSE 'control' END AS variant,
    CAST(${BASE} + ((u * 104729) % ${10 * 86_400}) * 1000 AS BIGINT) AS exposed_ms FROM range(${USERS}) t(u)`);
  await db.connection.run(`CREATE OR REPLACE TABLE events AS SELECT 'u' || CAST((i * 40503 + 17) % 110000 AS VARCHAR) AS user_id,
    CASE WHEN i % 3 = 2 THEN 'page_view' ELSE 'purchase' END AS event, CAST(${BASE} + ((i * 7919) % ${40 * 86_400}) * 1000 AS BIGINT) AS ts_ms FROM range(${EVENTS}) t(i)`);
}

const DEFS: MetricDefinition[] = [
  { type: "conversion", event: "purchase", window_days: 14 },
  { type: "events_per_user_per_active_day", event: "purchase" },
  { type: "retention", event: "purchase", threshold: 3, window_days: 7 },
];

export interface SqlBenchRow { name: string; memory_ms: number; duckdb_ms: number; ratio: number }

export async function benchMetricsSql(): Promise<{ events: number; rows: SqlBenchRow[]; load: { memory_ms: number; duckdb_ms: number } }> {
  let t = performance.now();
  const data = jsData();
  const memoryLoad = performance.now() - t;
  const db = await DuckDbMetrics.open();
  t = performance.now();
  await duckData(db);
  const duckLoad = performance.now() - t;
  const rows: SqlBenchRow[] = [];
  for (const def of DEFS) {
    const mem: number[] = [];
    const duck: number[] = [];
    let a: MetricResult | undefined;
    let b: MetricResult | undefined;
    for (let r = 0; r < 3; r++) {
      t = performance.now();
      a = computeMetric(def, data, { as_of: AS_OF });
      mem.push(performance.now() - t);
      t = performance.now();
      b = await db.computeOnTables(def, { as_of: AS_OF });
      duck.push(performance.now() - t);
    }
    for (const v of Object.keys(a!.variants)) {
      const [x, y] = [a!.variants[v], b!.variants[v]];
      if (x.denominator !== y.denominator || Math.abs(x.value! - y.value!) > 1e-9) throw new Error(`${def.type}: engines disagree on ${v}: ${JSON.stringify([x, y])}`);
    }
    rows.push({ name: def.type, memory_ms: Math.round(median(mem)), duckdb_ms: Math.round(median(duck)), ratio: median(mem) / median(duck) });
  }
  db.close();
  return { events: EVENTS, rows, load: { memory_ms: Math.round(memoryLoad), duckdb_ms: Math.round(duckLoad) } };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log(JSON.stringify(await benchMetricsSql()));
}
