/**
 * `npm run bench`: every figure measured side by side in one run on this machine, medians over rounds.
 *  1. req/s and p99 of three endpoints on the reference server (as `npm start` runs it), Prism at its fastest
 *     settings (`-v silent`) and a bare Express ceiling with precomputed bodies of the same size;
 *  2. pagination scaling: p50 of a page deep in the interview list at 1,000 vs 1,000,000 interviews, start-up
 *     time and resident memory at 1,000,000;
 *  3. the conformance suite's full run and `npm run generate`;
 *  4. the metrics command end to end on the same CSV files for both engines (1M and 10M events, time and peak
 *     memory); `--engine sql` at warehouse scale (10M and 50M events, CSV and Parquet) against DuckDB alone on the
 *     same files (target <= 2x, and a peak under bench/metrics-scale.ts's budget at 50M); then, labelled as such, the
 *     engines alone on data already in memory or in a DuckDB table.
 *  5. list cost at 1,000,000 interviews: every list endpoint and the filters that could walk an index, against the
 *     fixtures' size (O(page): target <= 2x).
 *  6. one team's flood and another team's requests on one process, with fair admission and without (bench/fairness.ts).
 * `npm run bench -- --against <git ref>` runs only the side-by-side comparison of this checkout's request path with
 * another commit's (bench/against.ts).
 * Writes BENCHMARKS.md. Options: ROUNDS (default 5: a median robust to two disturbed rounds on a shared machine), SECONDS per round (default 3), SKIP_SCALE=1, BENCH_ONLY=sandbox (the server's sections), BENCH_ONLY=throughput (section 1 only) or BENCH_ONLY=proxy (the contract-checking proxy's cost).
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import { generateDataset } from "../fixtures/generate.ts";
import { against, againstOptions } from "./against.ts";
import { compare, median } from "./load.ts";
import { root, startCeiling, startPrism, startReference } from "./servers.ts";
import { clusterSection } from "./cluster.ts";
import { fairnessSection } from "./fairness.ts";
import { proxySection } from "./proxy.ts";

const ROUNDS = Number(process.env.ROUNDS ?? 5);
/** BENCHMARKS.md from this line on is written by hand, and a full run keeps it. */
const KEPT_MARKER = "<!-- Written by hand from here on: npm run bench keeps it. -->";
const SECONDS = Number(process.env.SECONDS ?? 3);
const ACME = "svc_live_acme_0123456789abcdef0123456789abcdef";
const auth = { authorization: `Bearer ${ACME}` };
const lines: string[] = [];
const say = (s = "") => {
  console.log(s);
  lines.push(s);
};
const fmt = (n: number, digits = 0) => n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });

async function throughput(): Promise<void> {
  const ref = await startReference();
  const uncached = await startReference({ RESPONSE_CACHE: "0" });
  const prism = await startPrism();
  const prismLogging = await startPrism(false);
  try {
    const chats = await (await fetch(`${ref.baseUrl}/v1/chats?limit=100`, { headers: auth })).json() as { data: Array<{ id: string }> };
    let busiest = chats.data[0].id;
    let most = 0;
    for (const c of chats.data) {
      const n = ((await (await fetch(`${ref.baseUrl}/v1/chats/${c.id}`, { headers: auth })).json()) as { message_count: number }).message_count;
      if (n > most) [busiest, most] = [c.id, n];
    }
    const paths = ["/v1/studies", "/v1/interviews?limit=100", `/v1/chats/${busiest}/messages`];
    const bodies: Record<string, string> = {};
    for (const p of paths) bodies[p] = await (await fetch(`${ref.baseUrl}${p}`, { headers: auth })).text();
    const ceiling = await startCeiling(bodies);
    try {
      say("## Throughput (autocannon, 50 connections, " + `${ROUNDS} rounds x ${SECONDS} s after a 2 s warm-up per server, medians)`);
      say();
      say("| endpoint | server | req/s | p50 ms | p99 ms | body bytes | non-2xx |");
      say("|---|---|---:|---:|---:|---:|---:|");
      const ratios: string[] = [];
      for (const p of paths) {
        const label = p.replace(busiest, ":id");
        const r = await compare([
          { name: "reference", url: `${ref.baseUrl}${p}`, headers: auth },
          { name: "reference, RESPONSE_CACHE=0", url: `${uncached.baseUrl}${p}`, headers: auth },
          { name: "prism (-v silent)", url: `${prism.baseUrl}${p}`, headers: auth },
          { name: "prism (default logging)", url: `${prismLogging.baseUrl}${p}`, headers: auth },
          { name: "express ceiling", url: `${ceiling.baseUrl}${p}`, headers: {} },
        ], ROUNDS, SECONDS);
        for (const [name, x] of r) say(`| \`GET ${label}\` | ${name} | ${fmt(x.rps)} | ${fmt(x.p50, 1)} | ${fmt(x.p99, 1)} | ${fmt(x.bytes)} | ${x.non2xx} |`);
        const refR = r.get("reference")!;
        const unc = r.get("reference, RESPONSE_CACHE=0")!;
        const prismR = r.get("prism (-v silent)")!;
        const ceil = r.get("express ceiling")!;
        const prismLog = r.get("prism (default logging)")!;
        ratios.push(`| \`GET ${label}\` | ${fmt(refR.rps / prismR.rps, 2)} | ${fmt(refR.rps / prismLog.rps, 2)} | ${fmt(refR.rps / ceil.rps, 2)} | ${fmt(unc.rps / prismR.rps, 2)} | ${fmt(unc.rps / ceil.rps, 2)} | ${fmt(ceil.rps / prismR.rps, 2)} |`);
      }
      say();
      say("| endpoint | reference / Prism silent (target >= 2.5) | reference / Prism default logging (target >= 4) | reference / ceiling (target >= 0.8) | without cache / Prism silent | without cache / ceiling | ceiling / Prism silent |");
      say("|---|---:|---:|---:|---:|---:|---:|");
      for (const r of ratios) say(r);
      say();
      say("Prism serves its single example whatever `limit` says, so its bodies are smaller than the reference server's.");
      say("`reference` runs as `npm start` does (response validation off, response cache on); `RESPONSE_CACHE=0` skips the cache, so every request runs the handler and serialization.");
      say("A repeated cached read is answered ahead of Express (the fast lane, `server/src/http/router.ts`), so `reference` can pass the ceiling; without the cache every request takes Express's path, which the ceiling bounds.");
      say();
    } finally {
      await ceiling.stop();
    }
  } finally {
    await ref.stop();
    await uncached.stop();
    await prism.stop();
    await prismLogging.stop();
  }
}

