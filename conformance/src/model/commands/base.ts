/**
 * What every model command shares: the base class (log, statements reached, then `settle`), the judgement of every
 * delivery received so far against the model, and the waits and walks several resources use. Each command declares
 * the provider-states capabilities it needs; the run draws only the commands whose capabilities the target offers.
 */
import type fc from "fast-check";
import { judgeAttempt, signed } from "../../judge/attempts.ts";
import { sleep } from "../../judge/timing.ts";
import { Lacking } from "../../outcomes.ts";
import { describeCapability, type Capability } from "../../states/capabilities.ts";
import type { CapabilitySet } from "../../states/capabilities.ts";
import { r } from "../rules.ts";
import { logCommand, type Model, type ModelChat, type World } from "../world.ts";

export type Cmd = fc.AsyncCommand<Model, World>;

/** What decides whether a command is drawn in this run, and how. */
export interface DrawOptions {
  caps: CapabilitySet;
  /** The retry delays the service is configured with (--webhook-retry-delays-ms). */
  retryDelaysMs: number[];
  /** The receiver timeout the service is configured with (--webhook-timeout-ms). */
  receiverTimeoutMs: number;
  withOther: boolean;
  withPublicKey: boolean;
  /** GET /v1/experiments is removed, as the seed allows past July 1, 2026 (Ctx.experimentsRemoved). */
  experimentsRemoved?: boolean;
}

/**
 * A model command whole: its name, what it does (the README's command table), the seed statements it can reach, the
 * provider-states capabilities it needs (without them it is never drawn), how often it stands in the mix, and its
 * arbitrary for this run (or why it is not drawn; `note` says what part of it is left out).
 */
export interface CommandSpec {
  name: string;
  doc: string;
  statements: string[];
  needs: Capability[];
  weight: number;
  draw(o: DrawOptions, note: (left: string) => void): fc.Arbitrary<Cmd> | string;
}

/** Fields of the payload that must equal the REST resource at the moment of delivery. */
const SAME_AS_REST = [["interview_id", "id"], ["study_id", "study_id"], ["status", "status"], ["started_at", "started_at"], ["completed_at", "completed_at"], ["reference_id", "reference_id"], ["respondent_email", "respondent_email"], ["language", "language"], ["quality_score", "quality_score"], ["duration_secs", "duration_secs"]] as const;

const parse = (raw: Buffer): any => {
  try {
    return JSON.parse(raw.toString("utf8"));
  } catch {
    return undefined;
  }
};

/**
 * Judges every delivery received since the last call: where it went, with which secret, and what the REST API read
 * when it arrived. Deliveries of other sequences (other paths) are left alone; duplicates are allowed (Events 4).
 */
export function settle(m: Model, w: World, after: string): void {
  const mine = `/hook/m${m.seq}/`;
  for (; m.judged < w.receiver.deliveries.length; m.judged++) {
    const d = w.receiver.deliveries[m.judged];
    if (!d.path.startsWith(mine)) continue;
    const id = d.interviewId ?? "";
    const payload = parse(d.raw);
    const label = `after ${after}: the delivery of ${id || "an unparseable body"}`;
    if (m.otherWebhook && d.path === m.otherWebhook.path) {
      w.judge.expect(r.isolation, false, `${label} went to ${d.path}: the other project's webhook received this project's interview`, undefined, payload);
      continue;
    }
    if (m.projects.some((p) => p.hookPath === d.path)) {
      w.judge.expect(r["project-isolation"], false, `${label} went to ${d.path}: the webhook of a project created during the sequence received this project's interview`, undefined, payload);
      continue;
    }
    const want = m.expected.get(id);
    if (!want) {
      if (m.interviews.get(id)?.abandoned) {
        w.judge.expect(r["abandoned-silent"], false, `${label} came to ${d.path}, but the interview was abandoned before it completed`, undefined, payload);
        continue;
      }
      const why = m.forbidden.has(id) ? "it completed while no webhook subscribed to interview.completed was configured" : "no interview of this sequence completed to make it";
      w.judge.expect(r["none-without-webhook"], false, `${label} came to ${d.path}, but ${why}`, undefined, payload);
      continue;
    }
    w.judge.expect(r["sent-to-current"], d.path === want.path, `${label} went to ${d.path}, but the webhook's URL was ${want.path} when it completed`, undefined, payload);
    // Method, headers, payload shape and aliases, as for every attempt (the webhooks check's per-attempt rules).
    judgeAttempt({ ...w.ctx, expect: w.judge.expect }, want.secret, d, label);
    w.judge.expect(r["current-secret"], signed(want.secret, d), `${label} is not signed with the signing secret in force when it completed (X-Webhook-Signature ${JSON.stringify(d.headers["x-webhook-signature"])})`, undefined, payload);
    const rest = d.observed as { status: number; body: any } | undefined;
    const restWrong = !rest || rest.status !== 200 ? `GET /v1/interviews/${id} answered ${rest?.status ?? "nothing"} when the delivery arrived` : rest.body?.status !== "completed" ? `GET /v1/interviews/${id} read status ${JSON.stringify(rest.body?.status)} when its interview.completed delivery arrived` : "";
    w.judge.expect(r["rest-at-delivery"], !restWrong, `${label}: ${restWrong}`, undefined, { payload: payload?.data, rest: rest?.body });
    if (!restWrong) {
      const differ = SAME_AS_REST.filter(([p, f]) => payload?.data?.[p] !== rest!.body?.[f]).map(([p, f]) => `data.${p} ${JSON.stringify(payload?.data?.[p])} but REST ${f} ${JSON.stringify(rest!.body?.[f])}`);
      w.judge.expect(r["rest-at-delivery"], differ.length === 0, `${label}: the payload differs from the REST resource read when it arrived: ${differ.join("; ")}`, undefined, payload);
    }
    const done = w.completedAt.get(id);
    if (done !== undefined) m.latencyMs = Math.max(m.latencyMs, d.at - done);
  }
}

