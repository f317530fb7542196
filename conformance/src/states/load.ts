/**
 * `--states FILE`: loads an implementer's provider-states module (JavaScript, or TypeScript: through the running
 * loader when there is one, else through tsx when it is installed). Its default export is a function from StatesEnv
 * to ProviderStates, or the ProviderStates object itself.
 */
import { existsSync } from "node:fs";
import { register } from "node:module";
import { resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { ProviderStates, StatesEnv } from "./types.ts";

const FUNCTIONS = ["capabilities", "plantStudy", "plantInterview", "completeInterview", "abandonInterview", "setStudyStatus", "plantChat", "plantRelease", "createProject", "setFaults", "launchRequest", "readExperiments", "remove"];

export class StatesModuleError extends Error {}

/** The states entry of this very suite: this folder's index in a checkout, `dist/states/index.js` in the package. */
const ENTRY = import.meta.url.endsWith("/load.ts") ? new URL("./index.ts", import.meta.url) : new URL("./states/index.js", import.meta.url);
let hooked = false;

/**
 * `import ... from "@service/api-conformance/states"` resolves, from a module anywhere (outside any project, in a
 * checkout where the package is not built), to the entry of the suite that is loading it: a resolve hook for that one
 * specifier. The module then gets the same errors and types as the run, whatever its own node_modules hold. The entry's
 * URL is handed on to the next resolver, not short-circuited: in a checkout it is TypeScript, which the running loader
 * (tsx) loads only what it resolved itself.
 */
function resolveStatesEntry(): void {
  if (hooked || !existsSync(fileURLToPath(ENTRY))) return;
  hooked = true;
  const hook = `export async function resolve(specifier, context, next) {
    if (specifier === "@service/api-conformance/states") return next(${JSON.stringify(ENTRY.href)}, context);
    return next(specifier, context);
  }`;
  register(`data:text/javascript,${encodeURIComponent(hook)}`);
}

async function importModule(file: string): Promise<Record<string, unknown>> {
  const url = pathToFileURL(resolve(file)).href;
  resolveStatesEntry();
  try {
    return await import(url);
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (!/\.[cm]?ts$/.test(file) || (code !== "ERR_UNKNOWN_FILE_EXTENSION" && code !== "ERR_UNSUPPORTED_NODE_MODULES_TYPE_STRIPPING")) throw err;
  }
  // A TypeScript module without a loader: tsx, when the implementer has it installed (an optional peer).
  let api: { tsImport(specifier: string, parent: string): Promise<Record<string, unknown>> };
  try {
    api = (await import("tsx/esm/api" as string)) as typeof api;
  } catch {
    throw new StatesModuleError(`${file} is TypeScript: install tsx beside the suite (npm install --save-dev tsx), run it under a TypeScript loader (node --import tsx), or compile the module to JavaScript`);
  }
  return api.tsImport(url, import.meta.url);
}

export async function loadStates(file: string, env: StatesEnv): Promise<ProviderStates> {
  let mod: Record<string, unknown>;
  try {
    mod = await importModule(file);
  } catch (err) {
    if (err instanceof StatesModuleError) throw err;
    throw new StatesModuleError(`--states ${file} could not be loaded: ${(err as Error).message}`);
  }
  const exported = mod.default ?? mod.states;
  const states = typeof exported === "function" ? await (exported as (env: StatesEnv) => unknown)(env) : exported;
  if (states === null || typeof states !== "object") throw new StatesModuleError(`--states ${file} must export default a function (env) => ({ plantStudy, plantInterview, ... }) or that object; it exports ${typeof exported}`);
  const own = FUNCTIONS.filter((f) => typeof (states as Record<string, unknown>)[f] === "function");
  const wrong = Object.entries(states as Record<string, unknown>).filter(([k, v]) => FUNCTIONS.includes(k) && typeof v !== "function").map(([k]) => k);
  if (wrong.length) throw new StatesModuleError(`--states ${file}: ${wrong.join(", ")} must be functions`);
  if (!own.length) throw new StatesModuleError(`--states ${file} defines none of ${FUNCTIONS.join(", ")}`);
  return states as ProviderStates;
}
