/**
 * The deprecated report at every step, every run: read, then a study planted active (in the next read), paused and
 * draft ones (never), active ones at a weekly and at a monthly cap of 0 (in it: active, though not accepting responses,
 * and shown as their retrievals read), 101 more active ones (all in it: past the largest page of a list), then
 * interviews of the active one: held (started), abandoned, completed, created at the first
 * instant of this week and month and just before each, and a year ago. Whatever the report's shape, a study is "in
 * it" when its id appears in it, and its stats are the object that holds its id: they must change when one of its
 * interviews completes. Where the report can be read in the seed's
 * terms (our contract's shape, or a states module's `readExperiments`), its counts are predicted whole: the study's
 * interviews by status and its completed ones by quality_score, as the interviews themselves read, the fields it shows
 * as on the study, and the project's usage (every interview created in it; this week and this month, those created
 * now and not the one created a year ago).
 */
import { completionWaitMs, untilCompleted } from "../judge/completion.ts";
import type { Reply } from "../http.ts";
import { entryOf as holderOf } from "../judge/entries.ts";
import { asOnStudy, countDifferences, reported } from "../judge/experiments-report.ts";
import { monthStart, weekStart } from "../judge/windows.ts";
import type { ExperimentReading, ExperimentsReading } from "../states/types.ts";
import { firstDifference } from "../judge/same.ts";
import type { CoverEnv, Unit } from "./unit.ts";
import { r } from "./rules.ts";

const carries = (reply: Reply) => !!reply.headers.get("deprecation") && !!reply.headers.get("sunset");
const DAY_MS = 86_400_000;
const YEAR_MS = 400 * DAY_MS;
/** More active studies than a list's largest page (100) holds: a report that keeps a page of them shows. */
const MANY = 101;

/** What the study's entry and the project's usage must read, as the unit planted them. */
interface Predicted {
  started: number;
  processing: number;
  completed: number;
  quality: { insightful: number; successful: number; unsuccessful: number };
  /** When each interview the unit planted was created (the study's, and the only ones of its project since the first read). */
  created: number[];
}

/** Whether the report's counts are judged in this run: a module that reads it, or a level that holds the contract's shape. */
const counted = (ctx: CoverEnv["ctx"]) => ctx.states.readsExperiments || (ctx.options.level ?? "contract") !== "seed";

