/**
 * Setup file of the integration project: after a test file's own hooks, fails the file when one of its
 * apps answered a response the OpenAPI document does not describe (src/platform/http/contract-check.ts),
 * listing each once. Every test through `app.inject` thereby checks the document.
 */
import { afterAll, beforeAll } from 'vitest';
import { contractViolations } from './test-app.js';

// Files share modules (`isolate: false`): each file starts with an empty list and reports only its own.
beforeAll(() => {
  contractViolations.length = 0;
});

afterAll(() => {
  const seen = [...new Set(contractViolations.map((v) => `${v.method} ${v.route} ${v.status}: ${v.problem}`))];
  contractViolations.length = 0;
  if (seen.length > 0) throw new Error(`responses the OpenAPI document does not describe:\n${seen.join('\n')}`);
});
