/**
 * Interviews: filters combine with AND. The walk starts from the smallest applicable index (a study's,
 * a status's, ...) and checks the remaining filters item by item.
 */
import type { StoredInterview } from "../../../fixtures/types.ts";
import { notFound } from "../http/errors.ts";
import type { HandlerGroup, Query } from "../http/types.ts";
import { comboKey, interviewOrder, type Project } from "../model/project.ts";
import { interviewDetail, interviewSummary } from "../views/interviews.ts";
import type { HandlerDeps } from "./deps.ts";
import { envelope, listPage } from "./pagination.ts";

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

export function interviewsHandlers(_deps: HandlerDeps): HandlerGroup<"listInterviews" | "getInterview"> {
  return {
    listInterviews({ project, query }) {
      const lists = comboLists(project, query);
      const page = listPage({
        sorted: lists === null ? candidates(project, query) : EMPTY,
        merged: lists ?? undefined,
        order: interviewOrder,
        limit: query.limit,
        startingAfter: query.starting_after,
        lookup: (id) => project.interviews.get(id),
        filter: matches(query),
        noun: "interview",
      });
      return { status: 200, body: envelope(page, interviewSummary) };
    },

    getInterview({ project, path }) {
      const interview = project.interviews.get(path.id);
      if (!interview) throw notFound(`No such interview: ${path.id}`);
      return { status: 200, body: interviewDetail(interview) };
    },
  };
}