export const experiments: Unit = {
  name: "experiments",
  doc: "the deprecated report read before and after a study is planted active, paused, draft, active at a weekly and at a monthly cap, and 101 more active, and after interviews of it are held, abandoned, completed, and created at the edges of this week and month and a year ago: current at every read (never cached), with Deprecation and Sunset; where it reads in the seed's terms, its counts predicted whole",
  needs: ["plant-study"],
  rules: [r["experiments-current"], r["experiments-counts"]],
  notApplicable: (ctx) => ctx.experimentsRemoved,
  classes: (ctx) => {
    const can = (c: Parameters<typeof ctx.states.has>[0]) => ctx.states.has("plant-interview", c);
    return [
      "study planted active", "study planted paused", "study planted draft", "study planted active at its cap", "study planted active at its monthly cap", `${MANY} more studies planted active`,
      ...(ctx.states.has("plant-interview") ? ["interview completed"] : []),
      ...(counted(ctx)
        ? ["counts of a study with no interviews", ...(can("hold") ? ["counts with an interview started"] : []), ...(ctx.states.has("plant-interview") ? ["counts with an interview completed"] : []),
          ...(can("hold") && can("abandon") ? ["counts with an interview abandoned"] : []),
          ...(can("created-at") ? ["counts with interviews created at the first instant of this week and month, and just before", "counts with an interview created a year ago"] : [])]
        : []),
    ];
  },
  async run(env) {
    const { ctx } = env;
    const read = async (when: string) => {
      const reply = await env.req("/v1/experiments");
      env.expect(r["experiments-current"], reply.status === 200 && carries(reply), `GET /v1/experiments ${when} answered ${reply.status} with Deprecation ${JSON.stringify(reply.headers.get("deprecation"))} and Sunset ${JSON.stringify(reply.headers.get("sunset"))}`, reply);
      return reply;
    };
    const first = await read("first");
    const firstReading = first.status === 200 ? ctx.states.readExperiments(first.body) : undefined;
    const usage0: Usage0 = { usage: firstReading?.usage, at: Date.now() };
    if (first.status === 200 && !firstReading) ctx.note(`cover experiments: GET /v1/experiments is not in our contract's shape and no states module reads it (readExperiments): its counts are not judged`);
    // Its name padded: the report shows it as given, as the study's retrieval does.
    const active = await ctx.states.plantStudy({ name: "  Report: active", weekly_limit: null, monthly_limit: null }, env.project);
    const predicted: Predicted = { started: 0, processing: 0, completed: 0, quality: { insightful: 0, successful: 0, unsuccessful: 0 }, created: [] };
    const afterActive = await read("after a study was planted active");
    env.expect(r["experiments-current"], holderOf(afterActive.body, active.id) !== undefined, `GET /v1/experiments does not hold study ${active.id}, planted active just before it (a report read earlier cached?)`, afterActive);
    env.reach("study planted active", r["experiments-current"].cites);
    await judgeCounts(env, afterActive, active.id, predicted, usage0, "counts of a study with no interviews");
    for (const status of ["paused", "draft"] as const) {
      const s = await ctx.states.plantStudy({ name: `Report: ${status}`, status }, env.project);
      const reply = await read(`after a study was planted ${status}`);
      const listed = reply.status === 200 ? ctx.states.readExperiments(reply.body)?.experiments.some((e) => e.id === s.id) : undefined;
      env.expect(r["experiments-current"], holderOf(reply.body, s.id) === undefined && !listed, `GET /v1/experiments holds study ${s.id}, planted ${status}: it lists active experiments only`, reply);
      env.reach(`study planted ${status}`, r["experiments-current"].cites);
    }
    // Active at a weekly cap of 0, and another at a monthly cap of 0, so not accepting responses: still active
    // experiments, each shown (where the report reads in the seed's terms) as its retrieval reads it.
    for (const [window, cls] of [["weekly", "study planted active at its cap"], ["monthly", "study planted active at its monthly cap"]] as const) {
      const capped = await ctx.states.plantStudy({ name: `  Report: active at its ${window} cap`, weekly_limit: window === "weekly" ? 0 : null, monthly_limit: window === "monthly" ? 0 : null }, env.project);
      const afterCapped = await read(`after a study was planted active at a ${window} cap of 0`);
      env.expect(r["experiments-current"], holderOf(afterCapped.body, capped.id) !== undefined, `GET /v1/experiments does not hold study ${capped.id}, planted active with a ${window} cap of 0 (so not accepting responses): it reports every active experiment, accepting or not`, afterCapped);
      const entry = afterCapped.status === 200 ? ctx.states.readExperiments(afterCapped.body)?.experiments.find((e) => e.id === capped.id) : undefined;
      const shown = entry ? await shownOtherwise(env, entry, capped.id) : undefined;
      if (shown !== undefined) env.expect(r["experiments-counts"], shown === null, `GET /v1/experiments shows study ${capped.id}, active at a ${window} cap of 0, ${shown}`, afterCapped);
      env.reach(cls, r["experiments-current"].cites);
    }
    // More active experiments than a list's default page: every one reported.
    const many: string[] = [];
    for (let k = 0; k < MANY; k += 10) many.push(...(await Promise.all(Array.from({ length: Math.min(10, MANY - k) }, (_, j) => ctx.states.plantStudy({ name: `Report: one of ${MANY} (${k + j + 1})`, weekly_limit: null, monthly_limit: null }, env.project)))).map((x) => x.id));
    const afterMany = await read(`after ${MANY} more studies were planted active`);
    const missing = many.filter((id) => holderOf(afterMany.body, id) === undefined);
    env.expect(r["experiments-current"], missing.length === 0, `GET /v1/experiments does not hold ${missing.length} of the ${MANY} studies planted active just before it (e.g. ${missing[0]}): it reports all active experiments, however many`, afterMany);
    env.reach(`${MANY} more studies planted active`, r["experiments-current"].cites);
    if (!ctx.states.has("plant-interview")) return;
    const wait = completionWaitMs(ctx.options);
    const judge = (reply: Reply, cls: string, interviewId?: string, p = predicted) => judgeCounts(env, reply, active.id, p, usage0, cls, interviewId);

    let held: string | undefined;
    if (ctx.states.has("hold")) {
      held = (await ctx.states.plantInterview({ study_id: active.id, hold: true }, env.project)).id;
      predicted.started += 1;
      predicted.created.push(Date.now());
      await judge(await read("after an interview was started"), "counts with an interview started", held);
      if (ctx.states.has("abandon")) {
        // The respondent leaves: the interview keeps its status (started) and is counted as such.
        const left = await ctx.states.plantInterview({ study_id: active.id, hold: true }, env.project);
        await ctx.states.abandonInterview(left.id, env.project);
        predicted.started += 1;
        predicted.created.push(Date.now());
        await judge(await read("after an interview was abandoned"), "counts with an interview abandoned", left.id);
      }
    }

    const before = JSON.stringify(holderOf((await read("before an interview completes")).body, active.id));
    const { id } = await ctx.states.plantInterview({ study_id: active.id }, env.project);
    predicted.created.push(Date.now());
    const done = await untilCompleted(env.http, id, wait);
    const after = await read("after an interview of the study completed");
    const now = JSON.stringify(holderOf(after.body, active.id));
    env.expect(r["experiments-current"], now !== before, `study ${active.id}'s entry in GET /v1/experiments is the same after one of its interviews completed (${now?.slice(0, 300)}): its interview stats are not current`, after);
    env.reach("interview completed", r["experiments-current"].cites);
    if (done.reply.body?.status !== "completed") return;
    completed(predicted, done.reply.body.quality_score);
    await judge(after, "counts with an interview completed", id);

    if (held && ctx.states.has("complete")) {
      // A held interview finishes: completing answers `processing`, so a report read while it still reads processing
      // afterwards was read while it was processing, and counts it so. Where processing is short (a tenth of a second),
      // a read may land after it: up to three more held interviews are finished until one read lands inside it.
      let inside = false;
      for (let attempt = 0; attempt < 4 && (attempt === 0 || !inside); attempt++) {
        const id = attempt === 0 ? held : (await ctx.states.plantInterview({ study_id: active.id, hold: true }, env.project)).id;
        if (attempt > 0) {
          predicted.started += 1;
          predicted.created.push(Date.now());
        }
        const finished = await ctx.states.completeInterview(id, env.project);
        if (finished.status === "processing") {
          const during = await read("while an interview is processing");
          if ((await env.req(`/v1/interviews/${id}`)).body?.status === "processing") {
            await judge(during, "counts with an interview processing", id, { ...predicted, started: predicted.started - 1, processing: 1 });
            inside = true;
          }
        }
        const got = await untilCompleted(env.http, id, wait);
        if (got.reply.body?.status !== "completed") return;
        predicted.started -= 1;
        completed(predicted, got.reply.body.quality_score);
        await judge(await read("after a held interview completed"), "counts with an interview completed", id);
      }
    }

    if (!ctx.states.has("created-at")) return;
    // History at the windows' edges: the first instant of this week and of this month, and the last before each.
    const t = Date.now();
    const edges = [...new Set([weekStart(t), weekStart(t) - 1, monthStart(t), monthStart(t) - 1])];
    const history = async (at: number) => {
      const iso = new Date(at).toISOString();
      const planted = await ctx.states.plantInterview({ study_id: active.id, created_at: iso, completed_at: iso }, env.project);
      predicted.created.push(at);
      const got = await untilCompleted(env.http, planted.id, wait);
      if (got.reply.body?.status === "completed") completed(predicted, got.reply.body.quality_score);
      return got.reply.body?.status === "completed";
    };
    let whole = true;
    for (const at of edges) whole = (await history(at)) && whole;
    if (whole) await judge(await read("after interviews created at the edges of this week and month"), "counts with interviews created at the first instant of this week and month, and just before");
    // A year ago, and as many more as it takes (up to 12) to have completed interviews of every quality_score.
    whole = await history(Date.now() - YEAR_MS);
    for (let k = 0; whole && k < 12 && Object.values(predicted.quality).some((n) => n === 0); k++) whole = await history(Date.now() - YEAR_MS - (k + 1) * DAY_MS);
    if (whole) await judge(await read("after interviews created a year ago completed"), "counts with an interview created a year ago");
  },
};

