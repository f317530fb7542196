/** Interview views: list items never carry the transcript or question answers; internal fields never leave. */
import type { components } from "../../../generated/schema.d.ts";
import type { StoredInterview } from "../../../fixtures/types.ts";
import { memo } from "./memo.ts";

type S = components["schemas"];

export const interviewSummary = (i: StoredInterview): S["InterviewSummary"] => memo(i, "summary", buildSummary);

function buildSummary(i: StoredInterview): S["InterviewSummary"] {
  return {
    id: i.id,
    object: "interview",
    study_id: i.study_id,
    status: i.status,
    reference_id: i.reference_id,
    respondent_email: i.respondent_email,
    language: i.language,
    quality_score: i.quality_score,
    duration_secs: i.duration_secs,
    headline: i.headline,
    summary: i.summary,
    started_at: i.started_at,
    completed_at: i.completed_at,
    created_at: i.created_at,
  };
}

export const interviewDetail = (i: StoredInterview): S["Interview"] =>
  memo(i, "detail", (r) => ({ ...interviewSummary(r), transcript: r.transcript, question_answers: r.question_answers }));
