/**
 * The sandbox past one machine, measured side by side in one run (`npm run bench`, or alone:
 * `npx tsx bench/cluster.ts`; PostgreSQL and its tools from Debian, scripts/deploy/install-postgresql.sh):
 * 1. start-up after 1,000 and after 1,000,000 stored changes, on SQLite (`--data-dir`) and PostgreSQL
 *    (`--database-url`), median of 3 starts each: compaction keeps what a start reads about the size of the state, so
 *    the two should be within 2x;
 * 2. one process against three on one PostgreSQL: req/s and p99 of a list read, 32 connections spread over them.
 * The changes are written through the store's own interface, as the sandbox writes them (appends, with compaction
 * along the way), in changes of 1,000: set the webhook, the fault settings, a prompt event, and an interview's fields,
 * over and over, on a state of one project and 50 interviews.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import autocannon from "autocannon";
import type { Op } from "../server/src/stores/journal.ts";
import { PgJournal } from "../server/src/stores/postgres/journal.ts";
import { SqliteJournal } from "../server/src/stores/sqlite/journal.ts";
import { NO_FAULTS } from "../server/src/faults/settings.ts";
import { readDataset } from "../server/src/model/dataset.ts";
import { startPostgres } from "../server/test/cluster/postgres.ts";
import { freePort } from "../server/test/cluster/processes.ts";
import { root } from "./servers.ts";

const ACME = "svc_live_acme_0123456789abcdef0123456789abcdef";

/** The i-th change of a history that keeps setting the same few things. */
function change(i: number, projectId: string, interviewIds: string[]): Op {
  switch (i % 4) {
    case 0:
      return { kind: "webhook.set", project_id: projectId, url: `https://hooks.example/h${i}`, events: ["interview.completed"], secret: `whsec_${i}` };
    case 1:
      return { kind: "faults.set", project_id: projectId, settings: { ...NO_FAULTS, latency_ms: i % 50 } };
    case 2:
      return { kind: "prompt.recorded", project_id: projectId, event_id: `event-${i % 20}`, phase: "shown", received_at: new Date(1_700_000_000_000 + i).toISOString() };
    default:
      return { kind: "interview.changed", project_id: projectId, id: interviewIds[i % interviewIds.length], change: { headline: `headline ${i}` } };
  }
}

/** Writes `n` changes through `append`, a change of 1,000 at a time, as the sandbox would. */
async function history(n: number, write: (batch: Op[]) => Promise<void> | void): Promise<void> {
  const ds = readDataset();
  const project = ds.projects.find((p) => p.api_key === ACME)!;
  const interviews = ds.interviews.filter((i) => i.project_id === project.id).slice(0, 50).map((i) => i.id);
  for (let i = 0; i < n; i += 1_000) {
    const batch: Op[] = [];
    for (let j = i; j < Math.min(n, i + 1_000); j++) batch.push(change(j, project.id, interviews));
    await write(batch);
  }
}

