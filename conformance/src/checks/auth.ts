/**
 * auth: every operation answers 401 to a missing header, another scheme, an empty bearer, an unknown key, a
 * wrong prefix, a key with trailing garbage, a second word after the key and text before the scheme; and 401 wins over
 * 400 and 404, for every operation with every parameter it declares invalid (and its body, and its id), with no key and
 * with an unknown one; a HEAD of every GET is never answered without a key; and the 401 for a key one character from a
 * real one tells nothing the 401 for a key of nothing does not.
 */
import { randomInt } from "node:crypto";
import type { Check } from "../check.ts";
import type { Contract, Operation } from "../contract.ts";
import { NEVER_ID } from "../data.ts";
import { askedAsNothing } from "../judge/tells-more.ts";
import { contract, rules, seed, type Rule } from "../rules.ts";
import { OPERATION_CAPABILITY } from "../states/capabilities.ts";

const r = rules("auth", {
  "401": seed("Authentication 1, 4", "a missing or invalid API key gets 401 on every endpoint", ["auth.bearer", "auth.key-prefix", "auth.401", "errors.401", "endpoints.authorization"]),
  first: seed("Authentication 4: every endpoint returns 401", "401 wins over 400 and 404: no unauthenticated caller learns whether a parameter or id is valid", ["auth.401"]),
  "public-key-limited": seed("Authentication 7: the public SDK key is limited to loading triggers and launching interviews", "the public SDK key, sent as the bearer, gets 401 on every REST endpoint", ["auth.public-key"]),
  "public-key": contract("participant endpoints: X-Public-Key", "participant endpoints refuse a missing, unknown or project API key with 401"),
  // However the public key travels (Authentication 8: not shown), a request that carries no key anywhere is missing it.
  // A caller without a valid key learns nothing of which keys (or projects) exist.
  "tells-nothing": seed("Authentication 4: when the key is missing or invalid, every endpoint returns 401; Authentication 3", "the 401 for a key one character away from a real one is the 401 for a key of nothing: the same status and body, the key itself and whatever two keys of nothing are answered differently in (a request id, say) aside", ["auth.401", "auth.scope", "errors.401"]),
  "participant-missing": seed("Authentication 4: when the key is missing, every endpoint returns 401", "a participant endpoint asked with no key at all (no Authorization, no X-Public-Key, no query parameter) answers 401", ["auth.401", "auth.public-key", "errors.401"]),
});

/** `path?query` with every query parameter `op` declares set to a value its schema refuses (a plain string has none). */
function invalidQuery(contract: Contract, op: Operation): string {
  const parts: string[] = [];
  for (const { name, schema: s } of contract.queryParameters(op)) {
    const value = s?.type === "integer" ? "abc" : s?.format === "uuid" ? "not-a-uuid" : Array.isArray(s?.enum) ? "not-a-value" : undefined;
    if (value) parts.push(`${name}=${value}`);
  }
  return parts.join("&");
}

/**
 * A key like `key` with its last character changed (its form kept), and keys of nothing of its very form: each
 * character after the prefix drawn from its own class (a digit, a hex letter, another letter, in its case), so that a
 * 401 that tells a well-formed key from a malformed one (which tells only the form) is not taken for one that tells
 * which keys exist.
 */
function nearKeys(key: string, prefix: string): { near: string; nothing: () => string } {
  const last = key.at(-1)!;
  const near = key.slice(0, -1) + (last === "a" ? "b" : /[a-f]/.test(last) ? "a" : last === "g" ? "h" : /[a-z]/.test(last) ? "g" : last === "A" ? "B" : /[A-Z]/.test(last) ? "A" : last === "0" ? "1" : "0");
  const pick = (set: string) => set[randomInt(set.length)];
  const CLASSES = ["0123456789", "abcdef", "ghijklmnopqrstuvwxyz", "ABCDEF", "GHIJKLMNOPQRSTUVWXYZ"];
  const nothing = () => prefix + [...key.slice(prefix.length)].map((c) => { const set = CLASSES.find((s) => s.includes(c)); return set ? pick(set) : c; }).join("");
  return { near, nothing };
}

