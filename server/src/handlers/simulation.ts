/**
 * The reference server's simulation surface (outside /v1): create an interview as if a respondent opened
 * the link, run it started -> processing -> completed (on a timer, or on demand when held), and emit
 * `interview.completed`; plant studies with chosen caps, chats with chosen payloads; list delivery attempts (releases: sim-releases.ts).
 * An interview's status only moves forward, whichever of its timers or a completion request comes first.
 */
import { randomUUID } from "node:crypto";
import type { components } from "../../../generated/schema.d.ts";
import type { RawPart, StoredChat, StoredInterview, StoredMessage, StoredStudy } from "../../../fixtures/types.ts";
import { iso } from "../clock.ts";
import { conflict, invalidParameters, notFound, type ValidationIssue } from "../http/errors.ts";
import type { HandlerGroup } from "../http/types.ts";
import { ascBy } from "../model/sorted.ts";
import { interviewDetail } from "../views/interviews.ts";
import { publicPart } from "../views/messages.ts";
import { newStudyDetail, studyDetail, studyUsage } from "../views/studies.ts";
import type { HandlerDeps } from "./deps.ts";
import { envelope, listPage } from "./pagination.ts";

type Delivery = components["schemas"]["WebhookDelivery"];
const deliveryOrder = ascBy<Delivery>((d) => d.scheduled_at);

/** The `reference_id` a respondent's opened link carries: the study's own link, plus its query string. */
function referenceFromLink(study: StoredStudy, link: string, field: string | undefined): string {
  if (field !== undefined) throw invalidParameters([{ location: "body", field: "interview_link", message: "give interview_link or reference_id, not both" }]);
  const opened = URL.canParse(link) ? new URL(link) : null;
  const own = new URL(study.interview_link);
  if (!opened || opened.origin !== own.origin || opened.pathname !== own.pathname) throw invalidParameters([{ location: "body", field: "interview_link", message: `must be the study's interview_link (${study.interview_link}) with a query string` }]);
  const tag = opened.searchParams.get("reference_id") ?? "";
  if (tag.length > 255) throw invalidParameters([{ location: "body", field: "interview_link", message: "reference_id must be at most 255 characters" }]);
  return tag;
}

type SimOps = "simCreateInterview" | "simCompleteInterview" | "simAbandonInterview" | "simCreateStudy" | "simSetStudyStatus" | "simCreateChat" | "simListWebhookDeliveries";
const VISIBILITY = { visible: "visible", internal: "internal", evaluation: "evaluation", release: "release" } as const;

