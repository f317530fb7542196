/**
 * Re-creation of what can be deleted, every run: the webhook created, deleted and created again at the same URL, then
 * moved to another URL. After each step an interview completes: delivered to the webhook in force and signed with its
 * secret, or never delivered while none is configured (to no webhook at all, though another project of the unit's own
 * has one then, at the URL this one had), and delivered though its study was paused before it completed;
 * then subscribed to no event (events []), after which a completion is sent nowhere. Re-creation answers 201 with a new secret; a move, 200 without.
 * Every secret is given to one webhook only, of this project or another (a secret made of the URL, or of a count of
 * webhooks, would let each project sign the other's deliveries).
 * Created again by two PUTs at once: one is the creation (201), the other an update (200). PUTs refused over the webhook
 * in force, and another project's webhook created at its very URL, change nothing: it reads as it was, and the next
 * completion is delivered to it, signed with its secret.
 * A URL a parser writes otherwise (no path; dot segments and a lowercase escape) reads back as set.
 * An interview abandoned while the first webhook is in force is delivered nowhere, ever: it never finished processing.
 */
import { judgeAttempt, signed } from "../judge/attempts.ts";
import { completionWaitMs, untilCompleted } from "../judge/completion.ts";
import type { Delivery } from "../receiver.ts";
import { Http, type Reply } from "../http.ts";
import { until, type CoverEnv, type Unit } from "./unit.ts";
import { r } from "./rules.ts";

/**
 * Every URL the unit delivers to is long (its path and query near 480 characters in all, under any cap a server may
 * keep of its own and the 512 it may refuse past): one stored cut short sends the deliveries elsewhere, and GET shows it.
 */
const LONG = "long-path-segment-".repeat(11);

