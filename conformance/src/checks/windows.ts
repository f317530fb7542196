/**
 * windows (--sim): the seed's boundaries that need data planted at chosen instants or on clean data, each reached
 * deterministically:
 * - the weekly window is Monday to Sunday, UTC: an interview created at the last millisecond of last week does not
 *   count in `limits.weekly.used`, one at the first millisecond of this week does (and the calendar month, our pin);
 * - caps of 0: a study with a 0 cap is not accepting responses;
 * - every study status: only `active` studies are listed, and only they accept responses;
 * - a fresh project: no webhook configured is a 404, its lists are empty, and another project's ids are not found.
 * An implementation without interviews at chosen instants (capability created-at) or projects created during the run
 * (create-project) gets NOT TESTED for what needs them, naming the capability.
 */
import { wrongs, type Check, type Ctx } from "../check.ts";
import { NEVER_ID, snapshot } from "../data.ts";
import type { Reply } from "../http.ts";
import { contract, rules, seed } from "../rules.ts";
import type { PlantStudyInput } from "../states/types.ts";
import { monthStart, weekStart } from "../judge/windows.ts";

const r = rules("windows", {
  weekly: seed("Study: limits.weekly.used, interviews used this week (Monday to Sunday, UTC); Limits: weekly window Monday to Sunday UTC", "an interview created at the last millisecond of last week does not count in limits.weekly.used; one created at the first millisecond of this week does", ["study.weekly-used", "limits.caps"]),
  // The seed does not define the billing period (our contract pins the calendar month), but a monthly cap's period
  // holds no interview two months old, whatever its edges.
  "planted-instant": seed("Interview: created_at (record creation); Resources: timestamps ISO 8601, UTC, millisecond precision", "an interview planted at a chosen instant (the created-at capability) reads created_at at that instant, to the millisecond", ["interview.created-at", "resources.timestamps"]),
  "monthly-period": seed("Study: limits.monthly.used, interviews used in the current billing period", "an interview created 62 days ago counts in no monthly period that holds now: limits.monthly.used counts at most the interviews of the last 31 days", ["study.monthly-used", "limits.caps"]),
  monthly: contract("usage windows: the calendar month in UTC", "an interview created at the last millisecond of last month does not count in limits.monthly.used; one at the first millisecond of this month does"),
  "zero-cap": seed("States and transitions: derived rule, accepting_responses; Study: limits.*.limit", "a study with a weekly or monthly cap of 0 is not accepting responses, and reads its cap as 0 (null is unlimited)", ["states.accepting", "limits.caps", "study.accepting"]),
  statuses: seed("States and transitions: Study status, derived rule; Endpoints: GET /v1/studies lists active studies", "only active studies are listed and accept responses; paused and draft studies are neither, and every status reads back as planted", ["states.study", "states.accepting", "endpoints.list-studies", "study.status"]),
  "never-configured": seed("Errors 3: GET /v1/webhooks returns 404 when no webhook is configured", "a project that never configured a webhook gets 404 from GET /v1/webhooks", ["errors.webhook-404", "endpoints.get-webhook"]),
  "fresh-lists": seed("List envelope; Authentication 3: a key is scoped to a single project", "a project with no data lists nothing: every list is empty with has_more false", ["auth.scope", "list.has-more"]),
  "fresh-isolation": seed("Errors 1: 404 when the id belongs to another project", "a fresh project's key gets 404 for every id of another project", ["errors.retrieval-404", "auth.scope"]),
});

const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();

/** The server's clock, from its Date header (seconds), or this machine's when it sends none. */
function serverNow(reply: Reply): number {
  const date = Date.parse(reply.headers.get("date") ?? "");
  return Number.isFinite(date) ? date : Date.now();
}

/** A planted study as the REST API reads it. */
async function plantStudy(ctx: Ctx, body: PlantStudyInput, key?: string): Promise<{ id: string }> {
  return ctx.states.plantStudy(body, key ? { apiKey: key } : undefined);
}

async function usage(ctx: Ctx, id: string, key?: string): Promise<{ study: any; reply: Reply }> {
  const reply = await ctx.http.req(`/v1/studies/${id}`, { key });
  return { study: reply.body, reply };
}

