/**
 * Studies when several processes share one PostgreSQL: rows of `studies`, queried per request and held by no process;
 * the list of active studies is one keyset query on a partial index of its order.
 */
import type { StoredStudy } from "../../../../fixtures/types.ts";
import type { Query } from "../../http/types.ts";
import type { Project } from "../../model/project.ts";
import type { Page } from "../../model/sorted.ts";
import type { Studies } from "../studies.ts";
import type { PgBackend } from "./backend.ts";
import { keysetPage } from "./keyset.ts";

type Row = { doc: StoredStudy };

export class PgStudies implements Studies {
  constructor(private readonly backend: PgBackend) {}

  async get(project: Project, id: string, lock = false): Promise<StoredStudy | undefined> {
    const { rows } = await this.backend.query<Row>(`SELECT doc FROM studies WHERE project_id = $1 AND id = $2${lock ? " FOR UPDATE" : ""}`, [project.id, id]);
    return rows[0]?.doc;
  }

  list(project: Project, query: Query<"listStudies">): Promise<Page<StoredStudy>> {
    const list = { table: "studies", where: "project_id = $1 AND status = 'active'", values: [project.id], newestFirst: true, noun: "study" };
    return keysetPage(this.backend, list, query.starting_after, query.limit);
  }

  async active(project: Project): Promise<StoredStudy[]> {
    const { rows } = await this.backend.query<Row>("SELECT doc FROM studies WHERE project_id = $1 AND status = 'active' ORDER BY created_at DESC, id DESC", [project.id]);
    return rows.map((r) => r.doc);
  }

  plant(project: Project, study: StoredStudy): Promise<void> {
    // Its answer is not needed: sent with the change's COMMIT.
    return this.backend.atCommit("INSERT INTO studies (project_id, id, doc) VALUES ($1, $2, $3)", [project.id, study.id, JSON.stringify(study)]);
  }

  setStatus(project: Project, id: string, status: StoredStudy["status"]): Promise<void> {
    // The generated `status` column follows the document, and with it the active studies' index.
    return this.backend.atCommit("UPDATE studies SET doc = jsonb_set(doc, '{status}', to_jsonb($3::text)) WHERE project_id = $1 AND id = $2", [project.id, id, status]);
  }
}
