/**
 * `api-sandbox`: the command of the sandbox package.
 * - `api-sandbox [start]` runs the reference server on the embedded fixtures, as `npm start` does in the repository.
 * - `trigger`, `listen`, `deliveries` and `faults` are a client team's daily loop against a sandbox, local or remote
 *   (`--base-url`, `--api-key`): trigger a webhook, forward deliveries to a laptop, replay them, inject faults.
 */
import { Command, InvalidArgumentError, Option } from "commander";
import { listDeliveries, resendDelivery } from "./cli/deliveries.ts";
import { stopWhenNpmParentExits } from "./parent-watch.ts";
import { faults, type FaultFlags } from "./cli/faults.ts";
import { listen } from "./cli/listen.ts";
import { CliError, LOCAL_BASE, remote } from "./cli/remote.ts";
import { trigger } from "./cli/trigger.ts";
import { DEFAULT_DATABASE_POOL_SIZE, TENANT_LIMIT_ENV } from "./config.ts";
import { DEFAULT_TENANT_LIMITS, type TenantLimits } from "./model/tenant-limits.ts";

const port = (v: string) => {
  if (!/^\d+$/.test(v) || Number(v) > 65535) throw new InvalidArgumentError("must be a port number (0-65535)");
  return v;
};
const whole = (v: string) => {
  if (!/^\d+$/.test(v)) throw new InvalidArgumentError("must be a whole number");
  return Number(v);
};
const fraction = (v: string) => {
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0 || n > 1) throw new InvalidArgumentError("must be a number from 0 to 1");
  return n;
};
const positive = (v: string) => {
  if (!/^[1-9]\d*$/.test(v)) throw new InvalidArgumentError("must be a whole number of at least 1");
  return Number(v);
};
/** The per-tenant limits as `start` options (server/README.md, "Limits"). */
const TENANT_LIMIT_FLAGS: Array<[keyof TenantLimits, string, string]> = [
  ["projects", "max-projects", "projects one organisation may create"],
  ["planted", "max-planted", "simulated studies, interviews, chats and messages one organisation may plant"],
  ["eventsKept", "events-kept", "webhook events kept per organisation for resends and lookups"],
  ["attemptsKept", "attempts-kept", "webhook attempts each project's deliveries list keeps (past them, the oldest finished are forgotten)"],
  ["streams", "max-streams", "open event streams per organisation"],
  ["streamsPerAddress", "max-streams-per-address", "open event streams per source address"],
  ["held", "max-held", "requests held by a delay per organisation"],
  ["heldPerAddress", "max-held-per-address", "requests held by a delay per source address"],
  ["streamBufferBytes", "stream-buffer-bytes", "unread bytes a stream may buffer before its listener is dropped"],
  ["deliveriesPerTenant", "max-deliveries-per-tenant", "webhook attempts on the wire at once per organisation"],
  ["requestSlots", "max-active-requests", "API requests one process works on at once (past it, each organisation waits in its own queue)"],
  ["queuedPerTenant", "max-queued-per-tenant", "API requests one organisation may have waiting for this process (past it, 429)"],
];
const list = (v: string) => v.split(",").map((s) => s.trim()).filter(Boolean);

/** The options every client-team command shares. */
const withRemote = (cmd: Command) =>
  cmd
    .option("--base-url <url>", `the sandbox, up to and including /api (env SANDBOX_BASE_URL, default ${LOCAL_BASE})`)
    .option("--api-key <key>", "a project API key of that sandbox (env SANDBOX_API_KEY; the Acme fixture key on the local default)");

/** Runs a command's action and turns its result into the exit code; a CliError is one clear line. */
const run = (fn: (...args: any[]) => Promise<number>) => async (...args: any[]) => {
  try {
    process.exitCode = await fn(...args);
  } catch (err) {
    if (!(err instanceof CliError)) throw err;
    console.error(`api-sandbox: ${err.message}`);
    process.exitCode = err.exitCode;
  }
};

const program = new Command("api-sandbox")
  .description("The Project Data API sandbox: the reference server over embedded fixtures, and a client team's tools against any sandbox")
  .showHelpAfterError();

const start = program
  .command("start", { isDefault: true })
  .description("run the reference server (base URL http://HOST:PORT/api)")
  .option("--port <port>", "port to listen on (env PORT, default 4010)", port)
  .option("--host <host>", "address to listen on (env HOST, default 127.0.0.1)")
  .option("--cors-origin <origins>", "origins a browser app may call from: * (env CORS_ORIGIN, the default), none, or a comma-separated list")
  .option("--data-dir <dir>", "keep projects, webhooks, planted data, faults, events and pending deliveries in DIR across restarts (env SANDBOX_DATA_DIR; default: memory only)")
  .option("--database-url <url>", "keep the state in PostgreSQL, shared by every sandbox process started with the same URL (env DATABASE_URL; migrated at start-up)")
  .option("--database-pool-size <n>", `pooled PostgreSQL connections per process, plus 2 that listen (env DATABASE_POOL_SIZE, default ${DEFAULT_DATABASE_POOL_SIZE})`, positive);
