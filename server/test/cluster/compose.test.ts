/**
 * compose.yaml without Docker (our machines have no Docker daemon): each service it names, started as the image
 * would start it. PostgreSQL from Debian's package, the replicas as the built package's command with the compose
 * environment (host names pointed at local ports), and nginx with the compose file's deploy/nginx.conf. Then the
 * conformance suite runs through the proxy, and the proxy keeps answering when a replica is killed.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACME, GLOBEX, call, ok } from "./client.ts";
import { startNginx, type Proxy } from "./nginx.ts";
import { startPostgres, type Postgres } from "./postgres.ts";
import { failedChecks } from "./conformance-report.ts";
import { BUILT, ROOT, freePort, startSandbox, stopSandbox, type Sandbox } from "./processes.ts";

interface Service {
  image?: string;
  build?: string;
  environment?: Record<string, string>;
  command?: string[];
  volumes?: string[];
  ports?: string[];
  depends_on?: Record<string, { condition: string }>;
}

const compose = parse(readFileSync(join(ROOT, "compose.yaml"), "utf8")) as { services: Record<string, Service> };
const dockerfile = readFileSync(join(ROOT, "Dockerfile"), "utf8");
const sandboxes = Object.entries(compose.services).filter(([, s]) => s.build === ".");
/**
 * The test's own setting: retries in seconds, not minutes, so the conformance suite's retry checks finish. Seconds, not
 * half-seconds: the suite accepts a retry late by half its delay, at least 1 s (more when it measured the service slow),
 * and under CI's load a replica's retry after a 500 ms delay came 2.1 s late, 89 ms past what it measured (the CI of
 * 06ebc8d); at 3 s the slack is 1.5 s before any measured slowness, as at the seed's own 10 s it is 5 s.
 */
const RETRIES = "3000,4000,5000";

let db: Postgres;
let proxy: Proxy;
const replicas = new Map<string, Sandbox>();

beforeAll(async () => {
  // What the image runs is the packed package's bundle (the Dockerfile's build stage packs exactly this): the layer's
  // global setup (test/support/built-packages.ts) has built it from the sources as they stand.
  db = await startPostgres();
  const pgEnv = compose.services.postgres.environment!;
  const url = db.database(pgEnv.POSTGRES_DB);
  for (const [name, service] of sandboxes) {
    const env = { ...service.environment! };
    const dbUrl = new URL(env.DATABASE_URL);
    expect(dbUrl.hostname).toBe("postgres");
    expect(dbUrl.username).toBe(pgEnv.POSTGRES_USER);
    expect(dbUrl.pathname).toBe(`/${pgEnv.POSTGRES_DB}`);
    env.DATABASE_URL = url.replace("sandbox@", `${dbUrl.username}:${dbUrl.password}@`);
    env.HOST = "127.0.0.1";
    const port = await freePort();
    env.PORT = String(port);
    replicas.set(name, await startSandbox({ ...env, LOG_LEVEL: "warn", WEBHOOK_RETRY_DELAYS_MS: RETRIES }, port, 60_000, BUILT));
  }
  const volume = compose.services.proxy.volumes!.find((v) => v.endsWith(":/etc/nginx/nginx.conf:ro"))!;
  proxy = await startNginx(join(ROOT, volume.split(":")[0]), Object.fromEntries([...replicas].map(([name, s]) => [name, s.port])));
}, 180_000);

afterAll(async () => {
  await proxy?.stop();
  await Promise.all([...replicas.values()].map((s) => stopSandbox(s, "SIGKILL")));
  db?.stop();
});

