/** Prompt events kept in the process (memory and SQLite), each new one written to the backend. */
import type { Project } from "../../model/project.ts";
import type { ChangeLog } from "../backend.ts";
import type { PromptEvents } from "../prompt-events.ts";

export class MemoryPromptEvents implements PromptEvents {
  constructor(private readonly backend: ChangeLog) {}

  async record(project: Project, eventId: string, phase: string, receivedAt: string): Promise<boolean> {
    if (project.promptEvents.has(eventId)) return false;
    this.backend.append({ kind: "prompt.recorded", project_id: project.id, event_id: eventId, phase, received_at: receivedAt });
    project.promptEvents.set(eventId, { phase, received_at: receivedAt });
    return true;
  }
}
