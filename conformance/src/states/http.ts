/**
 * The default provider states: the HTTP simulation surface (`/_sim`), as the reference server offers it. An
 * implementation may offer part of it, an older version of it, or none, with conventions of its own; `capabilities()`
 * finds out which part without creating anything, from evidence (states/evidence.ts): each operation is asked with a
 * request that cannot create anything (a body the contract declares invalid, an id that does not exist), and its
 * answer is compared with how the target answers two random paths beside it; each optional field is asked with and
 * without the field in a request that fails for another reason (an unknown study, an invalid visibility). What the
 * probes cannot settle is settled at first use, and `decisions` says for each capability how it was decided.
 */
import { randomBytes } from "node:crypto";
import { errorDetails, errorMessage, issueNames, type Http, type Reply } from "../http.ts";
import { partProblem } from "../judge/shown.ts";
import type { Capability } from "./capabilities.ts";
import { answerOf, decide, decideField, Fingerprint, randomSegment, sibling, type Answer, type Decision } from "./evidence.ts";
import { StateRefused, StateUnsupported, type CreatedProject, type FaultSettings, type PlantChatInput, type PlantedChat, type PlantedInterview, type PlantedRelease, type PlantedStudy, type PlantInterviewInput, type PlantReleaseInput, type PlantStudyInput, type ProjectRef, type ProviderStates, type StudyStatus } from "./types.ts";

const NEVER_ID = "00000000-0000-4000-8000-000000000000";

const said = (reply: Reply) => `${reply.status}${errorMessage(reply.body) ? ` ${JSON.stringify(errorMessage(reply.body))}` : reply.text ? ` ${JSON.stringify(reply.text.slice(0, 120))}` : ""}`;

/** Whether an error answer names `field`: in its details, however written, or in its message. */
const names = (field: string) => (a: Answer) => {
  let body: unknown;
  try {
    body = a.text ? JSON.parse(a.text) : undefined;
  } catch {
    body = a.text;
  }
  const message = errorMessage(body) ?? (typeof body === "string" ? body : "");
  const problems = (body as { problems?: unknown })?.problems;
  const words = Array.isArray(problems) ? `${message} ${problems.join(" ")}` : message;
  return field.split("|").some((f) => (errorDetails(body) ?? []).some((d) => issueNames(d, f)) || new RegExp(`\\b${f}\\b`).test(words));
};

/** Optional interview fields and the capability each one is. */
const INTERVIEW_FIELDS: Array<[keyof PlantInterviewInput, Capability, unknown]> = [
  ["hold", "hold", true],
  ["created_at", "created-at", "2020-01-06T00:00:00.000Z"],
  ["interview_link", "interview-link", undefined],
  ["respondent_id", "respondent-id", "resp_probe"],
];

/** The operations, each with a probe that cannot create anything and the path its first use is compared at. */
const OPERATIONS: Array<{ cap: Capability; method: string; path: string; body?: unknown; asked?: string }> = [
  { cap: "plant-study", method: "POST", path: "/_sim/studies", body: { name: 42 } },
  { cap: "plant-chat", method: "POST", path: "/_sim/chats", body: {} },
  { cap: "create-project", method: "POST", path: "/_sim/projects", body: { name: 42 } },
  { cap: "plant-release", method: "POST", path: "/_sim/releases", body: { vcs_pr_number: "one" } },
  { cap: "complete", method: "POST", path: `/_sim/interviews/${NEVER_ID}/complete`, asked: NEVER_ID },
  { cap: "abandon", method: "POST", path: `/_sim/interviews/${NEVER_ID}/abandon`, asked: NEVER_ID },
  { cap: "study-status", method: "PUT", path: `/_sim/studies/${NEVER_ID}/status`, body: { status: "paused" }, asked: NEVER_ID },
  // Probed with the method it is used with, and a body the contract declares invalid (a rate of "often"): nothing is set.
  { cap: "faults", method: "PUT", path: "/_sim/faults", body: { rate: "often" } },
  { cap: "plant-interview", method: "POST", path: "/_sim/interviews", body: {} },
];

/** Creations that name no resource: a 404 from them is the route missing. */
const CREATES = new Set<Capability>(["plant-study", "plant-chat", "plant-release", "create-project"]);