describe("the compose file, started without Docker", () => {
  it("names PostgreSQL, two sandbox replicas on it waiting for it, and a proxy publishing port 4010", () => {
    expect(compose.services.postgres.image).toMatch(/^postgres:/);
    expect(sandboxes.map(([name]) => name)).toEqual(["sandbox-1", "sandbox-2"]);
    for (const [, s] of sandboxes) {
      expect(s.depends_on?.postgres?.condition).toBe("service_healthy");
      expect(s.environment?.DATABASE_URL).toMatch(/^postgres:\/\//);
      // Scaled to ten replicas, each one's pool and its two listening connections fit PostgreSQL's default limit
      // (100, less 3 kept for superusers), and no PostgreSQL setting in the file says otherwise.
      expect(10 * (Number(s.environment?.DATABASE_POOL_SIZE) + 2)).toBeLessThanOrEqual(97);
    }
    expect(JSON.stringify(compose.services.postgres)).not.toMatch(/max_connections/);
    expect(compose.services.proxy.ports).toEqual(["4010:80"]);
    expect(Object.keys(compose.services.proxy.depends_on ?? {})).toEqual(["sandbox-1", "sandbox-2"]);
  });

  it("has a multi-stage Dockerfile whose image holds the packed package only and runs as a user other than root", () => {
    const stages = dockerfile.match(/^FROM .+$/gm) ?? [];
    expect(stages.length).toBeGreaterThanOrEqual(2);
    const final = dockerfile.slice(dockerfile.lastIndexOf("\nFROM "));
    // The run stage copies nothing from the build context, only the packed tarball from the build stage.
    expect(final.match(/^COPY .+$/gm)).toEqual(["COPY --from=build /pkg/ /tmp/pkg/"]);
    expect(final).toMatch(/^RUN npm install -g --omit=dev .*\/tmp\/pkg\/\*\.tgz/m);
    expect(final).toMatch(/^USER node$/m);
    expect(final).toMatch(/^ENTRYPOINT \["api-sandbox"\]$/m);
    expect(final).toMatch(/^HEALTHCHECK .*\/healthz/m);
    expect(dockerfile).toMatch(/npm pack -w server/);
  });

  it("answers /healthz and /readyz through the proxy, outside /api, without a key", async () => {
    const origin = `http://127.0.0.1:${proxy.port}`;
    expect(await ok(origin, "/healthz")).toEqual({ status: "ok" });
    expect(await ok(origin, "/readyz")).toEqual({ status: "ready", store: "postgres" });
    expect((await call(origin, "/readyz", { method: "POST" })).status).toBe(405);
  });

  it("passes the conformance suite through the proxy (--sim), each request going to either replica", async () => {
    const reportFile = join(mkdtempSync(join(tmpdir(), "conformance-")), "report.json");
    const args = [
      "--import", "tsx", join(ROOT, "conformance/cli.ts"),
      "--base-url", proxy.base,
      "--api-key", ACME, "--other-key", GLOBEX, "--public-key", "pk_live_acme_0123456789abcdef0123456789abcdef",
      "--sim", "--webhook-retry-delays-ms", RETRIES, "--seed", "42", "--allow-untested", "--report", "json", reportFile,
    ];
    const out = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (d) => (stdout += d));
      child.stderr.on("data", (d) => (stderr += d));
      child.on("exit", (code) => resolve({ code, stdout, stderr }));
    });
    expect(existsSync(reportFile), out.stdout.slice(-4_000) + out.stderr.slice(-2_000)).toBe(true);
    // Each failed check carries its failures' rules and messages (the run's output holds them among thousands of lines).
    const report = failedChecks(reportFile);
    expect(report.failed, `${out.stdout.slice(-3_000)}\nnginx's error log (its end):\n${proxy.errors().slice(-2_000)}`).toEqual([]);
    expect(report.passed).toBeGreaterThan(10);
    expect(out.code).toBe(0);
  }, 360_000);

  it("keeps answering through the proxy when a replica is killed with -9", async () => {
    const first = replicas.get("sandbox-1")!;
    await stopSandbox(first, "SIGKILL");
    for (let i = 0; i < 20; i++) expect((await call(proxy.base, "/v1/studies?limit=1", { key: ACME })).status).toBe(200);
    const made = await ok(proxy.base, "/_sim/projects", { key: ACME, method: "POST", body: { name: "after a kill" } }, 201);
    expect((await call(proxy.base, "/v1/studies", { key: made.api_key })).status).toBe(200);
  });
});
