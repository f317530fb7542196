/**
 * The model run's commands: whole seed operations. Each runs against the service, predicts the answer from the model
 * (written from the seed), updates the model, and leaves `settle` (after every command) to compare every delivery
 * received so far. Commands are chosen so that every transition of the webhook's configuration, an interview's
 * status path, a study's acceptance and a chat's visibility is reachable, in any order.
 */
import type fc from "fast-check";
import { judgeAttempt, signed, sleep } from "../checks/webhooks.ts";
import { NotTested } from "../check.ts";
import { errorMessage, type Reply } from "../http.ts";
import { COMMAND_STATEMENTS, r } from "./rules.ts";
import { hookPath, logCommand, type Model, type ModelChat, type World } from "./world.ts";

type Cmd = fc.AsyncCommand<Model, World>;

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

/** Waits until the interview's delivery has come (or the wait runs out: then the rule fails). */
async function awaitDelivery(m: Model, w: World, id: string, label: string): Promise<void> {
  const want = m.expected.get(id)!;
  const wait = w.ctx.options.webhookWaitMs ?? 35_000;
  const came = () => w.receiver.deliveries.some((d) => d.interviewId === id && d.path.startsWith(`/hook/m${m.seq}/`));
  const deadline = Date.now() + wait;
  while (!came() && Date.now() < deadline) await sleep(20);
  w.judge.expect(r["sent-to-current"], came(), `${label}: interview ${id} completed while the webhook ${want.path} was configured and subscribed, but no delivery came within ${wait} ms`);
}

/** What the model expects of a completion: a delivery to the current webhook, or none ever. */
function completed(m: Model, w: World, id: string): void {
  const i = m.interviews.get(id)!;
  i.status = "completed";
  w.completedAt.set(id, Date.now());
  if (m.webhook?.subscribed) m.expected.set(id, { path: m.webhook.path, secret: m.webhook.secret });
  else m.forbidden.add(id);
}

abstract class Command implements Cmd {
  abstract readonly name: string;
  check(_m: Readonly<Model>): boolean {
    return true;
  }
  async run(m: Model, w: World): Promise<void> {
    logCommand(w, this.toString());
    w.judge.reached(COMMAND_STATEMENTS[this.name] ?? [], this.name);
    await this.act(m, w);
    settle(m, w, this.toString());
  }
  protected abstract act(m: Model, w: World): Promise<void>;
  toString(): string {
    return this.name;
  }
}

export class PutWebhook extends Command {
  readonly name = "putWebhook";
  /** `change`: to the other of the two receiver URLs than the one configured (a URL change when one is set). */
  constructor(readonly target: "change" | "same", readonly subscribed: boolean) {
    super();
  }
  protected async act(m: Model, w: World) {
    const [a, b] = [hookPath(m, "a"), hookPath(m, "b")];
    const current = m.webhook?.path ?? b;
    const path = this.target === "same" ? (m.webhook?.path ?? a) : current === a ? b : a;
    const url = new URL(w.receiver.url);
    url.pathname = path;
    const reply = await w.http.req("/v1/webhooks", { method: "PUT", body: { url: url.toString(), events: this.subscribed ? ["interview.completed"] : [] } });
    w.judge.conforms(reply, "PUT /v1/webhooks");
    if (!this.subscribed && reply.status === 400) return; // events: [] may be refused (Events: only if subscribed); nothing changes
    const existed = m.webhook !== null;
    const secret = reply.body?.signing_secret;
    const wrong = existed
      ? reply.status !== 200 ? `PUT on an existing webhook answered ${reply.status}, not 200` : secret !== undefined ? "PUT on an existing webhook showed the signing secret again" : ""
      : reply.status !== 201 ? `the first PUT (no webhook configured) answered ${reply.status}, not 201` : typeof secret !== "string" || !secret ? "the creating PUT carried no signing_secret" : "";
    w.judge.expect(r["webhook-state"], !wrong, wrong, reply);
    if (reply.status >= 300) return;
    m.webhook = { path, subscribed: this.subscribed, secret: existed ? m.webhook!.secret : String(secret ?? "") };
  }
  override toString = () => `putWebhook(${this.target === "change" ? "a new URL" : "the same URL"}${this.subscribed ? "" : ", events []"})`;
}

