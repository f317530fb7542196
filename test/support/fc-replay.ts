/**
 * Replaying a property failure: every random-seed property test passes these options to fc.assert, so the seed and
 * path that fast-check prints on failure replay it exactly with `FC_SEED=<seed> FC_PATH=<path> npx vitest run <file>`.
 */
export function replayOptions(): { seed?: number; path?: string; endOnFailure?: boolean; numRuns?: number } {
  // FC_RUNS: more runs than the test's own number, for a soak (`FC_RUNS=12000 npx vitest run mobile/test/model.test.ts`).
  const runs = Number(process.env.FC_RUNS);
  const more = Number.isInteger(runs) && runs > 0 ? { numRuns: runs } : {};
  const seed = process.env.FC_SEED;
  if (seed === undefined || seed === "") return more;
  const path = process.env.FC_PATH;
  return { ...more, seed: Number(seed), ...(path ? { path, endOnFailure: true } : {}) };
}
