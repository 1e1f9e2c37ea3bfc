/** The CRE SDK's test helpers import `bun:test`; under vitest that name is aliased here (vitest.config.ts). */
export { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, test } from "vitest";
