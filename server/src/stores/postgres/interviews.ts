/**
 * Interviews when several processes share one PostgreSQL: rows of `interviews` (server/migrations), queried per
 * request, never held by a process, so a process's memory does not grow with them.
 *
 * - A page is one keyset query on an index of the list's order and filters: O(page) at a million rows.
 * - A transition is one conditional `UPDATE ... WHERE status = ANY(from) AND NOT abandoned RETURNING`, after the row
 *   is locked (`FOR UPDATE`), in the change in progress: of two processes racing to complete an interview, one moves
 *   it, and only that one writes the `interview.completed` event and its first attempt (in the same transaction).
 * - Counts per study, status and quality are kept by a trigger in the same transaction (`interview_counts`).
 * - The fixtures' interviews are written by the database's first start (fixtures.ts).
 */
import type { StoredInterview } from "../../../../fixtures/types.ts";
import type { Query } from "../../http/types.ts";
import { noCounts, type Project, type StudyCounts } from "../../model/project.ts";
import type { Page } from "../../model/sorted.ts";
import type { Interviews, InterviewStatus, Moved, StudyUsageCounts } from "../interviews.ts";
import type { PgBackend } from "./backend.ts";
import { keysetPage } from "./keyset.ts";

type Row = { doc: StoredInterview };

/** The list's filters as SQL conditions on the derived columns, from `$2` on (`$1` is the project). */
function filters(q: Query<"listInterviews">): { where: string; values: unknown[] } {
  const conditions = ["project_id = $1"];
  const values: unknown[] = [];
  const add = (column: string, value: string | undefined) => {
    if (value === undefined) return;
    values.push(value);
    conditions.push(`${column} = $${values.length + 1}`);
  };
  add("study_id", q.study_id);
  add("status", q.status);
  add("reference_id", q.reference_id);
  add("quality_score", q.quality_score);
  return { where: conditions.join(" AND "), values };
}

export class PgInterviews implements Interviews {
  constructor(private readonly backend: PgBackend) {}

  async get(project: Project, id: string): Promise<StoredInterview | undefined> {
    const { rows } = await this.backend.query<Row>("SELECT doc FROM interviews WHERE project_id = $1 AND id = $2", [project.id, id]);
    return rows[0]?.doc;
  }

  list(project: Project, query: Query<"listInterviews">): Promise<Page<StoredInterview>> {
    const { where, values } = filters(query);
    // A list shows summaries: the transcript and answers, most of an interview's bytes, stay in the database.
    const list = { table: "interviews", select: "doc - 'transcript' - 'question_answers'", where, values: [project.id, ...values], newestFirst: true, noun: "interview" };
    return keysetPage(this.backend, list, query.starting_after, query.limit);
  }

  async usage(project: Project, studyIds: readonly string[], weekIso: string, monthIso: string): Promise<Map<string, StudyUsageCounts>> {
    const { rows } = await this.backend.query<{ study_id: string; week: string; month: string; completed: string }>(
      `WITH w AS (SELECT study_id, COUNT(*) FILTER (WHERE created_at >= $3) AS week, COUNT(*) FILTER (WHERE created_at >= $4) AS month
                  FROM interviews WHERE project_id = $1 AND study_id = ANY($2::text[]) AND created_at >= LEAST($3, $4) COLLATE "C" GROUP BY study_id),
            c AS (SELECT study_id, SUM(n) AS completed FROM interview_counts
                  WHERE project_id = $1 AND study_id = ANY($2::text[]) AND status = 'completed' GROUP BY study_id)
       SELECT s AS study_id, COALESCE(w.week, 0) AS week, COALESCE(w.month, 0) AS month, COALESCE(c.completed, 0) AS completed
       FROM unnest($2::text[]) AS s LEFT JOIN w ON w.study_id = s LEFT JOIN c ON c.study_id = s`,
      [project.id, studyIds, weekIso, monthIso],
    );
    return new Map(rows.map((r) => [r.study_id, { week: Number(r.week), month: Number(r.month), completed: Number(r.completed) }]));
  }