export class GetWebhook extends Command {
  readonly name = "getWebhook";
  protected async act(m: Model, w: World) {
    const reply = await w.http.req("/v1/webhooks");
    w.judge.conforms(reply, "GET /v1/webhooks");
    if (!m.webhook) {
      w.judge.expect(r["webhook-state"], reply.status === 404, `GET /v1/webhooks with no webhook configured (never, or deleted) answered ${reply.status}, not 404`, reply);
      return;
    }
    const url = reply.body?.url ? new URL(reply.body.url).pathname : undefined;
    const wrong = reply.status !== 200 ? `GET /v1/webhooks of a configured webhook answered ${reply.status}`
      : url !== m.webhook.path ? `GET /v1/webhooks shows the url ${reply.body?.url}, not the last PUT's (path ${m.webhook.path})`
      : "signing_secret" in (reply.body ?? {}) || (m.webhook.secret && reply.text.includes(m.webhook.secret)) ? "GET /v1/webhooks showed the signing secret"
      : "";
    w.judge.expect(r["webhook-state"], !wrong, wrong, reply);
  }
}

export class DeleteWebhook extends Command {
  readonly name = "deleteWebhook";
  protected async act(m: Model, w: World) {
    const reply = await w.http.req("/v1/webhooks", { method: "DELETE" });
    w.judge.conforms(reply, "DELETE /v1/webhooks");
    // With none configured the seed says nothing of DELETE's answer; with one it is 204, empty.
    if (m.webhook) w.judge.expect(r["webhook-state"], reply.status === 204 && reply.text === "", `DELETE /v1/webhooks of a configured webhook answered ${reply.status}${reply.text ? ` with a body ${reply.text.slice(0, 80)}` : ""}, not 204 with an empty body`, reply);
    if (reply.status < 300) m.webhook = null;
  }
}

export class StartInterview extends Command {
  readonly name = "startInterview";
  override check = (m: Readonly<Model>) => m.study !== null;
  /** Public so a completion can start the interview it completes. */
  override async act(m: Model, w: World) {
    const reply = await w.http.req("/_sim/interviews", { method: "POST", body: { study_id: m.study!.id, reference_id: `model_${m.seq}`, hold: true } });
    if (reply.status === 409) {
      w.judge.expect(r["sim-at-cap"], true, "");
      return;
    }
    w.judge.conforms(reply, "POST /_sim/interviews");
    if (reply.status === 400) throw new NotTested(`held interviews (POST /_sim/interviews with hold: true answered 400: ${errorMessage(reply.body) ?? ""})`);
    if (reply.status !== 201 || typeof reply.body?.id !== "string") throw new Error(`POST /_sim/interviews answered ${reply.status}: the model cannot go on (${reply.text.slice(0, 160)})`);
    m.interviews.set(reply.body.id, { status: reply.body.status === "processing" ? "processing" : "started", created: Date.now() });
  }
}

/** Interviews that can still complete: not completed, not abandoned. */
const openInterviews = (m: Readonly<Model>) => [...m.interviews].filter(([, i]) => i.status !== "completed" && !i.abandoned);

/** A simulation operation this implementation does not offer: what needs it is NOT TESTED, never a failure. */
function simOffered(reply: Reply, capability: string): void {
  if (reply.status === 404 && errorMessage(reply.body)?.startsWith("No such interview")) return;
  if (reply.status === 404 || reply.status === 405 || reply.status === 501) throw new NotTested(`${capability} answered ${reply.status}`);
}

export class AbandonInterview extends Command {
  readonly name = "abandonInterview";
  constructor(readonly pick: number) {
    super();
  }
  override check = (m: Readonly<Model>) => openInterviews(m).length > 0;
  protected async act(m: Model, w: World) {
    const open = openInterviews(m);
    const [id, interview] = open[this.pick % open.length];
    const reply = await w.http.req(`/_sim/interviews/${id}/abandon`, { method: "POST" });
    w.judge.conforms(reply, "POST /_sim/interviews/{id}/abandon");
    simOffered(reply, "abandoned interviews (POST /_sim/interviews/{id}/abandon)");
    if (reply.status !== 200) throw new Error(`POST /_sim/interviews/${id}/abandon answered ${reply.status}: the model cannot go on`);
    interview.abandoned = true;
    m.forbidden.add(id);
    w.judge.expect(r["abandoned-silent"], reply.body?.status !== "completed", `an interview abandoned before completing reads ${JSON.stringify(reply.body?.status)}`, reply);
  }
  override toString = () => `abandonInterview(#${this.pick})`;
}

