/**
 * A launch on each side of a study's cap, every run: in a project of the unit's own holding one study capped at one
 * interview a week (offered in the app on an event of its own, where the target plants trigger rules), the launch the
 * implementation accepts (its states module's launchRequest, else the trigger config's for the study) is eligible
 * while the study accepts responses; the same launch, and the one the trigger config then offers, are declined
 * (not_eligible) once one interview reached the cap (and so is a launch of a study capped at one interview a month, the
 * monthly cap being a usage limit as the weekly one is); sent with another project's public key (the run's), it is never
 * eligible, nor is the study's own link opened as an invite (where its link has an invite link's form), which is declined
 * at the cap too. Where the target can set a study's status, a second study's offered launch is eligible, declined once the
 * study is paused, eligible again once it is active again, and declined again once it is set to draft.
 */
import { ELIGIBLE_MODES as ELIGIBLE, launchBodies, triggerRules, valueAt } from "../judge/participant.ts";
import { Lacking } from "../outcomes.ts";
import type { Reply } from "../http.ts";
import { textOfLength, until, type CoverEnv, type Unit } from "./unit.ts";
import { propertySchema } from "./domain.ts";
import { r } from "./rules.ts";

async function launch(env: CoverEnv, body: unknown, publicKey = env.publicKey!): Promise<Reply> {
  return env.http.req("/v1/interview-participant/launches", { key: null, headers: { "x-public-key": publicKey }, method: "POST", body });
}

/** The run's own public key (--public-key) where it is another project's than the unit's: it may launch none of its studies. */
const strangerKey = (env: CoverEnv): string | undefined => (env.own && env.ctx.options.publicKey && env.ctx.options.publicKey !== env.publicKey ? env.ctx.options.publicKey : undefined);

/**
 * Sends the candidate launches in turn until one is taken (not a 400: a request shape the implementation does not take);
 * the last one sent and its reply (none when there was no candidate).
 */
async function firstTaken(env: CoverEnv, candidates: unknown[]): Promise<{ body: unknown; reply: Reply | undefined }> {
  let body: unknown;
  let reply: Reply | undefined;
  for (const c of candidates) {
    reply = await launch(env, c);
    body = c;
    if (reply.status !== 400) break;
  }
  return { body, reply };
}

/** The contract's longest trigger event (200 characters), with the punctuation analytics event names carry. */
const AT_CAP_EVENT = textOfLength(200, "x", "conformance.launch:at_cap/");

/** The trigger config as read now, its rules found, and the rule naming `studyId` (our contract's `experimentId`), if any. */
async function ruleOf(env: CoverEnv, studyId: string) {
  const config = await env.http.req("/v1/interview-participant/config?referenceId=conformance_user", { key: null, headers: { "x-public-key": env.publicKey! } });
  const found = config.status === 200 ? triggerRules(env.ctx, config.body) : null;
  return { config, found, rule: found?.rules.find((x) => Object.values(x).includes(studyId)) };
}

/**
 * The trigger config's rule for `studyId` names `event`, exactly. Judged where the config shows a rule naming the study;
 * a config whose rules do not name their study leaves it unjudged, not a class unreached.
 */
async function triggerEvent(env: CoverEnv, studyId: string, event: string): Promise<void> {
  const { config, found, rule } = await ruleOf(env, studyId);
  if (!found || !rule) return;
  const named = valueAt(rule, found.event);
  env.expect(r["trigger-event"], named === event, `the trigger config's rule of study ${studyId}, planted with a trigger event of ${event.length} characters, names ${JSON.stringify(named)} in ${found.event}, not ${JSON.stringify(event)}`, config);
}

/** The launches the trigger config offers for `studyId` now (what the rule carries), or none. */
async function offered(env: CoverEnv, studyId: string): Promise<unknown[]> {
  const { found, rule } = await ruleOf(env, studyId);
  return found && rule ? launchBodies(found, rule) : [];
}

