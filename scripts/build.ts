/**
 * `npm run build` (and `prepack`): compiles the package's importable entry points (typed client, receiver,
 * metrics engines) to dist/ with declarations, and copies the generated types the declarations refer to.
 * The commands (bin/) run the TypeScript sources through tsx and need no build.
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../", import.meta.url));
rmSync(join(root, "dist"), { recursive: true, force: true });
execFileSync(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", join(root, "tsconfig.build.json")], { cwd: root, stdio: "inherit" });
mkdirSync(join(root, "dist/generated"), { recursive: true });
for (const f of ["api.d.ts", "schema.d.ts"]) copyFileSync(join(root, "generated", f), join(root, "dist/generated", f));
console.log("built dist/");
