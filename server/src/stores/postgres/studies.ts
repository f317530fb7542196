/**
 * Studies when several processes share one PostgreSQL: rows of `studies`, queried per request and held by no process;
 * the list of active studies is one keyset query on a partial index of its order.
 */
import type { StoredStudy } from "../../../../fixtures/types.ts";
import { badRequest } from "../../http/errors.ts";
import type { Query } from "../../http/types.ts";
import type { Project } from "../../model/project.ts";
import type { Page } from "../../model/sorted.ts";
import type { Studies } from "../studies.ts";
import type { PgJournal } from "./journal.ts";

type Row = { doc: StoredStudy };

export class PgStudies implements Studies {
  constructor(private readonly journal: PgJournal) {}

  async get(project: Project, id: string, lock = false): Promise<StoredStudy | undefined> {
    const { rows } = await this.journal.query<Row>(`SELECT doc FROM studies WHERE project_id = $1 AND id = $2${lock ? " FOR UPDATE" : ""}`, [project.id, id]);
    return rows[0]?.doc;
  }

  async list(project: Project, query: Query<"listStudies">): Promise<Page<StoredStudy>> {
    const params: unknown[] = [project.id];
    let after = "";
    if (query.starting_after !== undefined) {
      const { rows } = await this.journal.query<{ created_at: string }>("SELECT created_at FROM studies WHERE project_id = $1 AND id = $2 AND status = 'active'", [project.id, query.starting_after]);
      if (rows.length === 0) throw badRequest(`No such study: ${query.starting_after}`);
      params.push(rows[0].created_at, query.starting_after);
      after = " AND (created_at, id) < ($2, $3)";
    }
    params.push(query.limit + 1);
    const { rows } = await this.journal.query<Row>(
      `SELECT doc FROM studies WHERE project_id = $1 AND status = 'active'${after} ORDER BY created_at DESC, id DESC LIMIT $${params.length}`,
      params,
    );
    return { data: rows.slice(0, query.limit).map((r) => r.doc), has_more: rows.length > query.limit };
  }

  async active(project: Project): Promise<StoredStudy[]> {
    const { rows } = await this.journal.query<Row>("SELECT doc FROM studies WHERE project_id = $1 AND status = 'active' ORDER BY created_at DESC, id DESC", [project.id]);
    return rows.map((r) => r.doc);
  }

  async plant(project: Project, study: StoredStudy): Promise<void> {
    await this.journal.query("INSERT INTO studies (project_id, id, doc) VALUES ($1, $2, $3)", [project.id, study.id, JSON.stringify(study)]);
  }
}
