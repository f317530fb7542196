/**
 * Provider states: how a run plants data and drives state on the implementation under test. The suite's default
 * is the HTTP simulation surface (`/_sim`, states/http.ts); an implementer without it, or with another one, writes
 * a module with these functions over their own system (an admin API, a database) and passes it with `--states FILE`.
 *
 * A module's default export is a function from `StatesEnv` to `ProviderStates` (or a promise of it). Every function
 * is optional: a missing one is a missing capability, and only the checks and model commands that need it are not
 * run (the report names the statements they would have judged and the capability they lacked).
 *
 * Inputs are the simulation surface's request bodies, typed from the contract (`generated/openapi.json`).
 */
import type { components } from "../../../generated/schema.d.ts";
import type { Capability } from "./capabilities.ts";

type S = components["schemas"];

export type { Capability } from "./capabilities.ts";

/** A study to plant: name, status (`active`, `paused`, `draft`), weekly and monthly caps (`null`: unlimited), languages, questions. */
export type PlantStudyInput = S["SimStudyInput"];
/**
 * An interview to plant in a study of the project: `hold: true` keeps it `started` until `completeInterview`; otherwise it
 * runs to completion on the service's own timer (and is delivered). `created_at`/`completed_at` plant it at chosen instants,
 * `interview_link` opens it through the study's link (its `reference_id` query parameter tags it), `respondent_id` through
 * a respondent-specific link.
 */
export type PlantInterviewInput = S["SimInterviewInput"];
/**
 * A chat to plant with its messages. `visibility` other than `visible` (internal, evaluation, release) is a chat the API
 * must never show; a message with `hidden: true` is on a hidden branch; parts may be recorded shapes the API normalizes.
 */
export type PlantChatInput = S["SimChatInput"];
/**
 * A release to plant: a merged pull request (number, title, description, author, URL), its status, when it was merged
 * and when it was last analysed (`null`: never). What is left out is the implementation's choice.
 */
export type PlantReleaseInput = S["SimReleaseInput"];
/** A study's status (`active`, `paused`, `draft`), as `setStudyStatus` sets it. */
export type StudyStatus = S["SimStudyStatusInput"]["status"];
/** A project to create: its name. */
export type CreateProjectInput = S["SimProjectInput"];
/** The project's fault settings (`null` clears them). */
export type FaultSettings = S["SimFaultSettings"];

/** Which project a function acts on: the one of this API key (the run's `--api-key` unless a check says otherwise). */
export interface ProjectRef {
  apiKey: string;
}

export interface PlantedStudy {
  id: string;
}

export interface PlantedInterview {
  id: string;
  /** Its status right after the call, when known (`started`, `processing`, `completed`). */
  status?: string;
}

export interface PlantedChat {
  id: string;
  /** The planted messages' ids, in the order given (hidden ones included). */
  message_ids: string[];
}

export interface PlantedRelease {
  id: string;
}

export interface CreatedProject {
  id?: string;
  /** A project API key (`svc_live_...`) for the new project. */
  api_key: string;
  public_key?: string;
}

/** Something the run created, for the report's "created" section and for `remove`. */
export interface CreatedItem {
  kind: "study" | "interview" | "chat" | "release" | "project" | "webhook" | "faults";
  id: string;
  /** The name it was given (it carries the run's id), when it has one. */
  name?: string;
  project: ProjectRef;
}

