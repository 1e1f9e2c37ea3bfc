export { createSafeHttpClient, guardedLookup, DEFAULT_MAX_RESPONSE_BYTES } from "./client.js";
export type {
  SafeHttpClient,
  SafeHttpConfig,
  PostJsonOptions,
  GetTextOptions,
  JsonResponse,
  TextFetcher,
} from "./client.js";
export { HttpError, DestinationRefusedError, isHttpError } from "./errors.js";
export { classifyAddress, assertAddressAllowed, checkUrlHost, isAllowedClass } from "./guard.js";
export type { AddressClass, DestinationPolicy } from "./guard.js";
export { sanitizeJson, stringifyJson, DEFAULT_SANITIZE_LIMITS } from "./json.js";
