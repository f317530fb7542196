/**
 * The timers port: where the simulated interviews' timers are kept when processes share a store. PostgreSQL keeps
 * them as rows one process claims (postgres/timers.ts); a store of one process arms them in its runner
 * (simulation/interview-runner.ts).
 */
import type { StoredInterview } from "../../../fixtures/types.ts";
import type { Project } from "../model/project.ts";

/** Which transition a timer makes: started to processing, or processing to completed. */
export type TimerKind = "processing" | "completed";

export interface InterviewTimers {
  /** Writes a new interview's two timers, in the change that creates it. */
  add(project: Project, interview: StoredInterview, processingAt: number, completesAt: number): void;
}
