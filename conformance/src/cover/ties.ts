/**
 * Ties on every page boundary, every run. A cursor that holds only an item's instant (a keyset of `created_at` alone)
 * skips or repeats the items that share it, and a target's own data rarely puts a page boundary inside such a group.
 * So the unit plants one: chats created at one millisecond, between a chat a millisecond older and one a millisecond
 * newer; a chat's messages recorded at one millisecond between one a millisecond older and one newer; and a study's
 * interviews created at one millisecond beside one just before and one just after. Each list is walked at every limit
 * from 1 to the size of the group, so a boundary falls after each item of it: every item is listed exactly once, none
 * of another, the chats newest created_at first and the messages oldest first.
 */
import { sameInstant } from "../judge/same.ts";
import type { CoverEnv, Unit } from "./unit.ts";
import { tieProblem, walk } from "./tie-walk.ts";
import { describeCapability } from "../states/capabilities.ts";
import { r } from "./rules.ts";

/** Items sharing one instant. */
const GROUP = 4;
/** Every limit from 1 to the group's size: together they put a page boundary after each item of it. */
const LIMITS = Array.from({ length: GROUP }, (_, k) => k + 1);

/** An instant as the seed writes it. */
const at = (ms: number) => new Date(ms).toISOString();

export const ties: Unit = {
  name: "ties",
  doc: `chats created at one millisecond (between one a millisecond older and one newer), a chat's messages recorded at one millisecond (likewise), and a study's interviews at one millisecond beside one just before and after, walked at every limit from 1 to ${GROUP}: every item once, none of another, chats newest first, messages oldest first`,
  needs: [],
  rules: [r.ties],
  classes: (ctx) => [
    ...(ctx.states.has("plant-chat", "chat-fields") ? LIMITS.flatMap((l) => [`chats tied at limit ${l}`, `messages tied at limit ${l}`]) : []),
    ...(ctx.states.has("plant-study", "plant-interview", "created-at") ? LIMITS.map((l) => `interviews tied at limit ${l}`) : []),
  ],
  async run(env) {
    const { ctx } = env;
    // An instant days ago at an odd millisecond: nothing else of the project is likely to share it.
    const t = Date.now() - 3 * 86_400_000 - Math.floor(Math.random() * 86_400_000);
    for (const [what, caps] of [["chats and messages tied at one instant", ["plant-chat", "chat-fields"]], ["interviews tied at one instant", ["plant-study", "plant-interview", "created-at"]]] as const) {
      const lacking = ctx.states.caps.lacking(...caps);
      if (lacking) ctx.untested(`cover ties: ${what} (needs ${describeCapability(lacking.capability)})`, lacking.why);
    }
    if (ctx.states.has("plant-chat", "chat-fields")) {
      const plant = (ms: number, title: string) => ctx.states.plantChat({ title, created_at: at(ms), messages: [{ role: "user", parts: [{ type: "text", text: title }] }] }, env.project).then((c) => c.id);
      const newer = await plant(t + 1, "Tie: newer");
      const group = await Promise.all(Array.from({ length: GROUP }, (_, k) => plant(t, `Tie: ${k + 1} of ${GROUP}`)));
      const older = await plant(t - 1, "Tie: older");
      for (const limit of LIMITS) {
        // From the newer chat on (newest first, the group follows it), so the walk is as short in a shared project.
        const w = await walk(env, "/v1/chats", limit, newer, older, 2 * GROUP + 4);
        const problem = w.broken ?? tieProblem(w.ids, group, older);
        env.expect(r.ties, !problem, `GET /v1/chats walked at limit=${limit} from the chat created a millisecond after ${GROUP} chats created at ${at(t)} (starting_after=${newer}): ${problem}; listed ${JSON.stringify(w.ids)}`, w.pages[w.pages.length - 1]);
        if (!w.broken) env.reach(`chats tied at limit ${limit}`, r.ties.cites);
      }
      await messagesTied(env, t);
    }
    if (ctx.states.has("plant-study", "plant-interview", "created-at")) {
      const study = (await ctx.states.plantStudy({ name: "Ties", status: "active", weekly_limit: null, monthly_limit: null }, env.project)).id;
      // Planted in the past, each completes at once (completed_at a minute after its creation).
      const plant = (ms: number) => ctx.states.plantInterview({ study_id: study, created_at: at(ms), completed_at: at(ms + 60_000) }, env.project).then((i) => i.id);
      const before = await plant(t - 1);
      const group = await Promise.all(Array.from({ length: GROUP }, () => plant(t)));
      const after = await plant(t + 1);
      const all = [before, ...group, after];
      for (const limit of LIMITS) {
        // The seed leaves the interviews' order open: the study's list must hold exactly these, each once.
        const w = await walk(env, `/v1/interviews?study_id=${study}`, limit, undefined, undefined, all.length + 2);
        const problem = w.broken ?? (tieProblem(w.ids, all, undefined) || (w.ids.length !== all.length ? `${w.ids.length} interviews listed, not the study's ${all.length}` : ""));
        env.expect(r.ties, !problem, `GET /v1/interviews?study_id=${study} walked at limit=${limit}, ${GROUP} of the study's ${all.length} interviews created at ${at(t)}: ${problem}; listed ${JSON.stringify(w.ids)}`, w.pages[w.pages.length - 1]);
        if (!w.broken) env.reach(`interviews tied at limit ${limit}`, r.ties.cites);
      }
    }
  },
};

