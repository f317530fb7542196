/**
 * Everything the proxy judges, in one place, away from the forwarding: each exchange (judge.ts, memory.ts) and each
 * relayed delivery, into the findings (findings.ts). It runs in the proxy's judge worker (worker.ts), so a large page
 * judged never delays the next request the proxy forwards.
 */
import { capacityCheck } from "../checks/capacity.ts";
import { retriesCheck } from "../checks/retries.ts";
import { badTimestamps, Contract, responseRules } from "../contract.ts";
import { attemptRules, judgeAttempt, signed } from "../judge/attempts.ts";
import { deprecationRules } from "../judge/deprecation.ts";
import { messageErrorRules } from "../judge/messages-errors.ts";
import { paginationRules } from "../judge/pages.ts";
import { SEED_RETRY_DELAYS_MS, SEED_TIMEOUT_MS } from "../judge/timing.ts";
import { truncationRules } from "../judge/truncation.ts";
import type { Delivery } from "../receiver.ts";
import type { Level, Rule } from "../rules.ts";
import type { Report } from "../run.ts";
import { curlOfExchange, type Exchange } from "./exchange.ts";
import { Findings } from "./findings.ts";
import { judgeExchange, replyOf, RequestJudge, SHOWN_RULES } from "./judge.ts";
import { DEFAULT_CAPS, Memory, type Caps } from "./memory.ts";
import { RemovalWatch } from "./removal-watch.ts";
import { RetryWatch } from "./retry-watch.ts";
import { acrossRules, clientRules } from "./rules.ts";

/** Every rule the proxy can judge the implementation by (for the report's statement verdicts). */
export const PROXY_RULES: Rule[] = [
  ...Object.values(responseRules), ...Object.values(deprecationRules), ...Object.values(messageErrorRules), paginationRules.order, paginationRules["pinned-order"],
  ...Object.values(truncationRules).filter((r) => r.id !== "truncation.siblings" && r.id !== "truncation.rows-kept"), ...Object.values(attemptRules), ...Object.values(acrossRules),
  ...Object.values(SHOWN_RULES), capacityCheck.rules["interview-count"],
  ...(["retries", "retry-count", "identical-retries", "dedupe-key"] as const).map((id) => retriesCheck.rules[id]),
];

/** The seed's receiver limit (Events: delivery rule 1). */
export const RECEIVER_LIMIT_MS = SEED_TIMEOUT_MS;

export interface JudgingOptions {
  target: string;
  level: Level;
  caps?: Caps;
  /** The service's retry delays and receiver timeout (the seed's by default), for judging relayed retries. */
  webhookRetryDelaysMs?: number[];
  webhookTimeoutMs?: number;
}

/** A relayed delivery: what the service sent, and how the client's receiver answered it. */
export interface RelayedDelivery {
  seq: number;
  at: number;
  receiver: string;
  method: string;
  headers: Record<string, string>;
  raw: Uint8Array;
  /** The receiver's status, or null when it did not answer. */
  status: number | null;
  tookMs: number;
  error?: string;
}

/** A delivery's body as JSON, or undefined. */
function parsedPayload(raw: Buffer): any {
  try {
    return JSON.parse(raw.toString("utf8"));
  } catch {
    return undefined;
  }
}

export class Judging {
  readonly findings: Findings;
  private readonly contract = new Contract();
  private readonly requests: RequestJudge;
  private readonly memory: Memory;
  private readonly base: string;
  /** Signing secrets seen issued (PUT /v1/webhooks answered 201 with signing_secret). */
  private readonly secrets = new Set<string>();
  private readonly retries: RetryWatch;
  private readonly removal = new RemovalWatch();

  constructor(o: JudgingOptions, print: (line: string) => void) {
    this.base = o.target.replace(/\/$/, "");
    this.findings = new Findings({ target: this.base, level: o.level, print });
    this.requests = new RequestJudge(this.contract);
    this.memory = new Memory(o.caps ?? DEFAULT_CAPS, (what) => this.findings.note(what), this.contract);
    this.retries = new RetryWatch({ delaysMs: o.webhookRetryDelaysMs ?? SEED_RETRY_DELAYS_MS, timeoutMs: o.webhookTimeoutMs ?? SEED_TIMEOUT_MS }, (what) => this.findings.note(what));
  }

