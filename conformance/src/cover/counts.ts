/**
 * Counts at every class, every run: 0, 1, a page, 100, 101 and past a cap. A study capped at 101 a week takes 101
 * interviews, one at a time up to 1 and then in batches: accepting below the cap, not at it, the 102nd refused;
 * `used` and `interview_count` say 101, and its interviews walk as 100 + 1 at limit 100 and as six pages by default.
 * Chats of 0, 1, 100, 101 and 150 visible messages (a hidden one among them where the target plants one; those of 1
 * and 101 streaming a response): message_count and the walk agree, oldest first, with has_more exactly when more
 * remain (the walk of 150 takes cursors past the first 100), and the page after the last is empty. And
 * interview_count read while an interview is processing, in a study without caps and in one with caps: not counted
 * until it completes; the study's list filtered by status=processing then holds it alone. At each count the studies list shows the study's limits and accepting_responses as its retrieval just read them.
 */
import { completionWaitMs, untilCompleted } from "../judge/completion.ts";
import { refusal } from "../states/types.ts";
import type { PlantChatInput } from "../states/types.ts";
import { until, type CoverEnv, type Unit } from "./unit.ts";
import { r } from "./rules.ts";

const CAP = 101;
const PAUSED = "counts of a study paused";
const CAPPED = ", in a study with caps";
/** The window read with the study paused in it: a paused study's interviews stay listed by every filter. */
const WINDOW_PAUSED = ", its study paused";

async function study(env: CoverEnv, id: string) {
  const reply = await env.req(`/v1/studies/${id}`);
  return { reply, s: reply.body ?? {} };
}

/** The study's interviews walked at `limit`: the page sizes and has_more of each page. */
async function pagesOf(env: CoverEnv, id: string, limit: number | null) {
  const sizes: number[] = [];
  const more: boolean[] = [];
  const ids: string[] = [];
  let after = "";
  for (let n = 0; n < 20; n++) {
    const reply = await env.req(`/v1/interviews?study_id=${id}${limit ? `&limit=${limit}` : ""}${after ? `&starting_after=${after}` : ""}`);
    const data: any[] = reply.body?.data ?? [];
    sizes.push(data.length);
    more.push(reply.body?.has_more);
    ids.push(...data.map((i) => i.id));
    if (reply.status !== 200 || !reply.body?.has_more || !data.length) return { sizes, more, ids, reply };
    after = data[data.length - 1].id;
  }
  return { sizes, more, ids, reply: null };
}

/**
 * The study as the list shows it, read between two retrievals (the first already made, `read`): its caps as read, its
 * `used` between the two reads' (an interview may count once it completes, in between) and its accepting_responses
 * one of theirs. The seed lets callers cache the list, not the service serve a count that has changed.
 */
async function listedAsRead(env: CoverEnv, id: string, read: any): Promise<void> {
  const listed = await env.http.walk("/v1/studies", 100);
  const item = listed.items.find((x: any) => x?.id === id);
  const after = (await study(env, id)).s;
  const between = (k: "weekly" | "monthly") => {
    const [lo, at, hi] = [read, item, after].map((x) => x?.limits?.[k]);
    return at?.limit === lo?.limit && typeof at?.used === "number" && at.used >= lo?.used && at.used <= hi?.used;
  };
  const ok = item !== undefined && between("weekly") && between("monthly") && [read?.accepting_responses, after?.accepting_responses].includes(item.accepting_responses);
  env.expect(r.counts, ok, `the study's retrievals read limits ${JSON.stringify(read?.limits)} then ${JSON.stringify(after?.limits)} (accepting_responses ${read?.accepting_responses}, then ${after?.accepting_responses}), and GET /v1/studies between them ${item ? `lists it with limits ${JSON.stringify(item.limits)} and accepting_responses ${item.accepting_responses}` : "does not list it"}`, listed.pages[listed.pages.length - 1]);
}

