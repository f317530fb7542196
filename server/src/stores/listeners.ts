/**
 * The listener side of a project (`api-sandbox listen`): the secret its forwards are signed with, made on first use,
 * and the forwards its listeners reported, the last FORWARDS_KEPT. Memory and SQLite keep them on the project
 * (stores/memory/listeners.ts); several processes on one PostgreSQL keep them as rows (stores/postgres/listeners.ts).
 */
import type { components } from "../../../generated/schema.d.ts";
import type { Project } from "../model/project.ts";

export type SimForward = components["schemas"]["SimForward"];

export interface Listeners {
  /** The project's listener secret, made (and kept) by the first call. */
  secret(project: Project): Promise<string>;
  /** Records a forward, dropping the project's oldest past FORWARDS_KEPT. */
  addForward(project: Project, forward: SimForward): Promise<void>;
  /** The project's forwards kept, oldest first. */
  forwards(project: Project): Promise<SimForward[]>;
}
