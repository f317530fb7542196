/**
 * The sandbox past one machine, measured side by side in one run (`npm run bench`, or alone:
 * `npx tsx bench/cluster.ts`; PostgreSQL and its tools from Debian, scripts/deploy/install-postgresql.sh):
 * 1. start-up after 1,000 and after 1,000,000 stored changes, on SQLite (`--data-dir`) and PostgreSQL
 *    (`--database-url`), median of 3 starts each: compaction keeps what a start reads about the size of the state, so
 *    the two should be within 2x;
 * 2. one process against three on one PostgreSQL: req/s and p99 of a list read, 32 connections spread over them.
 * The changes are written as the sandbox writes them, in changes of 1,000: set the webhook, the fault settings, a
 * prompt event, and an interview's fields, over and over, on a state of one project and 50 interviews. SQLite appends
 * them to its log (compacted along the way); PostgreSQL keeps no log, so they are the statements on its tables.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import autocannon from "autocannon";
import type { Op } from "../server/src/stores/backend.ts";
import { PgBackend } from "../server/src/stores/postgres/backend.ts";
import { SET_WEBHOOK } from "../server/src/stores/postgres/webhook-settings.ts";
import { SET_FAULT_SETTINGS } from "../server/src/stores/postgres/fault-settings.ts";
import { SqliteBackend } from "../server/src/stores/sqlite/backend.ts";
import { NO_FAULTS } from "../server/src/faults/settings.ts";
import { readDataset } from "../server/src/model/dataset.ts";
import { startPostgres } from "../server/test/cluster/postgres.ts";
import { freePort } from "../server/test/cluster/processes.ts";
import { childrenOf, cpuMicros, machineTicks, mainThreadMicros } from "./proc-cpu.ts";
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

/** One change of the history as the statement the sandbox runs on PostgreSQL's tables (stores/postgres/). */
function rowChange(j: PgBackend, op: Op): Promise<void> {
  switch (op.kind) {
    case "webhook.set":
      return j.atCommit(SET_WEBHOOK, [op.project_id, op.url, JSON.stringify(op.events), op.secret, null]);
    case "faults.set":
      return j.atCommit(SET_FAULT_SETTINGS, [op.project_id, JSON.stringify(op.settings), op.settings?.fail_next ?? 0, op.settings?.webhook_failures ?? 0]);
    case "prompt.recorded":
      return j.atCommit("INSERT INTO prompt_events (project_id, event_id, phase, received_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING", [op.project_id, op.event_id, op.phase, op.received_at]);
    case "interview.changed":
      return j.atCommit("UPDATE interviews SET doc = doc || $3::jsonb WHERE project_id = $1 AND id = $2", [op.project_id, op.id, JSON.stringify(op.change)]);
    default:
      throw new Error(`no statement for ${op.kind}`);
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
        const j = new SqliteBackend(dir);
        j.setMeta("time_shift_ms", String(Date.now() - Date.parse(readDataset().anchor)));
        await history(n, (batch) => j.atomically(() => batch.forEach((op) => j.append(op))));
        j.close();
        const starts = [];
        for (let r = 0; r < 3; r++) starts.push(await startupMs({ SANDBOX_DATA_DIR: dir }));
        const check = new SqliteBackend(dir);
        rows.push({ store: "SQLite", changes: n, startMs: median(starts), restored: check.ops().length });
        check.close();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
      const url = pg.database(`startup_${n}`);
      const j = await PgBackend.open(url, { initialMeta: { time_shift_ms: String(Date.now() - Date.parse(readDataset().anchor)), stream_epoch: randomBytes(5).toString("hex"), launch_token_secret: randomBytes(32).toString("hex") } });
      // PostgreSQL keeps no change log: the same changes are the statements the sandbox runs on its tables, sent as
      // changes, 1,000 with each COMMIT.
      await history(n, (batch) => j.write(async () => {
        for (const op of batch) await rowChange(j, op);
      }) as Promise<void>);
      const stored = Number((await j.pool.query("SELECT COUNT(*) AS n FROM ops")).rows[0].n);
      if (process.env.BENCH_DEBUG) console.error(`postgres ${n}: ${stored} changes in a log`);
      j.close();
      const starts = [];
      for (let r = 0; r < 3; r++) starts.push(await startupMs({ DATABASE_URL: url }));
      // PostgreSQL keeps no log: what a start reads of one is what is left in an older version's table (nothing).
      const check = await PgBackend.open(url, { initialMeta: {} });
      rows.push({ store: "PostgreSQL", changes: n, startMs: median(starts), restored: Number((await check.pool.query("SELECT COUNT(*) AS n FROM ops")).rows[0].n) });
      check.close();
    }
  } finally {
    pg.stop();
  }
  return rows;
}

