/**
 * Generated from openapi.json by scripts/generate.ts: do not edit.
 * Regenerate with `npm run sdk:generate` after openapi.json changes (`npm run openapi` does both).
 */

export const ROUTES = {
  listPets: { method: "GET", path: "/pets", input: "query", paged: true, idempotent: false },
  createPet: { method: "POST", path: "/pets", input: "body", paged: false, idempotent: true },
  getPet: { method: "GET", path: "/pets/{petId}", input: null, paged: false, idempotent: false },
  deletePet: { method: "DELETE", path: "/pets/{petId}", input: null, paged: false, idempotent: false },
  updatePet: { method: "PATCH", path: "/pets/{petId}", input: "body", paged: false, idempotent: false },
  listCategories: { method: "GET", path: "/categories", input: null, paged: false, idempotent: false },
  createCategory: { method: "POST", path: "/categories", input: "body", paged: false, idempotent: true },
  getCategory: { method: "GET", path: "/categories/{categoryId}", input: null, paged: false, idempotent: false },
  deleteCategory: { method: "DELETE", path: "/categories/{categoryId}", input: null, paged: false, idempotent: false },
  updateCategory: { method: "PATCH", path: "/categories/{categoryId}", input: "body", paged: false, idempotent: false },
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
  getInventory: { method: "GET", path: "/store/inventory", input: null, paged: false, idempotent: false },
  listKeys: { method: "GET", path: "/keys", input: "query", paged: true, idempotent: false },
  createKey: { method: "POST", path: "/keys", input: "body", paged: false, idempotent: true },
  getKey: { method: "GET", path: "/keys/{keyId}", input: null, paged: false, idempotent: false },
  revokeKey: { method: "DELETE", path: "/keys/{keyId}", input: null, paged: false, idempotent: false },
} as const;
