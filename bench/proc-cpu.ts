/**
 * CPU time as Linux's /proc counts it, for a bench's cost per request: the processes a load runs through, and the
 * whole machine's idle share, read before and after the load. Null where there is no /proc (the bench says "n/a").
 */
import { existsSync, readFileSync, readdirSync } from "node:fs";

// /proc/PID/stat counts in clock ticks: 100 a second on Linux (USER_HZ, fixed for user space).
const TICK_US = 10_000;

/** User and system CPU of `pid` (every thread; `/proc/PID/task/PID/stat` for its main thread alone), in µs; 0 once it is gone. */
function cpuOf(pid: number, path = `/proc/${pid}/stat`): number {
  try {
    // The command name (field 2) may hold spaces: the fields counted from after its closing parenthesis.
    const f = readFileSync(path, "utf8").split(") ")[1].split(" ");
    return (Number(f[11]) + Number(f[12])) * TICK_US;
  } catch {
    return 0;
  }
}

/** The CPU (µs) the processes `pids` have used so far, or null without /proc. */
export function cpuMicros(pids: number[]): number | null {
  if (!existsSync("/proc/stat")) return null;
  return pids.reduce((sum, pid) => sum + cpuOf(pid), 0);
}

/** The CPU (µs) of the main threads of `pids` (a Node.js process's event loop), or null without /proc. */
export function mainThreadMicros(pids: number[]): number | null {
  if (!existsSync("/proc/stat")) return null;
  return pids.reduce((sum, pid) => sum + cpuOf(pid, `/proc/${pid}/task/${pid}/stat`), 0);
}

/** The processes whose parent is `pid` (PostgreSQL's backends, say), read now. */
export function childrenOf(pid: number): number[] {
  if (!existsSync("/proc")) return [];
  return readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .map(Number)
    .filter((p) => {
      try {
        return Number(readFileSync(`/proc/${p}/stat`, "utf8").split(") ")[1].split(" ")[1]) === pid;
      } catch {
        return false;
      }
    });
}

/** The machine's idle and total CPU time so far (every core, in ticks), or null without /proc. */
export function machineTicks(): { idle: number; total: number } | null {
  if (!existsSync("/proc/stat")) return null;
  const cpu = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1).map(Number);
  // idle and iowait are the idle time; the rest (user, nice, system, irq, softirq, steal) is busy.
  return { idle: cpu[3] + (cpu[4] ?? 0), total: cpu.reduce((a, b) => a + b, 0) };
}
