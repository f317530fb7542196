/**
 * model (--sim): a stateful, model-based run. fast-check draws sequences of whole seed operations (webhook PUT, GET,
 * DELETE and URL changes, interviews started, held, completed on demand or on the service's timer while read, studies
 * and chats planted, the other project's reads and webhook, forged keys), runs them against the service, and after
 * every command compares each answer and every delivery the suite's receiver got (with the REST state it read when
 * the delivery arrived) with a model written from the seed. A failure shrinks to the shortest sequence, printed as
 * runnable curl lines with the seed and path that replay it. `--runs` scales the number of sequences.
 */
import fc from "fast-check";
import type { Check, Ctx } from "../check.ts";
import { byHeadroom } from "../data.ts";
import { Http } from "../http.ts";
import { AbandonInterview, COMMANDS, COMMAND_STATEMENTS, KIND_NEEDS, PlantChat, settle, StartInterview, TIMEOUT, type DrawOptions, type MessageKind } from "../model/commands/index.ts";
import { r } from "../model/rules.ts";
import { EMPTY_BASE, newModel, type Judge, type Model, type World } from "../model/world.ts";
import type { Receiver } from "../receiver.ts";
import type { Capability, CapabilitySet } from "../states/capabilities.ts";
import { sleep } from "../judge/timing.ts";
import { register } from "./webhooks.ts";

type Arb = fc.Arbitrary<fc.AsyncCommand<Model, World>>;

/**
 * The command arbitraries this run draws from: every command whose capabilities the target offers, each as many times
 * as its weight (toward the transitions that interact: webhook changes and completions). Returns them with the
 * commands left out and why.
 */
export function commandArbitraries(o: DrawOptions): { arbitraries: Arb[]; left: string[] } {
  const left: string[] = [];
  const arbitraries: Arb[] = [];
  for (const spec of COMMANDS) {
    const lacking = o.caps.lacking(...spec.needs);
    if (lacking) {
      left.push(`${spec.name} (needs capability ${lacking.capability}: ${lacking.why})`);
      continue;
    }
    const drawn = spec.draw(o, (l) => left.push(l));
    if (typeof drawn === "string") left.push(`${spec.name} (${drawn})`);
    else for (let k = 0; k < spec.weight; k++) arbitraries.push(drawn);
  }
  if (!o.caps.has("hidden-messages")) left.push(`hidden-branch messages in planted chats (needs capability hidden-messages)`);
  if (!o.caps.has("recorded-parts")) left.push(`internal-only messages in planted chats (needs capability recorded-parts)`);
  if (!o.caps.has("interview-link")) left.push(`interviews started through the study's link (needs capability interview-link)`);
  return { arbitraries, left };
}

/** The model run's default time budget (--model-budget-ms), shrinking included: past it no new sequence is drawn. */
export const MODEL_BUDGET_MS = 25_000;

/** Sequences per run: --runs scales them (20 runs, the default, give 20 sequences). */
export const sequencesFor = (runs: number) => Math.max(3, runs);

export const modelCheck: Check = {
  name: "model",
  description: "a model-based run: random sequences of seed operations against a model of the seed's state, deliveries and REST state compared after every command",
  rules: r,
  needs: ["sim"],
  operations: ["putWebhook", "getWebhook", "deleteWebhook", "simCreateInterview", "simCompleteInterview", "simAbandonInterview", "simCreateStudy", "simCreateChat", "getInterview", "listInterviews", "getStudy", "getChat", "listChatMessages", "listChats", "listStudies", "listExperiments"],
  async run(ctx) {
    const registered = await register(ctx);
    if (!registered) return;
    const { receiver } = registered;
    await ctx.http.req("/v1/webhooks", { method: "DELETE" });
    // The receiver reads the resource a delivery names at the moment it arrives, with its own client (not logged).
    const observer = new Http(ctx.http.baseUrl, ctx.http.apiKey, ctx.contract, ctx.options.timeoutMs);
    receiver.observe = async (d) => {
      const reply = await observer.req(`/v1/interviews/${d.interviewId}`);
      return { status: reply.status, body: reply.body };
    };
    // The receiver answers each attempt as the sequence chose (completeWithAnswers), 200 otherwise.
    let answers: Model["answers"] = new Map();
    receiver.policy = (id, attempt) => (id ? answers.get(id)?.[attempt - 1] || 200 : 200);
    // No answer in time: held past the receiver timeout the service is configured with.
    receiver.delay = (id, attempt) => (id && answers.get(id)?.[attempt - 1] === TIMEOUT ? (ctx.options.webhookTimeoutMs ?? 10_000) + 500 : 0);
    let seq = 0;
    const live: Judge = { expect: ctx.expect, conforms: ctx.conforms, reached: ctx.reached };
    const wanted = sequencesFor(ctx.options.runs);
    const budget = ctx.options.modelBudgetMs ?? MODEL_BUDGET_MS;
    const { arbitraries, left } = commandArbitraries({ caps: ctx.states.caps, retryDelaysMs: ctx.options.webhookRetryDelaysMs, receiverTimeoutMs: ctx.options.webhookTimeoutMs ?? 10_000, withOther: !!ctx.other, withPublicKey: !!ctx.options.publicKey });
    for (const l of left) ctx.note(`model: not drawn: ${l}`);
    const projectPool: string[] = [];
    const once = new Set<string>();
    const sequence = async (cmds: Iterable<fc.AsyncCommand<Model, World>>, judge: Judge) => runSequence(ctx, receiver, ++seq, cmds, judge, (m) => void (answers = m.answers), projectPool, once);
    try {
      const done = await ctx.holds(
        "model-based run",
        fc.commands(arbitraries, { maxCommands: 40, size: "large" }),
        async (cmds) => void (await sequence(cmds, live)),
        wanted,
        async (cmds) => {
          // Replayed once more from a fresh start, recording what each command sent: the shortest sequence as curl lines.
          let first = "";
          const quiet: Judge = { expect: (_rule, ok, message) => ((!ok && !first && (first = message)), !!ok), conforms: () => undefined, reached: () => undefined };
          const log = await sequence([...cmds], quiet).catch((err) => [`# the replay stopped: ${(err as Error).message}`]);
          return { curl: log.join("\n"), details: { sequence: String(cmds), replayed: first || "the replay did not fail again (a timing-dependent failure)" } };
        },
        budget,
      );
      // fast-check stops drawing new sequences at the budget (and shrinking too): say how many ran.
      ctx.note(`model: ${done.runs} of ${wanted} sequences ran${done.runs < wanted ? ` within the ${budget / 1000} s budget (--model-budget-ms)` : ""}`);
    } finally {
      await ctx.http.req("/v1/webhooks", { method: "DELETE" }).catch(() => undefined);
      if (ctx.other) await ctx.other.req("/v1/webhooks", { method: "DELETE" }).catch(() => undefined);
      await receiver.stop();
    }
  },
};

