/**
 * The metrics engine over 1,000,000 events and 100,000 users (seeded data), median of 3 runs per metric.
 * Run alone with `npx tsx bench/metrics.ts`, or from `npm run bench`.
 */
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Rng } from "../fixtures/prng.ts";
import { computeMetric, type MetricDefinition } from "../metrics/src/index.ts";
import { median } from "./load.ts";

export function benchData(events = 1_000_000, users = 100_000) {
  const rng = new Rng(42);
  const base = Date.UTC(2026, 0, 1);
  const exposures = Array.from({ length: users }, (_, i) => ({ user_id: `u${i}`, variant: i % 2 ? "treatment" : "control", exposed_at: new Date(base + rng.int(0, 10 * 86_400) * 1000).toISOString() }));
  const names = ["purchase", "purchase", "page_view"];
  const list = Array.from({ length: events }, () => ({ user_id: `u${rng.int(0, users * 1.1)}`, event: rng.pick(names), timestamp: new Date(base + rng.int(0, 40 * 86_400) * 1000).toISOString() }));
  return { exposures, events: list };
}

export async function benchMetrics(): Promise<Array<{ name: string; median_ms: number }>> {
  const data = benchData();
  const defs: MetricDefinition[] = [
    { type: "conversion", event: "purchase" },
    { type: "events_per_user", event: "purchase", window_days: 14 },
    { type: "events_per_user_per_active_day", event: "purchase" },
    { type: "retention", event: "purchase", threshold: 3, window_days: 7 },
  ];
  return defs.map((def) => {
    const times: number[] = [];
    for (let r = 0; r < 3; r++) {
      const t = performance.now();
      computeMetric(def, data);
      times.push(performance.now() - t);
    }
    return { name: def.type, median_ms: Math.round(median(times)) };
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const rows = await benchMetrics();
  for (const r of rows) console.log(`${r.name.padEnd(32)} ${String(r.median_ms).padStart(6)} ms`);
  console.log(`${"all four".padEnd(32)} ${String(rows.reduce((s, r) => s + r.median_ms, 0)).padStart(6)} ms`);
}