export interface ClusterLoad {
  /** 1, 2 or 3 processes on PostgreSQL; 0: one process on the memory store, for comparison. */
  processes: number;
  rps: number;
  p99: number;
  errors: number;
  /** Planted studies per second, their p99, and non-2xx answers. */
  writes: number;
  writeP99: number;
  writeErrors: number;
  /**
   * CPU per planted study (µs, median of the rounds): the sandbox processes' (every thread, and their main threads
   * alone), PostgreSQL's (every process of the server), and the machine's idle share (%) meanwhile; null without
   * Linux's /proc.
   */
  writeCpu: { sandboxUs: number; loopUs: number; postgresUs: number | null; idlePercent: number } | null;
}

/**
 * What `run` costs in CPU per request: the sandbox processes `sandboxes`, the PostgreSQL whose postmaster is
 * `postmaster` (its backends read before and after: a pool may open one meanwhile), and the machine's idle share.
 */
async function costOf<T>(sandboxes: number[], postmaster: number | null, run: () => Promise<T>, requests: (t: T) => number) {
  const serverOf = () => (postmaster === null ? [] : [postmaster, ...childrenOf(postmaster)]);
  const before = new Map(serverOf().map((pid) => [pid, cpuMicros([pid]) ?? 0]));
  const sandbox0 = cpuMicros(sandboxes);
  const loop0 = mainThreadMicros(sandboxes);
  const machine0 = machineTicks();
  const result = await run();
  const sandbox1 = cpuMicros(sandboxes);
  const loop1 = mainThreadMicros(sandboxes);
  const machine1 = machineTicks();
  // A backend gone by now is left out (its last reading lost with it); one started meanwhile counts from nothing.
  const postgres = serverOf().reduce((sum, pid) => sum + Math.max(0, (cpuMicros([pid]) ?? 0) - (before.get(pid) ?? 0)), 0);
  const n = requests(result);
  const cost = sandbox0 === null || sandbox1 === null || loop0 === null || loop1 === null || !machine0 || !machine1 || n === 0 ? null : {
    sandboxUs: (sandbox1 - sandbox0) / n,
    loopUs: (loop1 - loop0) / n,
    postgresUs: postmaster === null ? null : postgres / n,
    idlePercent: (100 * (machine1.idle - machine0.idle)) / (machine1.total - machine0.total),
  };
  return { result, cost };
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
    // Three rounds of 5 s at each size plant more than the default quota (100,000 per tenant): raised for the bench.
    for (let i = 0; i < 3; i++) procs.push(await startSandbox({ DATABASE_URL: url, MAX_PLANTED_PER_TENANT: "10000000" }));
    const out: ClusterLoad[] = [];
    const load = async (n: number, write: boolean, postmaster: number | null) => {
      const rounds = [];
      for (let r = 0; r < 3; r++) {
        const { result: runs, cost } = await costOf(
          procs.slice(0, n).map((p) => p.child.pid!),
          postmaster,
          () => Promise.all(
            procs.slice(0, n).map((p) =>
              autocannon(
                write
                  ? { url: `${p.base}/_sim/studies`, method: "POST", headers: { authorization: `Bearer ${ACME}`, "content-type": "application/json" }, body: JSON.stringify({ name: "bench" }), connections: Math.round(32 / n), duration: 5 }
                  : { url: `${p.base}/v1/interviews?limit=10`, headers: { authorization: `Bearer ${ACME}` }, connections: Math.round(32 / n), duration: 5 },
              ),
            ),
          ),
          (runs) => runs.reduce((a, x) => a + x.requests.total, 0),
        );
        rounds.push({ rps: runs.reduce((a, x) => a + x.requests.average, 0), p99: Math.max(...runs.map((x) => x.latency.p99)), errors: runs.reduce((a, x) => a + x.non2xx, 0), cost });
      }
      const costs = rounds.map((x) => x.cost);
      const cpu = costs.every((c) => c !== null)
        ? { sandboxUs: median(costs.map((c) => c!.sandboxUs)), loopUs: median(costs.map((c) => c!.loopUs)), postgresUs: postmaster === null ? null : median(costs.map((c) => c!.postgresUs!)), idlePercent: median(costs.map((c) => c!.idlePercent)) }
        : null;
      return { rps: median(rounds.map((x) => x.rps)), p99: median(rounds.map((x) => x.p99)), errors: rounds.reduce((a, x) => a + x.errors, 0), cpu };
    };
    // Every read first, on the fixtures alone: the writes then leave every process with thousands more studies.
    const reads = [];
    for (const n of [1, 2, 3]) reads.push(await load(n, false, pg.postmaster()));
    for (const n of [1, 2, 3]) {
      const writes = await load(n, true, pg.postmaster());
      const r = reads[n - 1];
      out.push({ processes: n, rps: r.rps, p99: r.p99, errors: r.errors, writes: writes.rps, writeP99: writes.p99, writeErrors: writes.errors, writeCpu: writes.cpu });
    }
    // The same loads on one process on the memory store (`npm start`), in the same run.
    await Promise.all(procs.splice(0).map((p) => stopSandbox(p, "SIGKILL")));
    procs.push(await startSandbox({ MAX_PLANTED_PER_TENANT: "10000000" }));
    const memReads = await load(1, false, null);
    const memWrites = await load(1, true, null);
    out.push({ processes: 0, rps: memReads.rps, p99: memReads.p99, errors: memReads.errors, writes: memWrites.rps, writeP99: memWrites.p99, writeErrors: memWrites.errors, writeCpu: memWrites.cpu });
    return out;
  } finally {
    await Promise.all(procs.map((p) => stopSandbox(p, "SIGKILL")));
    pg.stop();
  }
}

