/** Prompt events kept in the process (memory and SQLite), each new one written to the journal. */
import type { Project } from "../../model/project.ts";
import type { ChangeLog } from "../journal.ts";
import type { PromptEvents } from "../prompt-events.ts";

export class MemoryPromptEvents implements PromptEvents {
  constructor(private readonly journal: ChangeLog) {}

  async record(project: Project, eventId: string, phase: string, receivedAt: string): Promise<boolean> {
    if (project.promptEvents.has(eventId)) return false;
    this.journal.append({ kind: "prompt.recorded", project_id: project.id, event_id: eventId, phase, received_at: receivedAt });
    project.promptEvents.set(eventId, { phase, received_at: receivedAt });
    return true;
  }
}
