/**
 * The default provider states: the HTTP simulation surface (`/_sim`), as the reference server offers it. An
 * implementation may offer part of it or an older version of it; `capabilities()` finds out which part without
 * creating anything: each operation is asked with a body the contract declares invalid (400: it exists; 404 or 405:
 * it does not), and each optional field with a request that cannot succeed for another reason (an unknown study:
 * 404 means the field was accepted, 400 that it was refused). What the probe cannot tell is found at first use: a
 * planting refused with 400 for a field marks that field's capability missing.
 */
import { errorDetails, errorMessage, issueNames, type Http, type Reply } from "../http.ts";
import type { Capability } from "./capabilities.ts";
import { StateRefused, StateUnsupported, type CreatedProject, type FaultSettings, type PlantChatInput, type PlantedChat, type PlantedInterview, type PlantedStudy, type PlantInterviewInput, type PlantStudyInput, type ProjectRef, type ProviderStates } from "./types.ts";

const NEVER_ID = "00000000-0000-4000-8000-000000000000";

/** A status that says the operation does not exist here (as opposed to an answer from it). */
const absent = (status: number) => status === 404 || status === 405 || status === 501;
const said = (reply: Reply) => `${reply.status}${errorMessage(reply.body) ? ` ${JSON.stringify(errorMessage(reply.body))}` : ""}`;

/** Optional interview fields and the capability each one is. */
const INTERVIEW_FIELDS: Array<[keyof PlantInterviewInput, Capability, unknown]> = [
  ["hold", "hold", true],
  ["created_at", "created-at", "2020-01-06T00:00:00.000Z"],
  ["interview_link", "interview-link", "https://interviews.example.com/s/probe?reference_id=probe"],
  ["respondent_id", "respondent-id", "resp_probe"],
];

/** Which optional capabilities a chat input uses (the first is blamed when the planting is refused). */
export function chatCapabilities(input: PlantChatInput): Capability[] {
  const out: Capability[] = [];
  const messages = input.messages ?? [];
  if (messages.some((m) => m.hidden !== undefined)) out.push("hidden-messages");
  if (messages.some((m) => m.parts.some((p) => !["text", "thinking", "redacted_thinking", "file", "tool_use", "tool_result"].includes(p.type) || (p.type === "tool_use" && !["input_available", "output_available", "output_error", "output_denied"].includes(String((p as { state?: unknown }).state)))))) out.push("recorded-parts");
  if (input.created_at !== undefined || input.is_streaming !== undefined || messages.some((m) => m.feedback !== undefined || m.usage !== undefined || m.streaming !== undefined)) out.push("chat-fields");
  return out;
}

export class HttpStates implements ProviderStates {
  /** Every simulation reply, for the run to judge against the contract (the checks' `conforms`). */
  onReply: ((reply: Reply, what: string) => void) | null = null;
  private readonly clients = new Map<string, Http>();

