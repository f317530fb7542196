// Compaction of the change log (stores/compaction.ts), op by op against the original log: random logs of every kind of
// change are replayed twice through the replay's own applyOp, once as written and once compacted, and the two states
// must be the same, down to the webhook's version (events are bound to it), each interview's indexes and counts, the
// timers a restart re-arms and the forwards kept. Every prefix of a log is checked, as a compaction may run after any
// change. No server, no clock: applyOp over a Store loaded from the fixtures.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { StoredChat, StoredInterview, StoredMessage, StoredStudy } from "../../fixtures/types.ts";
import { FaultRegistry, NO_FAULTS } from "../src/faults/settings.ts";
import { compact, type LoggedOp } from "../src/stores/compaction.ts";
import type { Op } from "../src/stores/backend.ts";
import { applyOp, type ReplayTargets, type Running } from "../src/stores/restore.ts";
import type { InterviewRunner } from "../src/simulation/interview-runner.ts";
import { readDataset } from "../src/model/dataset.ts";
import { FORWARDS_KEPT } from "../src/model/project.ts";
import { Store } from "../src/model/store.ts";
import { DEFAULT_TENANT_LIMITS, Quotas } from "../src/model/tenant-limits.ts";

// The fixtures cut to one project, a study, three interviews and two chats: replayed thousands of times.
const FULL = readDataset();
const FIXTURE_PROJECT = FULL.projects[0].id;
const mine = <T extends { project_id: string }>(xs: T[], n: number) => xs.filter((x) => x.project_id === FIXTURE_PROJECT).slice(0, n);
const DATASET = {
  ...FULL,
  projects: FULL.projects.slice(0, 1),
  studies: mine(FULL.studies, 1),
  interviews: mine(FULL.interviews.filter((i) => i.study_id === mine(FULL.studies, 1)[0].id), 3),
  releases: [],
  chats: mine(FULL.chats, 2),
  messages: FULL.messages.filter((m) => mine(FULL.chats, 2).some((c) => c.id === m.chat_id)),
  trigger_rules: [],
  audiences: [],
  invites: [],
};
const CREATED = ["c0000000-0000-4000-8000-000000000001", "c0000000-0000-4000-8000-000000000002"];
const STUDY = DATASET.studies.find((s) => s.project_id === FIXTURE_PROJECT)!;
const FIXTURE_INTERVIEWS = DATASET.interviews.map((i) => i.id);
const T0 = Date.parse(DATASET.anchor);
const uuid = (prefix: string, n: number) => `${prefix}0000000-0000-4000-8000-${String(n).padStart(12, "0")}`;

/** A replay's targets over fresh fixtures; the runner is never called by applyOp. */
function targets(): ReplayTargets {
  return { store: new Store(structuredClone(DATASET)), faults: new FaultRegistry(), runner: {} as InterviewRunner, quotas: new Quotas(DEFAULT_TENANT_LIMITS) };
}

/** Everything a replay leaves that the server reads: per project, and the timers a restart would re-arm. */
function stateOf(ops: Op[]) {
  const t = targets();
  const running: Running = new Map();
  // Whether a change was skipped (its interview not there yet) is not state: a fold may drop the skipped one.
  for (const op of ops) applyOp(op, t, running);
  const projects = [...t.store.projects.values()].map((p) => ({
    id: p.id,
    tenant: p.tenant,
    webhook: p.webhook,
    // The version the next PUT continues from (also after a DELETE, when there is no webhook to read it from).
    webhookVersion: (p as unknown as { webhookVersion: number }).webhookVersion,
    listenerSecret: p.listenerSecret,
    faults: t.faults.get(p.id),
    prompts: [...p.promptEvents.entries()].sort(),
    forwards: p.forwards.map((f) => f.id),
    abandoned: [...p.abandoned].sort(),
    studies: [...p.studies.keys()].sort(),
    activeStudies: p.activeStudies.map((s) => s.id),
    interviews: p.interviewList.map((i) => JSON.stringify(i)),
    byStatus: Object.fromEntries([...p.interviewsByStatus].map(([k, v]) => [k, v.map((i) => i.id)]).filter(([, v]) => v.length > 0)),
    counts: Object.fromEntries([...p.studyCounts].filter(([, c]) => c.total !== 0)),
    chats: p.chatList.map((c) => c.id),
    messages: [...p.messagesByChat].map(([c, m]) => [c, m.map((x) => x.id)]),
  }));
  // What resumeRunning re-arms: interviews still running, not abandoned, with their times.
  const rearmed = [...running]
    .filter(([i, r]) => i.status !== "completed" && !r.project.abandoned.has(i.id))
    .map(([i, r]) => `${i.id} ${r.processingAt} ${r.completesAt}`)
    .sort();
  return { projects, rearmed, quotas: JSON.stringify(t.quotas) };
}

