/**
 * The simulated interviews' timers when several processes share one PostgreSQL: rows of `timers`, not timers armed
 * in every process. A row is written in the change that creates the interview; when it is due, one process claims it
 * (`FOR UPDATE SKIP LOCKED`) and deletes it in the change that makes the transition, so one process makes each
 * transition, and a crash of a process or of the database loses none (an uncommitted claim leaves its row).
 * A process wakes at the due time of the rows it wrote, and every second looks for rows others left (a killed process).
 */
import type { Logger } from "pino";
import type { StoredInterview } from "../../../../fixtures/types.ts";
import { schedule, type Clock } from "../../clock.ts";
import { StoreClosed, type PgBackend } from "./backend.ts";
import type { Project } from "../../model/project.ts";
import type { Projects } from "../projects.ts";
import type { InterviewTimers, TimerKind } from "../timers.ts";


/** Makes one transition (InterviewRunner's), inside the change that claimed its row. */
export type Transition = (project: Project, interviewId: string, kind: TimerKind) => Promise<unknown>;

/** How often a process looks for due rows it was not woken for. */
const POLL_MS = 1_000;
/** Rows claimed per change: a backlog (after an outage) is made in several short changes. */
const BATCH = 64;

export class PgTimers implements InterviewTimers {
  /** Claims up to BATCH due rows of these projects (one tenant's, by id) and makes their transitions, in the change in progress. */
  private async makeDue(projects: Map<string, Project>, now: number): Promise<number> {
    const { rows } = await this.backend.query<{ interview_id: string; kind: TimerKind; project_id: string; due_ms: string }>(
      `DELETE FROM timers WHERE (interview_id, kind) IN (
         SELECT interview_id, kind FROM timers WHERE due_ms <= $1 AND project_id = ANY($3::text[]) ORDER BY due_ms LIMIT $2 FOR UPDATE SKIP LOCKED)
       RETURNING interview_id, kind, project_id, due_ms`,
      [now, BATCH, [...projects.keys()]],
    );
    // In time order, and an interview's processing before its completion when both are late.
    rows.sort((a, b) => Number(a.due_ms) - Number(b.due_ms) || (a.kind === "processing" ? -1 : 1) - (b.kind === "processing" ? -1 : 1));
    for (const r of rows) {
      // Already completed or abandoned: the transition finds nothing to do.
      await this.transition(projects.get(r.project_id)!, r.interview_id, r.kind);
    }
    return rows.length;
  }

  private cancel: (() => void) | null = null;
  private wakeAtMs = Infinity;
  private ticking: Promise<void> | null = null;
  private again = false;
  private closed = false;

  constructor(
    private readonly backend: PgBackend,
    private readonly clock: Clock,
    private readonly projects: Projects,
    private readonly transition: Transition,
    private readonly logger?: Logger,
  ) {}

  /** In the change that creates the interview: its two transitions' rows; this process wakes for them once committed. */
  add(project: Project, interview: StoredInterview, processingAt: number, completesAt: number): void {
    this.backend.enqueue(
      "INSERT INTO timers (interview_id, kind, project_id, due_ms) VALUES ($1, 'processing', $2, $3), ($1, 'completed', $2, $4) ON CONFLICT DO NOTHING",
      [interview.id, project.id, processingAt, completesAt],
    );
    this.backend.afterCommit(() => this.wake(processingAt));
  }

  /** Claims what is due now (rows left by a stopped process, or by this one before a restart), then follows. */
  start(): void {
    this.wake(this.clock.now());
  }

  close(): void {
    this.closed = true;
    this.cancel?.();
    this.cancel = null;
  }

  private wake(atMs: number): void {
    if (this.closed) return;
    const at = Math.min(atMs, this.clock.now() + POLL_MS);
    if (this.cancel && at >= this.wakeAtMs) return;
    this.cancel?.();
    this.wakeAtMs = at;
    this.cancel = schedule(this.clock, () => {
      this.cancel = null;
      this.wakeAtMs = Infinity;
      void this.tick();
    }, Math.max(0, at - this.clock.now()));
  }

  private tick(): Promise<void> {
    if (this.ticking) {
      this.again = true;
      return this.ticking;
    }
    this.ticking = this.claimDue()
      // A row due already was locked by another process's claim, or fell due meanwhile: looked at again shortly.
      .then((next) => this.wake(this.again ? this.clock.now() : Math.max(next ?? Infinity, this.clock.now() + 10)))
      .catch((err) => {
        if (err instanceof StoreClosed) return;
        this.logger?.warn({ err: (err as Error).message }, "interview timers could not be claimed; trying again");
        this.wake(this.clock.now() + POLL_MS);
      })
      .finally(() => {
        this.ticking = null;
        this.again = false;
      });
    return this.ticking;
  }

  /**
   * Makes every due transition, a batch per change, each tenant's in a change of its own (tenants never wait for each
   * other's timers); returns when the next row is due (null: none).
   */
  private async claimDue(): Promise<number | null> {
    for (;;) {
      if (this.closed) return null;
      const now = this.clock.now();
      // Outside any lock: most wakes of a process find their rows claimed by another one, or none due.
      const { rows: due } = await this.backend.query<{ project_id: string }>("SELECT DISTINCT project_id FROM timers WHERE due_ms <= $1", [now]);
      if (due.length === 0) break;
      const byTenant = new Map<string, Map<string, Project>>();
      const gone: string[] = [];
      for (const { project_id } of due) {
        // A project created through any process is found in its table.
        const project = await this.projects.byId(project_id);
        if (!project) gone.push(project_id);
        else byTenant.set(project.tenant, (byTenant.get(project.tenant) ?? new Map()).set(project_id, project));
      }
      // Rows of a project the data no longer has (fixtures replaced under the same database): nothing to make.
      if (gone.length > 0) await this.backend.query("DELETE FROM timers WHERE project_id = ANY($1::text[]) AND due_ms <= $2", [gone, now]);
      // A change per tenant: one tenant's backlog never holds another's transitions back.
      const claimed = await Promise.all([...byTenant.values()].map((projects) => this.backend.write(() => this.makeDue(projects, now))));
      if (claimed.every((n) => n < BATCH)) break;
    }
    const { rows } = await this.backend.query<{ next: string | null }>("SELECT MIN(due_ms) AS next FROM timers", []);
    return rows[0].next === null ? null : Number(rows[0].next);
  }
}