  constructor(private readonly http: Http, private readonly forKey: (apiKey: string) => Http) {
    this.clients.set(http.apiKey, http);
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

  /** Each capability: true when offered, else what the probe saw. */
  async capabilities(): Promise<Partial<Record<Capability, true | string>>> {
    const h = this.http;
    const post = (path: string, body: unknown) => h.req(path, { method: "POST", body });
    const found: Partial<Record<Capability, true | string>> = {};
    const exists = async (cap: Capability, what: string, reply: Promise<Reply>) => {
      const r = await reply;
      found[cap] = absent(r.status) ? `${what} answered ${said(r)} to a probe (a body the contract declares invalid): the operation is not offered` : true;
    };
    // Bodies the contract declares invalid: nothing can be created by them.
    await exists("plant-study", "POST /_sim/studies", post("/_sim/studies", { name: 42 }));
    await exists("plant-chat", "POST /_sim/chats", post("/_sim/chats", {}));
    await exists("create-project", "POST /_sim/projects", post("/_sim/projects", { name: 42 }));
    await exists("complete", "POST /_sim/interviews/{id}/complete", post("/_sim/interviews/not-a-uuid/complete", undefined));
    await exists("abandon", "POST /_sim/interviews/{id}/abandon", post("/_sim/interviews/not-a-uuid/abandon", undefined));
    await exists("faults", "GET /_sim/faults", h.req("/_sim/faults"));
    await exists("plant-interview", "POST /_sim/interviews", post("/_sim/interviews", {}));
    for (const [field, cap, value] of INTERVIEW_FIELDS) {
      if (found["plant-interview"] !== true) {
        found[cap] = "no interviews can be planted";
        continue;
      }
      // An unknown study: a field the implementation takes gets the study's 404 (or a 409), one it refuses a 400.
      const reply = await post("/_sim/interviews", { study_id: NEVER_ID, [field]: value });
      found[cap] = reply.status === 400 ? `POST /_sim/interviews with ${field} (and an unknown study) answered ${said(reply)}: the field is refused` : true;
    }
    // A chat body invalid in its visibility alone: an implementation that takes the probed field names only the
    // visibility; one that refuses it names the field too. Without readable details, the field is tried at first use.
    const decoy = { visibility: "not-a-visibility" };
    const text = { role: "user", parts: [{ type: "text", text: "probe" }] };
    const probes: Array<[Capability, unknown, string[]]> = [
      ["hidden-messages", { ...decoy, messages: [{ ...text, hidden: true }] }, ["hidden"]],
      ["recorded-parts", { ...decoy, messages: [{ role: "assistant", parts: [{ type: "compaction", summary: "probe" }] }] }, ["parts", "type", "0"]],
      ["chat-fields", { ...decoy, created_at: "2020-01-06T00:00:00.000Z", is_streaming: false, messages: [{ ...text, feedback: null, usage: null, streaming: false }] }, ["created_at", "is_streaming", "feedback", "usage", "streaming"]],
    ];
    for (const [cap, body, fields] of probes) {
      if (found["plant-chat"] !== true) {
        found[cap] = "no chats can be planted";
        continue;
      }
      const reply = await post("/_sim/chats", body);
      const details = errorDetails(reply.body) ?? [];
      const refused = reply.status === 400 && details.some((d) => fields.some((f) => issueNames(d, f)));
      found[cap] = refused ? `POST /_sim/chats refused ${fields.join(", ")} in a probe (${said(reply)})` : true;
    }
    return found;
  }

  async plantStudy(input: PlantStudyInput, project: ProjectRef): Promise<PlantedStudy> {
    const reply = await this.send(project, "POST", "/_sim/studies", input, "POST /_sim/studies");
    if (reply.status === 201 && typeof reply.body?.id === "string") return reply.body;
    if (absent(reply.status)) throw new StateUnsupported("plant-study", `POST /_sim/studies answered ${said(reply)}`);
    throw new StateRefused("invalid", `POST /_sim/studies answered ${said(reply)}`);
  }

  async plantInterview(input: PlantInterviewInput, project: ProjectRef): Promise<PlantedInterview> {
    const reply = await this.send(project, "POST", "/_sim/interviews", input, "POST /_sim/interviews");
    if (reply.status === 201 && typeof reply.body?.id === "string") return reply.body;
    if (reply.status === 409) throw new StateRefused("not-accepting", `POST /_sim/interviews answered ${said(reply)}`);
    // A 404 about the study (its message names it) is the service's answer; any other 404 is a missing route.
    if (reply.status === 404 && (errorMessage(reply.body) ?? "").includes(input.study_id)) throw new StateRefused("not-found", `POST /_sim/interviews answered ${said(reply)}`);
    if (absent(reply.status)) throw new StateUnsupported("plant-interview", `POST /_sim/interviews answered ${said(reply)}`);
    const field = INTERVIEW_FIELDS.find(([f]) => input[f] !== undefined);
    if (reply.status === 400 && field) throw new StateUnsupported(field[1], `POST /_sim/interviews with ${field[0]} answered ${said(reply)}`);
    throw new StateRefused("invalid", `POST /_sim/interviews answered ${said(reply)}`);
  }

  private async transition(id: string, project: ProjectRef, verb: "complete" | "abandon"): Promise<PlantedInterview> {
    const path = `/_sim/interviews/${id}/${verb}`;
    const reply = await this.send(project, "POST", path, undefined, `POST /_sim/interviews/{id}/${verb}`);
    if (reply.status === 200) return reply.body ?? { id };
    if (reply.status === 409) throw new StateRefused("final", `POST ${path} answered ${said(reply)}`);
    if (reply.status === 404 && (errorMessage(reply.body) ?? "").includes(id) && !/route/i.test(errorMessage(reply.body) ?? "")) throw new StateRefused("not-found", `POST ${path} answered ${said(reply)}`);
    if (absent(reply.status)) throw new StateUnsupported(verb, `POST ${path} answered ${said(reply)}`);
    throw new StateRefused("invalid", `POST ${path} answered ${said(reply)}`);
  }

  completeInterview(id: string, project: ProjectRef): Promise<PlantedInterview> {
    return this.transition(id, project, "complete");
  }

  abandonInterview(id: string, project: ProjectRef): Promise<PlantedInterview> {
    return this.transition(id, project, "abandon");
  }

  async plantChat(input: PlantChatInput, project: ProjectRef): Promise<PlantedChat> {
    const reply = await this.send(project, "POST", "/_sim/chats", input, "POST /_sim/chats");
    if (reply.status === 201 && typeof reply.body?.id === "string") return { id: reply.body.id, message_ids: reply.body.message_ids ?? [] };
    if (absent(reply.status)) throw new StateUnsupported("plant-chat", `POST /_sim/chats answered ${said(reply)}`);
    const [field] = chatCapabilities(input);
    if (reply.status === 400 && field) throw new StateUnsupported(field, `POST /_sim/chats answered ${said(reply)}`);
    throw new StateRefused("invalid", `POST /_sim/chats answered ${said(reply)}`);
  }

  async createProject(input: { name?: string }, project: ProjectRef): Promise<CreatedProject> {
    const reply = await this.send(project, "POST", "/_sim/projects", input, "POST /_sim/projects");
    if (reply.status === 201 && typeof reply.body?.api_key === "string") return reply.body;
    if (absent(reply.status)) throw new StateUnsupported("create-project", `POST /_sim/projects answered ${said(reply)}`);
    throw new StateRefused("invalid", `POST /_sim/projects answered ${said(reply)}`);
  }

  async setFaults(settings: FaultSettings | null, project: ProjectRef): Promise<void> {
    const reply = settings === null ? await this.send(project, "DELETE", "/_sim/faults", undefined, "DELETE /_sim/faults") : await this.send(project, "PUT", "/_sim/faults", settings, "PUT /_sim/faults");
    if (reply.status < 300) return;
    if (absent(reply.status)) throw new StateUnsupported("faults", `${reply.method} /_sim/faults answered ${said(reply)}`);
    throw new StateRefused("invalid", `${reply.method} /_sim/faults answered ${said(reply)}`);
  }
}