/** This sequence's deliveries of an interview. */
export const deliveriesOf = (m: Model, w: World, id: string) => w.receiver.deliveries.filter((d) => d.interviewId === id && d.path.startsWith(`/hook/m${m.seq}/`));

/** Waits until the interview's delivery has come (or the wait runs out: then the rule fails). */
export async function awaitDelivery(m: Model, w: World, id: string, label: string): Promise<void> {
  const want = m.expected.get(id)!;
  const wait = w.ctx.options.webhookWaitMs ?? 35_000;
  const deadline = Date.now() + wait;
  while (deliveriesOf(m, w, id).length === 0 && Date.now() < deadline) await sleep(20);
  w.judge.expect(r["sent-to-current"], deliveriesOf(m, w, id).length > 0, `${label}: interview ${id} completed while the webhook ${want.path} was configured and subscribed, but no delivery came within ${wait} ms`);
}

/** What the model expects of a completion: a delivery to the current webhook, or none ever. */
export function completed(m: Model, w: World, id: string): void {
  const i = m.interviews.get(id)!;
  i.status = "completed";
  w.completedAt.set(id, Date.now());
  if (m.webhook?.subscribed) m.expected.set(id, { path: m.webhook.path, secret: m.webhook.secret });
  else m.forbidden.add(id);
}

/** Interviews that can still complete: not completed, not abandoned. */
export const openInterviews = (m: Readonly<Model>) => [...m.interviews].filter(([, i]) => i.status !== "completed" && !i.abandoned);

export abstract class Command implements Cmd {
  abstract readonly name: string;
  check(_m: Readonly<Model>): boolean {
    return true;
  }
  async run(m: Model, w: World): Promise<void> {
    logCommand(w, this.toString());
    try {
      await this.act(m, w);
    } catch (err) {
      // A capability found missing at its first use: this command, and every later one that needs it, does nothing
      // (the run names it NOT TESTED); the sequence goes on with what the target offers.
      if (!(err instanceof Lacking)) throw err;
      w.ctx.untested(`model commands that need ${describeCapability(err.capability)}`, err.why);
      w.log.push(`# ${this.toString()} not run: ${err.message}`);
      return;
    }
    w.judge.reached(w.statementsOf(this.name), this.name);
    settle(m, w, this.toString());
  }
  protected abstract act(m: Model, w: World): Promise<void>;
  toString(): string {
    return this.name;
  }
}

/** Walks a visible chat's messages and holds them to the model: the visible ones, oldest first (internal-only ones our pin). */
export async function judgeMessages(w: World, chat: ModelChat, limit: number): Promise<void> {
  const walk = await w.http.walk(`/v1/chats/${chat.id}/messages`, limit);
  for (const page of walk.pages) w.judge.conforms(page, `GET /v1/chats/${chat.id}/messages`);
  const got: string[] = walk.items.map((x: any) => x.id);
  const want = chat.messages.filter((x) => x.visible).map((x) => x.id);
  const withPinned = chat.messages.filter((x) => x.visible || x.internalOnly).map((x) => x.id);
  const seedOk = JSON.stringify(got) === JSON.stringify(want) || JSON.stringify(got) === JSON.stringify(withPinned);
  w.judge.expect(r["message-visibility"], seedOk, `the messages of chat ${chat.id} walk as [${got.join(", ")}], not the visible ones oldest first [${want.join(", ")}]`, walk.pages[0]);
  if (seedOk && want.length !== withPinned.length) w.judge.expect(r["internal-only"], JSON.stringify(got) === JSON.stringify(want), "the messages made of internal parts only are listed", walk.pages[0]);
}
