// The in-memory engine's user limit, in a process with a small heap: the counterexample of CI on 2026-11-28, where a
// 64 MB heap took about 180,000 users and aborted out of memory before refusing (V8's heap limit counts the young
// generation, 48 MB of it, where the users' entries never stay).
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { youngGeneration } from "../src/compute.ts";

const limitAt = (oldSpaceMb: number, extra: string[] = []) => {
  const script = `import("./metrics/src/compute.ts").then((m) => console.log(JSON.stringify({ limit: m.memoryUserLimit(), heap: require("node:v8").getHeapStatistics().heap_size_limit })))`;
  return JSON.parse(execFileSync(process.execPath, [`--max-old-space-size=${oldSpaceMb}`, ...extra, "--import", "tsx", "-e", script], { encoding: "utf8" })) as { limit: number; heap: number };
};

describe("memoryUserLimit", () => {
  it("counts only the old generation: at 64 MB it allows users for three quarters of 64 MB at most, not of the 112 MB V8 reports", () => {
    const { limit, heap } = limitAt(64);
    expect(heap).toBeGreaterThan(64 * 2 ** 20); // the young generation is in the figure the limit starts from
    // 400 bytes a user (compute.ts): three quarters of the old generation, less what the process already uses.
    expect(limit * 400).toBeLessThanOrEqual(0.75 * 64 * 2 ** 20);
    expect(limit).toBeGreaterThan(50_000);
  });

  it("grows with the heap, and reads the young generation's size from --max-semi-space-size", () => {
    expect(limitAt(256).limit).toBeGreaterThan(limitAt(64).limit * 3);
    // Semi-spaces of 64 MB make a young generation of 192 MB: still not room for users.
    const { limit, heap } = limitAt(64, ["--max-semi-space-size=64"]);
    expect(heap).toBeGreaterThan(250 * 2 ** 20);
    expect(limit * 400).toBeLessThanOrEqual(0.75 * 64 * 2 ** 20);
    expect(youngGeneration(["--max-semi-space-size=4"])).toBe(12 * 2 ** 20);
    expect(youngGeneration([])).toBe(48 * 2 ** 20);
  });
});
