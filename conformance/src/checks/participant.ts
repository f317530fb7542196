/**
 * participant (--public-key): the three participant endpoints answer the contract's shapes with the public key.
 * The seed names the three endpoints and a launch decision's `mode` (a seed rule); it does not show their fields, which
 * are our contract's (the other rules).
 */
import { randomUUID } from "node:crypto";
import type { Check } from "../check.ts";
import { contract, rules, seed } from "../rules.ts";

const r = rules("participant", {
  decision: seed("Participant endpoints: paths under /v1, config, launches, prompt events", "with the public key, GET config answers 200 with a JSON object, a launch answers a decision whose mode is webview, external_browser or not_eligible, and a prompt event is recorded (2xx)", ["participant.paths", "participant.config", "participant.launches", "participant.prompt-events", "versioning.participant"]),
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
    // The seed does not show how the public key travels (Authentication 8): a 401 here is our contract's header refused.
    if (config.status === 401) return ctx.untested("participant endpoints", "the public key sent as X-Public-Key (our contract's transport; the seed does not show one) was refused with 401");
    ctx.expect(r.decision, config.status === 200 && config.body !== null && typeof config.body === "object" && !Array.isArray(config.body), `GET /v1/interview-participant/config answered ${config.status} ${config.text.slice(0, 120)}`, config);
    ctx.must(r.config, config.status === 200, `GET config answered ${config.status}`, config);
    ctx.conforms(config, "GET /v1/interview-participant/config");
    const rule = (config.body?.triggerRules ?? config.body?.trigger_rules)?.[0];
    if (rule) {
      const launch = await ctx.http.req("/v1/interview-participant/launches", { ...pk, method: "POST", body: { referenceId: "conformance_user", launchToken: rule.launchToken ?? rule.launch_token, triggerEvent: rule.eventName ?? rule.event_name } });
      // The launch request's fields are our contract's (the seed shows none): a 400 to them says nothing of the seed.
      if (launch.status === 400) ctx.untested("participant launch decisions", "the launch request in our contract's fields was refused with 400 (the seed shows no request fields)");
      else ctx.expect(r.decision, launch.status === 200 && ["webview", "external_browser", "not_eligible"].includes(launch.body?.mode), `POST /v1/interview-participant/launches answered ${launch.status} with mode ${JSON.stringify(launch.body?.mode)}`, launch);
      ctx.expect(r.launch, launch.status === 200, `POST launches with a fresh token answered ${launch.status}`, launch);
      ctx.conforms(launch, "POST /v1/interview-participant/launches");
      ctx.expect(r.launch, launch.body?.mode === "not_eligible" ? launch.body.url === null : typeof launch.body?.url === "string", `a ${launch.body?.mode} launch has url ${launch.body?.url}`, launch);
    } else ctx.untested("participant launches", "the config has no trigger rule for the probe user");
    const event = { eventId: randomUUID(), phase: "shown", referenceId: "conformance_user", occurredAt: new Date().toISOString() };
    const first = await ctx.http.req("/v1/interview-participant/prompt-events", { ...pk, method: "POST", body: event });
    ctx.conforms(first, "POST /v1/interview-participant/prompt-events");
    if (first.status === 400) ctx.untested("participant prompt events", "a prompt event in our contract's fields was refused with 400 (the seed shows no request fields)");
    else ctx.expect(r.decision, first.status >= 200 && first.status < 300, `POST /v1/interview-participant/prompt-events answered ${first.status}`, first);
    const again = await ctx.http.req("/v1/interview-participant/prompt-events", { ...pk, method: "POST", body: event });
    ctx.expect(r["prompt-events"], again.body?.duplicate === true, "a repeated prompt event is not reported as a duplicate", again);
    const bad = await ctx.http.req("/v1/interview-participant/prompt-events", { ...pk, method: "POST", body: { ...event, phase: "clicked" } });
    ctx.expect(r["prompt-events"], bad.status === 400, `an unknown phase answered ${bad.status}`, bad);
    ctx.conforms(bad, "POST prompt-events (bad phase)");
  },
};
