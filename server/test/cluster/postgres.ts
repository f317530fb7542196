/**
 * A PostgreSQL server for the cluster tests, from Debian's package (scripts/deploy/install-postgresql.sh installs it),
 * in a temporary directory: initdb, start on a free port, and stop (and remove) at the end, even when a test fails.
 * As root (CI), the server runs as the package's `postgres` user: PostgreSQL refuses to run as root.
 */
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { freePort } from "./processes.ts";

export interface Postgres {
  url: string;
  port: number;
  /** A fresh empty database on this server; returns its URL. */
  database(name: string): string;
  /** Stops the server as a crash would (`-m immediate`: no checkpoint, every connection cut), then starts it again. */
  restart(downMs: number): Promise<void>;
  /**
   * Connections open now (pg_stat_activity, every database), not counting the one that asks. Asked on a connection
   * of the test's own, never by a psql the test waits for: a synchronous child blocks the test's event loop, and under
   * CI's load a kept-alive socket the server closed meanwhile was then reused ("fetch failed", stop 65).
   */
  connections(): Promise<number>;
  /** The postmaster's process id; the server's other processes (backends, helpers) are its children. */
  postmaster(): number;
  stop(): void;
}

export interface PostgresOptions {
  /** PostgreSQL's own default is 100; the tests' server has 200 unless a test asks for the default. */
  maxConnections?: number;
  /**
   * Off by default (a test server's speed). On for a test that crashes the server and counts what was acknowledged:
   * off, a commit is acknowledged before its WAL is written, and an immediate stop may lose it by design.
   */
  synchronousCommit?: boolean;
}

function binDir(): string {
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, "bin", "initdb"))).sort((a, b) => Number(b) - Number(a)) : [];
  if (versions.length === 0) {
    throw new Error("PostgreSQL is not installed: run `bash scripts/deploy/install-postgresql.sh` (as root, with apt-get), which `npm run test:cluster` runs first");
  }
  return join(root, versions[0], "bin");
}

const asRoot = process.getuid?.() === 0;
const asRootTmp = () => (asRoot ? "/tmp" : tmpdir());

export async function startPostgres(options: PostgresOptions = {}): Promise<Postgres> {
  const bin = binDir();
  // Under /tmp itself: the run's temp root is private to this user, and the server runs as `postgres`.
  const dir = mkdtempSync(join(asRootTmp(), "sandbox-pg-"));
  const run = (cmd: string, args: string[]) => {
    const full = join(bin, cmd);
    const r = asRoot ? spawnSync("runuser", ["-u", "postgres", "--", full, ...args], { encoding: "utf8" }) : spawnSync(full, args, { encoding: "utf8" });
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} failed: ${r.stderr || r.stdout}`);
    return r.stdout;
  };
  if (asRoot) chownSync(dir, Number(execFileSync("id", ["-u", "postgres"]).toString().trim()), Number(execFileSync("id", ["-g", "postgres"]).toString().trim()));
  const data = join(dir, "data");
  const port = await freePort();
  let started = false;
  const settings = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=${options.synchronousCommit ? "on" : "off"} -c max_connections=${options.maxConnections ?? 200}`;
  const pgStart = () => run("pg_ctl", ["-D", data, "-l", join(dir, "log"), "-w", "-o", settings, "start"]);
  process.once("exit", () => stop());
  const stop = () => {
    if (started) {
      started = false;
      try {
        run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
      } catch {
        /* already gone */
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    run("initdb", ["-D", data, "-U", "sandbox", "--auth=trust", "-E", "UTF8", "--no-sync"]);
    // fsync off: a test server whose files are thrown away; max_connections for three processes and their pools.
    pgStart();
    started = true;
    // A watchdog outside this process: when the test process is gone (even killed with -9, so no exit hook ran), it
    // stops the server and removes its directory.
    const pgCtl = join(bin, "pg_ctl");
    const stopCmd = asRoot ? `runuser -u postgres -- ${pgCtl}` : pgCtl;
    spawn("sh", ["-c", `while kill -0 ${process.pid} 2>/dev/null; do sleep 1; done; ${stopCmd} -D '${data}' -m immediate stop >/dev/null 2>&1; rm -rf '${dir}'`], { detached: true, stdio: "ignore" }).unref();
  } catch (err) {
    stop();
    throw err;
  }
  const psql = (db: string, sql: string) => run("psql", ["-h", "127.0.0.1", "-p", String(port), "-U", "sandbox", "-d", db, "-v", "ON_ERROR_STOP=1", "-qc", sql]);
  const urlOf = (db: string) => `postgres://sandbox@127.0.0.1:${port}/${db}`;
  return {
    url: urlOf("postgres"),
    port,
    database(name) {
      psql("postgres", `CREATE DATABASE "${name}"`);
      return urlOf(name);
    },
    async restart(downMs) {
      run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
      await new Promise((r) => setTimeout(r, downMs));
      pgStart();
    },
    postmaster() {
      // postmaster.pid's first line: the server's first process, every other one (backends, helpers) its child.
      return Number(readFileSync(join(data, "postmaster.pid"), "utf8").split("\n")[0]);
    },
    async connections() {
      const client = new pg.Client({ connectionString: urlOf("postgres") });
      await client.connect();
      try {
        const { rows } = await client.query<{ n: string }>("SELECT count(*) AS n FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()");
        return Number(rows[0].n);
      } finally {
        await client.end().catch(() => {});
      }
    },
    stop,
  };
}