export const launches: Unit = {
  name: "launches",
  doc: "a launch on each side of a study's cap, in a project of its own: eligible while the study accepts responses, never with another project's public key, declined (not_eligible) once it reached its weekly cap, and its monthly cap for a study capped monthly, the same request and the trigger config's (each with the study's link opened as an invite too, where it has an invite link's form); a study planted to open in the browser launched external_browser; and a launch offered before its study was paused: declined while paused, eligible once active again, declined once set to draft",
  needs: ["plant-study", "plant-interview"],
  rules: [r["launch-declined"], r["launch-mode"], r["launch-scoped"], r["trigger-event"]],
  classes: (ctx) => ["launch below the cap", ...(ctx.options.publicKey ? ["launch with another project's public key"] : []), "launch at the cap", "launch at a monthly cap", "launch of a study opened in a browser", ...(ctx.states.has("study-status") ? ["launch of a study paused", "launch of a study active again", "launch of a study set to draft"] : [])],
  async run(env) {
    const { ctx } = env;
    if (!env.own || !env.publicKey) {
      // In the run's project a launch may target any of its studies; the classes stay unreached, NOT TESTED.
      ctx.note(`cover launches: ${env.own ? "the created project has no public key" : "the target creates no projects"}, so a launch cannot be tied to one study`);
      return;
    }
    const study = (await ctx.states.plantStudy({ name: "Launch at the cap", status: "active", weekly_limit: 1, monthly_limit: null, trigger_event: AT_CAP_EVENT }, env.project)).id;
    await triggerEvent(env, study, AT_CAP_EVENT);
    // The launch the states module says is eligible, else those the trigger config offers for the study (its own shape).
    const candidates: unknown[] = [];
    try {
      candidates.push(await ctx.states.launchRequest(env.publicKey, env.project));
    } catch (err) {
      if (!(err instanceof Lacking) && (err as { code?: string })?.code !== "STATE_REFUSED") throw err;
    }
    candidates.push(...(await offered(env, study)));
    const { body, reply: below } = await firstTaken(env, candidates);
    // What is judged here is the cap: a launch must first be decided eligible below it (the participant check judges that).
    if (!below || below.status !== 200 || !ELIGIBLE.includes(below.body?.mode)) {
      ctx.note(`cover launches: ${below ? `the launch ${JSON.stringify(body).slice(0, 120)} was decided ${below.status} ${JSON.stringify(below.body?.mode)} below the cap` : "neither the states module nor the trigger config gave a launch of the study"}, so the cap's side was not judged`);
      return;
    }
    env.reach("launch below the cap", r["launch-declined"].cites);
    // The same launch, eligible with its project's public key, sent with another project's: that key launches only
    // its own project's interviews (a decline or a refusal, never an eligible decision).
    const stranger = strangerKey(env);
    // The study's own link opened as an invite, where the target resolves it to an eligible launch.
    const invite = await ownInvite(env, study);
    // Each launch judged below, and the invite where there is one: the same request and what it was below the cap.
    const judged: Array<[unknown, string]> = [[body, `the launch decided ${below.body?.mode} with the study's project's public key`], ...(invite ? [[invite, "the invite code of the study's interview_link, decided eligible with its project's public key"] as [unknown, string]] : [])];
    if (stranger) {
      for (const [sent, what] of judged) {
        const reply = await launch(env, sent, stranger);
        env.expect(r["launch-scoped"], !(reply.status >= 200 && reply.status < 300 && ELIGIBLE.includes(reply.body?.mode)), `${what} (${JSON.stringify(sent).slice(0, 160)}), was decided ${reply.status} ${JSON.stringify(reply.body?.mode)} with another project's public key: it may launch only its own project's interviews`, reply);
      }
      env.reach("launch with another project's public key", r["launch-scoped"].cites);
    }
    await ctx.states.plantInterview({ study_id: study }, env.project);
    const full = await until(async () => (await env.req(`/v1/studies/${study}`)).body?.accepting_responses === false, 5_000, 100);
    if (!full) {
      ctx.note("cover launches: the study capped at one interview a week still reads accepting_responses after one (the cover counts unit judges that), so the launch at the cap was not judged");
      return;
    }
    // The cap holds for the study opened through its link as for a prompt accepted.
    for (const [sent, what] of judged) {
      const again = await launch(env, sent);
      env.expect(r["launch-declined"], again.status === 200 && again.body?.mode === "not_eligible", `${what} below the study's cap (${JSON.stringify(sent).slice(0, 160)}), was decided ${again.status} ${JSON.stringify(again.body?.mode)} once the study reads accepting_responses false, not not_eligible`, again);
    }
    for (const fresh of (await offered(env, study)).slice(0, 1)) {
      const reply = await launch(env, fresh);
      if (reply.status === 400) continue; // a request shape the implementation does not take: the first launch showed its own
      env.expect(r["launch-declined"], reply.status === 200 && reply.body?.mode === "not_eligible", `a launch the trigger config offers for the study at its cap was decided ${reply.status} ${JSON.stringify(reply.body?.mode)}, not not_eligible`, reply);
    }
    env.reach("launch at the cap", r["launch-declined"].cites);
    await monthlyCapLaunch(env);
    await browserLaunch(env);
    if (ctx.states.has("study-status")) await pausedLaunch(env);
  },
};

