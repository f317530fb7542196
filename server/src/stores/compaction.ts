/**
 * Compaction of the change log, so start-up replays what the state is, not how it got there.
 *
 * Changes that set the same thing fold into one, at the position of the first of them: a project's webhook, its
 * fault settings, its listener secret and each recorded prompt keep only their last value; an interview's
 * transitions fold into its creation (or, for a fixture interview, into its first change); only the project's last
 * forwards are kept (the store keeps no more). Creations (projects, planted studies, interviews and chats) and
 * abandons stay as they are. Positions are kept, so everything a change depends on (its project, its study) still
 * comes before it. A folded webhook change carries the version the changes it stands for reached (events are bound to
 * it). The result replays to the same state (server/test/compaction.test.ts: every prefix of random logs, op by op).
 */
import type { Op } from "./backend.ts";
import { FORWARDS_KEPT } from "../model/project.ts";

export interface LoggedOp {
  seq: number;
  op: Op;
}

export interface Compaction {
  /** Rows whose change is now the folded one. */
  rewrite: LoggedOp[];
  /** Rows no longer needed. */
  drop: number[];
  /** Rows left after compaction. */
  kept: number;
}

/** The key of the thing a change sets (changes with one key fold into one); null: a change kept as it is. */
function keyOf(op: Op): string | null {
  switch (op.kind) {
    case "webhook.set":
    case "webhook.deleted":
      return `webhook ${op.project_id}`;
    case "faults.set":
      return `faults ${op.project_id}`;
    case "listener.secret":
      return `listener ${op.project_id}`;
    case "prompt.recorded":
      return `prompt ${op.project_id} ${op.event_id}`;
    case "interview.created":
      return `interview ${op.interview.project_id} ${op.interview.id}`;
    case "interview.changed":
      return `interview ${op.project_id} ${op.id}`;
    default:
      return null;
  }
}

/** `later` folded into `first` (both with the same key). */
function fold(first: Op, later: Op): Op {
  if (later.kind === "interview.changed") {
    if (first.kind === "interview.created") return { ...first, interview: { ...first.interview, ...later.change } };
    if (first.kind === "interview.changed") return { ...first, change: { ...first.change, ...later.change } };
  }
  // Each webhook change bumps its version (events are bound to it): the folded one carries the version reached.
  if ((later.kind === "webhook.set" || later.kind === "webhook.deleted") && (first.kind === "webhook.set" || first.kind === "webhook.deleted")) {
    return { ...later, version: later.version ?? (first.version ?? 1) + 1 };
  }
  return later;
}

export function compact(rows: readonly LoggedOp[]): Compaction {
  const folded = new Map<string, { at: number; op: Op; changed: boolean }>();
  const drop: number[] = [];
  // Forwards: only the last FORWARDS_KEPT of each project survive a replay, so older ones go.
  const forwardsSeen = new Map<string, number>();
  for (let i = rows.length - 1; i >= 0; i--) {
    const { seq, op } = rows[i];
    if (op.kind !== "forward.recorded") continue;
    const n = (forwardsSeen.get(op.project_id) ?? 0) + 1;
    forwardsSeen.set(op.project_id, n);
    if (n > FORWARDS_KEPT) drop.push(seq);
  }
  for (let i = 0; i < rows.length; i++) {
    const key = keyOf(rows[i].op);
    if (key === null) continue;
    const first = folded.get(key);
    if (!first) {
      folded.set(key, { at: i, op: rows[i].op, changed: false });
      continue;
    }
    first.op = fold(first.op, rows[i].op);
    first.changed = true;
    drop.push(rows[i].seq);
  }
  const rewrite = [...folded.values()].filter((f) => f.changed).map((f) => ({ seq: rows[f.at].seq, op: f.op }));
  return { rewrite, drop, kept: rows.length - drop.length };
}

/** When to compact: once the changes since the last compaction outnumber what it left (and at least `floor`). */
export function compactionDue(sinceLast: number, keptLast: number, floor = 1_000): boolean {
  return sinceLast >= Math.max(floor, keptLast);
}
