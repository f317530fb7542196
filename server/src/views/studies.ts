/**
 * Study views. `limits.*.used` and `accepting_responses` are derived from the interviews at request time:
 * every interview created in the window counts, whatever its status (a started interview uses capacity).
 */
import type { components } from "../../../generated/schema.d.ts";
import type { StoredStudy } from "../../../fixtures/types.ts";
import type { Project } from "../model/project.ts";
import { createdSince, monthStart, weekStart } from "../model/windows.ts";

type S = components["schemas"];

/** Interviews of the study created at or after `sinceIso` (the per-study index is newest first). */
const countSince = (project: Project, studyId: string, sinceIso: string) => createdSince(project.interviewsByStudy.get(studyId) ?? [], sinceIso);

export interface StudyUsage {
  limits: S["StudyLimits"];
  accepting_responses: boolean;
}

export function studyUsage(project: Project, study: StoredStudy, nowMs: number): StudyUsage {
  const limits: S["StudyLimits"] = {
    monthly: { limit: study.monthly_limit, used: countSince(project, study.id, new Date(monthStart(nowMs)).toISOString()) },
    weekly: { limit: study.weekly_limit, used: countSince(project, study.id, new Date(weekStart(nowMs)).toISOString()) },
  };
  const within = (l: S["UsageLimit"]) => l.limit === null || l.used < l.limit;
  return { limits, accepting_responses: study.status === "active" && within(limits.monthly) && within(limits.weekly) };
}

export function studySummary(project: Project, s: StoredStudy, nowMs: number): S["StudySummary"] {
  const usage = studyUsage(project, s, nowMs);
  return {
    id: s.id,
    object: "study",
    name: s.name,
    status: s.status,
    interview_link: s.interview_link,
    accepting_responses: usage.accepting_responses,
    supported_languages: s.supported_languages,
    limits: usage.limits,
    created_at: s.created_at,
  };
}

function completedCount(project: Project, studyId: string): number {
  return project.studyCounts.get(studyId)?.completed ?? 0;
}

export function studyDetail(project: Project, s: StoredStudy, nowMs: number): S["Study"] {
  return {
    ...studySummary(project, s, nowMs),
    research_goal: s.research_goal,
    product_name: s.product_name,
    questions: s.questions,
    interview_count: completedCount(project, s.id),
  };
}

