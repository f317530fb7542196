/**
 * cover (--sim): the covering phase, before the random sequences. Every unit (cover/<unit>.ts) runs one model
 * operation with every class of its inputs (every enum value, every class of receiver answer, strings of every class a
 * URL treats specially, counts at 0, 1, 100, 101 and past a cap, re-creation of what can be deleted), each followed
 * by the observation that would show it wrong, and predicts what it reads whole. Where the target can create
 * projects, each unit runs in a project of its own, side by side with the others (its lists are then exactly what it
 * planted); otherwise one at a time in the run's project. A class whose observation never came is NOT TESTED, named.
 */
import type { Check, ClassOutcome, Ctx } from "../check.ts";
import { Lacking } from "../outcomes.ts";
import { Http, type Reply } from "../http.ts";
import { LATE_2XX, lateAnswerMs, TIMEOUT } from "../model/interview-steps.ts";
import type { Receiver } from "../receiver.ts";
import { describeCapability } from "../states/capabilities.ts";
import type { ProjectRef } from "../states/types.ts";
import { UNITS, type Unit } from "../cover/index.ts";
import { r } from "../cover/rules.ts";
import type { CoverEnv, Hook } from "../cover/unit.ts";
import { register } from "./webhooks.ts";


/** A unit under way: its classes, what it reached, and the steps after its run. */
interface Running {
  unit: Unit;
  env: CoverEnv | null;
  classes: string[];
  reached: Set<string>;
  /** Ends the unit: its webhook gone, its requests counted in the run's, its classes judged. */
  finish(): Promise<ClassOutcome[]>;
}

/** Runs a unit's operation with every class of its inputs (its exploration comes later, one unit at a time). */
async function runUnit(check: Ctx, unit: Unit, receiver: Receiver | null, answers: Map<string, number[]>, separate: boolean): Promise<Running> {
  // Units run side by side, and some hold properties: each asserts in a scope of its own, so another unit's property
  // never turns its failures into that property's (which stopped it at its first failure).
  const ctx = check.separately();
  const classes = unit.classes(ctx);
  const reached = new Set<string>();
  const statements = [...new Set(unit.rules.flatMap((rule) => rule.cites))];
  const outcome = () => classes.map((cls) => ({ unit: unit.name, cls, reached: reached.has(cls), statements }));
  const lacking = ctx.states.caps.lacking(...unit.needs);
  if (lacking) {
    ctx.untested(`cover ${unit.name}: ${classes.join(", ")} (needs ${describeCapability(lacking.capability)})`, lacking.why);
    return { unit, env: null, classes, reached, finish: async () => outcome() };
  }
  const made = separate ? await ctx.states.createProject(`Cover ${unit.name}`) : null;
  const project: ProjectRef = made ? { apiKey: made.api_key } : ctx.states.project;
  const http = new Http(ctx.http.baseUrl, project.apiKey, ctx.contract, ctx.options.timeoutMs);
  let hooked = false;
  const env: CoverEnv = {
    ctx, project, own: separate, receiver: receiver!, answers, http, memo: new Map(),
    publicKey: made ? made.public_key : ctx.options.publicKey,
    req: (path, init) => http.req(path, init),
    async hook(name): Promise<Hook | null> {
      if (!receiver) return null;
      const url = new URL(receiver.url);
      // A path of case twins, an empty segment, an escaped slash, an escaped character beyond ASCII and a lowercase
      // escape, ending in a slash; a query of escapes, + and & after it: the deliveries must come to it as given (the
      // path compared with it holds the query), never lowercased, decoded, collapsed, trimmed or dropped.
      url.pathname = `/cover/${name}/Twin-twin//a%2Fb%C3%A9%7e/`;
      url.search = `?unit=${encodeURIComponent(name)}&k=a%2Bb+c%41`;
      const reply: Reply = await http.req("/v1/webhooks", { method: "PUT", body: { url: url.toString(), events: ["interview.completed"] } });
      hooked = true;
      ctx.states.webhook(url.toString(), project);
      if (reply.status >= 300) {
        ctx.expect(r.recreation, false, `PUT /v1/webhooks to the suite's receiver ${url} answered ${reply.status} in ${unit.name}`, reply);
        return null;
      }
      return { url: url.toString(), path: url.pathname + url.search, secret: reply.body?.signing_secret ?? "", reply };
    },
    reach(cls, statements) {
      reached.add(cls);
      ctx.reached(statements, `cover ${unit.name}: ${cls}`);
    },
    expect: (rule, ok, message, reply, details) => ctx.expect(rule, ok, `${unit.name}: ${message}`, reply, details),
  };
  ctx.progress(`cover: ${unit.name} (${classes.length} classes)${separate ? " in a project of its own" : ""}`);
  const lacked = (err: unknown) => {
    if (!(err instanceof Lacking)) throw err;
    ctx.untested(`cover ${unit.name}: the classes it had not reached (needs ${describeCapability(err.capability)})`, err.why);
  };
  const finish = async () => {
    if (hooked) await http.req("/v1/webhooks", { method: "DELETE" }).catch(() => undefined);
    // Its requests are the run's: counted, and their operations judged by coverage.
    ctx.http.absorb(http);
    const missing = classes.filter((c) => !reached.has(c));
    if (missing.length) ctx.untested(`cover ${unit.name}: classes never reached: ${missing.join(", ")}`, "the observation that judges them did not come (see this check's failures and notes)");
    return outcome();
  };
  try {
    if (separate || receiver) await http.req("/v1/webhooks", { method: "DELETE" });
    await unit.run(env);
  } catch (err) {
    try {
      lacked(err);
    } catch (crash) {
      await finish();
      throw crash;
    }
  }
  return { unit, env, classes, reached, finish };
}