export interface TableRow {
  interviews: number;
  /** Resident memory of the sandbox process after the reads (MB), median of 3 readings a second apart. */
  rssMb: number;
  /** Median latency (ms) of each read, 20 times each. */
  latency: Record<string, number>;
}

const TABLE_READS = ["first page", "page at the middle", "status filter", "study and status", "reference filter", "study detail", "experiments report"] as const;

/**
 * Interviews live in PostgreSQL's table: one sandbox process on a database with the fixtures only, and on one with
 * `n` more interviews of Acme's (written by SQL in batches, as many rows as a year of a busy project), each read 20
 * times; then the process's resident memory. Target: within 1.2x of the fixtures' alone, and every read O(page).
 */
export async function benchInterviewsInTable(counts = [0, 1_000_000]): Promise<TableRow[]> {
  const pg = await startPostgres();
  const { startSandbox, stopSandbox } = await import("../server/test/cluster/processes.ts");
  const pgClient = (await import("pg")).default;
  const rows: TableRow[] = [];
  try {
    for (const n of counts) {
      const url = pg.database(`table_${n}`);
      // The first start migrates and writes the fixtures' interviews.
      await stopSandbox(await startSandbox({ DATABASE_URL: url }));
      const db = new pgClient.Client({ connectionString: url, options: "-c search_path=sandbox" });
      await db.connect();
      const ds = readDataset();
      const project = ds.projects.find((p) => p.api_key === ACME)!;
      const acme = { project_id: project.id, study_id: ds.studies.find((s) => s.project_id === project.id && s.status === "active")!.id };
      for (let done = 0; done < n; done += 100_000) {
        await db.query(
          `INSERT INTO interviews (project_id, id, doc)
           SELECT $1, id, jsonb_build_object('id', id, 'object', 'interview', 'study_id', $2::text, 'status', CASE WHEN g % 2 = 0 THEN 'started' ELSE 'processing' END,
             'reference_id', 'ref-' || (g % 50000), 'respondent_email', NULL, 'language', 'en', 'quality_score', NULL, 'duration_secs', NULL, 'headline', NULL,
             'summary', NULL, 'started_at', ts, 'completed_at', NULL, 'created_at', ts, 'transcript', '[]'::jsonb, 'question_answers', '[]'::jsonb,
             'project_id', $1::text, 'respondent_id', NULL)
           FROM (SELECT g, gen_random_uuid()::text AS id, to_char(timestamp '2025-01-01' + g * interval '10 seconds', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS ts
                 FROM generate_series($3::int, $4::int) AS g) AS s`,
          [acme.project_id, acme.study_id, done + 1, Math.min(n, done + 100_000)],
        );
      }
      await db.query("ANALYZE interviews");
      const { rows: [middle] } = await db.query<{ id: string }>("SELECT id FROM interviews WHERE project_id = $1 ORDER BY created_at DESC, id DESC OFFSET $2 LIMIT 1", [acme.project_id, Math.floor((n + 360) / 2)]);
      await db.end();
      const sandbox = await startSandbox({ DATABASE_URL: url });
      try {
        const paths: Record<(typeof TABLE_READS)[number], string> = {
          "first page": "/v1/interviews?limit=100",
          "page at the middle": `/v1/interviews?limit=100&starting_after=${middle.id}`,
          "status filter": "/v1/interviews?limit=100&status=processing",
          "study and status": `/v1/interviews?limit=100&study_id=${acme.study_id}&status=started`,
          "reference filter": "/v1/interviews?limit=100&reference_id=ref-17",
          "study detail": `/v1/studies/${acme.study_id}`,
          "experiments report": "/v1/experiments",
        };
        const latency: Record<string, number> = {};
        for (const name of TABLE_READS) {
          const times: number[] = [];
          for (let i = 0; i < 20; i++) {
            const t = performance.now();
            const r = await fetch(`${sandbox.base}${paths[name]}`, { headers: { authorization: `Bearer ${ACME}` } });
            await r.arrayBuffer();
            if (r.status !== 200) throw new Error(`${paths[name]} answered ${r.status}`);
            times.push(performance.now() - t);
          }
          latency[name] = median(times);
        }
        const readings: number[] = [];
        for (let i = 0; i < 3; i++) {
          await new Promise((r) => setTimeout(r, 1_000));
          const status = readFileSync(`/proc/${sandbox.child.pid}/status`, "utf8");
          readings.push(Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024);
        }
        rows.push({ interviews: n, rssMb: median(readings), latency });
      } finally {
        await stopSandbox(sandbox);
      }
    }
  } finally {
    pg.stop();
  }
  return rows;
}