for (const [key, flag, what] of TENANT_LIMIT_FLAGS) {
  start.option(`--${flag} <n>`, `${what} (env ${TENANT_LIMIT_ENV[key]}, default ${DEFAULT_TENANT_LIMITS[key]})`, positive);
}
// Gone with #61's work-conserving admission: accepted so that scripts passing it still start, and said once.
start.addOption(new Option("--max-active-per-tenant <n>").hideHelp());
start.action(async (o: Record<string, string | number | undefined>) => {
  if (o.maxActivePerTenant !== undefined) console.error("api-sandbox: --max-active-per-tenant no longer has an effect: a team is held to its share only while others wait (--max-active-requests bounds the work)");
  if (o.port !== undefined) process.env.PORT = String(o.port);
  if (o.host !== undefined) process.env.HOST = String(o.host);
  if (o.corsOrigin !== undefined) process.env.CORS_ORIGIN = String(o.corsOrigin);
  if (o.dataDir !== undefined) process.env.SANDBOX_DATA_DIR = String(o.dataDir);
  if (o.databaseUrl !== undefined) process.env.DATABASE_URL = String(o.databaseUrl);
  if (o.databasePoolSize !== undefined) process.env.DATABASE_POOL_SIZE = String(o.databasePoolSize);
  for (const [key, flag] of TENANT_LIMIT_FLAGS) {
    const value = o[flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())];
    if (value !== undefined) process.env[TENANT_LIMIT_ENV[key]] = String(value);
  }
  await import("./main.ts");
});

withRemote(program.command("trigger <event>"))
  .description("create a simulated interview and wait until it reached your endpoint (the webhook or a listener); exit 0 acknowledged, 3 nothing to receive it, 4 refused, 5 timeout, 6 sandbox unreachable")
  .option("--study <id>", "study to run it in (default: the first accepting responses)")
  .option("--reference-id <id>", "reference_id, as if passed on the interview link")
  .option("--language <code>", "language code")
  .option("--wait <seconds>", "how long to wait for an acknowledgement", whole, 30)
  .action(run((event: string, o) => trigger(event, o)));

withRemote(program.command("listen"))
  .description("forward every webhook event of the project, signed with its listener secret, from the sandbox's stream to a local URL; works with no webhook configured, and resumes without loss after a restart")
  .option("--forward-to <url>", "your local endpoint, e.g. http://localhost:3000/webhooks (http or https)")
  .option("--print-secret", "print the listener signing secret and exit")
  .option("--max-events <n>", "stop after forwarding n events", whole)
  .option("--state-file <file>", "where the last forwarded event id is kept (default: your config directory; env API_SANDBOX_CONFIG_DIR)")
  .action(run((o) => {
    const stop = new AbortController();
    // A first Ctrl-C stops cleanly; a second one kills at once.
    const onSignal = () => (stop.signal.aborted ? process.exit(130) : stop.abort());
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
    stopWhenNpmParentExits(() => stop.abort());
    return listen(o, stop.signal);
  }));

const deliveries = program.command("deliveries").description("what reached your endpoint: webhook attempts and listener forwards");
withRemote(deliveries.command("list"))
  .description("list webhook delivery attempts and listener forwards, oldest first")
  .option("--interview <id>", "only those of this interview")
  .option("--limit <n>", "how many (1-100)", whole, 100)
  .option("--json", "print JSON")
  .action(run((o) => listDeliveries(o)));
withRemote(deliveries.command("resend <id>"))
  .description("send an event again, byte for byte: a delivery's to the configured webhook (logged as its own attempt), a forward's back to the listeners; or either to --forward-to")
  .option("--forward-to <url>", "send it to this URL from this machine instead")
  .action(run((id: string, o) => resendDelivery(id, o)));

const projects = program.command("projects").description("projects on demand: empty, with their own keys");
withRemote(projects.command("create"))
  .description("create an empty project on the sandbox and print its keys (your own isolated data on a shared sandbox)")
  .option("--name <name>", "display name")
  .action(run(async (o: { name?: string; baseUrl?: string; apiKey?: string }) => {
    const made = await remote(o).call("POST", "/_sim/projects", o.name ? { name: o.name } : {});
    console.log(`project ${made.id} (${made.name})\nAPI key     ${made.api_key}\npublic key  ${made.public_key}`);
    return 0;
  }));

withRemote(program.command("faults <action>"))
  .description("show, set or clear the project's faults: set replaces the settings; fields not given take their defaults")
  .option("--rate <0..1>", "share of /v1 requests that fail", fraction)
  .option("--kinds <list>", "faults the rate draws from: 500,503,reset,timeout", list)
  .option("--operations <list>", "operation ids to apply to (default every /v1 operation)", list)
  .option("--latency <ms>", "added latency", whole)
  .option("--jitter <ms>", "extra latency drawn from 0 to this", whole)
  .option("--fail-next <n>", "the next n requests fail", whole)
  .addOption(new Option("--fail-next-kind <kind>", "their fault").choices(["500", "503", "reset", "timeout"]))
  .option("--webhook-failures <n>", "the next n webhook attempts count as failed by your endpoint", whole)
  .option("--webhook-failure-status <status>", "the status they fail with", whole)
  .option("--seed <n>", "seed of the draws", whole)
  .action(run((action: string, o: FaultFlags) => {
    if (!["show", "set", "clear"].includes(action)) throw new CliError(`faults takes show, set or clear, not "${action}"`);
    return faults(action as "show" | "set" | "clear", o);
  }));

await program.parseAsync();
