// The document is valid OpenAPI 3.1 and passes Redocly's recommended ruleset plus ours (redocly.yaml).
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { loadOpenApi } from "../../lib/openapi-ajv.ts";

const root = fileURLToPath(new URL("../../", import.meta.url));

describe("OpenAPI document", () => {
  it("declares OpenAPI 3.1", () => {
    expect(loadOpenApi().openapi).toMatch(/^3\.1\./);
  });

  it("passes redocly lint with the committed ruleset and no errors or warnings", () => {
    let output = "";
    let code = 0;
    try {
      output = execFileSync(process.execPath, ["node_modules/@redocly/cli/bin/cli.js", "lint", "generated/openapi.json", "--config", "redocly.yaml", "--format", "json"], {
        cwd: root,
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"],
        env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
      });
    } catch (err) {
      code = (err as { status: number }).status;
      output = (err as { stdout: string }).stdout;
    }
    const report = JSON.parse(output.slice(output.indexOf("{"))) as { totals: { errors: number; warnings: number }; problems: Array<{ ruleId: string; message: string }> };
    expect(report.problems.map((p) => `${p.ruleId}: ${p.message}`)).toEqual([]);
    expect(report.totals.errors).toBe(0);
    expect(code).toBe(0);
  }, 60_000);
});
