/** HTTP plumbing shared by the protocol modules: request validation and uniform JSON errors. */
import type { FastifyError, FastifyInstance, FastifyReply } from "fastify";
import type { z } from "zod";
import { EngineUpstreamError } from "./answer-engine.js";
import { CresolverError } from "../../workflow/util/errors.js";

export interface ErrorBody {
  /** Machine-readable kind. */
  error:
    | "invalid_request"
    | "payload_too_large"
    | "unsupported_media_type"
    | "not_found"
    | "request_error"
    | "bad_gateway"
    | "internal_error";
  /** Human-readable, names the problem (e.g. "question: must not be empty"). Never a stack trace. */
  message: string;
  /** For invalid_request: every problem found, by field path. */
  issues?: Array<{ path: string; message: string }>;
}

/** A 400 raised by request validation. */
export class BadRequestError extends CresolverError {
  readonly statusCode = 400;
  constructor(
    message: string,
    readonly issues: Array<{ path: string; message: string }>,
  ) {
    super(message);
    this.name = "BadRequestError";
  }
}

function pathOf(path: ReadonlyArray<PropertyKey>): string {
  return path.length === 0 ? "body" : path.map(String).join(".");
}

/** Validates a request body with zod, or throws a BadRequestError naming every offending field. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const issues = result.error.issues.slice(0, 20).map((i) => ({ path: pathOf(i.path), message: i.message }));
  const message = issues.map((i) => `${i.path}: ${i.message}`).join("; ");
  throw new BadRequestError(message.length > 500 ? `${message.slice(0, 499)}…` : message, issues);
}

export function sendError(reply: FastifyReply, status: number, body: ErrorBody): FastifyReply {
  return reply.code(status).type("application/json; charset=utf-8").send(body);
}

/** Uniform JSON errors for every route of the app: no stack traces, no internals, 5xx logged server-side. */
export function installErrorHandling(app: FastifyInstance): void {
  app.setNotFoundHandler((request, reply) => {
    sendError(reply, 404, {
      error: "not_found",
      message: `no route for ${request.method} ${(request.url.split("?")[0] ?? "").slice(0, 200)}`,
    });
  });
  app.setErrorHandler((err: FastifyError | Error, request, reply) => {
    if (err instanceof BadRequestError) {
      return sendError(reply, 400, { error: "invalid_request", message: err.message, issues: err.issues });
    }
    if (err instanceof EngineUpstreamError) {
      request.log.warn({ kind: err.kind, msg: err.message }, "answer engine upstream failure");
      return sendError(reply, 502, { error: "bad_gateway", message: err.message });
    }
    const status = (err as FastifyError).statusCode;
    if (typeof status === "number" && status >= 400 && status < 500) {
      const kind: ErrorBody["error"] =
        status === 400
          ? "invalid_request"
          : status === 413
            ? "payload_too_large"
            : status === 415
              ? "unsupported_media_type"
              : "request_error";
      const message = String(err.message ?? "bad request")
        .replace(/\s+/g, " ")
        .slice(0, 300);
      return sendError(reply, status, { error: kind, message });
    }
    request.log.error({ err }, "internal error");
    return sendError(reply, 500, { error: "internal_error", message: "internal error" });
  });
}
