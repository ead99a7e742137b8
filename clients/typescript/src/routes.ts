/**
 * Generated from openapi.json by scripts/generate.ts: do not edit.
 * Regenerate with `npm run sdk:generate` after openapi.json changes (`npm run openapi` does both).
 */

export const ROUTES = {
  listPets: { method: "GET", path: "/pets", input: "query", paged: true },
  createPet: { method: "POST", path: "/pets", input: "body", paged: false },
  getPet: { method: "GET", path: "/pets/{petId}", input: null, paged: false },
  listCategories: { method: "GET", path: "/categories", input: null, paged: false },
  listOrders: { method: "GET", path: "/store/orders", input: "query", paged: true },
  placeOrder: { method: "POST", path: "/store/orders", input: "body", paged: false },
  getOrder: { method: "GET", path: "/store/orders/{orderId}", input: null, paged: false },
  updateOrder: { method: "PATCH", path: "/store/orders/{orderId}", input: "body", paged: false },
} as const;