/** The table of interviews in PostgreSQL's table (printed alone by `npx tsx bench/cluster.ts table`). */
export function tableTable(rows: TableRow[]): string {
  const fmt = (n: number, d = 0) => n.toLocaleString("en-US", { maximumFractionDigits: d, minimumFractionDigits: d });
  const [empty, full] = [rows[0], rows[rows.length - 1]];
  return [
    `Interviews in PostgreSQL's table: one sandbox process on a database with the fixtures' interviews alone, and with ${fmt(full.interviews)} more of one project's (each read 20 times, medians in ms; resident memory after the reads, median of 3 readings a second apart):`,
    "",
    `| interviews added | resident MB | ${TABLE_READS.join(" | ")} |`,
    `|---:|---:|${TABLE_READS.map(() => "---:").join("|")}|`,
    ...rows.map((r) => `| ${fmt(r.interviews)} | ${fmt(r.rssMb)} | ${TABLE_READS.map((k) => fmt(r.latency[k], 1)).join(" | ")} |`),
    "",
    `Resident memory with ${fmt(full.interviews)} interviews against none: **${fmt(full.rssMb / empty.rssMb, 2)}x** (target: within 1.2x). No process holds interviews: each read is one keyset query on an index of its order and filters.`,
    "",
  ].join("\n");
}

