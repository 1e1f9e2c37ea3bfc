/** ERC-8004 registration files: schema, typed errors, codec (build/encode/decode), endpoint picking. */
export * from "./errors.js";
export * from "./schema.js";
export * from "./codec.js";
export * from "./endpoint.js";