  exchange(ex: Exchange): void {
    this.findings.exchanges++;
    try {
      const reply = replyOf(ex, curlOfExchange(this.base, ex));
      const op = this.contract.match(ex.method, ex.path);
      ex.operationId = op?.operationId;
      if (ex.responseBody === null && ex.unjudged) this.findings.unjudged++;
      const { faulted } = this.memory.before(ex, op, this.findings);
      judgeExchange(this.contract, this.requests, ex, reply, this.findings, faulted, this.removal);
      this.memory.after(ex, op, reply.body ?? null, this.findings);
      // Retries whose window passed before a change came were owed whatever it changes (a webhook updated after the
      // window cancels nothing that was due): judged first, as of when the change came, or of the earliest delivery the
      // relay was still passing on then (a retry the judge has not seen yet).
      if (ex.method !== "GET" && (ex.path === "/v1/webhooks" || ex.path.startsWith("/_sim/"))) this.retries.overdue(Math.min(ex.at, ex.relayingSince ?? Infinity), this.findings);
      this.retries.exchange(ex);
      const body = reply.body as any;
      if (ex.method === "PUT" && ex.path === "/v1/webhooks" && ex.status === 201 && typeof body?.signing_secret === "string") this.secrets.add(body.signing_secret);
    } catch (err) {
      // A judge that throws is the proxy's bug, never the traffic's: said, and the traffic goes on.
      this.findings.note(`the proxy could not judge exchange #${ex.seq} (${ex.method} ${ex.url}): ${(err as Error).stack?.split("\n").slice(0, 2).join(" ")}`);
    }
  }

  delivery(r: RelayedDelivery): void {
    const raw = Buffer.from(r.raw);
    const d: Delivery = { at: r.at, startedAt: r.at, path: new URL(r.receiver).pathname, method: r.method, headers: r.headers, raw, interviewId: null, sessionId: null, lagMs: 0 };
    const ex: Exchange = {
      seq: -r.seq, at: r.at, method: r.method, url: r.receiver, path: new URL(r.receiver).pathname, query: new URLSearchParams(), requestHeaders: r.headers,
      requestBody: raw, status: r.status ?? 0, responseHeaders: new Headers(), responseBody: null, durationMs: r.tookMs, key: null,
    };
    const label = `delivery ${r.seq} relayed to ${new URL(r.receiver).origin}`;
    const secrets = [...this.secrets];
    const payload = parsedPayload(raw);
    // Its timestamps as every answer's: UTC with milliseconds (Resources: all timestamps).
    const bad = badTimestamps(payload, "");
    this.findings.verdict("implementation", responseRules.timestamps, bad.length === 0, `${label}: payload ${bad.map((b) => `${b.path} is ${JSON.stringify(b.value)}`).join(", ")}, not an ISO 8601 UTC timestamp with milliseconds`, ex);
    this.memory.delivered(payload, ex, this.findings);
    this.retries.delivery(payload, raw, r.headers, r.status, r.tookMs, ex, label, this.findings);
    judgeAttempt({ contract: this.contract, expect: (rule, ok, message) => (this.findings.verdict("implementation", rule, Boolean(ok), String(message), ex), Boolean(ok)) }, secrets.length ? secrets : null, d, label);
    if (secrets.length) this.findings.verdict("implementation", acrossRules["relay-signature"], secrets.some((s) => signed(s, d)), `${label}: signed with none of the ${secrets.length} secret(s) issued through the proxy`, ex);
    else this.findings.note(`${label}: no signing secret was issued through the proxy yet (PUT /v1/webhooks answered 201), so only its signature's form is judged`);
    if (r.status === null) {
      this.findings.verdict("client", clientRules["receiver-timeout"], false, `${label}: the receiver did not answer (${r.error}) after ${Math.round(r.tookMs)} ms`, ex);
      return;
    }
    this.findings.verdict("client", clientRules["receiver-timeout"], r.tookMs <= RECEIVER_LIMIT_MS, `${label}: the receiver answered after ${Math.round(r.tookMs)} ms; the service gives up after 10 s and retries`, ex);
    if (secrets.some((s) => signed(s, d))) this.findings.verdict("client", clientRules["receiver-status"], r.status >= 200 && r.status < 300, `${label}: a correctly signed delivery was answered ${r.status}; the service retries it`, ex);
  }

  report(failOnClient: boolean): Report {
    this.retries.overdue(Date.now(), this.findings);
    this.removal.report(this.findings);
    return this.findings.report(failOnClient, PROXY_RULES);
  }
}