export class CompleteAbandoned extends Command {
  readonly name = "completeAbandoned";
  constructor(readonly pick: number) {
    super();
  }
  override check = (m: Readonly<Model>) => [...m.interviews.values()].some((i) => i.abandoned);
  protected async act(m: Model, w: World) {
    const gone = [...m.interviews].filter(([, i]) => i.abandoned);
    const [id] = gone[this.pick % gone.length];
    const reply = await w.http.req(`/_sim/interviews/${id}/complete`, { method: "POST" });
    w.judge.conforms(reply, "POST /_sim/interviews/{id}/complete (abandoned)");
    w.judge.expect(r["abandon-final"], reply.status === 409, `completing an abandoned interview answered ${reply.status}, not 409`, reply);
    const read = await w.http.req(`/v1/interviews/${id}`);
    w.judge.expect(r["abandoned-silent"], read.status === 200 && read.body?.status !== "completed", `an abandoned interview reads ${read.status} ${JSON.stringify(read.body?.status)} after a request to complete it`, read);
  }
  override toString = () => `completeAbandoned(#${this.pick})`;
}

export class CompleteInterview extends Command {
  readonly name = "completeInterview";
  constructor(readonly pick: number) {
    super();
  }
  // With no interview open, one is started (held) first: a completion is always reachable from any state.
  override check = (m: Readonly<Model>) => m.study !== null;
  protected async act(m: Model, w: World) {
    if (openInterviews(m).length === 0) await new StartInterview().act(m, w);
    const open = openInterviews(m);
    if (open.length === 0) return; // the study is at its cap: nothing to complete
    const [id] = open[this.pick % open.length];
    const reply = await w.http.req(`/_sim/interviews/${id}/complete`, { method: "POST" });
    w.judge.conforms(reply, "POST /_sim/interviews/{id}/complete");
    simOffered(reply, "interviews completed on demand (POST /_sim/interviews/{id}/complete)");
    if (reply.status !== 200) throw new Error(`POST /_sim/interviews/${id}/complete answered ${reply.status}: the model cannot go on`);
    completed(m, w, id);
    if (m.expected.has(id)) await awaitDelivery(m, w, id, this.toString());
    // The completion moves the interview between the filtered lists at once.
    await judgeFiltered(m, w, "completed");
  }
  override toString = () => `completeInterview(#${this.pick})`;
}

/** An interview run on the service's own timer while the suite reads it: the statuses seen must follow the seed's path. */
export class CompleteWhileReading extends Command {
  readonly name = "completeWhileReading";
  override check = (m: Readonly<Model>) => m.study !== null;
  protected async act(m: Model, w: World) {
    const reply = await w.http.req("/_sim/interviews", { method: "POST", body: { study_id: m.study!.id, reference_id: `model_${m.seq}_timed` } });
    if (reply.status === 409) return;
    w.judge.conforms(reply, "POST /_sim/interviews");
    if (reply.status !== 201) throw new Error(`POST /_sim/interviews answered ${reply.status}: the model cannot go on`);
    const id: string = reply.body.id;
    m.interviews.set(id, { status: "started", created: Date.now() });
    const rank = { started: 0, processing: 1, completed: 2 } as Record<string, number>;
    const seen: string[] = [];
    const deadline = Date.now() + (w.ctx.options.webhookWaitMs ?? 35_000);
    for (;;) {
      const read = await w.http.req(`/v1/interviews/${id}`);
      const status = read.body?.status;
      if (read.status === 200 && seen[seen.length - 1] !== status) seen.push(status);
      const back = seen.length > 1 && rank[seen[seen.length - 1]] < rank[seen[seen.length - 2]];
      w.judge.expect(r["interview-status"], read.status === 200 && status in rank && !back, read.status !== 200 ? `GET /v1/interviews/${id} of a running interview answered ${read.status}` : back ? `the statuses went ${seen.join(" -> ")}: backwards` : `status ${JSON.stringify(status)} is not a seed status`, read);
      if (status === "completed" || read.status !== 200 || back || Date.now() > deadline) break;
      await sleep(15);
    }
    if (seen[seen.length - 1] !== "completed") throw new Error(`interview ${id} never completed on its own within the wait (${seen.join(" -> ")})`);
    // It completed during this command, under the webhook configured now.
    completed(m, w, id);
    if (m.expected.has(id)) await awaitDelivery(m, w, id, this.toString());
  }
}