async function interviews(env: CoverEnv): Promise<void> {
  const { ctx } = env;
  const { id } = await ctx.states.plantStudy({ name: "Counts", weekly_limit: CAP, monthly_limit: null }, env.project);
  const made: string[] = [];
  const judgeAt = async (n: number, cls: string) => {
    const { reply, s } = await study(env, id);
    const used = [s.limits?.weekly?.used, s.limits?.monthly?.used];
    // used lies between the completed interviews and the created ones (the seed does not say when one counts).
    const completedNow = (await env.http.walk(`/v1/interviews?study_id=${id}&status=completed`, 100)).items.length;
    env.expect(r.counts, used.every((u) => typeof u === "number" && u >= completedNow && u <= n), `with ${n} interviews created (${completedNow} completed) the study's limits.weekly.used and limits.monthly.used are ${JSON.stringify(used)}`, reply);
    const accepting = s.status === "active" && (s.limits?.weekly?.used ?? 0) < CAP;
    env.expect(r["cap-transition"], s.accepting_responses === accepting, `with limits.weekly ${JSON.stringify(s.limits?.weekly)} (cap ${CAP}) accepting_responses is ${s.accepting_responses}`, reply);
    await listedAsRead(env, id, s);
    env.reach(cls, [...r.counts.cites, ...r["cap-transition"].cites]);
  };
  await judgeAt(0, "count 0");
  const plant = async () => made.push((await ctx.states.plantInterview({ study_id: id }, env.project)).id);
  await plant();
  await judgeAt(1, "count 1");
  // Up to 101, ten at a time (the service runs each to completion on its own timer).
  while (made.length < CAP) await Promise.all(Array.from({ length: Math.min(10, CAP - made.length) }, plant));
  // Every one completed: then used and interview_count are exact.
  const wait = completionWaitMs(ctx.options) + 10_000;
  await until(async () => (await env.http.walk(`/v1/interviews?study_id=${id}&status=completed`, 100)).items.length >= CAP, wait, 250);
  const { reply, s } = await study(env, id);
  const exact = [s.limits?.weekly?.used, s.limits?.monthly?.used, s.interview_count];
  env.expect(r.counts, exact.every((v) => v === CAP), `with ${CAP} completed interviews, limits.weekly.used, limits.monthly.used and interview_count are ${JSON.stringify(exact)}, not ${CAP} each`, reply);
  env.expect(r["cap-transition"], s.accepting_responses === false, `at its weekly cap of ${CAP} (used ${s.limits?.weekly?.used}) the study reads accepting_responses ${s.accepting_responses}`, reply);
  await listedAsRead(env, id, s);
  env.reach("count 101", r.counts.cites);
  try {
    await ctx.states.plantInterview({ study_id: id }, env.project);
    env.expect(r["cap-transition"], false, `an interview past the weekly cap of ${CAP} was accepted`);
  } catch (err) {
    const refused = refusal(err);
    if (!refused) throw err;
    env.expect(r["cap-transition"], refused.reason === "not-accepting", `the interview past the cap was refused as ${refused.reason} (${refused.message}), not as a study not accepting responses`);
  }
  // Still active: listed among the project's active studies, accepting or not.
  const listed = await env.http.walk("/v1/studies", 100);
  env.expect(r["cap-transition"], listed.items.some((x: any) => x.id === id), `the active study at its cap (accepting_responses false) is not listed by GET /v1/studies, which lists the project's active studies`, listed.pages[listed.pages.length - 1]);
  env.reach("past a cap", r["cap-transition"].cites);
  const at100 = await pagesOf(env, id, 100);
  env.expect(r.counts, JSON.stringify(at100.sizes) === "[100,1]" && JSON.stringify(at100.more) === "[true,false]" && new Set(at100.ids).size === CAP, `the study's ${CAP} interviews walk at limit 100 as pages of ${JSON.stringify(at100.sizes)} with has_more ${JSON.stringify(at100.more)} (${new Set(at100.ids).size} distinct), not [100, 1] with [true, false]`, at100.reply ?? undefined);
  const byDefault = await pagesOf(env, id, null);
  env.expect(r.counts, JSON.stringify(byDefault.sizes) === "[20,20,20,20,20,1]" && new Set(byDefault.ids).size === CAP, `the study's ${CAP} interviews walk at the default page size as pages of ${JSON.stringify(byDefault.sizes)}, not five of 20 and one of 1`, byDefault.reply ?? undefined);
  env.reach("a page", r.counts.cites);
  // Paused: its counts are still its interviews' (interview_count the completed ones, used those of the window); a
  // pause neither resets nor hides them. Then active again, as it was.
  if (ctx.states.has("study-status")) {
    await ctx.states.setStudyStatus(id, "paused", env.project);
    const paused = await study(env, id);
    const counted = [paused.s.limits?.weekly?.used, paused.s.limits?.monthly?.used, paused.s.interview_count];
    const ok = env.expect(r.counts, paused.reply.status === 200 && paused.s.status === "paused" && counted.every((v) => v === CAP), `paused, the study of ${CAP} completed interviews reads status ${JSON.stringify(paused.s.status)} (${paused.reply.status}) with limits.weekly.used, limits.monthly.used and interview_count ${JSON.stringify(counted)}, not ${CAP} each`, paused.reply);
    await ctx.states.setStudyStatus(id, "active", env.project);
    if (ok) env.reach(PAUSED, r.counts.cites);
  }
}

/**
 * interview_count read while one of the study's interviews is processing. A study read followed by a read of the
 * interview that still reads processing (and read so before) was read inside that window. Completing a held interview
 * may answer `processing`; where it answers `completed` at once (no window), an interview is planted to run on the
 * service's own timer and watched until it reads processing. Where processing is short (a twentieth of a second), a
 * read may land after it: up to eight interviews are finished, each waited to its completion, until one lands inside.
 */
