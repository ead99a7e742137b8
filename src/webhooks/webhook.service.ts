import type { Clock } from '../clock.ts';
import { AppError, assertFound, notFound } from '../errors.ts';
import { onlyActivity, write } from '../events/event.outbox.ts';
import type { EventType } from '../events/event.schemas.ts';
import type { CursorCodec, Page } from '../paging.ts';
import type { PageQuery } from '../schemas.ts';
import { treeRoot, type KeyManager } from '../keys/key.rules.ts';
import type { WriteContext } from '../events/event.store.ts';
import type { Storage, Transaction } from '../storage/storage.ts';
import type { WebhookCreate, WebhookState } from './webhook.store.ts';
import { assertManages, maxOwnedBelow, type WebhookActor } from './webhook.access.ts';
import { destination, type AddressPolicy } from './webhook.address.ts';
import { retryDelivery, switchEndpoint, URL_CHANGED } from './webhook.deliveries.ts';
import type { Delivery, NewWebhook, Webhook, WebhookUpdate, WebhookWithSecret } from './webhook.schemas.ts';
import type { SecretBox } from './webhook.secret-box.ts';
import { generateSecret } from './webhook.signature.ts';
import { assertMaySubscribe } from './webhook.subscriptions.ts';

/** After a rotation, the previous secret keeps signing (next to the new one) this long. */
const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

/** A change to an endpoint; absent fields stay as they are. */
export interface WebhookChange {
  readonly url?: string;
  /** null = every type, future ones included. */
  readonly events?: readonly EventType[] | null;
  readonly description?: string | null;
  readonly enabled?: boolean;
  /** The new URL's destination (AddressPolicy.check); default: `destination(url)`. */
  readonly host?: string;
}

export function webhookLimitReached(max: number): AppError {
  return new AppError(
    'webhook_limit_reached',
    `this store has ${max} webhook endpoints, the most it may register (WEBHOOK_MAX_ENDPOINTS); delete one, or subscribe an existing endpoint to more event types`,
  );
}

function treeLimitReached(root: number, max: number): AppError {
  return new AppError(
    'webhook_limit_reached',
    `the keys of this key's tree (key ${root} and the keys below it) own ${max} webhook endpoints, the most one tree may own (half of WEBHOOK_MAX_ENDPOINTS); delete one, or subscribe an existing endpoint to more event types`,
  );
}

/**
 * Registers an endpoint owned by `owner`, which must be able to read every event type it
 * subscribes to; at most `maxEndpoints` per store, and at most half of them per key tree for a key
 * that is not an owner key (maxOwnedBelow, treeRoot) — counted under a lock, so concurrent
 * registrations cannot pass either together.
 */
export function createWebhook(
  storage: Storage,
  input: Omit<WebhookCreate, 'host' | 'keyId'> & { readonly host?: string },
  owner: WebhookActor,
  maxEndpoints: number,
  ctx: WriteContext<Webhook>,
): Promise<Webhook> {
  assertMaySubscribe(owner.scopes, input.events);
  return write(storage, ctx, async (tx) => {
    if ((await tx.webhooks.countForInsert()) >= maxEndpoints) throw webhookLimitReached(maxEndpoints);
    if (!owner.owner && owner.keyId !== null) {
      const chain = [owner.keyId, ...(await tx.apiKeys.ancestors(owner.keyId))];
      const top = await tx.apiKeys.lock(chain[chain.length - 1]);
      const root = treeRoot(chain, top?.owner === true);
      const max = maxOwnedBelow(maxEndpoints);
      if ((await tx.webhooks.countOwnedBelow(root)) >= max) throw treeLimitReached(root, max);
    }
    const created = await tx.webhooks.insert({ ...input, host: input.host ?? destination(input.url), keyId: owner.keyId }, ctx.now);
    return onlyActivity(created, 'webhook.created', `webhook:${created.id}`);
  });
}

/**
 * Applies `change` on behalf of `owner`, which must manage the endpoint (assertManages) and
 * becomes its owner: the endpoint is what that key chose, so it must be able to read every event
 * type the endpoint then subscribes to, and the endpoint stops with it. A new URL is sent nothing
 * owed to the old one: the pending attempts are dropped (URL_CHANGED). Enabling or disabling moves
 * the deliveries along (switchEndpoint).
 */
export function updateWebhook(storage: Storage, id: number, change: WebhookChange, owner: WebhookActor, ctx: WriteContext<Webhook>): Promise<Webhook> {
  return write(storage, ctx, async (tx) => {
    const current = await tx.webhooks.lock(id);
    assertFound(`webhook ${id}`, current);
    const { webhook } = current;
    await assertManages(tx, owner, webhook);
    const events = change.events === undefined ? webhook.events : change.events;
    assertMaySubscribe(owner.scopes, events);
    const enabled = change.enabled ?? webhook.enabled;
    const url = change.url ?? webhook.url;
    if (url !== webhook.url) await tx.deliveries.failPending(id, URL_CHANGED);
    const fields = {
      url,
      host: url === webhook.url ? (current.host ?? destination(url)) : (change.host ?? destination(url)),
      keyId: owner.keyId,
      events,
      description: change.description === undefined ? webhook.description : change.description,
      enabled,
      failingSince: await switchEndpoint(tx, current, enabled),
    };
    return onlyActivity(await tx.webhooks.update(id, fields, ctx.now), 'webhook.updated', `webhook:${id}`);
  });
}

