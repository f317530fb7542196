/**
 * auth: every operation answers 401 in the envelope to a missing header, another scheme, an empty bearer, an
 * unknown key, a wrong prefix and a key with trailing garbage; and 401 wins over 400 and 404.
 */
import { conforms, type Check } from "../check.ts";
import { NEVER_ID } from "../data.ts";
import { expectThat } from "../http.ts";

export const authCheck: Check = {
  name: "auth",
  description: "missing, malformed and unknown keys get 401 on every operation, before any 400 or 404",
  async run(ctx) {
    const key = ctx.options.apiKey;
    const prefix = key.match(/^[a-z]+_[a-z]+_/)?.[0] ?? "svc_live_";
    const bad: Array<[string, Record<string, string>]> = [
      ["no Authorization header", {}],
      ["another scheme", { authorization: `Basic ${Buffer.from(`${key}:`).toString("base64")}` }],
      ["empty bearer", { authorization: "Bearer " }],
      ["unknown key", { authorization: `Bearer ${prefix}nobody_0123456789abcdef0123456789abcdef` }],
      ["wrong prefix", { authorization: `Bearer ${key.replace(/^[a-z]+_[a-z]+_/, "svc_test_")}` }],
      ["trailing garbage", { authorization: `Bearer ${key}x` }],
    ];
    // The simulation surface exists only on the reference server; other implementations are not asked about it.
    for (const op of ctx.contract.operations.filter((o) => ctx.options.sim || o.tag !== "Simulation")) {
      const path = op.path.replace("{id}", NEVER_ID);
      const variants: Array<[string, Record<string, string>]> = op.auth === "public"
        ? [["no public key", {}], ["unknown public key", { "x-public-key": "pk_live_nobody" }], ["API key as public key", { "x-public-key": key }]]
        : bad;
      for (const [name, headers] of variants) {
        const reply = await ctx.http.req(path, { method: op.method, key: null, headers, body: op.op.requestBody ? {} : undefined });
        expectThat(reply.status === 401, `${op.method} ${op.path} with ${name} answered ${reply.status}, not 401`, reply);
        conforms(ctx, reply, `${op.method} ${op.path} (${name})`);
      }
    }
    for (const path of ["/v1/studies?limit=0", `/v1/interviews/${NEVER_ID}`, "/v1/chats/not-a-uuid/messages?limit=500"]) {
      const reply = await ctx.http.req(path, { key: null });
      expectThat(reply.status === 401, `GET ${path} without a key answered ${reply.status}: 401 must win over 400 and 404`, reply);
    }
  },
};
