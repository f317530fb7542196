/**
 * The studies of every project: one job of the store, as interviews are (stores/interviews.ts). Memory and SQLite keep
 * them in the process (stores/memory/studies.ts); several processes on one PostgreSQL keep them in its `studies` table
 * only (stores/postgres/studies.ts).
 */
import type { StoredStudy } from "../../../fixtures/types.ts";
import type { Query } from "../http/types.ts";
import type { Page } from "../model/sorted.ts";
import type { Project } from "../model/project.ts";

export interface Studies {
  /**
   * Any study of the project, active or not; undefined for an id it does not have. `lock` (PostgreSQL): its row is held
   * until the change in progress ends, so two processes creating interviews check its caps one after the other.
   */
  get(project: Project, id: string, lock?: boolean): Promise<StoredStudy | undefined>;
  /** A page of the project's active studies, newest first (ties by id); the cursor must be one of them (else a 400). */
  list(project: Project, query: Query<"listStudies">): Promise<Page<StoredStudy>>;
  /** Every active study of the project, newest first (the deprecated experiments report). */
  active(project: Project): Promise<StoredStudy[]>;
  /** Stores a study planted through the simulation surface. */
  plant(project: Project, study: StoredStudy): Promise<void>;
  /** Sets the status of a study of the project (the simulation surface); the study must exist. */
  setStatus(project: Project, id: string, status: StoredStudy["status"]): Promise<void>;
}
