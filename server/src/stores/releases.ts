/**
 * The releases of every project: one job of the store, as studies and chats are. Memory and SQLite keep them in the
 * process (stores/memory/releases.ts); several processes on one PostgreSQL keep them in its `releases` table only
 * (stores/postgres/releases.ts), so a release planted through one process is listed by every other.
 */
import type { StoredRelease } from "../../../fixtures/types.ts";
import type { Query } from "../http/types.ts";
import type { Page } from "../model/sorted.ts";
import type { Project } from "../model/project.ts";

export interface Releases {
  /** A page of the project's releases, newest `merged_at` first (ties by id), in a status if asked; the cursor must be one of them (else a 400). */
  list(project: Project, query: Query<"listReleases">): Promise<Page<StoredRelease>>;
  /** One of the project's releases; undefined for an id it does not have. */
  get(project: Project, id: string): Promise<StoredRelease | undefined>;
  /** Stores a release planted through the simulation surface. */
  plant(project: Project, release: StoredRelease): Promise<void>;
}
