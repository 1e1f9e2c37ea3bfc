/**
 * How the explorer reads a stored bundle: `parseStoredBundle` (workflow/core/bundle-schema.ts, the one definition of
 * the document) and the view helpers below, typed by it. A bundle is untrusted input fetched from a URI: one that does not
 * match the schema is shown as a one-line error, never rendered in part. The caps bound what a page renders.
 */
import type { BundleDocument, BundleWorker, StoredBundleDocument } from "../workflow/core/bundle-schema.js";

/** Lists (sources, challenges, replies) are rendered up to this many entries each. */
export const MAX_RENDERED_ITEMS = 200;
/** Seats rendered per bundle (the schema allows 256). */
export const MAX_RENDERED_WORKERS = 256;

export const isResolutionBundle = (doc: StoredBundleDocument): doc is BundleDocument => "workers" in doc;

export const renderedWorkers = (doc: BundleDocument): BundleWorker[] => doc.workers.slice(0, MAX_RENDERED_WORKERS);

export const capped = <T>(list: readonly T[] | undefined): T[] => (list ?? []).slice(0, MAX_RENDERED_ITEMS);

/** Why a seat has no answer: discovery or ask failure. */
export const workerFailure = (w: BundleWorker): { kind: string; message: string } | undefined =>
  w.discoveryFailure ?? w.askFailure;

/** "rubric" or "llm <model> <prompt version>", without repeats. */
export function evaluatorLabel(doc: BundleDocument): string | undefined {
  const e = doc.evaluator;
  if (e === undefined) return undefined;
  return [...new Set([e.kind, e.model, e.promptVersion].filter(Boolean))].join(" ");
}