/**
 * The study's own link opened as an invite (the seed's handleLink: `https://{host}/i/{inviteCode}` or
 * `/interviews/{inviteCode}`, resolved by the server), where its interview_link has that form: the launch request (our
 * contract's shape) when the target decides it eligible with the project's public key, for the scope and the cap to be
 * judged on it too. A target whose links are of another form, or that resolves none of them, shows nothing here (noted).
 */
async function ownInvite(env: CoverEnv, study: string): Promise<Record<string, unknown> | undefined> {
  const link = (await env.req(`/v1/studies/${study}`)).body?.interview_link;
  // The code's form is the contract's (LaunchByInviteCode.inviteCode), the path's the seed's.
  const form = new RegExp(propertySchema(env.ctx.contract, "LaunchByInviteCode", "inviteCode")?.pattern ?? "^[^/]+$");
  let code: string | undefined;
  try {
    code = /^\/(?:i|interviews)\/([^/]+)\/?$/.exec(new URL(String(link)).pathname)?.[1];
  } catch {
    code = undefined;
  }
  if (code !== undefined && !form.test(code)) code = undefined;
  if (!code) {
    env.ctx.note(`cover launches: the study's interview_link (${JSON.stringify(link)}) is not of an invite link's form (/i/{code} or /interviews/{code}), so it was not opened as an invite`);
    return undefined;
  }
  // Our contract's shape for an invite link opened (the seed shows no request fields).
  const body = { referenceId: "conformance_user", inviteCode: code };
  const own = await launch(env, body);
  if (own.status === 200 && ELIGIBLE.includes(own.body?.mode)) return body;
  env.ctx.note(`cover launches: the invite code of the study's own link (${JSON.stringify(body)}) was decided ${own.status} ${JSON.stringify(own.body?.mode)} with its project's public key, so it was not judged at the cap nor with another project's key`);
  return undefined;
}

/**
 * A study capped at one interview a month and not weekly: the launch its trigger config offers is eligible below the cap
 * and declined once one interview reached it ("within all usage limits": the monthly cap counts as the weekly one does).
 */
