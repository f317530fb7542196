// Every example in the document (parameters, request bodies, responses, webhooks) validates against its schema,
// so Prism serves data a real client can parse.
import { describe, expect, it } from "vitest";
import { Contract } from "../../conformance/src/contract.ts";
import { createContractAjv, describeErrors } from "../../lib/openapi-ajv.ts";

const contract = createContractAjv();
// Redocly's example check cannot evaluate dependentSchemas (truncation markers), so undeclared fields are caught here.
const judge = new Contract();
const doc = contract.doc;
const esc = (s: string) => s.replace(/~/g, "~0").replace(/\//g, "~1");

interface Case { name: string; pointer: string; value: unknown }
const cases: Case[] = [];

for (const [section, items] of [["paths", doc.paths], ["webhooks", doc.webhooks]] as const) {
  for (const [path, item] of Object.entries<any>(items)) {
    for (const [method, op] of Object.entries<any>(item)) {
      const base = `#/${section}/${esc(path)}/${method}`;
      for (const [i, param] of (op.parameters ?? []).entries()) {
        const p = param.$ref ? doc.components.parameters[param.$ref.split("/").pop()] : param;
        const schemaPtr = param.$ref ? `${param.$ref}/schema` : `${base}/parameters/${i}/schema`;
        for (const [title, ex] of Object.entries<any>(p.examples ?? {})) cases.push({ name: `${op.operationId} param ${p.name} "${title}"`, pointer: schemaPtr, value: ex.value });
      }
      for (const [ct, media] of Object.entries<any>(op.requestBody?.content ?? {})) {
        for (const [title, ex] of Object.entries<any>(media.examples ?? {})) cases.push({ name: `${op.operationId} request "${title}"`, pointer: `${base}/requestBody/content/${esc(ct)}/schema`, value: ex.value });
      }
      for (const [status, res] of Object.entries<any>(op.responses)) {
        for (const [ct, media] of Object.entries<any>(res.content ?? {})) {
          for (const [title, ex] of Object.entries<any>(media.examples ?? {})) cases.push({ name: `${op.operationId} ${status} "${title}"`, pointer: `${base}/responses/${status}/content/${esc(ct)}/schema`, value: ex.value });
        }
      }
    }
  }
}

describe("examples validate against their schemas", () => {
  it("finds examples to check", () => expect(cases.length).toBeGreaterThan(40));
  it.each(cases)("$name", ({ pointer, value }) => {
    const validate = contract.validator(pointer);
    expect(validate(value), describeErrors(validate.errors)).toBe(true);
    expect(judge.undeclared({ $ref: pointer }, value, "").map((u) => u.path)).toEqual([]);
  });
});