export class ReadInterview extends Command {
  readonly name = "readInterview";
  constructor(readonly pick: number) {
    super();
  }
  override check = (m: Readonly<Model>) => m.interviews.size > 0;
  protected async act(m: Model, w: World) {
    const all = [...m.interviews];
    const [id, model] = all[this.pick % all.length];
    const reply = await w.http.req(`/v1/interviews/${id}`);
    w.judge.conforms(reply, `GET /v1/interviews/${id}`);
    // Completed is final; a held interview is not completed (started, or processing where an implementation says so).
    const ok = reply.status === 200 && (model.status === "completed" ? reply.body?.status === "completed" : reply.body?.status !== "completed");
    w.judge.expect(r["interview-status"], ok, `GET /v1/interviews/${id} answered ${reply.status} with status ${JSON.stringify(reply.body?.status)}, but the sequence left it ${model.status}`, reply);
  }
  override toString = () => `readInterview(#${this.pick})`;
}

export class ListInterviews extends Command {
  readonly name = "listInterviews";
  constructor(readonly status: "completed" | "started" | null) {
    super();
  }
  override check = (m: Readonly<Model>) => m.study !== null;
  protected async act(m: Model, w: World) {
    await judgeFiltered(m, w, this.status);
  }
  override toString = () => `listInterviews(${this.status ?? "any status"})`;
}

export class ReadStudy extends Command {
  readonly name = "readStudy";
  override check = (m: Readonly<Model>) => m.study !== null;
  protected async act(m: Model, w: World) {
    const reply = await w.http.req(`/v1/studies/${m.study!.id}`);
    w.judge.conforms(reply, `GET /v1/studies/${m.study!.id}`);
    if (reply.status !== 200) throw new Error(`GET /v1/studies/${m.study!.id} of the planted study answered ${reply.status}`);
    const s = reply.body;
    const done = [...m.interviews.values()].filter((i) => i.status === "completed").length;
    w.judge.expect(r["interview-count"], s.interview_count === done, `interview_count is ${s.interview_count}, but ${done} of the study's interviews have completed`, reply);
    const created = m.interviews.size;
    for (const window of ["weekly", "monthly"] as const) {
      const used = s.limits?.[window]?.used;
      w.judge.expect(r["used-bounds"], typeof used === "number" && used >= done && used <= created, `limits.${window}.used is ${used}, outside ${done} completed to ${created} created`, reply);
      w.judge.expect(r["used-on-start"], used === created, `limits.${window}.used is ${used}, not the ${created} interviews created`, reply);
    }
    const within = (["weekly", "monthly"] as const).every((k) => s.limits?.[k]?.limit === null || s.limits?.[k]?.used < s.limits?.[k]?.limit);
    const want = s.status === "active" && within;
    w.judge.expect(r.accepting, s.accepting_responses === want, `accepting_responses is ${s.accepting_responses} with status ${s.status} and limits ${JSON.stringify(s.limits)}: the seed's rule gives ${want}`, reply);
  }
}

export class PlantStudy extends Command {
  readonly name = "plantStudy";
  constructor(readonly status: "active" | "paused" | "draft", readonly weekly: number | null) {
    super();
  }
  protected async act(m: Model, w: World) {
    const reply = await w.http.req("/_sim/studies", { method: "POST", body: { name: `Model study ${m.seq}`, status: this.status, weekly_limit: this.weekly, monthly_limit: null } });
    w.judge.conforms(reply, "POST /_sim/studies");
    if (reply.status !== 201) throw new Error(`POST /_sim/studies answered ${reply.status}: the model cannot go on`);
    const id = reply.body.id;
    const listed = (await w.http.walk("/v1/studies", 100)).items.filter((s: any) => s.id === id).length;
    const want = this.status === "active" ? 1 : 0;
    w.judge.expect(r["studies-listed"], listed === want, `a planted ${this.status} study is listed ${listed} times, not ${want}`);
    // Interviews go to the last active study (a paused or draft one accepts none).
    if (this.status === "active") {
      m.study = { id, weekly: this.weekly, monthly: null };
      m.interviews = new Map();
    }
  }
  override toString = () => `plantStudy(${this.status}, weekly ${this.weekly ?? "unlimited"})`;
}

