/** participant (--public-key): the three participant endpoints answer the contract's shapes with the public key. */
import { randomUUID } from "node:crypto";
import { conforms, type Check } from "../check.ts";
import { expectThat } from "../http.ts";

export const participantCheck: Check = {
  name: "participant",
  description: "trigger config, launches and prompt events answer the contract with the public SDK key",
  needs: ["publicKey"],
  operations: ["getParticipantConfig", "createParticipantLaunch", "createPromptEvent"],
  async run(ctx) {
    const pk = { key: null, headers: { "x-public-key": ctx.options.publicKey! } };
    const config = await ctx.http.req("/v1/interview-participant/config?referenceId=conformance_user", pk);
    expectThat(config.status === 200, `GET config answered ${config.status}`, config);
    conforms(ctx, config, "GET /v1/interview-participant/config");
    const rule = config.body.triggerRules[0];
    if (rule) {
      const launch = await ctx.http.req("/v1/interview-participant/launches", { ...pk, method: "POST", body: { referenceId: "conformance_user", launchToken: rule.launchToken, triggerEvent: rule.eventName } });
      expectThat(launch.status === 200, `POST launches with a fresh token answered ${launch.status}`, launch);
      conforms(ctx, launch, "POST /v1/interview-participant/launches");
      expectThat(launch.body.mode === "not_eligible" ? launch.body.url === null : typeof launch.body.url === "string", `a ${launch.body.mode} launch has url ${launch.body.url}`, launch);
    } else ctx.note("participant: the config has no trigger rule, launches not exercised");
    const event = { eventId: randomUUID(), phase: "shown", referenceId: "conformance_user", occurredAt: new Date().toISOString() };
    const first = await ctx.http.req("/v1/interview-participant/prompt-events", { ...pk, method: "POST", body: event });
    conforms(ctx, first, "POST /v1/interview-participant/prompt-events");
    const again = await ctx.http.req("/v1/interview-participant/prompt-events", { ...pk, method: "POST", body: event });
    expectThat(again.body?.duplicate === true, "a repeated prompt event is not reported as a duplicate", again);
    const bad = await ctx.http.req("/v1/interview-participant/prompt-events", { ...pk, method: "POST", body: { ...event, phase: "clicked" } });
    expectThat(bad.status === 400, `an unknown phase answered ${bad.status}`, bad);
    conforms(ctx, bad, "POST prompt-events (bad phase)");
  },
};
