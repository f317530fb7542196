import { defineConfig } from "vitest/config";

// The conformance suite's matrices (`npm run test:matrices`): every broken variant, each against its own rule
// (variants-http, variants-webhooks), and the surface matrix: the reference server with each simulation capability
// removed in turn, the 2.0.0 surface against every sequence variant it can reach, a renamed surface through a states
// module, and no surface. Minutes of runs, so they run beside `npm test` in .ci/run rather than inside it. Also
// api-metrics' non-finite inputs, case by case through the command on both engines (metrics-cli-numbers.test.ts):
// forty seconds of spawns, one at a time, that pushed npm test past its 10-minute budget. (The client's Node-version
// matrix stays in test:packages: its four processes collecting garbage every 50 ms starved the surface matrix's
// time-budgeted model runs here.)
export default defineConfig({
  // A states module imports the suite's states entry by its package name; in this checkout that is the source.
  resolve: { alias: { "@service/api-conformance/states": new URL("./conformance/src/states/index.ts", import.meta.url).pathname } },
  test: {
    include: ["test/conformance/foreign.test.ts", "test/conformance/surfaces.test.ts", "test/conformance/variants-*.test.ts", "metrics/test/metrics-cli-numbers.test.ts"],
    exclude: ["**/node_modules/**"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    maxWorkers: 2,
    // One temporary root per run, removed at its end even when tests fail (test/support/temp-root.ts).
    globalSetup: ["test/support/temp-root.ts"],
  },
});