type MessageKind = "visible" | "hidden" | "internal";

export class PlantChat extends Command {
  readonly name = "plantChat";
  constructor(readonly visibility: "visible" | "internal" | "evaluation" | "release", readonly title: string | null, readonly source: string | null, readonly kinds: MessageKind[]) {
    super();
  }
  protected async act(m: Model, w: World) {
    const parts = (kind: MessageKind, n: number) => (kind === "internal" ? [{ type: "compaction", summary: `compacted ${n}` }] : [{ type: "text", text: `model message ${n}` }]);
    const messages = this.kinds.map((kind, n) => ({ role: n % 2 ? "assistant" : "user", parts: parts(kind, n), ...(kind === "hidden" ? { hidden: true } : {}) }));
    const reply = await w.http.req("/_sim/chats", { method: "POST", body: { title: this.title, source: this.source, visibility: this.visibility, messages } });
    w.judge.conforms(reply, "POST /_sim/chats");
    if (reply.status === 400 && this.kinds.includes("hidden")) {
      w.ctx.untested("hidden messages in a visible chat", "POST /_sim/chats refused a message with hidden: true");
      return;
    }
    if (reply.status !== 201) throw new Error(`POST /_sim/chats answered ${reply.status}: the model cannot go on (${reply.text.slice(0, 160)})`);
    const ids: string[] = reply.body.message_ids ?? [];
    const chat: ModelChat = {
      id: reply.body.id, visible: this.visibility === "visible", title: this.title, source: this.source,
      messages: this.kinds.map((kind, n) => ({ id: ids[n], visible: kind === "visible", internalOnly: kind === "internal" })),
    };
    m.chats.push(chat);
    if (chat.visible) await judgeMessages(w, chat, 100);
    const listed = (await w.http.walk("/v1/chats", 100)).items.filter((c: any) => c.id === chat.id);
    // A visible chat missing from the list because its title or source is null breaks the nullable rule first.
    const nullable = chat.visible && (this.title === null || this.source === null);
    w.judge.expect(nullable && listed.length === 0 ? r["nullable-listed"] : r["chat-visibility"], listed.length === (chat.visible ? 1 : 0), `a planted ${this.visibility} chat${nullable ? ` with title ${JSON.stringify(this.title)} and source ${JSON.stringify(this.source)}` : ""} is listed ${listed.length} times, not ${chat.visible ? 1 : 0}`);
    if (chat.visible && listed[0]) {
      w.judge.expect(r["nullable-listed"], listed[0].title === this.title && listed[0].source === this.source, `the planted chat is listed with title ${JSON.stringify(listed[0].title)} and source ${JSON.stringify(listed[0].source)}, not ${JSON.stringify(this.title)} and ${JSON.stringify(this.source)}`);
    }
  }
  override toString = () => `plantChat(${this.visibility}, title ${JSON.stringify(this.title)}, source ${JSON.stringify(this.source)}, [${this.kinds.join(", ")}])`;
}