/** The project's usage at the unit's first read, and when it was read. */
interface Usage0 {
  usage: ExperimentsReading["usage"];
  at: number;
}

/** One more completed interview, of this quality_score (null: none). */
function completed(p: Predicted, quality: unknown): void {
  p.completed += 1;
  if (typeof quality === "string" && quality in p.quality) p.quality[quality as keyof Predicted["quality"]] += 1;
}

/**
 * What the report shows of a study (name, link, accepting_responses, limits) against the study's retrieval: how it
 * differs, null when it does not, undefined when the report shows none of it or the study did not read.
 */
async function shownOtherwise(env: CoverEnv, entry: ExperimentReading, studyId: string): Promise<string | null | undefined> {
  const shown = reported(entry.study);
  if (!Object.keys(shown).length) return undefined;
  const study = await env.req(`/v1/studies/${studyId}`);
  if (study.status !== 200) return undefined;
  const d = firstDifference(shown, asOnStudy(shown, study.body));
  return d ? `as on the study (GET /v1/studies/${studyId}) ${d}` : null;
}

/**
 * Judges a read against the prediction: the study's entry (interviews by status and in all, completed by quality, the
 * fields shown as on the study) and the project's usage since the unit's first read (its own project: exactly the
 * unit's interviews). The class is reached when the reading reported any of them.
 */
