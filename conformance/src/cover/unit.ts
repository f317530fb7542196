/**
 * The covering phase's frame. A unit is one model operation with every class of its inputs, each followed by the
 * observation that would show it wrong. It declares its classes before it runs; a class counts as reached only when
 * the observation that judges it was made (`reach`), so a class whose evidence never came is NOT TESTED, named, never
 * "held". A unit acts in a project of its own when the target can create one (then units run side by side), or in
 * the run's project, one unit at a time.
 */
import type { Ctx } from "../check.ts";
import type { Http, Reply } from "../http.ts";
import type { Receiver } from "../receiver.ts";
import type { Rule } from "../rules.ts";
import type { Capability } from "../states/capabilities.ts";
import type { ProjectRef } from "../states/types.ts";

export interface Hook {
  url: string;
  /** The receiver path and query deliveries to this webhook arrive on (req.url, as the URL gave them). */
  path: string;
  secret: string;
  reply: Reply;
}

export interface CoverEnv {
  ctx: Ctx;
  /** The project the unit acts in. */
  project: ProjectRef;
  /** Whether that project is the unit's own (created for it): its lists hold only what the unit planted. */
  own: boolean;
  /** That project's public SDK key, when known (the created project's, or the run's --public-key). */
  publicKey?: string;
  receiver: Receiver;
  /** The receiver's answers to the attempts of an interview's delivery (200 past them); RESET and TIMEOUT included. */
  answers: Map<string, number[]>;
  /** The API with the unit's project key (its requests count in the run's). */
  http: Http;
  /** A request with the unit's project key. */
  req(path: string, init?: Parameters<Http["req"]>[1]): Promise<Reply>;
  /** PUTs the project's webhook to the receiver at /cover/<unit>/<name>; null when the service refused it. */
  hook(name: string): Promise<Hook | null>;
  /** The observation that judges `cls` was made: it reached these seed statements. */
  reach(cls: string, statements: string[]): void;
  /** What the unit's run leaves for its exploration (the study it planted, say). */
  memo: Map<string, unknown>;
  /** Records an assertion under a rule (the check's expect), with the unit and class in its message. */
  expect(rule: Rule, ok: unknown, message: string, reply?: Reply, details?: unknown): boolean;
}

export interface Unit {
  name: string;
  /** What it does, for the README and the report. */
  doc: string;
  /** The rules it judges; their seed statements are left NOT TESTED by a class of it left unreached. */
  rules: Rule[];
  /** Capabilities without which it cannot run at all. */
  needs: Capability[];
  /** Whether it observes deliveries: it runs only with a receiver the service accepted as a webhook. */
  receives?: boolean;
  /**
   * Whether it runs once the other units are done: its load (a burst of deliveries, or hundreds of reads) would otherwise
   * spoil their timing judgements (a retry the service sends late because it is busy delivering someone else's hundred
   * events, or answering a unit's hundreds of reads). Such units run one at a time, and judge no timing themselves.
   */
  alone?: boolean;
  /** Why the unit does not apply to this run (what it judges is gone, as the seed allows), or undefined. */
  notApplicable?(ctx: Ctx): string | undefined;
  /** Every class it covers, decided before it runs (what the target offers may add or remove some). */
  classes(ctx: Ctx): string[];
  run(env: CoverEnv): Promise<void>;
  /**
   * Random values from the contract's domain, after every unit has run (a fast-check property, seeded and shrinkable;
   * properties run one at a time, since a failure inside one must reach that property alone).
   */
  explore?(env: CoverEnv): Promise<void>;
}

/** Polls `done` every `everyMs` until it holds or `ms` passes; returns whether it held. */
export async function until(done: () => boolean | Promise<boolean>, ms: number, everyMs = 25): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await done()) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((res) => setTimeout(res, everyMs));
  }
}

/**
 * `start` made `n` characters (code points) long with `fill` (one UTF-16 unit a character) over and over, every fiftieth
 * character an é (two bytes in UTF-8): free text planted at a length, so that a cap counted in bytes or in characters,
 * or a cut at any length below it, shows.
 */
export function textOfLength(n: number, fill: string, start = ""): string {
  const have = [...start].length;
  return start + Array.from({ length: Math.max(0, n - have) }, (_, k) => ((have + k) % 50 === 49 ? "é" : fill[k % fill.length])).join("");
}

/** A JSON string value whose encoding (quotes included) is exactly `bytes` bytes of UTF-8, ending in `tail`. */
export function sizedString(bytes: number, tail = ""): string {
  const tailBytes = Buffer.byteLength(JSON.stringify(tail)) - 2;
  return "x".repeat(bytes - 2 - tailBytes) + tail;
}
