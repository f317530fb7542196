/**
 * `npm run bench -- --against <git ref>`: this checkout's reference server against another commit's, side by side in
 * one run, before a change to the request path lands. The other commit is checked out in a temporary worktree (its
 * own `npm ci` when its lock file differs from this one's, else this checkout's node_modules), both servers run as
 * `npm start` runs them on the memory store, and autocannon loads them in turns: each round measures every endpoint on
 * both, alternating which goes first, so drift on a shared machine hits both alike. A bare Express app answering the
 * same bodies (the ceiling) runs in the same turns. Prints, per endpoint, each server's median req/s and this/other's
 * median ratio with its spread over rounds (min-max of the per-round ratios). Not a timed test: the machines are
 * shared and noisy, so read the ratio and its spread, and run it again when the spread crosses 1.
 *
 * Options (after `--`): --against REF (required), --base REF (instead of this checkout: two commits side by side, as a
 * bisect needs), --rounds N (default 7), --seconds S per round (default 3), --connections C (default 32), --paths a,b
 * (default the three of issue #63's table).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { load, median } from "./load.ts";
import { root, startCeiling, startReference, type Proc } from "./servers.ts";

const ACME = "svc_live_acme_0123456789abcdef0123456789abcdef";
const auth = { authorization: `Bearer ${ACME}` };
const DEFAULT_PATHS = ["/v1/studies", "/v1/chats?limit=20", "/v1/interviews?limit=100"];

export interface AgainstOptions {
  ref: string;
  /** A commit to stand where this checkout does. */
  base?: string;
  rounds: number;
  seconds: number;
  connections: number;
  paths: string[];
}

export function againstOptions(argv: string[]): AgainstOptions | null {
  const { values } = parseArgs({
    args: argv,
    options: {
      against: { type: "string" },
      base: { type: "string" },
      rounds: { type: "string", default: "7" },
      seconds: { type: "string", default: "3" },
      connections: { type: "string", default: "32" },
      paths: { type: "string" },
    },
    strict: true,
  });
  if (values.against === undefined) return null;
  const n = (name: string, v: string, min: number) => {
    const x = Number(v);
    if (!Number.isInteger(x) || x < min) throw new Error(`--${name} must be an integer of at least ${min}, not ${JSON.stringify(v)}`);
    return x;
  };
  return {
    ref: values.against,
    base: values.base,
    rounds: n("rounds", values.rounds!, 1),
    seconds: n("seconds", values.seconds!, 1),
    connections: n("connections", values.connections!, 1),
    paths: values.paths ? values.paths.split(",").map((p) => p.trim()).filter(Boolean) : DEFAULT_PATHS,
  };
}

