/**
 * Study views. `limits.*.used` and `accepting_responses` are derived from the interviews at request time:
 * every interview created in the window counts, whatever its status (a started interview uses capacity).
 */
import type { components } from "../../../generated/schema.d.ts";
import type { StoredStudy } from "../../../fixtures/types.ts";
import type { Project } from "../model/project.ts";
import { monthStart, weekStart } from "../model/windows.ts";
import type { Interviews, StudyUsageCounts } from "../stores/interviews.ts";

type S = components["schemas"];

export interface StudyUsage {
  limits: S["StudyLimits"];
  accepting_responses: boolean;
  /** Completed interviews, ever (the detail's `interview_count`). */
  completed: number;
}

function usageOf(study: StoredStudy, counts: StudyUsageCounts | undefined): StudyUsage {
  const limits: S["StudyLimits"] = {
    monthly: { limit: study.monthly_limit, used: counts?.month ?? 0 },
    weekly: { limit: study.weekly_limit, used: counts?.week ?? 0 },
  };
  const within = (l: S["UsageLimit"]) => l.limit === null || l.used < l.limit;
  return { limits, accepting_responses: study.status === "active" && within(limits.monthly) && within(limits.weekly), completed: counts?.completed ?? 0 };
}

/** The usage of several studies of one project, counted in one call to the interviews. */
export async function studiesUsage(interviews: Interviews, project: Project, studies: readonly StoredStudy[], nowMs: number): Promise<StudyUsage[]> {
  if (studies.length === 0) return [];
  const week = new Date(weekStart(nowMs)).toISOString();
  const month = new Date(monthStart(nowMs)).toISOString();
  const counts = await interviews.usage(project, studies.map((s) => s.id), week, month);
  return studies.map((s) => usageOf(s, counts.get(s.id)));
}

export async function studyUsage(interviews: Interviews, project: Project, study: StoredStudy, nowMs: number): Promise<StudyUsage> {
  return (await studiesUsage(interviews, project, [study], nowMs))[0];
}

export function studySummary(s: StoredStudy, usage: StudyUsage): S["StudySummary"] {
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

export async function studyDetail(interviews: Interviews, project: Project, s: StoredStudy, nowMs: number): Promise<S["Study"]> {
  return detailOf(s, await studyUsage(interviews, project, s, nowMs));
}

/** A study planted now: no interview can name it yet, so nothing is counted (and nothing asked of the store). */
export function newStudyDetail(s: StoredStudy): S["Study"] {
  return detailOf(s, usageOf(s, undefined));
}

function detailOf(s: StoredStudy, usage: StudyUsage): S["Study"] {
  return {
    ...studySummary(s, usage),
    research_goal: s.research_goal,
    product_name: s.product_name,
    questions: s.questions,
    interview_count: usage.completed,
  };
}
