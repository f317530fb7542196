/** `launch`: with --public-key: the trigger config, and a launch from its first rule (with what the rule carries): a decision of one of the three modes. */
import fc from "fast-check";
import { LAUNCH_MODES, launchBodies, triggerRules } from "../../judge/participant.ts";
import { r } from "../rules.ts";
import type { Model, World } from "../world.ts";
import { Command, type CommandSpec } from "./base.ts";

/**
 * A launch at any point of a sequence, so after the sequence's study changed (interviews started and completed up to
 * its cap, other studies planted paused or at a cap): the rule of the sequence's study when the config has one,
 * else its first rule. Its decision has one of the seed's three modes; where the study is not accepting responses,
 * our contract says it is not_eligible.
 */
export class Launch extends Command {
  readonly name = "launch";
  protected async act(m: Model, w: World) {
    const pk = { key: null, headers: { "x-public-key": w.ctx.options.publicKey ?? "" } };
    const config = await w.http.req("/v1/interview-participant/config?referenceId=conformance_user", pk);
    if (config.status !== 200) return; // the participant check names why (its transport is our contract's)
    const found = triggerRules(w.ctx, config.body);
    const ours = found?.rules.find((x) => m.study && Object.values(x).includes(m.study.id));
    const rule = ours ?? found?.rules[0];
    if (!found || !rule) return;
    let launch = await w.http.req("/v1/interview-participant/launches", { ...pk, method: "POST", body: launchBodies(found, rule)[0] });
    for (const body of launchBodies(found, rule).slice(1)) if (launch.status === 400) launch = await w.http.req("/v1/interview-participant/launches", { ...pk, method: "POST", body });
    if (launch.status === 400) return;
    const mode = launch.body?.mode;
    w.judge.expect(r.launch, launch.status === 200 && LAUNCH_MODES.includes(mode), `a launch answered ${launch.status} with mode ${JSON.stringify(mode)}, not a decision of webview, external_browser or not_eligible`, launch);
    if (ours && m.study) {
      const study = await w.http.req(`/v1/studies/${m.study.id}`);
      if (study.body?.accepting_responses === false) w.judge.expect(r["launch-at-cap"], mode === "not_eligible", `a launch of the sequence's study, which is not accepting responses (${JSON.stringify(study.body?.limits)}), was decided ${JSON.stringify(mode)}`, launch);
    }
  }
  override toString = () => "launch(the sequence's study's rule, or the first)";
}

export const launch: CommandSpec = {
  name: "launch",
  doc: "with --public-key, at any point of a sequence (its study filling to its cap, other studies planted): the trigger config, and a launch from the sequence's study's rule (or the first), with what the rule carries: a decision of one of the three modes; not_eligible while that study is not accepting responses (a contract pin)",
  statements: ["participant.launches", "participant.config"],
  needs: [],
  weight: 1,
  draw: (o) => (o.withPublicKey ? fc.constant(new Launch()) : "needs --public-key"),
};
