/**
 * The seed's deprecation of GET /v1/experiments, judged on one response: it carries Deprecation and a Sunset HTTP-date
 * of July 1, 2026 (and our contract's successor Link) on every response, errors included; the endpoints beside it
 * announce no end. Used by the deprecated check and by the proxy on every response that passes through it.
 */
import type { Verdict } from "./truncation.ts";
import { contract, rules, seed } from "../rules.ts";

const HTTP_DATE = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;

export const deprecationRules = rules("deprecated", {
  headers: seed("Versioning 3", "every response of GET /v1/experiments, errors included, carries Deprecation and a Sunset HTTP-date", ["versioning.deprecated", "endpoints.experiments"]),
  sunset: seed("Versioning 3: removed after July 1, 2026", "Sunset is July 1, 2026", ["versioning.deprecated"]),
  answers: seed("Endpoints: GET /v1/experiments", "GET /v1/experiments with a valid key answers 200, or, once removed (after July 1, 2026), 404 or 410; never a 5xx or another status", ["endpoints.experiments", "errors.200"]),
  removed: seed("Versioning 3: it is removed after July 1, 2026", "GET /v1/experiments is removed only after July 1, 2026 (until then a 404 or 410 with a valid key is no removal), and once removed it is gone for every request: no request to it answers 200", ["versioning.deprecated", "endpoints.experiments"]),
  "only-deprecated": seed("Versioning 3: GET /v1/experiments is deprecated and GET /v1/studies replaces it", "only the deprecated endpoint announces its end: the endpoints that replace and stand beside it (studies, interviews, releases, chats, webhooks) carry no Deprecation or Sunset header on any response, errors included", ["versioning.deprecated"]),
  link: contract("deprecated endpoint", "every response carries Link: </api/v1/studies>; rel=\"successor-version\""),
});

const r = deprecationRules;

/**
 * The first instant the seed's "removed after July 1, 2026" allows GET /v1/experiments to be gone (UTC: the seed's
 * timestamps are). From then on an implementation that serves it and one that removed it are both right.
 */
export const REMOVABLE_FROM = Date.UTC(2026, 6, 2);

/** The answers that say an endpoint is gone: Not Found, or Gone. */
const goneStatus = (status: number) => status === 404 || status === 410;

/** Whether `status` to GET /v1/experiments with a valid key says the endpoint is removed, as the seed allows at `now`. */
export function removedAnswer(status: number, now = Date.now()): boolean {
  return now >= REMOVABLE_FROM && goneStatus(status);
}

/** Whether `status` to GET /v1/experiments with a valid key is a removal before the seed's day (`now` before it). */
export function removedEarly(status: number, now = Date.now()): boolean {
  return now < REMOVABLE_FROM && goneStatus(status);
}

/** The endpoints that stand beside the deprecated one: none of their responses may announce an end. */
const BESIDE = /^\/v1\/(studies|interviews|releases|chats|webhooks)(\/|$)/;

/**
 * Verdicts on one response's headers (`path` without the query is what decides which rule applies). `removed`: the
 * endpoint is known to be gone (the run read it so, past July 1, 2026); a removed endpoint's answers owe no
 * announcement, and neither does a 404 or 410 from it past that day.
 */
export function deprecationVerdicts(method: string, path: string, status: number, headers: Headers, removed = false): Verdict[] {
  const bare = path.split("?")[0];
  if (method === "GET" && bare === "/v1/experiments") {
    if (removed || removedAnswer(status)) return [];
    const sunset = headers.get("sunset");
    const out: Verdict[] = [
      [r.headers, headers.has("deprecation") && sunset !== null && HTTP_DATE.test(sunset) && !Number.isNaN(Date.parse(sunset)), `GET ${path} (${status}) has Deprecation ${headers.get("deprecation")} and Sunset ${sunset}`],
      [r.link, /<[^>]*\/v1\/studies>;\s*rel="?successor-version"?/.test(headers.get("link") ?? ""), `GET ${path} (${status}) has Link ${headers.get("link")}`],
    ];
    if (status === 200) out.push([r.sunset, sunset !== null && !Number.isNaN(Date.parse(sunset)) && new Date(sunset).toISOString().startsWith("2026-07-0"), `Sunset ${sunset} is not the seed's July 1, 2026`]);
    return out;
  }
  if (!BESIDE.test(bare)) return [];
  const announced = ["deprecation", "sunset"].filter((h) => headers.has(h));
  return [[r["only-deprecated"], announced.length === 0, `${method} ${path} (${status}) carries ${announced.join(" and ")}: only GET /v1/experiments is deprecated (GET /v1/studies replaces it)`]];
}
