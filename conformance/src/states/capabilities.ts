/**
 * The capabilities a run can use to plant data and drive state: one per provider-states function, and one per
 * optional field of a planting that some checks need. Every check, rule and model command declares the ones it
 * needs; a run finds out at its start which ones the target offers (over HTTP, states/http.ts decides each from
 * evidence, as `decided` says; a states module or --capabilities says so itself) and removes only what depends on
 * a missing one, naming it in the report.
 */
export const CAPABILITIES = {
  "plant-study": { what: "studies planted with a status, caps, languages and questions", http: "POST /_sim/studies", since: "2.0.0", decided: "probe: POST with a body the contract declares invalid, and two random paths beside it; an answer unlike theirs is the operation, a 404 to this creation (it names nothing) its absence" },
  "plant-interview": { what: "interviews started in a study and run to completion on the service's timer", http: "POST /_sim/interviews", since: "2.0.0", decided: "probe: as plant-study" },
  hold: { what: "interviews held `started` until completed on demand", http: "POST /_sim/interviews with hold: true", since: "2.0.0", decided: "probe: the same request for a study that does not exist, with and without the field; the same answer: taken; a validation answer (400, 422) only with it, or naming it: refused" },
  complete: { what: "a held interview completed on demand", http: "POST /_sim/interviews/{id}/complete", since: "2.0.0", decided: "probe: POST for an interview id that does not exist, and two random paths beside it; a 404 unlike theirs, or naming the id, is the service answering about it" },
  "plant-chat": { what: "chats of any visibility with messages, parts and sources", http: "POST /_sim/chats", since: "2.0.0", decided: "probe: as plant-study" },
  abandon: { what: "an interview abandoned by its respondent before it completes", http: "POST /_sim/interviews/{id}/abandon", since: "after 2.0.0", decided: "probe: as complete" },
  "created-at": { what: "interviews planted at chosen instants", http: "POST /_sim/interviews with created_at and completed_at", since: "after 2.0.0", decided: "probe: as hold" },
  "interview-link": { what: "interviews opened through their study's link (reference_id from its query string)", http: "POST /_sim/interviews with interview_link", since: "after 2.0.0", decided: "first use: only a study's own link can be sent, and it would plant an interview" },
  "respondent-id": { what: "interviews opened through a respondent-specific link", http: "POST /_sim/interviews with respondent_id", since: "after 2.0.0", decided: "probe: as hold" },
  "hidden-messages": { what: "hidden-branch messages in a visible chat", http: "POST /_sim/chats with a message's hidden: true", since: "after 2.0.0", decided: "probe: a chat invalid in its visibility alone, with and without the field; the same answer: taken; an answer naming the field: refused" },
  "recorded-parts": { what: "message parts as the service records them (raw tool transports, transient states, internal runtime parts)", http: "POST /_sim/chats with recorded parts", since: "after 2.0.0", decided: "probe: as hidden-messages" },
  "chat-fields": { what: "chats and messages with every visible field chosen (a chat's and a message's created_at, is_streaming, feedback, usage, streaming, a message's completed_at)", http: "POST /_sim/chats with created_at, is_streaming and message fields", since: "after 2.0.0", decided: "probe: as hidden-messages" },
  "study-status": { what: "a study's status set after it was planted (paused, then active again)", http: "PUT /_sim/studies/{id}/status", since: "after 2.0.0", decided: "probe: PUT for a study id that does not exist, and two random paths beside it; a 404 unlike theirs, or naming the id, is the service answering about it" },
  "plant-release": { what: "releases planted with a status, pull request fields and instants chosen", http: "POST /_sim/releases", since: "after 2.0.0", decided: "probe: as plant-study" },
  "release-url": { what: "releases planted at a chosen pull request URL", http: "POST /_sim/releases with vcs_pr_url", since: "after 2.0.0", decided: "probe: a release invalid in its number alone, with and without the field; the same answer: taken; a validation answer only with it, or naming it: refused" },
  "create-project": { what: "projects created during the run, with their keys", http: "POST /_sim/projects", since: "after 2.0.0", decided: "probe: as plant-study" },
  faults: { what: "fault settings (answers that fail, webhook endpoints that fail)", http: "GET, PUT and DELETE /_sim/faults", since: "after 2.0.0", decided: "probe: GET, and two random paths beside it; an answer unlike theirs is the operation" },
  "eligible-launch": { what: "a participant launch request the implementation accepts as eligible (only it knows its targeting)", http: "none: the suite tries the launch token the trigger config carries (our contract's, or any it finds)", since: "not a simulation operation", decided: "first use: the trigger config read with the public key, for our contract's launch tokens (a states module's launchRequest otherwise)" },
} as const;

export type Capability = keyof typeof CAPABILITIES;

export const ALL_CAPABILITIES = Object.keys(CAPABILITIES) as Capability[];

/** Those added after contract 2.0.0: an implementation whose simulation surface stops at 2.0.0 lacks every one. */
export const AFTER_2_0_0 = ALL_CAPABILITIES.filter((c) => CAPABILITIES[c].since === "after 2.0.0");

/** Which capabilities a run has, why each missing one is missing, and how each was decided. */
export class CapabilitySet {
  private readonly missing = new Map<Capability, string>();
  private readonly how = new Map<Capability, string>();

  constructor(lacking: Iterable<[Capability, string]> = [], decided: Iterable<[Capability, string]> = []) {
    for (const [c, why] of lacking) this.missing.set(c, why);
    for (const [c, how] of decided) this.how.set(c, how);
  }

  has(...caps: Capability[]): boolean {
    return caps.every((c) => !this.missing.has(c));
  }

  /** The first of `caps` that is missing, with why; undefined when all are offered. */
  lacking(...caps: Capability[]): { capability: Capability; why: string } | undefined {
    const c = caps.find((x) => this.missing.has(x));
    return c ? { capability: c, why: this.missing.get(c)! } : undefined;
  }

  /** Found missing during the run (at its first use): from then on, what needs it is skipped. */
  lack(c: Capability, why: string): void {
    if (this.missing.has(c)) return;
    this.missing.set(c, why);
    this.how.set(c, `first use: ${why}`);
  }

  /** Every capability, offered or not (with why), and how it was decided, for the report. */
  list(): Array<{ capability: Capability; offered: boolean; why?: string; decided?: string }> {
    return ALL_CAPABILITIES.map((c) => ({ capability: c, offered: !this.missing.has(c), ...(this.missing.has(c) ? { why: this.missing.get(c) } : {}), ...(this.how.has(c) ? { decided: this.how.get(c) } : {}) }));
  }
}

/** How a missing capability is named in the report: its name and what it is. */
export const describeCapability = (c: Capability) => `capability ${c} (${CAPABILITIES[c].what})`;

/** The simulation operations an implementation may offer, and the capability each is; the sandbox's tooling has none. */
export const OPERATION_CAPABILITY: Record<string, Capability> = {
  simCreateStudy: "plant-study", simSetStudyStatus: "study-status", simCreateInterview: "plant-interview", simCompleteInterview: "complete", simAbandonInterview: "abandon",
  simCreateChat: "plant-chat", simCreateRelease: "plant-release", simCreateProject: "create-project", simGetFaults: "faults", simPutFaults: "faults", simDeleteFaults: "faults",
};
