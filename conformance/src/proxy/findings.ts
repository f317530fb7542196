/**
 * The proxy's verdicts as they come: one line per problem to the terminal (the first few of each rule, then a count),
 * a progress line, and on exit a report in the suite's format (report.ts, report-html.ts): one result for the
 * implementation, one for the client, and a verdict for every seed statement the traffic reached.
 */
import type { Finding } from "../check.ts";
import { MAX_FAILURES } from "../check.ts";
import { levelTotals, type Level, type Rule } from "../rules.ts";
import type { CheckResult, Report } from "../run.ts";
import { statementsShownBy } from "../seed/scope.ts";
import { statementVerdicts } from "../seed/verdicts.ts";
import { curlOfExchange, type Exchange } from "./exchange.ts";
import type { Party, Verdicts } from "./judge.ts";

/** Lines printed per rule before the rest are only counted. */
const PRINTED_PER_RULE = 5;

interface Tally {
  rule: Rule;
  /** The statements its verdicts could show (a reply of a list shows nothing of a release's fields). */
  shown: Set<string>;
  held: number;
  failed: number;
  findings: Finding[];
}

export interface FindingsOptions {
  target: string;
  level: Level;
  /** Where problem lines go as they happen. */
  print(line: string): void;
}

export class Findings implements Verdicts {
  readonly started = Date.now();
  exchanges = 0;
  private readonly tallies: Record<Party, Map<string, Tally>> = { implementation: new Map(), client: new Map() };
  /** Exchanges with at least one finding, per party. */
  readonly flagged: Record<Party, Set<number>> = { implementation: new Set(), client: new Set() };
  readonly notes: string[] = [];
  unjudged = 0;

  constructor(private readonly o: FindingsOptions) {}

  /** A failure is enforced for the implementation at its level; the client's are reported apart. */
  private enforced(party: Party, rule: Rule): boolean {
    return party === "client" || this.o.level === "contract" || rule.level === "seed";
  }

  verdict(party: Party, rule: Rule, ok: boolean, message: string, ex: Exchange, others: Exchange[] = []): void {
    const tallies = this.tallies[party];
    const t = tallies.get(rule.id) ?? { rule, shown: new Set<string>(), held: 0, failed: 0, findings: [] };
    tallies.set(rule.id, t);
    for (const s of statementsShownBy(rule.cites, ex.operationId)) t.shown.add(s);
    if (ok) {
      t.held++;
      return;
    }
    t.failed++;
    this.flagged[party].add(ex.seq);
    const curl = curlOfExchange(this.o.target, ex);
    const also = others.filter((o) => o.seq !== ex.seq).map((o) => `#${o.seq} ${curlOfExchange(this.o.target, o)}`);
    if (t.findings.length < MAX_FAILURES) t.findings.push({ rule: rule.id, level: rule.level, message: `#${ex.seq}: ${message}`, curl, ...(also.length ? { details: { earlier: also } } : {}) });
    const warn = !this.enforced(party, rule);
    if (t.failed <= PRINTED_PER_RULE) {
      this.o.print(`${party === "client" ? "CLIENT" : warn ? "warning" : "IMPLEMENTATION"} [${rule.level}] ${rule.id}: #${ex.seq} ${message}`);
      this.o.print(`    reproduce: ${curl}`);
      for (const a of also) this.o.print(`    with: ${a}`);
      if (t.failed === PRINTED_PER_RULE) this.o.print(`    (further ${rule.id} findings are counted, not printed)`);
    }
  }

  note(line: string): void {
    this.notes.push(line);
    this.o.print(`note: ${line}`);
  }

  /** "exchanges 120: 117 clean, 2 the implementation's, 1 the client's" */
  progress(): string {
    const clean = this.exchanges - new Set([...this.flagged.implementation, ...this.flagged.client]).size;
    return `exchanges ${this.exchanges}: ${clean} clean, ${this.flagged.implementation.size} with the implementation's problems, ${this.flagged.client.size} with the client's${this.unjudged ? ` (${this.unjudged} bodies not judged)` : ""}`;
  }

  /** Enforced failures of the implementation (its level's), and the client's. */
  failures(party: Party): number {
    return [...this.tallies[party].values()].filter((t) => t.failed && this.enforced(party, t.rule)).reduce((s, t) => s + t.failed, 0);
  }

  private result(party: Party): CheckResult {
    const tallies = [...this.tallies[party].values()];
    const failures = tallies.filter((t) => this.enforced(party, t.rule)).flatMap((t) => t.findings);
    const warnings = tallies.filter((t) => !this.enforced(party, t.rule)).flatMap((t) => t.findings);
    const levels = { seed: { checked: 0, failed: 0 }, contract: { checked: 0, failed: 0 } };
    for (const t of tallies) {
      levels[t.rule.level].checked++;
      if (t.failed) levels[t.rule.level].failed++;
    }
    return {
      name: party, description: party === "implementation" ? `what ${this.o.target} answered, judged against the contract and the seed` : "what the client sent, how it walked lists and retried",
      status: failures.length ? "failed" : "passed", failures, warnings, untested: [], levels, properties: [],
      rules: party === "implementation" ? tallies.map((t) => ({ id: t.rule.id, failed: t.failed > 0, statements: [...t.shown].sort() })) : [], reached: {}, ranToEnd: true,
      notes: [...(party === "implementation" ? this.notes : []), ...tallies.filter((t) => t.failed > t.findings.length).map((t) => `${t.rule.id}: ${t.failed} findings, the first ${t.findings.length} listed`)],
      durationMs: Date.now() - this.started,
    };
  }

  /** The report in the suite's format; exit 1 when the implementation broke an enforced rule (or the client did, with failOnClient). */
  report(failOnClient: boolean, judged: Rule[]): Report {
    const results = [this.result("implementation"), this.result("client")];
    const rules = [...new Map([...judged, ...[...this.tallies.implementation.values()].map((t) => t.rule)].map((r) => [r.id, r])).values()];
    const levels = levelTotals(results);
    const failed = results.filter((r) => r.status === "failed").length;
    const exitCode = this.failures("implementation") > 0 || (failOnClient && this.failures("client") > 0) ? 1 : 0;
    return {
      baseUrl: this.o.target, seed: 0, level: this.o.level, results, passed: results.length - failed, failed, notTested: 0, notApplicable: 0,
      warnings: results.reduce((s, r) => s + r.warnings.length, 0), untested: [], levels,
      statements: statementVerdicts(results, rules, {}).map((s) =>
        s.verdict === "not_tested" ? { ...s, reason: "no exchange through the proxy reached it" } : s.verdict === "excused" && !rules.some((r) => r.cites.includes(s.id)) ? { ...s, reason: "not judged from traffic: no single exchange or sequence of them shows it (the suite, api-conformance, drives what does)" } : s),
      runId: `proxy-${this.started}`, states: { source: "traffic through the proxy (it plants nothing)", capabilities: [] }, created: [], cutShort: [],
      requests: this.exchanges, durationMs: Date.now() - this.started, exitCode, kind: "proxy",
    };
  }
}