export const coverCheck: Check = {
  name: "cover",
  description: "the covering phase: every class of every input (enum values, receiver answers, strings, counts, re-creation), each followed by the observation that would show it wrong, responses predicted whole",
  rules: r,
  needs: ["sim"],
  operations: ["putWebhook", "getWebhook", "deleteWebhook", "getInterview", "listInterviews", "getStudy", "listStudies", "getChat", "listChats", "listChatMessages", "listExperiments"],
  async run(ctx) {
    // One receiver for every unit: the answers each unit chose per interview, 200 otherwise; no answer in time is held past the timeout.
    const answers = new Map<string, number[]>();
    const units: Unit[] = [];
    for (const u of UNITS.filter((u) => !ctx.options.coverUnits || ctx.options.coverUnits.includes(u.name))) {
      const why = u.notApplicable?.(ctx);
      if (why) ctx.note(`cover ${u.name}: not applicable: ${why}`);
      else units.push(u);
    }
    const registered = units.some((u) => u.receives) ? await register(ctx) : null;
    const receiver = registered?.receiver ?? null;
    if (registered) await ctx.http.req("/v1/webhooks", { method: "DELETE" });
    if (receiver) {
      const timeoutMs = ctx.options.webhookTimeoutMs ?? 10_000;
      const answer = (id: string | null, attempt: number) => (id ? answers.get(id)?.[attempt - 1] : undefined);
      receiver.policy = (id, attempt) => {
        const a = answer(id, attempt);
        return a === undefined || a === TIMEOUT || a === LATE_2XX ? 200 : a;
      };
      receiver.delay = (id, attempt) => {
        const a = answer(id, attempt);
        return a === TIMEOUT ? timeoutMs + 500 : a === LATE_2XX ? lateAnswerMs(timeoutMs) : 0;
      };
    }
    const separate = ctx.states.has("create-project");
    const runnable = units.filter((u) => receiver || !u.receives);
    for (const u of units) if (!runnable.includes(u)) ctx.untested(`cover ${u.name}: ${u.classes(ctx).join(", ")}`, "no receiver the service accepts (see the webhooks check)");
    try {
      // Each unit in a project of its own runs beside the others, but for those whose load would spoil the others'
      // timing, which run after them one at a time (together, the burst and three units of reads kept a service at
      // its own timings, under a loaded CI machine, from answering a read within the request timeout).
      const beside = runnable.filter((u) => !u.alone);
      const after = runnable.filter((u) => u.alone);
      const running = separate
        ? [...(await settledAll(beside.map((u) => runUnit(ctx, u, receiver, answers, true)))), ...(await inTurn(after.map((u) => () => runUnit(ctx, u, receiver, answers, true))))]
        : await inTurn(runnable.map((u) => () => runUnit(ctx, u, receiver, answers, false)));
      // Then values drawn from the contract's domain, one property at a time (a failure must reach its own property).
      for (const u of running) {
        if (!u.env || !u.unit.explore) continue;
        try {
          await u.unit.explore(u.env);
        } catch (err) {
          if (!(err instanceof Lacking)) throw err;
          ctx.untested(`cover ${u.unit.name}: values drawn from the domain (needs ${describeCapability(err.capability)})`, err.why);
        }
      }
      const outcomes: ClassOutcome[][] = [];
      for (const u of running) outcomes.push(await u.finish());
      ctx.note(`cover: ${outcomes.flat().filter((o) => o.reached).length} of ${outcomes.flat().length} classes reached${separate ? ", each unit in a project of its own" : " in the run's project, one unit at a time (the target creates no projects)"}`);
      ctx.covered(outcomes.flat());
    } finally {
      await receiver?.stop();
    }
  },
};

/** Every promise to its end; then the first failure, if any, is thrown. */
async function settledAll<T>(all: Array<Promise<T>>): Promise<T[]> {
  const settled = await Promise.allSettled(all);
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === "rejected");
  if (failed) throw failed.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<T>).value);
}

async function inTurn<T>(fns: Array<() => Promise<T>>): Promise<T[]> {
  const out: T[] = [];
  for (const fn of fns) out.push(await fn());
  return out;
}