async function processing(env: CoverEnv, capped: boolean, paused = false): Promise<void> {
  const { ctx } = env;
  // Uncapped, and capped far above what it takes: a count that changes with the caps' presence is judged in both.
  const cap = capped ? 1_000 : null;
  const { id } = await ctx.states.plantStudy({ name: `Counts while processing${capped ? ", capped" : ""}${paused ? ", paused" : ""}`, weekly_limit: cap, monthly_limit: cap }, env.project);
  const suffix = paused ? WINDOW_PAUSED : capped ? CAPPED : "";
  const wait = completionWaitMs(ctx.options);
  let held = ctx.states.has("hold") && ctx.states.has("complete");
  /** Interviews watched on the service's timer that went to completed without ever reading processing. */
  let unseen = 0;
  /** Each try that read processing and then missed it: how long the study read and the interview's read took. */
  const missed: number[] = [];
  // Both classes of the window: whatever settles one settles the other.
  const reach = () => {
    env.reach(`interview_count while one is processing${suffix}`, r["count-completed"].cites);
    env.reach(`status=processing while one is processing${suffix}`, r["processing-filter"].cites);
  };
  // Paused once its interview is planted (a paused study may take no new ones), before the window opens: the interview
  // processing stays listed by the status filter, and counted as before. Active again for the next try.
  const pause = async () => {
    if (paused) await ctx.states.setStudyStatus(id, "paused", env.project);
  };
  for (let done = 0; done < 8; done++) {
    let interview: string;
    let inWindow = false;
    if (held) {
      interview = (await ctx.states.plantInterview({ study_id: id, hold: true }, env.project)).id;
      await pause();
      inWindow = (await ctx.states.completeInterview(interview, env.project)).status === "processing";
      // No window after an on-demand completion: the service's own timer is watched from the next try.
      held = inWindow;
    } else {
      interview = (await ctx.states.plantInterview({ study_id: id }, env.project)).id;
      await pause();
      const from = Date.now();
      for (let status = ""; status !== "completed" && Date.now() < from + wait; ) {
        status = (await env.req(`/v1/interviews/${interview}`)).body?.status;
        if ((inWindow = status === "processing")) break;
        // Close watch for two seconds (a simulated talk is short), then less often.
        await new Promise((res) => setTimeout(res, Date.now() - from < 2_000 ? 10 : 50));
      }
      if (!inWindow && ++unseen === 2) {
        // Watched closely twice and never processing: the service shows no such window, so nothing can be counted in it.
        ctx.note(`cover counts: two interviews run on the service's timer went to completed without ever reading processing (watched every 10 ms for their first two seconds, every 50 ms after): interview_count and the status filter have no processing window to be read in`);
        return reach();
      }
    }
    if (inWindow) {
      const t = Date.now();
      // Side by side, so that both land in a short window.
      const [read, listed] = await Promise.all([env.req(`/v1/studies/${id}`), env.req(`/v1/interviews?study_id=${id}&status=processing&limit=100`)]);
      if ((await env.req(`/v1/interviews/${interview}`)).body?.status === "processing") {
        env.expect(r["count-completed"], read.status === 200 && read.body?.interview_count === done, `read while interview ${interview} was processing, with ${done} completed before it, the study's interview_count is ${JSON.stringify(read.body?.interview_count)} (${read.status}), not ${done}: it counts completed interviews only`, read);
        // The status filter's third value: the one processing interview, none of the completed ones.
        const ids = (listed.body?.data ?? []).map((x: any) => x?.id);
        env.expect(r["processing-filter"], listed.status === 200 && ids.length === 1 && ids[0] === interview, `read while interview ${interview} was processing (and ${done} of the study's were completed)${paused ? ", its study paused" : ""}, GET /v1/interviews?study_id=${id}&status=processing answered ${listed.status} listing ${JSON.stringify(ids)}, not that one interview`, listed);
        return reach();
      }
      missed.push(Date.now() - t);
    }
    const got = await untilCompleted(env.http, interview, wait);
    if (paused) await ctx.states.setStudyStatus(id, "active", env.project);
    if (got.reply.body?.status !== "completed") return;
  }
  // Eight tries, each over before the reads could land inside it, never seen processing at all, or completed on demand
  // with no window: a window that short cannot be read in from outside (the service's processing is quicker than its
  // answers), which the report says.
  ctx.note(`cover counts: of 8 interviews, ${missed.length} read processing and were over within the study read and the list filtered by status=processing (side by side) and the interview's read that followed (${missed.join(", ")} ms), ${unseen} went to completed between two reads of them, and the rest completed on demand with no window: interview_count and the filter could not be read inside a processing window this short`);
  reach();
}

