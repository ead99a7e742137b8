import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import { validate } from '@scalar/openapi-parser';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { runCli } from '../../src/cli/cli.ts';
import { loadConfig } from '../../src/config.ts';
import { ERROR_STATUS } from '../../src/errors.ts';
import { EVENT_TYPES, eventSchemaId } from '../../src/events/event.schemas.ts';
import { openSqlite } from '../../src/storage/sqlite/sqlite.storage.ts';
import type { Storage } from '../../src/storage/storage.ts';
import { buildTestApp } from '../helpers/app.ts';

// A loose view of the document: the tests walk it as plain JSON.
// biome-ignore lint/suspicious/noExplicitAny: the tests walk the document as untyped JSON.
type Json = Record<string, any>;
interface Operation {
  readonly method: string;
  readonly path: string;
  readonly op: Json;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const EVENT_OPERATIONS = [
  'listEvents',
  'createWebhook',
  'listWebhooks',
  'getWebhook',
  'updateWebhook',
  'deleteWebhook',
  'rotateWebhookSecret',
  'listWebhookDeliveries',
  'retryWebhookDelivery',
];

function operations(doc: Json): Operation[] {
  return Object.entries(doc.paths as Json).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m] !== undefined).map((method) => ({ method, path, op: item[method] as Json })),
  );
}

function byId(doc: Json, operationId: string): Json {
  const found = operations(doc).find((o) => o.op.operationId === operationId);
  assert.ok(found, `operation ${operationId} is missing from the document`);
  return found.op;
}

/** Follows a local JSON pointer (`#/a/b`); undefined when it leads nowhere. */
function resolvePointer(doc: Json, ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = doc;
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, key)) return undefined;
    node = (node as Json)[key];
  }
  return node;
}

function collectRefs(node: unknown, at = '#', out: { at: string; ref: string }[] = []): { at: string; ref: string }[] {
  if (Array.isArray(node)) {
    for (const [i, v] of node.entries()) collectRefs(v, `${at}/${i}`, out);
  } else if (node !== null && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') out.push({ at, ref: v });
      else collectRefs(v, `${at}/${k}`, out);
    }
  }
  return out;
}

/** The first few JSON paths at which two documents differ, for a readable failure message. */
function differences(a: unknown, b: unknown, at = '', out: string[] = []): string[] {
  if (out.length >= 10) return out;
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object' && Array.isArray(a) === Array.isArray(b)) {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)]))
      differences((a as Json)[k], (b as Json)[k], `${at}/${k.replaceAll('~', '~0').replaceAll('/', '~1')}`, out);
  } else if (JSON.stringify(a) !== JSON.stringify(b)) out.push(at || '/');
  return out;
}

/** The media-type objects of a response or request body. */
/** The responses an operation states itself: `default` is the shared ExchangeError, tested on its own. */
function ownResponses(op: Json): [string, Json][] {
  return Object.entries(op.responses as Json).filter(([status]) => status !== 'default');
}

function media(container: Json | undefined): Json[] {
  return Object.values((container?.content ?? {}) as Json);
}

function schemaOf(doc: Json, schema: Json): Json {
  return typeof schema.$ref === 'string' ? (resolvePointer(doc, schema.$ref) as Json) : schema;
}

async function generateLikeNpmScript(): Promise<unknown> {
  // package.json: "openapi": "PUBLIC_BASE_URL= STAGING_BASE_URL= node src/cli/main.ts openapi --out openapi.json"
  const out: string[] = [];
  const code = await runCli(['openapi'], { PUBLIC_BASE_URL: '', STAGING_BASE_URL: '' }, { out: (s) => out.push(s), err: (s) => out.push(s) });
  assert.equal(code, 0, out.join('\n'));
  return JSON.parse(out.join('\n'));
}

async function documentFor(env: Record<string, string>): Promise<Json> {
  const storage = openSqlite({ path: ':memory:' });
  const app = await buildApp({ config: loadConfig(env), storage });
  try {
    const res = await app.inject({ method: 'GET', url: '/v1/openapi.json' });
    assert.equal(res.statusCode, 200);
    return res.json();
  } finally {
    await app.close();
    await storage.close();
  }
}

const CATALOGUE_OPERATIONS = [
  'updatePet',
  'deletePet',
  'getInventory',
  'createCategory',
  'getCategory',
  'updateCategory',
  'deleteCategory',
  'createKey',
  'listKeys',
  'getKey',
  'revokeKey',
];
const SCOPE_OF: Record<string, string> = {
  listPets: 'pets:read',
  createPet: 'pets:write',
  getPet: 'pets:read',
  updatePet: 'pets:write',
  deletePet: 'pets:write',
  listCategories: 'pets:read',
  getCategory: 'pets:read',
  createCategory: 'categories:write',
  updateCategory: 'categories:write',
  deleteCategory: 'categories:write',
  listOrders: 'orders:read',
  placeOrder: 'orders:write',
  getOrder: 'orders:read',
  updateOrder: 'orders:write',
  getInventory: 'pets:read',
  createKey: 'keys:admin',
  listKeys: 'keys:admin',
  getKey: 'keys:admin',
  revokeKey: 'keys:admin',
  listEvents: 'events:read',
  addPetPhoto: 'pets:write',
  listPetPhotos: 'pets:read',
  deletePetPhoto: 'pets:write',
  ...Object.fromEntries(EVENT_OPERATIONS.slice(1).map((id) => [id, 'webhooks:admin'])),
  listActivity: 'activity:read',
  exportActivity: 'activity:read',
  listStaff: 'staff:read',
  getStaff: 'staff:read',
  inviteStaff: 'staff:admin',
  updateStaff: 'staff:admin',
  resetStaffPassword: 'staff:admin',
  deactivateStaff: 'staff:admin',
};
/** The photos themselves: served without a key (docs/api.md, "Photos"). */
const PUBLIC_OPERATIONS = ['getPhoto', 'getPhotoThumbnail'];
/** Public too: their proof is in the body (a password, a one-time link's token, a passkey's signature over a challenge). */
const SIGN_IN_OPERATIONS = ['signIn', 'acceptInvitation', 'passkeySignInOptions', 'signInWithPasskey'];
const ALL_OPERATIONS = [...Object.keys(SCOPE_OF), ...PUBLIC_OPERATIONS];
/** The operations that take a key (or a session): what the rules of authentication apply to. */
const keyed = <T extends { op: Json }>(ops: T[]): T[] =>
  ops.filter(({ op }) => !PUBLIC_OPERATIONS.includes(op.operationId) && !SIGN_IN_OPERATIONS.includes(op.operationId));