/** Ids of interviews between 80% and 95% deep in Acme's list, recomputed from the same deterministic generator. */
function deepCursors(scale: number, count: number): string[] {
  const ds = generateDataset({ scale });
  const acme = ds.projects[0].id;
  const list = ds.interviews.filter((i) => i.project_id === acme).map((i) => [i.created_at, i.id] as const);
  list.sort((a, b) => (a[0] < b[0] ? 1 : a[0] > b[0] ? -1 : a[1] < b[1] ? 1 : -1));
  return Array.from({ length: count }, (_, k) => list[Math.floor(list.length * (0.8 + (0.15 * k) / count))][1]);
}

/** Median latency in ms of sequential requests (one at a time, so it measures the server, not a queue). */
async function sequentialP50(urls: string[], rounds: number): Promise<number> {
  const times: number[] = [];
  for (let r = 0; r < rounds; r++) {
    for (const url of urls) {
      const t = performance.now();
      const res = await fetch(url, { headers: auth });
      await res.arrayBuffer();
      times.push(performance.now() - t);
    }
  }
  return median(times);
}

async function scaling(): Promise<void> {
  say("## Pagination at scale");
  say();
  const rows: Array<{ scale: number; p50: number; startup: number; rss: number }> = [];
  for (const scale of [1_000, 1_000_000]) {
    const cursors = deepCursors(scale, 200);
    // Cache off: every request walks the index, so this measures the keyset lookup, not a cache hit.
    const ref = await startReference({ FIXTURES_SCALE: String(scale), RESPONSE_CACHE: "0" });
    try {
      const urls = cursors.map((c) => `${ref.baseUrl}/v1/interviews?limit=100&starting_after=${c}`);
      const check = await fetch(urls[0], { headers: auth });
      if (check.status !== 200) throw new Error(`deep page answered ${check.status}: ${await check.text()}`);
      await sequentialP50(urls, 1); // warm-up
      rows.push({ scale, p50: await sequentialP50(urls, ROUNDS), startup: ref.startupMs, rss: ref.rss() });
    } finally {
      await ref.stop();
    }
  }
  say("Sequential requests for 200 different pages 80-95% deep in the interview list (limit=100), response cache off, medians over all rounds.");
  say();
  say("| interviews | p50 of a deep page (ms) | start-up (ms) | resident memory (MB) |");
  say("|---:|---:|---:|---:|");
  for (const r of rows) say(`| ${fmt(r.scale)} | ${fmt(r.p50, 2)} | ${fmt(r.startup)} | ${fmt(r.rss / 2 ** 20)} |`);
  say();
  say(`1M / 1k page latency: **${fmt(rows[1].p50 / rows[0].p50, 2)}** (target <= 1.5).`);
  say(`Start-up at 1M: ${fmt(rows[1].startup / 1000, 1)} s (target < 20 s); resident memory ${fmt(rows[1].rss / 2 ** 20)} MB (target < 1,536 MB).`);
  say();
}

