/**
 * The `api-metrics` command as an installed package runs it: the built bundle (metrics/dist/cli.js, what `npx
 * api-metrics` starts), a third of the time and CPU of starting the sources through tsx (0.3 s against 0.8 s). Every
 * layer that spawns it builds the package first (`pretest`, test/support/built-packages.ts), and the build is skipped
 * only while nothing it was built from changed, so the bundle is the sources.
 */
import { join } from "node:path";

export const METRICS_CLI = join(import.meta.dirname, "../dist/cli.js");
