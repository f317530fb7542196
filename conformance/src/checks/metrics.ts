/**
 * metrics (--metrics-engine MODULE): the laws and hand-computed cases of the success metrics, run against the
 * engine module given. Loaded by path at run time, never imported statically. Without the option the check
 * is not applicable: the suite talks HTTP and the API has no metrics endpoint.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import fc from "fast-check";
import { NotApplicable, type Check } from "../check.ts";
import { metricCases } from "../metrics/cases.ts";
import type { MetricsEngine } from "../metrics/engine.ts";
import { metricLaws } from "../metrics/laws.ts";
import { contract, rules, seed } from "../rules.ts";

const r = rules("metrics", {
  "zero-filled": seed("Success metrics: the denominator is every exposed user, zero-filled", "every metric divides by all exposed users, and a user who never fired the event counts as 0 (adding one lowers or keeps the metric; unexposed users change nothing)", ["metrics.zero-filled", "metrics.mean-over-exposed"]),
  conversion: seed("Success metrics: Conversion", "conversion is users who fired the event at least once over users exposed, whatever the volume", ["metrics.conversion", "metrics.conversion-volume"]),
  "events-per-user": seed("Success metrics: Events per user", "events per user is the sum of events over users exposed, non-participants included", ["metrics.events-per-user", "metrics.mean-over-exposed"]),
  "per-active-day": seed("Success metrics: Events per user per active day", "events per user per active day is the sum over users of events / active days, over users exposed", ["metrics.per-active-day"]),
  retention: seed("Success metrics: Retention", "retention is users meeting the threshold within the window over users exposed", ["metrics.retention"]),
  "pinned-rules": contract("metrics rules", "earliest exposure, users in two variants excluded, windows from each exposure, UTC active days, as-of maturity, the active-day definition, null when nobody is exposed, input errors naming the field"),
});

/** Laws and cases about the rules DESIGN pins (exposure, windows, UTC days, null, errors) are contract rules. */
const PINNED = /earliest exposure|exactly at exposure|two variants|before (its user's )?exposure|window ends|windows start|null|UTC|as of|any_event|active-day|threshold below|unknown metric|missing|negative|unparseable|zone/i;
const BY_TYPE = { conversion: r.conversion, events_per_user: r["events-per-user"], events_per_user_per_active_day: r["per-active-day"], retention: r.retention } as const;

/** The seed rule a law speaks to, by what its name says. */
function lawRule(name: string) {
  if (PINNED.test(name)) return r["pinned-rules"];
  if (/zeros|never exposed|exposed user with no events/i.test(name)) return r["zero-filled"];
  if (/^retention/i.test(name)) return r.retention;
  if (/^conversion is unchanged/i.test(name)) return r.conversion;
  return /per active day/i.test(name) ? r["per-active-day"] : r["events-per-user"];
}

export const metricsCheck: Check = {
  name: "metrics",
  description: "the metric formulas' laws and hand-computed cases hold for the engine module",
  rules: r,
  async run(ctx) {
    if (!ctx.options.metricsEngine) throw new NotApplicable("no --metrics-engine MODULE given (the API has no metrics endpoint to test over HTTP)");
    const path = resolve(process.cwd(), ctx.options.metricsEngine);
    ctx.must(r["zero-filled"], existsSync(path), `no metrics engine at ${path}`);
    const engine = (await import(pathToFileURL(path).href)) as MetricsEngine;
    ctx.must(r["zero-filled"], typeof engine.computeMetric === "function", `${path} exports no computeMetric`);
    for (const law of metricLaws(engine)) {
      const res = await fc.check(law.property, { seed: ctx.options.seed, numRuns: Math.max(ctx.options.runs * 3, 50) });
      ctx.expect(lawRule(law.name), !res.failed, `law "${law.name}" fails: ${(res.errorInstance as Error)?.message}`, undefined, res.failed ? { counterexample: res.counterexample, seed: res.seed, path: res.counterexamplePath } : undefined);
    }
    for (const c of metricCases) {
      const rule = PINNED.test(`${c.name} ${c.why}`) ? r["pinned-rules"] : BY_TYPE[c.definition.type];
      let result: any;
      let error: any;
      try {
        result = await engine.computeMetric(c.definition, c.data, c.options);
      } catch (e) {
        error = e;
      }
      if (c.errorField) {
        ctx.expect(rule, error && String(error.message).includes(c.errorField), `case "${c.name}": expected an error naming ${c.errorField}, got ${error ? error.message : "no error"}`, undefined, c);
        continue;
      }
      if (!ctx.expect(rule, !error, `case "${c.name}": threw ${error?.message}`, undefined, c)) continue;
      for (const [v, want] of Object.entries(c.expected!.variants)) {
        const got = result.variants?.[v];
        const ok = got && got.denominator === want.denominator && Math.abs(got.numerator - want.numerator) < 1e-9 && (want.value === null ? got.value === null : Math.abs(got.value - want.value) < 1e-9);
        ctx.expect(rule, ok, `case "${c.name}" (${c.why}): variant ${v} expected ${JSON.stringify(want)}, got ${JSON.stringify(got)}`, undefined, c.data);
      }
      ctx.expect(rule, result.excluded_users === c.expected!.excluded_users, `case "${c.name}": excluded_users ${result.excluded_users}, expected ${c.expected!.excluded_users}`, undefined, c.data);
      if (c.expected!.immature_users !== undefined) ctx.expect(rule, result.immature_users === c.expected!.immature_users, `case "${c.name}": immature_users ${result.immature_users}, expected ${c.expected!.immature_users}`, undefined, c.data);
    }
  },
};