/** The section of BENCHMARKS.md. */
export async function clusterSection(say: (s?: string) => void): Promise<void> {
  const fmt = (n: number, d = 0) => n.toLocaleString("en-US", { maximumFractionDigits: d, minimumFractionDigits: d });
  const rows = await benchStartup();
  say("## The sandbox past one machine");
  say();
  say("Start-up (the banner's own figure, median of 3 starts) after stored changes that keep setting the same few things (webhook, faults, a prompt event, an interview's fields) on one project (target: 1,000,000 within 2x of 1,000). SQLite appends them to its log, which compaction keeps about the size of the state; PostgreSQL keeps no log (each change is the statements on its tables), so a start reads none of them.");
  say();
  say("| store | changes written | changes a start replays | start-up | ratio to 1,000 |");
  say("|---|---:|---:|---:|---:|");
  for (const r of rows) {
    const base = rows.find((x) => x.store === r.store && x.changes === 1_000)!;
    say(`| ${r.store} | ${fmt(r.changes)} | ${fmt(r.restored)} | ${fmt(r.startMs)} ms | ${fmt(r.startMs / base.startMs, 2)}x |`);
  }
  say();
  say(processesTable(await benchProcesses()));
  say(tableTable(await benchInterviewsInTable()));
}

/** The table of 1, 2 and 3 processes (printed alone by `npx tsx bench/cluster.ts processes`). */
export function processesTable(load: ClusterLoad[]): string {
  const fmt = (n: number, d = 0) => n.toLocaleString("en-US", { maximumFractionDigits: d, minimumFractionDigits: d });
  const cpu = (c: ClusterLoad["writeCpu"], key: "sandboxUs" | "postgresUs" | "idlePercent") => (c === null || c[key] === null ? "n/a" : fmt(c[key]!));
  const [one, , three] = load;
  const lines = [
    "One, two and three processes on one PostgreSQL: reads (`GET /v1/interviews?limit=10`) and writes (`POST /_sim/studies`), 32 connections spread over the processes, autocannon in the bench process, median of 3 rounds of 5 s. The CPU per write is read from `/proc` over each round of writes: the sandbox processes', PostgreSQL's (every process of the server), and the machine's idle share meanwhile:",
    "",
    "| processes | reads/s | read p99 ms | writes/s | write p99 ms | non-2xx | sandbox CPU µs per write | PostgreSQL CPU µs per write | machine idle % |",
    "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...load.map((l) => `| ${l.processes === 0 ? "1, memory store" : l.processes} | ${fmt(l.rps)} | ${fmt(l.p99)} | ${fmt(l.writes)} | ${fmt(l.writeP99)} | ${l.errors + l.writeErrors} | ${cpu(l.writeCpu, "sandboxUs")} | ${cpu(l.writeCpu, "postgresUs")} | ${cpu(l.writeCpu, "idlePercent")} |`),
    "",
    `Three against one: reads ${fmt(three.rps / one.rps, 2)}x, writes ${fmt(three.writes / one.writes, 2)}x (target: at least 1x); writes on three processes against the memory store's: ${fmt(three.writes / load[3].writes, 2)}x (target: at least 0.5x). A planted study is a take of one of its tenant's four quota rows and its own row (no lock), and a read is one query on the table; the processes, PostgreSQL and the load generator share the machine's two cores.`,
  ];
  if (one.writeCpu && three.writeCpu && one.writeCpu.postgresUs !== null && three.writeCpu.postgresUs !== null) {
    // What bounds each: one process's writes by its one event loop, three's by the machine.
    lines.push(
      "",
      `Where the writes' time goes: one process's main thread (its event loop) is busy ${fmt((one.writeCpu.loopUs * one.writes) / 10_000)}% of the time while the machine is ${fmt(one.writeCpu.idlePercent)}% idle; three leave it ${fmt(three.writeCpu.idlePercent)}% idle, and each write costs ${fmt(three.writeCpu.sandboxUs / one.writeCpu.sandboxUs, 2)}x the sandbox's CPU and ${fmt(three.writeCpu.postgresUs / one.writeCpu.postgresUs, 2)}x PostgreSQL's of one process's.`,
    );
  }
  lines.push("");
  return lines.join("\n");
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const only = process.argv[2];
  (only === "processes"
    ? benchProcesses().then((l) => console.log(processesTable(l)))
    : only === "table"
      ? benchInterviewsInTable().then((r) => console.log(tableTable(r)))
      : clusterSection((s = "") => console.log(s))
  ).catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
