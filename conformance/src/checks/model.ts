/**
 * model (--sim): a stateful, model-based run. fast-check draws sequences of whole seed operations (webhook PUT, GET,
 * DELETE and URL changes, interviews started, held, completed on demand or on the service's timer while read, studies
 * and chats planted, the other project's reads and webhook, forged keys), runs them against the service, and after
 * every command compares each answer and every delivery the suite's receiver got (with the REST state it read when
 * the delivery arrived) with a model written from the seed. A failure shrinks to the shortest sequence, printed as
 * runnable curl lines with the seed and path that replay it. `--runs` scales the number of sequences. The opening's
 * fixed sequences (model/opening.ts) run first, every run: each command with every class of its input.
 */
import fc from "fast-check";
import type { Check, Ctx } from "../check.ts";
import { byHeadroom } from "../data.ts";
import { Http } from "../http.ts";
import { AbandonInterview, COMMANDS, COMMAND_STATEMENTS, KIND_NEEDS, PlantChat, settle, StartInterview, TIMEOUT, type DrawOptions, type MessageKind } from "../model/commands/index.ts";
import type { Cmd } from "../model/commands/base.ts";
import { openings } from "../model/opening.ts";
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

/** Sequences run side by side (--model-workers), each in a project of its own, where the target creates projects. */
export const MODEL_WORKERS = 5;

