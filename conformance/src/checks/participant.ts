/**
 * participant (--public-key): the three participant endpoints answer the contract's shapes with the public key.
 * The seed names the three endpoints and a launch decision's `mode` (a seed rule); it does not show their fields, which
 * are our contract's (the other rules).
 */
import { randomUUID } from "node:crypto";
import { Lacking, wrongs, type Check, type Ctx } from "../check.ts";
import type { Reply } from "../http.ts";
import { ELIGIBLE_MODES, LAUNCH_MODES, launchBodies, triggerRules, valueAt } from "../judge/participant.ts";
import { contract, rules, seed } from "../rules.ts";

const r = rules("participant", {
  eligible: seed("Participant endpoints: launches; invite lifecycle: pending invite, server returns webview or external_browser", "a launch the implementation accepts (its states module's launchRequest, or a launch token its trigger config carries) is decided webview or external_browser: a server that declines every launch fails it where its own module says the launch is eligible", ["participant.launches"]),
  decision: seed("Participant endpoints: paths under /v1, config, launches, prompt events", "with the public key, GET config answers 200 with a JSON object, a launch answers a decision whose mode is webview, external_browser or not_eligible, and a prompt event is recorded (2xx)", ["participant.paths", "participant.config", "participant.launches", "participant.prompt-events", "versioning.participant"]),
  scoped: seed("Authentication 3: a key is scoped to a single project; Authentication 7: the public SDK key loads interview triggers", "the trigger config of a project's public key names none of another project's studies", ["auth.scope", "auth.public-key"]),
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
    const configWrong = wrongs([config.status !== 200, `GET /v1/interview-participant/config answered ${config.status}, not 200`], [config.body === null || typeof config.body !== "object" || Array.isArray(config.body), `its body is not a JSON object: ${config.text.slice(0, 120)}`]);
    ctx.expect(r.decision, !configWrong, configWrong, config);
    ctx.must(r.config, config.status === 200, `GET config answered ${config.status}`, config);
    ctx.conforms(config, "GET /v1/interview-participant/config");
    // The config's triggers are its project's: no id of another project's studies appears anywhere in it.
    if (ctx.other && config.status === 200) {
      const others = (await ctx.other.walk("/v1/studies", 100)).items.map((x: any) => String(x?.id)).filter((id) => id.length > 8);
      const leaked = others.filter((id) => config.text.includes(id));
      ctx.expect(r.scoped, leaked.length === 0, `the trigger config of this project's public key names ${leaked.length} of the other project's studies (${leaked.slice(0, 3).join(", ")})`, config);
    } else if (!ctx.other) ctx.note("participant: the trigger config's project scope was not judged: it needs --other-key (another project's studies to look for), as the isolation check does");
    const found = triggerRules(ctx, config.body);
    if (found && found.field !== found.contractField) {
      ctx.expect(r.config, false, `the trigger rules are under "${found.field}", not the contract's "${found.contractField}" (the seed does not show the config's fields)`, config);
    }
    const launch = (body: unknown) => ctx.http.req("/v1/interview-participant/launches", { ...pk, method: "POST", body });
    const decided = (reply: Reply) => (reply.status === 200 ? reply.body?.mode : undefined);
    const modes: string[] = [];
    const rule = found?.rules[0];
    if (rule) {
      // The contract's request first, then what the rule carries: the seed shows no request fields, so none is assumed.
      const bodies = launchBodies(found, rule);
      let sent = bodies[0];
      let reply = await launch(sent);
      for (const body of bodies.slice(1)) if (reply.status === 400) reply = await launch((sent = body));
      if (reply.status === 400) ctx.untested("participant launch decisions", `every launch request was refused with 400: the contract's fields and the rule's own (${Object.keys(rule).join(", ")}); the seed shows no request fields`);
      else {
        modes.push(decided(reply));
        const launchWrong = wrongs([reply.status !== 200, `POST /v1/interview-participant/launches answered ${reply.status}, not 200`], [!LAUNCH_MODES.includes(reply.body?.mode), `the decision's mode is ${JSON.stringify(reply.body?.mode)}, not webview, external_browser or not_eligible`]);
        ctx.expect(r.decision, !launchWrong, launchWrong, reply);
        // A launch from the config's own token that is decided eligible shows the eligible path; a declined one shows nothing.
        if (ELIGIBLE_MODES.includes(reply.body?.mode)) ctx.expect(r.eligible, true, "");
      }
      ctx.expect(r.launch, reply.status === 200, `POST launches with a fresh token answered ${reply.status}`, reply);
      ctx.conforms(reply, "POST /v1/interview-participant/launches");
      ctx.expect(r.launch, reply.body?.mode === "not_eligible" ? reply.body.url === null : typeof reply.body?.url === "string", `a ${reply.body?.mode} launch has url ${reply.body?.url}`, reply);
      // A launch the server never issued a token for is the declining path: answered as a decision, its mode is still
      // one of the seed's three (a refusal with a 4xx says nothing about decisions).
      const token = found.token ? valueAt(rule, found.token) : undefined;
      if (reply.status !== 400 && typeof token === "string") {
        const forged = JSON.parse(JSON.stringify(sent).split(JSON.stringify(token)).join(JSON.stringify(`${token.slice(0, 8)}-forged-${randomUUID()}`)));
        const declined = await launch(forged);
        if (declined.status >= 200 && declined.status < 300) {
          ctx.expect(r.decision, LAUNCH_MODES.includes(declined.body?.mode), `a launch with a token the server never issued answered ${declined.status} with mode ${JSON.stringify(declined.body?.mode)}, not webview, external_browser or not_eligible`, declined);
          ctx.conforms(declined, "POST /v1/interview-participant/launches (a forged token)");
        }
      }
    } else ctx.untested("participant launches", found ? "the config has no trigger rule for the probe user" : `no list of trigger rules (objects naming an event) in the config: ${config.text.slice(0, 200)}`);
    // What the implementation says it accepts: its decision must be eligible. (After the config's own rules, whose
    // tokens an implementation may tie to the last config read.) Without such a launch, the config's tokens decide.
    let claimed = false;
    if (ctx.states.has("eligible-launch")) {
      try {
        const body = await ctx.states.launchRequest(ctx.options.publicKey!);
        claimed = true;
        const reply = await launch(body);
        modes.push(decided(reply));
        ctx.conforms(reply, "POST /v1/interview-participant/launches");
        ctx.expect(r.eligible, reply.status === 200 && ELIGIBLE_MODES.includes(reply.body?.mode), `a launch the states module says is eligible (${JSON.stringify(body).slice(0, 200)}) answered ${reply.status} with mode ${JSON.stringify(reply.body?.mode)}, not webview or external_browser`, reply);
      } catch (err) {
        if (!(err instanceof Lacking)) throw err;
        ctx.note(`participant: no launch known to be eligible from the states: ${err.why}`);
      }
    }
    // Declining everything is a decision too: without a launch known to be eligible, the eligible path was not shown.
    if (!claimed && !modes.some((m) => ELIGIBLE_MODES.includes(m))) {
      ctx.untested("eligible launch decisions (webview, external_browser)", `every launch the suite could make was decided ${modes.length ? modes.map((m) => JSON.stringify(m ?? "no decision")).join(", ") : "nothing"}; a states module's launchRequest says which launch the implementation accepts`);
    }
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