async function judgeCounts(env: CoverEnv, reply: Reply, studyId: string, p: Predicted, usage0: Usage0, cls: string, interviewId?: string): Promise<void> {
  if (reply.status !== 200) return;
  const reading = env.ctx.states.readExperiments(reply.body);
  if (!reading) return;
  const entries = reading.experiments.filter((e) => e.id === studyId);
  const what = `after the unit's ${interviewId ? `interview ${interviewId}` : "study"}`;
  if (!env.expect(r["experiments-counts"], entries.length === 1, `GET /v1/experiments read ${entries.length} entries for study ${studyId} ${what} (one per active experiment)`, reply)) return;
  const [entry] = entries;
  const differences = [
    ...countDifferences(entry.interviews, { total: p.started + p.processing + p.completed, started: p.started, processing: p.processing, completed: p.completed }, "interviews"),
    ...countDifferences(entry.quality, p.quality, "quality"),
  ];
  let judged = Object.keys(reported(entry.interviews)).length + Object.keys(reported(entry.quality)).length;
  const shown = await shownOtherwise(env, entry, studyId);
  if (shown) differences.push(shown);
  if (shown !== undefined) judged += Object.keys(reported(entry.study)).length;
  // The project's usage: only the unit plants in its own project; in the run's, nothing else runs beside it either.
  // This week's and month's counts are judged only while the week and month of the first read last.
  const t = Date.now();
  const sameWindows = weekStart(t) === weekStart(usage0.at) && monthStart(t) === monthStart(usage0.at);
  const since = (base: unknown, from: number) => (typeof base === "number" ? base + p.created.filter((c) => c >= from).length : undefined);
  if (usage0.usage && reading.usage) {
    const base = usage0.usage;
    const want = { total: since(base.total, -Infinity), ...(sameWindows ? { this_week: since(base.this_week, weekStart(t)), this_month: since(base.this_month, monthStart(t)) } : {}) };
    differences.push(...countDifferences(reading.usage, want, "usage"));
    judged += Object.keys(reported(reading.usage)).length;
  }
  const instants = p.created.map((c) => new Date(c).toISOString());
  env.expect(r["experiments-counts"], differences.length === 0, `GET /v1/experiments ${what} (started ${p.started}, processing ${p.processing}, completed ${p.completed} with quality ${JSON.stringify(p.quality)}; created in the project since the first read: ${instants.join(", ") || "none"}) reads ${differences.join("; ")}`, reply, { reading: entry, usage: reading.usage, usageAtFirstRead: usage0.usage });
  if (judged) env.reach(cls, r["experiments-counts"].cites);
}
