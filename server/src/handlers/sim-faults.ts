/** The simulation surface's fault settings (`PUT /_sim/faults`), per project; applied by http/faults.ts. */
import leven from "leven";
import { routes } from "../../../generated/routes.ts";
import { invalidParameters } from "../http/errors.ts";
import type { HandlerGroup } from "../http/types.ts";
import type { HandlerDeps } from "./deps.ts";

type Ops = "simGetFaults" | "simPutFaults" | "simDeleteFaults";

const OPERATIONS = routes.map((r) => r.operationId as string);

/** A misspelt operation id would silently fault nothing: refuse it, naming the closest one. */
function unknownOperations(ids: readonly string[] | null | undefined) {
  return (ids ?? []).flatMap((id, i) => {
    if (OPERATIONS.includes(id)) return [];
    const closest = [...OPERATIONS].sort((a, b) => leven(id, a) - leven(id, b))[0];
    return [{ location: "body" as const, field: `operations/${i}`, message: `${id} is not an operation of the contract (did you mean ${closest}?)` }];
  });
}

export function simFaultsHandlers(deps: HandlerDeps): HandlerGroup<Ops> {
  const { faults } = deps;
  return {
    simGetFaults: ({ project }) => ({ status: 200, body: faults.get(project.id) }),
    simPutFaults: ({ project, body }) => {
      const unknown = unknownOperations(body.operations);
      if (unknown.length) throw invalidParameters(unknown);
      return { status: 200, body: faults.set(project.id, body) };
    },
    simDeleteFaults: ({ project }) => {
      faults.clear(project.id);
      return { status: 204, body: undefined };
    },
  };
}
