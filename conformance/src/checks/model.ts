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
import { NotTested } from "../check.ts";
import { Http } from "../http.ts";
import {
  AbandonInterview, CompleteAbandoned, CompleteInterview, CompleteWhileReading, DeleteWebhook, ForgedKey, GetWebhook, ListInterviews, ListMessages, MessageCursor, OtherProject, PlantChat,
  PlantStudy, PutWebhook, ReadChat, ReadInterview, ReadStudy, settle, StartInterview,
} from "../model/commands.ts";
import { r } from "../model/rules.ts";
import { newModel, type Judge, type Model, type World } from "../model/world.ts";
import type { Receiver } from "../receiver.ts";
import { register, sleep } from "./webhooks.ts";

/** The command arbitraries; repeats weight the mix toward the transitions that interact (webhook changes and completions). */
export function commandArbitraries(withOther: boolean): Array<fc.Arbitrary<fc.AsyncCommand<Model, World>>> {
  // Mostly subscribed; `events: []` now and then (refused, or a webhook that must receive nothing).
  const put = fc.tuple(fc.constantFrom<"change" | "same">("change", "change", "change", "same"), fc.constantFrom(true, true, true, false)).map(([t, s]) => new PutWebhook(t, s));
  const complete = fc.nat(7).map((n) => new CompleteInterview(n));
  const start = fc.constant(new StartInterview());
  const kinds = fc.array(fc.constantFrom<"visible" | "hidden" | "internal">("visible", "visible", "hidden", "internal"), { minLength: 1, maxLength: 5 });
  const chat = fc.tuple(fc.constantFrom<"visible" | "internal" | "evaluation" | "release">("visible", "visible", "internal", "evaluation", "release"), fc.constantFrom("Model chat", null), fc.constantFrom("web", "analyst", "mcp", null), kinds).map(([v, t, s, k]) => new PlantChat(v, t, s, k));
  return [
    put, put, put, fc.constant(new GetWebhook()), fc.constant(new DeleteWebhook()), fc.constant(new DeleteWebhook()),
    start, start, start, complete, complete, complete, complete, fc.constant(new CompleteWhileReading()),
    fc.nat(7).map((n) => new AbandonInterview(n)), fc.nat(7).map((n) => new CompleteAbandoned(n)),
    fc.nat(7).map((n) => new ReadInterview(n)), fc.constantFrom<"completed" | "started" | null>("completed", "started", null).map((s) => new ListInterviews(s)),
    fc.constant(new ReadStudy()), fc.tuple(fc.constantFrom<"active" | "paused" | "draft">("active", "paused", "draft"), fc.constantFrom(null, 1, 2, 3)).map(([s, w]) => new PlantStudy(s, w)),
    chat, chat,
    fc.nat(7).map((n) => new ReadChat(n)), fc.tuple(fc.nat(7), fc.constantFrom(1, 2, 100)).map(([n, l]) => new ListMessages(n, l)), fc.tuple(fc.nat(7), fc.nat(7)).map(([c, x]) => new MessageCursor(c, x)),
    fc.constantFrom<"changed" | "cut" | "longer" | "case" | "prefix">("changed", "cut", "longer", "case", "prefix").map((h) => new ForgedKey(h)),
    ...(withOther ? [fc.boolean().map((b) => new OtherProject(b))] : []),
  ];
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
  operations: ["putWebhook", "getWebhook", "deleteWebhook", "simCreateInterview", "simCompleteInterview", "simAbandonInterview", "simCreateStudy", "simCreateChat", "getInterview", "listInterviews", "getStudy", "getChat", "listChatMessages", "listChats", "listStudies"],
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
    let seq = 0;
    const live: Judge = { expect: ctx.expect, conforms: ctx.conforms, reached: ctx.reached };
    const wanted = sequencesFor(ctx.options.runs);
    const budget = ctx.options.modelBudgetMs ?? MODEL_BUDGET_MS;
    try {
      const done = await ctx.holds(
        "model-based run",
        fc.commands(commandArbitraries(!!ctx.other), { maxCommands: 40, size: "large" }),
        async (cmds) => void (await runSequence(ctx, receiver, ++seq, cmds, live)),
        wanted,
        async (cmds) => {
          // Replayed once more from a fresh start, recording what each command sent: the shortest sequence as curl lines.
          let first = "";
          const quiet: Judge = { expect: (_rule, ok, message) => ((!ok && !first && (first = message)), !!ok), conforms: () => undefined, reached: () => undefined };
          const log = await runSequence(ctx, receiver, ++seq, [...cmds], quiet).catch((err) => [`# the replay stopped: ${(err as Error).message}`]);
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

/** One sequence from a fresh start (no webhook on either project, a newly planted study); returns its curl log. */
async function runSequence(ctx: Ctx, receiver: Receiver, seq: number, cmds: Iterable<fc.AsyncCommand<Model, World>>, judge: Judge): Promise<string[]> {
  const m = newModel(seq);
  const w: World = { ctx, http: ctx.http, other: ctx.other, receiver, judge, log: [], completedAt: new Map() };
  ctx.http.tap = (curl) => w.log.push(curl);
  if (ctx.other) ctx.other.tap = (curl) => w.log.push(`${curl}   # the other project's key`);
  try {
    w.log.push("# fresh start: no webhook on either project, a study planted for the sequence");
    await ctx.http.req("/v1/webhooks", { method: "DELETE" });
    if (ctx.other) await ctx.other.req("/v1/webhooks", { method: "DELETE" });
    const hold = await ctx.http.req("/_sim/studies", { method: "POST", body: { name: `Model study ${seq}`, weekly_limit: 4, monthly_limit: null } });
    if (hold.status === 404 || hold.status === 405) throw new NotTested(`POST /_sim/studies answered ${hold.status}: the model cannot plant its study`);
    if (hold.status !== 201) throw new Error(`POST /_sim/studies answered ${hold.status}`);
    m.study = { id: hold.body.id, weekly: 4, monthly: null };
    // Every sequence starts with a visible chat holding the three kinds of message, so reads of non-visible items
    // inside a visible container (lists, counts, cursors) are reachable from the first command on.
    await new PlantChat("visible", "Model chat", "web", ["visible", "hidden", "internal", "visible"]).run(m, w);
    // And an interview whose respondent left: it must stay silent whatever the sequence does to the webhook.
    await new StartInterview().run(m, w);
    await new AbandonInterview(0).run(m, w);
    await fc.asyncModelRun(() => ({ model: m, real: w }), cmds);
    // Whatever is still on its way arrives now or never: wait a while past the slowest delivery seen, then judge all.
    w.log.push("# the end: a quiet wait, then every delivery judged");
    await sleep(Math.min(3_000, Math.max(300, 3 * m.latencyMs)));
    settle(m, w, "the end of the sequence");
    return w.log;
  } finally {
    ctx.http.tap = null;
    if (ctx.other) ctx.other.tap = null;
  }
}
