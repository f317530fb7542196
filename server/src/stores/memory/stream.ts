/** The stream's events kept in the process (memory and SQLite): the last `keep` per project, written to the backend. */
import type { ChangeLog } from "../backend.ts";
import type { NewStreamEvent, StreamEvent, StreamLog } from "../stream.ts";

interface Held {
  next: number;
  events: StreamEvent[];
}

export class MemoryStream implements StreamLog {
  private readonly projects = new Map<string, Held>();

  constructor(
    private readonly backend: ChangeLog,
    private readonly epoch: string,
    private readonly keep: number,
  ) {
    for (const { project_id, event } of backend.streamEvents()) {
      const p = this.of(project_id);
      p.events.push(event);
      p.next = event.seq + 1;
    }
  }

  private of(projectId: string): Held {
    let p = this.projects.get(projectId);
    if (!p) this.projects.set(projectId, (p = { next: 1, events: [] }));
    return p;
  }

  append(projectId: string, event: NewStreamEvent): StreamEvent {
    const p = this.of(projectId);
    const seq = p.next++;
    const e = { seq, id: `${this.epoch}-${seq}`, ...event } as StreamEvent;
    this.backend.putStreamEvent({ project_id: projectId, event: e });
    p.events.push(e);
    if (p.events.length > this.keep) {
      const gone = p.events.splice(0, p.events.length - this.keep);
      this.backend.dropStreamEvents(projectId, gone[gone.length - 1].seq);
    }
    return e;
  }

  async head(projectId: string): Promise<number> {
    return (this.projects.get(projectId)?.next ?? 1) - 1;
  }

  async oldest(projectId: string): Promise<number | undefined> {
    return this.projects.get(projectId)?.events[0]?.seq;
  }

  async after(projectId: string, seq: number): Promise<StreamEvent[]> {
    const events = this.projects.get(projectId)?.events ?? [];
    // Numbers are consecutive within what is held: the first one past `seq` is found by arithmetic.
    const start = events.length === 0 ? 0 : Math.max(0, seq + 1 - events[0].seq);
    return events.slice(start);
  }

  async find(projectId: string, eventId: string): Promise<StreamEvent | undefined> {
    const events = this.projects.get(projectId)?.events ?? [];
    for (let i = events.length - 1; i >= 0; i--) if (events[i].event_id === eventId) return events[i];
    return undefined;
  }
}
