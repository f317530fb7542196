/**
 * Report formats: human lines (the summary ends `N passed, N failed, N not tested`), JUnit XML and JSON.
 * Every failure names its rule and level; NOT TESTED parts are listed in the summary, never hidden in notes.
 */
import type { Finding } from "./check.ts";
import type { Report } from "./run.ts";
import { verdictCounts } from "./seed/verdicts.ts";

const MARK = { passed: "PASS", failed: "FAIL", not_tested: "NOT TESTED", not_applicable: "N/A" } as const;

function finding(f: Finding, seed: number | null, check: string, warning: boolean): string[] {
  const lines = [`     ${warning ? "warning" : "✗"} [${f.level}] ${f.rule}: ${f.message}`];
  if (f.curl) lines.push(`       reproduce: ${f.curl}`);
  if (f.details !== undefined) lines.push(`       evidence: ${JSON.stringify(f.details).slice(0, 1500)}`);
  if (!warning && seed !== null) lines.push(`       replay: --seed ${seed} --only ${check}`);
  return lines;
}

/** "3 studies, 12 interviews, 1 project" */
function summarize(items: Report["created"]): string {
  const counts = new Map<string, number>();
  for (const i of items) counts.set(i.kind, (counts.get(i.kind) ?? 0) + 1);
  return [...counts].map(([kind, n]) => `${n} ${n === 1 ? kind : kind === "study" ? "studies" : kind === "faults" ? kind : `${kind}s`}`).join(", ");
}

export function human(report: Report): string {
  const lines: string[] = [];
  for (const r of report.results) {
    const why = r.status === "not_tested" || r.status === "not_applicable" ? ` (${r.reason})` : r.reason ? ` (${r.reason})` : "";
    lines.push(`${MARK[r.status]} ${r.name} - ${r.description}${why} [${(r.durationMs / 1000).toFixed(1)} s]`);
    const seed = report.kind === "proxy" ? null : report.seed;
    for (const f of r.failures) lines.push(...finding(f, seed, r.name, false));
    for (const w of r.warnings) lines.push(...finding(w, seed, r.name, true));
    for (const u of r.untested) if (r.status !== "not_tested") lines.push(`     NOT TESTED: ${u.capability} (${u.reason})`);
    for (const note of r.notes) lines.push(`     note: ${note}`);
    for (const p of r.properties) if (p.cut) lines.push(`     warning: ${p.label} ran ${p.ran} of ${p.asked} cases: its ${p.limitMs / 1000} s limit stopped it`);
  }
  lines.push("");
  lines.push(`level ${report.level}: seed rules ${report.levels.seed.checked} checked, ${report.levels.seed.failed} failed; contract rules ${report.levels.contract.checked} checked, ${report.levels.contract.failed} ${report.level === "seed" ? "differ (warnings, not enforced at --level seed)" : "failed"}`);
  if (report.untested.length) {
    lines.push(`NOT TESTED (${report.untested.length}):`);
    for (const u of report.untested) lines.push(`  - ${u}`);
    lines.push(report.exitCode === 3 ? "The run is not green while parts are NOT TESTED: provide what each line asks, or pass --allow-untested." : "(--allow-untested: these do not change the exit code)");
  }
  const missing = report.states.capabilities.filter((c) => !c.offered);
  lines.push(`states: ${report.states.source}; ${report.states.capabilities.length - missing.length} of ${report.states.capabilities.length} capabilities offered${missing.length ? `; missing: ${missing.map((c) => c.capability).join(", ")}` : ""}`);
  for (const c of missing) lines.push(`  - ${c.capability}: ${c.why}`);
  const unsettled = report.states.capabilities.filter((c) => c.settled === false);
  if (unsettled.length) lines.push(`  not settled, counted as offered (${unsettled.length}): ${unsettled.map((c) => `${c.capability} (${c.decided})`).join("; ")}`);
  if (report.rateLimited?.requests) {
    lines.push(`NOTE: the target answered 429 (rate limited) ${report.rateLimited.requests} time(s); each request was sent again after the wait it asked (Retry-After), ${(report.rateLimited.waitedMs / 1000).toFixed(1)} s in all`);
  }
  if (report.cutShort.length) {
    lines.push(`WARNING: ${report.cutShort.length} propert${report.cutShort.length === 1 ? "y" : "ies"} ran fewer cases than asked:`);
    for (const c of report.cutShort) lines.push(`  - ${c}`);
  }
  if (report.created.length) {
    const kept = report.created.filter((c) => !c.removed);
    lines.push(`created by this run (${report.runId}, in every name it gave): ${report.created.length}, removed afterwards ${report.created.length - kept.length}${kept.length ? ` (the rest cannot be removed through the API: ${summarize(kept)})` : ""}`);
  }
  const v = verdictCounts(report.statements);
  lines.push(`seed statements: ${v.passed} passed, ${v.failed} failed, ${v.not_tested} not tested, ${v.excused} excused (of ${report.statements.length}; --report html FILE lists each)`);
  lines.push(report.kind === "proxy" ? `${report.requests} exchanges through the proxy to ${report.baseUrl} in ${(report.durationMs / 1000).toFixed(1)} s` : `${report.requests} requests to ${report.baseUrl} in ${(report.durationMs / 1000).toFixed(1)} s, seed ${report.seed}`);
  const cut = report.cutShort.length ? `, ${report.cutShort.length} cut short by their time limit (--property-time-ms, --model-budget-ms)` : "";
  lines.push(`${report.passed} passed, ${report.failed} failed, ${report.notTested} not tested, ${report.notApplicable} not applicable, ${report.warnings} warnings${cut}`);
  return lines.join("\n");
}