const git = (args: string[], cwd = root) => {
  const r = spawnSync("git", args, { cwd, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr.trim() || `exit ${r.status}`}`);
  return r.stdout.trim();
};

/** A worktree of `ref` with modules to run its server; removed by the returned function, whatever happened. */
function worktree(ref: string): { dir: string; sha: string; remove: () => void } {
  const sha = git(["rev-parse", "--verify", `${ref}^{commit}`]);
  const dir = join(mkdtempSync(join(tmpdir(), "bench-against-")), "checkout");
  git(["worktree", "add", "--detach", dir, sha]);
  const remove = () => {
    spawnSync("git", ["worktree", "remove", "--force", dir], { cwd: root });
    rmSync(join(dir, ".."), { recursive: true, force: true });
    spawnSync("git", ["worktree", "prune"], { cwd: root });
  };
  try {
    const sameLock = readFileSync(join(root, "package-lock.json"), "utf8") === readFileSync(join(dir, "package-lock.json"), "utf8");
    if (sameLock && existsSync(join(root, "node_modules"))) symlinkSync(join(root, "node_modules"), join(dir, "node_modules"), "dir");
    else {
      console.log(`${sha.slice(0, 9)}'s lock file differs from this checkout's: npm ci in its worktree`);
      const r = spawnSync("npm", ["ci", "--ignore-scripts", "--no-audit", "--no-fund"], { cwd: dir, stdio: ["ignore", "ignore", "inherit"] });
      if (r.status !== 0) throw new Error(`npm ci in the worktree of ${sha} failed (exit ${r.status})`);
    }
  } catch (err) {
    remove();
    throw err;
  }
  return { dir, sha, remove };
}

const fmt = (n: number, digits = 0) => n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });

export async function against(o: AgainstOptions, say: (line?: string) => void = console.log): Promise<Array<{ path: string; ratio: number; min: number; max: number }>> {
  const baseTree = o.base ? worktree(o.base) : null;
  const here = baseTree ? `${o.base} (${baseTree.sha.slice(0, 9)})` : git(["rev-parse", "--short=9", "HEAD"]) + (git(["status", "--porcelain", "--untracked-files=no"]) ? " + uncommitted changes" : "");
  let tree: ReturnType<typeof worktree>;
  try {
    tree = worktree(o.ref);
  } catch (err) {
    baseTree?.remove();
    throw err;
  }
  const procs: Proc[] = [];
  const stopAll = () => Promise.all(procs.map((p) => p.stop()));
  const onSignal = () => void stopAll().finally(() => {
    tree.remove();
    baseTree?.remove();
    process.exit(130);
  });
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    const mine = await startReference({}, baseTree?.dir ?? root);
    procs.push(mine);
    const theirs = await startReference({}, tree.dir);
    procs.push(theirs);
    const bodies: Record<string, string> = {};
    for (const p of o.paths) {
      const res = await fetch(`${mine.baseUrl}${p}`, { headers: auth });
      if (res.status !== 200) throw new Error(`GET ${p} answered ${res.status} on this checkout: ${await res.text()}`);
      bodies[p] = await res.text();
      const other = await fetch(`${theirs.baseUrl}${p}`, { headers: auth });
      if (other.status !== 200) throw new Error(`GET ${p} answered ${other.status} on ${o.ref}: ${await other.text()}`);
    }
    const ceiling = await startCeiling(bodies);
    procs.push(ceiling);
    const targets = [
      { name: "this", base: mine.baseUrl, headers: auth },
      { name: "other", base: theirs.baseUrl, headers: auth },
      { name: "ceiling", base: ceiling.baseUrl, headers: {} },
    ];
    say(`## ${baseTree ? "" : "This checkout "}${baseTree ? here : `(${here})`} against ${o.ref} (${tree.sha.slice(0, 9)})`);
    say();
    say(`autocannon, ${o.connections} connections, ${o.rounds} rounds x ${o.seconds} s per server and endpoint after a 2 s warm-up each, turns alternating; memory store, as \`npm start\` runs it.`);
    say();
    for (const p of o.paths) for (const t of targets) await load(`${t.base}${p}`, t.headers, 2, o.connections);
    const rps = new Map<string, Record<string, number[]>>(o.paths.map((p) => [p, { this: [], other: [], ceiling: [] }]));
    for (let r = 0; r < o.rounds; r++) {
      const order = r % 2 === 0 ? targets : [targets[1], targets[0], targets[2]];
      for (const p of o.paths) for (const t of order) rps.get(p)![t.name].push((await load(`${t.base}${p}`, t.headers, o.seconds, o.connections)).rps);
      process.stderr.write(`round ${r + 1}/${o.rounds} done\n`);
    }
    say(`| endpoint | this req/s | ${o.ref} req/s | this / ${o.ref} (spread) | this / ceiling | ${o.ref} / ceiling |`);
    say("|---|---:|---:|---:|---:|---:|");
    const out: Array<{ path: string; ratio: number; min: number; max: number }> = [];
    for (const [p, x] of rps) {
      const ratios = x.this.map((v, i) => v / x.other[i]);
      const row = { path: p, ratio: median(ratios), min: Math.min(...ratios), max: Math.max(...ratios) };
      out.push(row);
      const ceil = median(x.ceiling);
      say(`| \`GET ${p}\` | ${fmt(median(x.this))} | ${fmt(median(x.other))} | **${fmt(row.ratio, 2)}** (${fmt(row.min, 2)}-${fmt(row.max, 2)}) | ${fmt(median(x.this) / ceil, 2)} | ${fmt(median(x.other) / ceil, 2)} |`);
    }
    say();
    const slower = out.filter((r) => r.ratio < 0.95);
    say(slower.length
      ? `Slower by more than 5% on ${slower.map((r) => `\`${r.path}\``).join(", ")}: a change that does this needs a measured reason in its commit (BENCHMARKS.md).`
      : "No endpoint is slower by more than 5% (median of the per-round ratios).");
    return out;
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    await stopAll();
    tree.remove();
    baseTree?.remove();
  }
}