async function edges(ctx: Ctx): Promise<void> {
  const probe = await ctx.http.req("/v1/studies?limit=1");
  const now = serverNow(probe);
  const week = weekStart(now);
  const month = monthStart(now);
  // Within a minute of a window's start, the server and the suite may disagree on which window is current.
  if (now - week < 60_000 || now - month < 60_000) return ctx.untested("usage windows at their edges", "the run started within a minute of a week or month boundary; run again");
  const s = await plantStudy(ctx, { name: "Window edges", monthly_limit: null, weekly_limit: null });
  const instants = [week - 1, week, month - 1, month, now - 62 * DAY];
  const planted: number[] = [];
  for (const at of instants) {
    const made = await ctx.states.plantInterview({ study_id: s.id, reference_id: "conformance_window", created_at: iso(at) });
    const read = await ctx.http.req(`/v1/interviews/${made.id}`);
    // Planted at an instant, it reads that instant: a server that rounds or shifts it fails here (its form is judged
    // by fields.timestamps), and the windows are not judged on instants it does not hold.
    const same = typeof read.body?.created_at === "string" && Date.parse(read.body.created_at) === at;
    if (!ctx.expect(r["planted-instant"], same, `an interview planted at ${iso(at)} reads created_at ${JSON.stringify(read.body?.created_at)}`, read)) return;
    planted.push(at);
  }
  const { study, reply } = await usage(ctx, s.id);
  const weekly = planted.filter((t) => t >= week).length;
  const monthly = planted.filter((t) => t >= month).length;
  ctx.expect(r.weekly, study?.limits?.weekly?.used === weekly, `interviews created at ${planted.map(iso).join(", ")}; this week began ${iso(week)} (Monday 00:00 UTC), so limits.weekly.used must be ${weekly}, not ${study?.limits?.weekly?.used}`, reply);
  const recent = planted.filter((t) => t > now - 31 * DAY).length;
  ctx.expect(r["monthly-period"], typeof study?.limits?.monthly?.used === "number" && study.limits.monthly.used <= recent, `interviews created at ${planted.map(iso).join(", ")}: ${recent} in the last 31 days, yet limits.monthly.used is ${study?.limits?.monthly?.used} (the one created 62 days ago counts in no monthly period that holds now)`, reply);
  ctx.expect(r.monthly, study?.limits?.monthly?.used === monthly, `interviews created at ${planted.map(iso).join(", ")}; this month began ${iso(month)}, so limits.monthly.used must be ${monthly}, not ${study?.limits?.monthly?.used}`, reply);
}

async function zeroCaps(ctx: Ctx): Promise<void> {
  for (const caps of [{ weekly_limit: 0, monthly_limit: null }, { weekly_limit: null, monthly_limit: 0 }]) {
    const s = await plantStudy(ctx, { name: "Zero cap", ...caps });
    const { study, reply } = await usage(ctx, s.id);
    ctx.expect(r["zero-cap"], study?.accepting_responses === false, `a study with ${JSON.stringify(caps)} says accepting_responses=${study?.accepting_responses}; used 0 is not below a limit of 0`, reply);
    // A cap of 0 is a cap, not "unlimited": it reads back 0, never null.
    const read = { weekly_limit: study?.limits?.weekly?.limit, monthly_limit: study?.limits?.monthly?.limit };
    ctx.expect(r["zero-cap"], read.weekly_limit === caps.weekly_limit && read.monthly_limit === caps.monthly_limit, `a study planted with ${JSON.stringify(caps)} reads limits ${JSON.stringify(read)}: a cap of 0 reads 0 (null is unlimited)`, reply);
  }
}