/** The endpoint, locked, when `actor` manages it (assertManages); else 404 or 403. */
async function lockManaged(tx: Transaction, id: number, actor: KeyManager): Promise<WebhookState> {
  const current = await tx.webhooks.lock(id);
  assertFound(`webhook ${id}`, current);
  await assertManages(tx, actor, current.webhook);
  return current;
}

/** Deletes the endpoint, when `actor` manages it; its delivery log goes with it. */
export function deleteWebhook(storage: Storage, id: number, actor: KeyManager, ctx: WriteContext<void>): Promise<void> {
  return write(storage, ctx, async (tx) => {
    await lockManaged(tx, id, actor);
    if (!(await tx.webhooks.delete(id))) throw notFound(`webhook ${id}`);
    return onlyActivity(undefined, 'webhook.deleted', `webhook:${id}`);
  });
}

/** Replaces the secret (sealed), when `actor` manages the endpoint; the current one keeps signing until `previousUntil`. */
export function rotateWebhookSecret(
  storage: Storage,
  id: number,
  secret: string,
  previousUntil: Date,
  actor: KeyManager,
  ctx: WriteContext<Webhook>,
): Promise<Webhook> {
  return write(storage, ctx, async (tx) => {
    await lockManaged(tx, id, actor);
    const webhook = await tx.webhooks.rotateSecret(id, secret, previousUntil, ctx.now);
    assertFound(`webhook ${id}`, webhook);
    return onlyActivity(webhook, 'webhook.secret_rotated', `webhook:${id}`);
  });
}

/** Registering and managing webhook endpoints, and reading and replaying their deliveries. */
export class WebhookService {
  readonly #storage: Storage;
  readonly #policy: AddressPolicy;
  readonly #box: SecretBox;
  readonly #cursors: CursorCodec;
  readonly #clock: Clock;
  readonly #maxEndpoints: number;

  constructor(storage: Storage, policy: AddressPolicy, box: SecretBox, cursors: CursorCodec, clock: Clock, maxEndpoints: number) {
    this.#storage = storage;
    this.#policy = policy;
    this.#box = box;
    this.#cursors = cursors;
    this.#clock = clock;
    this.#maxEndpoints = maxEndpoints;
  }

  /** The secret is returned here and by rotate() only; the database keeps it sealed. */
  async create(input: NewWebhook, owner: WebhookActor): Promise<WebhookWithSecret> {
    const events = input.events ?? null;
    assertMaySubscribe(owner.scopes, events);
    const { url, destination: host } = await this.#policy.check(input.url);
    const secret = generateSecret();
    const endpoint = { url, host, events, description: input.description ?? null, secret: this.#box.seal(secret) };
    const webhook = await createWebhook(this.#storage, endpoint, owner, this.#maxEndpoints, { now: this.#clock.now() });
    return { ...webhook, secret };
  }

  async get(id: number): Promise<Webhook> {
    const webhook = await this.#storage.webhooks.get(id);
    assertFound(`webhook ${id}`, webhook);
    return webhook;
  }

  list(q: PageQuery): Promise<Page<Webhook>> {
    return this.#cursors.fetchPage('webhooks', q, (limit, afterId = 0) => this.#storage.webhooks.list({ limit, afterId }));
  }

  async update(id: number, change: WebhookUpdate, owner: WebhookActor): Promise<Webhook> {
    const checked = change.url === undefined ? undefined : await this.#policy.check(change.url);
    return updateWebhook(this.#storage, id, { ...change, url: checked?.url, host: checked?.destination }, owner, { now: this.#clock.now() });
  }

  delete(id: number, actor: KeyManager): Promise<void> {
    return deleteWebhook(this.#storage, id, actor, { now: this.#clock.now() });
  }

  async rotateSecret(id: number, actor: KeyManager): Promise<WebhookWithSecret> {
    const now = this.#clock.now();
    const secret = generateSecret();
    const webhook = await rotateWebhookSecret(this.#storage, id, this.#box.seal(secret), new Date(now.getTime() + ROTATION_OVERLAP_MS), actor, { now });
    return { ...webhook, secret };
  }

  /** The delivery log, newest first. */
  async deliveries(id: number, q: PageQuery): Promise<Page<Delivery>> {
    await this.get(id);
    return this.#cursors.fetchPage(`deliveries;${id}`, q, (limit, beforeId = Number.MAX_SAFE_INTEGER) =>
      this.#storage.webhooks.deliveries(id, { limit, beforeId }),
    );
  }

  retry(id: number, deliveryId: number, actor: KeyManager): Promise<Delivery> {
    return retryDelivery(this.#storage, id, deliveryId, actor, { now: this.#clock.now() });
  }
}
