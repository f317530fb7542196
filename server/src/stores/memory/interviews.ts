/**
 * Interviews kept in the process (memory and SQLite): each project's sorted indexes (model/project.ts), every change
 * written to the backend as it is made (nothing with the memory backend; a row with SQLite, replayed at the next
 * start by stores/restore.ts). Nothing here waits: every answer is ready when the call returns.
 *
 * A filtered page walks the smallest index that holds it, or merges the few per-combination lists whose union is
 * exactly the filtered list, so a page costs O(page) however rare the combination.
 */
import type { StoredInterview } from "../../../../fixtures/types.ts";
import type { Query } from "../../http/types.ts";
import { listPage } from "../../handlers/pagination.ts";
import { comboKey, interviewOrder, type Project } from "../../model/project.ts";
import { createdSince } from "../../model/windows.ts";
import { forget } from "../../views/memo.ts";
import type { Interviews, Moved, StudyUsageCounts, Timers } from "../interviews.ts";
import type { ChangeLog } from "../backend.ts";

const EMPTY: StoredInterview[] = [];
const STATUSES = ["started", "processing", "completed"] as const;
const QUALITIES = [null, "insightful", "successful", "unsuccessful"] as const;

/**
 * Without reference_id, the lists whose union is exactly the filtered list (see Project.interviewsByCombo): at most
 * 3 x 4 of them, merged page by page. Null when a single index already is the list (no filter, or study alone).
 */
function comboLists(project: Project, q: Query<"listInterviews">): StoredInterview[][] | null {
  if (q.reference_id !== undefined || (q.status === undefined && q.quality_score === undefined)) return null;
  const lists: StoredInterview[][] = [];
  for (const status of q.status === undefined ? STATUSES : [q.status]) {
    for (const quality of q.quality_score === undefined ? QUALITIES : [q.quality_score]) {
      const list = project.interviewsByCombo.get(comboKey(q.study_id ?? "*", status, quality));
      if (list?.length) lists.push(list);
    }
  }
  return lists;
}

function candidates(project: Project, q: Query<"listInterviews">): StoredInterview[] {
  const indexes: StoredInterview[][] = [project.interviewList];
  if (q.study_id !== undefined) indexes.push(project.interviewsByStudy.get(q.study_id) ?? EMPTY);
  if (q.status !== undefined) indexes.push(project.interviewsByStatus.get(q.status) ?? EMPTY);
  if (q.reference_id !== undefined) indexes.push(project.interviewsByReference.get(q.reference_id) ?? EMPTY);
  if (q.quality_score !== undefined) indexes.push(project.interviewsByQuality.get(q.quality_score) ?? EMPTY);
  return indexes.reduce((a, b) => (b.length < a.length ? b : a));
}

function matches(q: Query<"listInterviews">): ((i: StoredInterview) => boolean) | undefined {
  const tests: Array<(i: StoredInterview) => boolean> = [];
  if (q.study_id !== undefined) tests.push((i) => i.study_id === q.study_id);
  if (q.status !== undefined) tests.push((i) => i.status === q.status);
  if (q.reference_id !== undefined) tests.push((i) => i.reference_id === q.reference_id);
  if (q.quality_score !== undefined) tests.push((i) => i.quality_score === q.quality_score);
  return tests.length ? (i) => tests.every((t) => t(i)) : undefined;
}

export class MemoryInterviews implements Interviews {
  constructor(private readonly backend: ChangeLog) {}

  async get(project: Project, id: string): Promise<StoredInterview | undefined> {
    return project.interviews.get(id);
  }

  async list(project: Project, query: Query<"listInterviews">) {
    const lists = comboLists(project, query);
    return listPage({
      sorted: lists === null ? candidates(project, query) : EMPTY,
      merged: lists ?? undefined,
      order: interviewOrder,
      limit: query.limit,
      startingAfter: query.starting_after,
      lookup: (id) => project.interviews.get(id),
      filter: matches(query),
      noun: "interview",
    });
  }

  async usage(project: Project, studyIds: readonly string[], weekIso: string, monthIso: string): Promise<Map<string, StudyUsageCounts>> {
    const out = new Map<string, StudyUsageCounts>();
    for (const id of studyIds) {
      // The per-study index is newest first: the interviews created since an instant are a prefix (binary search).
      const list = project.interviewsByStudy.get(id) ?? EMPTY;
      out.set(id, { week: createdSince(list, weekIso), month: createdSince(list, monthIso), completed: project.studyCounts.get(id)?.completed ?? 0 });
    }
    return out;
  }

  async report(project: Project, weekIso: string, monthIso: string) {
    return { byStudy: project.studyCounts, week: createdSince(project.interviewList, weekIso), month: createdSince(project.interviewList, monthIso), total: project.interviewList.length };
  }

  async completedBy(project: Project, studyId: string, referenceId: string): Promise<boolean> {
    return (project.interviewsByReference.get(referenceId) ?? EMPTY).some((i) => i.study_id === studyId && i.status === "completed");
  }

  async create(project: Project, interview: StoredInterview, timers: Timers | null): Promise<void> {
    this.backend.append({ kind: "interview.created", interview, processing_at: timers?.processingAt ?? null, completes_at: timers?.completesAt ?? null });
    project.addInterview(interview, true);
  }

  async move(project: Project, id: string, from: readonly StoredInterview["status"][], change: (i: StoredInterview) => Partial<StoredInterview> | Promise<Partial<StoredInterview>>): Promise<Moved | undefined> {
    const interview = project.interviews.get(id);
    if (!interview) return undefined;
    const abandoned = project.abandoned.has(id);
    if (abandoned || !from.includes(interview.status)) return { interview, moved: false, abandoned };
    const fields = await change(interview);
    this.backend.append({ kind: "interview.changed", project_id: project.id, id, change: fields });
    project.updateInterview(interview, fields);
    forget(interview);
    return { interview, moved: true, abandoned: false };
  }

  async abandon(project: Project, id: string): Promise<Moved | undefined> {
    const interview = project.interviews.get(id);
    if (!interview) return undefined;
    const abandoned = project.abandoned.has(id);
    if (abandoned || interview.status === "completed") return { interview, moved: false, abandoned };
    this.backend.append({ kind: "interview.abandoned", project_id: project.id, id });
    project.abandoned.add(id);
    return { interview, moved: true, abandoned: true };
  }
}