  async report(project: Project, weekIso: string, monthIso: string) {
    const counts = await this.backend.query<{ study_id: string; status: InterviewStatus; quality_score: string; n: string }>(
      "SELECT study_id, status, quality_score, n FROM interview_counts WHERE project_id = $1 AND n > 0",
      [project.id],
    );
    const windows = await this.backend.query<{ week: string; month: string }>(
      `SELECT COUNT(*) FILTER (WHERE created_at >= $2) AS week, COUNT(*) FILTER (WHERE created_at >= $3) AS month
       FROM interviews WHERE project_id = $1 AND created_at >= LEAST($2, $3) COLLATE "C"`,
      [project.id, weekIso, monthIso],
    );
    const byStudy = new Map<string, StudyCounts>();
    let total = 0;
    for (const r of counts.rows) {
      let c = byStudy.get(r.study_id);
      if (!c) byStudy.set(r.study_id, (c = noCounts()));
      const n = Number(r.n);
      total += n;
      c.total += n;
      c[r.status] += n;
      if (r.status === "completed" && r.quality_score !== "") c[r.quality_score as "insightful" | "successful" | "unsuccessful"] += n;
    }
    return { byStudy, week: Number(windows.rows[0].week), month: Number(windows.rows[0].month), total };
  }

  async completedBy(project: Project, studyId: string, referenceId: string): Promise<boolean> {
    const { rows } = await this.backend.query(
      "SELECT 1 FROM interviews WHERE project_id = $1 AND reference_id = $2 AND study_id = $3 AND status = 'completed' LIMIT 1",
      [project.id, referenceId, studyId],
    );
    return rows.length > 0;
  }

  async create(project: Project, interview: StoredInterview): Promise<void> {
    // Now, not at commit: a planted interview completed in the same change must find its row.
    await this.backend.query("INSERT INTO interviews (project_id, id, doc) VALUES ($1, $2, $3)", [project.id, interview.id, JSON.stringify(interview)]);
  }

  async move(project: Project, id: string, from: readonly InterviewStatus[], change: (i: StoredInterview) => Partial<StoredInterview> | Promise<Partial<StoredInterview>>): Promise<Moved | undefined> {
    const found = await this.locked(project, id);
    if (!found) return undefined;
    if (found.abandoned || !from.includes(found.doc.status)) return { interview: found.doc, moved: false, abandoned: found.abandoned };
    const { rows } = await this.backend.query<Row>(
      "UPDATE interviews SET doc = doc || $3::jsonb WHERE project_id = $1 AND id = $2 AND status = ANY($4::text[]) AND NOT abandoned RETURNING doc",
      [project.id, id, JSON.stringify(await change(found.doc)), from],
    );
    return rows[0] ? { interview: rows[0].doc, moved: true, abandoned: false } : { interview: found.doc, moved: false, abandoned: found.abandoned };
  }

  async abandon(project: Project, id: string): Promise<Moved | undefined> {
    const found = await this.locked(project, id);
    if (!found) return undefined;
    if (found.abandoned || found.doc.status === "completed") return { interview: found.doc, moved: false, abandoned: found.abandoned };
    const { rows } = await this.backend.query<Row>(
      "UPDATE interviews SET abandoned = true WHERE project_id = $1 AND id = $2 AND status <> 'completed' AND NOT abandoned RETURNING doc",
      [project.id, id],
    );
    return { interview: rows[0]?.doc ?? found.doc, moved: rows.length > 0, abandoned: true };
  }

  /** The row, locked until the change in progress ends: a racing transition waits for this one, then finds it moved. */
  private async locked(project: Project, id: string): Promise<{ doc: StoredInterview; abandoned: boolean } | undefined> {
    const { rows } = await this.backend.query<{ doc: StoredInterview; abandoned: boolean }>(
      "SELECT doc, abandoned FROM interviews WHERE project_id = $1 AND id = $2 FOR UPDATE",
      [project.id, id],
    );
    return rows[0];
  }
}
