/**
 * What a conformance run's JSON report (`--report json FILE`) says failed: each failed check with its failures' rules
 * and messages on one line, so that the diff of an assertion on them, which a CI log keeps when it cuts a long message
 * or the run's output, still says why.
 */
import { readFileSync } from "node:fs";

export function failedChecks(reportFile: string): { failed: string[]; passed: number } {
  const report = JSON.parse(readFileSync(reportFile, "utf8")) as { results: Array<{ name: string; status: string; failures: Array<{ rule: string; message: string }> }>; passed: number };
  const failed = report.results.filter((c) => c.status === "failed").map((c) => [c.name, ...c.failures.map((f) => `${f.rule}: ${f.message}`.slice(0, 1_500))].join(" | "));
  return { failed, passed: report.passed };
}
