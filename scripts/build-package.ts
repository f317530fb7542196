/**
 * `npm run build -w <package>` (and each package's prepack): builds one workspace package into its own dist/ so
 * that its tarball, installed alone, needs nothing outside itself.
 *
 * - Libraries (client, receiver, mobile) compile with tsc. Their declarations import the contract's generated
 *   types by a path outside the package (`../../generated/api.d.ts`); those files are copied into dist/contract/ and
 *   the declarations are pointed at the copies, so the published types are self-contained.
 * - The metrics package also compiles its declarations with tsc, then esbuild bundles its JavaScript with the
 *   distribution functions, Luxon and csv-stringify inlined: @stdlib's t quantile alone installs 220 packages
 *   (29 MB) and Luxon 4.5 MB, where the bundled code is a few hundred KB.
 * - The sandbox and the conformance suite are bundled by esbuild: their sources share `lib/`, `fixtures/` and the
 *   generated route table with the rest of the repository, and the bundle inlines them. The data files they read
 *   at run time are copied to dist/assets/ with their repository paths (see lib/assets.ts).
 * - The contract copies the TypeSpec sources beside the generated documents.
 *
 * A build that would change nothing is skipped: every file a build read (tsc's program, esbuild's inputs, the assets,
 * this script, the package's manifest and tsconfigs, the names of its source files) and the dist/ it wrote are hashed
 * into node_modules/.cache/build-package/<name>.json, and the next build compares them first. `npm ci` builds the
 * packages (prepare), and `npm test`, the processes layer, the package matrices and every `npm pack` build them
 * again: each was 23 s of the 2-core machine for an identical dist/. `--force` builds anyway.
 *
 * Usage: tsx scripts/build-package.ts [--force] <package folder>   (run from the package folder by its own scripts)
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, renameSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(import.meta.url);

interface Bundle {
  /** Output name (without .js) -> entry, relative to the package folder. */
  entries: Record<string, string>;
  /** Bare imports that stay imports (the package's dependencies); everything else is inlined. */
  external: string[];
  /** Repository files or folders the bundle reads at run time, copied to dist/assets/<same path>. */
  assets?: string[];
  /** Entries that are commands get a shebang. */
  commands?: string[];
}

interface Plan {
  tsc?: "full" | "declarations";
  /**
   * CommonJS copies of the compiled entries (output name -> file in the compiled output), in dist/cjs/*.cjs: React Native's Jest preset
   * requires packages and does not transform node_modules, so an ESM-only package cannot be imported by app tests.
   */
  cjs?: { entries: Record<string, string>; external: string[] };
  /** tsc projects, relative to the package (default tsconfig.build.json). */
  projects?: string[];
  bundle?: Bundle;
  /** The contract package: the TypeSpec sources travel with the documents. */
  contract?: boolean;
}

const PLANS: Record<string, Plan> = {
  generated: { contract: true },
  sdk: { tsc: "full" },
  receiver: { tsc: "full" },
  // The web entry and core with the DOM library, the React Native entry with React Native's globals: the two
  // declare the same globals differently, so one program cannot check both with full library checks.
  mobile: {
    tsc: "full",
    projects: ["tsconfig.build.json", "tsconfig.build-native.json"],
    cjs: {
      entries: { index: "index.js", "core/index": "core/index.js", web: "web.js", jest: "jest.js" },
      external: ["react", "react-native", "react-native-webview", "react-native-safe-area-context"],
    },
  },
  metrics: {
    tsc: "declarations",
    bundle: { entries: { index: "src/index.ts", "sql/index": "src/sql/index.ts", cli: "src/cli.ts" }, external: ["commander", "csv-parse", "leven", "hyparquet", "cli-table3", "@duckdb/node-api"], commands: ["cli"] },
  },
  server: {
    bundle: {
      entries: { sandbox: "src/cli.ts", mock: "mock/run.ts" },
      external: ["express", "pino", "ajv", "ajv-formats", "fast-json-stringify", "commander", "eventsource-parser", "leven", "@stoplight/prism-cli", "node-sqlite3-wasm", "pg", "node-pg-migrate"],
      assets: ["generated/openapi.json", "fixtures/data/default.json", "docs/index.html", "docs/redoc.standalone.js", "server/migrations"],
      commands: ["sandbox", "mock"],
    },
  },
  conformance: {
    // The provider-states interface a --states module is written against: its declarations, and its runtime (the errors).
    tsc: "declarations",
    bundle: {
      // The proxy's judge worker is an entry of its own: a worker is started from a file (proxy/index.ts finds it beside cli.js).
      entries: { cli: "cli.ts", "states/index": "src/states/index.ts", "proxy-worker": "src/proxy/worker.ts" },
      external: ["ajv", "ajv-formats", "commander", "eventsource-parser", "fast-check", "selfsigned", "tsx"],
      assets: ["generated/openapi.json"],
      commands: ["cli"],
    },
  },
};

