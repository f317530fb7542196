/**
 * `npm run docs`: the API reference page, docs/index.html, built from generated/openapi.json with Redocly's
 * `build-docs` (Redoc, prerendered). The page hydrates with Redoc's standalone bundle; the build vendors that
 * exact file (its sha384 is the page's integrity attribute) as docs/redoc.standalone.js, so the page works
 * offline and the reference server can serve it at /docs without any CDN.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const root = fileURLToPath(new URL("../../", import.meta.url));
export const DOCS = join(root, "docs");
const CDN = /https:\/\/cdn\.redocly\.com\/redoc\/v([\d.]+)\/bundles\/redoc\.standalone\.js/g;

/** The page's HTML: Redocly's output with the CDN bundle replaced by the vendored one. */
export function buildPage(): { html: string; redocVersion: string; integrity: string } {
  const out = mkdtempSync(join(tmpdir(), "docs-"));
  try {
    execFileSync(process.execPath, [join(root, "node_modules/@redocly/cli/bin/cli.js"), "build-docs", "generated/openapi.json", "-o", join(out, "index.html"), "--title", "Project Data API reference"], {
      cwd: root,
      stdio: ["ignore", "ignore", "pipe"],
      env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
    });
    const raw = readFileSync(join(out, "index.html"), "utf8");
    const version = [...raw.matchAll(CDN)][0]?.[1];
    if (!version) throw new Error("build-docs output no longer references Redoc's CDN bundle: update scripts/docs/build.ts");
    const integrity = /integrity="(sha384-[^"]+)"/.exec(raw)?.[1] ?? "";
    return { html: raw.replace(CDN, "./redoc.standalone.js"), redocVersion: version, integrity };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

export const sri = (file: string) => `sha384-${createHash("sha384").update(readFileSync(file)).digest("base64")}`;

/** Fetches redoc@version's standalone bundle from the npm registry (the package itself cannot be installed). */
function vendorBundle(version: string, integrity: string): void {
  const target = join(DOCS, "redoc.standalone.js");
  if (existsSync(target) && sri(target) === integrity) return;
  const dir = mkdtempSync(join(tmpdir(), "redoc-"));
  try {
    const tgz = execFileSync("npm", ["pack", `redoc@${version}`, "--silent", "--pack-destination", dir], { cwd: dir, encoding: "utf8" }).trim().split("\n").pop()!;
    execFileSync("tar", ["xzf", join(dir, tgz), "-C", dir, "package/bundles/redoc.standalone.js"]);
    const bundle = readFileSync(join(dir, "package/bundles/redoc.standalone.js"));
    writeFileSync(target, bundle);
    if (sri(target) !== integrity) throw new Error(`redoc@${version}'s bundle does not match the page's integrity ${integrity}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { html, redocVersion, integrity } = buildPage();
  writeFileSync(join(DOCS, "index.html"), html);
  vendorBundle(redocVersion, integrity);
  console.log(`docs/index.html (Redoc ${redocVersion}) and docs/redoc.standalone.js written`);
}