async function messages(env: CoverEnv): Promise<void> {
  const { ctx } = env;
  const hidden = ctx.states.has("hidden-messages");
  // 150: its walk by default takes cursors past the first 100 (where a lookup bounded by the largest page loses them).
  for (const n of [0, 1, 100, 101, 150]) {
    const msgs: PlantChatInput["messages"] = Array.from({ length: n }, (_, k) => ({ role: k % 2 ? "assistant" : "user", parts: [{ type: "text", text: `message ${k + 1} of ${n}` }] }));
    // A hidden-branch message in the middle: never listed, never counted.
    if (hidden && n > 1) msgs.splice(Math.floor(n / 2), 0, { role: "assistant", parts: [{ type: "text", text: "a hidden branch" }], hidden: true });
    // The chats of 1 and 101 are streaming a response, the 101st message still being written: a count that changes
    // while a chat streams is judged too.
    const streaming = n % 2 === 1;
    if (streaming) msgs[msgs.length - 1] = { ...msgs[msgs.length - 1], streaming: true };
    const chat = await ctx.states.plantChat({ title: `${n} messages`, is_streaming: streaming, messages: msgs }, env.project);
    const visible = chat.message_ids.filter((_, k) => !msgs[k].hidden);
    const read = await env.req(`/v1/chats/${chat.id}`);
    env.expect(r["message-count"], read.status === 200 && read.body?.message_count === n, `a chat of ${n} visible messages${streaming ? ", streaming a response," : ""} reads message_count ${JSON.stringify(read.body?.message_count)} (${read.status})`, read);
    const page = await env.req(`/v1/chats/${chat.id}/messages?limit=100`);
    const first: string[] = (page.body?.data ?? []).map((m: any) => m.id);
    env.expect(r["message-count"], page.status === 200 && JSON.stringify(first) === JSON.stringify(visible.slice(0, 100)) && page.body?.has_more === n > 100, `the first page at limit 100 of a chat of ${n} visible messages holds ${first.length} (has_more ${page.body?.has_more}), not its first ${Math.min(n, 100)} visible messages oldest first with has_more ${n > 100}`, page);
    const walk = await env.http.walk(`/v1/chats/${chat.id}/messages`, 20);
    env.expect(r["message-count"], JSON.stringify(walk.items.map((m: any) => m.id)) === JSON.stringify(visible), `a chat of ${n} visible messages walks at the default page size as ${walk.items.length} messages, not its ${n} visible ones oldest first`, walk.pages[walk.pages.length - 1]);
    // The last visible message is a visible message of the chat: as a cursor, it gives the (empty) page after it.
    if (n > 0) {
      const after = await env.req(`/v1/chats/${chat.id}/messages?starting_after=${visible[visible.length - 1]}`);
      env.expect(r["message-count"], after.status === 200 && Array.isArray(after.body?.data) && after.body.data.length === 0 && after.body?.has_more === false, `the page after the last of a chat's ${n} visible messages answered ${after.status} with ${JSON.stringify(after.body?.data?.length ?? after.body)} item(s) and has_more ${after.body?.has_more}, not an empty page with has_more false (it is a visible message of the chat)`, after);
    }
    env.reach(`messages ${n}`, r["message-count"].cites);
  }
}

export const counts: Unit = {
  name: "counts",
  doc: "counts at 0, 1, a page, 100, 101 and past a cap: a study capped at 101 (used, interview_count, accepting at and past the cap, walks of 100 + 1 and six default pages, its counts the same once paused), chats of 0, 1, 100, 101 and 150 visible messages (message_count, the walk, with cursors past the first 100 in the chat of 150, and the empty page after the last; those of 1 and 101 streaming), and interview_count and the list filtered by status=processing read while an interview is processing (in a study without caps and in one with caps)",
  needs: ["plant-study", "plant-interview"],
  rules: [r["counts"], r["cap-transition"], r["message-count"], r["count-completed"], r["processing-filter"]],
  classes: (ctx) => [
    "count 0", "count 1", "a page", "count 101", "past a cap", ...(ctx.states.has("study-status") ? [PAUSED] : []), ...(ctx.states.has("plant-chat") ? ["messages 0", "messages 1", "messages 100", "messages 101", "messages 150"] : []),
    ...["", CAPPED, ...(ctx.states.has("study-status") ? [WINDOW_PAUSED] : [])].flatMap((c) => [`interview_count while one is processing${c}`, `status=processing while one is processing${c}`]),
  ],
  async run(env) {
    const { states } = env.ctx;
    await Promise.all([interviews(env), states.has("plant-chat") ? messages(env) : undefined, processing(env, false).then(() => processing(env, true)).then(() => (states.has("study-status") ? processing(env, false, true) : undefined))]);
  },
};
