/**
 * The run's side of provider states: one object the checks and model commands plant through. It asks the module
 * which capabilities it offers, refuses at once what needs a missing one (`Lacking`, a NOT TESTED that names the
 * capability), learns a capability is missing when the module says so mid-run, gives what it creates the run's
 * id in its name, and keeps the list of what was created for the report and for clean-up.
 */
import { CheckFailure } from "../http.ts";
import { Lacking } from "../outcomes.ts";
import { rules, seed } from "../rules.ts";
import { ALL_CAPABILITIES, CapabilitySet, type Capability } from "./capabilities.ts";
import { contractReading } from "../judge/experiments-report.ts";
import { chatCapabilities, HttpStates } from "./http.ts";
import type { CreatedItem, ExperimentsReading, CreatedProject, FaultSettings, PlantChatInput, PlantedChat, PlantedInterview, PlantedRelease, PlantedStudy, PlantInterviewInput, PlantReleaseInput, PlantStudyInput, ProjectRef, ProviderStates, StudyStatus } from "./types.ts";

/** The function behind each capability; a capability of an optional field needs its function too. */
const FUNCTION_OF: Record<Capability, keyof ProviderStates> = {
  "plant-study": "plantStudy", "plant-interview": "plantInterview", hold: "plantInterview", complete: "completeInterview", "plant-chat": "plantChat",
  abandon: "abandonInterview", "created-at": "plantInterview", "interview-link": "plantInterview", "respondent-id": "plantInterview",
  "hidden-messages": "plantChat", "recorded-parts": "plantChat", "chat-fields": "plantChat", "create-project": "createProject", faults: "setFaults", "study-status": "setStudyStatus",
  "eligible-launch": "launchRequest", "plant-release": "plantRelease", "release-url": "plantRelease",
};

/** Rules about the implementation that the planting itself shows. */
export const stateRules = rules("states", {
  lost: seed("Errors 1: 404 when the id does not exist", "an operation that worked earlier in the run keeps working: the implementation does not answer as a missing route, or 404, for what it made and still has", ["errors.retrieval-404", "errors.404"]),
});

const isUnsupported = (err: unknown): err is { capability: Capability; message: string } => (err as { code?: string })?.code === "STATE_UNSUPPORTED";

/** Interview fields and the capability each needs. */
const interviewNeeds = (input: PlantInterviewInput): Capability[] => [
  "plant-interview",
  ...(input.hold ? (["hold"] as const) : []),
  ...(input.created_at !== undefined || input.completed_at !== undefined ? (["created-at"] as const) : []),
  ...(input.interview_link !== undefined ? (["interview-link"] as const) : []),
  ...(input.respondent_id !== undefined ? (["respondent-id"] as const) : []),
];

export class RunStates {
  readonly created: CreatedItem[] = [];
  /** The capabilities the run called on (the coverage check judges the simulation operations behind these only). */
  readonly used = new Set<Capability>();
  /** The capabilities that worked at least once in this run. */
  private readonly worked = new Set<Capability>();

  constructor(private readonly provider: ProviderStates, readonly caps: CapabilitySet, readonly runId: string, readonly project: ProjectRef, readonly source: string) {}