export interface ProviderStates {
  /**
   * The capabilities this module offers, asked once at the start of a run (it may probe, without side effects): a list,
   * or a record where `true` is offered and a string says why not. Absent: every capability whose function is defined,
   * with every optional field of it.
   */
  capabilities?(): Promise<Capability[] | Partial<Record<Capability, true | string>>> | Capability[] | Partial<Record<Capability, true | string>>;
  plantStudy?(input: PlantStudyInput, project: ProjectRef): Promise<PlantedStudy>;
  plantInterview?(input: PlantInterviewInput, project: ProjectRef): Promise<PlantedInterview>;
  /** Completes a held interview now: it goes to `processing`, then `completed`, and is delivered. */
  completeInterview?(id: string, project: ProjectRef): Promise<PlantedInterview>;
  /** The respondent leaves: the interview keeps its status, never completes and is never delivered. */
  abandonInterview?(id: string, project: ProjectRef): Promise<PlantedInterview>;
  /**
   * Sets the status of a study of the project (one it planted): a paused one stops accepting responses and leaves the
   * studies list, and a launch its trigger rule offered before is then declined.
   */
  setStudyStatus?(id: string, status: StudyStatus, project: ProjectRef): Promise<PlantedStudy>;
  plantChat?(input: PlantChatInput, project: ProjectRef): Promise<PlantedChat>;
  /** Plants a release of the project (with the hidden, release-generated chat it links to). */
  plantRelease?(input: PlantReleaseInput, project: ProjectRef): Promise<PlantedRelease>;
  createProject?(input: CreateProjectInput, project: ProjectRef): Promise<CreatedProject>;
  setFaults?(settings: FaultSettings | null, project: ProjectRef): Promise<void>;
  /**
   * A body for `POST /v1/interview-participant/launches` that the implementation accepts as eligible: its decision must
   * be `webview` or `external_browser`. Only the implementation knows its targeting and its request fields (the seed
   * shows neither); without this function the suite tries the launch token its trigger config carries, and a run in
   * which every launch was declined leaves the eligible path NOT TESTED. `publicKey` is the run's --public-key.
   */
  launchRequest?(project: ProjectRef & { publicKey: string }): Promise<Record<string, unknown>>;
  /**
   * Reads a `GET /v1/experiments` body in the seed's terms. The seed names what the deprecated report holds
   * ("project-level usage and per-experiment interview stats for all active experiments"), not its shape: only the
   * implementation knows which member is which count. Without this function the suite reads our contract's shape
   * (`experiments_report`), and a body of another shape is judged only on which studies it holds and that it is
   * current; the counts are then not judged (the report says so). Return undefined for a body it cannot read.
   */
  readExperiments?(body: unknown): ExperimentsReading | undefined;
  /** Removes something the run created, where the implementation allows it; true when removed. */
  remove?(item: CreatedItem): Promise<boolean>;
}

/**
 * The deprecated report in the seed's terms. Every member but an experiment's `id` is optional: a member left
 * undefined is one the implementation does not report, and is not judged; any other value is (a module maps a member
 * its body should hold but lacks to null, so that its absence fails).
 */
export interface ExperimentsReading {
  /** Project-level usage: interviews ever created in the project, created this calendar month (UTC), created this week (from Monday 00:00 UTC). */
  usage?: { total?: number | null; this_month?: number | null; this_week?: number | null };
  /** One per experiment (study) the report lists, in its order. */
  experiments: ExperimentReading[];
}

export interface ExperimentReading {
  /** The study's id. */
  id: string;
  /** Fields the report shows as on the study (name, interview_link, accepting_responses, limits): judged equal to the study's retrieval. */
  study?: { name?: unknown; interview_link?: unknown; accepting_responses?: unknown; limits?: unknown };
  /** The study's interviews: all of them, and by status (an abandoned interview keeps its status). */
  interviews?: { total?: number | null; started?: number | null; processing?: number | null; completed?: number | null };
  /** Its completed interviews by quality_score. */
  quality?: { insightful?: number | null; successful?: number | null; unsuccessful?: number | null };
}

/** What a states module is given. */
export interface StatesEnv {
  /** The service address up to and including /api. */
  baseUrl: string;
  apiKey: string;
  otherKey?: string;
  /** This run's id: names the module gives to what it creates may carry it too. */
  runId: string;
}

export type StatesModule = (env: StatesEnv) => ProviderStates | Promise<ProviderStates>;

/**
 * Thrown by a states function when the implementation refuses what was asked for a reason of the service's own:
 * `not-accepting` (the study is not accepting responses), `final` (the interview already completed or was abandoned),
 * `not-found` (no such study or interview in the project), `invalid` (the input itself).
 */
export class StateRefused extends Error {
  readonly code = "STATE_REFUSED";
  constructor(readonly reason: "not-accepting" | "final" | "not-found" | "invalid", message: string) {
    super(message);
    this.name = "StateRefused";
  }
}

/** Thrown by a states function that cannot do this (a field, or the whole operation, it does not support). */
export class StateUnsupported extends Error {
  readonly code = "STATE_UNSUPPORTED";
  constructor(readonly capability: Capability, message: string) {
    super(message);
    this.name = "StateUnsupported";
  }
}

/** The refusal behind an error thrown by a states function (by its code, so a module's own copy of the class counts). */
export const refusal = (err: unknown): StateRefused | undefined => ((err as { code?: string })?.code === "STATE_REFUSED" ? (err as StateRefused) : undefined);

/** For a module written in TypeScript: `export default defineStates((env) => ({ ... }))` checks its shape. */
export const defineStates = (module: StatesModule): StatesModule => module;