/** Which optional capabilities a chat input uses (the first is blamed when the planting is refused). */
export function chatCapabilities(input: PlantChatInput): Capability[] {
  const out: Capability[] = [];
  const messages = input.messages ?? [];
  if (messages.some((m) => m.hidden !== undefined)) out.push("hidden-messages");
  // Raw transports and transient states are recorded parts: what the public parts are not.
  if (messages.some((m) => m.parts.some((p) => partProblem(p) !== null))) out.push("recorded-parts");
  if (input.created_at !== undefined || input.is_streaming !== undefined || messages.some((m) => m.feedback !== undefined || m.usage !== undefined || m.streaming !== undefined || m.completed_at !== undefined)) out.push("chat-fields");
  return out;
}

export class HttpStates implements ProviderStates {
  /** Every simulation reply, for the run to judge against the contract (the checks' `conforms`). */
  onReply: ((reply: Reply, what: string) => void) | null = null;
  /** How each capability was decided: by its probe, then (where the probe could not tell) by its first use. */
  readonly decisions = new Map<Capability, Decision>();
  /** How the target answers a missing route beside each operation. */
  private readonly fingerprints = new Map<Capability, Fingerprint>();
  private readonly clients = new Map<string, Http>();

  constructor(private readonly http: Http, private readonly forKey: (apiKey: string) => Http) {
    this.clients.set(http.apiKey, http);
  }

  /** The clients of the projects the run created (the run's own key's client is the run's). */
  otherClients(): Http[] {
    return [...this.clients.values()].filter((c) => c !== this.http);
  }

  private client(project: ProjectRef): Http {
    let c = this.clients.get(project.apiKey);
    if (!c) this.clients.set(project.apiKey, (c = this.forKey(project.apiKey)));
    return c;
  }

  private async send(project: ProjectRef, method: string, path: string, body: unknown, what: string): Promise<Reply> {
    const reply = await this.client(project).req(path, { method, body });
    this.onReply?.(reply, what);
    return reply;
  }

  /** Each capability: true when offered or not yet settled (its first use settles it), else how it was found missing. */
  async capabilities(): Promise<Partial<Record<Capability, true | string>>> {
    const h = this.http;
    const ask = (method: string, path: string, body?: unknown) => h.req(path, { method, body });
    for (const op of OPERATIONS) {
      const samples = [];
      for (const segment of [randomSegment(), randomSegment()]) {
        const path = sibling(op.path, segment);
        samples.push({ answer: answerOf(await ask(op.method, path, op.body)), path });
      }
      const fp = new Fingerprint(samples);
      this.fingerprints.set(op.cap, fp);
      this.decisions.set(op.cap, decide(`${op.method} ${op.path.replace(NEVER_ID, "{id}")}`, answerOf(await ask(op.method, op.path, op.body)), op.path, fp, op.asked, CREATES.has(op.cap)));
    }
    await this.probeStudyStatus();
    // An id's operation the probe left to a use with a real id cannot have one where nothing can be planted.
    for (const [parent, caps, noun] of [["plant-interview", ["complete", "abandon"], "interview"], ["plant-study", ["study-status"], "study"]] as const) {
      if (this.decisions.get(parent)?.offered !== false) continue;
      for (const cap of caps) {
        const d = this.decisions.get(cap);
        if (d?.offered === "unknown") this.decisions.set(cap, { offered: false, how: `${d.how.replace(/; settled at first use, with a real id$/, "")}; no ${noun} can be planted to settle it with a real id` });
      }
    }
    const fieldProbes = async (parent: Capability, probes: Array<[Capability, string, unknown, unknown]>, what: string) => {
      for (const [cap, field, without, withField] of probes) {
        if (this.decisions.get(parent)?.offered === false) {
          this.decisions.set(cap, { offered: false, how: `no ${({ "plant-chat": "chats", "plant-release": "releases" } as Partial<Record<Capability, string>>)[parent] ?? "interviews"} can be planted` });
          continue;
        }
        const a = answerOf(await ask("POST", what, without));
        const b = answerOf(await ask("POST", what, withField));
        this.decisions.set(cap, decideField(`POST ${what} with ${field}`, a, b, names(field)));
      }
    };
    // An unknown study: the request fails whatever the field; a field taken changes nothing, one refused is named.
    // A link is judged by its value (only a study's own link is one), and a study's own link would plant: its first
    // use settles it.
    await fieldProbes("plant-interview", INTERVIEW_FIELDS.filter(([, cap]) => cap !== "interview-link").map(([field, cap, value]) => [cap, field, { study_id: NEVER_ID }, { study_id: NEVER_ID, [field]: value }]), "/_sim/interviews");
    this.decisions.set("interview-link", this.decisions.get("plant-interview")?.offered === false ? { offered: false, how: "no interviews can be planted" } : { offered: "unknown", how: "only a study's own link can be sent, and it would plant an interview: settled at first use" });
    // A chat invalid in its visibility alone; the same with the probed field.
    const decoy = { visibility: "not-a-visibility" };
    const text = { role: "user", parts: [{ type: "text", text: "probe" }] };
    await fieldProbes("plant-chat", [
      ["hidden-messages", "hidden", { ...decoy, messages: [text] }, { ...decoy, messages: [{ ...text, hidden: true }] }],
      ["recorded-parts", "parts|type|compaction", { ...decoy, messages: [{ role: "assistant", parts: [{ type: "text", text: "probe" }] }] }, { ...decoy, messages: [{ role: "assistant", parts: [{ type: "compaction", summary: "probe" }] }] }],
      ["chat-fields", "created_at|is_streaming|feedback|usage|streaming", { ...decoy, messages: [text] }, { ...decoy, created_at: "2020-01-06T00:00:00.000Z", is_streaming: false, messages: [{ ...text, feedback: null, usage: null, streaming: false }] }],
    ], "/_sim/chats");
    // A release invalid in its number alone; the same with a URL of its own.
    await fieldProbes("plant-release", [["release-url", "vcs_pr_url", { vcs_pr_number: "one" }, { vcs_pr_number: "one", vcs_pr_url: "https://example.com/acme/app/pull/1" }]], "/_sim/releases");
    // Read with the public key, which the probes do not have: its first use settles it.
    this.decisions.set("eligible-launch", { offered: "unknown", how: "our contract's launch tokens in the trigger config, read at first use with the public key" });
    return Object.fromEntries([...this.decisions].map(([cap, d]) => [cap, d.offered === false ? d.how : true]));
  }

