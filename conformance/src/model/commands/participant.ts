/**
 * The participant side within a sequence: the trigger config read with the public key and a launch from its first
 * rule, at any point of the sequence (studies planted, paused, at their caps). The seed fixes only that a launch answers
 * a decision whose mode is webview, external_browser or not_eligible; targeting and eligibility are the server's.
 */
import { launchBodies, triggerRules } from "../../checks/participant.ts";
import { r } from "../rules.ts";
import type { Model, World } from "../world.ts";
import { Command } from "./base.ts";

export class Launch extends Command {
  readonly name = "launch";
  protected async act(_m: Model, w: World) {
    const pk = { key: null, headers: { "x-public-key": w.ctx.options.publicKey ?? "" } };
    const config = await w.http.req("/v1/interview-participant/config?referenceId=conformance_user", pk);
    if (config.status !== 200) return; // the participant check names why (its transport is our contract's)
    const found = triggerRules(w.ctx, config.body);
    const rule = found?.rules[0];
    if (!found || !rule) return;
    let launch = await w.http.req("/v1/interview-participant/launches", { ...pk, method: "POST", body: launchBodies(found, rule)[0] });
    for (const body of launchBodies(found, rule).slice(1)) if (launch.status === 400) launch = await w.http.req("/v1/interview-participant/launches", { ...pk, method: "POST", body });
    if (launch.status === 400) return;
    const mode = launch.body?.mode;
    w.judge.expect(r.launch, launch.status === 200 && ["webview", "external_browser", "not_eligible"].includes(mode), `a launch answered ${launch.status} with mode ${JSON.stringify(mode)}, not a decision of webview, external_browser or not_eligible`, launch);
  }
}