async function monthlyCapLaunch(env: CoverEnv): Promise<void> {
  const { ctx } = env;
  const study = (await ctx.states.plantStudy({ name: "Launch at a monthly cap", status: "active", weekly_limit: null, monthly_limit: 1, trigger_event: "conformance_launch_monthly_cap" }, env.project)).id;
  const { body, reply: below } = await firstTaken(env, await offered(env, study));
  if (!below || below.status !== 200 || !ELIGIBLE.includes(below.body?.mode)) {
    ctx.note(`cover launches: ${below ? `the trigger config's launch of a study below its monthly cap was decided ${below.status} ${JSON.stringify(below.body?.mode)}` : "the trigger config offered no launch of the study capped monthly"}, so the monthly cap's side was not judged`);
    return;
  }
  await ctx.states.plantInterview({ study_id: study }, env.project);
  if (!(await until(async () => (await env.req(`/v1/studies/${study}`)).body?.accepting_responses === false, 5_000, 100))) {
    ctx.note("cover launches: the study capped at one interview a month still reads accepting_responses after one (the cover counts unit judges that), so its launch at the cap was not judged");
    return;
  }
  const again = await launch(env, body);
  env.expect(r["launch-declined"], again.status === 200 && again.body?.mode === "not_eligible", `the launch decided ${below.body?.mode} below the study's monthly cap of one (${JSON.stringify(body).slice(0, 160)}) was decided ${again.status} ${JSON.stringify(again.body?.mode)} once one interview reached it (the study reads accepting_responses false), not not_eligible`, again);
  env.reach("launch at a monthly cap", r["launch-declined"].cites);
}

/**
 * A study planted to open in the browser (`launch_mode: external_browser`): the launch its trigger config offers is
 * decided `external_browser`, the seed's name for it (a states module that cannot plant the mode refuses the planting).
 */
async function browserLaunch(env: CoverEnv): Promise<void> {
  const { ctx } = env;
  const study = (await ctx.states.plantStudy({ name: "Launch in a browser", status: "active", weekly_limit: null, monthly_limit: null, trigger_event: "conformance_launch_browser", launch_mode: "external_browser" }, env.project)).id;
  const { body, reply } = await firstTaken(env, await offered(env, study));
  if (!reply) {
    ctx.note("cover launches: the trigger config offered no launch of the study planted to open in a browser, so its mode was not judged");
    return;
  }
  env.expect(r["launch-mode"], reply.status === 200 && reply.body?.mode === "external_browser", `the launch the trigger config offers for a study planted with launch_mode external_browser (${JSON.stringify(body).slice(0, 160)}) was decided ${reply.status} ${JSON.stringify(reply.body?.mode)}, not external_browser`, reply);
  env.reach("launch of a study opened in a browser", r["launch-mode"].cites);
}

/**
 * A launch the trigger config offered for a study before it was paused: a paused study accepts no responses, so the
 * same launch is declined; once the study is active again (and within its caps) it is eligible again; set to draft,
 * declined again (a study accepts responses only while active).
 */
async function pausedLaunch(env: CoverEnv): Promise<void> {
  const { ctx } = env;
  const study = (await ctx.states.plantStudy({ name: "Launch of a paused study", status: "active", weekly_limit: null, monthly_limit: null, trigger_event: "conformance_launch_paused" }, env.project)).id;
  const { body, reply: before } = await firstTaken(env, await offered(env, study));
  if (!before || before.status !== 200 || !ELIGIBLE.includes(before.body?.mode)) {
    ctx.note(`cover launches: ${before ? `the trigger config's launch of an active study was decided ${before.status} ${JSON.stringify(before.body?.mode)}` : "the trigger config offered no launch of the study planted with a trigger event"}, so the paused study's launch was not judged`);
    return;
  }
  const decided = async (status: "paused" | "active" | "draft", cls: string, want: (mode: unknown) => boolean, wanted: string) => {
    await ctx.states.setStudyStatus(study, status, env.project);
    const read = await env.req(`/v1/studies/${study}`);
    if (read.body?.accepting_responses !== (status === "active")) {
      ctx.note(`cover launches: the study set ${status} reads accepting_responses ${JSON.stringify(read.body?.accepting_responses)} (the studies checks judge that), so its launch was not judged`);
      return false;
    }
    const reply = await launch(env, body);
    env.expect(r["launch-declined"], reply.status === 200 && want(reply.body?.mode), `the launch decided ${before!.body?.mode} while the study was active (${JSON.stringify(body).slice(0, 160)}) was decided ${reply.status} ${JSON.stringify(reply.body?.mode)} once the study was set ${status}, not ${wanted}`, reply);
    env.reach(cls, r["launch-declined"].cites);
    return true;
  };
  if (!(await decided("paused", "launch of a study paused", (m) => m === "not_eligible", "not_eligible"))) return;
  if (await decided("active", "launch of a study active again", (m) => ELIGIBLE.includes(m as string), "webview or external_browser")) await decided("draft", "launch of a study set to draft", (m) => m === "not_eligible", "not_eligible");
}
