/**
 * Conditional reads, every run. A browser's fetch, an HTTP cache and many generated clients revalidate what they kept:
 * they send `If-None-Match` with the `ETag` an answer carried and `If-Modified-Since` with its `Last-Modified` (or the
 * time they read it), and take a 304 to mean their copy is current. A service that derives its validators from what
 * does not change (an id, `created_at`, a list's ids) answers 304 after a change, and the client keeps showing the old
 * counts, status or URL. Each read here is made, the thing it shows changed (an interview completed, a study, a release
 * or a chat planted, the webhook moved), and the read made again conditionally: where the answer changed, a 304 says
 * otherwise. A service that sends no validators and ignores the headers passes; none of the seed's reads may 304 a
 * client whose copy is stale.
 */
import type { Reply } from "../http.ts";
import { completionWaitMs, untilCompleted } from "../judge/completion.ts";
import type { CoverEnv, Unit } from "./unit.ts";
import { r } from "./rules.ts";

const C = {
  study: "a study, read again after one of its interviews completed",
  studies: "the study list, read again after it changed",
  interview: "an interview, read again after it completed",
  interviews: "a study's interviews, read again after one completed",
  report: "the deprecated report, read again after an interview completed",
  releases: "the releases, read again after one was planted",
  chats: "the chats, read again after one was planted",
  webhook: "the webhook, read again after it moved",
} as const;

/** A read as first made: its answer and the validators a client keeps. */
interface Kept {
  path: string;
  reply: Reply;
  etag?: string;
  since: string;
}

const header = (reply: Reply, name: string): string | undefined => {
  const v = reply.headers?.get(name);
  return v ? v : undefined;
};

/** Until the next second's start, and a little past it: a change then is after every second-grained date of the read. */
const nextSecond = () => new Promise((resolve) => setTimeout(resolve, 1_050 - (Date.now() % 1_000)));

async function keep(env: CoverEnv, path: string): Promise<Kept> {
  const startedAt = Date.now();
  const reply = await env.req(path);
  // If-Modified-Since: the answer's Last-Modified, else the time the client read it (its Date, else the second it asked).
  const since = header(reply, "last-modified") ?? header(reply, "date") ?? new Date(Math.floor(startedAt / 1000) * 1000).toUTCString();
  return { path, reply, etag: header(reply, "etag"), since };
}

/**
 * Reads `kept.path` again plainly, and, where the answer changed, conditionally with each validator the client kept:
 * none of those may be a 304. Returns whether the class was judged (an unchanged answer shows nothing).
 */
async function judge(env: CoverEnv, cls: string, kept: Kept): Promise<boolean> {
  const now = await env.req(kept.path);
  if (now.status !== 200 || kept.reply.status !== 200 || JSON.stringify(now.body) === JSON.stringify(kept.reply.body)) {
    env.ctx.note(`cover revalidation: ${kept.path} answered ${kept.reply.status}, then ${now.status}${now.status === 200 && kept.reply.status === 200 ? " with the same body" : ""} after the change: ${cls} could not be judged`);
    return false;
  }
  let ok = true;
  const conditions: Array<[string, string]> = [["if-modified-since", kept.since], ...(kept.etag ? [["if-none-match", kept.etag] as [string, string]] : [])];
  for (const [name, value] of conditions) {
    const again = await env.req(kept.path, { headers: { [name]: value } });
    ok = env.expect(r.revalidated, again.status !== 304, `GET ${kept.path} with ${name}: ${value} (what the first answer gave a client to revalidate with) answered 304 after ${cls.replace(/^.*read again after /, "")}, though the answer changed (${JSON.stringify(kept.reply.body).slice(0, 160)} then ${JSON.stringify(now.body).slice(0, 160)}): the client keeps its stale copy`, again) && ok;
  }
  return ok;
}

const listed = (reply: Reply, id: string) => Array.isArray(reply.body?.data) && reply.body.data.some((x: { id?: unknown }) => x?.id === id);

/** The pages of a list, walked from `first` (at most 50), each kept as a read. */
async function walk(env: CoverEnv, first: string): Promise<Kept[]> {
  const pages: Kept[] = [];
  let path = first;
  for (let n = 0; n < 50; n++) {
    const page = await keep(env, path);
    pages.push(page);
    const data = page.reply.body?.data;
    if (page.reply.status !== 200 || page.reply.body?.has_more !== true || !Array.isArray(data) || data.length === 0) break;
    path = `${first}&starting_after=${encodeURIComponent(String(data[data.length - 1]?.id))}`;
  }
  return pages;
}

