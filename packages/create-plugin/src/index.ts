/**
 * `@herald/create-plugin`: `npm create @herald/plugin <name>` (or `pnpm create @herald/plugin
 * <name>`) creates a herald channel plugin that passes the contract suite and the mutant
 * catalog out of the box. This entry is the same as a library, for tools that scaffold plugins.
 *
 * @packageDocumentation
 */
export { CreatePluginError, type CreatePluginProblem } from "./errors.ts";
export { type PluginNames, pluginNames } from "./names.ts";
export { renderPlugin, type ScaffoldResult, scaffold } from "./scaffold.ts";
export {
  EXAMPLE_DIR,
  loadTemplate,
  readTemplateFromRepo,
  TEMPLATE_DEPENDENCIES,
  type Template,
} from "./template.ts";