export class ReadChat extends Command {
  readonly name = "readChat";
  constructor(readonly pick: number) {
    super();
  }
  override check = (m: Readonly<Model>) => m.chats.length > 0;
  protected async act(m: Model, w: World) {
    const chat = m.chats[this.pick % m.chats.length];
    const reply = await w.http.req(`/v1/chats/${chat.id}`);
    w.judge.conforms(reply, `GET /v1/chats/${chat.id}`);
    if (!chat.visible) {
      w.judge.expect(r["chat-visibility"], reply.status === 404, `GET /v1/chats/${chat.id} of a hidden chat answered ${reply.status}, not 404`, reply);
      const messages = await w.http.req(`/v1/chats/${chat.id}/messages`);
      w.judge.expect(r["chat-visibility"], messages.status === 404, `the messages of a hidden chat answered ${messages.status}, not 404`, messages);
      return;
    }
    w.judge.expect(r["chat-visibility"], reply.status === 200, `GET /v1/chats/${chat.id} of a visible chat answered ${reply.status}`, reply);
    const visible = chat.messages.filter((x) => x.visible).length;
    const onlyPinned = chat.messages.filter((x) => !x.visible && x.internalOnly).length;
    const count = reply.body?.message_count;
    // A message of internal parts only is our pin: counting it fails the contract rule, not the seed's.
    const seedOk = count === visible || (onlyPinned > 0 && count === visible + onlyPinned);
    w.judge.expect(r["message-visibility"], seedOk, `message_count is ${count}, but the chat has ${visible} visible messages (of ${chat.messages.length} planted: ${chat.messages.filter((x) => !x.visible && !x.internalOnly).length} hidden-branch, ${onlyPinned} of internal parts only)`, reply);
    if (seedOk && onlyPinned) w.judge.expect(r["internal-only"], count === visible, `message_count ${count} counts the ${onlyPinned} messages made of internal parts only`, reply);
  }
  override toString = () => `readChat(#${this.pick})`;
}

/** Walks a visible chat's messages and holds them to the model: the visible ones, oldest first (internal-only ones our pin). */
async function judgeMessages(w: World, chat: ModelChat, limit: number): Promise<void> {
  const walk = await w.http.walk(`/v1/chats/${chat.id}/messages`, limit);
  for (const page of walk.pages) w.judge.conforms(page, `GET /v1/chats/${chat.id}/messages`);
  const got: string[] = walk.items.map((x: any) => x.id);
  const want = chat.messages.filter((x) => x.visible).map((x) => x.id);
  const withPinned = chat.messages.filter((x) => x.visible || x.internalOnly).map((x) => x.id);
  const seedOk = JSON.stringify(got) === JSON.stringify(want) || JSON.stringify(got) === JSON.stringify(withPinned);
  w.judge.expect(r["message-visibility"], seedOk, `the messages of chat ${chat.id} walk as [${got.join(", ")}], not the visible ones oldest first [${want.join(", ")}]`, walk.pages[0]);
  if (seedOk && want.length !== withPinned.length) w.judge.expect(r["internal-only"], JSON.stringify(got) === JSON.stringify(want), "the messages made of internal parts only are listed", walk.pages[0]);
}

/** The study's interviews filtered by status, held to the model. */
async function judgeFiltered(m: Model, w: World, status: "completed" | "started" | null): Promise<void> {
  const query = `/v1/interviews?study_id=${m.study!.id}${status ? `&status=${status}` : ""}`;
  const walk = await w.http.walk(query, 100);
  for (const page of walk.pages) w.judge.conforms(page, `GET ${query}`);
  const got = walk.items.map((i: any) => i.id).sort();
  const want = [...m.interviews].filter(([, i]) => (status === null ? true : status === "completed" ? i.status === "completed" : i.status === "started")).map(([id]) => id).sort();
  const missing = want.filter((id) => !got.includes(id));
  const extra = got.filter((id: string) => !want.includes(id));
  w.judge.expect(r["interview-filter"], !missing.length && !extra.length, `${query} lists ${missing.length ? `without ${missing.join(", ")}` : ""}${missing.length && extra.length ? " and " : ""}${extra.length ? `with ${extra.join(", ")}, which the sequence did not leave ${status ?? "in the study"}` : ""}`, walk.pages[0], { want, got });
}

export class ListMessages extends Command {
  readonly name = "listMessages";
  constructor(readonly pick: number, readonly limit: number) {
    super();
  }
  override check = (m: Readonly<Model>) => m.chats.some((c) => c.visible);
  protected async act(m: Model, w: World) {
    const visible = m.chats.filter((c) => c.visible);
    await judgeMessages(w, visible[this.pick % visible.length], this.limit);
  }
  override toString = () => `listMessages(#${this.pick}, limit ${this.limit})`;
}

