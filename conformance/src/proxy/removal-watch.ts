/**
 * GET /v1/experiments past the seed's day ("removed after July 1, 2026"): served and removed are both right, and which
 * it is decides what its other answers owe. A served endpoint's every answer (a 401 included) carries the deprecation
 * headers, and without a key it answers 401; a removed one's answers owe no announcement, and one without a key may
 * be 404 or 410 as well as 401. The proxy learns which from the traffic: a 200 says served, a 404 or 410 to a request
 * with a key says removed. Until it knows, the verdicts that depend on it wait (at most MAX_WAITING; said when more
 * come), and at the report those still waiting are said not judged. Before the day, or on any other path, nothing
 * waits: deprecation.ts and the auth judge decide at once.
 */
import { deprecationVerdicts, REMOVABLE_FROM } from "../judge/deprecation.ts";
import type { Rule } from "../rules.ts";
import type { Exchange } from "./exchange.ts";
import type { Findings } from "./findings.ts";
import type { Deferred, Verdicts } from "./judge.ts";
import { acrossRules } from "./rules.ts";

const MAX_WAITING = 200;

interface Waiting {
  rule: Rule;
  ex: Exchange;
  message: string;
  /** Whether it holds if the endpoint is served, and if it is removed (null: owed nothing then). */
  served: boolean;
  removed: boolean | null;
}

export class RemovalWatch implements Deferred {
  private state: "served" | "removed" | null = null;
  private waiting: Waiting[] = [];
  private dropped = 0;
  private said = 0;
  private lastDropped = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** Whether the watch judges this exchange: GET /v1/experiments on or after the first day it may be gone. */
  handles(ex: Exchange): boolean {
    return ex.method === "GET" && ex.path === "/v1/experiments" && this.now() >= REMOVABLE_FROM;
  }

  /** The exchange's deprecation headers and, without a project key, its auth answer: now if the state is known. */
  judge(ex: Exchange, out: Verdicts): void {
    if (ex.status === 200) this.learn("served", out);
    else if (ex.key !== null && (ex.status === 404 || ex.status === 410)) this.learn("removed", out);
    // A 404 or 410 is a removal's answer, owed nothing either way (deprecation.ts returns no verdict for it).
    for (const [rule, ok, message] of deprecationVerdicts(ex.method, ex.url, ex.status, ex.responseHeaders)) this.decide({ rule, ex, message, served: ok, removed: null }, out);
    if (ex.key === null || !ex.key.startsWith("svc_live_")) {
      const message = `${ex.method} ${ex.url} with ${ex.key === null ? "no key" : "a key without the svc_live_ prefix"} answered ${ex.status}, not 401${this.state === "removed" ? " (nor 404 or 410, as the removed endpoint may)" : ""}`;
      this.decide({ rule: acrossRules["auth-first"], ex, message, served: ex.status === 401, removed: [401, 404, 410].includes(ex.status) }, out);
    }
  }

  /**
   * Notes what still waits, at a report: the traffic has not shown whether the endpoint is served or removed. Nothing is
   * let go (a report may be asked for while the proxy runs on), and a count is said once.
   */
  report(findings: Findings): void {
    const count = new Set(this.waiting.map((w) => w.ex.seq)).size + this.dropped;
    if (count === 0 || count === this.said) return;
    this.said = count;
    findings.note(`${count} answer(s) of GET /v1/experiments (without a key, or an error) not judged for the deprecation headers or the 401: past July 1, 2026 it may be served or removed, and the traffic showed neither (a 200, or a 404 or 410 with a key)`);
  }

  private decide(w: Waiting, out: Verdicts): void {
    if (this.state === null) {
      if (this.waiting.length < MAX_WAITING) this.waiting.push(w);
      else if (w.ex.seq !== this.lastDropped) {
        this.dropped++;
        this.lastDropped = w.ex.seq;
      }
      return;
    }
    const ok = this.state === "served" ? w.served : w.removed;
    if (ok !== null) out.verdict("implementation", w.rule, ok, w.message, w.ex);
  }

  /** The endpoint's state as the latest telling answer shows it; what waited is judged by it. */
  private learn(state: "served" | "removed", out: Verdicts): void {
    this.state = state;
    const waiting = this.waiting;
    this.waiting = [];
    for (const w of waiting) this.decide(w, out);
  }
}