/**
 * O(page) list cost: every list endpoint (and the filters that could walk an index) sequentially, response cache
 * off, at the fixtures' size and at 1,000,000 interviews; the ratio is what a shared sandbox with a big project
 * pays per request (target <= 2 for every list).
 */
async function listCosts(): Promise<void> {
  say("## List cost at 1,000,000 interviews");
  say();
  const measure = async (env: Record<string, string>) => {
    const ref = await startReference({ RESPONSE_CACHE: "0", ...env });
    try {
      const get = async (p: string) => (await (await fetch(`${ref.baseUrl}${p}`, { headers: auth })).json()) as { data: Array<{ id: string }> };
      const study = (await get("/v1/studies?limit=1")).data[0].id;
      const chat = (await get("/v1/chats?limit=1")).data[0]?.id;
      const paths: Record<string, string> = {
        "GET /v1/experiments": "/v1/experiments",
        "GET /v1/studies": "/v1/studies",
        "GET /v1/interviews?limit=100": "/v1/interviews?limit=100",
        "GET /v1/interviews?study_id&status=completed": `/v1/interviews?limit=100&study_id=${study}&status=completed`,
        "GET /v1/interviews?status=started&quality_score=insightful (empty)": "/v1/interviews?limit=100&status=started&quality_score=insightful",
        "GET /v1/interviews?quality_score=unsuccessful": "/v1/interviews?limit=100&quality_score=unsuccessful",
        "GET /v1/releases": "/v1/releases?limit=100",
        "GET /v1/chats": "/v1/chats?limit=100",
        ...(chat ? { "GET /v1/chats/:id/messages": `/v1/chats/${chat}/messages?limit=100` } : {}),
        "GET /_sim/webhook-deliveries": "/_sim/webhook-deliveries?limit=100",
      };
      const out = new Map<string, number>();
      // Warm-up over every path first: right after loading a million rows, the collector is still busy with the
      // loading's garbage, and the first path measured would pay for it.
      for (const p of Object.values(paths)) await sequentialP50(Array.from({ length: 100 }, () => `${ref.baseUrl}${p}`), 1);
      for (const [label, p] of Object.entries(paths)) {
        const urls = Array.from({ length: 50 }, () => `${ref.baseUrl}${p}`);
        out.set(label, await sequentialP50(urls, ROUNDS));
      }
      return out;
    } finally {
      await ref.stop();
    }
  };
  const small = await measure({});
  const big = await measure({ FIXTURES_SCALE: "1000000" });
  say("Sequential requests (50 per round, one at a time), response cache off, p50 in ms; fixtures vs a generated project of 1,000,000 interviews.");
  say();
  say("| list | fixtures (ms) | 1,000,000 interviews (ms) | ratio (target <= 2) |");
  say("|---|---:|---:|---:|");
  for (const [label, ms] of big) {
    const base = small.get(label);
    say(`| \`${label}\` | ${base === undefined ? "n/a" : fmt(base, 2)} | ${fmt(ms, 2)} | ${base === undefined ? "n/a" : fmt(ms / base, 2)} |`);
  }
  say();
}

function timed(cmd: string[], env: Record<string, string> = {}): { ms: number; ok: boolean; tail: string } {
  const t = performance.now();
  const r = spawnSync(process.execPath, cmd, { cwd: root, env: { ...process.env, ...env }, encoding: "utf8" });
  return { ms: performance.now() - t, ok: r.status === 0, tail: r.stdout.trim().split("\n").slice(-1)[0] ?? "" };
}