/**
 * The study a sequence's interviews go to: a planted one (weekly cap 4), or, where studies cannot be planted, the
 * existing accepting study with the most room, judged from where it stood.
 */
async function sequenceStudy(ctx: Ctx, m: Model): Promise<void> {
  if (ctx.states.has("plant-study")) {
    const { id } = await ctx.states.plantStudy({ name: `Model study ${m.seq}`, weekly_limit: 4, monthly_limit: null });
    m.study = { id, weekly: 4, monthly: null, base: EMPTY_BASE() };
    return;
  }
  const studies = (await ctx.http.walk("/v1/studies", 100)).items.filter((s: any) => s.accepting_responses).sort(byHeadroom);
  if (!studies[0]) return;
  const s = (await ctx.http.req(`/v1/studies/${studies[0].id}`)).body;
  const before = new Set<string>((await ctx.http.walk(`/v1/interviews?study_id=${s.id}`, 100)).items.map((i: any) => i.id));
  m.study = { id: s.id, weekly: s.limits?.weekly?.limit ?? null, monthly: s.limits?.monthly?.limit ?? null, base: { interviewCount: s.interview_count ?? 0, weeklyUsed: s.limits?.weekly?.used ?? 0, monthlyUsed: s.limits?.monthly?.used ?? 0, before } };
}

/** One sequence from a fresh start (no webhook on either project, the sequence's study, what the capabilities allow); returns its curl log. */
async function runSequence(ctx: Ctx, receiver: Receiver, seq: number, cmds: Iterable<fc.AsyncCommand<Model, World>>, judge: Judge, started: (m: Model) => void, projectPool: string[], once: Set<string>): Promise<string[]> {
  const m = newModel(seq);
  started(m);
  const w: World = { ctx, http: ctx.http, other: ctx.other, receiver, judge, log: [], completedAt: new Map(), projectPool, once, statementsOf: (name) => COMMAND_STATEMENTS[name] ?? [] };
  ctx.http.tap = (curl) => w.log.push(curl);
  if (ctx.other) ctx.other.tap = (curl) => w.log.push(`${curl}   # the other project's key`);
  try {
    w.log.push("# fresh start: no webhook on either project, the sequence's study, and what the capabilities allow");
    await ctx.http.req("/v1/webhooks", { method: "DELETE" });
    if (ctx.other) await ctx.other.req("/v1/webhooks", { method: "DELETE" });
    await sequenceStudy(ctx, m);
    // A visible chat holding every kind of message the capabilities allow, so reads of non-visible items inside a
    // visible container (lists, counts, cursors) are reachable from the first command on.
    if (ctx.states.has("plant-chat")) {
      const kinds = (["visible", "hidden", "internal", "visible"] as MessageKind[]).filter((k) => ctx.states.has(...KIND_NEEDS[k]));
      await new PlantChat("visible", "Model chat", "web", kinds).run(m, w);
    }
    // And an interview whose respondent left: it must stay silent whatever the sequence does to the webhook.
    if (m.study && ctx.states.has("plant-interview", "hold", "abandon")) {
      await new StartInterview().run(m, w);
      if ([...m.interviews.values()].some((i) => i.status !== "completed")) await new AbandonInterview(0).run(m, w);
    }
    await fc.asyncModelRun(() => ({ model: m, real: w }), cmds);
    // Whatever is still on its way arrives now or never: wait a while past the slowest delivery seen, then judge all.
    w.log.push("# the end: a quiet wait, then every delivery judged");
    await sleep(Math.min(3_000, Math.max(300, 3 * m.latencyMs)));
    settle(m, w, "the end of the sequence");
    return w.log;
  } finally {
    ctx.http.tap = null;
    if (ctx.other) ctx.other.tap = null;
    // The projects the sequence created keep nothing listening: their webhooks go.
    for (const p of m.projects) if (p.hookPath) await ctx.http.req("/v1/webhooks", { method: "DELETE", key: p.apiKey }).catch(() => undefined);
  }
}
