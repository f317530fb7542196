import { defineConfig } from "vitest/config";

// The conformance suite's matrices (`npm run test:matrices`): every broken variant, each against its own rule
// (variants-http, variants-webhooks), and the surface matrix: the reference server with each simulation capability
// removed in turn, the 2.0.0 surface against every sequence variant it can reach, a renamed surface through a states
// module, and no surface. Minutes of runs, so they run beside `npm test` in .ci/run rather than inside it. Also the
// typed client's tarball on Node 22, 24 and 26 under forced garbage collection (test/package/client-under-gc.test.ts):
// here rather than in test:packages, whose install matrices it slowed by competing for the two cores.
export default defineConfig({
  test: {
    include: ["test/conformance/surfaces.test.ts", "test/conformance/variants-*.test.ts", "test/package/client-under-gc.test.ts"],
    exclude: ["**/node_modules/**"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    maxWorkers: 2,
    // One temporary root per run, removed at its end even when tests fail (test/support/temp-root.ts).
    globalSetup: ["test/support/temp-root.ts"],
  },
});