export const authCheck: Check = {
  name: "auth",
  description: "missing, malformed and unknown keys get 401 on every operation, before any 400 or 404",
  rules: r,
  async run(ctx) {
    const key = ctx.options.apiKey;
    const prefix = key.match(/^[a-z]+_[a-z]+_/)?.[0] ?? "svc_live_";
    const bad: Array<[string, Record<string, string>]> = [
      ["no Authorization header", {}],
      ["another scheme", { authorization: `Basic ${Buffer.from(`${key}:`).toString("base64")}` }],
      // The key itself under a scheme that is not Bearer, or under none: the Bearer key is still missing.
      ["the key under the Token scheme", { authorization: `Token ${key}` }],
      ["the key with no scheme", { authorization: key }],
      ["empty bearer", { authorization: "Bearer " }],
      ["unknown key", { authorization: `Bearer ${prefix}nobody_0123456789abcdef0123456789abcdef` }],
      ["wrong prefix", { authorization: `Bearer ${key.replace(/^[a-z]+_[a-z]+_/, "svc_test_")}` }],
      ["trailing garbage", { authorization: `Bearer ${key}x` }],
      // Keys near the valid one: cut short by a character, and in another case (a key is compared exactly).
      ["the key cut short", { authorization: `Bearer ${key.slice(0, -1)}` }],
      ["the key in another case", { authorization: `Bearer ${key === key.toUpperCase() ? key.toLowerCase() : key.toUpperCase()}` }],
      // The key whole but not alone: a second word after it, or text before the scheme. A server that finds the key
      // somewhere in the header, rather than reading the header as "Bearer <key>", lets these in.
      ["a second word after the key", { authorization: `Bearer ${key} ${key}` }],
      ["text before the scheme", { authorization: `Token Bearer ${key}` }],
      // The key valid but not in the Authorization header: the seed's only place for it, so the key is missing.
      ["the key in an X-API-Key header", { "x-api-key": key }],
    ];
    // ... or in the query string, under the names servers commonly read it from.
    const inQuery = ["api_key", "access_token", "key"].map((name) => [`the key as the query parameter ${name}`, `${name}=${encodeURIComponent(key)}`] as const);
    // The simulation operations are asked about only when the run plants through them and the target offers their
    // capability (found at the start, without side effects); the sandbox's own tooling never is. Their bodies are
    // invalid ([] where an object is declared), so even a server that ignored the key could create nothing.
    const viaSim = !ctx.options.states;
    const asked = ctx.contract.operations.filter((o) => o.tag !== "Simulation" || (viaSim && !o.tooling && OPERATION_CAPABILITY[o.operationId] && ctx.states.sure(OPERATION_CAPABILITY[o.operationId])));
    for (const op of asked) {
      const path = op.path.replace("{id}", NEVER_ID);
      const isPublic = op.auth === "public";
      // Each request with the rule its 401 is judged under: the public key's transport is our contract's, its absence the seed's.
      const variants: Array<[string, Record<string, string>, Rule]> = isPublic
        ? [["no public key", {}, r["participant-missing"]], ["unknown public key", { "x-public-key": "pk_live_nobody" }, r["public-key"]], ["API key as public key", { "x-public-key": key }, r["public-key"]]]
        : bad.map(([name, headers]) => [name, headers, r["401"]]);
      const body = op.op.requestBody ? (op.tag === "Simulation" ? [] : {}) : undefined;
      for (const [name, headers, rule] of variants) {
        const reply = await ctx.http.req(path, { method: op.method, key: null, headers, body });
        ctx.expect(rule, reply.status === 401, `${op.method} ${op.path} with ${name} answered ${reply.status}, not 401`, reply);
        ctx.conforms(reply, `${op.method} ${op.path} (${name})`);
      }
      for (const [name, query] of isPublic ? [] : inQuery) {
        const reply = await ctx.http.req(`${path}${path.includes("?") ? "&" : "?"}${query}`, { method: op.method, key: null, body });
        ctx.expect(r["401"], reply.status === 401, `${op.method} ${op.path} with no Authorization header and ${name} answered ${reply.status}, not 401`, reply);
      }
    }
    // The public SDK key opens the participant endpoints only: as a bearer it is refused everywhere else.
    if (ctx.options.publicKey) {
      for (const op of ctx.contract.operations.filter((o) => o.auth === "project" && o.tag !== "Simulation")) {
        const reply = await ctx.http.req(op.path.replace("{id}", NEVER_ID), { method: op.method, key: ctx.options.publicKey, body: op.op.requestBody ? { url: "https://hooks.example.com/pk", events: ["interview.completed"] } : undefined });
        ctx.expect(r["public-key-limited"], reply.status === 401, `${op.method} ${op.path} with the public SDK key as the bearer answered ${reply.status}, not 401`, reply);
      }
    }
    for (const path of ["/v1/studies?limit=0", `/v1/interviews/${NEVER_ID}`, "/v1/chats/not-a-uuid/messages?limit=500", "/v1/interviews?status=1&limit=abc"]) {
      const reply = await ctx.http.req(path, { key: null });
      ctx.expect(r.first, reply.status === 401, `GET ${path} without a key answered ${reply.status}: 401 must win over 400 and 404`, reply);
    }
    // Every operation, every parameter it declares set invalid at once, its id not a UUID and of nothing, its body
    // missing what it requires: with no key, and with a key of nothing, 401 still wins (a server that judges some of
    // them before the key tells an unauthenticated caller what is valid).
    const unknownKey = `${prefix}nobody_0123456789abcdef0123456789abcdef`;
    for (const op of ctx.contract.operations.filter((o) => o.tag !== "Simulation" && o.auth === "project")) {
      const query = invalidQuery(ctx.contract, op);
      for (const id of op.path.includes("{id}") ? [NEVER_ID, "not-a-uuid"] : [""]) {
        const path = `${op.path.replace("{id}", id)}${query ? `?${query}` : ""}`;
        for (const [who, init] of [["without a key", { key: null }], ["with a key of nothing", { key: unknownKey }]] as const) {
          const reply = await ctx.http.req(path, { method: op.method, ...init, body: op.op.requestBody ? {} : undefined });
          ctx.expect(r.first, reply.status === 401, `${op.method} ${path}${op.op.requestBody ? " with the body {}" : ""} ${who} answered ${reply.status}: 401 must win over 400 and 404`, reply);
        }
      }
    }
    // A HEAD is its GET without the body: answered without a key, it tells what the GET would (refused, or not
    // offered, either is right).
    for (const op of ctx.contract.operations.filter((o) => o.method === "GET" && o.tag !== "Simulation")) {
      const path = op.path.replace("{id}", NEVER_ID);
      const reply = await ctx.http.req(path, { method: "HEAD", key: null });
      ctx.expect(op.auth === "public" ? r["participant-missing"] : r["401"], reply.status >= 400 && reply.status < 500, `HEAD ${op.path} without a key answered ${reply.status}: a HEAD is its GET, which needs the key (401, or a 404 or 405 where HEAD is not offered)`, reply);
    }
    // A key one character from the real one, and keys of nothing of the same form: the 401s alike, the keys aside.
    const { near, nothing } = nearKeys(key, prefix);
    for (const path of ["/v1/studies", `/v1/studies/${NEVER_ID}`]) {
      const { reply, none, told } = await askedAsNothing((k) => ctx.http.req(path, { key: k }), near, [nothing(), nothing()]);
      ctx.expect(r["tells-nothing"], !told, `GET ${path} with a key one character from the run's key tells what a key of nothing does not: ${told}`, reply, { near: reply.text.slice(0, 300), nothing: none.text.slice(0, 300) });
    }
  },
};
