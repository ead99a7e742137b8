/**
 * The guides the OpenAPI document refers to, served beside the reference page at /docs/<name>:
 * docs/api.md (the decisions and rules behind the document) and docs/events.md (events and webhooks).
 */
export const GUIDES = {
  'api.md': new URL('../docs/api.md', import.meta.url),
  'events.md': new URL('../docs/events.md', import.meta.url),
} as const;
