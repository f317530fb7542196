import { defineConfig } from "vitest/config";

// Several sandbox processes on one PostgreSQL (`npm run test:cluster`): Debian's PostgreSQL and nginx, installed by
// scripts/deploy/install-postgresql.sh when missing, started by each test in a temporary directory. The shared
// behaviour tests of the three stores, the processes behind the compose file's proxy, and the 5-minute kill -9 run.
// .ci/run runs it beside the install matrices, whose time is mostly npm's downloads.
export default defineConfig({
  test: {
    include: ["server/test/cluster/**/*.test.ts"],
    exclude: ["**/node_modules/**"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    maxWorkers: 1,
    fileParallelism: false,
    globalSetup: ["test/support/temp-root.ts"],
  },
});
