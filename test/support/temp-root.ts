/**
 * Vitest global setup: every test run gets its own temporary root (TMPDIR), removed when the run ends, failed or not.
 * Tests, and the processes they start, make their folders with `mkdtemp(tmpdir())` as usual; whatever one leaves
 * behind (a test that failed before its cleanup, a fresh app's npm cache) goes with the root.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export default function setup(): () => void {
  const previous = process.env.TMPDIR;
  const root = mkdtempSync(join(tmpdir(), "project-tests-"));
  process.env.TMPDIR = root;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    rmSync(root, { recursive: true, force: true });
  };
}