  /**
   * A study's status set to the one it has changes nothing: where the probe for an unknown id could not tell the
   * operation from a missing route, an active study of the run's project (if it has one) settles it without a change.
   */
  private async probeStudyStatus(): Promise<void> {
    if (this.decisions.get("study-status")?.offered !== "unknown") return;
    const listed = await this.http.req("/v1/studies?limit=1");
    const study = listed.status === 200 && Array.isArray(listed.body?.data) ? listed.body.data.find((s: any) => s?.status === "active" && typeof s.id === "string") : undefined;
    if (!study) return;
    const path = `/_sim/studies/${encodeURIComponent(study.id)}/status`;
    const reply = await this.http.req(path, { method: "PUT", body: { status: "active" } });
    const what = `PUT /_sim/studies/{id}/status with the status an active study of the project already has`;
    if (reply.status >= 200 && reply.status < 300) this.decisions.set("study-status", { offered: true, how: `${what} answered ${said(reply)}: a probe that changes nothing` });
    else if (this.missingRoute("study-status", reply, path)) this.decisions.set("study-status", { offered: false, how: `${what} answered ${said(reply)}, as a missing route does: the operation is not offered` });
  }

  /** A probe-undecided capability that worked: settled at first use. */
  private worked(caps: Capability[], reply: Reply, what: string): void {
    for (const cap of caps) if (this.decisions.get(cap)?.offered === "unknown") this.decisions.set(cap, { offered: true, how: `settled at first use: ${what} answered ${reply.status}` });
  }

  /** Whether a failed answer is a missing route: 405/501, or what a random path beside the operation answers. */
  private missingRoute(cap: Capability, reply: Reply, path: string): boolean {
    if (reply.status === 405 || reply.status === 501 || (reply.status === 404 && CREATES.has(cap))) return true;
    return this.fingerprints.get(cap)?.matches(answerOf(reply), path) === true;
  }

  /** The capability to blame for a validation refusal of a planting that used optional fields, if any. */
  private refusedField(reply: Reply, used: Array<[Capability, string]>): Capability | undefined {
    if (reply.status !== 400 && reply.status !== 422) return undefined;
    const answer = answerOf(reply);
    const named = used.find(([, field]) => names(field)(answer));
    if (named) return named[0];
    // Not named: blamed only on a field no probe showed taken.
    return used.find(([cap]) => this.decisions.get(cap)?.offered !== true)?.[0];
  }

  private unsupported(cap: Capability, how: string): StateUnsupported {
    if (this.decisions.get(cap)?.offered !== false) this.decisions.set(cap, { offered: false, how: `settled at first use: ${how}` });
    return new StateUnsupported(cap, how);
  }

