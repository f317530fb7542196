/**
 * The compose file's proxy without Docker: Debian's nginx with deploy/nginx.conf, its upstream names and listen port
 * pointed at local ports, in a temporary prefix; stopped (and removed) at the end.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, reapWhenGone } from "./processes.ts";
import { sleep } from "../../../test/support/wait.ts";

export interface Proxy {
  port: number;
  base: string;
  /** nginx's error log so far (its upstream errors: a 502's cause), for a failed check's message. */
  errors(): string;
  stop(): Promise<void>;
}

/** `upstreams`: compose service name -> local port. */
export async function startNginx(confFile: string, upstreams: Record<string, number>): Promise<Proxy> {
  const bin = ["/usr/sbin/nginx", "/usr/bin/nginx"].find((b) => existsSync(b));
  if (!bin) throw new Error("nginx is not installed: run `bash scripts/deploy/install-postgresql.sh` (as root, with apt-get)");
  const port = await freePort();
  let conf = readFileSync(confFile, "utf8");
  for (const [name, p] of Object.entries(upstreams)) {
    const before = conf;
    conf = conf.replace(new RegExp(`server ${name}:\\d+`, "g"), `server 127.0.0.1:${p}`);
    if (conf === before) throw new Error(`${confFile} names no upstream ${name}`);
  }
  if (!/listen 80;/.test(conf)) throw new Error(`${confFile} does not listen on port 80 as the compose file maps it`);
  conf = conf.replace("listen 80;", `listen 127.0.0.1:${port};`);
  const dir = mkdtempSync(join(tmpdir(), "nginx-"));
  writeFileSync(join(dir, "nginx.conf"), conf);
  const child: ChildProcess = spawn(bin, ["-p", dir, "-c", join(dir, "nginx.conf"), "-e", "stderr", "-g", `daemon off; pid ${join(dir, "nginx.pid")};`], { stdio: ["ignore", "ignore", "pipe"] });
  let err = "";
  child.stderr!.on("data", (d) => (err += d));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  process.once("exit", () => child.kill("SIGKILL"));
  reapWhenGone(child.pid!, dir);
  // Ready when it accepts connections.
  const until = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`nginx exited: ${err}`);
    try {
      await fetch(`http://127.0.0.1:${port}/healthz`);
      break;
    } catch {
      if (Date.now() > until) throw new Error(`nginx not listening: ${err}`);
      await sleep(100);
    }
  }
  return {
    port,
    base: `http://127.0.0.1:${port}/api`,
    errors: () => err,
    async stop() {
      if (child.exitCode === null) {
        child.kill("SIGQUIT");
        await Promise.race([exited, sleep(3_000)]);
        if (child.exitCode === null) child.kill("SIGKILL");
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