/** A chat's messages: one recorded a millisecond before the group, the group at one instant, one a millisecond after. */
async function messagesTied(env: CoverEnv, t: number): Promise<void> {
  const message = (ms: number, text: string) => ({ role: "user" as const, parts: [{ type: "text" as const, text }], created_at: at(ms) });
  let planted: { id: string; message_ids: string[] };
  try {
    planted = await env.ctx.states.plantChat({ title: "Tie: messages", created_at: at(t - 60_000), messages: [message(t - 1, "older"), ...Array.from({ length: GROUP }, (_, k) => message(t, `tie ${k + 1} of ${GROUP}`)), message(t + 1, "newer")] }, env.project);
  } catch (err) {
    // A simulation surface older than messages planted at chosen instants refuses the field: not the seed's API.
    return env.ctx.untested("cover ties: messages tied at one instant", `the chat with messages at chosen instants was not planted: ${(err as Error).message.slice(0, 200)}`);
  }
  const [older, ...rest] = planted.message_ids;
  const group = rest.slice(0, GROUP);
  const newer = rest[GROUP];
  const path = `/v1/chats/${planted.id}/messages`;
  for (const limit of LIMITS) {
    const w = await walk(env, path, limit, undefined, undefined, 2 * GROUP + 4);
    // The tie is there only if the target kept the instants it was given: otherwise nothing at a boundary was tied.
    const instants = w.pages.flatMap((p) => (Array.isArray(p.body?.data) ? p.body.data : [])).filter((m: any) => group.includes(m?.id)).map((m: any) => m?.created_at);
    if (!w.broken && instants.some((x: unknown) => !sameInstant(x, at(t)))) {
      env.ctx.untested(`cover ties: messages tied at limit ${limit}`, `messages planted at ${at(t)} read back at ${JSON.stringify([...new Set(instants)])}: the target did not keep the instants given`);
      continue;
    }
    const problem = w.broken ?? (w.ids[0] !== older ? `the message recorded a millisecond before the others (${older}) is not listed first` : tieProblem(w.ids.slice(1), group, newer) || (w.ids.length !== GROUP + 2 ? `${w.ids.length} messages listed, not the chat's ${GROUP + 2}` : ""));
    env.expect(r.ties, !problem, `GET ${path} walked at limit=${limit}, ${GROUP} of the chat's ${GROUP + 2} messages recorded at ${at(t)}: ${problem}; listed ${JSON.stringify(w.ids)}`, w.pages[w.pages.length - 1]);
    if (!w.broken) env.reach(`messages tied at limit ${limit}`, r.ties.cites);
  }
}
