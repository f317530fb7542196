/**
 * The participant prompt events each project received (`POST /v1/participant/prompt-events`), by the client's event
 * id, so a retried event is told apart as a duplicate. Memory and SQLite keep them in the process; several processes
 * on one PostgreSQL in its `prompt_events` table only.
 */
import type { Project } from "../model/project.ts";

export interface PromptEvents {
  /** Records the event; false when the project already had one with this id (nothing is recorded then). */
  record(project: Project, eventId: string, phase: string, receivedAt: string): Promise<boolean>;
}
