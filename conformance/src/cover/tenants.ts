/**
 * Two tenants, every run: one project's data in every state, seen from another project's key. Project A holds a study
 * active, paused and draft, an interview started and one completed, a release active and one dismissed, and a chat
 * with its messages; project B holds one of each kind planted before A's and one after (so a page that starts from
 * A's item shows). With B's key each of A's items is retrieved (404, telling nothing an id that never existed does
 * not), looked for in every list of B (never there, the deprecated report included), used as a list's cursor and as
 * the interviews' `study_id` filter (each answered as the same request naming an id of nothing), and a reference id
 * both projects tagged lists B's interviews only.
 */
import { randomUUID } from "node:crypto";
import { NEVER_ID } from "../data.ts";
import { Http, type Reply } from "../http.ts";
import { completionWaitMs, untilCompleted } from "../judge/completion.ts";
import { askedAsNothing, OTHER_NEVER_ID } from "../judge/tells-more.ts";
import type { ProjectRef } from "../states/types.ts";
import type { CoverEnv, Unit } from "./unit.ts";
import type { Ctx } from "../check.ts";
import { r } from "./rules.ts";

const CLASSES = {
  studies: ["another project's active study", "another project's paused study", "another project's draft study"],
  interviews: ["another project's started interview", "another project's completed interview"],
  releases: ["another project's active release", "another project's dismissed release"],
  chat: "another project's chat and its messages",
  cursors: "another project's ids as list cursors",
  filter: "another project's study as the interviews' filter",
  reference: "a reference id both projects tagged",
  counts: "a study's counts while another project's interviews complete",
};

const DAY = 86_400_000;

/** B: a project of the unit's own beside A where the target creates projects, else the run's other key's (or none). */
export const strangerOf = (ctx: Ctx): "created" | "other" | null => (ctx.states.has("create-project") ? "created" : ctx.other ? "other" : null);

/**
 * B made (or taken): its project and a client with its key; `done` counts a created project's client's requests in the
 * run's. Null where there is no B.
 */
export async function strangerProject(ctx: Ctx, name: string): Promise<{ b: ProjectRef; http: Http; done(): void } | null> {
  const kind = strangerOf(ctx);
  if (kind === null) return null;
  const made = kind === "created" ? await ctx.states.createProject(name) : null;
  const b: ProjectRef = made ? { apiKey: made.api_key } : { apiKey: ctx.options.otherKey! };
  const http = made ? new Http(ctx.http.baseUrl, b.apiKey, ctx.contract, ctx.options.timeoutMs) : ctx.other!;
  return { b, http, done: () => void (made && ctx.http.absorb(http)) };
}

/** A's item, as B asks for it. */
interface Item {
  cls: string;
  path: string;
  id: string;
}

export const tenants: Unit = {
  name: "tenants",
  doc: "two tenants: a study active, paused and draft, an interview started and completed, a release active and dismissed, and a chat with its messages, each of one project read with another's key: its retrieval 404 as an id of nothing, absent from every list of the other (the deprecated report too), its id as a list's cursor and as the interviews' study_id filter answered as an id of nothing, a reference id both tagged listing the other's interviews only",
  needs: ["plant-study"],
  rules: [r["tenant-scoped"]],
  classes: (ctx) => (strangerOf(ctx) === null ? [] : [
    ...CLASSES.studies,
    ...(ctx.states.has("plant-interview", "hold", "complete") ? [...CLASSES.interviews, CLASSES.filter, CLASSES.reference, CLASSES.counts] : []),
    ...(ctx.states.has("plant-release") ? CLASSES.releases : []),
    ...(ctx.states.has("plant-chat") ? [CLASSES.chat] : []),
    CLASSES.cursors,
  ]),
  async run(env) {
    const { ctx } = env;
    const stranger = await strangerProject(ctx, "Cover tenants, the other");
    if (!stranger) return;
    try {
      await judgeFrom(env, stranger.b, stranger.http);
    } finally {
      stranger.done();
    }
  },
};

