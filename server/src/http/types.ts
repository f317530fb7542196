/**
 * Handler types derived from generated/schema.d.ts: a handler can only return a status the contract
 * declares for its operation, with that status's body type, so a wrong status/body pair fails `tsc`.
 * Errors are thrown as ApiError and rendered in the envelope.
 */
import type { Request } from "express";
import type { operations } from "../../../generated/schema.d.ts";
import type { OperationId } from "../../../generated/routes.ts";
import type { Project } from "../model/project.ts";

type Op<Id extends OperationId> = operations[Id];
type Responses<Id extends OperationId> = Op<Id>["responses"];
type JsonOf<R> = R extends { content: { "application/json": infer B } } ? B : undefined;
type SuccessStatus = 200 | 201 | 202 | 204;

/** A success result: one of the operation's declared 2xx statuses with its body. */
export type Result<Id extends OperationId> = {
  [S in keyof Responses<Id> & SuccessStatus]: { status: S; body: JsonOf<Responses<Id>[S]>; headers?: Record<string, string> };
}[keyof Responses<Id> & SuccessStatus];

type Params<Id extends OperationId> = Op<Id>["parameters"];
type QueryOf<Id extends OperationId> = Params<Id> extends { query?: infer Q } ? NonNullable<Q> : Record<string, never>;
/** `limit` always has a value after validation (its contract default is applied). */
export type Query<Id extends OperationId> = QueryOf<Id> extends { limit?: number } ? QueryOf<Id> & { limit: number } : QueryOf<Id>;
export type PathParams<Id extends OperationId> = Params<Id> extends { path: infer P } ? P : Record<string, never>;
export type Body<Id extends OperationId> = Op<Id> extends { requestBody: { content: { "application/json": infer B } } } ? B : undefined;

export interface Ctx<Id extends OperationId> {
  project: Project;
  query: Query<Id>;
  path: PathParams<Id>;
  body: Body<Id>;
  req: Request;
}

export type Handler<Id extends OperationId> = (ctx: Ctx<Id>) => Result<Id> | Promise<Result<Id>>;
export type Handlers = { [Id in OperationId]: Handler<Id> };
/** The handlers of one spec interface. */
export type HandlerGroup<Ids extends OperationId> = { [Id in Ids]: Handler<Id> };