  async plantStudy(input: PlantStudyInput, project: ProjectRef): Promise<PlantedStudy> {
    const reply = await this.send(project, "POST", "/_sim/studies", input, "POST /_sim/studies");
    if (reply.status >= 200 && reply.status < 300 && typeof reply.body?.id === "string") return this.worked(["plant-study"], reply, "POST /_sim/studies"), reply.body;
    if (this.missingRoute("plant-study", reply, "/_sim/studies")) throw this.unsupported("plant-study", `POST /_sim/studies answered ${said(reply)}, as a missing route does`);
    throw new StateRefused("invalid", `POST /_sim/studies answered ${said(reply)}`);
  }

  async plantInterview(input: PlantInterviewInput, project: ProjectRef): Promise<PlantedInterview> {
    const reply = await this.send(project, "POST", "/_sim/interviews", input, "POST /_sim/interviews");
    const used = INTERVIEW_FIELDS.filter(([f]) => input[f] !== undefined).map(([f, cap]) => [cap, f] as [Capability, string]);
    if (input.completed_at !== undefined && !used.some(([c]) => c === "created-at")) used.push(["created-at", "completed_at"]);
    if (reply.status >= 200 && reply.status < 300 && typeof reply.body?.id === "string") return this.worked(["plant-interview", ...used.map(([c]) => c)], reply, "POST /_sim/interviews"), reply.body;
    if (reply.status === 409) throw new StateRefused("not-accepting", `POST /_sim/interviews answered ${said(reply)}`);
    if (this.missingRoute("plant-interview", reply, "/_sim/interviews")) throw this.unsupported("plant-interview", `POST /_sim/interviews answered ${said(reply)}, as a missing route does`);
    if (reply.status === 404) throw new StateRefused("not-found", `POST /_sim/interviews answered ${said(reply)}`);
    const field = this.refusedField(reply, used);
    if (field) throw this.unsupported(field, `POST /_sim/interviews with ${used.find(([c]) => c === field)![1]} answered ${said(reply)}`);
    throw new StateRefused("invalid", `POST /_sim/interviews answered ${said(reply)}`);
  }

  private async transition(id: string, project: ProjectRef, verb: "complete" | "abandon"): Promise<PlantedInterview> {
    const path = `/_sim/interviews/${id}/${verb}`;
    const reply = await this.send(project, "POST", path, undefined, `POST /_sim/interviews/{id}/${verb}`);
    if (reply.status >= 200 && reply.status < 300) return this.worked([verb], reply, `POST /_sim/interviews/{id}/${verb}`), { id, ...(reply.body ?? {}) };
    if (reply.status === 409) throw new StateRefused("final", `POST ${path} answered ${said(reply)}`);
    if (this.missingRoute(verb, reply, path)) throw this.unsupported(verb, `POST ${path} answered ${said(reply)}, as a missing route does`);
    // Any other 404 is the service answering about the interview (it differs from a missing route's answer).
    if (reply.status === 404) throw new StateRefused("not-found", `POST ${path} answered ${said(reply)}`);
    throw new StateRefused("invalid", `POST ${path} answered ${said(reply)}`);
  }

  completeInterview(id: string, project: ProjectRef): Promise<PlantedInterview> {
    return this.transition(id, project, "complete");
  }

  abandonInterview(id: string, project: ProjectRef): Promise<PlantedInterview> {
    return this.transition(id, project, "abandon");
  }

  async setStudyStatus(id: string, status: StudyStatus, project: ProjectRef): Promise<PlantedStudy> {
    const path = `/_sim/studies/${id}/status`;
    const reply = await this.send(project, "PUT", path, { status }, "PUT /_sim/studies/{id}/status");
    if (reply.status >= 200 && reply.status < 300) return this.worked(["study-status"], reply, "PUT /_sim/studies/{id}/status"), { id };
    if (this.missingRoute("study-status", reply, path)) throw this.unsupported("study-status", `PUT ${path} answered ${said(reply)}, as a missing route does`);
    if (reply.status === 404) throw new StateRefused("not-found", `PUT ${path} answered ${said(reply)}`);
    throw new StateRefused("invalid", `PUT ${path} answered ${said(reply)}`);
  }

  async plantChat(input: PlantChatInput, project: ProjectRef): Promise<PlantedChat> {
    const reply = await this.send(project, "POST", "/_sim/chats", input, "POST /_sim/chats");
    const used = chatCapabilities(input).map((cap) => [cap, CHAT_FIELDS[cap as keyof typeof CHAT_FIELDS]] as [Capability, string]);
    if (reply.status >= 200 && reply.status < 300 && typeof reply.body?.id === "string") return this.worked(["plant-chat", ...used.map(([c]) => c)], reply, "POST /_sim/chats"), { id: reply.body.id, message_ids: reply.body.message_ids ?? [] };
    if (this.missingRoute("plant-chat", reply, "/_sim/chats")) throw this.unsupported("plant-chat", `POST /_sim/chats answered ${said(reply)}, as a missing route does`);
    const field = this.refusedField(reply, used);
    if (field) throw this.unsupported(field, `POST /_sim/chats answered ${said(reply)}`);
    throw new StateRefused("invalid", `POST /_sim/chats answered ${said(reply)}`);
  }

