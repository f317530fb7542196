/**
 * The contract-checking proxy's cost per exchange (#62: at most 2 ms at the median and 10 ms at p99 on the reference
 * server): the same requests one at a time, straight to the reference server and through the proxy (a process of its
 * own, as `api-conformance proxy` runs), alternating so both meet the same machine; and the proxy's memory after them.
 */
import { spawn } from "node:child_process";
import { freePort, root } from "../test/support/processes.ts";
import { startReference } from "./servers.ts";

const ACME = "svc_live_acme_0123456789abcdef0123456789abcdef";
const auth = { authorization: `Bearer ${ACME}` };

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};

async function timedGet(url: string): Promise<number> {
  const t = performance.now();
  const res = await fetch(url, { headers: auth });
  await res.arrayBuffer();
  return performance.now() - t;
}

export async function proxySection(say: (s?: string) => void, rounds = Number(process.env.ROUNDS ?? 5)): Promise<void> {
  say("## The contract-checking proxy");
  say();
  const ref = await startReference();
  const port = await freePort();
  const child = spawn(process.execPath, ["--import", "tsx", "conformance/cli.ts", "proxy", "--target", ref.baseUrl, "--port", String(port), "--quiet"], { cwd: root, stdio: ["ignore", "ignore", "pipe"] });
  let err = "";
  child.stderr!.on("data", (c) => (err += c));
  const proxy = `http://127.0.0.1:${port}`;
  try {
    for (let i = 0; i < 600; i++) {
      if (await fetch(`${proxy}/v1/studies`).then((r) => r.status === 401, () => false)) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const chats = ((await (await fetch(`${ref.baseUrl}/v1/chats?limit=100`, { headers: auth })).json()) as any).data;
    const studies = ((await (await fetch(`${ref.baseUrl}/v1/studies?limit=100`, { headers: auth })).json()) as any).data;
    // A mix a client makes: lists, details, a chat's messages (the largest bodies, judged message by message).
    const paths = ["/v1/studies", `/v1/studies/${studies[0].id}`, "/v1/chats?limit=50", `/v1/chats/${chats[0].id}`, `/v1/chats/${chats[0].id}/messages?limit=100`, `/v1/interviews?study_id=${studies[0].id}&limit=100`, "/v1/releases", "/v1/experiments"];
    const direct: number[] = [];
    const through: number[] = [];
    for (const p of paths) await timedGet(`${ref.baseUrl}${p}`), await timedGet(`${proxy}${p}`); // warm-up
    for (let r = 0; r < rounds * 40; r++) {
      for (const p of paths) {
        // Alternating which goes first, so neither always meets a warm cache the other left.
        if (r % 2) {
          direct.push(await timedGet(`${ref.baseUrl}${p}`));
          through.push(await timedGet(`${proxy}${p}`));
        } else {
          through.push(await timedGet(`${proxy}${p}`));
          direct.push(await timedGet(`${ref.baseUrl}${p}`));
        }
      }
    }
    const rss = Number(/VmRSS:\s+(\d+) kB/.exec(await import("node:fs").then((fs) => fs.readFileSync(`/proc/${child.pid}/status`, "utf8")))?.[1] ?? 0) / 1024;
    const [d50, t50, d99, t99] = [quantile(direct, 0.5), quantile(through, 0.5), quantile(direct, 0.99), quantile(through, 0.99)];
    say(`${direct.length} requests each way, one at a time, over ${paths.length} endpoints (lists, details, a chat's 100 messages), alternating direct and through the proxy:`);
    say();
    say("| | direct | through the proxy | the proxy's cost | target |");
    say("|---|---|---|---|---|");
    say(`| median | ${d50.toFixed(2)} ms | ${t50.toFixed(2)} ms | ${(t50 - d50).toFixed(2)} ms | ≤ 2 ms |`);
    say(`| p99 | ${d99.toFixed(2)} ms | ${t99.toFixed(2)} ms | ${(t99 - d99).toFixed(2)} ms | ≤ 10 ms |`);
    say();
    say(`The proxy's resident memory after them: ${rss.toFixed(0)} MiB (what it remembers across exchanges is capped: conformance/src/proxy/memory.ts).`);
    say();
  } finally {
    child.kill("SIGTERM");
    await ref.stop();
    if (err.includes("Error")) console.error(err);
  }
}
