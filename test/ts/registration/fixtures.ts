/** Shared test data and assertions for the registration tests. */
import { expect } from "vitest";
import {
  REGISTRATION_V1_TYPE,
  RegistrationError,
  type RegistrationErrorCode,
} from "../../../workflow/registration/index.js";

/** The spec's example file (protocols/cresolver/README.md, "Endpoint discovery"), as raw JSON data. */
export function specExample(): Record<string, unknown> {
  return {
    type: REGISTRATION_V1_TYPE,
    name: "CREsolver AgentName",
    services: [
      { name: "wallet", endpoint: "eip155:11155111:0xABC" },
      {
        name: "A2A",
        endpoint: "https://agent1.example.com",
        protocol: "cresolver",
        category: "resolution",
        tags: ["prediction-market", "resolution", "ai-agent"],
      },
    ],
  };
}

export function base64DataUri(json: string, mediaType = "application/json"): string {
  return `data:${mediaType};base64,${Buffer.from(json, "utf8").toString("base64")}`;
}

/** Asserts that `promiseOrFn` fails with a RegistrationError of `code`, and returns it. */
export async function expectCode(
  promiseOrFn: Promise<unknown> | (() => unknown),
  code: RegistrationErrorCode,
): Promise<RegistrationError> {
  let caught: unknown;
  try {
    await (typeof promiseOrFn === "function" ? promiseOrFn() : promiseOrFn);
  } catch (error) {
    caught = error;
  }
  expect(caught, `expected RegistrationError(${code}) but nothing was thrown`).toBeInstanceOf(RegistrationError);
  const error = caught as RegistrationError;
  expect({ code: error.code, message: error.message }).toMatchObject({ code });
  // Messages are for humans and logs: bounded whatever the input was.
  expect(error.message.length).toBeLessThanOrEqual(600);
  return error;
}
