/** Starting the servers a benchmark compares, each in its own process on a free loopback port. */
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { freePort, root, startPrismProcess } from "../test/support/processes.ts";

export { root };

export interface Proc {
  child: ChildProcess;
  baseUrl: string;
  startupMs: number;
  /** Resident set size in bytes, read from /proc. */
  rss(): number;
  stop(): Promise<void>;
}

async function waitFor(child: ChildProcess, ready: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${what} exited with ${child.exitCode}`);
    if (await ready().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${what} did not start within ${timeoutMs} ms`);
}

function procOf(child: ChildProcess, baseUrl: string, startupMs: number): Proc {
  return {
    child,
    baseUrl,
    startupMs,
    rss: () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"))?.[1] ?? 0) * 1024,
    stop: () => new Promise((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.kill("SIGTERM");
      setTimeout(() => child.kill("SIGKILL"), 5_000).unref();
    }),
  };
}

/**
 * The reference server as `npm start` runs it (response validation off), logging silenced; from another checkout
 * (`cwd`: a worktree of another commit, bench/against.ts) when given.
 */
export async function startReference(env: Record<string, string> = {}, cwd = root, nodeArgs: string[] = []): Promise<Proc> {
  const port = await freePort();
  const started = Date.now();
  const child = spawn(process.execPath, [...nodeArgs, "--import", "tsx", "server/src/main.ts"], {
    cwd,
    env: { ...process.env, PORT: String(port), LOG_LEVEL: "silent", ...env },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const baseUrl = `http://127.0.0.1:${port}/api`;
  await waitFor(child, async () => (await fetch(`${baseUrl}/v1/studies`)).status === 401, 120_000, "reference server");
  return procOf(child, baseUrl, Date.now() - started);
}

/** Prism 5.14.2 on the same contract: fastest with `-v silent`, or with its default logging. It serves `/v1/...` at its root. */
export async function startPrism(silent = true): Promise<Proc> {
  const started = Date.now();
  const { child, baseUrl } = await startPrismProcess({ logging: !silent });
  return procOf(child, baseUrl, Date.now() - started);
}

/** A bare Express 5 app answering precomputed bodies: the ceiling of any Express handler. */
export async function startCeiling(bodies: Record<string, string>): Promise<Proc> {
  const port = await freePort();
  const started = Date.now();
  const child = spawn(process.execPath, ["--import", "tsx", "bench/ceiling.ts"], {
    cwd: root,
    env: { ...process.env, PORT: String(port), BODIES: JSON.stringify(bodies) },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const baseUrl = `http://127.0.0.1:${port}/api`;
  await waitFor(child, async () => (await fetch(`${baseUrl}/ready`)).status === 200, 30_000, "ceiling");
  return procOf(child, baseUrl, Date.now() - started);
}