const walk = (dir: string): string[] => readdirSync(dir).flatMap((f) => (statSync(join(dir, f)).isDirectory() ? walk(join(dir, f)) : [join(dir, f)]));

/** A line of tsc's output that is a file its program read (--listFiles prints absolute paths), not an error at one. */
const listed = (line: string) => line.startsWith("/") && !/\(\d+,\d+\): /.test(line);

/** Compiles one project; returns the files its program read (tsc's --listFiles). */
function tsc(pkg: string, project: string, declarationsOnly: boolean, outDir: string): string[] {
  const args = [require.resolve("typescript/bin/tsc"), "-p", join(pkg, project), "--outDir", outDir, "--listFiles"];
  if (declarationsOnly) args.push("--emitDeclarationOnly");
  let out: string;
  try {
    out = execFileSync(process.execPath, args, { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"], maxBuffer: 64 << 20 });
  } catch (e) {
    // tsc prints its errors on stdout, among the listed files.
    const stdout = String((e as { stdout?: string }).stdout ?? "");
    process.stdout.write(stdout.split("\n").filter((l) => !listed(l)).join("\n"));
    throw e;
  }
  return out.split("\n").filter(listed);
}

// ---- the up-to-date check

const stampOf = (name: string) => join(root, "node_modules", ".cache", "build-package", `${name}.json`);

/** One hash over the files' paths and contents (a missing file hashes as missing). */
function hashFiles(files: string[]): string {
  const h = createHash("sha256");
  for (const f of [...new Set(files)].sort()) {
    h.update(`${relative(root, f)}\0`);
    h.update(existsSync(f) && statSync(f).isFile() ? readFileSync(f) : "\0missing\0");
  }
  return h.digest("hex");
}

/** What a build depends on besides what its compilers report: the script, manifest, tsconfigs, and which files the
 * package holds (a new file that a tsconfig's include takes in changes the build without changing any file read). */
function fixedInputs(pkg: string): { files: string[]; names: string } {
  const files = [fileURLToPath(import.meta.url), join(pkg, "package.json"), join(root, "tsconfig.json"), join(root, "package-lock.json"),
    ...readdirSync(pkg).filter((f) => /^tsconfig.*\.json$/.test(f)).map((f) => join(pkg, f))];
  const skip = new Set(["dist", "node_modules", "test", "spec"]);
  const held = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    skip.has(d.name) || d.name.startsWith(".") ? [] : d.isDirectory() ? held(join(dir, d.name)) : [relative(pkg, join(dir, d.name))]);
  return { files, names: held(pkg).sort().join("\n") };
}

interface Stamp { inputs: string[]; inputHash: string; names: string; distHash: string }

function upToDate(name: string, pkg: string): boolean {
  const file = stampOf(name);
  if (!existsSync(file) || !existsSync(join(pkg, "dist"))) return false;
  let stamp: Stamp;
  try { stamp = JSON.parse(readFileSync(file, "utf8")) as Stamp; } catch { return false; }
  const fixed = fixedInputs(pkg);
  return stamp.names === fixed.names && stamp.inputHash === hashFiles(stamp.inputs.map((f) => join(root, f)))
    && stamp.distHash === hashFiles(walk(join(pkg, "dist")));
}

/** Records what the build read, unless a file changed while it ran (its dist/ may hold either version: build again). */
function writeStamp(name: string, pkg: string, read: string[], started: number): void {
  const fixed = fixedInputs(pkg);
  const inputs = [...new Set([...read, ...fixed.files])].map((f) => relative(root, f)).sort();
  if (inputs.some((f) => existsSync(join(root, f)) && statSync(join(root, f)).mtimeMs >= started)) {
    rmSync(stampOf(name), { force: true });
    return;
  }
  const stamp: Stamp = { inputs, inputHash: hashFiles(inputs.map((f) => join(root, f))), names: fixed.names, distHash: hashFiles(walk(join(pkg, "dist"))) };
  mkdirSync(dirname(stampOf(name)), { recursive: true });
  writeFileSync(stampOf(name), JSON.stringify(stamp));
}

/** Copies the generated type files the declarations name into dist/contract/ and repoints the imports. */
function selfContainTypes(dist: string): void {
  const wanted = new Set<string>();
  const pattern = /(["'])(?:\.\.\/)+generated\/([\w-]+)\.d\.ts\1/g;
  for (const file of walk(dist).filter((f) => f.endsWith(".d.ts"))) {
    const text = readFileSync(file, "utf8");
    const fixed = text.replace(pattern, (_m, q: string, name: string) => {
      wanted.add(name);
      const rel = relative(dirname(file), join(dist, "contract", `${name}.js`)).replace(/\\/g, "/");
      return `${q}${rel.startsWith(".") ? rel : `./${rel}`}${q}`;
    });
    if (fixed !== text) writeFileSync(file, fixed);
  }
  if (wanted.size === 0) return;
  mkdirSync(join(dist, "contract"), { recursive: true });
  for (const name of wanted) cpSync(join(root, "generated", `${name}.d.ts`), join(dist, "contract", `${name}.d.ts`));
}

/** Bundles the entries; returns the files esbuild read. */
async function bundle(pkg: string, dist: string, plan: Bundle): Promise<string[]> {
  const result = await build({
    entryPoints: Object.fromEntries(Object.entries(plan.entries).map(([out, entry]) => [out, join(pkg, entry)])),
    outdir: dist,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    external: plan.external.flatMap((name) => [name, `${name}/*`]),
    // Inlined CommonJS code may call require(): give the ES module one.
    banner: { js: 'import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);' },
    define: { __BUNDLED_ASSETS__: "true" },
    logLevel: "warning",
    legalComments: "linked",
    metafile: true,
  });
  for (const name of plan.commands ?? []) {
    const file = join(dist, `${name}.js`);
    writeFileSync(file, `#!/usr/bin/env node\n${readFileSync(file, "utf8")}`, { mode: 0o755 });
  }
  for (const asset of plan.assets ?? []) cpSync(join(root, asset), join(dist, "assets", asset), { recursive: true });
  const assets = (plan.assets ?? []).flatMap((a) => (statSync(join(root, a)).isDirectory() ? walk(join(root, a)) : [join(root, a)]));
  // esbuild names its inputs relative to the working directory; some carry a namespace prefix (none is a file).
  return [...Object.keys(result.metafile.inputs).filter((f) => !f.includes(":")).map((f) => resolve(f)), ...assets];
}

export async function buildPackage(folder: string, force = false): Promise<void> {
  const name = basename(resolve(folder));
  const plan = PLANS[name];
  if (!plan) throw new Error(`no build plan for ${name}; known: ${Object.keys(PLANS).join(", ")}`);
  const pkg = join(root, name);
  if (plan.contract) {
    rmSync(join(pkg, "spec"), { recursive: true, force: true });
    cpSync(join(root, "spec"), join(pkg, "spec"), { recursive: true });
    cpSync(join(root, "tspconfig.yaml"), join(pkg, "spec", "tspconfig.yaml"));
    console.log(`built ${name}/ (TypeSpec sources copied to ${name}/spec/)`);
    return;
  }
  if (!force && upToDate(name, pkg)) {
    console.log(`${name}/dist/ is up to date (nothing it was built from changed)`);
    return;
  }
  const read: string[] = [];
  const started = Date.now();
  // Built beside dist/ and swapped in at the end: a test reading dist/ while another packs the package (prepack
  // builds) never finds it half-written or gone.
  const final = join(pkg, "dist");
  const dist = join(pkg, `.dist-build-${process.pid}`);
  rmSync(dist, { recursive: true, force: true });
  if (plan.tsc) for (const project of plan.projects ?? ["tsconfig.build.json"]) read.push(...tsc(pkg, project, plan.tsc === "declarations", dist));
  if (existsSync(dist)) selfContainTypes(dist);
  // A package whose root is CommonJS (mobile: Expo require()s its app.plugin.js) keeps its ES module sources' type
  // in src/package.json; the compiled output carries it along.
  if (plan.tsc && existsSync(join(pkg, "src", "package.json"))) cpSync(join(pkg, "src", "package.json"), join(dist, "package.json"));
  if (plan.bundle) read.push(...(await bundle(pkg, dist, plan.bundle)));
  if (plan.cjs) {
    await build({
      entryPoints: Object.fromEntries(Object.entries(plan.cjs.entries).map(([out, entry]) => [out, join(dist, entry)])),
      outdir: join(dist, "cjs"),
      outExtension: { ".js": ".cjs" },
      bundle: true,
      format: "cjs",
      platform: "neutral",
      target: "es2020",
      external: plan.cjs.external.flatMap((n) => [n, `${n}/*`]),
      logLevel: "warning",
    });
  }
  const old = join(pkg, `.dist-old-${process.pid}`);
  // Two builds of one package at once (layers side by side, each building what it needs): whichever swaps last wins,
  // and the other's rename finds dist/ gone or back; both built the same sources.
  try {
    renameSync(final, old);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
  }
  try {
    renameSync(dist, final);
  } catch (e) {
    if (!["ENOTEMPTY", "EEXIST"].includes(String((e as NodeJS.ErrnoException).code))) throw e;
    rmSync(dist, { recursive: true, force: true });
  }
  rmSync(old, { recursive: true, force: true });
  writeStamp(name, pkg, read, started);
  console.log(`built ${name}/dist/`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const force = process.argv.includes("--force");
  const targets = process.argv.slice(2).filter((a) => a !== "--force");
  for (const t of targets.length ? targets : [process.cwd()]) await buildPackage(t, force);
}
