// reapWhenGone's watchdog: it kills its process when the test process is killed with -9, and ends by itself as soon as
// its process has ended (one left behind per server forked a `sleep` every second for the rest of the test process:
// 232 of them took half the CI machine's time in the kernel).
import { spawn, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { afterEach, expect, it } from "vitest";
import { reapWhenGone, root } from "./processes.ts";

const started: ChildProcess[] = [];
afterEach(() => {
  for (const child of started.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
});

/** The pids of live processes whose command line holds `text` (this process's own excluded). */
function processesHolding(text: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ");
      const state = /\)\s+(\S)/.exec(readFileSync(`/proc/${entry}/stat`, "utf8"))?.[1];
      if (cmdline.includes(text) && state !== "Z") found.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

async function until(what: string, ok: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const sleeper = (mark: string) => {
  const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)", mark], { stdio: "ignore" });
  started.push(child);
  return child;
};

it("ends its watchdog as soon as the process it guards has ended", async () => {
  const mark = `reap-test-${process.pid}-${Date.now()}`;
  const child = sleeper(mark);
  reapWhenGone(child.pid!, mark);
  const watchdog = `/proc/${child.pid}/cmdline`;
  await until("the watchdog runs", () => processesHolding(watchdog).length === 1);
  child.kill("SIGKILL");
  await until("the watchdog ends after its process", () => processesHolding(watchdog).length === 0);
});

it("kills the process it guards when the test process is killed with -9", async () => {
  const mark = `reap-test-${process.pid}-${Date.now()}-orphan`;
  // A test process of its own: it starts the guarded process, arms the watchdog, says the pid, and is killed with -9.
  const script = `import { spawn } from "node:child_process"; import { reapWhenGone } from ${JSON.stringify(`${root}/test/support/processes.ts`)};
    const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)", ${JSON.stringify(mark)}], { detached: true, stdio: "ignore" });
    child.unref(); reapWhenGone(child.pid, ${JSON.stringify(mark)}); console.log(child.pid); setInterval(() => {}, 1000);`;
  const parent = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { cwd: root, stdio: ["ignore", "pipe", "inherit"] });
  started.push(parent);
  const pid = await new Promise<number>((resolve, reject) => {
    let said = "";
    parent.stdout!.on("data", (chunk: Buffer) => {
      said += chunk.toString();
      if (/^\d+\n/.test(said)) resolve(Number(said.trim()));
    });
    parent.once("exit", (code) => reject(new Error(`the test process exited with ${code}: ${said}`)));
  });
  expect(processesHolding(mark)).toContain(pid);
  parent.kill("SIGKILL");
  await until("the guarded process is killed", () => processesHolding(mark).length === 0);
}, 20_000);
