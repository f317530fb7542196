import { defineConfig } from "vitest/config";

export default defineConfig({
  // A states module imports the suite's states entry by its package name; in this checkout that is the source.
  resolve: { alias: { "@service/api-conformance/states": new URL("./conformance/src/states/index.ts", import.meta.url).pathname } },
  test: {
    include: ["**/test/**/*.test.ts", "**/test/**/*.test.tsx"],
    // The install matrices run in `npm run test:packages` (vitest.packages.config.ts) and the conformance suite's
    // matrices (broken variants, surfaces) in `npm run test:matrices` (vitest.matrices.config.ts), and several sandbox
    // processes on PostgreSQL in `npm run test:cluster` (vitest.cluster.config.ts); .ci/run runs all three.
    exclude: ["**/node_modules/**", "test/package/**", "test/conformance/surfaces.test.ts", "test/conformance/foreign.test.ts", "test/conformance/variants-*.test.ts", "metrics/test/metrics-cli-numbers.test.ts", "server/test/cluster/**"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Tests start real servers on free ports; two workers match the 2-core CI machine.
    maxWorkers: 2,
    // One temporary root per run, removed at its end even when tests fail (test/support/temp-root.ts).
    globalSetup: ["test/support/temp-root.ts"],
  },
});