export function simulationHandlers(deps: HandlerDeps): HandlerGroup<SimOps> {
  const { clock, webhooks, runner, quotas, interviews, studies, chats } = deps;

  return {
    async simCreateInterview({ project, body }) {
      // Locked: the caps are checked and the interview counted against them as one step, whichever process asks.
      const study = await studies.get(project, body.study_id, true);
      if (!study) throw notFound(`No such study: ${body.study_id}`);
      const now = clock.now();
      // A planted interview (`created_at`) is history: placed at its instant, the study's acceptance now not asked.
      const at = body.created_at === undefined ? now : Date.parse(body.created_at);
      const completedAt = body.completed_at === undefined ? at : Date.parse(body.completed_at);
      if (body.created_at !== undefined) {
        if (at > now) throw invalidParameters([{ location: "body", field: "created_at", message: "must not be in the future" }]);
        if (completedAt < at || completedAt > now) throw invalidParameters([{ location: "body", field: "completed_at", message: "must be between created_at and now" }]);
      } else if (body.completed_at !== undefined) throw invalidParameters([{ location: "body", field: "completed_at", message: "is only taken with created_at" }]);
      else if (!(await studyUsage(interviews, project, study, now)).accepting_responses) throw conflict(`Study ${study.id} is not accepting responses`);
      const interview: StoredInterview = {
        id: randomUUID(),
        object: "interview",
        study_id: study.id,
        status: "started",
        reference_id: body.interview_link === undefined ? (body.reference_id ?? "") : referenceFromLink(study, body.interview_link, body.reference_id),
        respondent_email: body.respondent_email ?? null,
        language: body.language ?? study.supported_languages[0] ?? "en",
        quality_score: null,
        duration_secs: null,
        headline: null,
        summary: null,
        started_at: iso(at),
        completed_at: null,
        created_at: iso(at),
        transcript: [],
        question_answers: [],
        project_id: project.id,
        respondent_id: body.respondent_id ?? null,
      };
      await quotas.plant(project, 1);
      await runner.created(project, interview, body.created_at === undefined && !body.hold);
      if (body.created_at === undefined || body.hold) return { status: 201, body: interviewDetail(interview) };
      const done = await runner.toCompleted(project, interview.id, completedAt);
      return { status: 201, body: interviewDetail(done?.interview ?? interview) };
    },

    async simCompleteInterview({ project, path }) {
      await runner.toProcessing(project, path.id);
      const out = await runner.toCompleted(project, path.id);
      if (!out) throw notFound(`No such interview: ${path.id}`);
      if (out.abandoned) throw conflict(`Interview ${path.id} was abandoned: it never completes`);
      if (!out.moved) throw conflict(`Interview ${path.id} is already completed`);
      return { status: 200, body: interviewDetail(out.interview) };
    },

    async simAbandonInterview({ project, path }) {
      const out = await runner.abandon(project, path.id);
      if (!out) throw notFound(`No such interview: ${path.id}`);
      if (out.interview.status === "completed") throw conflict(`Interview ${path.id} is already completed`);
      return { status: 200, body: interviewDetail(out.interview) };
    },

    async simCreateStudy({ project, body }) {
      const id = randomUUID();
      const study: StoredStudy = {
        id,
        object: "study",
        name: body.name ?? "Simulated study",
        status: body.status ?? "active",
        interview_link: `https://interviews.example.com/s/${id.slice(0, 8)}`,
        supported_languages: body.supported_languages ?? ["en"],
        created_at: iso(clock.now()),
        research_goal: "Simulated study",
        product_name: "Simulated product",
        questions: body.questions ?? [{ text: "What did you try to do?" }],
        project_id: project.id,
        monthly_limit: body.monthly_limit ?? null,
        weekly_limit: body.weekly_limit ?? null,
        ...(body.trigger_event === undefined ? {} : { trigger: { rule_id: randomUUID(), event_name: body.trigger_event, mode: body.launch_mode ?? "webview" } }),
      };
      await quotas.plant(project, 1);
      await studies.plant(project, study);
      return { status: 201, body: newStudyDetail(study) };
    },

    async simSetStudyStatus({ project, path, body }) {
      // Locked: an interview created meanwhile checks the caps against one status or the other, not between them.
      const study = await studies.get(project, path.id, true);
      if (!study) throw notFound(`No such study: ${path.id}`);
      if (study.status !== body.status) await studies.setStatus(project, study.id, body.status);
      return { status: 200, body: await studyDetail(interviews, project, { ...study, status: body.status }, clock.now()) };
    },

    async simCreateChat({ project, body }) {
      const now = body.created_at === undefined ? clock.now() : Date.parse(body.created_at);
      if (now > clock.now()) throw invalidParameters([{ location: "body", field: "created_at", message: "must not be in the future" }]);
      const visibility = VISIBILITY[body.visibility ?? "visible"];
      // One millisecond apart unless a message gives its own instant (a tie planted for a page boundary among them).
      const instants = body.messages.map((m, n) => (m.created_at === undefined ? now + n : Date.parse(m.created_at)));
      // When each finished streaming: its own completed_at, or when it was recorded; null while streaming.
      const finished = body.messages.map((m, n) => (m.streaming ? null : m.completed_at === undefined ? instants[n] : Date.parse(m.completed_at)));
      const wrong = instantIssues(body.messages, instants, finished, now, clock.now());
      if (wrong.length) throw invalidParameters(wrong);
      const chat: StoredChat = {
        id: randomUUID(),
        object: "chat",
        title: body.title ?? null,
        source: body.source === undefined ? "web" : body.source,
        is_streaming: body.is_streaming === undefined ? false : body.is_streaming,
        created_at: iso(now),
        updated_at: iso(Math.max(now, ...instants, ...finished.map((t) => t ?? now))),
        project_id: project.id,
        visibility,
      };
      const messages: StoredMessage[] = body.messages.map((m, n) => ({
        id: randomUUID(),
        chat_id: chat.id,
        project_id: project.id,
        role: m.role,
        parts: m.parts as RawPart[],
        sources: m.sources === undefined || m.sources === null ? null : m.sources.map((x) => ({ id: x.id, description: x.description, rows: x.rows ?? null, query: x.query ?? null })),
        feedback: m.feedback ?? null,
        usage: m.usage ?? null,
        created_at: iso(instants[n]),
        completed_at: finished[n] === null ? null : iso(finished[n]!),
        // A hidden branch, or a message the customer would see nothing of (internal parts only), is not a visible message.
        hidden: m.hidden === true || (m.parts.length > 0 && m.parts.every((p) => publicPart(p as RawPart) === null)),
        metadata: { session_id: "sim", model: "sim", branch_id: null },
      }));
      await quotas.plant(project, 1 + messages.length);
      await chats.plant(project, chat, messages);
      return { status: 201, body: { object: "sim_chat", id: chat.id, visibility, message_ids: messages.map((m) => m.id) } };
    },

    async simListWebhookDeliveries({ project, query }) {
      const all = await webhooks.attempts(project);
      const interviewId = query.interview_id;
      const page = listPage({
        sorted: all,
        order: deliveryOrder,
        limit: query.limit,
        startingAfter: query.starting_after,
        lookup: (id) => all.find((d) => d.id === id),
        filter: interviewId === undefined ? undefined : (d) => d.interview_id === interviewId,
        noun: "webhook delivery",
      });
      return { status: 200, body: envelope(page, (d) => d) };
    },
  };
}

/**
 * Each message given its own instant before the chat's (`chatAt`) or after `now`, and each finished (`finished`)
 * before it was recorded, in the future or while streaming, as a validation issue naming it.
 */
function instantIssues(messages: ReadonlyArray<{ created_at?: string; completed_at?: string; streaming?: boolean }>, instants: number[], finished: Array<number | null>, chatAt: number, now: number): ValidationIssue[] {
  const wrong: ValidationIssue[] = [];
  messages.forEach((m, n) => {
    if (m.created_at !== undefined) {
      const field = `messages[${n}].created_at`;
      if (instants[n] < chatAt) wrong.push({ location: "body", field, message: "must not be before the chat's created_at" });
      else if (instants[n] > now) wrong.push({ location: "body", field, message: "must not be in the future" });
    }
    if (m.completed_at === undefined) return;
    const field = `messages[${n}].completed_at`;
    if (m.streaming) wrong.push({ location: "body", field, message: "must not be given with streaming: true (a streaming message has not finished)" });
    else if (finished[n]! < instants[n]) wrong.push({ location: "body", field, message: "must not be before the message's created_at" });
    else if (finished[n]! > now) wrong.push({ location: "body", field, message: "must not be in the future" });
  });
  return wrong;
}
