/**
 * A platform described by several OpenAPI documents (Matrix publishes one per module of its
 * Client-Server API): a call is checked by the document that has its operation.
 *
 * @module
 */
import type { FakeExchange, FakeTrafficViolation } from "@herald/plugin-sdk/testing";
import type { OpenApiDescription } from "./openapi.ts";

/** Several descriptions of one platform, as one. */
export class CompositeDescription {
  readonly platform: string;
  readonly parts: readonly OpenApiDescription[];

  constructor(platform: string, parts: readonly OpenApiDescription[]) {
    this.platform = platform;
    this.parts = parts;
  }

  /** Operations matched so far, across the documents. */
  get covered(): Set<string> {
    return new Set(this.parts.flatMap((p) => [...p.covered]));
  }

  /** Validations run so far, across the documents. */
  get validations(): number {
    return this.parts.reduce((n, p) => n + p.validations, 0);
  }

  /** Compiles the validators of `method path` now (see {@link OpenApiDescription.warm}). */
  warm(method: string, path: string): void {
    const part = this.parts.find((p) => p.find(method, path));
    if (!part) throw new Error(`${this.platform}: no operation ${method} ${path} to warm`);
    part.warm(method, path);
  }

  /** Validates one exchange with the document that has its operation. */
  async check(exchange: FakeExchange): Promise<FakeTrafficViolation[]> {
    const part = this.parts.find((p) => p.find(exchange.method, exchange.path));
    if (part) return part.check(exchange);
    return [
      {
        platform: this.platform,
        operation: `${exchange.method} ${exchange.path}`,
        side: "request",
        field: "",
        message: "no operation of the description has this method and path",
        call: `${exchange.method} ${exchange.path} -> ${exchange.status}`,
      },
    ];
  }
}
