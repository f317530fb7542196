/**
 * Sandbox processes for the cluster tests: the real command (`api-sandbox start`) on a free port, stopped with
 * SIGTERM or killed with SIGKILL, and every one ended when the test file ends.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "../../..");
const live = new Set<ChildProcess>();
process.on("exit", () => {
  for (const c of live) c.kill("SIGKILL");
});

export { freePort, reapWhenGone } from "../../../test/support/processes.ts";
import { freePort, reapWhenGone } from "../../../test/support/processes.ts";

export interface Sandbox {
  port: number;
  base: string;
  child: ChildProcess;
  output: () => string;
  /** Resolves once the process has exited. */
  exited: Promise<number | null>;
}

/**
 * The command from the sources through tsx, or the built package's bundle (the default: what `npx api-sandbox` and the
 * image run). The bundle starts in two thirds of the time and CPU (0.8 s against 1.25 s here), and these layers start
 * about a hundred processes; every layer's global setup builds it from the sources as they stand
 * (test/support/built-packages.ts).
 */
export const FROM_SOURCES = ["--import", "tsx", join(ROOT, "server/src/cli.ts")];
export const BUILT = [join(ROOT, "server/dist/sandbox.js")];

/** Starts `api-sandbox start` with `env` on `port` (a free one by default) and waits for its banner. */
export async function startSandbox(env: Record<string, string>, port?: number, timeoutMs = 60_000, command = BUILT): Promise<Sandbox> {
  const p = port ?? (await freePort());
  const child = spawn(process.execPath, [...command, "start", "--port", String(p)], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  live.add(child);
  reapWhenGone(child.pid!, `--port ${p}`);
  let out = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => {
    live.delete(child);
    resolve(code);
  }));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`sandbox on ${p} not ready in ${timeoutMs} ms:\n${out}`)), timeoutMs);
    const check = () => {
      if (out.includes("Reference server ready")) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on("data", check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`sandbox on ${p} exited (${code}) before it was ready:\n${out}`));
    });
  });
  return { port: p, base: `http://127.0.0.1:${p}/api`, child, output: () => out, exited };
}

export async function stopSandbox(s: Sandbox, signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
  if (s.child.exitCode !== null || s.child.signalCode !== null) return;
  s.child.kill(signal);
  await s.exited;
}
