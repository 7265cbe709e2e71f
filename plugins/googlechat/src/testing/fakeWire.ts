/**
 * The Chat API's wire format as the fake speaks it: AIP-193 error bodies
 * (`{ error: { code, message, status, details } }`) and the gRPC status names per HTTP status.
 * A 429 carries no `Retry-After` and no `RetryInfo` unless a scripted fault names a wait (the
 * contract suite's retry-after tests); the fake's own per-space limit never does (C37).
 *
 * Source: https://google.aip.dev/193, https://developers.google.com/workspace/chat/limits
 *
 * @module
 */
import type { FakeErrorAnswer } from "@herald/plugin-sdk/testing";

/** gRPC status names by HTTP status, as Google APIs answer them. */
export const GRPC_STATUS: Readonly<Record<number, string>> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  409: "ALREADY_EXISTS",
  412: "FAILED_PRECONDITION",
  429: "RESOURCE_EXHAUSTED",
  499: "CANCELLED",
  500: "INTERNAL",
  501: "NOT_IMPLEMENTED",
  503: "UNAVAILABLE",
  504: "DEADLINE_EXCEEDED",
};

/** The AIP-193 body of an error answer. */
export function googleErrorBody(answer: FakeErrorAnswer): unknown {
  return {
    error: {
      code: answer.status,
      message: answer.description,
      status: GRPC_STATUS[answer.status] ?? "UNKNOWN",
      ...(answer.retryAfterMs !== undefined
        ? {
            details: [
              {
                "@type": "type.googleapis.com/google.rpc.RetryInfo",
                retryDelay: `${(answer.retryAfterMs / 1_000).toFixed(3)}s`,
              },
            ],
          }
        : {}),
    },
  };
}

/** An error answer of the fake's own (not a scripted fault). */
export function googleError(status: number, message: string): Response {
  return Response.json(googleErrorBody({ status, code: "", description: message }), { status });
}
