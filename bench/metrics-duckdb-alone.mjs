// DuckDB alone, the yardstick of bench/metrics-scale.ts: the same metric SQL over the same files, read by DuckDB's
// own readers with its type detection and nothing checked. Plain JavaScript on the built package, so its start-up
// costs what the `api-metrics` command's does.
// Usage: node bench/metrics-duckdb-alone.mjs EXPOSURES EVENTS AS_OF_MS
import { DuckDBInstance } from "@duckdb/node-api";
import { metricSql } from "../metrics/dist/sql/index.js";

const [exposures, events, asOf] = process.argv.slice(2);
const read = (file) => (file.endsWith(".parquet") ? `read_parquet('${file}')` : `read_csv('${file}')`);
const db = await (await DuckDBInstance.create(":memory:")).connect();
await db.run(`CREATE VIEW exposures AS SELECT user_id, variant, epoch_ms(exposed_at) AS exposed_ms FROM ${read(exposures)}`);
await db.run(`CREATE VIEW events AS SELECT user_id, event, epoch_ms("timestamp") AS ts_ms FROM ${read(events)}`);
const sql = metricSql({ type: "conversion", event: "purchase", window_days: 14 }, Number(asOf));
const variants = (await db.runAndReadAll(sql.variants)).getRowObjects();
const counts = (await db.runAndReadAll(sql.counts)).getRowObjects();
console.log(JSON.stringify({ variants, counts }, (_, v) => (typeof v === "bigint" ? Number(v) : v)));