/** Replays the compaction as the stores do: rewritten rows in place, dropped rows gone, order by position. */
function compacted(rows: LoggedOp[]): Op[] {
  const plan = compact(rows);
  const rewrite = new Map(plan.rewrite.map((r) => [r.seq, r.op]));
  const drop = new Set(plan.drop);
  expect(plan.kept).toBe(rows.length - drop.size);
  return rows.filter((r) => !drop.has(r.seq)).map((r) => rewrite.get(r.seq) ?? r.op);
}

// One change of each kind, over a few projects and ids so that changes collide.
const project = fc.constantFrom(FIXTURE_PROJECT, ...CREATED);
const interviewId = fc.oneof(fc.integer({ min: 1, max: 6 }).map((n) => uuid("a", n)), fc.constantFrom(...FIXTURE_INTERVIEWS));
const status = fc.constantFrom<StoredInterview["status"]>("started", "processing", "completed");
const at = fc.integer({ min: 0, max: 86_400_000 }).map((d) => new Date(T0 + d).toISOString());

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ p: project, url: fc.constantFrom("https://a.example/h", "https://b.example/h"), secret: fc.constantFrom("whsec_1", "whsec_2") })
    .map(({ p, url, secret }) => ({ kind: "webhook.set", project_id: p, url, events: ["interview.completed"], secret }) as Op),
  project.map((p) => ({ kind: "webhook.deleted", project_id: p }) as Op),
  fc.record({ p: project, latency: fc.integer({ min: 0, max: 50 }), failNext: fc.integer({ min: 0, max: 3 }), clear: fc.boolean() })
    .map(({ p, latency, failNext, clear }) => ({ kind: "faults.set", project_id: p, settings: clear ? null : { ...NO_FAULTS, latency_ms: latency, fail_next: failNext } }) as Op),
  fc.record({ p: project, secret: fc.constantFrom("lsec_1", "lsec_2") }).map(({ p, secret }) => ({ kind: "listener.secret", project_id: p, secret }) as Op),
  fc.record({ p: project, ev: fc.integer({ min: 1, max: 3 }), phase: fc.constantFrom("received", "forwarded"), when: at })
    .map(({ p, ev, phase, when }) => ({ kind: "prompt.recorded", project_id: p, event_id: uuid("e", ev), phase, received_at: when }) as Op),
  fc.record({ p: project, n: fc.integer({ min: 1, max: 1_000_000 }) }).map(({ p, n }) => forward(p, n)),
  fc.record({ p: project, n: fc.integer({ min: 1, max: 4 }), active: fc.boolean() })
    .map(({ p, n, active }) => ({ kind: "study.planted", study: { ...STUDY, id: uuid("b", n), project_id: p, status: active ? "active" : "draft" } as StoredStudy }) as Op),
  fc.record({ p: project, id: fc.integer({ min: 1, max: 6 }), s: status, timers: fc.option(fc.integer({ min: 1, max: 10_000 })) }).map(({ p, id, s, timers }) => ({
    kind: "interview.created",
    interview: { ...DATASET.interviews[0], id: uuid("a", id), project_id: p, study_id: STUDY.id, status: s, quality_score: null, completed_at: null } as StoredInterview,
    processing_at: timers === null ? null : T0 + timers,
    completes_at: timers === null ? null : T0 + 2 * timers,
  }) as Op),
  fc.record({ p: project, id: interviewId, s: status, q: fc.constantFrom(null, "insightful", "successful"), when: at }).map(({ p, id, s, q, when }) => ({
    kind: "interview.changed",
    project_id: p,
    id,
    change: s === "completed" ? { status: s, quality_score: q, completed_at: when } : { status: s },
  }) as Op),
  fc.record({ p: project, id: interviewId }).map(({ p, id }) => ({ kind: "interview.abandoned", project_id: p, id }) as Op),
  fc.record({ p: project, n: fc.integer({ min: 1, max: 4 }), hidden: fc.boolean(), messages: fc.integer({ min: 0, max: 3 }) }).map(({ p, n, hidden, messages }) => chat(p, n, hidden, messages)),
);

function forward(p: string, n: number): Op {
  return { kind: "forward.recorded", project_id: p, forward: { id: uuid("f", n), object: "sim_forward", event_id: uuid("e", 1), interview_id: uuid("a", 1), url: "https://a.example/h", status: 200, error: null, forwarded_at: new Date(T0 + n).toISOString() } };
}

function chat(p: string, n: number, hidden: boolean, messages: number): Op {
  const template = DATASET.chats[0];
  const c = { ...template, id: uuid("d", n), project_id: p, visibility: hidden ? "hidden" : "visible" } as StoredChat;
  const ms = Array.from({ length: messages }, (_, k) => ({ ...DATASET.messages[0], id: uuid("d", n * 10 + k), chat_id: c.id, project_id: p, hidden: false }) as StoredMessage);
  return { kind: "chat.planted", chat: c, messages: ms };
}

const created = (id: string): Op => ({ kind: "project.created", project: { id, name: id, api_key: `svc_live_${id}`, public_key: `pk_live_${id}`, tenant: FIXTURE_PROJECT, created_at: new Date(T0).toISOString() } });

