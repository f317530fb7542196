/**
 * The model-based run's two halves: `Model`, the seed's observable state as the suite predicts it (written from the
 * seed, not from any implementation), and `World`, the real side (the service over HTTP, the suite's receiver, the
 * curl log of the sequence). After every command `settle` compares every delivery received so far with the model.
 *
 * What the model holds, from the seed:
 * - the project's one webhook (Endpoints: PUT 201 then 200, GET never the secret, DELETE then 404; Authentication 5);
 * - a study planted for the sequence (or an existing one, from where it stood), its caps and its interviews (started,
 *   processing, completed, abandoned), each with its reference id and timestamps as first read;
 * - projects created during the sequence, and their webhooks;
 * - the receiver's answer to each attempt, chosen per interview, and the retries they must cause;
 * - chats planted for the sequence, visible or not, with visible and hidden messages;
 * - the other project's webhook, which must never hear of this project's interviews;
 * - for every completion: where its delivery must go and which secret signs it, or that it must never be delivered.
 */
import type { Ctx } from "../check.ts";
import type { Http, Reply } from "../http.ts";
import type { Receiver } from "../receiver.ts";
import type { Rule } from "../rules.ts";
import type { ProjectRef } from "../states/types.ts";

export type InterviewStatus = "started" | "processing" | "completed";

export interface StudyBase {
  interviewCount: number;
  weeklyUsed: number;
  monthlyUsed: number;
  /** Interviews it held before the sequence (left out of the judged lists). */
  before: Set<string>;
}

export const EMPTY_BASE = (): StudyBase => ({ interviewCount: 0, weeklyUsed: 0, monthlyUsed: 0, before: new Set() });

export interface ModelInterview {
  status: InterviewStatus;
  created: number;
  abandoned?: boolean;
  /** The reference_id it was started with (through the study's link, or directly). */
  reference: string;
  /** The timestamps first read from the REST API: created_at never changes; completed_at, once set, never changes. */
  createdAt?: string;
  completedAt?: string;
}

export interface ModelMessage {
  id: string;
  /** A customer-visible message: listed, counted, a valid cursor. */
  visible: boolean;
  /** Hidden because every part is internal (a contract pin), not because it is a hidden branch. */
  internalOnly: boolean;
}

export interface ModelChat {
  id: string;
  visible: boolean;
  title: string | null;
  source: string | null;
  messages: ModelMessage[];
}

export interface Model {
  /** This sequence's number: its receiver paths are /m<seq>/..., so late deliveries of earlier ones are told apart. */
  seq: number;
  webhook: { path: string; subscribed: boolean; secret: string } | null;
  otherWebhook: { path: string } | null;
  /**
   * The study the sequence's interviews go to. `base` holds what it had before the sequence (an existing study, when
   * studies cannot be planted): counts are judged as the base plus what the sequence did, and its earlier interviews
   * are left out of the lists the model judges.
   */
  study: { id: string; weekly: number | null; monthly: number | null; base: StudyBase } | null;
  /** `abandoned`: the respondent left (abandonInterview): it never completes, and is never delivered. */
  interviews: Map<string, ModelInterview>;
  /** Studies the sequence planted paused or draft: never listed, never in the experiments report. */
  inactiveStudies: string[];
  /** Projects created during the sequence: their keys, and the webhook path each configured (never this project's deliveries). */
  projects: Array<{ apiKey: string; hookPath: string | null }>;
  /** The receiver's answers to each attempt of an interview's delivery, chosen by the sequence (200 when not listed). */
  answers: Map<string, number[]>;
  chats: ModelChat[];
  /** Completed while a subscribed webhook was configured: the path it must reach and the secret that signs it. */
  expected: Map<string, { path: string; secret: string }>;
  /** Completed while no subscribed webhook was configured: never to be delivered. */
  forbidden: Set<string>;
  /** Deliveries already judged (by index in the receiver's list). */
  judged: number;
  /** Longest time from a completion to its delivery seen so far (for the quiet wait at the end). */
  latencyMs: number;
}

export interface Judge {
  expect(rule: Rule, ok: unknown, message: string, reply?: Reply, details?: unknown): boolean;
  conforms(reply: Reply, what: string): void;
  reached(statements: string[], by: string): void;
}

export interface World {
  ctx: Ctx;
  /** The project the sequence acts in (the run's, or a worker's own when sequences run side by side). */
  project: ProjectRef;
  http: Http;
  other?: Http;
  receiver: Receiver;
  judge: Judge;
  /** The curl lines of this sequence, each command's under a `# command` comment (fed by Http.tap). */
  log: string[];
  /** When each expected interview completed (for latency). */
  completedAt: Map<string, number>;
  /**
   * The projects created during the run, shared by its sequences: at most two are created, later createProject
   * commands take one of them (nothing is ever planted in them, and their webhooks go at each sequence's end, so
   * each is as fresh as a new one, and a run does not fill the service with projects it cannot remove).
   */
  projectPool: string[];
  /** Commands drawn at most once per run (what is costly and changes nothing when repeated), by name. */
  once: Set<string>;
  /** The seed statements a command (by name) can reach, for the per-statement report. */
  statementsOf: (command: string) => string[];
}

export const hookPath = (m: Model, name: string) => `/hook/m${m.seq}/${name}`;

export function newModel(seq: number): Model {
  return { seq, webhook: null, otherWebhook: null, study: null, interviews: new Map(), inactiveStudies: [], projects: [], answers: new Map(), chats: [], expected: new Map(), forbidden: new Set(), judged: 0, latencyMs: 0 };
}

/** Starts a command's part of the sequence's log: the requests that follow are its own. */
export function logCommand(w: World, name: string): void {
  w.log.push(`# ${name}`);
}
