/** Projects kept in the process (memory and SQLite): the store's key rings, created ones written to the backend. */
import { randomBytes, randomUUID } from "node:crypto";
import { conflict } from "../../http/errors.ts";
import type { Project } from "../../model/project.ts";
import type { Store } from "../../model/store.ts";
import type { ChangeLog } from "../backend.ts";
import { projectsCapMessage, type CreatedProject, type Projects } from "../projects.ts";

/** Fresh keys of a new project. */
export const newKeys = () => ({ apiKey: `svc_live_sim_${randomBytes(16).toString("hex")}`, publicKey: `pk_live_sim_${randomBytes(16).toString("hex")}`, id: randomUUID() });

export class MemoryProjects implements Projects {
  constructor(
    private readonly store: Store,
    private readonly backend: ChangeLog,
  ) {}

  byKey(kind: "secret" | "public", key: string): Project | undefined {
    return (kind === "public" ? this.store.publicKeys : this.store.apiKeys).find(key);
  }

  byId(id: string): Project | undefined {
    return this.store.projects.get(id);
  }

  async create(name: string, tenant: string, cap: number, createdAt: string): Promise<CreatedProject> {
    if ((this.store.created.get(tenant) ?? 0) >= cap) throw conflict(projectsCapMessage(cap));
    const { apiKey, publicKey, id } = newKeys();
    const project = this.store.restoreProject({ id, name, api_key: apiKey, public_key: publicKey }, tenant);
    this.backend.append({ kind: "project.created", project: { id, name, api_key: apiKey, public_key: publicKey, tenant, created_at: createdAt } });
    return { project, apiKey, publicKey };
  }
}