/** A key or a staff session's cookie (docs/api.md, "Sessions"). */
const SECURITY = [{ bearerAuth: [] }, { sessionCookie: [] }];

describe('committed openapi.json', () => {
  test('is exactly the document the code generates (run `npm run openapi` after changing a schema)', async () => {
    const committed = JSON.parse(await readFile(new URL('../../openapi.json', import.meta.url), 'utf8'));
    const generated = await generateLikeNpmScript();
    const diff = differences(generated, committed);
    assert.deepEqual(
      diff,
      [],
      `openapi.json is out of date with the code; run \`npm run openapi\` and commit the result. First differences at: ${diff.join(', ')}`,
    );
  });
});

describe('GET /v1/openapi.json', () => {
  test('is public: answers 200 without a key, with a valid key and with an unknown key, always the same document', async (t) => {
    const { app, auth } = await buildTestApp(t);
    const bodies = [];
    for (const headers of [{}, auth, { authorization: 'Bearer pst_not_a_real_key_0000000000000000' }]) {
      const res = await app.inject({ method: 'GET', url: '/v1/openapi.json', headers });
      assert.equal(res.statusCode, 200, `headers ${JSON.stringify(Object.keys(headers))}`);
      assert.match(String(res.headers['content-type']), /^application\/json/);
      assert.equal(res.headers['www-authenticate'], undefined);
      bodies.push(res.json());
    }
    assert.equal(bodies[0].openapi, '3.1.0');
    assert.deepEqual(bodies[1], bodies[0]);
    assert.deepEqual(bodies[2], bodies[0]);
  });

  test('servers is the relative /v1 when PUBLIC_BASE_URL and STAGING_BASE_URL are unset', async () => {
    const doc = await documentFor({});
    // Labelled for what it is: whatever server serves the document, not a production one.
    assert.deepEqual(doc.servers, [{ url: '/v1', description: 'This server' }]);
  });

  test('servers lists production then staging from PUBLIC_BASE_URL and STAGING_BASE_URL', async () => {
    const doc = await documentFor({ PUBLIC_BASE_URL: 'https://api.example.com/v1', STAGING_BASE_URL: 'https://staging.example.com/v1' });
    assert.deepEqual(
      doc.servers.map((s: Json) => [s.url, s.description]),
      [
        ['https://api.example.com/v1', 'Production'],
        ['https://staging.example.com/v1', 'Staging'],
      ],
    );
  });
});