export const revalidation: Unit = {
  name: "revalidation",
  doc: "a study, the study list's page that holds it, an interview, a study's interviews, the deprecated report, the releases, the chats and the webhook each read, changed (an interview completed, or a study planted; a release, a chat planted; the webhook moved) and read again with If-Modified-Since and the ETag the first answer gave: never a 304 where the answer changed",
  needs: ["plant-study"],
  rules: [r.revalidated],
  // Its reads and plants beside receiver-answers made a store that answers on its event loop (SQLite in WebAssembly)
  // send retries late on a loaded machine: it runs after the others, one alone unit at a time.
  alone: true,
  classes: (ctx) => [
    C.studies,
    ...(ctx.states.has("plant-interview", "hold", "complete") ? [C.study, C.interview, C.interviews, C.report] : []),
    ...(ctx.states.has("plant-release") ? [C.releases] : []),
    ...(ctx.states.has("plant-chat") ? [C.chats] : []),
    C.webhook,
  ],
  async run(env) {
    const { ctx } = env;
    const reach = async (cls: string, kept: Kept) => {
      if (await judge(env, cls, kept)) env.reach(cls, r.revalidated.cites);
    };
    const { id: study } = await ctx.states.plantStudy({ name: "Revalidation", weekly_limit: null, monthly_limit: null }, env.project);

    // The study list's page that holds the study (the run's project may hold more than a page of studies, in any order).
    const pages = await walk(env, "/v1/studies?limit=100");
    const holding = pages.find((p) => listed(p.reply, study));
    if (ctx.states.has("plant-interview", "hold", "complete")) {
      // The study list's page and the deprecated report are read before the interview is planted: a service may count
      // it in used (and in its report) from its start or from its completion, and either changes them by the time they
      // are read again. The completion changes the rest: the study's interview_count, the interview's status, the
      // study's interviews.
      const page = holding ? await keep(env, holding.path) : null;
      const report = await keep(env, "/v1/experiments");
      await nextSecond();
      const { id: interview } = await ctx.states.plantInterview({ study_id: study, hold: true, reference_id: "revalidation" }, env.project);
      const kept = await Promise.all([`/v1/studies/${study}`, `/v1/interviews/${interview}`, `/v1/interviews?study_id=${study}`].map((p) => keep(env, p)));
      await nextSecond();
      await ctx.states.completeInterview(interview, env.project);
      await untilCompleted(env.http, interview, completionWaitMs(ctx.options));
      for (const [cls, k] of [[C.study, kept[0]], [C.interview, kept[1]], [C.interviews, kept[2]], [C.report, report]] as const) await reach(cls, k);
      if (page) await reach(C.studies, page);
      else ctx.note(`cover revalidation: no page of the study list held the study planted (${study}): ${C.studies} could not be judged`);
    } else {
      // A study planted lands on one of the pages, or moves items across them: each page that changed is judged.
      await nextSecond();
      await ctx.states.plantStudy({ name: "Revalidation, planted after the read", weekly_limit: null, monthly_limit: null }, env.project);
      let judged = 0;
      let ok = true;
      for (const page of pages) {
        const now = await env.req(page.path);
        if (now.status !== 200 || JSON.stringify(now.body) === JSON.stringify(page.reply.body)) continue;
        judged++;
        ok = (await judge(env, C.studies, page)) && ok;
      }
      if (judged && ok) env.reach(C.studies, r.revalidated.cites);
      else if (!judged) ctx.note(`cover revalidation: no page of the study list changed after a study was planted: ${C.studies} could not be judged`);
    }

    if (ctx.states.has("plant-release")) {
      const releases = await keep(env, "/v1/releases");
      await nextSecond();
      await ctx.states.plantRelease({ vcs_pr_number: 900, vcs_pr_title: "Revalidation", status: "active", merged_at: new Date().toISOString() }, env.project);
      await reach(C.releases, releases);
    }
    if (ctx.states.has("plant-chat")) {
      const chats = await keep(env, "/v1/chats");
      await nextSecond();
      await ctx.states.plantChat({ title: "Revalidation", messages: [{ role: "user", parts: [{ type: "text", text: "again" }] }] }, env.project);
      await reach(C.chats, chats);
    }

    // The webhook, moved: a URL nothing answers (no completion follows while it is in force), removed after.
    const put = (path: string) => env.req("/v1/webhooks", { method: "PUT", body: { url: `https://hooks.example.com/cover/revalidation/${path}`, events: ["interview.completed"] } });
    if ((await put("first")).status < 300) {
      try {
        const webhook = await keep(env, "/v1/webhooks");
        await nextSecond();
        await put("moved");
        await reach(C.webhook, webhook);
      } finally {
        await env.req("/v1/webhooks", { method: "DELETE" });
      }
    } else ctx.note("cover revalidation: PUT /v1/webhooks to https://hooks.example.com was refused: the webhook's read could not be judged");
  },
};
