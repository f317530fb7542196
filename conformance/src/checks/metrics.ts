/**
 * metrics: the laws and hand-computed cases of the success metrics, run against the engine module given by
 * --metrics-engine (default: this package's). Loaded by path at run time, never imported statically.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import fc from "fast-check";
import { Skip, type Check } from "../check.ts";
import { CheckFailure } from "../http.ts";
import { metricCases } from "../metrics/cases.ts";
import type { MetricsEngine } from "../metrics/engine.ts";
import { metricLaws } from "../metrics/laws.ts";

export const DEFAULT_ENGINE = "server/src/metrics/index.ts";
const root = fileURLToPath(new URL("../../../", import.meta.url));

export const metricsCheck: Check = {
  name: "metrics",
  description: "the metric formulas' laws and hand-computed cases hold for the engine module",
  async run(ctx) {
    const path = resolve(root, ctx.options.metricsEngine ?? DEFAULT_ENGINE);
    if (!existsSync(path)) throw new Skip(`no metrics engine at ${path}`);
    const engine = (await import(pathToFileURL(path).href)) as MetricsEngine;
    if (typeof engine.computeMetric !== "function") throw new Skip(`${path} exports no computeMetric`);
    for (const law of metricLaws(engine)) {
      const r = fc.check(law.property, { seed: ctx.options.seed, numRuns: Math.max(ctx.options.runs * 3, 50) });
      if (r.failed) throw new CheckFailure(`law "${law.name}" fails: ${(r.errorInstance as Error)?.message}`, { details: { counterexample: r.counterexample, seed: r.seed, path: r.counterexamplePath } });
    }
    for (const c of metricCases) {
      let result: any;
      let error: any;
      try {
        result = engine.computeMetric(c.definition, c.data);
      } catch (e) {
        error = e;
      }
      if (c.errorField) {
        if (!error || !String(error.message).includes(c.errorField)) throw new CheckFailure(`case "${c.name}": expected an error naming ${c.errorField}, got ${error ? error.message : "no error"}`, { details: c });
        continue;
      }
      if (error) throw new CheckFailure(`case "${c.name}": threw ${error.message}`, { details: c });
      for (const [v, want] of Object.entries(c.expected!.variants)) {
        const got = result.variants?.[v];
        const ok = got && got.denominator === want.denominator && Math.abs(got.numerator - want.numerator) < 1e-9 && (want.value === null ? got.value === null : Math.abs(got.value - want.value) < 1e-9);
        if (!ok) throw new CheckFailure(`case "${c.name}" (${c.why}): variant ${v} expected ${JSON.stringify(want)}, got ${JSON.stringify(got)}`, { details: c.data });
      }
      if (result.excluded_users !== c.expected!.excluded_users) throw new CheckFailure(`case "${c.name}": excluded_users ${result.excluded_users}, expected ${c.expected!.excluded_users}`, { details: c.data });
    }
  },
};
