/**
 * Generated from openapi.json by scripts/generate.ts: do not edit.
 * Regenerate with `npm run sdk:generate` after openapi.json changes (`npm run openapi` does both).
 */

export const ROUTES = {
  listPets: { method: "GET", path: "/pets", input: "query", paged: true, idempotent: false },
  createPet: { method: "POST", path: "/pets", input: "body", paged: false, idempotent: true },
  getPet: { method: "GET", path: "/pets/{petId}", input: null, paged: false, idempotent: false },
  listCategories: { method: "GET", path: "/categories", input: null, paged: false, idempotent: false },
  listOrders: { method: "GET", path: "/store/orders", input: "query", paged: true, idempotent: false },
  placeOrder: { method: "POST", path: "/store/orders", input: "body", paged: false, idempotent: true },
  getOrder: { method: "GET", path: "/store/orders/{orderId}", input: null, paged: false, idempotent: false },
  updateOrder: { method: "PATCH", path: "/store/orders/{orderId}", input: "body", paged: false, idempotent: false },
  listEvents: { method: "GET", path: "/events", input: "query", paged: true, idempotent: false },
  listWebhooks: { method: "GET", path: "/webhooks", input: "query", paged: true, idempotent: false },
  createWebhook: { method: "POST", path: "/webhooks", input: "body", paged: false, idempotent: false },
  getWebhook: { method: "GET", path: "/webhooks/{webhookId}", input: null, paged: false, idempotent: false },
  deleteWebhook: { method: "DELETE", path: "/webhooks/{webhookId}", input: null, paged: false, idempotent: false },
  updateWebhook: { method: "PATCH", path: "/webhooks/{webhookId}", input: "body", paged: false, idempotent: false },
  rotateWebhookSecret: { method: "POST", path: "/webhooks/{webhookId}/rotate-secret", input: null, paged: false, idempotent: false },
  listWebhookDeliveries: { method: "GET", path: "/webhooks/{webhookId}/deliveries", input: "query", paged: true, idempotent: false },
  retryWebhookDelivery: { method: "POST", path: "/webhooks/{webhookId}/deliveries/{deliveryId}/retry", input: null, paged: false, idempotent: false },
} as const;
