/**
 * The vitest settings every layer shares: real servers on free loopback ports with two workers (the 2-core CI
 * machine), one temporary root per run removed at its end, and the states entry's name resolved to its source.
 */
import { defineConfig } from "vitest/config";

export function layerConfig(test: { include: string[]; exclude?: string[]; testTimeout?: number; hookTimeout?: number; maxWorkers?: number; fileParallelism?: boolean; isolate?: boolean; sequencer?: new (...args: any[]) => any }) {
  const { sequencer, ...rest } = test;
  return defineConfig({
    // A states module imports the suite's states entry by its package name; in this checkout that is the source.
    resolve: { alias: { "@service/api-conformance/states": new URL("./conformance/src/states/index.ts", import.meta.url).pathname } },
    test: {
      testTimeout: 30_000,
      hookTimeout: 60_000,
      maxWorkers: 2,
      // A young generation of 32 MB semi-spaces (16 by default): the suite, its servers and their HTTP allocate short-lived
      // objects by the gigabyte, and fewer scavenges took the conformance layer from 520 s of CPU to 479 s (alone, 4 workers).
      execArgv: ["--max-semi-space-size=32"],
      ...rest,
      ...(sequencer ? { sequence: { sequencer } } : {}),
      exclude: ["**/node_modules/**", ...(rest.exclude ?? [])],
      // One temporary root per run, removed at its end even when tests fail (test/support/temp-root.ts); the packages
      // built from the sources as they stand (test/support/built-packages.ts).
      globalSetup: ["test/support/temp-root.ts", "test/support/built-packages.ts"],
    },
  });
}