  /**
   * Asks the module what it offers; `given` (--capabilities) replaces what it says, and `removed` (--without) is taken
   * away whatever it says. Each capability records how it was decided, for the report.
   */
  static async open(provider: ProviderStates, options: { runId: string; project: ProjectRef; source: string; allowed: boolean; given?: Capability[]; removed?: Capability[] }): Promise<RunStates> {
    const lacking: Array<[Capability, string]> = [];
    const decided: Array<[Capability, string]> = [];
    if (!options.allowed) {
      for (const c of ALL_CAPABILITIES) lacking.push([c, "writes are not allowed in this run (--sim or --states allows them)"]);
      return new RunStates(provider, new CapabilitySet(lacking, ALL_CAPABILITIES.map((c) => [c, "no writes allowed in this run"])), options.runId, options.project, options.source);
    }
    const said = options.given ?? (provider.capabilities ? await provider.capabilities() : ALL_CAPABILITIES);
    const claimed: Partial<Record<Capability, true | string>> = Array.isArray(said) ? Object.fromEntries(said.map((c) => [c, true])) : said;
    const probed = provider instanceof HttpStates ? provider.decisions : undefined;
    for (const c of ALL_CAPABILITIES) {
      if (options.removed?.includes(c)) {
        lacking.push([c, "removed for this run (--without)"]);
        decided.push([c, "--without"]);
      } else if (typeof provider[FUNCTION_OF[c]] !== "function") {
        lacking.push([c, `${options.source} has no ${FUNCTION_OF[c]}`]);
        decided.push([c, `${options.source} has no ${FUNCTION_OF[c]}`]);
      } else {
        if (claimed[c] !== true) lacking.push([c, typeof claimed[c] === "string" ? claimed[c] : options.given ? "not in --capabilities" : `${options.source} does not offer it`]);
        decided.push([c, options.given ? "--capabilities" : probed?.get(c) ? `probe: ${probed.get(c)!.how}` : provider.capabilities ? `${options.source}: its capabilities()` : `${options.source}: it defines ${FUNCTION_OF[c]}`]);
      }
    }
    return new RunStates(provider, new CapabilitySet(lacking, decided), options.runId, options.project, options.source);
  }

  /**
   * Every capability, offered or not, and how it was decided (a probe's first use included). One its probe left to its
   * first use, and that no use settled, is `settled: false`: offered only in that nothing showed it missing.
   */
  report(): Array<ReturnType<CapabilitySet["list"]>[number] & { settled?: false }> {
    const probed = this.provider instanceof HttpStates ? this.provider.decisions : undefined;
    return this.caps.list().map((c) => {
      const d = probed?.get(c.capability);
      if (!d || !c.decided?.startsWith("probe")) return c;
      if (d.how.startsWith("settled at first use")) return { ...c, decided: d.how };
      if (d.offered !== "unknown" || !c.offered) return c;
      const why = this.used.has(c.capability) ? "its uses in this run settled nothing" : "nothing in this run used it";
      return { ...c, settled: false as const, decided: `not settled: ${d.how.replace(/[:;] settled at first use$/, "")}; ${why}` };
    });
  }

  /**
   * The same states acting in `project` by default: what it plants and learns is the run's (one list of what was
   * created, one set of capabilities). A check run in a project of its own plants through it.
   */
  inProject(project: ProjectRef): RunStates {
    const view = Object.create(this) as RunStates;
    Object.defineProperty(view, "project", { value: project });
    return view;
  }

  /** A name that carries the run's id, so what a run leaves can be found. */
  name(base: string): string {
    return `${base} [${this.runId}]`;
  }

  has(...caps: Capability[]): boolean {
    return this.caps.has(...caps);
  }

  /**
   * Offered and known to be: it worked in this run, a states module said so, or its probe showed it (not one a probe
   * left to its first use). What judges an operation's other answers (auth's 401s) asks this, not `has`.
   */
  sure(cap: Capability): boolean {
    if (!this.has(cap) || this.worked.has(cap)) return this.has(cap);
    return !(this.provider instanceof HttpStates) || this.provider.decisions.get(cap)?.offered !== "unknown";
  }

  private async call<T>(needs: Capability[], fn: () => Promise<T> | undefined): Promise<T> {
    const missing = this.caps.lacking(...needs);
    if (missing) throw new Lacking(missing.capability, missing.why);
    try {
      const result = await fn();
      if (result === undefined) throw new Lacking(needs[0], `${this.source} returned nothing`);
      for (const c of needs) this.worked.add(c);
      return result;
    } catch (err) {
      if (!isUnsupported(err)) throw err;
      const cap = ALL_CAPABILITIES.includes(err.capability) ? err.capability : needs[needs.length - 1];
      // It worked earlier in this run: the implementation lost what it made, which is its failure, not a missing capability.
      if (this.worked.has(cap)) throw new CheckFailure(`${cap} worked earlier in this run and now does not: ${err.message}`, { rule: stateRules.lost });
      this.caps.lack(cap, err.message);
      throw new Lacking(cap, err.message);
    } finally {
      for (const c of needs) this.used.add(c);
    }
  }

  private record(item: CreatedItem): void {
    this.created.push(item);
  }

