/**
 * A restart from the data dir: the backend's store changes are replayed in order over the freshly loaded fixtures,
 * then the interviews that were still running get their timers back (late ones fire at once). Replaying sends
 * nothing: webhook events and attempts come back through the dispatcher's own restore.
 */
import type { StoredInterview } from "../../../fixtures/types.ts";
import type { FaultRegistry } from "../faults/settings.ts";
import type { InterviewRunner } from "../simulation/interview-runner.ts";
import type { Project } from "../model/project.ts";
import type { Store } from "../model/store.ts";
import type { Quotas } from "../model/tenant-limits.ts";
import type { ChangeLog, Op } from "./backend.ts";
import { forget } from "../views/memo.ts";

export interface ReplayTargets {
  store: Store;
  faults: FaultRegistry;
  runner: InterviewRunner;
  quotas: Quotas;
}

/** Replays every recorded change; returns how many were applied (the start-up banner says so). */
export function replay(backend: ChangeLog, targets: ReplayTargets): number {
  const running: Running = new Map();
  let applied = 0;
  for (const op of backend.ops()) if (applyOp(op, targets, running)) applied++;
  resumeRunning(running, targets.runner);
  return applied;
}

/** Interviews whose timers were running when a change recorded them, with when they fire. */
export type Running = Map<StoredInterview, { project: Project; processingAt: number; completesAt: number }>;

/**
 * Applies one recorded change to the store (a replay at start-up); false when it was skipped. Interviews created with timers are added to `running`.
 */
export function applyOp(op: Op, { store, faults, quotas }: ReplayTargets, running: Running): boolean {
  // A change to a project the data no longer has (fixtures replaced under the same data dir) is skipped.
  const project = op.kind === "project.created" ? undefined : store.projects.get(projectOf(op));
  switch (op.kind) {
    case "project.created": {
      const { tenant, created_at: _at, ...p } = op.project;
      if (!store.projects.has(p.id)) store.restoreProject(p, tenant);
      break;
    }
    case "webhook.set":
      project?.setWebhook(op.url, op.events, op.secret, op.version);
      break;
    case "webhook.deleted":
      project?.deleteWebhook(op.version);
      break;
    case "study.planted":
      if (!project) return false;
      quotas.restored(project, 1);
      project.plantStudy(op.study);
      break;
    case "study.changed":
      if (!project?.studies.has(op.id)) return false;
      project.setStudyStatus(op.id, op.status);
      break;
    case "interview.created":
      if (!project) return false;
      quotas.restored(project, 1);
      project.addInterview(op.interview, true);
      if (op.completes_at !== null) running.set(op.interview, { project, processingAt: op.processing_at ?? op.completes_at, completesAt: op.completes_at });
      break;
    case "interview.changed": {
      const interview = project?.interviews.get(op.id);
      if (!project || !interview) return false;
      project.updateInterview(interview, op.change);
      forget(interview);
      break;
    }
    case "interview.abandoned":
      project?.abandoned.add(op.id);
      break;
    case "chat.planted":
      if (!project) return false;
      quotas.restored(project, 1 + op.messages.length);
      project.plantChat(op.chat, op.messages);
      break;
    case "release.planted":
      if (!project) return false;
      quotas.restored(project, 1);
      project.plantRelease(op.release);
      break;
    case "faults.set":
      if (project) faults.restore(op.project_id, op.settings);
      break;
    case "prompt.recorded":
      project?.promptEvents.set(op.event_id, { phase: op.phase, received_at: op.received_at });
      break;
    case "listener.secret":
      if (project) project.listenerSecret = op.secret;
      break;
    case "forward.recorded":
      project?.addForward(op.forward);
      break;
  }
  return true;
}

/** Re-arms the timers of interviews still running (late ones fire at once). */
function resumeRunning(running: Running, runner: InterviewRunner): void {
  for (const [interview, { project, processingAt, completesAt }] of running) {
    if (interview.status !== "completed" && !project.abandoned.has(interview.id)) runner.resume(project, interview.id, processingAt, completesAt);
  }
}

function projectOf(op: Exclude<Op, { kind: "project.created" }>): string {
  switch (op.kind) {
    case "study.planted":
      return op.study.project_id;
    case "interview.created":
      return op.interview.project_id;
    case "chat.planted":
      return op.chat.project_id;
    case "release.planted":
      return op.release.project_id;
    default:
      return op.project_id;
  }
}
