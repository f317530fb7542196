/**
 * `npm run mock` (`api-mock` when installed): Prism 5.14.2 on generated/openapi.json, serving the contract's examples (stateless).
 * `npm run mock:dynamic`: generated data instead, seeded, with no invented extra properties.
 * MOCK_PORT (default 4011), MOCK_HOST (default 127.0.0.1), MOCK_SEED (dynamic mode, default 1).
 * The base URL is http://127.0.0.1:4011/api, as the service's: only the host changes between mock, sandbox and
 * production (server/mock/front.ts forwards to Prism on an internal port; the root paths keep working too).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import { connect, createServer } from "node:net";
import { assetPath } from "../../lib/assets.ts";
import { startFront } from "./front.ts";
import { stopWhenNpmParentExits } from "../src/parent-watch.ts";

const dynamic = process.argv.includes("--dynamic");
const port = process.env.MOCK_PORT ?? "4011";
const host = process.env.MOCK_HOST ?? "127.0.0.1";
if (!/^\d+$/.test(port)) {
  console.error(`MOCK_PORT must be a port number, got "${port}"`);
  process.exit(2);
}
/** A port free now; another process may take it before Prism binds it (startPrism then tries another). */
const freeInternalPort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const p = (probe.address() as { port: number }).port;
      probe.close(() => resolve(p));
    });
  });
// Resolved, not a fixed path: installed as a package, Prism sits in the consumer's node_modules.
const prismCli = createRequire(import.meta.url).resolve("@stoplight/prism-cli/dist/index.js");

/** Whether Prism accepts connections on `port` before it exits (it exits at once when the port was taken). */
function listening(prism: ChildProcess, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const gone = () => resolve(false);
    prism.once("exit", gone);
    const poll = () => {
      const socket = connect(port, "127.0.0.1");
      socket.once("connect", () => {
        socket.destroy();
        prism.off("exit", gone);
        resolve(true);
      });
      socket.once("error", () => {
        socket.destroy();
        if (prism.exitCode === null && prism.signalCode === null) setTimeout(poll, 100);
      });
    };
    poll();
  });
}

/**
 * Prism on an internal port. Between finding a free port and Prism binding it, another process can take it (a
 * machine busy with outgoing connections hands ephemeral ports out fast): Prism then exits, and starts again on
 * another port, up to three times.
 */
let current: ChildProcess | undefined;
let stopping = false;
// Prism lives and dies with this process, from its first start: a signal is passed on (and ends the start-up), and
// whatever ends this process ends Prism too.
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  process.on(signal, () => {
    stopping = true;
    if (current && current.exitCode === null && current.signalCode === null) current.kill(signal);
    else process.exit(0);
  });
}
// `kill <npx pid>` reaches npm's shell, not this process: its exit is the signal.
stopWhenNpmParentExits(() => {
  stopping = true;
  current?.kill("SIGTERM");
});
process.on("exit", () => current?.kill("SIGKILL"));

async function startPrism(): Promise<{ prism: ChildProcess; internalPort: number }> {
  for (let attempt = 1; ; attempt++) {
    const internalPort = await freeInternalPort();
    // In one process (Prism forks a worker when NODE_ENV=production, which a signal to us would not reach).
    const args = [prismCli, "mock", "-p", String(internalPort), "-h", "127.0.0.1", "--multiprocess=false", assetPath("generated/openapi.json")];
    if (dynamic) args.push("--dynamic", "--seed", process.env.MOCK_SEED ?? "1", "--json-schema-faker-fillProperties=false");
    if (process.env.MOCK_QUIET === "1") args.push("-v", "silent");
    const prism = spawn(process.execPath, args, { stdio: ["ignore", "inherit", "inherit"] });
    current = prism;
    const up = await listening(prism, internalPort);
    if (stopping) process.exit(0);
    if (up) return { prism, internalPort };
    if (attempt === 3) {
      console.error("Prism exited before it listened, three times");
      process.exit(1);
    }
  }
}

const { prism, internalPort } = await startPrism();
try {
  await startFront({ host, port: Number(port), prismPort: internalPort });
} catch (err) {
  console.error(`Cannot listen on ${host}:${port}: ${(err as Error).message}`);
  prism.kill("SIGTERM");
  process.exit(1);
}
console.error(`Prism mock (${dynamic ? "dynamic" : "examples"}) on http://${host}:${port}/api (the root paths /v1/... work too)`);
prism.on("exit", (code, signal) => process.exit(code ?? (signal ? 0 : 1)));
if (prism.exitCode !== null || prism.signalCode !== null) process.exit(prism.exitCode ?? 0);