  async plantStudy(input: PlantStudyInput, project = this.project): Promise<PlantedStudy> {
    const body = { ...input, name: this.name(input.name ?? "Conformance study") };
    const s = await this.call(["plant-study"], () => this.provider.plantStudy?.(body, project));
    this.record({ kind: "study", id: s.id, name: body.name, project });
    return s;
  }

  async plantInterview(input: PlantInterviewInput, project = this.project): Promise<PlantedInterview> {
    const i = await this.call(interviewNeeds(input), () => this.provider.plantInterview?.(input, project));
    this.record({ kind: "interview", id: i.id, name: input.reference_id, project });
    return i;
  }

  completeInterview(id: string, project = this.project): Promise<PlantedInterview> {
    return this.call(["complete"], () => this.provider.completeInterview?.(id, project));
  }

  abandonInterview(id: string, project = this.project): Promise<PlantedInterview> {
    return this.call(["abandon"], () => this.provider.abandonInterview?.(id, project));
  }

  setStudyStatus(id: string, status: StudyStatus, project = this.project): Promise<PlantedStudy> {
    return this.call(["study-status"], () => this.provider.setStudyStatus?.(id, status, project));
  }

  async plantChat(input: PlantChatInput, project = this.project): Promise<PlantedChat> {
    const c = await this.call(["plant-chat", ...chatCapabilities(input)], () => this.provider.plantChat?.(input, project));
    this.record({ kind: "chat", id: c.id, ...(input.title ? { name: input.title } : {}), project });
    return c;
  }

  async plantRelease(input: PlantReleaseInput, project = this.project): Promise<PlantedRelease> {
    const r = await this.call(["plant-release", ...(input.vcs_pr_url !== undefined ? (["release-url"] as const) : [])], () => this.provider.plantRelease?.(input, project));
    this.record({ kind: "release", id: r.id, name: input.vcs_pr_title, project });
    return r;
  }

  async createProject(base: string, project = this.project): Promise<CreatedProject> {
    const name = this.name(base);
    const p = await this.call(["create-project"], () => this.provider.createProject?.({ name }, project));
    this.record({ kind: "project", id: p.id ?? "(no id given)", name, project: { apiKey: p.api_key } });
    return p;
  }

  async setFaults(settings: FaultSettings | null, project = this.project): Promise<void> {
    await this.call(["faults"], async () => (await this.provider.setFaults?.(settings, project), true));
    if (settings !== null && !this.created.some((c) => c.kind === "faults" && c.project.apiKey === project.apiKey)) this.record({ kind: "faults", id: "fault settings", project });
  }

  /** A launch request the implementation accepts as eligible (for the run's public key). */
  launchRequest(publicKey: string, project = this.project): Promise<Record<string, unknown>> {
    return this.call(["eligible-launch"], () => this.provider.launchRequest?.({ ...project, publicKey }));
  }

  /**
   * A `GET /v1/experiments` body in the seed's terms: the module's reading when it has one, else our contract's shape;
   * undefined when neither reads it (its counts are then not judged).
   */
  /** Whether the module says how it reads the report (`readExperiments`): then its counts are judged at any level. */
  get readsExperiments(): boolean {
    return typeof this.provider.readExperiments === "function";
  }

  readExperiments(body: unknown): ExperimentsReading | undefined {
    return this.provider.readExperiments ? this.provider.readExperiments(body) : contractReading(body);
  }

  /** Notes a webhook the run configured (removed at the end through DELETE /v1/webhooks). */
  webhook(url: string, project = this.project): void {
    if (!this.created.some((c) => c.kind === "webhook" && c.project.apiKey === project.apiKey)) this.record({ kind: "webhook", id: url, project });
  }

  /** Removes what the module can remove; returns each item with what became of it. */
  async cleanup(removeWebhook: (project: ProjectRef) => Promise<boolean>): Promise<Array<CreatedItem & { removed: boolean }>> {
    const out: Array<CreatedItem & { removed: boolean }> = [];
    for (const item of this.created) {
      let removed = false;
      try {
        if (item.kind === "webhook") removed = await removeWebhook(item.project);
        else if (item.kind === "faults" && this.has("faults")) removed = (await this.provider.setFaults?.(null, item.project), true);
        else if (this.provider.remove) removed = await this.provider.remove(item);
      } catch {
        removed = false;
      }
      out.push({ ...item, removed });
    }
    return out;
  }
}
