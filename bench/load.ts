/** Load generation with autocannon; every figure is the median over rounds measured in one run. */
import autocannon from "autocannon";

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  bytes: number;
}

export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

export async function load(url: string, headers: Record<string, string>, seconds: number, connections = 50): Promise<LoadResult> {
  const r = await autocannon({ url, headers, connections, duration: seconds, pipelining: 1 });
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx,
    bytes: r.throughput.average / Math.max(1, r.requests.average),
  };
}

/** `rounds` rounds, alternating targets inside each round so drift on a shared machine hits all alike. */
export async function compare(targets: Array<{ name: string; url: string; headers: Record<string, string> }>, rounds: number, seconds: number) {
  const results = new Map<string, LoadResult[]>(targets.map((t) => [t.name, []]));
  // A warm-up per target first, not measured: the first seconds under load run while V8 compiles the hot path, and
  // a server with more code (the reference server against the bare ceiling) would pay for it in its first round.
  for (const t of targets) await load(t.url, t.headers, Math.min(2, seconds));
  for (let r = 0; r < rounds; r++) {
    for (const t of targets) results.get(t.name)!.push(await load(t.url, t.headers, seconds));
  }
  return new Map([...results].map(([name, rs]) => [name, {
    rps: median(rs.map((x) => x.rps)),
    p50: median(rs.map((x) => x.p50)),
    p99: median(rs.map((x) => x.p99)),
    non2xx: rs.reduce((n, x) => n + x.non2xx, 0),
    bytes: median(rs.map((x) => x.bytes)),
  }]));
}