async function statuses(ctx: Ctx): Promise<void> {
  const made: Record<string, string> = {};
  for (const status of ["active", "paused", "draft"] as const) {
    const s = await plantStudy(ctx, { name: `Status ${status}`, status });
    made[status] = s.id;
    const { study, reply } = await usage(ctx, s.id);
    ctx.expect(r.statuses, study?.status === status, `a study planted ${status} reads back as ${study?.status}`, reply);
    ctx.expect(r.statuses, study?.accepting_responses === (status === "active"), `a ${status} study says accepting_responses=${study?.accepting_responses}`, reply);
  }
  const walked = await ctx.http.walk("/v1/studies", 100);
  const listed = new Set(walked.items.map((x: any) => x.id));
  for (const [status, id] of Object.entries(made)) {
    const page = walked.pages.find((p) => p.text.includes(id)) ?? walked.pages[0];
    ctx.expect(r.statuses, listed.has(id) === (status === "active"), `the ${status} study ${id} is ${listed.has(id) ? "" : "not "}listed by GET /v1/studies (active studies only)`, page);
  }
}

async function freshProject(ctx: Ctx): Promise<void> {
  const key = (await ctx.states.createProject("Conformance fresh project")).api_key;
  const hook = await ctx.http.req("/v1/webhooks", { key });
  ctx.expect(r["never-configured"], hook.status === 404, `GET /v1/webhooks of a project that never configured one answered ${hook.status} ${hook.text.slice(0, 120)}`, hook);
  ctx.conforms(hook, "GET /v1/webhooks (never configured)");
  // A target that needs study_id on the interview list: the fresh project's list of a study that names none.
  const interviews = (await ctx.http.needsStudyId({ key })) ? `/v1/interviews?study_id=${NEVER_ID}` : "/v1/interviews";
  for (const list of ["/v1/studies", interviews, "/v1/releases", "/v1/chats"]) {
    const reply = await ctx.http.req(list, { key });
    const freshWrong = wrongs(
      [reply.status !== 200, `${list} of a fresh project answered ${reply.status}, not 200`],
      [reply.status === 200 && !Array.isArray(reply.body?.data), `${list} of a fresh project has no data array`],
      [Array.isArray(reply.body?.data) && reply.body.data.length > 0, `${list} of a fresh project lists ${reply.body?.data?.length} items that belong to no one it created`],
      [reply.status === 200 && reply.body?.has_more !== false, `${list} of a fresh project says has_more ${JSON.stringify(reply.body?.has_more)}`],
    );
    ctx.expect(r["fresh-lists"], !freshWrong, freshWrong, reply);
  }
  const theirs = await ctx.http.req("/v1/studies?limit=1");
  const id = theirs.body?.data?.[0]?.id;
  const interview = (await snapshot(ctx.http)).interviews[0]?.id;
  const chat = (await ctx.http.req("/v1/chats?limit=1")).body?.data?.[0]?.id;
  for (const path of [id && `/v1/studies/${id}`, interview && `/v1/interviews/${interview}`, chat && `/v1/chats/${chat}`, chat && `/v1/chats/${chat}/messages`].filter(Boolean) as string[]) {
    const reply = await ctx.http.req(path, { key });
    ctx.expect(r["fresh-isolation"], reply.status === 404, `${path} (another project's) with a fresh project's key answered ${reply.status}`, reply);
  }
  // Zero caps and statuses again where nothing else lives, so no other data can hide a wrong answer.
  await ctx.part("a study planted in a fresh project", async () => {
    const s = await plantStudy(ctx, { name: "Fresh zero cap", weekly_limit: 0 }, key);
    const { study, reply } = await usage(ctx, s.id, key);
    ctx.expect(r["zero-cap"], study?.accepting_responses === false, `a fresh project's study with weekly_limit 0 says accepting_responses=${study?.accepting_responses}`, reply);
  });
}

export const windowsCheck: Check = {
  name: "windows",
  description: "usage windows at their edges, caps of 0, every study status, and a fresh project's never-configured states",
  rules: r,
  needs: ["sim", "plant-study"],
  operations: ["getStudy", "listStudies", "simCreateStudy", "simCreateInterview", "simCreateProject", "getWebhook"],
  async run(ctx) {
    await ctx.part("usage windows at their edges", () => edges(ctx));
    await ctx.part("caps of 0", () => zeroCaps(ctx));
    await ctx.part("every study status", () => statuses(ctx));
    await ctx.part("a fresh project", () => freshProject(ctx));
  },
};