/** Starts the sandbox with `env` and returns the start-up time its banner reports (ms), then stops it. */
async function startupMs(env: Record<string, string>): Promise<number> {
  const port = await freePort();
  const child = spawn(process.execPath, ["--import", "tsx", "server/src/cli.ts", "start", "--port", String(port)], { cwd: root, env: { ...process.env, LOG_LEVEL: "warn", ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stderr.on("data", (d) => (out += d));
  const ms = await new Promise<number>((resolve, reject) => {
    child.stdout.on("data", (d) => {
      out += d;
      const m = /Reference server ready in (\d+) ms/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.once("exit", (code) => reject(new Error(`sandbox exited ${code}: ${out}`)));
  });
  child.removeAllListeners("exit");
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  await exited;
  return ms;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export interface StartupRow {
  store: string;
  changes: number;
  startMs: number;
  restored: number;
}

export async function benchStartup(counts = [1_000, 1_000_000]): Promise<StartupRow[]> {
  const rows: StartupRow[] = [];
  const pg = await startPostgres();
  try {
    for (const n of counts) {
      const dir = mkdtempSync(join(tmpdir(), "bench-startup-"));
      try {
        const j = new SqliteJournal(dir);
        j.setMeta("time_shift_ms", String(Date.now() - Date.parse(readDataset().anchor)));
        await history(n, (batch) => j.atomically(() => batch.forEach((op) => j.append(op))));
        j.close();
        const starts = [];
        for (let r = 0; r < 3; r++) starts.push(await startupMs({ SANDBOX_DATA_DIR: dir }));
        const check = new SqliteJournal(dir);
        rows.push({ store: "SQLite", changes: n, startMs: median(starts), restored: check.ops().length });
        check.close();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
      const url = pg.database(`startup_${n}`);
      const j = await PgJournal.open(url, { initialMeta: { time_shift_ms: String(Date.now() - Date.parse(readDataset().anchor)), stream_epoch: randomBytes(5).toString("hex"), launch_token_secret: randomBytes(32).toString("hex") } });
      await history(n, (batch) => j.write(() => batch.forEach((op) => j.append(op))) as Promise<void>);
      const stored = Number((await j.pool.query("SELECT COUNT(*) AS n FROM ops")).rows[0].n);
      if (process.env.BENCH_DEBUG) console.error(`postgres ${n}: ${stored} rows stored`);
      j.close();
      const starts = [];
      for (let r = 0; r < 3; r++) starts.push(await startupMs({ DATABASE_URL: url }));
      const check = await PgJournal.open(url, { initialMeta: {} });
      rows.push({ store: "PostgreSQL", changes: n, startMs: median(starts), restored: check.ops().length });
      check.close();
    }
  } finally {
    pg.stop();
  }
  return rows;
}

export interface ClusterLoad {
  processes: number;
  rps: number;
  p99: number;
  errors: number;
  /** Planted studies per second, their p99, and non-2xx answers. */
  writes: number;
  writeP99: number;
  writeErrors: number;
}

/**
 * Reads (`GET /v1/interviews?limit=10`) and writes (`POST /_sim/studies`) against one, two and three processes on one
 * PostgreSQL, 32 connections spread over them (median of 3 rounds of 5 s each).
 */
export async function benchProcesses(): Promise<ClusterLoad[]> {
  const pg = await startPostgres();
  const { startSandbox, stopSandbox } = await import("../server/test/cluster/processes.ts");
  const procs: Awaited<ReturnType<typeof startSandbox>>[] = [];
  try {
    const url = pg.database("processes");
    for (let i = 0; i < 3; i++) procs.push(await startSandbox({ DATABASE_URL: url }));
    const out: ClusterLoad[] = [];
    const load = async (n: number, write: boolean) => {
      const rounds = [];
      for (let r = 0; r < 3; r++) {
        const runs = await Promise.all(
          procs.slice(0, n).map((p) =>
            autocannon(
              write
                ? { url: `${p.base}/_sim/studies`, method: "POST", headers: { authorization: `Bearer ${ACME}`, "content-type": "application/json" }, body: JSON.stringify({ name: "bench" }), connections: Math.round(32 / n), duration: 5 }
                : { url: `${p.base}/v1/interviews?limit=10`, headers: { authorization: `Bearer ${ACME}` }, connections: Math.round(32 / n), duration: 5 },
            ),
          ),
        );
        rounds.push({ rps: runs.reduce((a, x) => a + x.requests.average, 0), p99: Math.max(...runs.map((x) => x.latency.p99)), errors: runs.reduce((a, x) => a + x.non2xx, 0) });
      }
      return { rps: median(rounds.map((x) => x.rps)), p99: median(rounds.map((x) => x.p99)), errors: rounds.reduce((a, x) => a + x.errors, 0) };
    };
    // Every read first, on the fixtures alone: the writes then leave every process with thousands more studies.
    const reads = [];
    for (const n of [1, 2, 3]) reads.push(await load(n, false));
    for (const n of [1, 2, 3]) {
      const writes = await load(n, true);
      const r = reads[n - 1];
      out.push({ processes: n, rps: r.rps, p99: r.p99, errors: r.errors, writes: writes.rps, writeP99: writes.p99, writeErrors: writes.errors });
    }
    return out;
  } finally {
    await Promise.all(procs.map((p) => stopSandbox(p, "SIGKILL")));
    pg.stop();
  }
}

/** The section of BENCHMARKS.md. */
export async function clusterSection(say: (s?: string) => void): Promise<void> {
  const fmt = (n: number, d = 0) => n.toLocaleString("en-US", { maximumFractionDigits: d, minimumFractionDigits: d });
  const rows = await benchStartup();
  say("## The sandbox past one machine");
  say();
  say("Start-up (the banner's own figure, median of 3 starts) after stored changes that keep setting the same few things (webhook, faults, a prompt event, an interview's fields) on one project; compaction keeps what a start replays about the size of the state (target: 1,000,000 within 2x of 1,000).");
  say();
  say("| store | changes written | changes a start replays | start-up | ratio to 1,000 |");
  say("|---|---:|---:|---:|---:|");
  for (const r of rows) {
    const base = rows.find((x) => x.store === r.store && x.changes === 1_000)!;
    say(`| ${r.store} | ${fmt(r.changes)} | ${fmt(r.restored)} | ${fmt(r.startMs)} ms | ${fmt(r.startMs / base.startMs, 2)}x |`);
  }
  say();
  say(processesTable(await benchProcesses()));
}

/** The table of 1, 2 and 3 processes (printed alone by `npx tsx bench/cluster.ts processes`). */
export function processesTable(load: ClusterLoad[]): string {
  const fmt = (n: number, d = 0) => n.toLocaleString("en-US", { maximumFractionDigits: d, minimumFractionDigits: d });
  const lines = [
    "One, two and three processes on one PostgreSQL: reads (`GET /v1/interviews?limit=10`) and writes (`POST /_sim/studies`), 32 connections spread over the processes, autocannon in the bench process, median of 3 rounds of 5 s:",
    "",
    "| processes | reads/s | read p99 ms | writes/s | write p99 ms | non-2xx |",
    "|---:|---:|---:|---:|---:|---:|",
    ...load.map((l) => `| ${l.processes} | ${fmt(l.rps)} | ${fmt(l.p99)} | ${fmt(l.writes)} | ${fmt(l.writeP99)} | ${l.errors + l.writeErrors} |`),
    "",
    `Three against one: reads ${fmt(load[2].rps / load[0].rps, 2)}x, writes ${fmt(load[2].writes / load[0].writes, 2)}x. Every read asks PostgreSQL for changes first (read-your-writes across processes), and these writes are all one tenant's, so they run one at a time under its lock, while the processes, PostgreSQL and the load generator share the machine's cores: more processes add availability here, not throughput.`,
    "",
  ];
  return lines.join("\n");
}

if (import.meta.url === `file://${process.argv[1]}`) {
  (process.argv[2] === "processes" ? benchProcesses().then((l) => console.log(processesTable(l))) : clusterSection((s = "") => console.log(s))).catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
