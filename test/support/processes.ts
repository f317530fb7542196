/** Helpers for tests and benchmarks that run real processes on loopback: free ports, Prism, readiness. */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";

export const root = fileURLToPath(new URL("../../", import.meta.url));

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
    s.on("error", reject);
  });
}

/**
 * Ends `pid` when this test process is gone, even killed with -9 (no exit hook runs then): a watchdog outside it. It
 * kills only a process whose command line still holds `mark`, never another one that took a reused pid. It ends as
 * soon as `pid` has ended: a watchdog that outlived its process went on forking a `sleep` every second until the
 * test process ended, and the 232 foreign copies of the covering phase's test file left as many, which took half of
 * the 2-core machine's time in the kernel by the file's end (tests starved past their timeouts).
 */
export function reapWhenGone(pid: number, mark: string): void {
  const script = `while kill -0 ${process.pid} 2>/dev/null; do kill -0 ${pid} 2>/dev/null || exit 0; sleep 1; done; if tr '\\0' ' ' < /proc/${pid}/cmdline 2>/dev/null | grep -qF -- '${mark}'; then kill -9 ${pid}; fi`;
  spawn("sh", ["-c", script], { detached: true, stdio: "ignore" }).unref();
}

/** Resolves once `url` answers anything at all (a 401 counts); rejects after `timeoutMs` or if `child` exits. */
export async function waitUntilUp(url: string, timeoutMs: number, child?: ChildProcess): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child && child.exitCode !== null) throw new Error(`${url}: the process exited with ${child.exitCode}`);
    try {
      await fetch(url);
      return;
    } catch {
      if (Date.now() > deadline) throw new Error(`${url} did not answer within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/** Prism 5.14.2 on generated/openapi.json on a free port; `-v silent` unless `logging`. Its paths are at its root. */
export async function startPrismProcess(options: { logging?: boolean } = {}): Promise<{ child: ChildProcess; baseUrl: string; port: number }> {
  const port = await freePort();
  const args = ["node_modules/@stoplight/prism-cli/dist/index.js", "mock", "-p", String(port), "-h", "127.0.0.1", ...(options.logging ? [] : ["-v", "silent"]), "generated/openapi.json"];
  const child = spawn(process.execPath, args, { cwd: root, stdio: ["ignore", "ignore", "inherit"] });
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitUntilUp(`${baseUrl}/v1/studies`, 60_000, child);
  return { child, baseUrl, port };
}

/** The live processes of a process group (zombies are gone already, waiting only for their parent to read their exit). */
export function groupMembers(pgid: number): number[] {
  try {
    const rows = execFileSync("ps", ["-eo", "pid=,pgid=,stat="], { encoding: "utf8" }).split("\n").map((x) => x.trim().split(/\s+/));
    return rows.filter(([, group, stat]) => Number(group) === pgid && !stat?.startsWith("Z")).map(([pid]) => Number(pid));
  } catch {
    return [];
  }
}

/** Polls until the group is empty or `timeoutMs` passed; the milliseconds it took. */
export async function groupGone(pgid: number, timeoutMs = 10_000): Promise<number> {
  const t = Date.now();
  while (groupMembers(pgid).length > 0 && Date.now() - t < timeoutMs) await new Promise((r) => setTimeout(r, 50));
  return Date.now() - t;
}