export const recreation: Unit = {
  name: "recreation",
  doc: "the webhook created, deleted, created again at the same URL by two PUTs at once (one 201, one 200) and moved, then refused PUTs sent over it and another project's webhook created at its URL (neither changes it), URLs a parser writes otherwise set over it (read back as set): each completion delivered to the webhook in force and signed with its secret, none while deleted (nor to another project's webhook); 201 with a new secret on re-creation; an interview abandoned while it is in force never delivered",
  needs: ["plant-study", "plant-interview", "hold", "complete"],
  receives: true,
  rules: [r["recreation"], r["abandoned-silent"]],
  classes: (ctx) => ["created", ...(ctx.states.has("abandon") ? ["an interview abandoned"] : []), "deleted", "re-created at the same URL by two PUTs at once", "moved to another URL", "URLs of nearly 500 characters", "URLs a parser writes otherwise, kept as set", "refused updates over it", ...(ctx.states.has("create-project") ? ["its URL taken by another project's webhook too"] : []), ...(ctx.states.has("study-status") ? ["its study paused before it completed"] : []), "subscribed to no event"],
  async run(env) {
    const { ctx } = env;
    const { id: studyId } = await ctx.states.plantStudy({ name: "Re-creation", weekly_limit: null, monthly_limit: null }, env.project);
    const wait = completionWaitMs(ctx.options);
    const mine = (d: Delivery) => d.path.startsWith(`/cover/recreation/`);
    /** Completes an interview now and waits for its delivery (when one is due); returns it. */
    const complete = async (tag: string, dueAt: string | null, study = studyId, meanwhile?: () => Promise<unknown>): Promise<{ id: string; got: Delivery[] }> => {
      const { id } = await ctx.states.plantInterview({ study_id: study, hold: true, reference_id: `recreation_${tag}` }, env.project);
      await meanwhile?.();
      await ctx.states.completeInterview(id, env.project);
      await untilCompleted(env.http, id, wait);
      if (dueAt) await until(() => env.receiver.deliveries.some((d) => mine(d) && d.interviewId === id), wait);
      // Every delivery of it, wherever it arrived: at another unit's path it went to another project's webhook.
      return { id, got: env.receiver.deliveries.filter((d) => d.interviewId === id) };
    };
    const judge = (cls: string, done: { id: string; got: Delivery[] }, path: string, secret: string) => {
      const ok = env.expect(r.recreation, done.got.length > 0 && done.got.every((d) => d.path === path), `after the webhook was ${cls}, interview ${done.id} was delivered to ${JSON.stringify(done.got.map((d) => d.path))}, not to the webhook in force (${path})`);
      for (const d of done.got) {
        judgeAttempt({ ...ctx, expect: env.expect }, secret, d, `the delivery of ${done.id} after the webhook was ${cls}`);
        env.expect(r.recreation, signed(secret, d), `after the webhook was ${cls}, the delivery of ${done.id} is not signed with the secret it was given`);
      }
      if (ok) env.reach(cls, r.recreation.cites);
      return ok;
    };
    const first = await env.hook(`recreation/a/${LONG}`);
    if (!first) return;
    env.expect(r.recreation, first.reply.status === 201 && typeof first.secret === "string" && first.secret.length > 0, `the first PUT /v1/webhooks answered ${first.reply.status} with signing_secret ${JSON.stringify(first.reply.body?.signing_secret)}`, first.reply);
    // Abandoned while this webhook is in force, before the completion that follows: a service that sends it would
    // have sent it by the time that completion's delivery arrives, and it is looked for again at the end.
    const abandoned = ctx.states.has("abandon") ? (await ctx.states.plantInterview({ study_id: studyId, hold: true, reference_id: "recreation_abandoned" }, env.project)).id : null;
    if (abandoned) await ctx.states.abandonInterview(abandoned, env.project);
    judge("created", await complete("created", first.path), first.path, first.secret);
    const del = await env.req("/v1/webhooks", { method: "DELETE" });
    const gone = await env.req("/v1/webhooks");
    env.expect(r.recreation, del.status === 204 && gone.status === 404, `DELETE /v1/webhooks answered ${del.status} and GET then ${gone.status} (204, then 404)`, gone);
    // While this project has none, another project's webhook is in force, at the URL this one's had: the completion of
    // this project's interview must not reach it either, and its secret is its own (were a secret made of the URL or of
    // a count of webhooks, the two projects would share one, and each could sign the other's deliveries).
    const witness = env.own ? await witnessHook(env, first.url) : null;
    const issued: Array<[string, string]> = [[first.secret, "this project's first webhook"]];
    const ownSecret = (whose: string, reply: Reply) => {
      const secret = reply.body?.signing_secret;
      if (reply.status !== 201 || typeof secret !== "string") return;
      const twin = issued.find(([s]) => s === secret);
      env.expect(r.recreation, !twin, `${whose} PUT /v1/webhooks answered 201 with the signing_secret ${twin?.[1]} was given: a secret authenticates one webhook's deliveries, so no two webhooks (of one project or two) are given the same one`, reply);
      issued.push([secret, whose.replace(/'s$/, "")]);
    };
    if (witness) ownSecret("another project's webhook's", witness.reply);
    if (env.own && !witness) ctx.note(`cover recreation: no second project with a webhook could be made (a project created, its webhook taken) while this one's was deleted: a delivery to another project's webhook could not show`);
    const silent = await complete("deleted", null);
    await witness?.remove();
    // Created again by two PUTs at once (a client's retry, two deploys): one webhook per project, so one of them is the
    // creation (201, with a new secret) and the other an update of it (200, without); deliveries carry the creation's.
    const pair = await Promise.all([env.hook(`recreation/a/${LONG}`), env.hook(`recreation/a/${LONG}`)]);
    const again = pair.find((h) => h?.reply.status === 201) ?? pair[0];
    const update = pair.find((h) => h !== again);
    if (!again || !update) return;
    if (again.secret !== first.secret) ownSecret("this project's re-created webhook's", again.reply);
    env.expect(r.recreation, again.reply.status === 201 && typeof again.secret === "string" && again.secret.length > 0 && again.secret !== first.secret && update.reply.status === 200 && update.reply.body?.signing_secret === undefined, `two PUT /v1/webhooks at once after DELETE answered ${again.reply.status} (signing_secret ${again.secret === first.secret ? "equal to the deleted webhook's" : JSON.stringify(again.reply.body?.signing_secret)}) and ${update.reply.status} (signing_secret ${JSON.stringify(update.reply.body?.signing_secret)}): one webhook per project, so one is its creation, 201 with a new secret, and the other an update of it, 200 without`, update.reply);
    judge("re-created at the same URL by two PUTs at once", await complete("recreated", again.path), again.path, again.secret);
    const moved = await env.hook(`recreation/b/${LONG}`);
    if (!moved) return;
    env.expect(r.recreation, moved.reply.status === 200 && moved.reply.body?.signing_secret === undefined, `PUT /v1/webhooks over an existing one answered ${moved.reply.status}${moved.reply.body?.signing_secret !== undefined ? " with a signing_secret" : ""} (200 without the secret)`, moved.reply);
    // Refused updates over the webhook in force change nothing: each is a 400, the webhook reads as it was, and the next
    // completion is delivered to it, signed with its secret (not to the URL a refused body named, nor nowhere).
    const elsewhere = new URL(moved.url);
    elsewhere.pathname = "/cover/recreation/refused";
    const refusals: Array<[string, unknown]> = [["an unknown event beside interview.completed", { url: elsewhere.toString(), events: ["interview.completed", "interview.started"] }], ["no events", { url: elsewhere.toString() }], ["no url", { events: ["interview.completed"] }]];
    for (const [what, body] of refusals) {
      const reply = await env.req("/v1/webhooks", { method: "PUT", body });
      env.expect(r.recreation, reply.status === 400, `PUT /v1/webhooks with ${what}, over the webhook in force, answered ${reply.status}, not 400`, reply);
    }
    // Another project's webhook at the very same URL: webhooks are per project, so it takes nothing from this one's.
    const sharer = env.own ? await witnessHook(env, moved.url) : null;
    if (sharer) ownSecret("another project's second webhook's", sharer.reply);
    if (sharer) env.expect(r.recreation, sharer.reply.status === 201 && typeof sharer.reply.body?.signing_secret === "string" && sharer.reply.body.signing_secret !== again.secret, `another project's PUT /v1/webhooks at this project's webhook URL answered ${sharer.reply.status} with signing_secret ${sharer.reply.body?.signing_secret === again.secret ? "equal to this project's" : JSON.stringify(sharer.reply.body?.signing_secret)}: that project had no webhook, so it is a creation (201, a secret of its own)`, sharer.reply);
    else if (env.own) ctx.note(`cover recreation: no second project with a webhook at the same URL could be made: a webhook taken from a project by another's at its URL could not show`);
    const kept = await env.req("/v1/webhooks");
    env.expect(r.recreation, kept.status === 200 && kept.body?.url === moved.url && JSON.stringify(kept.body?.events) === '["interview.completed"]', `after PUTs refused over the webhook in force${sharer ? " and another project's webhook created at its URL" : ""}, GET /v1/webhooks answered ${kept.status} with ${JSON.stringify(kept.body)?.slice(0, 300)}, not the webhook as it was (${moved.url}, events ["interview.completed"])`, kept);
    // The completion after them judges all three: delivered to the webhook in force, signed with its secret.
    if (judge("moved to another URL", await complete("moved", moved.path), moved.path, again.secret)) for (const cls of ["URLs of nearly 500 characters", "refused updates over it", ...(sharer ? ["its URL taken by another project's webhook too"] : [])]) env.reach(cls, r.recreation.cites);
    await sharer?.remove();
    if (ctx.states.has("study-status")) {
      // Delivered whatever its study's status: the event is emitted by an interview finishing processing, sent only if
      // interview.completed is in events; a study paused while its respondent talked stops new interviews, not this one.
      const { id: paused } = await ctx.states.plantStudy({ name: "Re-creation, paused", weekly_limit: null, monthly_limit: null }, env.project);
      judge("its study paused before it completed", await complete("paused", moved.path, paused, () => ctx.states.setStudyStatus(paused, "paused", env.project)), moved.path, again.secret);
    }
    // Subscribed to no event: the answer shows the events just set, and a completion is sent nowhere ("only if
    // interview.completed is in events"). A service that refuses an empty list has no such webhook: nothing to judge.
    // Created so (after a DELETE), then updated back: both the creation and an update echo the events set.
    // URLs a parser writes otherwise (no path at all, where it adds a slash; dot segments it resolves and a lowercase
    // escape): the answer and GET show the URL as set, or the PUT is refused (400). One shown rewritten is not the URL
    // the client configured (and a client comparing them thinks it changed). Set over the webhook in force, deleted next.
    const origin = new URL(moved.url).origin;
    let asSet = true;
    for (const url of [origin, `${origin}/cover/recreation/./parsed/../kept%7e/${LONG}?q=%7e`]) {
      const put = await env.req("/v1/webhooks", { method: "PUT", body: { url, events: ["interview.completed"] } });
      const read = put.status < 300 ? await env.req("/v1/webhooks") : put;
      asSet = env.expect(r.recreation, put.status === 400 || (put.status === 200 && put.body?.url === url && read.status === 200 && read.body?.url === url), `PUT /v1/webhooks to ${url} (a URL a parser writes otherwise) over the webhook in force answered ${put.status} with url ${JSON.stringify(put.body?.url)}, and GET then ${read.status} with url ${JSON.stringify(read.body?.url)}: not the URL as set (nor a 400 refusing it)`, read) && asSet;
    }
    if (asSet) env.reach("URLs a parser writes otherwise, kept as set", r.recreation.cites);
    await env.req("/v1/webhooks", { method: "DELETE" });
    const none = await env.req("/v1/webhooks", { method: "PUT", body: { url: moved.url, events: [] } });
    let unsubscribed: { id: string; got: Delivery[] } | null = null;
    if (none.status < 300) {
      env.expect(r.recreation, JSON.stringify(none.body?.events) === "[]", `PUT /v1/webhooks with events [] answered ${none.status} with events ${JSON.stringify(none.body?.events)}, not the [] just set`, none);
      unsubscribed = await complete("unsubscribed", null);
      // Subscribed again, a completion after it is delivered: one the service would have sent before it came first.
      const back = await env.req("/v1/webhooks", { method: "PUT", body: { url: moved.url, events: ["interview.completed"] } });
      if (back.status < 300) await complete("resubscribed", moved.path);
    } else env.expect(r.recreation, none.status === 400, `PUT /v1/webhooks with events [] answered ${none.status}: a configuration refused is a 400`, none);
    // By now the interviews completed while no webhook existed, or none subscribed, have had every chance to arrive.
    if (abandoned) {
      const sent = env.receiver.deliveries.filter((d) => d.interviewId === abandoned);
      env.expect(r["abandoned-silent"], sent.length === 0, `interview ${abandoned} was abandoned before it completed, while the webhook was in force, and was delivered to ${JSON.stringify(sent.map((d) => d.path))}: only an interview finishing processing is sent`);
      env.reach("an interview abandoned", r["abandoned-silent"].cites);
    }
    for (const [cls, quiet] of [["deleted", silent], ["subscribed to no event", unsubscribed]] as const) {
      if (!quiet) {
        env.reach(cls, r.recreation.cites);
        continue;
      }
      // Delivered anywhere (another unit's webhook is another project's) is delivered wrongly.
      const late = env.receiver.deliveries.filter((d) => d.interviewId === quiet.id);
      env.expect(r.recreation, late.length === 0, `interview ${quiet.id} completed while the webhook was ${cls}, and was delivered to ${JSON.stringify(late.map((d) => d.path))}${late.some((d) => !mine(d)) ? " (another project's webhook)" : ""}`);
      env.reach(cls, r.recreation.cites);
    }
  },
};

/**
 * A second project of the unit's own with a webhook to the receiver at /cover/recreation/witness (none where the
 * target creates no more projects, or refuses the webhook); `remove` deletes the webhook.
 */
async function witnessHook(env: CoverEnv, at?: string): Promise<{ reply: Reply; remove(): Promise<void> } | null> {
  const { ctx } = env;
  const made = await ctx.states.createProject("Cover recreation witness").catch(() => null);
  if (!made) return null;
  const project = { apiKey: made.api_key };
  const http = new Http(ctx.http.baseUrl, project.apiKey, ctx.contract, ctx.options.timeoutMs);
  const witnessUrl = new URL(env.receiver.url);
  witnessUrl.pathname = "/cover/recreation/witness";
  // The URL as the other webhook was given it, character for character (a parser would write it otherwise).
  const url = at ?? witnessUrl.toString();
  const reply = await http.req("/v1/webhooks", { method: "PUT", body: { url, events: ["interview.completed"] } });
  if (reply.status >= 300) {
    ctx.http.absorb(http);
    return null;
  }
  ctx.states.webhook(url, project);
  return {
    reply,
    async remove() {
      await http.req("/v1/webhooks", { method: "DELETE" }).catch(() => undefined);
      ctx.http.absorb(http);
    },
  };
}
