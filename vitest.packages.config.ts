import { defineConfig } from "vitest/config";

// The install matrices (`npm run test:packages`): every tarball alone in a fresh project, and fresh React Native apps.
// Slow (minutes of npm installs), so they run beside `npm test` in .ci/run rather than inside it.
export default defineConfig({
  test: {
    include: ["test/package/**/*.test.ts"],
    exclude: ["**/node_modules/**"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    maxWorkers: 2,
    // One temporary root per run, removed at its end even when tests fail (test/support/temp-root.ts).
    globalSetup: ["test/support/temp-root.ts"],
  },
});
