/**
 * The in-memory store: every project, indexed, plus the key rings that authenticate callers.
 */
import type { FixtureDataset, FixtureProject } from "../../../fixtures/types.ts";
import { KeyRing } from "../http/auth.ts";
import { Project } from "./project.ts";

export class Store {
  readonly projects = new Map<string, Project>();
  readonly apiKeys = new KeyRing<Project>();
  readonly publicKeys = new KeyRing<Project>();

  constructor(ds: FixtureDataset) {
    for (const p of ds.projects) {
      const project = new Project(p);
      this.projects.set(p.id, project);
      this.apiKeys.add(p.api_key, project);
      this.publicKeys.add(p.public_key, project);
    }
    const of = (projectId: string) => {
      const p = this.projects.get(projectId);
      if (!p) throw new Error(`Fixture record references unknown project ${projectId}`);
      return p;
    };
    for (const s of ds.studies) of(s.project_id).addStudy(s);
    for (const i of ds.interviews) of(i.project_id).addInterview(i);
    for (const r of ds.releases) of(r.project_id).addRelease(r);
    for (const c of ds.chats) of(c.project_id).addChat(c);
    for (const m of ds.messages) of(m.project_id).addMessage(m);
    for (const r of ds.trigger_rules) of(r.project_id).triggerRules.push(r);
    for (const a of ds.audiences) of(a.project_id).audiences.push(a);
    for (const inv of ds.invites) of(inv.project_id).invites.set(inv.code, inv);
    for (const p of this.projects.values()) p.finishLoading();
  }

  /** Projects created through `POST /_sim/projects`, per tenant. */
  readonly created = new Map<string, number>();

  /** A created project, as stores/memory/projects.ts made it or a restart from the data dir finds it recorded. */
  restoreProject(p: FixtureProject, tenant: string): Project {
    const project = new Project(p, tenant);
    project.finishLoading();
    this.projects.set(project.id, project);
    this.apiKeys.add(p.api_key, project);
    this.publicKeys.add(p.public_key, project);
    this.created.set(tenant, (this.created.get(tenant) ?? 0) + 1);
    return project;
  }
}
