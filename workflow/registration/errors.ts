/**
 * Typed failures of registration-file handling. Discovery turns these into a per-worker
 * "registration" failure; nothing here is meant to crash the pipeline.
 */
import { CresolverError } from "../util/errors.js";

export const REGISTRATION_ERROR_CODES = [
  "bad-uri",
  "unsupported-scheme",
  "bad-base64",
  "too-large",
  "not-json",
  "invalid-schema",
  "fetch-failed",
  "no-endpoint",
] as const;

export type RegistrationErrorCode = (typeof REGISTRATION_ERROR_CODES)[number];

/** Longest message we build; input is attacker-controlled, so it is never echoed in full. */
const MAX_MESSAGE = 500;

export class RegistrationError extends CresolverError {
  readonly code: RegistrationErrorCode;

  constructor(code: RegistrationErrorCode, message: string, options?: { cause?: unknown }) {
    super(truncate(message, MAX_MESSAGE), options);
    this.name = "RegistrationError";
    this.code = code;
  }
}

export function isRegistrationError(value: unknown): value is RegistrationError {
  return value instanceof RegistrationError;
}

/**
 * Shortens untrusted text for messages and replaces control characters, so logs stay one line
 * and a multi-megabyte URI never lands in an error message.
 */
export function truncate(text: string, max = 80): string {
  // Slice first: the replace must not walk a huge string.
  const head = text.length > max ? text.slice(0, max) : text;
  const clean = head.replace(/[\u0000-\u001f\u007f]/g, "?");
  return text.length > max ? `${clean}… (${text.length} chars)` : clean;
}
