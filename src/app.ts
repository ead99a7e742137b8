import Fastify, { LogController, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { systemClock, type Clock } from './clock.ts';
import type { Config } from './config.ts';
import { lazyChildLogger } from './logger.ts';
import { categoryRoutes } from './categories/category.routes.ts';
import { Categories, Category, CategoryPatch, NewCategory } from './categories/category.schemas.ts';
import { CategoryService } from './categories/category.service.ts';
import { registerAuth } from './http/auth.ts';
import { registerCors } from './http/cors.ts';
import { registerIdempotency } from './http/idempotency.ts';
import { registerJsonParser, serverOptions } from './http/limits.ts';
import { buildLimits } from './http/rate-limit.ts';
import { ErrorBody } from './schemas.ts';
import { registerDeprecation } from './http/deprecation.ts';
import { registerDocs } from './http/docs.ts';
import { edgeOptions, registerEdge } from './http/edge.ts';
import { registerErrorHandling, sendError } from './http/error-handler.ts';
import { Metrics } from './http/metrics.ts';
import { registerOps } from './http/ops.ts';
import { registerRequestId, requestId } from './http/request-id.ts';
import { registerTelemetry } from './http/telemetry.ts';
import { methodNotAllowed } from './http/method-not-allowed.ts';
import { registerOpenApi } from './http/openapi.ts';
import { CursorCodec } from './paging.ts';
import { buildValidatorCompiler } from './http/validation.ts';
import { cachedSerializerFactory } from './http/serialization.ts';
import { keyRoutes } from './keys/key.routes.ts';
import { ApiKey, ApiKeys, CreatedApiKey, NewApiKey, ScopeSchema } from './keys/key.schemas.ts';
import { KeyService, KeyVerifier } from './keys/key.service.ts';
import { petRoutes } from './pets/pet.routes.ts';
import { NewPet, Pet, PetPatch, PetStatus, Pets } from './pets/pet.schemas.ts';
import { PetService } from './pets/pet.service.ts';
import type { Storage } from './storage/storage.ts';
import { inventoryRoutes } from './store/inventory.routes.ts';
import { Inventory } from './store/inventory.schemas.ts';
import { orderRoutes } from './store/order.routes.ts';
import { NewOrder, Order, OrderStatus, OrderUpdate, Orders } from './store/order.schemas.ts';
import { OrderService } from './store/order.service.ts';
import { EVENT_SCHEMAS, Event, Events, EventTypeSchema } from './events/event.schemas.ts';
import { eventRoutes } from './events/event.routes.ts';
import { EventService, retentionJob } from './events/event.service.ts';
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
  /** How webhook delivery resolves hosts, polls and jitters; tests replace them. */
  readonly webhooks?: { readonly resolve?: Resolve; readonly pollMs?: number; readonly random?: () => number };
}

/** Schemas referenced by $id (components.schemas in the OpenAPI document); the CLI validates with them too. */
export const SHARED_SCHEMAS = [
  ErrorBody,
  PetStatus,
  NewPet,
  PetPatch,
  Pet,
  Pets,
  Category,
  Categories,
  NewCategory,
  CategoryPatch,
  OrderStatus,
  NewOrder,
  OrderUpdate,
  Order,
  Orders,
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
];

export const DOCS_PATH = '/docs';

/** The one app factory: main.ts, the CLI and every test build the service through it. */
export async function buildApp({
  config,
  storage,
  clock = systemClock,
  logger = false,
  metrics = new Metrics(storage),
  webhooks = {},
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

  // The API speaks JSON only: Fastify's built-in text/plain parser would let other bodies through.
  app.removeContentTypeParser('text/plain');
  registerJsonParser(app);

  registerRequestId(app);
  registerEdge(app);
  registerTelemetry(app, metrics);

  for (const schema of SHARED_SCHEMAS) app.addSchema(schema);
  app.setValidatorCompiler(buildValidatorCompiler(SHARED_SCHEMAS));
  registerErrorHandling(app);

  const base = config.publicBaseUrl || '/v1';
  const docsUrl = `${config.publicBaseUrl ? new URL(config.publicBaseUrl).origin : ''}${DOCS_PATH}`;
  registerDeprecation(app, clock, base, docsUrl);
  const limits = await buildLimits(config, clock, (err, message) => app.log.warn({ err }, message));
  app.addHook('onClose', () => limits.close());
  metrics.watchFailureCounts(() => limits.authFailures?.stats);
  const verifier = new KeyVerifier(storage.apiKeys, config.bootstrapApiKeys, clock);
  const auth = registerAuth(app, verifier, { ...limits, metrics });
  // After auth: auth hooks are added per route as routes are registered, and the plugin's '*'
  // OPTIONS route must get one. Its own global onRequest hook still runs before every route-level
  // one, so a preflight is answered before authentication.
  await registerCors(app, config.corsOrigins);
  auth.guardUnmatched();
  const notAllowed = methodNotAllowed(app);
  const idempotencyPurge = registerIdempotency(app, storage.idempotency, clock);

  await registerOpenApi(app, config);
  await registerDocs(app, config, DOCS_PATH);
  if (config.metricsPort === undefined) registerOps(app, storage, metrics);

  const cursors = new CursorCodec(await storage.secret('cursor'));
  // Signing secrets are sealed with WEBHOOK_SECRET_KEY when set, else with a key kept in the
  // database; the database key always opens what it sealed before a configured key existed.
  const box = new SecretBox([...config.webhooks.secretKeys, Buffer.from(await storage.secret('webhook-secret-key'), 'base64url')]);
  const policy = new AddressPolicy({ allowedHosts: config.webhooks.allowedHosts, allowHttp: config.webhooks.allowHttp, resolve: webhooks.resolve });
  await app.register(
    async (v1) => {
      await v1.register(petRoutes, { pets: new PetService(storage.pets, cursors, clock), base });
      await v1.register(categoryRoutes, { categories: new CategoryService(storage.categories, clock), base });
      await v1.register(orderRoutes, { orders: new OrderService(storage.orders, cursors, clock), base });
      await v1.register(eventRoutes, { events: new EventService(storage.events, cursors), base });
      await v1.register(webhookRoutes, { webhooks: new WebhookService(storage.webhooks, policy, box, cursors, clock), base });
      await v1.register(inventoryRoutes, { pets: storage.pets });
      await v1.register(keyRoutes, { keys: new KeyService(storage.apiKeys, cursors, clock), base });
    },
    { prefix: '/v1' },
  );
  notAllowed.fill();

  const log = app.log.child({ component: 'webhooks' });
  const jobs: Job[] = [
    idempotencyPurge,
    retentionJob(storage.events, storage.webhooks, clock, config.eventRetentionDays, (err) => app.log.warn({ err }, 'purging expired events failed')),
    new WebhookDispatcher({
      webhooks: storage.webhooks,
      sender: new WebhookSender(policy, config.webhooks.timeoutMs),
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
  registerRequestId(app);
  registerEdge(app);
  registerErrorHandling(app);
  const notAllowed = methodNotAllowed(app);
  registerOps(app, storage, metrics);
  notAllowed.fill();
  return app;
}