/** What a change creates (the server creates each id once: random UUIDs); null when it creates nothing. */
function createdId(o: Op): string | null {
  if (o.kind === "interview.created") return o.interview.id;
  if (o.kind === "study.planted") return o.study.id;
  if (o.kind === "chat.planted") return o.chat.id;
  return null;
}

/** Changes as the server writes them: each id created once, the created projects before anything in them. */
const valid = (ops: Op[], seen = new Set<string>()) =>
  ops.filter((o) => {
    const id = createdId(o);
    if (id === null) return true;
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
const log = fc.array(op, { minLength: 1, maxLength: 60 }).map((changes) => [created(CREATED[0]), created(CREATED[1]), ...valid(changes)]);
const rowsOf = (ops: Op[], from = 1): LoggedOp[] => ops.map((o, i) => ({ seq: from + i, op: o }));

describe("compaction of the change log", () => {
  it("every prefix of a random log replays compacted to the same state as written", () => {
    fc.assert(
      fc.property(log, (ops) => {
        for (let n = 1; n <= ops.length; n++) {
          const rows = rowsOf(ops.slice(0, n));
          expect(stateOf(compacted(rows)), `after ${n} changes`).toEqual(stateOf(ops.slice(0, n)));
        }
      }),
      { numRuns: 300 },
    );
  });

  it("a compacted log compacted again, with changes after it, still replays as written (versions continue)", () => {
    fc.assert(
      fc.property(log, fc.array(op, { maxLength: 30 }), (first, later) => {
        const more = valid(later, new Set(first.map(createdId).filter((id) => id !== null)));
        const once = compacted(rowsOf(first));
        const twice = compacted(rowsOf([...once, ...more]));
        expect(stateOf(twice)).toEqual(stateOf([...first, ...more]));
      }),
      { numRuns: 300 },
    );
  });

  it("keeps the webhook's version through folded changes, so an event bound to an old setting stays stale", () => {
    const ops: Op[] = [
      { kind: "webhook.set", project_id: FIXTURE_PROJECT, url: "https://a.example/h", events: ["interview.completed"], secret: "whsec_1" },
      { kind: "webhook.deleted", project_id: FIXTURE_PROJECT },
      { kind: "webhook.set", project_id: FIXTURE_PROJECT, url: "https://b.example/h", events: ["interview.completed"], secret: "whsec_2" },
    ];
    const rows = rowsOf(ops);
    const plan = compact(rows);
    expect(plan.drop).toEqual([2, 3]);
    expect(plan.rewrite).toEqual([{ seq: 1, op: { ...ops[2], version: 3 } }]);
    expect(stateOf(compacted(rows)).projects[0].webhook).toEqual({ url: "https://b.example/h", events: ["interview.completed"], signing_secret: "whsec_2", version: 3 });
  });

  it("keeps only the last forwards a replay keeps, per project, and every other kind of change as written", () => {
    const ops: Op[] = [...Array.from({ length: FORWARDS_KEPT + 5 }, (_, i) => forward(FIXTURE_PROJECT, i + 1)), forward(CREATED[0], 1)];
    const plan = compact(rowsOf([created(CREATED[0]), ...ops]));
    // Rows 2..6 hold the five oldest forwards of the fixture project; the created project's one forward stays.
    expect(plan.drop.sort((a, b) => a - b)).toEqual([2, 3, 4, 5, 6]);
    expect(plan.rewrite).toEqual([]);
    const kept = [chat(FIXTURE_PROJECT, 1, false, 2), { kind: "interview.abandoned", project_id: FIXTURE_PROJECT, id: FIXTURE_INTERVIEWS[0] } as Op];
    expect(compact(rowsOf(kept))).toEqual({ rewrite: [], drop: [], kept: 2 });
  });

  it("folds an interview's transitions into its creation, keeping the creation's timers", () => {
    const ops = [
      { kind: "interview.created", interview: { ...DATASET.interviews[0], id: uuid("a", 1), project_id: FIXTURE_PROJECT, status: "started" }, processing_at: T0 + 10, completes_at: T0 + 20 },
      { kind: "interview.changed", project_id: FIXTURE_PROJECT, id: uuid("a", 1), change: { status: "processing" } },
      { kind: "faults.set", project_id: FIXTURE_PROJECT, settings: null },
      { kind: "interview.changed", project_id: FIXTURE_PROJECT, id: uuid("a", 1), change: { status: "completed", quality_score: "insightful" } },
    ] as Op[];
    const plan = compact(rowsOf(ops));
    expect(plan.drop).toEqual([2, 4]);
    expect(plan.rewrite).toHaveLength(1);
    const folded = plan.rewrite[0].op as Extract<Op, { kind: "interview.created" }>;
    expect([folded.interview.status, folded.interview.quality_score, folded.processing_at, folded.completes_at]).toEqual(["completed", "insightful", T0 + 10, T0 + 20]);
    expect(stateOf(compacted(rowsOf(ops)))).toEqual(stateOf(ops));
  });
});