async function judgeFrom(env: CoverEnv, b: ProjectRef, stranger: Http): Promise<void> {
  const { ctx } = env;
  const interviews = ctx.states.has("plant-interview", "hold", "complete");
  const releases = ctx.states.has("plant-release");
  const chats = ctx.states.has("plant-chat");
  const tag = `tenant_${randomUUID().slice(0, 8)}`;
  const base = Math.floor(Date.now() / 1000) * 1000;
  const at = (ms: number) => new Date(ms).toISOString();
  /** The completions asked for, waited for side by side once everything is planted. */
  const completing: Array<Promise<unknown>> = [];
  /** B's items of each kind, planted once before A's and once after: ids by kind. */
  const bIds = new Map<string, string[]>();
  const plantB = async (round: number) => {
    const study = (await ctx.states.plantStudy({ name: `Tenants B ${round}`, weekly_limit: null, monthly_limit: null }, b)).id;
    const own = [study];
    if (interviews) {
      // Completed: a count that takes in another project's interviews (by the tag they share, say) shows.
      const { id } = await ctx.states.plantInterview({ study_id: study, hold: true, reference_id: tag }, b);
      await ctx.states.completeInterview(id, b);
      completing.push(untilCompleted(stranger, id, completionWaitMs(ctx.options)));
      own.push(id);
      bIds.set("interviews", [...(bIds.get("interviews") ?? []), id]);
    }
    if (releases) own.push((await ctx.states.plantRelease({ vcs_pr_number: 10 + round, vcs_pr_title: `Tenants B ${round}`, status: "active", merged_at: at(base - (round ? 1 : 3) * DAY) }, b)).id);
    if (chats) own.push((await ctx.states.plantChat({ title: `Tenants B ${round}`, messages: [{ role: "user", parts: [{ type: "text", text: "B" }] }] }, b)).id);
    bIds.set("studies", [...(bIds.get("studies") ?? []), study]);
    return own;
  };
  await plantB(0);
  // A's items, between B's two rounds.
  const items: Item[] = [];
  const studies: Record<string, string> = {};
  for (const [k, status] of (["active", "paused", "draft"] as const).entries()) {
    studies[status] = (await ctx.states.plantStudy({ name: `Tenants A ${status}`, status, weekly_limit: null, monthly_limit: null }, env.project)).id;
    items.push({ cls: CLASSES.studies[k], path: "/v1/studies", id: studies[status] });
  }
  if (interviews) {
    const started = (await ctx.states.plantInterview({ study_id: studies.active, hold: true, reference_id: tag }, env.project)).id;
    const completed = (await ctx.states.plantInterview({ study_id: studies.active, hold: true, reference_id: tag }, env.project)).id;
    await ctx.states.completeInterview(completed, env.project);
    completing.push(untilCompleted(env.http, completed, completionWaitMs(ctx.options)));
    items.push({ cls: CLASSES.interviews[0], path: "/v1/interviews", id: started }, { cls: CLASSES.interviews[1], path: "/v1/interviews", id: completed });
  }
  if (releases) {
    for (const [k, status] of (["active", "dismissed"] as const).entries()) {
      const { id } = await ctx.states.plantRelease({ vcs_pr_number: 20 + k, vcs_pr_title: `Tenants A ${status}`, status, merged_at: at(base - 2 * DAY + k) }, env.project);
      items.push({ cls: CLASSES.releases[k], path: "/v1/releases", id });
    }
  }
  let messageIds: string[] = [];
  if (chats) {
    const chat = await ctx.states.plantChat({ title: "Tenants A", messages: [{ role: "user", parts: [{ type: "text", text: "A asks" }] }, { role: "assistant", parts: [{ type: "text", text: "A answers" }] }] }, env.project);
    items.push({ cls: CLASSES.chat, path: "/v1/chats", id: chat.id });
    messageIds = chat.message_ids;
  }
  await plantB(1);
  await Promise.all(completing);
  const failed = new Set<string>();
  const judge = (cls: string, ok: boolean, message: string, reply?: Reply, details?: unknown) => {
    if (!env.expect(r["tenant-scoped"], ok, message, reply, details)) failed.add(cls);
  };
  /** The same request naming an id of nothing (twice: what two such answers differ in is noise). */
  const asNothing = async (path: (id: string) => string, id: string, cls: string, what: string) => {
    const { reply: leak, none, told } = await askedAsNothing((x) => stranger.req(path(x)), id, [NEVER_ID, OTHER_NEVER_ID]);
    judge(cls, !told, `with another project's key, ${what} (GET ${path(id)}) tells what the same request naming an id that never existed does not: ${told}`, leak, { another: leak.text.slice(0, 400), nothing: none.text.slice(0, 400) });
    return { leak, none };
  };
  /** A retrieval: 404 (Errors 1), as an id of nothing (an answer unlike that one's is reported once, above). */
  const retrieval = async (path: (id: string) => string, id: string, cls: string, what: string) => {
    const { leak, none } = await asNothing(path, id, cls, what);
    judge(cls, leak.status === 404 || leak.status !== none.status, `with another project's key, GET ${path(id)} (${what}) answered ${leak.status}, not 404`, leak);
  };
  for (const item of items) await retrieval((id) => `${item.path}/${id}`, item.id, item.cls, `retrieving ${item.cls}`);
  if (chats) {
    const chat = items.find((i) => i.cls === CLASSES.chat)!;
    await retrieval((id) => `/v1/chats/${id}/messages`, chat.id, CLASSES.chat, "listing the messages of another project's chat");
  }
  // Every list of B, walked whole: none of A's ids (nor A's messages' ids anywhere).
  const mine = new Set([...items.map((i) => i.id), ...messageIds]);
  for (const path of ["/v1/studies", ...(interviews ? ["/v1/interviews"] : []), ...(releases ? ["/v1/releases"] : []), ...(chats ? ["/v1/chats"] : [])]) {
    const walk = await stranger.walk(path, 100);
    const seen = walk.items.filter((x: any) => mine.has(x?.id));
    for (const x of seen) judge(items.find((i) => i.id === x.id)?.cls ?? CLASSES.chat, false, `with another project's key, GET ${path} lists ${x.id}, an item of the unit's project`, walk.pages[0]);
  }
  const report = await stranger.req("/v1/experiments");
  if (report.status === 200) {
    const named = items.filter((i) => i.path === "/v1/studies" && report.text.includes(i.id));
    for (const i of named) judge(i.cls, false, `with another project's key, GET /v1/experiments names ${i.id} (${i.cls})`, report);
  }
  // A's ids as B's cursors: answered as a cursor naming nothing (never a page from where A's item stands).
  const bStudy = bIds.get("studies")![0];
  for (const item of items) {
    const list = item.path === "/v1/interviews" ? (id: string) => `/v1/interviews?study_id=${bStudy}&starting_after=${id}` : (id: string) => `${item.path}?starting_after=${id}`;
    await asNothing(list, item.id, CLASSES.cursors, `${item.cls}'s id as the cursor of the other project's list`);
  }
  if (!failed.has(CLASSES.cursors)) env.reach(CLASSES.cursors, r["tenant-scoped"].cites);
  if (interviews) {
    // A's study as the filter: answered as a study of nothing.
    await asNothing((id) => `/v1/interviews?study_id=${id}`, studies.active, CLASSES.filter, "another project's study as the interviews' study_id filter");
    if (!failed.has(CLASSES.filter)) env.reach(CLASSES.filter, r["tenant-scoped"].cites);
    // The tag both projects used: B's interviews, none of A's.
    const want = bIds.get("interviews")!;
    const walk = await stranger.walk(`/v1/interviews?reference_id=${tag}`, 100);
    const got = walk.items.map((x: any) => x?.id);
    judge(CLASSES.reference, got.length === want.length && want.every((id) => got.includes(id)), `with another project's key, GET /v1/interviews?reference_id=${tag} (a tag both projects used) lists ${JSON.stringify(got)}, not exactly that project's ${JSON.stringify(want)}`, walk.pages[0]);
    if (!failed.has(CLASSES.reference)) env.reach(CLASSES.reference, r["tenant-scoped"].cites);
    // A's study, read with A's key once B's interviews completed: its own two interviews (one completed) and no more.
    // `used` counts them at least once completed and at most once created (the seed leaves open which).
    const read = await env.req(`/v1/studies/${studies.active}`);
    const used = [read.body?.limits?.weekly?.used, read.body?.limits?.monthly?.used];
    judge(CLASSES.counts, read.status === 200 && read.body?.interview_count === 1 && used.every((u) => typeof u === "number" && u >= 1 && u <= 2), `study ${studies.active}, of two interviews (one completed) while another project's interviews tagged alike completed, reads interview_count ${JSON.stringify(read.body?.interview_count)} and limits.weekly.used and limits.monthly.used ${JSON.stringify(used)} (${read.status}), not 1 and 1 or 2`, read);
    if (!failed.has(CLASSES.counts)) env.reach(CLASSES.counts, r["tenant-scoped"].cites);
  }
  for (const cls of new Set(items.map((i) => i.cls))) if (!failed.has(cls)) env.reach(cls, r["tenant-scoped"].cites);
}
