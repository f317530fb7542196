/**
 * Simulated interviews over time: started -> processing -> completed, on the service's timers or on demand, and
 * `interview.completed` when one completes. An interview's status only moves forward, whichever of its timers or
 * a completion request comes first; an abandoned interview never moves again. Every transition is written to the
 * backend, and `resume` re-arms the timers of interviews still running when the sandbox restarts from its data dir.
 */
import type { StoredInterview, StoredStudy } from "../../../fixtures/types.ts";
import { iso, schedule, type Clock } from "../clock.ts";
import type { Logger } from "pino";
import type { Backend } from "../stores/backend.ts";
import type { InterviewTimers, TimerKind } from "../stores/timers.ts";
import type { Project } from "../model/project.ts";
import type { Interviews, Moved } from "../stores/interviews.ts";
import type { Studies } from "../stores/studies.ts";
import type { WebhookDispatcher } from "../webhooks/types.ts";

const QUALITIES = ["insightful", "successful", "unsuccessful"] as const;

/** What a finished simulated interview says: one exchange per study question, translated when not in English. */
function completion(study: StoredStudy, i: StoredInterview, nowMs: number): Partial<StoredInterview> {
  // A regional English (en-GB, en-US) is English too: language tags are case-insensitive.
  const english = /^en(-|$)/i.test(i.language ?? "");
  const answer = (q: string) => `About "${q}": it took me a while, but the team figured it out.`;
  const transcript: StoredInterview["transcript"] = [];
  study.questions.forEach((q, n) => {
    transcript.push({ role: "agent", message: q.text, ...(english ? {} : { translated: q.text }), time_in_call_secs: n * 40 });
    transcript.push({ role: "user", message: answer(q.text), ...(english ? {} : { translated: answer(q.text) }), time_in_call_secs: n * 40 + 12 });
  });
  const durationSecs = Math.max(1, Math.round((nowMs - Date.parse(i.started_at)) / 1000));
  return {
    status: "completed",
    quality_score: QUALITIES[Number.parseInt(i.id.slice(0, 2), 16) % 3],
    duration_secs: durationSecs,
    headline: `Simulated interview about ${study.product_name}`,
    summary: `A simulated respondent answered ${study.questions.length} questions of "${study.name}".`,
    completed_at: iso(nowMs),
    transcript,
    question_answers: study.questions.map((q, n) => ({
      question_index: n,
      question_text: q.text,
      answer_summary: `The respondent eventually succeeded with ${study.product_name}.`,
      answer_excerpt: [{ role: "user" as const, message: answer(q.text) }],
    })),
  };
}

export class InterviewRunner {
  constructor(
    private readonly clock: Clock,
    private readonly webhooks: WebhookDispatcher,
    private readonly backend: Backend,
    private readonly interviews: Interviews,
    private readonly studies: Studies,
    /** Delay from a simulated interview's start to its completion (half of it to `processing`). */
    readonly processingMs: number,
    private readonly logger?: Logger,
  ) {}

  /** Several processes on one PostgreSQL: timers are rows one process claims (stores/timers.ts), never armed here. */
  private rows: InterviewTimers | null = null;

  useRows(rows: InterviewTimers): void {
    this.rows = rows;
  }

  /** A new interview, stored with when its timers fire (none when held or already history). */
  async created(project: Project, interview: StoredInterview, timed: boolean): Promise<void> {
    const now = this.clock.now();
    const timers = timed ? { processingAt: now + Math.floor(this.processingMs / 2), completesAt: now + this.processingMs } : null;
    await this.interviews.create(project, interview, timers);
    if (!timers) return;
    if (this.rows) this.rows.add(project, interview, timers.processingAt, timers.completesAt);
    else this.resume(project, interview.id, timers.processingAt, timers.completesAt);
  }

  /** A due timer's transition (a claimed row, inside the change that claimed it). */
  async make(project: Project, interviewId: string, kind: TimerKind): Promise<void> {
    if (kind === "processing") await this.toProcessing(project, interviewId);
    else await this.toCompleted(project, interviewId);
  }

  /** Arms the timers of a running interview (at its creation, or after a restart: late ones fire at once). */
  resume(project: Project, interviewId: string, processingAtMs: number, completesAtMs: number): void {
    const now = this.clock.now();
    // Stores of one process only (memory, SQLite); with several processes the timers are rows (PgTimers).
    schedule(this.clock, () => this.transition(() => this.toProcessing(project, interviewId)), Math.max(0, processingAtMs - now));
    schedule(this.clock, () => this.transition(() => this.toCompleted(project, interviewId)), Math.max(0, completesAtMs - now));
  }

  private transition(fn: () => Promise<unknown>): void {
    try {
      const out = this.backend.write(fn);
      if (out instanceof Promise) out.catch((err) => this.logger?.error({ err: (err as Error).message }, "a simulated interview's transition could not be written"));
    } catch (err) {
      this.logger?.error({ err: (err as Error).message }, "a simulated interview's transition failed");
    }
  }

  /** started -> processing; never backwards (a late timer after completion does nothing). */
  async toProcessing(project: Project, interviewId: string): Promise<void> {
    await this.interviews.move(project, interviewId, ["started"], () => ({ status: "processing" }));
  }

  /**
   * -> completed, once: the one caller that moves it emits `interview.completed` (in the same change). Undefined for
   * an unknown interview; `moved` false when it was already completed or abandoned.
   */
  async toCompleted(project: Project, interviewId: string, atMs = this.clock.now()): Promise<Moved | undefined> {
    let study: StoredStudy | undefined;
    const out = await this.interviews.move(project, interviewId, ["started", "processing"], async (i) => completion((study = (await this.studies.get(project, i.study_id))!), i, atMs));
    if (out?.moved) await this.webhooks.interviewCompleted(project, out.interview, study);
    return out;
  }

  abandon(project: Project, interviewId: string): Promise<Moved | undefined> {
    return this.interviews.abandon(project, interviewId);
  }
}
