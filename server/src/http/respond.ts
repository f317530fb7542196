/**
 * Writes results. In development and test every success body and required header is checked against
 * the contract first; a violation becomes a 500 that names the field, so a handler bug never reaches a
 * client as silently wrong data.
 */
import type { Response } from "express";
import type { RouteDef } from "../../../generated/routes.ts";
import { describeErrors, sharedContractAjv, type ContractAjv, type OpenApiDoc } from "../../../lib/openapi-ajv.ts";
import { ApiError } from "./errors.ts";
import { toJson } from "./serialize.ts";

export class ResponseWriter {
  private readonly ajv: ContractAjv | null;

  constructor(doc: OpenApiDoc, validate: boolean) {
    this.ajv = validate ? sharedContractAjv(doc) : null;
  }

  /** Sends the result; returns the JSON bytes sent (for the response cache), or null for an empty body. */
  send(res: Response, route: RouteDef, result: { status: number; body: unknown; headers?: Record<string, string> }): Buffer | null {
    const declared = route.responses[String(result.status)];
    if (this.ajv) this.check(res, route, result);
    if (result.headers) res.set(result.headers);
    if (!declared?.schema || result.status === 204) {
      res.status(result.status).end();
      return null;
    }
    const body = Buffer.from(toJson(result.body));
    sendJson(res, result.status, body);
    return body;
  }

  private check(res: Response, route: RouteDef, result: { status: number; body: unknown; headers?: Record<string, string> }): void {
    const declared = route.responses[String(result.status)];
    const where = `${route.operationId} ${result.status}`;
    if (!declared) throw contractViolation(`${where}: status not declared by the contract`);
    for (const name of declared.requiredHeaders) {
      if (result.headers?.[name] === undefined && res.get(name) === undefined) throw contractViolation(`${where}: missing required header ${name}`);
    }
    if (declared.schema) {
      const validate = this.ajv!.validator(declared.schema);
      if (!validate(result.body)) throw contractViolation(`${where}: ${describeErrors(validate.errors)}`);
    }
  }
}

const contractViolation = (detail: string) => new ApiError(500, "api_error", `Response does not match the contract: ${detail}`);

/** Writes JSON bytes: the one place a JSON body leaves, cached or fresh. */
export function sendJson(res: Response, status: number, body: Buffer): void {
  // Content-Length explicitly: a HEAD answer has no body, but must still say how long the GET's would be. Node's own
  // setters: Express's res.set looks the type up again for a charset on every call (issue #63).
  res.statusCode = status;
  res.setHeader("Content-Type", "application/json; charset=utf-8");
  res.setHeader("Content-Length", body.length);
  res.end(body);
}
