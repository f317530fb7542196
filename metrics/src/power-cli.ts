/**
 * `api-metrics power`: the per-arm sample size and the expected duration of an experiment, before it runs
 * (power.ts: R's power.prop.test and power.t.test).
 */
import { Command, InvalidArgumentError, Option } from "commander";
import { sampleSize, type PowerInput, type PowerResult } from "./power.ts";
import { MetricInputError } from "./validate.ts";

const number = (what: string) => (v: string) => {
  const n = Number(v);
  if (v.trim() === "" || !Number.isFinite(n)) throw new InvalidArgumentError(`must be a number (${what})`);
  return n;
};

function table(r: PowerResult & { metric_inferred?: string }): string {
  const fmt = (n: number) => n.toLocaleString("en-US");
  const value = (v: number) => (r.metric === "conversion" ? `${(v * 100).toFixed(2)}%` : String(v));
  const lines = [
    ...(r.metric_inferred ? [`Metric: ${r.metric_inferred} (--metric to choose)`] : []),
    `Sample size (${r.method}): baseline ${value(r.baseline)}, detect ${value(r.target)} (${r.mde_absolute >= 0 ? "+" : ""}${r.metric === "conversion" ? `${(r.mde_absolute * 100).toFixed(2)} points` : r.mde_absolute}), alpha ${r.alpha} two-sided${r.arms > 2 ? ` (${r.alpha_per_comparison.toPrecision(3)} per comparison, Bonferroni)` : ""}, power ${r.power}, ${r.arms} arms`,
    `users per arm  ${fmt(r.users_per_arm)}  (exact root ${r.n_exact.toFixed(4)})`,
    `total users    ${fmt(r.total_users)}`,
  ];
  if (r.days !== undefined) lines.push(`duration       ${fmt(r.days)} day${r.days === 1 ? "" : "s"}`);
  return lines.join("\n");
}

export function powerCommand(): Command {
  return new Command("api-metrics power")
    .description("per-arm sample size and expected duration for a conversion or a mean metric (R's power.prop.test / power.t.test)")
    .addOption(new Option("--metric <kind>", "conversion (a rate) or mean (a per-user mean); default: mean with --sd, else conversion").choices(["conversion", "mean"]))
    .requiredOption("--baseline <x>", "the control's rate (0-1) or mean", number("the control's rate or mean"))
    .option("--sd <x>", "for a mean: the per-user standard deviation", number("a standard deviation"))
    .requiredOption("--mde <x>", "minimum detectable effect: absolute (0.01 = one point), or relative with --relative (0.05 = +5%)", number("an effect"))
    .option("--relative", "--mde is relative to the baseline", false)
    .option("--alpha <x>", "false-positive rate, two-sided", number("a probability"), 0.05)
    .option("--power <x>", "the chance of detecting the effect when it is there", number("a probability"), 0.8)
    .option("--arms <n>", "arms, control included (each treatment against the control, alpha Bonferroni-split)", number("a count"), 2)
    .option("--daily-users <n>", "users entering the experiment per day, all arms together: gives the duration", number("a count"))
    .addOption(new Option("--format <format>", "output: table (default on a terminal) or json (default when piped)").choices(["table", "json"]))
    .allowExcessArguments(false)
    .action((o) => {
      if (o.metric === "mean" && o.sd === undefined) throw new MetricInputError("--sd", "is required for a mean metric (the per-user standard deviation)");
      if (o.metric === "conversion" && o.sd !== undefined) throw new MetricInputError("--sd", "applies to a mean metric, not a conversion");
      // The kind follows from the options: only a mean has a standard deviation. A baseline outside (0, 1) without
      // --sd is not a rate: a mean whose --sd is missing, said as such rather than as a bad rate.
      const metric: "conversion" | "mean" = o.metric ?? (o.sd !== undefined ? "mean" : "conversion");
      if (o.metric === undefined && metric === "conversion" && !(o.baseline > 0 && o.baseline < 1)) {
        throw new MetricInputError("--baseline", `${o.baseline} is not a rate between 0 and 1: for a mean metric, give --sd (the per-user standard deviation); for a rate, a baseline such as 0.1`);
      }
      const input = { metric, baseline: o.baseline, sd: o.sd, mde: o.mde, relative: o.relative, alpha: o.alpha, power: o.power, arms: o.arms, dailyUsers: o.dailyUsers } as PowerInput;
      const result = { ...sampleSize(input), ...(o.metric === undefined ? { metric_inferred: metric === "mean" ? "mean: --sd was given" : "conversion: no --sd" } : {}) };
      const format = o.format ?? (process.stdout.isTTY ? "table" : "json");
      console.log(format === "table" ? table(result) : JSON.stringify(result, null, 2));
    });
}
