/** `forgedKey`: a key with one character changed, cut short, lengthened, in another case, or the bare prefix: 401. */
import fc from "fast-check";
import { r } from "../rules.ts";
import type { Model, World } from "../world.ts";
import { Command, type CommandSpec } from "./base.ts";

type Forgery = "changed" | "cut" | "longer" | "case" | "prefix";
const FORGERIES: Forgery[] = ["changed", "cut", "longer", "case", "prefix"];

/** Every forgery of the key, the drawn one first: five requests, so no forgery waits on a draw to be tried. */
export class ForgedKey extends Command {
  readonly name = "forgedKey";
  constructor(readonly how: Forgery) {
    super();
  }
  protected async act(_m: Model, w: World) {
    const key = w.http.apiKey;
    const last = key[key.length - 1];
    const forged: Record<Forgery, string> = {
      changed: key.slice(0, -1) + (last === "a" ? "b" : "a"),
      cut: key.slice(0, -1),
      longer: `${key}0`,
      case: key.toUpperCase() === key ? key.toLowerCase() : key.toUpperCase(),
      prefix: key.slice(0, key.indexOf("_", key.indexOf("_") + 1) + 1) || "svc_live_",
    };
    for (const how of [this.how, ...FORGERIES.filter((f) => f !== this.how)]) {
      const reply = await w.http.req("/v1/webhooks", { key: forged[how] });
      w.judge.expect(r.credentials, reply.status === 401, `a key ${how === "prefix" ? "that is the bare prefix" : `${how} from a valid one`} answered ${reply.status}, not 401`, reply);
    }
  }
  override toString = () => `forgedKey(${this.how} first)`;
}

export const forgedKey: CommandSpec = {
  name: "forgedKey",
  doc: "keys with one character changed, cut short, lengthened, in another case, and the bare prefix (the drawn one first): each 401",
  statements: ["auth.401", "auth.bearer", "errors.401", "auth.key-prefix"],
  needs: [],
  weight: 1,
  draw: () => fc.constantFrom(...FORGERIES).map((h) => new ForgedKey(h)),
};
