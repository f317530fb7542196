/**
 * The implementation in `../shared/foreign/` (written from the seed alone, unlike ours: no `/_sim`, a `/testing` API,
 * 404 for malformed ids, 422 for its own validation, `{status, message}` errors, HTTPS-only webhooks) started as its
 * README says, on a free port. Tests hold the conformance suite to it.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { reapWhenGone, root } from "./processes.ts";

/** Where the foreign implementation is: beside the repository (CI lays `shared/` there), or FOREIGN_SERVER. */
export const FOREIGN_SERVER = process.env.FOREIGN_SERVER ?? join(root, "..", "shared", "foreign", "server.mjs");

/** Its fixture keys (its README's defaults). */
export const FOREIGN = {
  acme: "svc_live_acme_4b1d9e07c2f85a36e1904d7bb2c6fa58",
  globex: "svc_live_globex_8e2a6c10f93b47d5a8c1e06b9f7d3a24",
  publicKey: "pub_acme_2d7f0b95e4c1a8369b5e7f02c4d1a6e3",
} as const;

export interface RunningForeign {
  origin: string;
  baseUrl: string;
  child: ChildProcess;
  close(): Promise<void>;
}

/**
 * Starts it with `env` on top of its defaults (PORT=0: it prints the port it took); `server`: a changed copy of it;
 * `launcher`: a script that loads the server itself, given the server's path, over an IPC channel to this process (the
 * mutation runner's, which asks it for coverage).
 */
export async function startForeign(env: Record<string, string> = {}, server = FOREIGN_SERVER, launcher?: string): Promise<RunningForeign> {
  if (!existsSync(server)) throw new Error(`the foreign implementation is not at ${server}: shared/ must lie beside the repository (or set FOREIGN_SERVER)`);
  const child = spawn(process.execPath, launcher ? [launcher, server] : [server], { env: { ...process.env, HOST: "127.0.0.1", PORT: "0", ...env }, stdio: launcher ? ["ignore", "pipe", "pipe", "ipc"] : ["ignore", "pipe", "pipe"] });
  reapWhenGone(child.pid!, launcher ?? server);
  let said = "";
  const origin = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the foreign server did not say where it listens within 10 s: ${said}`)), 10_000);
    const read = (chunk: Buffer) => {
      said += chunk.toString();
      const m = /listening on (http:\/\/[\d.]+:\d+)/.exec(said);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    child.stdout!.on("data", read);
    child.stderr!.on("data", read);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the foreign server exited with ${code}: ${said}`));
    });
  });
  return {
    origin, baseUrl: `${origin}/api`, child,
    close: () => new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.kill("SIGKILL");
    }),
  };
}
