import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["**/test/**/*.test.ts", "**/test/**/*.test.tsx"],
    exclude: ["**/node_modules/**"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Tests start real servers on free ports; two workers match the 2-core CI machine.
    maxWorkers: 2,
  },
});
