/**
 * Reads a Google API discovery document (the format Google publishes its REST APIs in) as an
 * OpenAPI 3.0 document, mechanically: each method becomes an operation at its `flatPath`, its
 * `request`/`response` a JSON body of the named schema, its `location: query` parameters query
 * parameters; each schema's `$ref: "Message"` becomes `#/components/schemas/Message`.
 *
 * One addition, and it is Google's behaviour rather than a guess: objects are closed
 * (`additionalProperties: false` unless the document gives a map type). Google's front end
 * rejects a JSON request naming a field the message does not have (`400 INVALID_ARGUMENT`,
 * "Invalid JSON payload received. Unknown name …"), and its answers only carry described fields.
 *
 * @module
 */

type Json = Record<string, unknown>;

function convertSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(convertSchema);
  if (!node || typeof node !== "object") return node;
  const src = node as Json;
  const out: Json = {};
  for (const [k, v] of Object.entries(src)) {
    if (k === "$ref" && typeof v === "string") out.$ref = `#/components/schemas/${v}`;
    else if (k === "type" && v === "any") continue;
    else if (k === "properties") {
      out.properties = Object.fromEntries(
        Object.entries(v as Json).map(([name, s]) => [name, convertSchema(s)]),
      );
    } else if (k === "items" || k === "additionalProperties") out[k] = convertSchema(v);
    // `google-datetime` is an RFC 3339 timestamp; the other `google-*` formats stay documentation.
    else if (k === "format" && v === "google-datetime") out.format = "date-time";
    else if (["id", "description", "enumDescriptions", "annotations", "readOnly"].includes(k)) {
    } else out[k] = v;
  }
  if (out.type === "object" && out.properties && out.additionalProperties === undefined) {
    out.additionalProperties = false;
  }
  return out;
}

function parameterSchema(p: Json): Json {
  const schema: Json = {};
  for (const k of ["type", "format", "enum", "pattern"]) if (k in p) schema[k] = p[k];
  if (schema.format === "google-datetime") schema.format = "date-time";
  return schema;
}

/** A discovery document as an OpenAPI 3.0 document (see the module comment for the mapping). */
export function discoveryToOpenApi(discovery: Json): Json {
  const paths: Record<string, Json> = {};
  const globalParams = Object.entries((discovery.parameters ?? {}) as Record<string, Json>);
  const visit = (resource: Json) => {
    for (const method of Object.values((resource.methods ?? {}) as Record<string, Json>)) {
      const template = `/${(method.flatPath ?? method.path) as string}`;
      const params = [
        ...globalParams,
        ...Object.entries((method.parameters ?? {}) as Record<string, Json>),
      ];
      const parameters: Json[] = params
        .filter(([, p]) => p.location === "query")
        .map(([name, p]) => ({
          name,
          in: "query",
          required: p.required === true,
          schema: parameterSchema(p),
        }));
      for (const m of template.matchAll(/\{([^}]+)\}/g)) {
        parameters.push({ name: m[1], in: "path", required: true, schema: { type: "string" } });
      }
      const operation: Json = {
        operationId: method.id,
        parameters,
        responses: {
          "200": {
            description: "OK",
            ...(method.response
              ? {
                  content: {
                    "application/json": {
                      schema: { $ref: `#/components/schemas/${(method.response as Json).$ref}` },
                    },
                  },
                }
              : {}),
          },
        },
      };
      if (method.request) {
        operation.requestBody = {
          content: {
            "application/json": {
              schema: { $ref: `#/components/schemas/${(method.request as Json).$ref}` },
            },
          },
        };
      }
      paths[template] ??= {};
      (paths[template] as Json)[(method.httpMethod as string).toLowerCase()] = operation;
    }
    for (const child of Object.values((resource.resources ?? {}) as Record<string, Json>)) {
      visit(child);
    }
  };
  visit(discovery);
  const schemas = Object.fromEntries(
    Object.entries((discovery.schemas ?? {}) as Json).map(([name, s]) => [name, convertSchema(s)]),
  );
  return {
    openapi: "3.0.3",
    info: { title: discovery.title, version: discovery.revision },
    paths,
    components: { schemas },
  };
}
