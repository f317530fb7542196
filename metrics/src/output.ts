/**
 * The command line's three outputs of one run: a table for people (the default on a terminal), JSON (the default
 * when piped: the whole result, nothing rounded) and CSV (one row per arm, for a spreadsheet). Each states the
 * analysis time used, and the sample ratio check comes first.
 */
import Table from "cli-table3";
import { stringify } from "csv-stringify/sync";
import type { ArmComparison, ReadOut } from "./arms.ts";
import type { MetricResult } from "./types.ts";

export interface Run {
  result: MetricResult;
  readOut?: ReadOut;
}

/**
 * JSON has no NaN or Infinity, and JSON.stringify writes them as null, which reads as "no value". A non-finite number
 * (a chi-square against a split weight of 1e-320 is Infinity) is written as its name instead, in JSON and in CSV.
 */
const finiteOrName = (_: string, v: unknown) => (typeof v === "number" && !Number.isFinite(v) ? String(v) : v);

export function toJson({ result, readOut }: Run): string {
  return JSON.stringify(readOut ? { srm: readOut.srm, result, comparisons: readOut.comparisons } : { result }, finiteOrName, 2);
}

const pct = (x: number | null | undefined, digits = 2) => (x === null || x === undefined ? "n/a" : `${(x * 100).toFixed(digits)}%`);
const num = (x: number | null | undefined) => (x === null || x === undefined ? "n/a" : Number.isInteger(x) ? String(x) : x.toPrecision(4));
const pValue = (p: number | null | undefined) => (p === null || p === undefined ? "n/a" : p < 0.0001 ? "<0.0001" : p.toFixed(4));
const interval = (ci: [number, number] | null, f: (x: number) => string) => (ci ? `[${f(ci[0])}, ${f(ci[1])}]` : "n/a");

const asOfLine = (r: MetricResult) =>
  r.as_of === null ? "as of: no data, so no analysis time" : `as of: ${r.as_of}${r.as_of_source === "data" ? " (just after the data's last timestamp; set --as-of to choose)" : ""}`;

export function toTable({ result, readOut }: Run): string {
  const lines: string[] = [];
  const proportion = result.metric === "conversion" || result.metric === "retention";
  const value = (x: number | null) => (proportion ? pct(x) : num(x));
  if (readOut) {
    const s = readOut.srm;
    const counts = Object.entries(s.observed).map(([a, n]) => `${a} ${n} (expected ${s.expected[a].toFixed(1)})`).join(", ");
    lines.push(s.not_estimable
      ? `Sample ratio: not estimable (${s.not_estimable})`
      : `Sample ratio: ${s.mismatch ? "MISMATCH" : "ok"}: p = ${pValue(s.p_value)}, chi-square ${s.chi_square!.toFixed(3)} on ${s.df} df; ${counts}`);
    if (s.mismatch) lines.push("  The arms' sizes do not match the configured split (p < 0.001): check assignment and logging before reading any lift.");
  }
  lines.push(`${result.metric} of "${result.event}", ${asOfLine(result)}`);
  lines.push(`excluded users (in two variants): ${result.excluded_users}; immature users (window still open): ${result.immature_users}`);
  const byTreatment = new Map<string, ArmComparison>((readOut?.comparisons ?? []).map((c) => [c.treatment, c]));
  const level = readOut?.comparisons[0]?.confidence;
  const table = new Table({
    head: ["arm", "users", "value", ...(readOut ? ["lift", `${level !== undefined ? Math.round(level * 1000) / 10 : 95}% interval`, "relative lift", "p-value", "p (Holm)", "note"] : [])],
    style: { head: [], border: [] },
  });
  const control = readOut?.comparisons[0]?.control;
  for (const [arm, v] of Object.entries(result.variants)) {
    const c = byTreatment.get(arm);
    const row = [arm, String(v.denominator), value(v.value)];
    if (readOut) {
      if (arm === control) row.push("(control)", "", "", "", "", "");
      else if (c) {
        const f = proportion ? (x: number) => pct(x) : num;
        row.push(
          c.absolute_lift === null ? "n/a" : proportion ? pct(c.absolute_lift) : num(c.absolute_lift),
          interval(c.ci.absolute, f),
          c.relative_lift === null ? "n/a" : `${pct(c.relative_lift, 1)} ${interval(c.ci.relative, (x) => pct(x, 1))}`,
          pValue(c.p_value),
          pValue(c.p_adjusted),
          [c.not_estimable, c.cuped ? `CUPED: variance -${pct(c.cuped.variance_reduction, 1)}` : undefined, c.sequential ? `sequential (N* ${c.sequential.tuning}): valid at every peek` : undefined].filter(Boolean).join("; "),
        );
      } else row.push("", "", "", "", "", "not compared");
    }
    table.push(row);
  }
  lines.push(Object.keys(result.variants).length ? table.toString() : "no exposed users: nothing to compare");
  return lines.join("\n");
}

export function toCsv({ result, readOut }: Run): string {
  const byTreatment = new Map<string, ArmComparison>((readOut?.comparisons ?? []).map((c) => [c.treatment, c]));
  const control = readOut?.comparisons[0]?.control;
  const rows = Object.entries(result.variants).map(([arm, v]) => {
    const c = byTreatment.get(arm);
    return {
      metric: result.metric, event: result.event, as_of: result.as_of ?? "", as_of_source: result.as_of_source,
      arm, role: arm === control ? "control" : c ? "treatment" : "", users: v.denominator, value: v.value ?? "",
      absolute_lift: c?.absolute_lift ?? "", absolute_ci_low: c?.ci.absolute?.[0] ?? "", absolute_ci_high: c?.ci.absolute?.[1] ?? "",
      relative_lift: c?.relative_lift ?? "", relative_ci_low: c?.ci.relative?.[0] ?? "", relative_ci_high: c?.ci.relative?.[1] ?? "",
      confidence: c?.confidence ?? "", p_value: c?.p_value ?? "", p_adjusted: c?.p_adjusted ?? "", method: c?.method ?? "",
      cuped_variance_reduction: c?.cuped?.variance_reduction ?? "", not_estimable: c?.not_estimable ?? "",
      srm_p_value: readOut?.srm.p_value ?? "", srm_mismatch: readOut ? String(readOut.srm.mismatch) : "",
      excluded_users: result.excluded_users, immature_users: result.immature_users,
    };
  });
  const columns = ["metric", "event", "as_of", "as_of_source", "arm", "role", "users", "value", "absolute_lift", "absolute_ci_low", "absolute_ci_high", "relative_lift", "relative_ci_low", "relative_ci_high", "confidence", "p_value", "p_adjusted", "method", "cuped_variance_reduction", "not_estimable", "srm_p_value", "srm_mismatch", "excluded_users", "immature_users"];
  // A text cell a spreadsheet would run as a formula (=, +, -, @, or a tab or carriage return first: OWASP's CSV
  // injection list) gets a leading apostrophe. Arm, metric and event names come from the data; numbers are written
  // as numbers and never touched, so a negative lift stays a number.
  const safe = rows.map((row) => Object.fromEntries(Object.entries(row).map(([k, raw]) => {
    const v = finiteOrName(k, raw);
    return [k, typeof v === "string" && /^[=+\-@\t\r]/.test(v) ? `'${v}` : v];
  })));
  return stringify(safe, { header: true, columns }).trimEnd();
}
