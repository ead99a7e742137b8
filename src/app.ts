import Fastify, { LogController, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import fp from 'fastify-plugin';
import { systemClock, type Clock } from './clock.ts';
import type { Config } from './config.ts';
import { lazyChildLogger } from './logger.ts';
import { categoryRoutes } from './categories/category.routes.ts';
import { Categories, Category, CategoryPatch, NewCategory } from './categories/category.schemas.ts';
import { CategoryService } from './categories/category.service.ts';
import { customerRoutes } from './customers/customer.routes.ts';
import {
  Address,
  Customer,
  CustomerErasure,
  CustomerExport,
  CustomerPatch,
  CustomerRecord,
  Customers,
  ListedCustomer,
  NewCustomer,
} from './customers/customer.schemas.ts';
import { CustomerService, saleRetentionJob } from './customers/customer.service.ts';
import { dealerBookRoutes } from './records/dealer-book.routes.ts';
import { holdRoutes } from './holds/hold.routes.ts';
import { Hold, HoldCancel, Holds, HoldState, NewHold } from './holds/hold.schemas.ts';
import { HoldService, holdExpiryJob } from './holds/hold.service.ts';
import { healthRoutes } from './health/health.routes.ts';
import { HealthRecord, HealthRecords, HealthVoid, NewHealthRecord } from './health/health.schemas.ts';
import { HealthService } from './health/health.service.ts';
import { authentication } from './http/policies/auth.ts';
import { corsPlugin } from './http/policies/cors.ts';
import { idempotencyPlugin, idempotencyPurge } from './http/policies/idempotency.ts';
import { jsonBodyPlugin } from './http/edge/json-body.ts';
import { serverOptions } from './http/edge/limits.ts';
import { buildLimits, type Limits } from './http/policies/rate-limit.ts';
import { ErrorBody } from './schemas.ts';
import { deprecationPlugin } from './http/policies/deprecation.ts';
import { consolePlugin } from './http/ops/console.ts';
import { docsPlugin } from './http/ops/docs.ts';
import { frontDoorPlugin } from './http/ops/front-door.ts';
import { printPlugin } from './http/ops/print.ts';
import { edgeOptions, edgePlugin } from './http/edge/edge.ts';
import { errorHandlerPlugin, sendError } from './http/policies/error-handler.ts';
import { Metrics } from './http/ops/metrics.ts';
import { metricsOnApiPort, opsRoutesPlugin } from './http/ops/ops.routes.ts';
import { requestId, requestIdPlugin } from './http/edge/request-id.ts';
import { telemetryPlugin } from './http/ops/telemetry.ts';
import { methodNotAllowed } from './http/edge/method-not-allowed.ts';
import { openApiPlugin } from './http/ops/openapi.ts';
import { CursorCodec } from './paging.ts';
import { bodyValidator, validationPlugin } from './http/policies/validation.ts';
import { petCsvColumns } from './imports/import.csv.ts';
import { importRoutes } from './imports/import.routes.ts';
import { ImportJob } from './imports/import.schemas.ts';
import { ImportService } from './imports/import.service.ts';
import { cachedSerializerFactory } from './http/policies/serialization.ts';
import { keyRoutes } from './keys/key.routes.ts';
import { ApiKey, ApiKeys, CallingKey, CreatedApiKey, NewApiKey, ScopeSchema } from './keys/key.schemas.ts';
import { KeyService, KeyVerifier } from './keys/key.service.ts';
import { petRoutes } from './pets/pet.routes.ts';
import { sessionRoutes } from './staff/session.routes.ts';
import { CurrentSession, NewSession, Session, Sessions } from './staff/session.schemas.ts';
import { Passkey, PasskeyAssertion, PasskeyOptions, PasskeyRegistration, Passkeys } from './staff/passkey.schemas.ts';
import { passkeyRoutes } from './staff/passkey.routes.ts';
import { PasskeyService } from './staff/passkey.service.ts';
import { SessionService } from './staff/session.service.ts';
import { PasswordHasher } from './staff/staff.password.ts';
import { staffRoutes } from './staff/staff.routes.ts';
import { AcceptInvitation, InvitedStaff, NewStaff, PasswordChange, RoleSchema, Staff, StaffList, StaffPatch } from './staff/staff.schemas.ts';
import { StaffService } from './staff/staff.service.ts';
import { BulkPetChange, BulkResult, ListedPet, NewPet, Pet, PetPatch, PetStatus, Pets, Price } from './pets/pet.schemas.ts';
import { applyRecordRule, indexUnindexedPets, PetService } from './pets/pet.service.ts';
import { recordRule } from './pets/pet.record.ts';
import { photoRoutes } from './photos/photo.routes.ts';
import { Photo, Photos } from './photos/photo.schemas.ts';
import { PhotoService } from './photos/photo.service.ts';
import type { Storage } from './storage/storage.ts';
import { inventoryRoutes } from './store/inventory.routes.ts';
import { Inventory } from './store/inventory.schemas.ts';
import { orderRoutes } from './store/order.routes.ts';
import { NewOrder, Order, OrderStatus, OrderUpdate, Orders, SaleMethod } from './store/order.schemas.ts';
import { OrderService } from './store/order.service.ts';
import { BillOfSaleService } from './store/bill-of-sale.service.ts';
import { EVENT_SCHEMAS, Event, Events, EventTypeSchema } from './events/event.schemas.ts';
import { activityRoutes } from './activity/activity.routes.ts';
import { Actor, ActivityEntries, ActivityEntry, Changes } from './activity/activity.schemas.ts';
import { ActivityService, activityRetention, activityRetentionJob } from './activity/activity.service.ts';
import { eventRoutes } from './events/event.routes.ts';
import { EventService, retentionJob } from './events/event.service.ts';
import { EventStreams, type StreamSettings } from './events/event.stream.ts';
import type { Job } from './jobs.ts';
import { AddressPolicy, type Resolve } from './webhooks/webhook.address.ts';
import { WebhookDispatcher } from './webhooks/webhook.dispatcher.ts';
import { webhookRoutes } from './webhooks/webhook.routes.ts';
import { Deliveries, Delivery, NewWebhook, Webhook, Webhooks, WebhookUpdate, WebhookWithSecret } from './webhooks/webhook.schemas.ts';
import { SecretBox } from './webhooks/webhook.secret-box.ts';
import { WebhookSender } from './webhooks/webhook.sender.ts';
import { WebhookService } from './webhooks/webhook.service.ts';

export interface AppOptions {
  readonly config: Config;
  readonly storage: Storage;
  readonly clock?: Clock;
  /** Fastify logger option; main.ts passes pino settings, tests usually false. */
  readonly logger?: FastifyServerOptions['logger'];
  /** Shared with the ops app when METRICS_PORT is set; otherwise created here. */
  readonly metrics?: Metrics;
  /** The rate limiters; built from the configuration when absent (a test sharing one app clears them between tests). */
  readonly limits?: Limits;
  /** How webhook delivery resolves hosts, polls and jitters; tests replace them. */
  readonly webhooks?: { readonly resolve?: Resolve; readonly pollMs?: number; readonly random?: () => number };
  /** How open event streams poll and keep alive (event.stream.ts, STREAM_DEFAULTS); tests shorten them. */
  readonly eventStreams?: Partial<StreamSettings>;
  /** Where the built console is (default console/dist); tests point it elsewhere. */
  readonly consoleDir?: string;
  /** Rows a CSV export reads a page (default EXPORT_PAGE_SIZE); tests make it small to see the paging. */
  readonly exportPageSize?: number;
}

/** Schemas referenced by $id (components.schemas in the OpenAPI document); the CLI validates with them too. */
export const SHARED_SCHEMAS = [
  ErrorBody,
  PetStatus,
  Price,
  NewPet,
  PetPatch,
  Pet,
  BulkPetChange,
  BulkResult,
  ImportJob,
  ListedPet,
  Pets,
  Photo,
  Photos,
  NewHealthRecord,
  HealthVoid,
  HealthRecord,
  HealthRecords,
  Category,
  Categories,
  NewCategory,
  CategoryPatch,
  Address,
  NewCustomer,
  CustomerPatch,
  Customer,
  ListedCustomer,
  Customers,
  CustomerRecord,
  CustomerErasure,
  OrderStatus,
  SaleMethod,
  NewOrder,
  OrderUpdate,
  Order,
  Orders,
  HoldState,
  NewHold,
  HoldCancel,
  Hold,
  Holds,
  CustomerExport,
  Actor,
  Changes,
  ActivityEntry,
  ActivityEntries,
  EventTypeSchema,
  ...EVENT_SCHEMAS,
  Event,
  Events,
  NewWebhook,
  WebhookUpdate,
  Webhook,
  Webhooks,
  WebhookWithSecret,
  Delivery,
  Deliveries,
  Inventory,
  ScopeSchema,
  NewApiKey,
  ApiKey,
  ApiKeys,
  CreatedApiKey,
  CallingKey,
  RoleSchema,
  Staff,
  StaffList,
  NewStaff,
  StaffPatch,
  InvitedStaff,
  AcceptInvitation,
  PasswordChange,
  NewSession,
  Session,
  Sessions,
  CurrentSession,
  PasskeyOptions,
  PasskeyRegistration,
  PasskeyAssertion,
  Passkey,
  Passkeys,
];

export const DOCS_PATH = '/docs';
/** The store console. */
export const CONSOLE_PATH = '/console';
/** Where `GET /` sends a person (http/ops/front-door.ts) and what the start-up banner names: the one place to change it. */
export const FRONT_DOOR_PATH: `/${string}` = `${CONSOLE_PATH}/`;

/** What the API's operations must be registered after: every plugin whose hooks or handlers they take. */
const API_FOLLOWS = ['json-body', 'edge', 'telemetry', 'validation', 'error-handler', 'deprecation', 'auth', 'idempotency', 'method-not-allowed', 'openapi'];

/** The one app factory: main.ts, the CLI and every test build the service through it. */
export async function buildApp({
  config,
  storage,
  clock = systemClock,
  logger = false,
  metrics = new Metrics(storage),
  limits: givenLimits,
  webhooks = {},
  eventStreams,
  consoleDir,
  exportPageSize,
}: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger,
    ...serverOptions(config),
    ...edgeOptions(config.trustProxy),
    // genReqId vets the incoming X-Request-Id itself (request-id.ts).
    requestIdHeader: false,
    genReqId: requestId,
    // One line per request from telemetry.ts instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    // A per-request child logger only when the request logs (no-op loggers need none).
    ...(logger ? { childLoggerFactory: lazyChildLogger } : {}),
    // Framework-level failures (a request target the router cannot read) get the same Error body.
    frameworkErrors: (err, request, reply) => sendError(request, reply, err),
    schemaController: { compilersFactory: { buildSerializer: cachedSerializerFactory } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  const base = config.publicBaseUrl || '/v1';
  const docsUrl = `${config.publicBaseUrl ? new URL(config.publicBaseUrl).origin : ''}${DOCS_PATH}`;
  const limits = givenLimits ?? (await buildLimits(config, clock, (err, message) => app.log.warn({ err }, message)));
  app.addHook('onClose', () => limits.close());
  metrics.watchFailureCounts(() => limits.authFailures?.stats);
  // Argon2id is expensive on purpose: one bounded queue for every password this app hashes.
  const hasher = new PasswordHasher();
  const sessions = new SessionService(storage, clock, hasher, config.sessions, limits.signIn, app.log.child({ component: 'sessions' }));
  const auth = authentication({
    verifier: new KeyVerifier(storage.apiKeys, config.bootstrapApiKeys, clock),
    ...limits,
    metrics,
    sessions,
    publicBaseUrl: config.publicBaseUrl,
  });
  const notAllowed = methodNotAllowed();
  const idempotency = { repo: storage.idempotency, clock };

  // The plugins in the order they must be registered. Fastify runs the hooks of one kind in the
  // order they were added, and gives a route the route hooks of every onRoute hook added before
  // it: this order is the order in which a request meets the rules. Each plugin names the ones it
  // must follow (its `dependencies`), and Fastify refuses to start when one of them is missing or
  // registered later.
  await app.register(jsonBodyPlugin);
  await app.register(requestIdPlugin);
  await app.register(edgePlugin);
  await app.register(telemetryPlugin, { metrics });
  await app.register(validationPlugin, { schemas: SHARED_SCHEMAS });
  await app.register(errorHandlerPlugin);
  await app.register(deprecationPlugin, { clock, base, docsUrl });
  await app.register(auth.routes);
  await app.register(corsPlugin, { origins: config.corsOrigins });
  await app.register(auth.unknownPaths);
  await app.register(notAllowed.collect);
  await app.register(idempotencyPlugin, idempotency);
  await app.register(openApiPlugin, { config });
  await app.register(docsPlugin, { config, path: DOCS_PATH });
  await app.register(consolePlugin, { path: CONSOLE_PATH, dir: consoleDir });
  await app.register(frontDoorPlugin, { target: FRONT_DOOR_PATH });
  await app.register(printPlugin);
  if (config.metricsPort === undefined) {
    const serveMetrics = metricsOnApiPort(config);
    if (!serveMetrics)
      app.log.warn({ host: config.host }, '/metrics is not served: HOST is not a loopback address; set METRICS_PORT to serve it on a port of its own');
    await app.register(opsRoutesPlugin, { storage, metrics, serveMetrics });
  }

  const cursors = new CursorCodec(await storage.secret('cursor'));
  // Pets written before migration 9 (or by the release before it, during a rolling deploy) get their search index.
  const indexed = await indexUnindexedPets(storage);
  if (indexed > 0) app.log.info({ pets: indexed }, 'indexed pets written before migration 9 for search and sort=name');
  // Every animal's recordComplete and recordMissing as RECORD_REQUIRED_FIELDS now says.
  const record = recordRule(config.record.requiredFields, config.record.requiresMicrochip);
  const restated = await applyRecordRule(storage, record);
  if (restated > 0) app.log.info({ pets: restated }, "restated the animals' record state under RECORD_REQUIRED_FIELDS");
  // Signing secrets are sealed with WEBHOOK_SECRET_KEY when set, else with a key kept in the
  // database; the database key always opens what it sealed before a configured key existed.
  const box = new SecretBox([...config.webhooks.secretKeys, Buffer.from(await storage.secret('webhook-secret-key'), 'base64url')]);
  const policy = new AddressPolicy({ allowedHosts: config.webhooks.allowedHosts, allowHttp: config.webhooks.allowHttp, resolve: webhooks.resolve });
  const imports = new ImportService(
    storage,
    clock,
    {
      currency: config.storeCurrency,
      record,
      newPet: bodyValidator(SHARED_SCHEMAS, { $ref: 'NewPet#' }),
      petPatch: bodyValidator(SHARED_SCHEMAS, { $ref: 'PetPatch#' }),
    },
    petCsvColumns,
    (err, importId) => app.log.error({ err, importId }, 'applying an import stopped; it resumes at the next start or POST .../apply'),
  );
  const api = async (v1: FastifyInstance) => {
    await v1.register(petRoutes, { pets: new PetService(storage, cursors, clock, { currency: config.storeCurrency, record }), base, exportPageSize });
    await v1.register(importRoutes, { imports, base, maxBytes: config.importMaxBytes });
    await v1.register(photoRoutes, {
      photos: new PhotoService(storage, clock, { maxPixels: config.photoMaxPixels }, config.photoConcurrency),
      imageWork: limits.imageWork,
      maxBytes: config.photoMaxBytes,
      maxPixels: config.photoMaxPixels,
    });
    await v1.register(healthRoutes, { health: new HealthService(storage, cursors, clock), base });
    await v1.register(categoryRoutes, { categories: new CategoryService(storage, clock), base });
    await v1.register(customerRoutes, { customers: new CustomerService(storage, cursors, clock, config.saleRecordRetentionDays), base, exportPageSize });
    await v1.register(dealerBookRoutes, { book: storage.dealerBook });
    await v1.register(holdRoutes, { holds: new HoldService(storage, cursors, clock, config.storeCurrency), base });
    await v1.register(orderRoutes, {
      orders: new OrderService(storage, cursors, clock, config.record.enforceOnSale),
      bills: new BillOfSaleService(storage, config.store),
      base,
      docsUrl,
      exportPageSize,
    });
    const events = new EventService(storage.events, cursors);
    const streams = new EventStreams(events, eventStreams);
    // Before the server stops accepting and waits for open requests: a stream never finishes on its own.
    app.addHook('preClose', () => streams.closeAll());
    await v1.register(eventRoutes, { events, streams, base });
    await v1.register(webhookRoutes, { webhooks: new WebhookService(storage, policy, box, cursors, clock, config.webhooks.maxEndpoints), base });
    await v1.register(inventoryRoutes, { pets: storage.pets, currency: config.storeCurrency });
    await v1.register(keyRoutes, { keys: new KeyService(storage, cursors, clock, config.keysMaxPerTree), base });
    await v1.register(staffRoutes, { staff: new StaffService(storage, cursors, clock, hasher), base, publicBaseUrl: config.publicBaseUrl });
    await v1.register(sessionRoutes, { sessions, publicBaseUrl: config.publicBaseUrl });
    await v1.register(activityRoutes, { activity: new ActivityService(storage.activity, cursors), base, retentionDays: activityRetention(config) });
    const passkeys = new PasskeyService(storage, clock, sessions, limits.signIn.perAddress, app.log.child({ component: 'sessions' }));
    await v1.register(passkeyRoutes, { passkeys, sessions, publicBaseUrl: config.publicBaseUrl, storeName: config.store.name });
  };
  // The operations take what the plugins before them set (parsers, error handler, validator
  // compiler) and pass through their onRoute hooks.
  await app.register(fp(api, { name: 'api', encapsulate: true, dependencies: API_FOLLOWS }), { prefix: '/v1' });
  // Last: it answers 405 on every path the routes above registered.
  await app.register(notAllowed.fill);

  const log = app.log.child({ component: 'webhooks' });
  const jobs: Job[] = [
    // Imports left applying by a process that stopped resume where they stopped.
    { start: () => void imports.resume().catch((err) => app.log.warn({ err }, 'resuming imports failed')), stop: () => imports.stop() },
    idempotencyPurge(idempotency, app.log),
    holdExpiryJob(storage, clock, (err) => app.log.warn({ err }, 'expiring holds failed')),
    saleRetentionJob(storage, clock, (err) => app.log.warn({ err }, 'erasing the names and addresses kept for sale records failed')),
    retentionJob(storage.events, storage.webhooks, clock, config.eventRetentionDays, (err) => app.log.warn({ err }, 'purging expired events failed')),
    activityRetentionJob(storage.activity, clock, activityRetention(config), (err) => app.log.warn({ err }, 'purging old activity failed')),
    new WebhookDispatcher({
      storage,
      sender: new WebhookSender(policy, config.webhooks.timeoutMs, config.webhooks.caCertificates),
      box,
      clock,
      settings: config.webhooks,
      log,
      metrics,
      pollMs: webhooks.pollMs,
      random: webhooks.random,
    }),
  ];
  // Background work runs while the app is up: from ready (listen, inject) to close, which waits for it.
  app.addHook('onReady', async () => {
    for (const job of jobs) job.start();
  });
  app.addHook('onClose', async () => {
    await Promise.all(jobs.map((job) => job.stop()));
  });
  return app;
}

/** The app main.ts listens with on METRICS_PORT: health and metrics only, no API, no keys. */
export async function buildOpsApp({
  storage,
  metrics,
  logger = false,
}: {
  storage: Storage;
  metrics: Metrics;
  logger?: FastifyServerOptions['logger'];
}): Promise<FastifyInstance> {
  const app = Fastify({
    logger,
    requestIdHeader: false,
    genReqId: requestId,
    logController: new LogController({ disableRequestLogging: true }),
    ...edgeOptions(),
  });
  const notAllowed = methodNotAllowed();
  await app.register(requestIdPlugin);
  await app.register(edgePlugin);
  await app.register(errorHandlerPlugin);
  await app.register(notAllowed.collect);
  await app.register(opsRoutesPlugin, { storage, metrics });
  await app.register(notAllowed.fill);
  return app;
}