/** Where a worker's sequences act: the run's project (worker 0) or one created for it, with its clients and pool. */
interface Slot {
  project: { apiKey: string };
  http: Http;
  other?: Http;
  projectPool: string[];
}

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
    // Sequences side by side need a project each (one webhook per project): the run's, and ones created for them.
    const wanted = sequencesFor(ctx.options.runs);
    const drawOptions: DrawOptions = { caps: ctx.states.caps, retryDelaysMs: ctx.options.webhookRetryDelaysMs, receiverTimeoutMs: ctx.options.webhookTimeoutMs ?? 10_000, withOther: !!ctx.other, withPublicKey: !!ctx.options.publicKey, experimentsRemoved: !!ctx.experimentsRemoved };
    // The opening's fixed sequences, one batch before any random one: every command with each class of its input,
    // every run (model/opening.ts).
    const opening = openings(drawOptions);
    const workers = ctx.states.has("create-project", "plant-study") ? Math.min(Math.max(wanted, opening.length), Math.max(1, ctx.options.modelWorkers ?? MODEL_WORKERS)) : 1;
    const slots: Slot[] = [{ project: ctx.states.project, http: ctx.http, other: ctx.other, projectPool: [] }];
    const live = new Map<number, { model: Model; key: string }>();
    // The receiver reads the resource a delivery names at the moment it arrives, with its sequence's key (not logged).
    const observers = new Map<string, Http>();
    const observer = (key: string) => observers.get(key) ?? observers.set(key, new Http(ctx.http.baseUrl, key, ctx.contract, ctx.options.timeoutMs)).get(key)!;
    const seqOf = (path: string) => live.get(Number(/^\/hook\/m(\d+)\//.exec(path)?.[1]));
    receiver.observe = async (d) => {
      const reply = await observer(seqOf(d.path)?.key ?? ctx.http.apiKey).req(`/v1/interviews/${d.interviewId}`);
      return { status: reply.status, body: reply.body };
    };
    // The receiver answers each attempt as its sequence chose (completeWithAnswers), 200 otherwise.
    const answerOf = (id: string | null, attempt: number) => {
      for (const { model } of live.values()) if (id && model.answers.has(id)) return model.answers.get(id)![attempt - 1];
      return undefined;
    };
    receiver.policy = (id, attempt) => answerOf(id, attempt) || 200;
    // No answer in time: held past the receiver timeout the service is configured with.
    receiver.delay = (id, attempt) => (answerOf(id, attempt) === TIMEOUT ? (ctx.options.webhookTimeoutMs ?? 10_000) + 500 : 0);
    let seq = 0;
    const judge: Judge = { expect: ctx.expect, conforms: ctx.conforms, reached: ctx.reached };
    const given = ctx.options.modelBudgetMs;
    const { arbitraries, left } = commandArbitraries(drawOptions);
    for (const l of left) ctx.note(`model: not drawn: ${l}`);
    const openingBatch: Cmd[][] = opening.map((x) => x.commands);
    // A random batch: a sequence per worker, never more than were asked.
    const perBatch = Math.min(wanted, workers);
    const asked = wanted + opening.length;
    const batches = Math.ceil(wanted / perBatch) + (opening.length ? 1 : 0);
    const once = new Set<string>();
    const slotFor = async (k: number): Promise<Slot> => {
      if (!slots[k]) {
        const { api_key } = await ctx.states.createProject(`Model worker ${k}`);
        slots[k] = { project: { apiKey: api_key }, http: new Http(ctx.http.baseUrl, api_key, ctx.contract, ctx.options.timeoutMs), other: ctx.other && new Http(ctx.http.baseUrl, ctx.other.apiKey, ctx.contract, ctx.options.timeoutMs), projectPool: [] };
      }
      return slots[k];
    };
    const sequence = async (k: number, cmds: Iterable<fc.AsyncCommand<Model, World>>, j: Judge) => runSequence(ctx, receiver, ++seq, await slotFor(k), cmds, j, (m, key) => live.set(m.seq, { model: m, key }), (m) => live.delete(m.seq), once);
    // A batch: its sequences side by side, each worker taking the next as it ends its own (the opening's batch holds
    // more sequences than workers, and its slowest, which wait on the retry schedule, come first). After a failure
    // no new sequence starts; the first failure is thrown once those running have ended. Returns each one's curl log.
    let failedAt = -1; // the sequence of the last batch that failed first
    const batch = async (all: Array<Iterable<fc.AsyncCommand<Model, World>>>, j: Judge) => {
      const logs: string[][] = [];
      let next = 0;
      let failed: { reason: unknown } | undefined;
      await Promise.all(Array.from({ length: Math.min(workers, all.length) }, async (_, k) => {
        while (!failed && next < all.length) {
          const n = next++;
          logs[n] = await sequence(k, all[n], j).catch((reason) => ((failed ??= { reason }), (failedAt = n), [] as string[]));
        }
      }));
      if (failed) throw failed.reason;
      return logs;
    };
    // The budget: --model-budget-ms when given; otherwise measured on the target: three times what a batch took on the
    // mean so far, for every batch asked (a slower target gets a longer budget, never a constant tuned to one server).
    const started = Date.now();
    let deadline = given !== undefined ? started + given : Infinity;
    let shrinkUntil = Infinity;
    // Every batch's time so far: the budget follows their mean, not the first alone (a short first sequence on a
    // loaded machine measured the target as faster than its later sequences ran).
    let spentMs = 0;
    let batchesRun = 0;
    let ran = 0;
    const commands = fc.commands(arbitraries, { maxCommands: 40, size: "large" });
    try {
      await ctx.holds(
        "model-based run",
        fc.array(commands, { minLength: perBatch, maxLength: perBatch }),
        async (all) => {
          // Past the budget, or past the time left for shrinking once a batch failed: a case does nothing (and so
          // passes), which ends drawing and shrinking alike.
          if (Date.now() > deadline || Date.now() > shrinkUntil) return;
          const t = Date.now();
          try {
            await batch(all, judge);
            ran += all.length;
          } catch (err) {
            // Shrinking replays whole batches: it gets twice a batch's mean time (this one's, if it is the first), at
            // least 25 s, and never more.
            if (shrinkUntil === Infinity) shrinkUntil = Date.now() + Math.max(MODEL_BUDGET_MS, 2 * (batchesRun ? spentMs / batchesRun : Date.now() - t));
            throw err;
          } finally {
            spentMs += Date.now() - t;
            batchesRun++;
            // Never shortened: a budget already given stays given.
            if (given === undefined) deadline = Math.max(deadline === Infinity ? 0 : deadline, started + Math.max(MODEL_BUDGET_MS, 3 * (spentMs / batchesRun) * batches));
          }
        },
        batches,
        async (all) => {
          // Replayed once more from a fresh start, recording what each command sent: the shortest batch as curl lines.
          let first = "";
          const quiet: Judge = { expect: (_rule, ok, message) => ((!ok && !first && (first = message)), !!ok), conforms: () => undefined, reached: () => undefined };
          // The opening's batch (fixed sequences, more than the workers) replays the sequence that failed alone; a
          // random batch replays whole, side by side, as it ran.
          const at = failedAt;
          const replayed = all === openingBatch && at >= 0 ? [all[at]] : all;
          const logs = await batch(replayed.map((cmds) => [...cmds]), quiet).catch((err) => [[`# the replay stopped: ${(err as Error).message}`]]);
          return { curl: logs.map((log, k) => [`# sequence ${k + 1} of ${logs.length}${logs.length > 1 && workers > 1 ? `, ${Math.min(workers, logs.length)} at a time` : ""}`, ...log].join("\n")).join("\n"), details: { ...(replayed !== all ? { opening: opening[at].what } : {}), sequence: replayed.map(String).join(" || "), replayed: first || "the replay did not fail again (a timing-dependent failure)" } };
        },
        given ?? MODEL_HARD_CAP_MS,
        { ran: () => ran, asked },
        opening.length ? [openingBatch] : [],
      );
      // Say how many ran, side by side or not, and what bounded them.
      const budget = given !== undefined ? `the ${given / 1000} s budget (--model-budget-ms)` : `the budget measured on the target (${Math.round((deadline - started) / 1000)} s: three times the mean batch's time for each of ${batches} batches)`;
      ctx.note(`model: ${ran} of ${asked} sequences ran (the opening's ${opening.length} fixed ones first, then ${wanted} random), ${workers} at a time${workers > 1 ? ", each worker in a project of its own" : ""}${ran < asked ? ` within ${budget}` : ""}`);
    } finally {
      for (const slot of slots) {
        await slot.http.req("/v1/webhooks", { method: "DELETE" }).catch(() => undefined);
        if (slot !== slots[0]) {
          ctx.http.absorb(slot.http);
        }
      }
      if (ctx.other) await ctx.other.req("/v1/webhooks", { method: "DELETE" }).catch(() => undefined);
      await receiver.stop();
    }
  },
};