const xml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

export function junit(report: Report): string {
  const text = (fs: Finding[]) => fs.map((f) => [`[${f.level}] ${f.rule}: ${f.message}`, f.curl, f.details === undefined ? undefined : JSON.stringify(f.details)].filter(Boolean).join("\n")).join("\n\n");
  const cases = report.results.map((r) => {
    const props = `<properties><property name="seed.checked" value="${r.levels.seed.checked}"/><property name="seed.failed" value="${r.levels.seed.failed}"/><property name="contract.checked" value="${r.levels.contract.checked}"/><property name="contract.failed" value="${r.levels.contract.failed}"/></properties>`;
    const open = `  <testcase classname="conformance" name="${xml(r.name)}" time="${(r.durationMs / 1000).toFixed(3)}">${props}`;
    const out = r.warnings.length || r.untested.length ? `<system-out>${xml([...r.untested.map((u) => `NOT TESTED: ${u.capability} (${u.reason})`), text(r.warnings)].filter(Boolean).join("\n"))}</system-out>` : "";
    if (r.status === "not_tested" || r.status === "not_applicable") return `${open}<skipped message="${xml(`${r.status === "not_tested" ? "NOT TESTED" : "not applicable"}: ${r.reason ?? ""}`)}"/>${out}</testcase>`;
    if (r.status === "failed") return `${open}<failure message="${xml(r.failures[0]?.message ?? r.reason ?? "")}">${xml(`${text(r.failures)}\n--seed ${report.seed} --only ${r.name}`)}</failure>${out}</testcase>`;
    return `${open}${out}</testcase>`;
  });
  const props = `  <properties><property name="level" value="${report.level}"/><property name="seed" value="${report.seed}"/><property name="seed.checked" value="${report.levels.seed.checked}"/><property name="seed.failed" value="${report.levels.seed.failed}"/><property name="contract.checked" value="${report.levels.contract.checked}"/><property name="contract.failed" value="${report.levels.contract.failed}"/><property name="contract.warned" value="${report.levels.contract.warned}"/><property name="not_tested" value="${report.notTested}"/></properties>`;
  const checksSuite = `<testsuite name="project-data-api-conformance" tests="${report.results.length}" failures="${report.failed}" skipped="${report.notTested + report.notApplicable}" time="${(report.durationMs / 1000).toFixed(3)}">\n${props}\n${cases.join("\n")}\n</testsuite>`;
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="project-data-api-conformance">\n${checksSuite}\n${statementsSuite(report)}\n</testsuites>\n`;
}

/** One test case per seed statement: failed with its evidence, skipped when not tested or excused (with why). */
function statementsSuite(report: Report): string {
  const counts = verdictCounts(report.statements);
  const cases = report.statements.map((s) => {
    const open = `  <testcase classname="seed.${xml(s.section)}" name="${xml(`${s.id}: ${s.quote}`)}">`;
    const reached = [s.rules.map((r) => `${r.id}: ${r.outcome}`).join("\n"), s.reachedBy.length ? `reached by: ${s.reachedBy.join(", ")}` : ""].filter(Boolean).join("\n");
    const out = reached ? `<system-out>${xml(reached)}</system-out>` : "";
    if (s.verdict === "failed") {
      const text = s.failures.map((f) => [`${f.rule}: ${f.message}`, f.curl, f.details === undefined ? undefined : JSON.stringify(f.details)].filter(Boolean).join("\n")).join("\n\n");
      return `${open}<failure message="${xml(s.failures[0]?.message ?? "")}">${xml(`${text}\n--seed ${report.seed}`)}</failure>${out}</testcase>`;
    }
    if (s.verdict === "not_tested") return `${open}<skipped message="${xml(`NOT TESTED: ${s.reason ?? ""}`)}"/>${out}</testcase>`;
    if (s.verdict === "excused") return `${open}<skipped message="${xml(`excused: ${s.reason ?? ""}`)}"/></testcase>`;
    return `${open}${out}</testcase>`;
  });
  return `<testsuite name="seed-statements" tests="${report.statements.length}" failures="${counts.failed}" skipped="${counts.not_tested + counts.excused}">\n${cases.join("\n")}\n</testsuite>`;
}

export const json = (report: Report) => JSON.stringify(report, null, 2) + "\n";
