/**
 * The reference server's simulation surface (outside /v1): create an interview as if a respondent opened
 * the link, run it started -> processing -> completed, and emit `interview.completed`; list delivery attempts.
 */
import { randomUUID } from "node:crypto";
import type { components } from "../../../generated/schema.d.ts";
import type { StoredInterview, StoredStudy } from "../../../fixtures/types.ts";
import { iso, schedule } from "../clock.ts";
import { conflict, notFound } from "../http/errors.ts";
import type { HandlerGroup } from "../http/types.ts";
import type { Project } from "../store/project.ts";
import { ascBy } from "../store/sorted.ts";
import { interviewDetail } from "../views/interviews.ts";
import { forget } from "../views/memo.ts";
import { studyUsage } from "../views/studies.ts";
import type { HandlerDeps } from "./deps.ts";
import { envelope, listPage } from "./pagination.ts";

type Delivery = components["schemas"]["WebhookDelivery"];
const deliveryOrder = ascBy<Delivery>((d) => d.scheduled_at);

const QUALITIES = ["insightful", "successful", "unsuccessful"] as const;

/** What a finished simulated interview says: one exchange per study question, translated when not in English. */
function completion(study: StoredStudy, i: StoredInterview, nowMs: number): Partial<StoredInterview> {
  const english = i.language === "en";
  const answer = (q: string) => `About "${q}": it took me a while, but the team figured it out.`;
  const transcript: StoredInterview["transcript"] = [];
  study.questions.forEach((q, n) => {
    transcript.push({ role: "agent", message: q.text, ...(english ? {} : { translated: q.text }), time_in_call_secs: n * 40 });
    transcript.push({ role: "user", message: answer(q.text), ...(english ? {} : { translated: answer(q.text) }), time_in_call_secs: n * 40 + 12 });
  });
  const durationSecs = Math.max(1, Math.round((nowMs - Date.parse(i.started_at)) / 1000));
  return {
    status: "completed",
    quality_score: QUALITIES[Number.parseInt(i.id.slice(0, 2), 16) % 3],
    duration_secs: durationSecs,
    headline: `Simulated interview about ${study.product_name}`,
    summary: `A simulated respondent answered ${study.questions.length} questions of "${study.name}".`,
    completed_at: iso(nowMs),
    transcript,
    question_answers: study.questions.map((q, n) => ({
      question_index: n,
      question_text: q.text,
      answer_summary: `The respondent eventually succeeded with ${study.product_name}.`,
      answer_excerpt: [{ role: "user" as const, message: answer(q.text) }],
    })),
  };
}

export function simulationHandlers(deps: HandlerDeps): HandlerGroup<"simCreateInterview" | "simListWebhookDeliveries"> {
  const { clock, webhooks } = deps;

  function run(project: Project, study: StoredStudy, interview: StoredInterview): void {
    schedule(clock, () => {
      project.updateInterview(interview, { status: "processing" });
      forget(interview);
    }, Math.floor(deps.simProcessingMs / 2));
    schedule(clock, () => {
      project.updateInterview(interview, completion(study, interview, clock.now()));
      forget(interview);
      webhooks.interviewCompleted(project, interview, study);
    }, deps.simProcessingMs);
  }

  return {
    simCreateInterview({ project, body }) {
      const study = project.studies.get(body.study_id);
      if (!study) throw notFound(`No such study: ${body.study_id}`);
      const now = clock.now();
      if (!studyUsage(project, study, now).accepting_responses) throw conflict(`Study ${study.id} is not accepting responses`);
      const interview: StoredInterview = {
        id: randomUUID(),
        object: "interview",
        study_id: study.id,
        status: "started",
        reference_id: body.reference_id ?? "",
        respondent_email: body.respondent_email ?? null,
        language: body.language ?? study.supported_languages[0] ?? "en",
        quality_score: null,
        duration_secs: null,
        headline: null,
        summary: null,
        started_at: iso(now),
        completed_at: null,
        created_at: iso(now),
        transcript: [],
        question_answers: [],
        project_id: project.id,
        respondent_id: null,
      };
      project.addInterview(interview, true);
      run(project, study, interview);
      return { status: 201, body: interviewDetail(interview) };
    },

    simListWebhookDeliveries({ project, query }) {
      const all = webhooks.attempts(project);
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
