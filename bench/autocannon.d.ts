// autocannon ships no types; this covers the part the benchmarks use.
declare module "autocannon" {
  interface Histogram { average: number; p50: number; p99: number }
  // requests.total: every request answered in the run (the histogram of requests per second sums to it).
  interface Result { requests: Histogram & { total: number }; latency: Histogram; throughput: Histogram; non2xx: number }
  interface Options { url: string; method?: string; body?: string; headers?: Record<string, string>; connections?: number; duration?: number; pipelining?: number; workers?: number }
  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}
