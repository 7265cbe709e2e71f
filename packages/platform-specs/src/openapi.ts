/**
 * Finds the operation an HTTP call is in an OpenAPI description (3.x, or Swagger 2.0 for Slack)
 * and validates the call's request (path parameters, query, body) and answer (status, body)
 * against it with Ajv. The description's schemas are used as they are: nothing here restates
 * what a platform accepts.
 *
 * @module
 */
import type { FakeExchange, FakeTrafficViolation } from "@herald/plugin-sdk/testing";
import { Ajv as AjvDraft7, type ErrorObject, type ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

type Json = Record<string, unknown>;
type AjvInstance = AjvDraft7;

/** How a platform's description maps onto the fake's URLs. */
export type OpenApiOptions = {
  platform: string;
  /** Stripped from a request path before it is matched, e.g. `/api/v10` for Discord. */
  basePath: RegExp;
  /**
   * Which response of the operation describes an answer (default: the status, then `4XX`-style
   * ranges, then `default`, as OpenAPI says). Slack answers its errors with HTTP 200.
   */
  responseKey?: (status: number, body: unknown, responses: Json) => string | undefined;
  /** Schemas are JSON Schema 2020-12 (OpenAPI 3.1) rather than draft-07-like (3.0, 2.0). */
  draft2020?: boolean;
  /**
   * A method's arguments may come in the query string, a form body or a JSON body, and any
   * HTTP method reaches the operation (Slack's Web API: "arguments can be passed as GET query
   * string parameters or POST form/JSON bodies"); all are checked as the described parameters.
   */
  argumentsAnywhere?: boolean;
  /**
   * The body schema of an error status (>= 400) an operation does not list, when the platform
   * defines one error format for every endpoint (Matrix's standard error response).
   */
  undeclaredError?: (status: number) => Json;
};

/** An operation of the description that matched a call. */
export type MatchedOperation = {
  /** `operationId`, or `METHOD /template` when the description gives none. */
  id: string;
  template: string;
  method: string;
  pathParams: Record<string, string>;
  operation: Json;
  pathItem: Json;
};

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

type Template = { template: string; regex: RegExp; names: string[]; literal: number };

function compileTemplate(template: string): Template {
  const names: string[] = [];
  let literal = 0;
  const source = template
    .split(/(\{[^}]+\})/)
    .map((part) => {
      const name = /^\{\+?([^}]+)\}$/.exec(part)?.[1];
      if (name !== undefined) {
        names.push(name);
        return "([^/]+)";
      }
      literal += part.length;
      return part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    })
    .join("");
  return { template, regex: new RegExp(`^${source}$`), names, literal };
}

function pointer(path: readonly string[]): string {
  return `#/${path.map((p) => p.replace(/~/g, "~0").replace(/\//g, "~1")).join("/")}`;
}

/** An OpenAPI description of one platform, ready to check exchanges. */
export class OpenApiDescription {
  readonly platform: string;
  readonly #doc: Json;
  readonly #options: OpenApiOptions;
  readonly #templates: Template[];
  #plainAjv: AjvInstance | undefined;
  /** Query and form values arrive as strings: this instance coerces them to the schema's types. */
  #coercingAjv: AjvInstance | undefined;
  readonly #make: (coerce: boolean) => AjvInstance;
  readonly #compiled = new Map<string, ValidateFunction>();
  readonly #swagger2: boolean;
  /** Operations matched so far (the endpoints a run covered). */
  readonly covered = new Set<string>();
  /** Validations run so far (a request and a response count one each). */
  validations = 0;

  constructor(doc: Json, options: OpenApiOptions) {
    this.platform = options.platform;
    this.#doc = doc;
    this.#options = options;
    this.#swagger2 = typeof doc.swagger === "string";
    this.#templates = Object.keys((doc.paths ?? {}) as Json)
      .map(compileTemplate)
      .sort((a, b) => b.literal - a.literal);
    const make = (coerceTypes: boolean) => {
      const opts = {
        strict: false,
        // The first error per branch: all errors of every branch of Discord's large unions make
        // validators several times slower to compile.
        allErrors: false,
        validateSchema: false,
        coerceTypes,
        // Descriptions name formats Ajv does not know (`snowflake`, `google-datetime`…): those
        // are documentation; the known ones (date-time, uri, int64…) are checked.
        formats: unknownFormats(doc),
      } as const;
      const ajv = options.draft2020 ? new Ajv2020(opts) : new AjvDraft7(opts);
      addFormats.default(ajv as never);
      ajv.addSchema(doc as never, "doc");
      return ajv as AjvInstance;
    };
    this.#make = make;
  }

