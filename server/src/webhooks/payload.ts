/**
 * The body of `interview.completed`, built from the stored interview and its study. Every value is the one
 * `GET /v1/interviews/:id` shows for the interview (same source record), plus the study's name and link;
 * the deprecated aliases (`session_id`, `experiment_id`, `experiment_name`) repeat their new names because
 * the seed says both forms are sent. Keys follow the seed's table order so the bytes read naturally.
 */
import type { components } from "../../../generated/schema.d.ts";
import type { StoredInterview, StoredStudy } from "../../../fixtures/types.ts";

export type InterviewCompletedEvent = components["schemas"]["InterviewCompletedEvent"];

export const INTERVIEW_COMPLETED = "interview.completed";

/** `timestamp` is when the event is sent: the caller passes the send time of the first attempt. */
export function interviewCompletedEvent(interview: StoredInterview, study: StoredStudy | undefined, timestamp: string): InterviewCompletedEvent {
  // The interview's own study_id is what the REST resource shows, so it is used even if the study record is gone.
  const studyId = interview.study_id;
  const studyName = study?.name ?? null;
  return {
    event: INTERVIEW_COMPLETED,
    timestamp,
    data: {
      interview_id: interview.id,
      study_id: studyId,
      study_name: studyName,
      session_id: interview.id,
      experiment_id: studyId,
      experiment_name: studyName,
      interview_link: study?.interview_link ?? null,
      // The dispatcher is only told about interviews that finished processing; the seed fixes this value.
      status: "completed",
      started_at: interview.started_at,
      completed_at: interview.completed_at,
      duration_secs: interview.duration_secs,
      quality_score: interview.quality_score,
      language: interview.language,
      // The REST field is a string ("" when the link carried none); the payload's is the parameter's value, or null.
      reference_id: interview.reference_id === "" ? null : interview.reference_id,
      respondent_email: interview.respondent_email,
      respondent_id: interview.respondent_id,
    },
  };
}

/** Serialised once per event: every retry sends these very bytes, so signature and body never drift apart. */
export function serializeEvent(event: InterviewCompletedEvent): Buffer {
  return Buffer.from(JSON.stringify(event), "utf8");
}