async function tooling(): Promise<void> {
  say("## Tooling");
  say();
  const ref = await startReference({ WEBHOOK_RETRY_DELAYS_MS: "500,1000,1500", SIM_PROCESSING_MS: "100" });
  try {
    const conf = timed(["--import", "tsx", "conformance/cli.ts", "--base-url", ref.baseUrl, "--api-key", ACME,
      "--other-key", "svc_live_globex_0123456789abcdef0123456789abcdef", "--public-key", "pk_live_acme_0123456789abcdef0123456789abcdef",
      "--sim", "--webhook-retry-delays-ms", "500,1000,1500", "--metrics-engine", "metrics/src/index.ts"]);
    say(`- conformance suite, full run with --sim against the reference server: ${fmt(conf.ms / 1000, 1)} s (${conf.ok ? "passed" : "FAILED"}: ${conf.tail})`);
  } finally {
    await ref.stop();
  }
  const gen = timed(["--import", "tsx", "scripts/generate.ts", "--out", `${os.tmpdir()}/bench-generated`]);
  say(`- \`npm run generate\`: ${fmt(gen.ms / 1000, 1)} s`);
  say();
  const { benchMetricsCli, cliBenchMarkdown } = await import("./metrics-cli.ts");
  for (const line of cliBenchMarkdown(await benchMetricsCli())) say(line);
  const { benchMetricsScale, scaleBenchMarkdown } = await import("./metrics-scale.ts");
  for (const line of scaleBenchMarkdown(await benchMetricsScale())) say(line);
  say("### The engines alone, on preloaded data (not end to end: no file is read)");
  say();
  const { benchMetrics } = await import("./metrics.ts");
  const metrics = await benchMetrics();
  say(`- in-memory engine, library call on 1,000,000 events already in Node as objects with ISO strings, 100,000 users (median of 3): ${metrics.map((m) => `${m.name} ${fmt(m.median_ms)} ms`).join(", ")}`);
  // 10M events need more heap than the default: run in a child with room for both engines.
  const sql = spawnSync(process.execPath, ["--max-old-space-size=8192", "--import", "tsx", "bench/metrics-sql.ts"], { cwd: root, encoding: "utf8" });
  if (sql.status !== 0) return say(`- SQL engine on DuckDB vs in-memory, 10,000,000 events: FAILED (${sql.stderr.trim().split("\n").slice(-1)[0]})`);
  const r = JSON.parse(sql.stdout.trim().split("\n").slice(-1)[0]) as Awaited<ReturnType<typeof import("./metrics-sql.ts").benchMetricsSql>>;
  say(`- preloaded, ${fmt(r.events)} events / 100,000 users, results checked equal. Unlike paths: DuckDB reads a table of integer milliseconds built inside DuckDB, the in-memory engine re-parses ISO strings from Node objects, so these ratios measure the engines' inner loops, not what an analyst waits for (the table above does).`);
  say();
  say("| metric (preloaded) | in-memory (median of 3) | DuckDB (median of 3) | in-memory / DuckDB |");
  say("|---|---|---|---|");
  for (const row of r.rows) say(`| ${row.name} | ${fmt(row.memory_ms)} ms | ${fmt(row.duckdb_ms)} ms | ${fmt(row.ratio, 1)} |`);
  say(`| building the data (Node objects vs DuckDB table) | ${fmt(r.load.memory_ms)} ms | ${fmt(r.load.duckdb_ms)} ms | ${fmt(r.load.memory_ms / r.load.duckdb_ms, 1)} |`);
  say();
}

async function main(): Promise<void> {
  // `npm run bench -- --against <ref>`: this checkout against another commit, and nothing else (bench/against.ts).
  const vs = againstOptions(process.argv.slice(2));
  if (vs) return void (await against(vs));
  const cpu = os.cpus()[0]?.model ?? "unknown CPU";
  say("# Benchmarks");
  say();
  say(`Measured ${new Date().toISOString().slice(0, 10)} on ${os.cpus().length} x ${cpu}, ${fmt(os.totalmem() / 2 ** 30)} GiB RAM, Node ${process.version}, ${os.platform()} ${os.release()}.`);
  say("Every server runs in its own process on loopback; load comes from autocannon in the bench process. The machine is shared: read ratios, not absolutes.");
  say();
  // BENCH_ONLY=sandbox runs the server's sections only (throughput, pagination and list cost at scale).
  const only = process.env.BENCH_ONLY;
  // BENCH_ONLY=proxy: the contract-checking proxy's cost per exchange alone.
  if (only === "proxy") return void (await proxySection(say));
  await throughput();
  // BENCH_ONLY=throughput: the request path alone (section 1), a minute or two.
  if (only === "throughput") return;
  await fairnessSection(say);
  if (process.env.SKIP_SCALE !== "1") {
    await scaling();
    await listCosts();
    await clusterSection(say);
  }
  if (only !== "sandbox") await tooling();
  if (only !== "sandbox") await proxySection(say);
  // A partial run prints its figures; only a full run rewrites BENCHMARKS.md.
  if (only) return;
  // What was measured by hand (bench/against.ts runs, profiles) is kept below its marker, whatever a run prints.
  const previous = existsSync(`${root}BENCHMARKS.md`) ? readFileSync(`${root}BENCHMARKS.md`, "utf8") : "";
  const kept = previous.indexOf(KEPT_MARKER);
  writeFileSync(`${root}BENCHMARKS.md`, lines.join("\n") + "\n" + (kept >= 0 ? `\n${previous.slice(kept)}` : ""));
  console.log("wrote BENCHMARKS.md");
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