  async plantRelease(input: PlantReleaseInput, project: ProjectRef): Promise<PlantedRelease> {
    const reply = await this.send(project, "POST", "/_sim/releases", input, "POST /_sim/releases");
    const used: Array<[Capability, string]> = input.vcs_pr_url !== undefined ? [["release-url", "vcs_pr_url"]] : [];
    if (reply.status >= 200 && reply.status < 300 && typeof reply.body?.id === "string") return this.worked(["plant-release", ...used.map(([c]) => c)], reply, "POST /_sim/releases"), { id: reply.body.id };
    if (this.missingRoute("plant-release", reply, "/_sim/releases")) throw this.unsupported("plant-release", `POST /_sim/releases answered ${said(reply)}, as a missing route does`);
    const field = this.refusedField(reply, used);
    if (field) throw this.unsupported(field, `POST /_sim/releases with ${used.find(([c]) => c === field)![1]} answered ${said(reply)}`);
    throw new StateRefused("invalid", `POST /_sim/releases answered ${said(reply)}`);
  }

  async createProject(input: { name?: string }, project: ProjectRef): Promise<CreatedProject> {
    const reply = await this.send(project, "POST", "/_sim/projects", input, "POST /_sim/projects");
    if (reply.status >= 200 && reply.status < 300 && typeof reply.body?.api_key === "string") return this.worked(["create-project"], reply, "POST /_sim/projects"), reply.body;
    if (this.missingRoute("create-project", reply, "/_sim/projects")) throw this.unsupported("create-project", `POST /_sim/projects answered ${said(reply)}, as a missing route does`);
    throw new StateRefused("invalid", `POST /_sim/projects answered ${said(reply)}`);
  }

  /**
   * Our contract's eligible launch: a trigger rule's `launchToken` (GET config with the public key) of a study the
   * project lists as accepting responses, for a user who never took it. A config without our contract's rules is
   * the capability missing, settled at this first use.
   */
  async launchRequest(project: ProjectRef & { publicKey: string }): Promise<Record<string, unknown>> {
    const c = this.client(project);
    // A user who never took any study: the token is issued for them, and the launch is made as them.
    const referenceId = `conformance_eligible_${randomBytes(4).toString("hex")}`;
    const config = await c.req(`/v1/interview-participant/config?referenceId=${referenceId}`, { key: null, headers: { "x-public-key": project.publicKey } });
    const rules: any[] = Array.isArray(config.body?.triggerRules) ? config.body.triggerRules.filter((r: any) => typeof r?.launchToken === "string") : [];
    if (config.status !== 200 || !rules.length) throw this.unsupported("eligible-launch", `GET /v1/interview-participant/config answered ${said(config)} without our contract's triggerRules[].launchToken`);
    const accepting = new Set((await c.walk("/v1/studies", 100)).items.filter((s: any) => s.accepting_responses).map((s: any) => s.id));
    const rule = rules.find((r) => accepting.has(r.experimentId));
    if (!rule) throw new StateRefused("not-accepting", "no trigger rule's study is accepting responses, so no launch is eligible");
    this.worked(["eligible-launch"], config, "GET /v1/interview-participant/config");
    return { referenceId, launchToken: rule.launchToken, triggerEvent: rule.eventName };
  }

  async setFaults(settings: FaultSettings | null, project: ProjectRef): Promise<void> {
    const reply = settings === null ? await this.send(project, "DELETE", "/_sim/faults", undefined, "DELETE /_sim/faults") : await this.send(project, "PUT", "/_sim/faults", settings, "PUT /_sim/faults");
    if (reply.status < 300) return void this.worked(["faults"], reply, `${reply.method} /_sim/faults`);
    if (this.missingRoute("faults", reply, "/_sim/faults")) throw this.unsupported("faults", `${reply.method} /_sim/faults answered ${said(reply)}, as a missing route does`);
    throw new StateRefused("invalid", `${reply.method} /_sim/faults answered ${said(reply)}`);
  }
}

/** The field each optional chat capability is named by in a refusal. */
const CHAT_FIELDS = { "hidden-messages": "hidden", "recorded-parts": "parts|type", "chat-fields": "created_at|is_streaming|feedback|usage|streaming" } as const;
