/** Listener secrets and forwards kept on the project in the process (memory and SQLite), written to the backend. */
import type { Project } from "../../model/project.ts";
import type { ChangeLog } from "../backend.ts";
import type { Listeners, SimForward } from "../listeners.ts";
import { listenerSecret } from "../../webhooks/listener.ts";

export class MemoryListeners implements Listeners {
  constructor(private readonly backend: ChangeLog) {}

  async secret(project: Project): Promise<string> {
    return listenerSecret(project, this.backend);
  }

  async addForward(project: Project, forward: SimForward): Promise<void> {
    this.backend.append({ kind: "forward.recorded", project_id: project.id, forward });
    project.addForward(forward);
  }

  async forwards(project: Project): Promise<SimForward[]> {
    return project.forwards;
  }
}
