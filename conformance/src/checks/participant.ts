/**
 * participant (--public-key): the three participant endpoints answer the contract's shapes with the public key.
 * The seed does not show their fields, so every rule here is the contract's.
 */
import { randomUUID } from "node:crypto";
import type { Check } from "../check.ts";
import { contract, rules } from "../rules.ts";

const r = rules("participant", {
  config: contract("participant endpoints", "GET config answers 200 with trigger rules and a TTL"),
  launch: contract("participant endpoints", "a launch with a fresh token answers 200; a not_eligible launch has url null, the others a URL"),
  "prompt-events": contract("participant endpoints", "prompt events are idempotent by eventId, and an unknown phase is a 400"),
});

export const participantCheck: Check = {
  name: "participant",
  description: "trigger config, launches and prompt events answer the contract with the public SDK key",
  rules: r,
  needs: ["publicKey"],
  operations: ["getParticipantConfig", "createParticipantLaunch", "createPromptEvent"],
  async run(ctx) {
    const pk = { key: null, headers: { "x-public-key": ctx.options.publicKey! } };
    const config = await ctx.http.req("/v1/interview-participant/config?referenceId=conformance_user", pk);
    ctx.must(r.config, config.status === 200, `GET config answered ${config.status}`, config);
    ctx.conforms(config, "GET /v1/interview-participant/config");
    const rule = config.body?.triggerRules?.[0];
    if (rule) {
      const launch = await ctx.http.req("/v1/interview-participant/launches", { ...pk, method: "POST", body: { referenceId: "conformance_user", launchToken: rule.launchToken, triggerEvent: rule.eventName } });
      ctx.expect(r.launch, launch.status === 200, `POST launches with a fresh token answered ${launch.status}`, launch);
      ctx.conforms(launch, "POST /v1/interview-participant/launches");
      ctx.expect(r.launch, launch.body?.mode === "not_eligible" ? launch.body.url === null : typeof launch.body?.url === "string", `a ${launch.body?.mode} launch has url ${launch.body?.url}`, launch);
    } else ctx.untested("participant launches", "the config has no trigger rule for the probe user");
    const event = { eventId: randomUUID(), phase: "shown", referenceId: "conformance_user", occurredAt: new Date().toISOString() };
    const first = await ctx.http.req("/v1/interview-participant/prompt-events", { ...pk, method: "POST", body: event });
    ctx.conforms(first, "POST /v1/interview-participant/prompt-events");
    const again = await ctx.http.req("/v1/interview-participant/prompt-events", { ...pk, method: "POST", body: event });
    ctx.expect(r["prompt-events"], again.body?.duplicate === true, "a repeated prompt event is not reported as a duplicate", again);
    const bad = await ctx.http.req("/v1/interview-participant/prompt-events", { ...pk, method: "POST", body: { ...event, phase: "clicked" } });
    ctx.expect(r["prompt-events"], bad.status === 400, `an unknown phase answered ${bad.status}`, bad);
    ctx.conforms(bad, "POST prompt-events (bad phase)");
  },
};
