/**
 * Every status and visibility, every run, and lists predicted whole: studies planted in each status (their names and
 * questions read back as given: padded, decomposed, mixed case, and no questions at all), chats in each visibility,
 * interviews held started and completed (its created_at and started_at unchanged by the completion). In a project of
 * its own every list is exactly what the unit planted (ids, order aside); in the run's project, each planted item is
 * where it must be and nowhere else.
 */
import { completionWaitMs, untilCompleted } from "../judge/completion.ts";
import type { Unit } from "./unit.ts";
import { r } from "./rules.ts";

const STATUSES = ["active", "paused", "draft"] as const;
const VISIBILITIES = ["visible", "internal", "evaluation", "release"] as const;

const sorted = (ids: string[]) => [...ids].sort();

export const lists: Unit = {
  name: "lists",
  doc: "studies planted in each status, chats in each visibility, interviews started and completed (and listed and read while their study is paused or draft): each reads back, and every list is predicted whole (exactly what was planted, in a project of the unit's own)",
  needs: ["plant-study"],
  rules: [r["lists-whole"], r["timestamps-kept"]],
  classes: (ctx) => [
    ...STATUSES.map((s) => `study ${s}`),
    "questions padded, and none",
    ...(ctx.states.has("plant-chat") ? VISIBILITIES.map((v) => `chat ${v}`) : []),
    ...(ctx.states.has("plant-interview", "hold", "complete") ? ["interview started", "interview completed", "an interview's instants across its completion"] : []),
    ...(ctx.states.has("plant-interview", "hold", "complete", "study-status") ? ["interviews of a study paused", "interviews of a study draft"] : []),
  ],
  async run(env) {
    const { ctx } = env;
    // Names with spaces at the start and within, a decomposed accent, mixed case, markup and quotes: kept as given,
    // never trimmed, normalized or escaped for HTML (the run's id ends it).
    const nameOf = (status: string) => `  Status ${status} e\u0301 É😀 <b>&amp;</b> "q" 'a'\t `;
    // Questions kept as given too: padded, with a CRLF, a decomposed accent and an emoji; and none at all ([], not a default).
    const questionsOf = (status: string) => (status === "paused" ? [] : [{ text: "  Padded question? " }, { text: "CRLF\r\nquestion e\u0301 😀" }]);
    const studies = await Promise.all(STATUSES.map(async (status) => ({ status, id: (await ctx.states.plantStudy({ name: nameOf(status), status, weekly_limit: null, monthly_limit: null, questions: questionsOf(status) }, env.project)).id })));
    const listed: string[] = (await env.http.walk("/v1/studies", 100)).items.map((s: any) => s.id);
    const mine = studies.map((s) => s.id);
    const seen = env.own ? listed : listed.filter((id) => mine.includes(id));
    const want = studies.filter((s) => s.status === "active").map((s) => s.id);
    env.expect(r["lists-whole"], JSON.stringify(sorted(seen)) === JSON.stringify(sorted(want)), `GET /v1/studies lists ${JSON.stringify(seen)}${env.own ? " in a project holding only the unit's studies" : " of the unit's studies"}, not exactly the active one ${JSON.stringify(want)}`);
    for (const s of studies) {
      const read = await env.req(`/v1/studies/${s.id}`);
      const questions = questionsOf(s.status);
      env.expect(r["lists-whole"], read.status === 200 && read.body?.status === s.status && read.body?.name === ctx.states.name(nameOf(s.status)) && JSON.stringify(read.body?.questions) === JSON.stringify(questions), `a study planted ${s.status} named ${JSON.stringify(ctx.states.name(nameOf(s.status)))} (the run's id added) with questions ${JSON.stringify(questions)} reads ${read.status} with status ${JSON.stringify(read.body?.status)}, name ${JSON.stringify(read.body?.name)} and questions ${JSON.stringify(read.body?.questions)}`, read);
      env.reach(`study ${s.status}`, r["lists-whole"].cites);
    }
    env.reach("questions padded, and none", r["lists-whole"].cites);
    if (ctx.states.has("plant-chat")) {
      const chats = await Promise.all(VISIBILITIES.map(async (visibility) => ({ visibility, id: (await ctx.states.plantChat({ title: `Visibility ${visibility}`, visibility, messages: [{ role: "user", parts: [{ type: "text", text: "hello" }] }] }, env.project)).id })));
      const all: string[] = (await env.http.walk("/v1/chats", 100)).items.map((c: any) => c.id);
      const ours = chats.map((c) => c.id);
      const got = env.own ? all : all.filter((id) => ours.includes(id));
      const visible = chats.filter((c) => c.visibility === "visible").map((c) => c.id);
      env.expect(r["lists-whole"], JSON.stringify(sorted(got)) === JSON.stringify(sorted(visible)), `GET /v1/chats lists ${JSON.stringify(got)}, not exactly the visible chat ${JSON.stringify(visible)}`);
      for (const c of chats) {
        const [read, msgs] = [await env.req(`/v1/chats/${c.id}`), await env.req(`/v1/chats/${c.id}/messages`)];
        const want = c.visibility === "visible" ? 200 : 404;
        env.expect(r["lists-whole"], read.status === want && msgs.status === want, `a chat planted ${c.visibility} answers ${read.status} and its messages ${msgs.status}, not ${want}`, read);
        env.reach(`chat ${c.visibility}`, r["lists-whole"].cites);
      }
    }
    if (ctx.states.has("plant-interview", "hold", "complete")) {
      const active = studies.find((s) => s.status === "active")!.id;
      const [started, done] = await Promise.all([0, 1].map(async () => (await ctx.states.plantInterview({ study_id: active, hold: true }, env.project)).id));
      const before = await env.req(`/v1/interviews/${done}`);
      await ctx.states.completeInterview(done, env.project);
      await untilCompleted(env.http, done, completionWaitMs(ctx.options));
      // The record's creation and the respondent's start are facts of the past: completing changes neither, and the
      // completion's instant, once read, stays.
      const [after, again] = [await env.req(`/v1/interviews/${done}`), await env.req(`/v1/interviews/${done}`)];
      const stamps = (x: any) => JSON.stringify([x?.created_at, x?.started_at]);
      const kept = before.status === 200 && after.status === 200 && stamps(before.body) === stamps(after.body) && typeof after.body?.completed_at === "string" && Date.parse(after.body.completed_at) >= Date.parse(after.body.started_at) && again.body?.completed_at === after.body.completed_at;
      env.expect(r["timestamps-kept"], kept, `interview ${done} read created_at and started_at ${stamps(before.body)} while started, ${stamps(after.body)} once completed, and completed_at ${JSON.stringify(after.body?.completed_at)}, then ${JSON.stringify(again.body?.completed_at)}: completing changes neither instant, and completed_at, not before started_at, stays`, after);
      env.reach("an interview's instants across its completion", r["timestamps-kept"].cites);
      for (const [status, id] of [["started", started], ["completed", done]] as const) {
        const walk = await env.http.walk(`/v1/interviews?study_id=${active}&status=${status}`, 100);
        const got = walk.items.map((i: any) => i.id);
        env.expect(r["lists-whole"], JSON.stringify(got) === JSON.stringify([id]), `GET /v1/interviews?study_id=${active}&status=${status} lists ${JSON.stringify(got)}, not exactly [${id}]`, walk.pages[0]);
        const read = await env.req(`/v1/interviews/${id}`);
        // Its retrieval has the detail's fields in either status (a transcript and question_answers, empty or not).
        ctx.conforms(read, `GET /v1/interviews/{id} (${status})`);
        env.expect(r["lists-whole"], read.body?.status === status, `interview ${id} reads status ${JSON.stringify(read.body?.status)}, not ${status}`, read);
        env.reach(`interview ${status}`, r["lists-whole"].cites);
      }
      // GET /v1/studies lists active studies only; GET /v1/interviews restricts by nothing but its filters: a study's
      // interviews stay listed, whole, while it is paused or draft.
      if (ctx.states.has("study-status")) {
        for (const status of ["paused", "draft"] as const) {
          await ctx.states.setStudyStatus(active, status, env.project);
          const byStudy = await env.http.walk(`/v1/interviews?study_id=${active}`, 100);
          const whole = await env.http.walk("/v1/interviews", 100);
          const all: string[] = whole.items.map((i: any) => i.id);
          const got = sorted(byStudy.items.map((i: any) => i.id));
          const want = sorted([started, done]);
          // A target that needs study_id has no unfiltered list: its study's list above is the whole judgement.
          const inAll = whole.scoped ? want : sorted(env.own ? all : all.filter((id) => id === started || id === done));
          env.expect(r["lists-whole"], JSON.stringify(got) === JSON.stringify(want) && JSON.stringify(inAll) === JSON.stringify(want), `with their study set ${status}, GET /v1/interviews?study_id=${active} lists ${JSON.stringify(got)} and GET /v1/interviews ${JSON.stringify(inAll)}${env.own ? "" : " of them"}, not the study's interviews ${JSON.stringify(want)}: only their filters restrict the interviews listed`, byStudy.pages[0]);
          // And each read alone as it was: a study's status hides none of its interviews from retrieval either.
          for (const [id, was] of [[started, "started"], [done, "completed"]] as const) {
            const read = await env.req(`/v1/interviews/${id}`);
            env.expect(r["lists-whole"], read.status === 200 && read.body?.id === id && read.body?.status === was, `with its study set ${status}, GET /v1/interviews/${id} answers ${read.status} with status ${JSON.stringify(read.body?.status)}, not 200 with ${was}: a single-resource retrieval is 404 only when the id does not exist or belongs to another project`, read);
          }
          env.reach(`interviews of a study ${status}`, r["lists-whole"].cites);
        }
        await ctx.states.setStudyStatus(active, "active", env.project);
      }
    }
  },
};
