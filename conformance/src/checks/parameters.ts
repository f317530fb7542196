/**
 * parameters: every operation (reads, writes with --sim, participant with --public-key, simulation with
 * --sim) is sent generated unknown query parameters. The contract pins a 400 in the envelope; the seed
 * only allows a 400 or the answer the same request gets without the parameter (never a 5xx).
 */
import { randomUUID } from "node:crypto";
import fc from "fast-check";
import type { Check, Ctx } from "../check.ts";
import type { Operation } from "../contract.ts";
import { NEVER_ID, pathWithId, snapshot } from "../data.ts";
import type { RequestInit } from "../http.ts";
import { contract, rules, seed } from "../rules.ts";
import { OPERATION_CAPABILITY } from "../states/capabilities.ts";

const r = rules("parameters", {
  "unknown-harmless": seed("Errors: 400 invalid request body or parameters", "an unknown query parameter gets a 400 or the same status as the request without it, never a 5xx", ["errors.400"]),
  "unknown-400": contract("unknown query parameters", "an unknown query parameter answers 400 in the error envelope, on every operation"),
});

/** A request the operation accepts as it is (ids that exist where the suite knows some). */
async function request(ctx: Ctx, op: Operation): Promise<{ path: string; init: RequestInit }> {
  const s = await snapshot(ctx.http);
  const path = pathWithId(s, op.path);
  const pk = { key: null, headers: { "x-public-key": ctx.options.publicKey ?? "" } };
  const bodies: Record<string, () => RequestInit> = {
    putWebhook: () => ({ method: "PUT", body: { url: "https://example.com/conformance-parameters", events: ["interview.completed"] } }),
    createParticipantLaunch: () => ({ ...pk, method: "POST", body: {} }),
    createPromptEvent: () => ({ ...pk, method: "POST", body: { eventId: randomUUID(), phase: "shown", referenceId: "conformance_user", occurredAt: new Date().toISOString() } }),
    getParticipantConfig: () => pk,
    // Simulation operations get requests that cannot create anything (an unknown study, bodies the contract refuses).
    simCreateInterview: () => ({ method: "POST", body: { study_id: NEVER_ID } }),
    simCreateStudy: () => ({ method: "POST", body: { name: 42 } }),
    simCreateChat: () => ({ method: "POST", body: {} }),
    simCreateProject: () => ({ method: "POST", body: { name: 42 } }),
    simPutFaults: () => ({ method: "PUT", body: { rate: 5 } }),
  };
  return { path, init: bodies[op.operationId]?.() ?? { method: op.method } };
}

/**
 * Puts back what the request before changed, so that both requests of a pair meet the same state: a DELETE of the
 * webhook deletes one each time (an implementation may answer a DELETE with none configured 404, as the seed's 404
 * "resource not found" allows).
 */
async function prepare(ctx: Ctx, op: Operation): Promise<void> {
  if (op.operationId === "deleteWebhook") await ctx.http.req("/v1/webhooks", { method: "PUT", body: { url: "https://example.com/conformance-parameters", events: ["interview.completed"] } });
}

export const parametersCheck: Check = {
  name: "parameters",
  description: "an unknown query parameter on any operation is a 400 (contract) or harmless (seed), never a 5xx",
  rules: r,
  async run(ctx) {
    const ops = ctx.contract.operations.filter((o) => {
      // The simulation operations the run plants through and the target offers; never the sandbox's own tooling.
      if (o.tag === "Simulation") return !ctx.options.states && !o.tooling && !!OPERATION_CAPABILITY[o.operationId] && ctx.states.has(OPERATION_CAPABILITY[o.operationId]);
      if (o.auth === "public") return !!ctx.options.publicKey;
      return o.method === "GET" || ctx.options.sim || !!ctx.options.states;
    });
    if (!ctx.options.sim && !ctx.options.states) ctx.untested("unknown parameters on writes", "needs --sim or --states");
    if (!ctx.options.publicKey) ctx.untested("unknown parameters on participant endpoints", "needs --public-key");
    const declared = (op: Operation) => new Set((op.op.parameters ?? []).map((p: any) => ctx.contract.resolve(p).name));
    try {
      for (const op of ops) {
        const names = fc.stringMatching(/^[a-z][a-zA-Z_]{2,14}$/).filter((n) => !declared(op).has(n));
        await ctx.holds(`unknown parameters on ${op.operationId}`, fc.tuple(names, fc.oneof(fc.constant("1"), fc.string({ maxLength: 8 }))), async ([name, value]) => {
          const { path, init } = await request(ctx, op);
          await prepare(ctx, op);
          const baseline = await ctx.http.req(path, init);
          const again = await request(ctx, op);
          await prepare(ctx, op);
          const reply = await ctx.http.req(`${path}?${new URLSearchParams({ [name]: value })}`, again.init);
          ctx.expect(r["unknown-harmless"], reply.status === 400 || reply.status === baseline.status || (reply.status < 300 && baseline.status < 300), `${op.method} ${op.path} with ?${name}= answered ${reply.status}; without it ${baseline.status}`, reply);
          ctx.expect(r["unknown-400"], reply.status === 400, `${op.method} ${op.path} with the unknown parameter ${name} answered ${reply.status}, not 400`, reply);
          ctx.conforms(reply, `${op.method} ${op.path}?${name}=`);
        }, Math.max(2, Math.ceil(ctx.options.runs / 5)));
      }
    } finally {
      if (ctx.options.sim || ctx.options.states) await ctx.http.req("/v1/webhooks", { method: "DELETE" });
    }
  },
};
