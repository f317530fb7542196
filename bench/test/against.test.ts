// `npm run bench -- --against <ref>` as a user runs it before a change to the request path: both servers, the table,
// and nothing left behind (no worktree, no temporary checkout), also when the ref does not exist.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { describe, expect, it } from "vitest";
import { root } from "../../test/support/processes.ts";

const worktrees = () => spawnSync("git", ["worktree", "list", "--porcelain"], { cwd: root, encoding: "utf8" }).stdout.split("\n").filter((l) => l.startsWith("worktree ")).length;
const leftovers = () => readdirSync(tmpdir()).filter((d) => d.startsWith("bench-against-"));
const bench = (...args: string[]) => spawnSync(process.execPath, ["--import", "tsx", "bench/run.ts", ...args], { cwd: root, encoding: "utf8", timeout: 240_000 });

describe("npm run bench -- --against", () => {
  it("runs this checkout and HEAD side by side and prints each endpoint's ratio with its spread, leaving nothing behind", () => {
    const [trees, tmp] = [worktrees(), leftovers()];
    const r = bench("--against", "HEAD", "--rounds", "2", "--seconds", "1", "--paths", "/v1/studies,/v1/chats?limit=5");
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^## This checkout \([0-9a-f]{9}.*\) against HEAD \([0-9a-f]{9}\)$/m);
    for (const p of ["/v1/studies", "/v1/chats?limit=5"]) {
      expect(r.stdout).toMatch(new RegExp(`^\\| \`GET ${p.replace(/[?]/g, "\\?")}\` \\| [\\d,]+ \\| [\\d,]+ \\| \\*\\*\\d+\\.\\d\\d\\*\\* \\(\\d+\\.\\d\\d-\\d+\\.\\d\\d\\) \\| \\d+\\.\\d\\d \\| \\d+\\.\\d\\d \\|$`, "m"));
    }
    expect(worktrees()).toBe(trees);
    expect(leftovers()).toEqual(tmp);
  }, 300_000);

  it("refuses a ref that names no commit, and an option it does not know, in a line", () => {
    const trees = worktrees();
    const bad = bench("--against", "no-such-ref-4f1c");
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toContain("git rev-parse --verify no-such-ref-4f1c^{commit}");
    const unknown = bench("--against", "HEAD", "--round", "3");
    expect(unknown.status).not.toBe(0);
    expect(unknown.stderr).toMatch(/Unknown option '--round'/);
    expect(worktrees()).toBe(trees);
  });
});