export class MessageCursor extends Command {
  readonly name = "messageCursor";
  constructor(readonly pick: number, readonly message: number) {
    super();
  }
  override check = (m: Readonly<Model>) => m.chats.some((c) => c.visible && c.messages.length > 0);
  protected async act(m: Model, w: World) {
    const chats = m.chats.filter((c) => c.visible && c.messages.length > 0);
    const chat = chats[this.pick % chats.length];
    const target = chat.messages[this.message % chat.messages.length];
    const reply = await w.http.req(`/v1/chats/${chat.id}/messages?limit=100&starting_after=${target.id}`);
    w.judge.conforms(reply, `GET /v1/chats/${chat.id}/messages?starting_after=`);
    if (target.visible) {
      const after = chat.messages.slice(chat.messages.indexOf(target) + 1).filter((x) => x.visible || x.internalOnly).map((x) => x.id);
      const got: string[] = reply.body?.data?.map((x: any) => x.id) ?? [];
      const ok = reply.status === 200 && got.every((id) => after.includes(id)) && after.filter((id) => chat.messages.find((x) => x.id === id)!.visible).every((id) => got.includes(id));
      w.judge.expect(r["message-cursor"], ok, `starting_after a visible message answered ${reply.status} with [${got.join(", ")}], not the visible messages after it`, reply);
      return;
    }
    const want = `No such message: ${target.id}`;
    const ok = reply.status === 400 && errorMessage(reply.body) === want;
    w.judge.expect(target.internalOnly ? r["internal-only"] : r["message-cursor"], ok, `starting_after a ${target.internalOnly ? "message made of internal parts only" : "hidden-branch message"} (not a visible message) answered ${reply.status} ${JSON.stringify(errorMessage(reply.body))}, not 400 ${JSON.stringify(want)}`, reply);
  }
  override toString = () => `messageCursor(#${this.pick}, message #${this.message})`;
}

/** The other project: its webhook (never told of this project's interviews) and its reads of this sequence's ids. */
export class OtherProject extends Command {
  readonly name = "otherProject";
  constructor(readonly configure: boolean) {
    super();
  }
  override check = (m: Readonly<Model>) => m.study !== null;
  protected async act(m: Model, w: World) {
    if (!w.other) return;
    if (this.configure && !m.otherWebhook) {
      const url = new URL(w.receiver.url);
      url.pathname = hookPath(m, "other");
      const put = await w.other.req("/v1/webhooks", { method: "PUT", body: { url: url.toString(), events: ["interview.completed"] } });
      if (put.status < 300) m.otherWebhook = { path: url.pathname };
    }
    const reads: Array<[string, Reply]> = [];
    reads.push(["study", await w.other.req(`/v1/studies/${m.study!.id}`)]);
    for (const id of [...m.interviews.keys()].slice(-2)) reads.push(["interview", await w.other.req(`/v1/interviews/${id}`)]);
    for (const c of m.chats.filter((x) => x.visible).slice(-1)) reads.push(["chat", await w.other.req(`/v1/chats/${c.id}`)]);
    for (const [what, reply] of reads) w.judge.expect(r.isolation, reply.status === 404, `the other project's key read this project's ${what} (${reply.path}) as ${reply.status}, not 404`, reply);
  }
  override toString = () => `otherProject(${this.configure ? "configure its webhook, " : ""}read this project's ids)`;
}

export class ForgedKey extends Command {
  readonly name = "forgedKey";
  constructor(readonly how: "changed" | "cut" | "longer" | "case" | "prefix") {
    super();
  }
  protected async act(_m: Model, w: World) {
    const key = w.http.apiKey;
    const last = key[key.length - 1];
    const forged = {
      changed: key.slice(0, -1) + (last === "a" ? "b" : "a"),
      cut: key.slice(0, -1),
      longer: `${key}0`,
      case: key.toUpperCase() === key ? key.toLowerCase() : key.toUpperCase(),
      prefix: key.slice(0, key.indexOf("_", key.indexOf("_") + 1) + 1) || "svc_live_",
    }[this.how];
    const reply = await w.http.req("/v1/webhooks", { key: forged });
    w.judge.expect(r.credentials, reply.status === 401, `a key ${this.how === "prefix" ? "that is the bare prefix" : `${this.how} from a valid one`} answered ${reply.status}, not 401`, reply);
  }
  override toString = () => `forgedKey(${this.how})`;
}