/** The longest a model run may take when no --model-budget-ms is given (its budget is then measured on the target). */
export const MODEL_HARD_CAP_MS = 30 * 60_000;

/**
 * The study a sequence's interviews go to: a planted one (weekly cap 4), or, where studies cannot be planted, the
 * existing accepting study with the most room, judged from where it stood.
 */
async function sequenceStudy(ctx: Ctx, m: Model, slot: Slot): Promise<void> {
  if (ctx.states.has("plant-study")) {
    const { id } = await ctx.states.plantStudy({ name: `Model study ${m.seq}`, weekly_limit: 4, monthly_limit: null }, slot.project);
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
async function runSequence(ctx: Ctx, receiver: Receiver, seq: number, slot: Slot, cmds: Iterable<fc.AsyncCommand<Model, World>>, judge: Judge, started: (m: Model, key: string) => void, ended: (m: Model) => void, once: Set<string>): Promise<string[]> {
  const m = newModel(seq);
  started(m, slot.project.apiKey);
  const w: World = { ctx, project: slot.project, http: slot.http, other: slot.other, receiver, judge, log: [], completedAt: new Map(), projectPool: slot.projectPool, once, statementsOf: (name) => COMMAND_STATEMENTS[name] ?? [] };
  slot.http.tap = (curl) => w.log.push(curl);
  if (slot.other) slot.other.tap = (curl) => w.log.push(`${curl}   # the other project's key`);
  try {
    w.log.push(`# fresh start${slot.project.apiKey === ctx.http.apiKey ? "" : " in a project of this worker's own"}: no webhook on either project, the sequence's study, and what the capabilities allow`);
    await slot.http.req("/v1/webhooks", { method: "DELETE" });
    if (slot.other) await slot.other.req("/v1/webhooks", { method: "DELETE" });
    await sequenceStudy(ctx, m, slot);
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
    slot.http.tap = null;
    if (slot.other) slot.other.tap = null;
    // The projects the sequence created keep nothing listening: their webhooks go.
    for (const p of m.projects) if (p.hookPath) await slot.http.req("/v1/webhooks", { method: "DELETE", key: p.apiKey }).catch(() => undefined);
    ended(m);
  }
}