describe('the OpenAPI document', () => {
  let storage: Storage;
  let app: FastifyInstance;
  let doc: Json;

  before(async () => {
    storage = openSqlite({ path: ':memory:' });
    app = await buildApp({ config: loadConfig({}), storage });
    doc = (await app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
  });
  after(async () => {
    await app.close();
    await storage.close();
  });

  test('is OpenAPI 3.1.0 and valid against the OpenAPI 3.1 specification schema', async () => {
    assert.equal(doc.openapi, '3.1.0');
    const result = await validate(structuredClone(doc));
    assert.deepEqual(result.errors, []);
    assert.equal(result.valid, true);
  });

  test('the validator rejects a broken document (the validity test can fail)', async () => {
    const broken = structuredClone(doc);
    broken.paths['/pets'].get.responses = 'none';
    assert.equal((await validate(broken)).valid, false);
  });

  test('every $ref resolves inside the document', () => {
    const refs = collectRefs(doc);
    assert.ok(refs.length > 10, 'the document uses component references');
    const dangling = refs.filter(({ ref }) => resolvePointer(doc, ref) === undefined).map(({ at, ref }) => `${at} → ${ref}`);
    assert.deepEqual(dangling, []);
  });

  test('components.schemas holds the shared models', () => {
    for (const name of [
      'Pet',
      'NewPet',
      'PetPatch',
      'Pets',
      'PetStatus',
      'Error',
      'Order',
      'NewOrder',
      'OrderUpdate',
      'Orders',
      'OrderStatus',
      'Category',
      'Categories',
      'NewCategory',
      'CategoryPatch',
      'Inventory',
      'Scope',
      'ApiKey',
      'ApiKeys',
      'NewApiKey',
      'CreatedApiKey',
    ]) {
      assert.ok(doc.components.schemas[name], `components.schemas.${name}`);
    }
    assert.deepEqual(doc.components.schemas.PetStatus.enum, ['available', 'pending', 'sold']);
    assert.deepEqual(doc.components.schemas.Error.required, ['code', 'message', 'status']);
  });

  test('documents the operations of the service, each with a unique operationId, a summary and a tag', () => {
    const ops = operations(doc);
    const ids = ops.map((o) => o.op.operationId);
    for (const id of ALL_OPERATIONS) {
      assert.ok(ids.includes(id), `operation ${id}`);
    }
    assert.equal(new Set(ids).size, ids.length, 'operationIds are unique');
    for (const { method, path, op } of ops) {
      assert.ok(op.summary, `${method} ${path} has a summary`);
      assert.ok(op.tags?.length === 1, `${method} ${path} has one tag`);
    }
    assert.equal(byId(doc, 'listPets').summary, 'List animals');
    assert.ok(doc.paths['/pets'].get && doc.paths['/pets'].post && doc.paths['/pets/{petId}'].get);
    assert.ok(doc.paths['/store/orders/{orderId}'].patch);
  });

  test('leaves out the public infrastructure routes (document, docs page, health)', () => {
    for (const path of Object.keys(doc.paths)) assert.doesNotMatch(path, /openapi|docs|healthz|readyz/);
  });

  test('declares the bearer scheme and applies it globally; each operation names the scope it needs in x-required-scopes and its description', () => {
    assert.deepEqual(doc.components.securitySchemes.bearerAuth, { ...doc.components.securitySchemes.bearerAuth, type: 'http', scheme: 'bearer' });
    assert.deepEqual(doc.security, SECURITY);
    assert.deepEqual(doc.components.securitySchemes.sessionCookie, {
      ...doc.components.securitySchemes.sessionCookie,
      type: 'apiKey',
      in: 'cookie',
      name: '__Host-petstore_session',
    });
    for (const [id, scope] of Object.entries(SCOPE_OF)) {
      const op = byId(doc, id);
      // No scopes in the requirement: OpenAPI keeps those for OAuth2 / OpenID Connect schemes.
      assert.deepEqual(op.security, SECURITY, id);
      assert.deepEqual(op['x-required-scopes'], [scope], id);
      assert.match(op.description, new RegExp(`Requires scope \`${scope}\``), id);
    }
    for (const { method, path, op } of keyed(operations(doc))) assert.notDeepEqual(op.security, [], `${method} ${path} must not be public`);
    for (const id of [...PUBLIC_OPERATIONS, ...SIGN_IN_OPERATIONS]) {
      assert.deepEqual(byId(doc, id).security, [], `${id} is public`);
      // signIn's 401 is a failed sign-in, not a refused key.
      if (id !== 'signIn' && id !== 'signInWithPasskey') assert.equal(byId(doc, id).responses['401'], undefined, `${id} refuses no key`);
    }
  });

  test('groups the tags Pets, Health, Store, Customers, Events, Webhooks, Keys, Staff, Sessions and Activity with x-tagGroups, and every operation tag is declared and grouped', () => {
    const tags = ['Activity', 'Customers', 'Events', 'Health', 'Keys', 'Pets', 'Sessions', 'Staff', 'Store', 'Webhooks'];
    assert.deepEqual(doc.tags.map((t: Json) => t.name).sort(), tags);
    for (const tag of doc.tags) assert.ok(tag.description, `tag ${tag.name} has a description`);
    const grouped = doc['x-tagGroups'].flatMap((g: Json) => g.tags);
    assert.deepEqual([...grouped].sort(), tags);
    assert.equal(byId(doc, 'createKey').tags[0], 'Keys');
    assert.equal(byId(doc, 'getInventory').tags[0], 'Store');
    assert.equal(byId(doc, 'createCategory').tags[0], 'Pets');
    for (const { method, path, op } of operations(doc)) assert.ok(grouped.includes(op.tags[0]), `${method} ${path} tag ${op.tags[0]}`);
    assert.equal(byId(doc, 'listPets').tags[0], 'Pets');
    assert.equal(byId(doc, 'listHealthDue').tags[0], 'Health');
    assert.ok(doc['x-tagGroups'].find((g: Json) => g.name === 'Pets').tags.includes('Health'), 'the health log is grouped with the animals');
    assert.equal(byId(doc, 'listOrders').tags[0], 'Store');
    assert.equal(byId(doc, 'listCustomers').tags[0], 'Customers');
  });

  test('marks getPet deprecated with x-deprecated-sunset 2030-12-05, and nothing else deprecated', () => {
    const getPet = byId(doc, 'getPet');
    assert.equal(getPet.deprecated, true);
    assert.equal(getPet['x-deprecated-sunset'], '2030-12-05');
    for (const { op } of operations(doc)) if (op.operationId !== 'getPet') assert.equal(op.deprecated, undefined, op.operationId);
  });

  test('marks listOrders beta, and placeOrder, getOrder, updateOrder, the catalogue, event and webhook operations experimental', () => {
    assert.equal(byId(doc, 'listOrders')['x-stability'], 'beta');
    for (const id of ['placeOrder', 'getOrder', 'updateOrder', ...CATALOGUE_OPERATIONS, ...EVENT_OPERATIONS])
      assert.equal(byId(doc, id)['x-stability'], 'experimental', id);
    for (const id of ['listPets', 'createPet', 'getPet', 'listCategories']) assert.equal(byId(doc, id)['x-stability'], undefined, id);
    for (const { op } of operations(doc)) if (op['x-stability'] !== undefined) assert.ok(['experimental', 'beta'].includes(op['x-stability']));
  });

  test('every response has a description, and every 4xx/5xx response has the Error body', () => {
    for (const { method, path, op } of operations(doc)) {
      for (const [status, response] of ownResponses(op)) {
        assert.ok(response.description && response.description !== 'Default Response', `${method} ${path} ${status} description`);
        if (Number(status) >= 400) {
          const schemas = media(response).map((m) => m.schema.$ref);
          assert.deepEqual(schemas, ['#/components/schemas/Error'], `${method} ${path} ${status} body`);
        }
      }
    }
  });

  test('every operation documents 401, 403, 500 and 503 (the public ones 500 and 503)', () => {
    for (const { method, path, op } of operations(doc)) {
      const statuses = PUBLIC_OPERATIONS.includes(op.operationId) || SIGN_IN_OPERATIONS.includes(op.operationId) ? ['503'] : ['401', '403', '503'];
      for (const status of statuses) assert.ok(op.responses[status], `${method} ${path} documents ${status}`);
      assert.deepEqual(op.responses.default, { $ref: '#/components/responses/ExchangeError' }, `${method} ${path} default`);
    }
  });

  test('If-Match and If-None-Match state the entity-tag list grammar (RFC 9110 §13.1.1) as a pattern clients can check', () => {
    const headers = operations(doc).flatMap(({ op }) => (op.parameters ?? []).filter((p: Json) => p.in === 'header' && /^if-(none-)?match$/.test(p.name)));
    assert.deepEqual([...new Set(headers.map((p: Json) => p.name))].sort(), ['if-match', 'if-none-match']);
    for (const p of headers) {
      assert.equal(p.schema.type, 'string');
      // As a JSON Schema validator (ECMA-262, with Unicode) reads it from the document.
      const grammar = new RegExp(p.schema.pattern, 'u');
      for (const good of ['*', ' * ', '"kP3v0bLQ7m2mX1Y9Zr4aQw"', 'W/"a", "b"', '"a" ,, "",\t"x\u00e9"', ',', ''])
        assert.ok(grammar.test(good), `${p.name}: ${good}`);
      for (const bad of ['{{7*7}}', 'a', '"a" "b"', 'W/a', 'w/"a"', '"a', '"a"b', '*, "a"', '"a b"', '"a\u0100"'])
        assert.ok(!grammar.test(bad), `${p.name}: ${bad}`);
    }
  });

  test('operations with parameters or a body document 400; those with a body also 413 and 415', () => {
    for (const { method, path, op } of operations(doc)) {
      const takesInput = (op.parameters?.length ?? 0) > 0 || op.requestBody !== undefined;
      if (takesInput) assert.ok(op.responses['400'], `${method} ${path} documents 400`);
      if (op.requestBody) {
        assert.ok(op.responses['413'], `${method} ${path} documents 413`);
        assert.ok(op.responses['415'], `${method} ${path} documents 415`);
      }
    }
  });

  test('operations addressing one resource by id document 404; getPet documents 410', () => {
    for (const { method, path, op } of operations(doc)) {
      if (op.parameters?.some((p: Json) => p.in === 'path')) assert.ok(op.responses['404'], `${method} ${path} documents 404`);
    }
    assert.ok(byId(doc, 'getPet').responses['410']);
  });

  test('creating operations answer 201 with the created resource, and never 200', () => {
    for (const [id, schema] of [
      ['createPet', 'Pet'],
      ['placeOrder', 'Order'],
      ['createCategory', 'Category'],
      ['createKey', 'CreatedApiKey'],
    ]) {
      const responses = byId(doc, id).responses;
      assert.equal(responses['200'], undefined, id);
      const created = media(responses['201'])[0].schema;
      assert.deepEqual(schemaOf(doc, created).required, doc.components.schemas[schema].required, id);
    }
  });

  test('every error response has one named example per code it can carry, with that status', () => {
    for (const { method, path, op } of operations(doc)) {
      for (const [status, response] of ownResponses(op)) {
        if (Number(status) < 400) continue;
        const where = `${method} ${path} ${status}`;
        const examples = Object.entries((media(response)[0].examples ?? {}) as Json);
        assert.ok(examples.length > 0, `${where} has examples`);
        for (const [name, { value }] of examples) {
          assert.equal(value.code, name, where);
          assert.equal(ERROR_STATUS[value.code as keyof typeof ERROR_STATUS], Number(status), `${where}: ${value.code} is not a ${status} code`);
          assert.equal(value.status, Number(status), where);
          assert.ok(value.message, where);
          assert.ok(response.description.includes(`\`${value.code}\``), `${where} description names ${value.code}`);
        }
      }
    }
    const badRequest = Object.keys(media(byId(doc, 'createPet').responses['400'])[0].examples);
    assert.deepEqual(badRequest, ['validation_failed', 'invalid_json', 'unknown_category', 'bad_request']);
  });

  test('documents the response headers clients rely on', () => {
    const headerNames = (op: Json, status: string) => Object.keys(op.responses[status].headers ?? {});
    for (const id of ['createPet', 'placeOrder', 'createCategory', 'createKey'])
      assert.ok(headerNames(byId(doc, id), '201').includes('Location'), `${id} 201 Location`);
    for (const id of ['listPets', 'listOrders', 'listKeys']) assert.ok(headerNames(byId(doc, id), '200').includes('Link'), `${id} 200 Link`);
    const getPet = byId(doc, 'getPet');
    for (const [status] of ownResponses(getPet)) {
      assert.deepEqual(
        headerNames(getPet, status).filter((h) => ['Deprecation', 'Sunset', 'Link'].includes(h)),
        ['Deprecation', 'Sunset', 'Link'],
        `getPet ${status}`,
      );
    }
    assert.equal(schemaOf(doc, getPet.responses['200'].headers.Sunset).schema.examples[0], 'Thu, 05 Dec 2030 00:00:00 GMT');
    assert.equal(schemaOf(doc, getPet.responses['200'].headers.Deprecation).schema.examples[0], '@1767225600', '2026-01-01, the date docs/api.md gives');
    for (const { method, path, op } of keyed(operations(doc))) {
      assert.ok(headerNames(op, '401').includes('WWW-Authenticate'), `${method} ${path} 401 WWW-Authenticate`);
      if (op.operationId !== 'getPet') assert.equal(op.responses['200']?.headers?.Deprecation, undefined);
    }
  });

  test('request bodies and success responses reference the shared models instead of repeating them', () => {
    const expected: Record<string, [body: string | undefined, success: string | undefined]> = {
      listPets: [undefined, 'Pets'],
      createPet: ['NewPet', 'Pet'],
      getPet: [undefined, 'Pet'],
      updatePet: ['PetPatch', 'Pet'],
      deletePet: [undefined, undefined],
      listCategories: [undefined, 'Categories'],
      createCategory: ['NewCategory', 'Category'],
      getCategory: [undefined, 'Category'],
      updateCategory: ['CategoryPatch', 'Category'],
      deleteCategory: [undefined, undefined],
      listOrders: [undefined, 'Orders'],
      placeOrder: ['NewOrder', 'Order'],
      getOrder: [undefined, 'Order'],
      updateOrder: ['OrderUpdate', 'Order'],
      listEvents: [undefined, 'Events'],
      createWebhook: ['NewWebhook', 'WebhookWithSecret'],
      listWebhooks: [undefined, 'Webhooks'],
      getWebhook: [undefined, 'Webhook'],
      updateWebhook: ['WebhookUpdate', 'Webhook'],
      rotateWebhookSecret: [undefined, 'WebhookWithSecret'],
      listWebhookDeliveries: [undefined, 'Deliveries'],
      retryWebhookDelivery: [undefined, 'Delivery'],
      getInventory: [undefined, 'Inventory'],
      createKey: ['NewApiKey', 'CreatedApiKey'],
      listKeys: [undefined, 'ApiKeys'],
      getKey: [undefined, 'ApiKey'],
      revokeKey: [undefined, undefined],
      deleteWebhook: [undefined, undefined],
      listPetPhotos: [undefined, 'Photos'],
      deletePetPhoto: [undefined, undefined],
      listStaff: [undefined, 'StaffList'],
      getStaff: [undefined, 'Staff'],
      inviteStaff: ['NewStaff', 'InvitedStaff'],
      updateStaff: ['StaffPatch', 'Staff'],
      resetStaffPassword: [undefined, 'InvitedStaff'],
      deactivateStaff: [undefined, 'Staff'],
      listActivity: [undefined, 'ActivityEntries'],
    };
    // The operations whose bytes are an image (the upload's body, the photos served) or CSV.
    const binary = ['addPetPhoto', 'exportActivity', ...PUBLIC_OPERATIONS];
    assert.deepEqual(Object.keys(expected).sort(), ALL_OPERATIONS.filter((id) => !binary.includes(id)).sort());
    const upload = byId(doc, 'addPetPhoto');
    assert.deepEqual(Object.keys(upload.requestBody.content), ['image/jpeg', 'image/png', 'image/webp']);
    for (const status of ['200', '201']) assert.equal(media(upload.responses[status])[0].schema.$ref, '#/components/schemas/Photo');
    assert.deepEqual(Object.keys(byId(doc, 'getPhoto').responses['200'].content), ['image/jpeg', 'image/png', 'image/webp']);
    assert.deepEqual(Object.keys(byId(doc, 'getPhotoThumbnail').responses['200'].content), ['image/webp']);
    for (const [id, [body, success]] of Object.entries(expected)) {
      const op = byId(doc, id);
      for (const m of media(op.requestBody)) assert.equal(m.schema.$ref, body && `#/components/schemas/${body}`, `${id} request body`);
      assert.equal(op.requestBody === undefined, body === undefined, `${id} has a body`);
      const [status] = Object.keys(op.responses).filter((s) => s.startsWith('2'));
      if (success === undefined) {
        assert.equal(status, '204', id);
        assert.equal(op.responses['204'].content, undefined, `${id} 204 has no body`);
      } else assert.equal(media(op.responses[status])[0].schema.$ref, `#/components/schemas/${success}`, `${id} ${status}`);
    }
  });

  test('the merge-patch operations accept application/merge-patch+json and application/json', () => {
    for (const id of ['updatePet', 'updateCategory']) {
      assert.deepEqual(Object.keys(byId(doc, id).requestBody.content), ['application/merge-patch+json', 'application/json'], id);
    }
    assert.deepEqual(Object.keys(byId(doc, 'updateOrder').requestBody.content), ['application/json']);
  });

  test('documents entity tags: ETag on every response carrying one pet, order or customer, If-Match and 412 on the conditional writes, If-None-Match and 304 on the reads', () => {
    const headerNames = (op: Json, status: string) => Object.keys(op.responses[status]?.headers ?? {});
    const parameter = (op: Json, name: string) => (op.parameters ?? []).find((p: Json) => p.in === 'header' && p.name === name);
    for (const [id, status] of [
      ['createPet', '201'],
      ['getPet', '200'],
      ['getPet', '304'],
      ['updatePet', '200'],
      ['placeOrder', '201'],
      ['getOrder', '200'],
      ['getOrder', '304'],
      ['updateOrder', '200'],
      ['createCustomer', '201'],
      ['getCustomer', '200'],
      ['getCustomer', '304'],
      ['updateCustomer', '200'],
      ['convertHold', '201'],
    ]) {
      assert.ok(headerNames(byId(doc, id), status).includes('ETag'), `${id} ${status} ETag`);
    }
    for (const id of ['updatePet', 'deletePet', 'updateOrder', 'updateCustomer', 'deleteCustomer']) {
      const op = byId(doc, id);
      assert.ok(parameter(op, 'if-match'), `${id} takes If-Match`);
      assert.deepEqual(Object.keys(media(op.responses['412'])[0].examples), ['precondition_failed'], `${id} 412`);
    }
    for (const id of ['getPet', 'getOrder', 'getCustomer']) {
      const op = byId(doc, id);
      assert.ok(parameter(op, 'if-none-match'), `${id} takes If-None-Match`);
      assert.equal(op.responses['304'].content, undefined, `${id} 304 has no body`);
    }
    for (const h of ['Deprecation', 'ETag', 'Link', 'Sunset']) assert.ok(headerNames(byId(doc, 'getPet'), '304').includes(h), `getPet 304 ${h}`);
    // A photo's tag is its hash, on its 200 and 304 (and the 304 has no body).
    for (const id of PUBLIC_OPERATIONS) {
      for (const status of ['200', '304']) assert.ok(headerNames(byId(doc, id), status).includes('ETag'), `${id} ${status} ETag`);
      assert.ok(parameter(byId(doc, id), 'if-none-match'), `${id} takes If-None-Match`);
      assert.equal(byId(doc, id).responses['304'].content, undefined);
    }
    for (const { op } of operations(doc)) {
      const tagged = [
        'createPet',
        'getPet',
        'updatePet',
        'placeOrder',
        'getOrder',
        'updateOrder',
        'createCustomer',
        'getCustomer',
        'updateCustomer',
        'convertHold',
      ];
      if (![...tagged, ...PUBLIC_OPERATIONS].includes(op.operationId)) {
        for (const status of Object.keys(op.responses)) assert.ok(!headerNames(op, status).includes('ETag'), `${op.operationId} ${status} has no ETag`);
      }
    }
    assert.deepEqual(Object.keys(media(byId(doc, 'updatePet').responses['409'])[0].examples), ['pet_has_open_order', 'microchip_in_use']);
    assert.deepEqual(Object.keys(media(byId(doc, 'deleteCategory').responses['409'])[0].examples), ['category_in_use']);
    assert.deepEqual(Object.keys(media(byId(doc, 'createCategory').responses['409'])[0].examples), ['category_exists', 'idempotency_key_in_use']);
  });

  test('carries examples: on every object model, every request body and every success response', () => {
    for (const [name, schema] of Object.entries(doc.components.schemas as Json)) {
      if (schema.type === 'object') assert.ok(schema.examples?.length > 0, `components.schemas.${name} has examples`);
    }
    for (const { method, path, op } of operations(doc)) {
      // JSON bodies; an image's bytes have no example to give.
      const json = (container: Json | undefined) => (container?.content?.['application/json'] ? [container.content['application/json']] : []);
      const bodies = [
        ...json(op.requestBody),
        ...Object.entries(op.responses as Json)
          .filter(([s]) => s.startsWith('2'))
          .flatMap(([, r]) => json(r)),
      ];
      for (const m of bodies) {
        const schema = schemaOf(doc, m.schema);
        const items = schema.type === 'array' ? schemaOf(doc, schema.items) : undefined;
        const hasExample = m.example !== undefined || m.examples !== undefined || schema.examples?.length > 0 || items?.examples?.length > 0;
        assert.ok(hasExample, `${method} ${path}: a body without an example`);
      }
    }
  });

  /** The header objects of a response, references resolved. */
  const headersOf = (response: Json): Record<string, Json> =>
    Object.fromEntries(Object.entries((response.headers ?? {}) as Json).map(([name, h]) => [name, schemaOf(doc, h as Json)]));
  const required = (response: Json) =>
    Object.entries(headersOf(response))
      .filter(([, h]) => h.required === true)
      .map(([name]) => name);

  test('headers that are always present are required: X-Request-Id everywhere, Location on 201, Retry-After on 429 and 503, the deprecation headers on getPet', () => {
    for (const { method, path, op } of operations(doc)) {
      for (const [status, response] of ownResponses(op)) {
        const where = `${method} ${path} ${status}`;
        const names = required(response);
        assert.ok(names.includes('X-Request-Id'), `${where} X-Request-Id`);
        if (status === '201') assert.ok(names.includes('Location'), `${where} Location`);
        if (status === '429' || status === '503') assert.ok(names.includes('Retry-After'), `${where} Retry-After`);
        if (status === '401') assert.ok(names.includes('WWW-Authenticate'), `${where} WWW-Authenticate`);
        if (op.operationId === 'getPet') for (const h of ['Deprecation', 'Sunset', 'Link']) assert.ok(names.includes(h), `${where} ${h}`);
      }
    }
  });

  test('RateLimit and RateLimit-Policy are documented headers, required on answers to a counted key, never on 401', () => {
    for (const id of [...PUBLIC_OPERATIONS, ...SIGN_IN_OPERATIONS])
      for (const response of Object.values(byId(doc, id).responses as Json))
        assert.equal((response as Json).headers?.RateLimit, undefined, `${id}: no key counted`);
    for (const { method, path, op } of keyed(operations(doc))) {
      const success = Object.keys(op.responses).find((s) => s.startsWith('2'))!;
      assert.deepEqual(
        required(op.responses[success]).filter((h) => h.startsWith('RateLimit')),
        ['RateLimit-Policy', 'RateLimit'],
        `${method} ${path} ${success}`,
      );
      assert.equal(headersOf(op.responses['401']).RateLimit, undefined, `${method} ${path} 401`);
      assert.ok(headersOf(op.responses['429']).RateLimit, `${method} ${path} 429 documents RateLimit`);
    }
    const policy = doc.components.headers['RateLimit-Policy'].schema;
    assert.ok(new RegExp(policy.pattern).test('"default";q=600;w=60'));
  });

  test('without RATE_LIMIT_PER_MINUTE the RateLimit fields are not promised', async () => {
    const plain = await documentFor({ RATE_LIMIT_PER_MINUTE: '0' });
    for (const { op } of operations(plain))
      for (const response of Object.values(op.responses as Json)) assert.equal((response as Json).headers?.RateLimit, undefined);
  });

  test("states the exchange errors (408, 431, 500, 505) once, as every operation's default response, each status with its code", () => {
    const shared = doc.components.responses.ExchangeError;
    for (const [status, code] of [
      [408, 'request_timeout'],
      [431, 'request_header_fields_too_large'],
      [500, 'internal_error'],
      [505, 'http_version_not_supported'],
    ] as const) {
      assert.match(shared.description, new RegExp(`\\*\\*${status}\\*\\*: [^\\n]*\`${code}\``));
      assert.equal(media(shared)[0].examples[code].value.status, status);
      assert.equal(ERROR_STATUS[code], status);
    }
    assert.deepEqual(media(shared)[0].schema, { $ref: '#/components/schemas/Error' });
    assert.deepEqual(Object.keys(shared.headers), ['X-Request-Id', 'X-Content-Type-Options', 'Cache-Control']);
    for (const { method, path, op } of operations(doc)) {
      for (const status of ['408', '431', '500', '505']) assert.equal(op.responses[status], undefined, `${method} ${path} lists ${status} itself`);
    }
  });

  test('every operation documents 400 naming bad_request, and 408, 431, 503 and 505', () => {
    for (const { method, path, op } of operations(doc)) {
      assert.match(op.responses['400']?.description ?? '', /`bad_request`/, `${method} ${path} 400`);
      assert.match(op.responses['400'].description, /`validation_failed`/, `${method} ${path} 400`);
      assert.ok(op.responses['503'], `${method} ${path} documents 503`);
      assert.ok(op.responses.default, `${method} ${path} documents 408, 431 and 505 (default)`);
    }
  });

  test('the lone-surrogate rule of names is in the name schema', () => {
    assert.match(doc.components.schemas.NewPet.properties.name.description, /lone UTF-16 surrogate[\s\S]*refused, 400 `invalid_json`/);
  });

  test('Idempotency-Key states the rule the service applies: the documented pattern accepts exactly the keys the service accepts', async (t) => {
    const param = byId(doc, 'createPet').parameters.find((p: Json) => p.name.toLowerCase() === 'idempotency-key');
    assert.equal(param.in, 'header');
    assert.equal(param.schema.minLength, 1);
    const pattern = new RegExp(param.schema.pattern, 'u');
    const { app: service, auth } = await buildTestApp(t);
    const keys = ['a', '"quoted"', '"', '""', 'x'.repeat(255), 'x'.repeat(256), `"${'x'.repeat(255)}"`, 'with space', 'tab\there', 'é', '~!@#'];
    for (const key of keys) {
      const res = await service.inject({
        method: 'POST',
        url: '/v1/pets',
        headers: { ...auth, 'idempotency-key': key },
        payload: { name: 'Rex', categoryId: 1 },
      });
      assert.equal(res.statusCode === 201, pattern.test(key), `key ${JSON.stringify(key)}: service ${res.statusCode}, pattern ${pattern.test(key)}`);
    }
  });

  test('the service sends every header the document marks required (a request per status of each operation)', async (t) => {
    const { app: service, auth } = await buildTestApp(t);
    const created = await service.inject({ method: 'POST', url: '/v1/pets', headers: auth, payload: { name: 'Rex', categoryId: 1 } });
    const order = await service.inject({ method: 'POST', url: '/v1/store/orders', headers: auth, payload: { petId: created.json().id } });
    const spare = await service.inject({ method: 'POST', url: '/v1/pets', headers: auth, payload: { name: 'Spare', categoryId: 1 } });
    const requests: [operationId: string, method: string, url: string, headers: Record<string, string>, payload?: object][] = [
      ['listPets', 'GET', '/v1/pets', auth],
      ['listPets', 'GET', '/v1/pets?limit=0', auth],
      ['listPets', 'GET', '/v1/pets', {}],
      ['createPet', 'POST', '/v1/pets', auth, { name: 'Max', categoryId: 1 }],
      ['createPet', 'POST', '/v1/pets', auth, { name: '' }],
      ['getPet', 'GET', `/v1/pets/${created.json().id}`, auth],
      ['getPet', 'GET', '/v1/pets/999', auth],
      ['getPet', 'GET', '/v1/pets/%zz', auth],
      ['getPet', 'GET', '/v1/pets/1', {}],
      ['listCategories', 'GET', '/v1/categories', auth],
      ['listCategories', 'GET', '/v1/categories?x=1', auth],
      ['listOrders', 'GET', '/v1/store/orders', auth],
      ['placeOrder', 'POST', '/v1/store/orders', auth, { petId: created.json().id }],
      ['getOrder', 'GET', `/v1/store/orders/${order.json().id}`, auth],
      ['getOrder', 'GET', '/v1/store/orders/0x1', auth],
      ['updateOrder', 'PATCH', `/v1/store/orders/${order.json().id}`, auth, { status: 'delivered' }],
      ['updateOrder', 'PATCH', '/v1/store/orders/999', auth, { status: 'approved' }],
      // The catalogue: every status of its own, conditional requests included.
      ['getPet', 'GET', `/v1/pets/${created.json().id}`, { ...auth, 'if-none-match': '*' }],
      ['getOrder', 'GET', `/v1/store/orders/${order.json().id}`, { ...auth, 'if-none-match': '*' }],
      ['updatePet', 'PATCH', `/v1/pets/${created.json().id}`, auth, { name: 'Rex II' }],
      ['updatePet', 'PATCH', `/v1/pets/${created.json().id}`, { ...auth, 'if-match': '"stale"' }, { name: 'Rex III' }],
      ['updatePet', 'PATCH', `/v1/pets/${spare.json().id}`, auth, { categoryId: 999 }],
      ['updatePet', 'PATCH', '/v1/pets/999', auth, { name: 'x' }],
      ['deletePet', 'DELETE', `/v1/pets/${spare.json().id}`, { ...auth, 'if-match': '"stale"' }],
      ['deletePet', 'DELETE', `/v1/pets/${spare.json().id}`, auth],
      ['deletePet', 'DELETE', `/v1/pets/${spare.json().id}`, auth],
      ['getInventory', 'GET', '/v1/store/inventory', auth],
      ['getInventory', 'GET', '/v1/store/inventory?x=1', auth],
      ['createCategory', 'POST', '/v1/categories', auth, { name: 'Horses' }],
      ['createCategory', 'POST', '/v1/categories', auth, { name: 'horses' }],
      ['getCategory', 'GET', '/v1/categories/1', auth],
      ['getCategory', 'GET', '/v1/categories/99', auth],
      ['updateCategory', 'PATCH', '/v1/categories/2', auth, { name: 'Kittens' }],
      ['deleteCategory', 'DELETE', '/v1/categories/1', auth],
      ['deleteCategory', 'DELETE', '/v1/categories/6', auth],
      ['createKey', 'POST', '/v1/keys', auth, { name: 'reader', scopes: ['pets:read'] }],
      ['createKey', 'POST', '/v1/keys', auth, { name: 'late', expiresAt: '2001-01-01T00:00:00Z' }],
      ['listKeys', 'GET', '/v1/keys', auth],
      ['getKey', 'GET', '/v1/keys/1', auth],
      ['revokeKey', 'DELETE', '/v1/keys/999', auth],
      ['revokeKey', 'DELETE', '/v1/keys/2', auth],
      ['listPetPhotos', 'GET', `/v1/pets/${created.json().id}/photos`, auth],
      ['listPetPhotos', 'GET', '/v1/pets/999/photos', auth],
      ['deletePetPhoto', 'DELETE', `/v1/pets/${created.json().id}/photos/9`, auth],
      ['getPhoto', 'GET', `/v1/photos/${'a'.repeat(64)}`, {}],
      ['getPhoto', 'GET', '/v1/photos/nothex', {}],
      ['getPhotoThumbnail', 'GET', `/v1/photos/${'a'.repeat(64)}/thumb`, {}],
    ];
    for (const [id, method, url, headers, payload] of requests) {
      const res = await service.inject({ method: method as 'GET', url, headers, payload });
      const documented = byId(doc, id).responses[String(res.statusCode)];
      assert.ok(documented, `${id} ${method} ${url}: ${res.statusCode} is documented`);
      assert.ok(required(documented).includes('X-Request-Id'), `${id} ${res.statusCode}: the document promises headers`);
      for (const name of required(documented)) assert.ok(res.headers[name.toLowerCase()] !== undefined, `${id} ${res.statusCode}: ${name}`);
    }
  });

  test('the webhooks section describes each event type the service sends: its body schema, the Standard Webhooks headers, what counts as received', () => {
    assert.deepEqual(Object.keys(doc.webhooks), [...EVENT_TYPES]);
    for (const type of EVENT_TYPES) {
      const post = doc.webhooks[type].post;
      const body = media(post.requestBody)[0];
      const schema = schemaOf(doc, body.schema);
      assert.equal(body.schema.$ref, `#/components/schemas/${eventSchemaId(type)}`, type);
      assert.deepEqual(schema.properties.type.enum, [type]);
      assert.deepEqual(schema.required, ['id', 'type', 'createdAt', 'data']);
      assert.equal(body.example.type, type);
      assert.deepEqual(
        post.parameters.map((p: Json) => [p.name, p.in, p.required]),
        ['webhook-id', 'webhook-timestamp', 'webhook-signature', 'user-agent'].map((name) => [name, 'header', true]),
      );
      assert.ok(post.responses['2XX'].description && post.responses.default.description);
      assert.deepEqual(post.security, []);
    }
    const pet = schemaOf(doc, doc.components.schemas.PetUpdatedEvent.properties.data);
    assert.equal(pet, doc.components.schemas.Pet, 'data of pet.updated is the Pet');
    assert.deepEqual(doc.components.schemas.PetDeletedEvent.properties.data.required, ['id']);
    assert.deepEqual(
      doc.components.schemas.Event.oneOf.map((s: Json) => s.$ref),
      EVENT_TYPES.map((type) => `#/components/schemas/${eventSchemaId(type)}`),
    );
  });
});
