/** Report formats: human lines (last line `N passed, N failed, N skipped`), JUnit XML and JSON. */
import type { Report } from "./run.ts";

export function human(report: Report): string {
  const lines: string[] = [];
  for (const r of report.results) {
    const mark = r.status === "passed" ? "PASS" : r.status === "failed" ? "FAIL" : "SKIP";
    lines.push(`${mark} ${r.name} - ${r.description}${r.status === "skipped" ? ` (skipped: ${r.reason})` : ""} [${(r.durationMs / 1000).toFixed(1)} s]`);
    if (r.status === "failed") {
      lines.push(`     ${r.reason}`);
      if (r.curl) lines.push(`     reproduce: ${r.curl}`);
      if (r.details !== undefined) lines.push(`     evidence: ${JSON.stringify(r.details).slice(0, 2000)}`);
      lines.push(`     replay: --seed ${report.seed} --only ${r.name}`);
    }
    for (const note of r.notes) lines.push(`     note: ${note}`);
  }
  lines.push(`${report.requests} requests to ${report.baseUrl} in ${(report.durationMs / 1000).toFixed(1)} s, seed ${report.seed}`);
  lines.push(`${report.passed} passed, ${report.failed} failed, ${report.skipped} skipped`);
  return lines.join("\n");
}

const xml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

export function junit(report: Report): string {
  const cases = report.results.map((r) => {
    const open = `  <testcase classname="conformance" name="${xml(r.name)}" time="${(r.durationMs / 1000).toFixed(3)}">`;
    if (r.status === "skipped") return `${open}<skipped message="${xml(r.reason ?? "")}"/></testcase>`;
    if (r.status === "failed") return `${open}<failure message="${xml(r.reason ?? "")}">${xml([r.curl, JSON.stringify(r.details), `--seed ${report.seed} --only ${r.name}`].filter(Boolean).join("\n"))}</failure></testcase>`;
    return `${open}</testcase>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuite name="project-data-api-conformance" tests="${report.results.length}" failures="${report.failed}" skipped="${report.skipped}" time="${(report.durationMs / 1000).toFixed(3)}">\n${cases.join("\n")}\n</testsuite>\n`;
}

export const json = (report: Report) => JSON.stringify(report, null, 2) + "\n";
