import type { Clock } from '../clock.ts';
import type { CursorCodec, Page } from '../paging.ts';
import type { PageQuery } from '../schemas.ts';
import { webhookNotFound } from '../storage/rules.ts';
import type { WebhookRepository } from '../storage/storage.ts';
import type { AddressPolicy } from './webhook.address.ts';
import type { Delivery, NewWebhook, Webhook, WebhookUpdate, WebhookWithSecret } from './webhook.schemas.ts';
import type { SecretBox } from './webhook.secret-box.ts';
import { generateSecret } from './webhook.signature.ts';

/** After a rotation, the previous secret keeps signing (next to the new one) this long. */
const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

/** Registering and managing webhook endpoints, and reading and replaying their deliveries. */
export class WebhookService {
  readonly #repo: WebhookRepository;
  readonly #policy: AddressPolicy;
  readonly #box: SecretBox;
  readonly #cursors: CursorCodec;
  readonly #clock: Clock;

  constructor(repo: WebhookRepository, policy: AddressPolicy, box: SecretBox, cursors: CursorCodec, clock: Clock) {
    this.#repo = repo;
    this.#policy = policy;
    this.#box = box;
    this.#cursors = cursors;
    this.#clock = clock;
  }

  /** The secret is returned here and by rotate() only; the database keeps it sealed. */
  async create(input: NewWebhook): Promise<WebhookWithSecret> {
    const url = await this.#policy.check(input.url);
    const secret = generateSecret();
    const webhook = await this.#repo.create(
      { url, events: input.events ?? null, description: input.description ?? null, secret: this.#box.seal(secret) },
      this.#clock.now(),
    );
    return { ...webhook, secret };
  }

  async get(id: number): Promise<Webhook> {
    const webhook = await this.#repo.get(id);
    if (!webhook) throw webhookNotFound(id);
    return webhook;
  }

  list(q: PageQuery): Promise<Page<Webhook>> {
    return this.#cursors.fetchPage('webhooks', q, (limit, afterId = 0) => this.#repo.list({ limit, afterId }));
  }

  async update(id: number, change: WebhookUpdate): Promise<Webhook> {
    const url = change.url === undefined ? undefined : await this.#policy.check(change.url);
    const webhook = await this.#repo.update(id, { ...change, url }, this.#clock.now());
    if (!webhook) throw webhookNotFound(id);
    return webhook;
  }

  async delete(id: number): Promise<void> {
    if (!(await this.#repo.delete(id))) throw webhookNotFound(id);
  }

  async rotateSecret(id: number): Promise<WebhookWithSecret> {
    const now = this.#clock.now();
    const secret = generateSecret();
    const webhook = await this.#repo.rotateSecret(id, this.#box.seal(secret), new Date(now.getTime() + ROTATION_OVERLAP_MS), now);
    if (!webhook) throw webhookNotFound(id);
    return { ...webhook, secret };
  }

  /** The delivery log, newest first. */
  async deliveries(id: number, q: PageQuery): Promise<Page<Delivery>> {
    await this.get(id);
    return this.#cursors.fetchPage(`deliveries;${id}`, q, (limit, beforeId = Number.MAX_SAFE_INTEGER) => this.#repo.deliveries(id, { limit, beforeId }));
  }

  retry(id: number, deliveryId: number): Promise<Delivery> {
    return this.#repo.retry(id, deliveryId, this.#clock.now());
  }
}
