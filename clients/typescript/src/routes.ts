/**
 * Generated from openapi.json by scripts/generate.ts: do not edit.
 * Regenerate with `npm run sdk:generate` after openapi.json changes (`npm run openapi` does both).
 */

export const ROUTES = {
  listPets: { method: "GET", path: "/pets", input: "query", paged: true, headers: [], etag: false, binary: false },
  createPet: { method: "POST", path: "/pets", input: "body", paged: false, headers: ["idempotency-key"], etag: true, binary: false },
  bulkUpdatePets: { method: "POST", path: "/pets/bulk", input: "body", paged: false, headers: ["idempotency-key"], etag: false, binary: false },
  getPet: { method: "GET", path: "/pets/{petId}", input: null, paged: false, headers: ["if-none-match"], etag: true, binary: false },
  deletePet: { method: "DELETE", path: "/pets/{petId}", input: null, paged: false, headers: ["if-match"], etag: false, binary: false },
  updatePet: { method: "PATCH", path: "/pets/{petId}", input: "body", paged: false, headers: ["if-match"], etag: true, binary: false },
  listPetPhotos: { method: "GET", path: "/pets/{petId}/photos", input: null, paged: false, headers: [], etag: false, binary: false },
  addPetPhoto: { method: "POST", path: "/pets/{petId}/photos", input: "binary", paged: false, headers: [], etag: false, binary: false },
  deletePetPhoto: { method: "DELETE", path: "/pets/{petId}/photos/{photoId}", input: null, paged: false, headers: [], etag: false, binary: false },
  getPhoto: { method: "GET", path: "/photos/{hash}", input: null, paged: false, headers: ["if-none-match"], etag: true, binary: true },
  getPhotoThumbnail: { method: "GET", path: "/photos/{hash}/thumb", input: null, paged: false, headers: ["if-none-match"], etag: true, binary: true },
  listHealthRecords: { method: "GET", path: "/pets/{petId}/health", input: "query", paged: true, headers: [], etag: false, binary: false },
  addHealthRecord: { method: "POST", path: "/pets/{petId}/health", input: "body", paged: false, headers: ["idempotency-key"], etag: false, binary: false },
  getHealthRecord: { method: "GET", path: "/pets/{petId}/health/{recordId}", input: null, paged: false, headers: [], etag: false, binary: false },
  voidHealthRecord: { method: "POST", path: "/pets/{petId}/health/{recordId}/void", input: "body", paged: false, headers: [], etag: false, binary: false },
  listHealthDue: { method: "GET", path: "/health/due", input: "query", paged: true, headers: [], etag: false, binary: false },
  listCategories: { method: "GET", path: "/categories", input: null, paged: false, headers: [], etag: false, binary: false },
  createCategory: { method: "POST", path: "/categories", input: "body", paged: false, headers: ["idempotency-key"], etag: false, binary: false },
  getCategory: { method: "GET", path: "/categories/{categoryId}", input: null, paged: false, headers: [], etag: false, binary: false },
  deleteCategory: { method: "DELETE", path: "/categories/{categoryId}", input: null, paged: false, headers: [], etag: false, binary: false },
  updateCategory: { method: "PATCH", path: "/categories/{categoryId}", input: "body", paged: false, headers: [], etag: false, binary: false },
  listOrders: { method: "GET", path: "/store/orders", input: "query", paged: true, headers: [], etag: false, binary: false },
  placeOrder: { method: "POST", path: "/store/orders", input: "body", paged: false, headers: ["idempotency-key"], etag: true, binary: false },
  getOrder: { method: "GET", path: "/store/orders/{orderId}", input: null, paged: false, headers: ["if-none-match"], etag: true, binary: false },
  updateOrder: { method: "PATCH", path: "/store/orders/{orderId}", input: "body", paged: false, headers: ["if-match"], etag: true, binary: false },
  listEvents: { method: "GET", path: "/events", input: "query", paged: true, headers: [], etag: false, binary: false },
  listWebhooks: { method: "GET", path: "/webhooks", input: "query", paged: true, headers: [], etag: false, binary: false },
  createWebhook: { method: "POST", path: "/webhooks", input: "body", paged: false, headers: [], etag: false, binary: false },
  getWebhook: { method: "GET", path: "/webhooks/{webhookId}", input: null, paged: false, headers: [], etag: false, binary: false },
  deleteWebhook: { method: "DELETE", path: "/webhooks/{webhookId}", input: null, paged: false, headers: [], etag: false, binary: false },
  updateWebhook: { method: "PATCH", path: "/webhooks/{webhookId}", input: "body", paged: false, headers: [], etag: false, binary: false },
  rotateWebhookSecret: { method: "POST", path: "/webhooks/{webhookId}/rotate-secret", input: null, paged: false, headers: [], etag: false, binary: false },
  listWebhookDeliveries: { method: "GET", path: "/webhooks/{webhookId}/deliveries", input: "query", paged: true, headers: [], etag: false, binary: false },
  retryWebhookDelivery: { method: "POST", path: "/webhooks/{webhookId}/deliveries/{deliveryId}/retry", input: null, paged: false, headers: [], etag: false, binary: false },
  getInventory: { method: "GET", path: "/store/inventory", input: null, paged: false, headers: [], etag: false, binary: false },
  listKeys: { method: "GET", path: "/keys", input: "query", paged: true, headers: [], etag: false, binary: false },
  createKey: { method: "POST", path: "/keys", input: "body", paged: false, headers: ["idempotency-key"], etag: false, binary: false },
  getCallingKey: { method: "GET", path: "/keys/me", input: null, paged: false, headers: [], etag: false, binary: false },
  getKey: { method: "GET", path: "/keys/{keyId}", input: null, paged: false, headers: [], etag: false, binary: false },
  revokeKey: { method: "DELETE", path: "/keys/{keyId}", input: null, paged: false, headers: [], etag: false, binary: false },
  listKeyDescendants: { method: "GET", path: "/keys/{keyId}/descendants", input: "query", paged: true, headers: [], etag: false, binary: false },
} as const;

/** Every error status (4xx, 5xx) the document lists for some operation. */
export const ERROR_STATUSES = [400,401,403,404,408,409,410,412,413,415,422,429,431,500,503,505] as const;
