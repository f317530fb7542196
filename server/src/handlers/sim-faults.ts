/** The simulation surface's fault settings (`PUT /_sim/faults`), per project; applied by http/faults.ts. */
import type { HandlerGroup } from "../http/types.ts";
import type { HandlerDeps } from "./deps.ts";

type Ops = "simGetFaults" | "simPutFaults" | "simDeleteFaults";

// Operation ids are the contract's enum (OperationId): a misspelt one is refused by request validation, which names
// the closest id (http/validate.ts), so nothing here checks them again.
export function simFaultsHandlers(deps: HandlerDeps): HandlerGroup<Ops> {
  const { faults } = deps;
  return {
    simGetFaults: async ({ project }) => ({ status: 200, body: await faults.current(project.id) }),
    simPutFaults: async ({ project, body }) => ({ status: 200, body: await faults.set(project.id, body) }),
    simDeleteFaults: async ({ project }) => {
      await faults.clear(project.id);
      return { status: 204, body: undefined };
    },
  };
}
