// The part of autocannon's programmatic API the ingest benchmark uses (it ships no types).
declare module 'autocannon' {
  interface Histogram {
    average: number;
    p99: number;
  }
  interface Result {
    /** `total`: the requests answered. */
    requests: Histogram & { total: number };
    latency: Histogram;
    non2xx: number;
    errors: number;
    timeouts: number;
  }
  interface Options {
    url: string;
    connections?: number;
    duration?: number;
    method?: string;
    headers?: Record<string, string>;
    requests?: Array<{ setupRequest?: (request: any) => any }>;
  }
  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}
