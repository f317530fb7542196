/**
 * Replaying a property failure: every random-seed property test passes these options to fc.assert, so the seed and
 * path that fast-check prints on failure replay it exactly with `FC_SEED=<seed> FC_PATH=<path> npx vitest run <file>`.
 */
export function replayOptions(): { seed?: number; path?: string; endOnFailure?: boolean } {
  const seed = process.env.FC_SEED;
  if (seed === undefined || seed === "") return {};
  const path = process.env.FC_PATH;
  return { seed: Number(seed), ...(path ? { path, endOnFailure: true } : {}) };
}
