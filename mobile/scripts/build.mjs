// `npm run build -w mobile` (and prepack): compiles src/ to dist/ (ES modules with declarations). The core's types
// come from the contract (generated/api.d.ts, outside this package): the file is copied into dist/ and the
// declarations are pointed at the copy, so the published package is self-contained.
import { execFileSync } from "node:child_process";
import { copyFileSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const pkg = fileURLToPath(new URL("../", import.meta.url));
const dist = join(pkg, "dist");
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
rmSync(dist, { recursive: true, force: true });
execFileSync(process.execPath, [tsc, "-p", join(pkg, "tsconfig.build.json")], { stdio: "inherit" });
copyFileSync(join(pkg, "../generated/api.d.ts"), join(dist, "contract.d.ts"));

const walk = (dir) => readdirSync(dir).flatMap((f) => (statSync(join(dir, f)).isDirectory() ? walk(join(dir, f)) : [join(dir, f)]));
for (const file of walk(dist).filter((f) => f.endsWith(".d.ts"))) {
  const text = readFileSync(file, "utf8");
  const fixed = text.replace(/(["'])(?:\.\.\/)+generated\/api\.d\.ts\1/g, (_m, q) => {
    const rel = relative(dirname(file), join(dist, "contract.d.ts")).replace(/\\/g, "/");
    return `${q}${rel.startsWith(".") ? rel : `./${rel}`}${q}`;
  });
  if (fixed !== text) writeFileSync(file, fixed);
}
console.log("built mobile/dist/");
