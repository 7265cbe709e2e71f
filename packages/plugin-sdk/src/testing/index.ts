/**
 * `@herald/plugin-sdk/testing`: what every fake platform server needs.
 *
 * @packageDocumentation
 */
export {};
