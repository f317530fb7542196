/**
 * Releases when several processes share one PostgreSQL: rows of `releases` (migration 13), queried per request and
 * held by no process; a page is one keyset query on the index of the list's order (`merged_at`, then `id`).
 */
import type { StoredRelease } from "../../../../fixtures/types.ts";
import type { Query } from "../../http/types.ts";
import type { Project } from "../../model/project.ts";
import type { Page } from "../../model/sorted.ts";
import type { Releases } from "../releases.ts";
import type { PgBackend } from "./backend.ts";
import { keysetPage } from "./keyset.ts";

export class PgReleases implements Releases {
  constructor(private readonly backend: PgBackend) {}

  list(project: Project, query: Query<"listReleases">): Promise<Page<StoredRelease>> {
    const status = query.status;
    const list = { table: "releases", where: `project_id = $1${status === undefined ? "" : " AND status = $2"}`, values: status === undefined ? [project.id] : [project.id, status], newestFirst: true, orderBy: "merged_at", noun: "release" };
    return keysetPage(this.backend, list, query.starting_after, query.limit);
  }

  async get(project: Project, id: string): Promise<StoredRelease | undefined> {
    const { rows } = await this.backend.query<{ doc: StoredRelease }>("SELECT doc FROM releases WHERE project_id = $1 AND id = $2", [project.id, id]);
    return rows[0]?.doc;
  }

  plant(project: Project, release: StoredRelease): Promise<void> {
    // Its answer is not needed: sent with the change's COMMIT.
    return this.backend.atCommit("INSERT INTO releases (project_id, id, doc) VALUES ($1, $2, $3)", [project.id, release.id, JSON.stringify(release)]);
  }
}
