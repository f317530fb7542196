/**
 * Breaking-change check of the contract. Compares generated/openapi.json with the previous version in git
 * (HEAD when the working copy differs from it, else HEAD~1, so CI on a fresh clone judges the last commit)
 * using api-smart-diff, which understands OpenAPI 3.1 and classifies every change. A breaking change
 * fails unless info.version's major number was bumped. `npm test` runs it (test/breaking/).
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { apiCompare } from "api-smart-diff";

type Doc = Record<string, any>;
export interface Change {
  type: string;
  action: string;
  path: string;
}
export interface BreakingReport {
  breaking: Change[];
  other: Change[];
  majorBumped: boolean;
  ok: boolean;
}

const root = fileURLToPath(new URL("../../", import.meta.url));
const FILE = "generated/openapi.json";
const major = (doc: Doc) => Number.parseInt(String(doc?.info?.version ?? "0").split(".")[0], 10) || 0;

export function checkBreaking(oldDoc: Doc, newDoc: Doc): BreakingReport {
  // apiCompare rewrites its inputs (it merges allOf in place), so it gets copies.
  const { diffs } = apiCompare(structuredClone(oldDoc), structuredClone(newDoc));
  // Changes are reported both where schemas are used (paths, webhooks) and where they are declared
  // (components); only the uses say what a client sees, so they alone are judged.
  const changes: Change[] = diffs
    .map((d: any) => ({ type: String(d.type), action: String(d.action), path: (d.path ?? []).join("/") }))
    .filter((c: Change) => c.path.startsWith("paths/") || c.path.startsWith("webhooks/"));
  const breaking = changes.filter((c) => c.type === "breaking");
  const majorBumped = major(newDoc) > major(oldDoc);
  return { breaking, other: changes.filter((c) => c.type !== "breaking"), majorBumped, ok: breaking.length === 0 || majorBumped };
}

const git = (...args: string[]) => execFileSync("git", args, { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });

/** The contract to compare against, or null (with why) when git has no earlier version. */
export function baseline(): { doc: Doc; ref: string } | { doc: null; why: string } {
  let ref: string;
  try {
    const dirty = git("status", "--porcelain", "--", FILE).trim() !== "";
    ref = dirty ? "HEAD" : "HEAD~1";
    git("rev-parse", "--verify", `${ref}^{commit}`);
  } catch {
    return { doc: null, why: "no earlier commit to compare with" };
  }
  try {
    return { doc: JSON.parse(git("show", `${ref}:${FILE}`)), ref };
  } catch {
    return { doc: null, why: `${FILE} does not exist at ${ref}` };
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const base = baseline();
  if (base.doc === null) {
    console.log(`breaking-change check skipped: ${base.why}`);
    process.exit(0);
  }
  const report = checkBreaking(base.doc, JSON.parse(readFileSync(resolve(root, FILE), "utf8")));
  for (const c of report.breaking) console.log(`BREAKING ${c.action} ${c.path}`);
  console.log(`${report.breaking.length} breaking, ${report.other.length} other changes against ${base.ref}${report.majorBumped ? " (major version bumped)" : ""}`);
  process.exit(report.ok ? 0 : 1);
}
