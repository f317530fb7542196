/**
 * The judge worker run from source (vitest, `npm run conformance proxy`): its modules bundled by esbuild once per
 * process, as the published build bundles dist/proxy-worker.js, and started from a data: URL (nothing is written).
 * A worker does not inherit the process's --import, and one that registered tsx for itself took 730 ms of CPU to start
 * against 340 ms for the bundle: the tests start a proxy, and so a worker, over a hundred times.
 */
import { build } from "esbuild";
import { fileURLToPath, pathToFileURL } from "node:url";

let bundled: Promise<URL> | undefined;
const SELF = Symbol("packages-by-url");

export function sourceWorker(): Promise<URL> {
  bundled ??= bundle();
  return bundled;
}

async function bundle(): Promise<URL> {
  const entry = fileURLToPath(new URL("./worker.ts", import.meta.url));
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: "esm",
    platform: "node",
    target: "node20",
    logLevel: "silent",
    // A data: URL has no folder to resolve from: every package is imported by its installed file's URL.
    plugins: [
      {
        name: "packages-by-url",
        setup(b) {
          b.onResolve({ filter: /^[^./]/ }, async (args) => {
            if (args.path.startsWith("node:") || args.pluginData === SELF) return undefined;
            // Where esbuild (with node's conditions for an import) finds it: the file node would load.
            const found = await b.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: SELF });
            return found.errors.length || !found.path ? undefined : { path: pathToFileURL(found.path).href, external: true };
          });
        },
      },
    ],
    // What the modules find beside themselves (lib/assets.ts: the repository's files; lib/openapi-ajv.ts: its require)
    // is found from lib/, where both live.
    define: { "import.meta.url": JSON.stringify(new URL("../../../lib/assets.ts", import.meta.url).href) },
  });
  return new URL(`data:text/javascript;base64,${Buffer.from(result.outputFiles[0].contents).toString("base64")}`);
}
