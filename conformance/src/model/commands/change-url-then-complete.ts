/**
 * `changeUrlThenComplete`: the webhook's URL changed (created first when none is set), then an interview completed at
 * once: its delivery must go to the new URL. The transition "Events: sent to the URL set by PUT /v1/webhooks" turns on;
 * left to chance (a PUT, another PUT with no DELETE between, then a completion before the study's cap) it came up in one
 * sequence of 40 at some seeds.
 */
import fc from "fast-check";
import type { Model, World } from "../world.ts";
import { Command, type CommandSpec } from "./base.ts";
import { CompleteInterview } from "./complete-interview.ts";
import { PutWebhook } from "./put-webhook.ts";

export class ChangeUrlThenComplete extends Command {
  readonly name = "changeUrlThenComplete";
  constructor(readonly pick: number) {
    super();
  }
  override check = (m: Readonly<Model>) => m.study !== null;
  protected async act(m: Model, w: World) {
    if (!m.webhook) await new PutWebhook("same", true).run(m, w);
    await new PutWebhook("change", true).run(m, w);
    await new CompleteInterview(this.pick).run(m, w);
  }
  override toString = () => `changeUrlThenComplete(#${this.pick})`;
}

export const changeUrlThenComplete: CommandSpec = {
  name: "changeUrlThenComplete",
  doc: "the webhook's URL changed (created first when none is set), then a held interview completed at once: its delivery must go to the new URL",
  statements: ["endpoints.put-webhook", "events.sent-to", "events.emitted-by", "transitions.interview"],
  needs: ["plant-interview", "hold", "complete"],
  weight: 1,
  draw: () => fc.nat(7).map((n) => new ChangeUrlThenComplete(n)),
};
