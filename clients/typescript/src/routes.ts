/**
 * Generated from openapi.json by scripts/generate.ts: do not edit.
 * Regenerate with `npm run sdk:generate` after openapi.json changes (`npm run openapi` does both).
 */

export const ROUTES = {
  listPets: { method: "GET", path: "/pets", input: "query", paged: true, headers: [], etag: false },
  createPet: { method: "POST", path: "/pets", input: "body", paged: false, headers: ["idempotency-key"], etag: true },
  getPet: { method: "GET", path: "/pets/{petId}", input: null, paged: false, headers: ["if-none-match"], etag: true },
  deletePet: { method: "DELETE", path: "/pets/{petId}", input: null, paged: false, headers: ["if-match"], etag: false },
  updatePet: { method: "PATCH", path: "/pets/{petId}", input: "body", paged: false, headers: ["if-match"], etag: true },
  listCategories: { method: "GET", path: "/categories", input: null, paged: false, headers: [], etag: false },
  createCategory: { method: "POST", path: "/categories", input: "body", paged: false, headers: ["idempotency-key"], etag: false },
  getCategory: { method: "GET", path: "/categories/{categoryId}", input: null, paged: false, headers: [], etag: false },
  deleteCategory: { method: "DELETE", path: "/categories/{categoryId}", input: null, paged: false, headers: [], etag: false },
  updateCategory: { method: "PATCH", path: "/categories/{categoryId}", input: "body", paged: false, headers: [], etag: false },
  listOrders: { method: "GET", path: "/store/orders", input: "query", paged: true, headers: [], etag: false },
  placeOrder: { method: "POST", path: "/store/orders", input: "body", paged: false, headers: ["idempotency-key"], etag: true },
  getOrder: { method: "GET", path: "/store/orders/{orderId}", input: null, paged: false, headers: ["if-none-match"], etag: true },
  updateOrder: { method: "PATCH", path: "/store/orders/{orderId}", input: "body", paged: false, headers: ["if-match"], etag: true },
  listEvents: { method: "GET", path: "/events", input: "query", paged: true, headers: [], etag: false },
  listWebhooks: { method: "GET", path: "/webhooks", input: "query", paged: true, headers: [], etag: false },
  createWebhook: { method: "POST", path: "/webhooks", input: "body", paged: false, headers: [], etag: false },
  getWebhook: { method: "GET", path: "/webhooks/{webhookId}", input: null, paged: false, headers: [], etag: false },
  deleteWebhook: { method: "DELETE", path: "/webhooks/{webhookId}", input: null, paged: false, headers: [], etag: false },
  updateWebhook: { method: "PATCH", path: "/webhooks/{webhookId}", input: "body", paged: false, headers: [], etag: false },
  rotateWebhookSecret: { method: "POST", path: "/webhooks/{webhookId}/rotate-secret", input: null, paged: false, headers: [], etag: false },
  listWebhookDeliveries: { method: "GET", path: "/webhooks/{webhookId}/deliveries", input: "query", paged: true, headers: [], etag: false },
  retryWebhookDelivery: { method: "POST", path: "/webhooks/{webhookId}/deliveries/{deliveryId}/retry", input: null, paged: false, headers: [], etag: false },
  getInventory: { method: "GET", path: "/store/inventory", input: null, paged: false, headers: [], etag: false },
  listKeys: { method: "GET", path: "/keys", input: "query", paged: true, headers: [], etag: false },
  createKey: { method: "POST", path: "/keys", input: "body", paged: false, headers: ["idempotency-key"], etag: false },
  getCallingKey: { method: "GET", path: "/keys/me", input: null, paged: false, headers: [], etag: false },
  getKey: { method: "GET", path: "/keys/{keyId}", input: null, paged: false, headers: [], etag: false },
  revokeKey: { method: "DELETE", path: "/keys/{keyId}", input: null, paged: false, headers: [], etag: false },
} as const;

/** Every error status (4xx, 5xx) the document lists for some operation. */
export const ERROR_STATUSES = [400,401,403,404,408,409,410,412,413,415,422,429,431,500,503,505] as const;
