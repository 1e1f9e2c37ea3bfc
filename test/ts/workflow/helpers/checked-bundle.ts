/**
 * The bundle producers, each checking that what it produced parses with the bundle schema (core/bundle-schema.ts)
 * to exactly the document it returned. Tests that produce bundles import these instead of the originals, so every
 * bundle the tests build is a schema check.
 */
import { expect } from "vitest";
import { buildBundle as build, type Bundle, type BundleInput } from "../../../../workflow/core/bundle.js";
import { parseBundle } from "../../../../workflow/core/bundle-schema.js";
import { bundleStage as stage } from "../../../../workflow/pipeline/09-bundle.js";
import { runResolution as run } from "../../../../workflow/pipeline/run.js";

export function expectValidBundle(bundle: Bundle): void {
  expect(parseBundle(bundle.json)).toEqual(bundle.document);
}

export function buildBundle(input: BundleInput): Bundle {
  const bundle = build(input);
  expectValidBundle(bundle);
  return bundle;
}

export function bundleStage(...args: Parameters<typeof stage>): ReturnType<typeof stage> {
  const result = stage(...args);
  expectValidBundle(result.bundle);
  return result;
}

export async function runResolution(...args: Parameters<typeof run>): ReturnType<typeof run> {
  const result = await run(...args);
  expectValidBundle(result.bundle);
  return result;
}
