/** The simulation surface's projects on demand: empty, with their own keys, for clean-data work and isolation. */
import { iso } from "../clock.ts";
import { conflict } from "../http/errors.ts";
import type { HandlerGroup } from "../http/types.ts";
import type { HandlerDeps } from "./deps.ts";

export function simProjectsHandlers(deps: HandlerDeps): HandlerGroup<"simCreateProject"> {
  const { store, clock, journal, quotas } = deps;
  return {
    // The new project belongs to the organisation of the key that asked for it, and counts against its cap only.
    simCreateProject({ project: caller, body }) {
      const cap = quotas.limits.projects;
      if ((store.created.get(caller.tenant) ?? 0) >= cap) throw conflict(`This organisation already created ${cap} projects on this sandbox (--max-projects); use one of them, or start the sandbox with a fresh data dir`);
      const { project, apiKey, publicKey } = store.createProject(body.name ?? "Simulated project", caller.tenant);
      const createdAt = iso(clock.now());
      journal.append({ kind: "project.created", project: { id: project.id, name: project.name, api_key: apiKey, public_key: publicKey, tenant: caller.tenant, created_at: createdAt } });
      return { status: 201, body: { object: "sim_project", id: project.id, name: project.name, api_key: apiKey, public_key: publicKey, created_at: createdAt } };
    },
  };
}
