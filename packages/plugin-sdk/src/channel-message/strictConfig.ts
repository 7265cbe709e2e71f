/**
 * Every object in a plugin's `configSchema` must refuse unknown keys: a typo such as
 * `"apiRot"` would otherwise be dropped silently and the account would run with the default
 * (talking to the real platform). `defineChannelPlugin` checks it when the plugin is defined.
 *
 * @module
 */
import type { z } from "zod";

type Def = {
  type: string;
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  innerType?: z.ZodType;
  in?: z.ZodType;
  out?: z.ZodType;
  options?: z.ZodType[];
  element?: z.ZodType;
  valueType?: z.ZodType;
  left?: z.ZodType;
  right?: z.ZodType;
  items?: z.ZodType[];
};

const defOf = (schema: z.ZodType) => (schema as unknown as { _zod: { def: Def } })._zod.def;

/**
 * Paths (`receive.rateLimits`, `(root)`) of the objects in `schema` that silently strip unknown
 * keys (made with `z.object`); empty when every object is `z.strictObject` (or, on purpose,
 * `z.looseObject`).
 */
export function nonStrictObjectPaths(schema: z.ZodType): string[] {
  const found: string[] = [];
  const seen = new Set<z.ZodType>();
  const walk = (s: z.ZodType | undefined, path: string) => {
    if (!s || seen.has(s)) return;
    seen.add(s);
    const def = defOf(s);
    if (def.type === "object") {
      if (!def.catchall) found.push(path || "(root)");
      for (const [key, value] of Object.entries(def.shape ?? {}))
        walk(value, path ? `${path}.${key}` : key);
      return;
    }
    for (const child of [
      def.innerType,
      def.in,
      def.out,
      def.element,
      def.valueType,
      def.left,
      def.right,
    ])
      walk(child, path);
    for (const child of [...(def.options ?? []), ...(def.items ?? [])]) walk(child, path);
  };
  walk(schema, "");
  return found;
}

/**
 * @throws TypeError naming each object of `schema` that does not refuse unknown keys, and the fix.
 */
export function assertStrictConfigSchema(pluginId: string, schema: z.ZodType): void {
  const loose = nonStrictObjectPaths(schema);
  if (loose.length === 0) return;
  throw new TypeError(
    `channel plugin "${pluginId}": configSchema accepts unknown keys at ${loose.join(", ")}, so a typo in a user's config would be dropped silently; build every object with z.strictObject({ … }) (or z.looseObject to accept unknown keys on purpose)`,
  );
}