  /** Made on first use: Matrix has 72 documents, most never used by a suite. */
  get #ajv(): AjvInstance {
    this.#plainAjv ??= this.#make(false);
    return this.#plainAjv;
  }

  get #coercing(): AjvInstance {
    this.#coercingAjv ??= this.#make(true);
    return this.#coercingAjv;
  }

  /** Every operation of the description as `METHOD /template` (for coverage counts). */
  get operationCount(): number {
    let n = 0;
    for (const item of Object.values((this.#doc.paths ?? {}) as Record<string, Json>)) {
      n += METHODS.filter((m) => m in item).length;
    }
    return n;
  }

  /**
   * Compiles the request and answer validators of `method path` now (Discord's message schemas
   * take seconds to compile; a suite's setup pays that, not the first test's time budget).
   */
  warm(method: string, path: string, status = 200): void {
    const op = this.find(method, path);
    if (!op) throw new Error(`${this.platform}: no operation ${method} ${path} to warm`);
    const requestBody = this.#deref(op.operation.requestBody) as Json | undefined;
    if (requestBody?.content && "application/json" in (requestBody.content as Json)) {
      this.#validator(
        pointer([...this.#requestBodyPath(op), "content", "application/json", "schema"]),
      );
    }
    const responses = (op.operation.responses ?? {}) as Json;
    const response = this.#deref(responses[String(status)]) as Json | undefined;
    const content = (response?.content ?? {}) as Json;
    const base = responsePath(op, responses, String(status));
    if (this.#swagger2 && response?.schema) this.#validator(pointer([...base, "schema"]));
    if ("application/json" in content) {
      this.#validator(pointer([...base, "content", "application/json", "schema"]));
    }
  }

  /** The operation `method path` is, or `undefined` when the description has none. */
  find(method: string, path: string): MatchedOperation | undefined {
    const stripped = path.replace(this.#options.basePath, "") || "/";
    const m = method.toLowerCase();
    for (const t of this.#templates) {
      const match = t.regex.exec(stripped);
      if (!match) continue;
      const pathItem = this.#deref((this.#doc.paths as Record<string, Json>)[t.template]) as Json;
      const anyMethod = this.#options.argumentsAnywhere
        ? METHODS.find((x) => x in pathItem)
        : undefined;
      const operation = (pathItem[m] ?? (anyMethod ? pathItem[anyMethod] : undefined)) as
        | Json
        | undefined;
      if (!operation) continue;
      const pathParams: Record<string, string> = {};
      t.names.forEach((name, i) => {
        pathParams[name] = decodeURIComponent(match[i + 1] ?? "");
      });
      return {
        id: (operation.operationId as string | undefined) ?? `${method} ${t.template}`,
        template: t.template,
        method: m in pathItem ? m : (anyMethod ?? m),
        pathParams,
        operation,
        pathItem,
      };
    }
    return undefined;
  }

  /** Validates one exchange; the violations found (empty when it conforms). */
  async check(exchange: FakeExchange): Promise<FakeTrafficViolation[]> {
    const call = `${exchange.method} ${exchange.path} -> ${exchange.status}`;
    const op = this.find(exchange.method, exchange.path);
    if (!op) {
      return [
        {
          platform: this.platform,
          operation: `${exchange.method} ${exchange.path}`,
          side: "request",
          field: "",
          message: "no operation of the description has this method and path",
          call,
        },
      ];
    }
    this.covered.add(op.id);
    const out: FakeTrafficViolation[] = [];
    const add = (side: "request" | "response", field: string, message: string) =>
      out.push({ platform: this.platform, operation: op.id, side, field, message, call });
    const requestOk = exchange.status < 400;
    const requestProblems = await this.#checkRequest(op, exchange);
    // A request the description rejects is a divergence only when the fake accepted it: a fake
    // that answers 4xx to it agrees with the platform (tests of the fake's own validation).
    if (requestOk) for (const p of requestProblems) add("request", p.field, p.message);
    if (!exchange.scriptedAnswer) {
      for (const p of this.#checkResponse(op, exchange)) add("response", p.field, p.message);
    }
    return out;
  }

  #deref(value: unknown, seen = 0): unknown {
    const ref = (value as Json | undefined)?.$ref;
    if (typeof ref !== "string" || !ref.startsWith("#/") || seen > 20) return value;
    let node: unknown = this.#doc;
    for (const raw of ref.slice(2).split("/")) {
      node = (node as Json)[raw.replace(/~1/g, "/").replace(/~0/g, "~")];
    }
    return this.#deref(node, seen + 1);
  }

  #validator(ref: string, coerce = false, inline?: Json): ValidateFunction {
    const key = `${coerce}:${ref}`;
    const v = this.#compiled.get(key);
    if (!v) {
      const ajv = coerce ? this.#coercing : this.#ajv;
      const compiled = ajv.compile((inline ?? { $ref: `doc${ref}` }) as never);
      this.#compiled.set(key, compiled);
      return compiled;
    }
    return v;
  }

  #run(
    validate: ValidateFunction,
    data: unknown,
    prefix: string,
  ): { field: string; message: string }[] {
    this.validations += 1;
    if (validate(data)) return [];
    return summarize(validate.errors ?? [], prefix);
  }

  #parameters(op: MatchedOperation): { param: Json; at: string[] }[] {
    const out: { param: Json; at: string[] }[] = [];
    const base = ["paths", op.template];
    const list = (owner: Json, at: string[]) =>
      ((owner.parameters ?? []) as unknown[]).forEach((p, i) => {
        // A `$ref` parameter (Matrix `#/components/parameters/filename`): its schema lives at the
        // ref's target, not under the reference.
        const ref = (p as { $ref?: unknown }).$ref;
        const target =
          typeof ref === "string" && ref.startsWith("#/")
            ? ref
                .slice(2)
                .split("/")
                .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"))
            : undefined;
        out.push({ param: this.#deref(p) as Json, at: target ?? [...at, "parameters", String(i)] });
      });
    list(op.pathItem, base);
    list(op.operation, [...base, op.method]);
    return out;
  }

  async #checkRequest(
    op: MatchedOperation,
    ex: FakeExchange,
  ): Promise<{ field: string; message: string }[]> {
    const problems: { field: string; message: string }[] = [];
    const params = this.#parameters(op);
    // Path and query parameters (strings on the wire, coerced to the described type).
    const query: Record<string, unknown> = {};
    for (const [k, v] of ex.query) query[k] = v;
    const anywhere = this.#options.argumentsAnywhere === true;
    if (anywhere) Object.assign(query, parseArguments(ex));
    const form: Record<string, unknown> = {};
    const formProps: Record<string, Json> = {};
    const formRequired: string[] = [];
    for (const { param, at } of params) {
      const name = param.name as string;
      const where = param.in as string;
      const schemaAt = param.schema ? [...at, "schema"] : undefined;
      const inline = param.schema ? undefined : swagger2Schema(param);
      if (where === "formData" && !anywhere) {
        formProps[name] = inline ?? {};
        if (param.required) formRequired.push(name);
        continue;
      }
      const value =
        where === "path" ? op.pathParams[name] : where !== "header" ? query[name] : undefined;
      if (where !== "path" && where !== "query" && !(anywhere && where === "formData")) continue;
      if (value === undefined) {
        if (param.required) problems.push({ field: `/${where}/${name}`, message: "is required" });
        continue;
      }
      const key = schemaAt ? pointer(schemaAt) : `${pointer(at)}#inline`;
      const holder = { v: value };
      const validate = this.#validator(
        key,
        true,
        schemaAt
          ? { type: "object", properties: { v: { $ref: `doc${pointer(schemaAt)}` } } }
          : { type: "object", properties: { v: inline } },
      );
      problems.push(...this.#run(validate, holder, "").map((p) => renameV(p, `/${where}/${name}`)));
    }
    // Body.
    const type = (ex.requestHeaders.get("content-type") ?? "").split(";")[0]?.trim() ?? "";
    if (anywhere || ex.requestBody === "" || ex.method === "GET") return problems;
    let body: unknown;
    if (type === "application/x-www-form-urlencoded") {
      for (const [k, v] of new URLSearchParams(ex.requestBody)) form[k] = v;
      body = form;
    } else if (type === "application/json") {
      try {
        body = JSON.parse(ex.requestBody);
      } catch {
        return [...problems, { field: "", message: "request body is not JSON" }];
      }
    } else if (type === "multipart/form-data") {
      const parsed = await new Response(ex.requestBody, {
        headers: { "content-type": ex.requestHeaders.get("content-type") ?? "" },
      }).formData();
      const payload = parsed.get("payload_json");
      // Discord's multipart form carries the JSON body in `payload_json` beside the files.
      body = typeof payload === "string" ? JSON.parse(payload) : {};
    } else {
      return problems;
    }
    if (this.#swagger2) {
      const bodyParam = params.find((p) => p.param.in === "body");
      if (bodyParam && type === "application/json") {
        const v = this.#validator(pointer([...bodyParam.at, "schema"]));
        problems.push(...this.#run(v, body, "/body"));
      } else if (Object.keys(formProps).length > 0) {
        // Swagger 2.0 lists form fields as parameters; a JSON body carries the same fields.
        const schema = { type: "object", properties: formProps, required: formRequired };
        const v = this.#validator(`${op.id}#form`, true, schema);
        problems.push(...this.#run(v, body, "/body"));
      }
      return problems;
    }
    const requestBody = this.#deref(op.operation.requestBody) as Json | undefined;
    const content = (requestBody?.content ?? {}) as Record<string, Json>;
    const mediaType = type === "multipart/form-data" ? "application/json" : type;
    if (!content[mediaType]?.schema) {
      if (requestBody) problems.push({ field: "", message: `no ${type} body is described` });
      return problems;
    }
    const schemaPath = [...this.#requestBodyPath(op), "content", mediaType, "schema"];
    const coerce = type === "application/x-www-form-urlencoded";
    problems.push(...this.#run(this.#validator(pointer(schemaPath), coerce), body, "/body"));
    return problems;
  }

  #requestBodyPath(op: MatchedOperation): string[] {
    const raw = op.operation.requestBody as Json;
    if (typeof raw.$ref === "string")
      return (raw.$ref as string).slice(2).split("/").map(unescapePointer);
    return ["paths", op.template, op.method, "requestBody"];
  }

  #checkResponse(op: MatchedOperation, ex: FakeExchange): { field: string; message: string }[] {
    const responses = (op.operation.responses ?? {}) as Json;
    let body: unknown;
    if (ex.responseBody !== undefined && ex.responseBody !== "") {
      try {
        body = JSON.parse(ex.responseBody);
      } catch {
        body = undefined;
      }
    }
    const status = String(ex.status);
    const key =
      this.#options.responseKey?.(ex.status, body, responses) ??
      [status, `${status[0]}XX`, `${status[0]}xx`, "default"].find((k) => k in responses);
    if (key === undefined) {
      const fallback = ex.status >= 400 ? this.#options.undeclaredError?.(ex.status) : undefined;
      if (fallback && ex.responseBody !== undefined) {
        if (body === undefined) return [{ field: "", message: "response body is not JSON" }];
        return this.#run(this.#validator(`#undeclared-${status}`, false, fallback), body, "");
      }
      return [{ field: "", message: `status ${status} is not described for this operation` }];
    }
    const response = this.#deref(responses[key]) as Json;
    const base = responsePath(op, responses, key);
    let schemaPath: string[] | undefined;
    if (this.#swagger2) {
      if (response.schema) schemaPath = [...base, "schema"];
    } else {
      const content = (response.content ?? {}) as Record<string, Json>;
      const mediaType = Object.keys(content).find((t) => t.includes("json"));
      if (mediaType && content[mediaType]?.schema)
        schemaPath = [...base, "content", mediaType, "schema"];
    }
    const fallback = ex.status >= 400 ? this.#options.undeclaredError?.(ex.status) : undefined;
    if (!schemaPath && fallback && ex.responseBody !== undefined) {
      // The operation names the status but not its body: the platform's one error format.
      if (body === undefined) return [{ field: "", message: "response body is not JSON" }];
      return this.#run(this.#validator(`#undeclared-${status}`, false, fallback), body, "");
    }
    if (!schemaPath) {
      if (ex.responseBody && ex.responseBody !== "{}" && ex.status !== 204) {
        return [{ field: "", message: `status ${status} has no body in the description` }];
      }
      return [];
    }
    if (ex.responseBody === undefined) return [];
    if (body === undefined) return [{ field: "", message: "response body is not JSON" }];
    return this.#run(this.#validator(pointer(schemaPath)), body, "");
  }
}

/** The arguments of a form or JSON body, as one object (Slack's `argumentsAnywhere`). */
function parseArguments(ex: FakeExchange): Record<string, unknown> {
  const type = ex.requestHeaders.get("content-type") ?? "";
  if (ex.requestBody === "") return {};
  if (type.includes("application/x-www-form-urlencoded")) {
    return Object.fromEntries(new URLSearchParams(ex.requestBody));
  }
  if (type.includes("json")) {
    try {
      const parsed = JSON.parse(ex.requestBody) as unknown;
      return parsed && typeof parsed === "object" ? (parsed as Record<string, unknown>) : {};
    } catch {
      return {};
    }
  }
  return {};
}

function responsePath(op: MatchedOperation, responses: Json, key: string): string[] {
  const raw = responses[key] as Json;
  if (typeof raw.$ref === "string")
    return (raw.$ref as string).slice(2).split("/").map(unescapePointer);
  return ["paths", op.template, op.method, "responses", key];
}

function unescapePointer(part: string): string {
  return part.replace(/~1/g, "/").replace(/~0/g, "~");
}

/** A Swagger 2.0 non-body parameter's type, as a schema (its keywords are JSON Schema's). */
function swagger2Schema(param: Json): Json {
  const schema: Json = {};
  for (const k of [
    "type",
    "format",
    "enum",
    "items",
    "pattern",
    "minimum",
    "maximum",
    "maxLength",
  ]) {
    if (k in param) schema[k] = param[k];
  }
  if (schema.type === "file") delete schema.type;
  return schema;
}

function renameV(p: { field: string; message: string }, name: string) {
  return { field: p.field.replace(/^\/v/, name), message: p.message };
}

function unknownFormats(doc: Json): Record<string, true> {
  const known = new Set([
    "date",
    "time",
    "date-time",
    "iso-time",
    "iso-date-time",
    "duration",
    "uri",
    "uri-reference",
    "uri-template",
    "url",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "regex",
    "uuid",
    "json-pointer",
    "json-pointer-uri-fragment",
    "relative-json-pointer",
    "byte",
    "int32",
    "int64",
    "float",
    "double",
    "password",
    "binary",
  ]);
  const found: Record<string, true> = {};
  const walk = (node: unknown) => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === "object") {
      for (const [k, v] of Object.entries(node)) {
        if (k === "format" && typeof v === "string" && !known.has(v)) found[v] = true;
        else walk(v);
      }
    }
  };
  walk(doc);
  return found;
}

/**
 * Ajv's errors as field paths. Under `oneOf`/`anyOf` every branch reports; the deepest paths say
 * the most, so those come first, and at most three are kept.
 */
export function summarize(
  errors: readonly ErrorObject[],
  prefix: string,
): { field: string; message: string }[] {
  const seen = new Set<string>();
  const out: { field: string; message: string }[] = [];
  const sorted = [...errors].sort(
    (a, b) => b.instancePath.split("/").length - a.instancePath.split("/").length,
  );
  for (const e of sorted) {
    const extra =
      e.keyword === "additionalProperties"
        ? ` (${(e.params as { additionalProperty: string }).additionalProperty})`
        : e.keyword === "required"
          ? ""
          : e.keyword === "enum"
            ? ` (${JSON.stringify((e.params as { allowedValues: unknown }).allowedValues).slice(0, 120)})`
            : "";
    const field = `${prefix}${e.instancePath}`;
    const message = `${e.message ?? e.keyword}${extra}`;
    const key = `${field} ${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ field, message });
    if (out.length === 3) break;
  }
  return out;
}
