/**
 * The interviews of every project: one job of the store, behind one small interface. Memory and SQLite keep them in
 * the process, indexed (stores/memory/interviews.ts; SQLite writes each change to its backend); several processes on
 * one PostgreSQL keep them in its `interviews` table only, queried per request (stores/postgres/interviews.ts), so
 * no process holds a copy of them, whatever their number.
 *
 * A change is made inside the store's change in progress (`Backend.write`): on PostgreSQL, in its transaction.
 */
import type { StoredInterview } from "../../../fixtures/types.ts";
import type { Query } from "../http/types.ts";
import type { Page } from "../model/sorted.ts";
import type { Project, StudyCounts } from "../model/project.ts";

export type InterviewStatus = StoredInterview["status"];

/** What the usage windows of a study count (views/studies.ts). */
export interface StudyUsageCounts {
  /** Created at or after the start of this week and of this month, whatever their status. */
  week: number;
  month: number;
  /** Completed, ever. */
  completed: number;
}

/** What a transition found: the interview after it, and whether it moved (false: abandoned, or not in a `from` state). */
export interface Moved {
  interview: StoredInterview;
  moved: boolean;
  abandoned: boolean;
}

/** When a new interview's timers fire (null: held, or already history). */
export interface Timers {
  processingAt: number;
  completesAt: number;
}

export interface Interviews {
  /** One of the project's interviews; undefined for an id it does not have. */
  get(project: Project, id: string): Promise<StoredInterview | undefined>;
  /**
   * A page of the project's interviews, newest first (ties by id), filters combined with AND. `starting_after` must be
   * an interview of this list (a 400 that reads like an unknown id otherwise: see handlers/pagination.ts). Items are
   * for summaries: a store may leave out `transcript` and `question_answers`.
   */
  list(project: Project, query: Query<"listInterviews">): Promise<Page<StoredInterview>>;
  /** The usage counts of these studies: created since `weekIso` and `monthIso`, and completed. */
  usage(project: Project, studyIds: readonly string[], weekIso: string, monthIso: string): Promise<Map<string, StudyUsageCounts>>;
  /** Per study counts by status and quality, and the project's totals (the deprecated experiments report). */
  report(project: Project, weekIso: string, monthIso: string): Promise<{ byStudy: ReadonlyMap<string, StudyCounts>; week: number; month: number; total: number }>;
  /** Whether someone with this reference id completed an interview of the study (participant eligibility). */
  completedBy(project: Project, studyId: string, referenceId: string): Promise<boolean>;
  /** Stores a new interview (its timers: when it moves on by itself). */
  create(project: Project, interview: StoredInterview, timers: Timers | null): Promise<void>;
  /**
   * Applies `change` (computed from the interview as it is) when the interview is in one of `from` and not abandoned;
   * one caller wins a race, the others find it moved. Undefined for an unknown id.
   */
  move(project: Project, id: string, from: readonly InterviewStatus[], change: (i: StoredInterview) => Partial<StoredInterview> | Promise<Partial<StoredInterview>>): Promise<Moved | undefined>;
  /** The respondent left: the interview stays where it is and never moves again (not when completed). */
  abandon(project: Project, id: string): Promise<Moved | undefined>;
}
