/** `startInterview`: an interview planted held `started` in the sequence's study, directly or through the study's link with a reference_id (refused as not accepting at the cap, a contract pin). */
import fc from "fast-check";
import { start, type ReferenceFlavour } from "../interview-steps.ts";
import type { Model, World } from "../world.ts";
import { Command, type CommandSpec } from "./base.ts";

export class StartInterview extends Command {
  readonly name = "startInterview";
  /**
   * `viaLink`: opened through the study's interview link with a reference_id query parameter (capability
   * interview-link); `flavour`: what the reference id holds (beyond ASCII, percent-encoded in a link, a case twin).
   */
  constructor(readonly viaLink = false, readonly flavour: ReferenceFlavour = "plain") {
    super();
  }
  override check = (m: Readonly<Model>) => m.study !== null;
  protected async act(m: Model, w: World) {
    await start(m, w, this.viaLink, this.flavour);
  }
  override toString = () => `startInterview(${this.viaLink ? "through the study's link" : "held"}, ${this.flavour} reference)`;
}

export const startInterview: CommandSpec = {
  name: "startInterview",
  doc: "an interview planted held `started` in the sequence's study, directly or through the study's link with a reference_id (refused as not accepting at the cap, a contract pin); its reference id plain, beyond ASCII, full of characters a link percent-encodes, or an earlier one's case twin",
  statements: ["study.accepting", "states.accepting", "limits.caps", "study.weekly-used", "study.monthly-used", "study.reference-tag", "interview.reference-id"],
  needs: ["plant-interview", "hold"],
  weight: 3,
  draw: (o) => fc.tuple(o.caps.has("interview-link") ? fc.constantFrom(false, false, true) : fc.constant(false), fc.constantFrom<ReferenceFlavour>("plain", "plain", "unicode", "encoded", "case-twin")).map(([l, f]) => new StartInterview(l, f)),
};
