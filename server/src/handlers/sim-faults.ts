/** The simulation surface's fault settings (`PUT /_sim/faults`), per project; applied by http/faults.ts. */
import leven from "leven";
import { routes } from "../../../generated/routes.ts";
import { invalidParameters } from "../http/errors.ts";
import type { HandlerGroup } from "../http/types.ts";
import type { HandlerDeps } from "./deps.ts";

type Ops = "simGetFaults" | "simPutFaults" | "simDeleteFaults";

const OPERATIONS = routes.map((r) => r.operationId as string);

const KNOWN = new Set(OPERATIONS);
/** At most this many unknown ids are named (one more entry counts the rest), each shown to at most ID_SHOWN characters. */
const NAMED = 10;
const ID_SHOWN = 64;

/**
 * A misspelt operation id would silently fault nothing: refuse it, naming the closest one. Bounded whatever the body
 * holds: a few ids are compared (an id longer than any operation id is compared by its first characters), and the
 * answer names at most NAMED of them, each cut short, so a large body cannot make the check slow or the answer large.
 */
function unknownOperations(ids: readonly string[] | null | undefined) {
  const unknown = (ids ?? []).map((id, i) => [id, i] as const).filter(([id]) => !KNOWN.has(id));
  const named = unknown.slice(0, NAMED).map(([id, i]) => {
    const probe = id.slice(0, ID_SHOWN);
    let closest = OPERATIONS[0];
    let best = Infinity;
    for (const op of OPERATIONS) {
      const d = leven(probe, op);
      if (d < best) [best, closest] = [d, op];
    }
    const shown = id.length > ID_SHOWN ? `${id.slice(0, ID_SHOWN)}… (${id.length} characters)` : id;
    return { location: "body" as const, field: `operations/${i}`, message: `${shown} is not an operation of the contract (did you mean ${closest}?)` };
  });
  if (unknown.length > NAMED) named.push({ location: "body" as const, field: "operations", message: `and ${unknown.length - NAMED} more unknown operation ids` });
  return named;
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
