/** The simulation surface's projects on demand: empty, with their own keys, for clean-data work and isolation. */
import { iso } from "../clock.ts";
import { conflict } from "../http/errors.ts";
import type { HandlerGroup } from "../http/types.ts";
import type { HandlerDeps } from "./deps.ts";

/** Projects created per server run: each holds memory and a key to check on every request. */
export const MAX_CREATED_PROJECTS = 200;

export function simProjectsHandlers(deps: HandlerDeps): HandlerGroup<"simCreateProject"> {
  const { store, clock } = deps;
  return {
    simCreateProject({ body }) {
      if (store.created >= MAX_CREATED_PROJECTS) throw conflict(`This sandbox already created ${MAX_CREATED_PROJECTS} projects; restart it to start again`);
      const { project, apiKey, publicKey } = store.createProject(body.name ?? "Simulated project");
      return { status: 201, body: { object: "sim_project", id: project.id, name: project.name, api_key: apiKey, public_key: publicKey, created_at: iso(clock.now()) } };
    },
  };
}
