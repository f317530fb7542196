/** The simulation surface's projects on demand: empty, with their own keys, for clean-data work and isolation. */
import { iso } from "../clock.ts";
import type { HandlerGroup } from "../http/types.ts";
import type { HandlerDeps } from "./deps.ts";

export function simProjectsHandlers(deps: HandlerDeps): HandlerGroup<"simCreateProject"> {
  const { projects, clock, quotas } = deps;
  return {
    // The new project belongs to the organisation of the key that asked for it, and counts against its cap only.
    async simCreateProject({ project: caller, body }) {
      const createdAt = iso(clock.now());
      const { project, apiKey, publicKey } = await projects.create(body.name ?? "Simulated project", caller.tenant, quotas.limits.projects, createdAt);
      return { status: 201, body: { object: "sim_project", id: project.id, name: project.name, api_key: apiKey, public_key: publicKey, created_at: createdAt } };
    },
  };
}
