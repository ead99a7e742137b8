// Pet photos through the real app, on every engine: upload (type from the bytes, metadata
// stripped, limits), dedup by content, public immutable serving, removal, events, and that a
// refused or interrupted upload leaves nothing behind.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { connect } from 'node:net';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import sharp from 'sharp';
import { createApiKey } from '../../src/keys/key.service.ts';
import { SCOPES } from '../../src/keys/key.types.ts';
import { buildTestApp, fixedClock, keyWithScopes, sharedTestApp } from '../helpers/app.ts';
import { ENGINES, feedSettled } from '../helpers/engines.ts';
import { animatedWebp, greyPng, jpegWithGps, pngBomb, rgba16Png, solid, webpBomb } from '../helpers/images.ts';
import { exchange, listening } from '../helpers/raw-http.ts';
import { assertError } from '../helpers/errors.ts';
import { NO_RECORD } from '../helpers/pets.ts';

type Auth = { authorization: string };

async function newPet(app: FastifyInstance, auth: Auth, name = 'Rex'): Promise<number> {
  const res = await app.inject({ method: 'POST', url: '/v1/pets', headers: auth, payload: { name, categoryId: 1 } });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().id;
}

function upload(app: FastifyInstance, auth: Auth, petId: number, body: Buffer | string, type = 'image/jpeg') {
  return app.inject({ method: 'POST', url: `/v1/pets/${petId}/photos`, headers: { ...auth, 'content-type': type }, payload: body });
}

async function photosOf(app: FastifyInstance, auth: Auth, petId: number) {
  const res = await app.inject({ method: 'GET', url: `/v1/pets/${petId}/photos`, headers: auth });
  assert.equal(res.statusCode, 200, res.body);
  return res.json() as { id: number; hash: string; url: string; thumbnailUrl: string; mediaType: string }[];
}

for (const engine of ENGINES) {
  // One app for the tests that need the default one, reset between them (test/helpers/app.ts): the
  // tests run one after the other (the suite's files run side by side, and CPU is what bounds it).
  describe(`${engine}: pet photos`, () => {
    // Enough image work at once for the tests that upload concurrently (the limit has its own test).
    const testApp = sharedTestApp(engine, { env: { PHOTO_CONCURRENCY: '8' } });
    test('a JPEG with EXIF GPS is stored and served without any metadata, with a WebP thumbnail', async (t) => {
      const { app, auth } = await testApp(t);
      const petId = await newPet(app, auth);
      const original = await jpegWithGps();
      assert.ok((await sharp(original).metadata()).exif, 'the upload carries EXIF');
      const res = await upload(app, auth, petId, original);
      assert.equal(res.statusCode, 201, res.body);
      const photo = res.json();
      assert.equal(res.headers.location, `/v1/pets/${petId}/photos/${photo.id}`);
      assert.equal(photo.mediaType, 'image/jpeg');
      assert.deepEqual([photo.width, photo.height], [400, 300]);
      assert.equal(photo.url, `/v1/photos/${photo.hash}`);

      // Public: no key.
      const image = await app.inject({ method: 'GET', url: photo.url });
      assert.equal(image.statusCode, 200);
      assert.equal(image.headers['content-type'], 'image/jpeg');
      assert.equal(image.headers['cache-control'], 'public, max-age=31536000, immutable');
      assert.equal(image.headers.etag, `"${photo.hash}"`);
      assert.equal(image.rawPayload.length, photo.bytes);
      const served = await sharp(image.rawPayload).metadata();
      assert.equal(served.exif, undefined, 'no EXIF (GPS) left');
      assert.equal(served.xmp, undefined);
      assert.equal(served.icc, undefined);
      assert.equal(image.rawPayload.includes('PetCam'), false);
      assert.equal(image.rawPayload.includes('Secret Location'), false);

      const thumb = await app.inject({ method: 'GET', url: photo.thumbnailUrl });
      assert.equal(thumb.statusCode, 200);
      assert.equal(thumb.headers['content-type'], 'image/webp');
      const t320 = await sharp(thumb.rawPayload).metadata();
      assert.deepEqual([t320.format, t320.width, t320.height, t320.exif], ['webp', 320, 240, undefined]);

      const pet = await app.inject({ method: 'GET', url: `/v1/pets/${petId}`, headers: auth });
      assert.deepEqual(pet.json().photoUrls, [photo.url]);
    });

    test('serves 304 to If-None-Match with the strong ETag, and 404 for an unknown hash', async (t) => {
      const { app, auth } = await testApp(t);
      const petId = await newPet(app, auth);
      const photo = (await upload(app, auth, petId, await solid('png'), 'image/png')).json();
      const again = await app.inject({ method: 'GET', url: photo.url, headers: { 'if-none-match': `W/"x", "${photo.hash}"` } });
      assert.equal(again.statusCode, 304);
      assert.equal(again.body, '');
      assert.equal(again.headers.etag, `"${photo.hash}"`);
      assert.equal(again.headers['cache-control'], 'public, max-age=31536000, immutable');
      const thumb = await app.inject({ method: 'GET', url: photo.thumbnailUrl, headers: { 'if-none-match': `"${photo.hash}"` } });
      assert.equal(thumb.statusCode, 200, 'the thumbnail has its own tag');
      assertError(await app.inject({ method: 'GET', url: `/v1/photos/${'0'.repeat(64)}` }), 404, 'not_found');
      assertError(await app.inject({ method: 'GET', url: '/v1/photos/ABC' }), 400, 'validation_failed');
    });

    test('the type comes from the bytes: a PNG declared image/jpeg is stored as PNG', async (t) => {
      const { app, auth } = await testApp(t);
      const petId = await newPet(app, auth);
      const res = await upload(app, auth, petId, await solid('png'), 'image/jpeg');
      assert.equal(res.statusCode, 201, res.body);
      assert.equal(res.json().mediaType, 'image/png');
      const image = await app.inject({ method: 'GET', url: res.json().url });
      assert.equal(image.headers['content-type'], 'image/png');
      assert.equal((await sharp(image.rawPayload).metadata()).format, 'png');
      const webp = await upload(app, auth, petId, await solid('webp', { colour: 9 }), 'image/png');
      assert.equal(webp.json().mediaType, 'image/webp');
    });

    test('SVG, HTML and other bodies declared image/png are refused with 415, as is another Content-Type', async (t) => {
      const { app, auth } = await testApp(t);
      const petId = await newPet(app, auth);
      const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script></svg>';
      assertError(await upload(app, auth, petId, svg, 'image/png'), 415, 'unsupported_media_type', /decided from its bytes/);
      assertError(await upload(app, auth, petId, '<!doctype html><html><body>hi</body></html>', 'image/png'), 415, 'unsupported_media_type');
      const gif = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
      assertError(await upload(app, auth, petId, gif, 'image/png'), 415, 'unsupported_media_type');
      assertError(await upload(app, auth, petId, await solid('png'), 'text/html'), 415, 'unsupported_media_type', /Content-Type image\/jpeg/);
      assertError(await upload(app, auth, petId, '{"url":"x"}', 'application/json'), 415, 'unsupported_media_type');
      assert.deepEqual(await photosOf(app, auth, petId), []);
    });

    test('a truncated image is 400 invalid_image; an empty body too', async (t) => {
      const { app, auth } = await testApp(t);
      const petId = await newPet(app, auth);
      const jpeg = await solid('jpeg', { width: 300, height: 300 });
      assertError(await upload(app, auth, petId, jpeg.subarray(0, Math.floor(jpeg.length / 2))), 400, 'invalid_image');
      const png = await solid('png', { width: 300, height: 300, colour: 77 });
      assertError(await upload(app, auth, petId, png.subarray(0, png.length - 30), 'image/png'), 400, 'invalid_image');
      assertError(await upload(app, auth, petId, Buffer.alloc(0)), 400, 'invalid_image');
      // No body and no Content-Type: Fastify runs no parser at all, and the body is undefined.
      const bare = await app.inject({ method: 'POST', url: `/v1/pets/${petId}/photos`, headers: auth });
      assertError(bare, 400, 'invalid_image', /no body/);
      assert.deepEqual(await photosOf(app, auth, petId), []);
    });

    test('PHOTO_MAX_BYTES (413 payload_too_large), PHOTO_MAX_PIXELS and the frame limit (413 image_too_large)', async (t) => {
      const { app, auth } = await buildTestApp(t, { engine, env: { PHOTO_MAX_BYTES: '16384', PHOTO_MAX_PIXELS: '10000' } });
      const petId = await newPet(app, auth);
      const noisy = await sharp(randomBytes(100 * 100 * 3), { raw: { width: 100, height: 100, channels: 3 } })
        .png()
        .toBuffer();
      assert.ok(noisy.length > 16384);
      assertError(await upload(app, auth, petId, noisy, 'image/png'), 413, 'payload_too_large');
      assertError(await upload(app, auth, petId, await solid('png', { width: 101, height: 100 }), 'image/png'), 413, 'image_too_large', /101 × 100/);
      assert.equal((await upload(app, auth, petId, await solid('png', { width: 100, height: 100 }), 'image/png')).statusCode, 201);
      // Every frame counts toward the pixels; more than 100 frames is refused whatever their size.
      assertError(await upload(app, auth, petId, await animatedWebp(3, 60), 'image/webp'), 413, 'image_too_large', /3 frames of 60 × 60/);
      assertError(await upload(app, auth, petId, await animatedWebp(101, 2), 'image/webp'), 413, 'image_too_large', /101 frames; at most 100/);
    });

    test('the budget of one upload, from its header (issue 34): longest side, aspect ratio, PNG samples, pixels of an animation; refused before decoding', async (t) => {
      const { app, auth } = await testApp(t);
      const petId = await newPet(app, auth);
      const refusals: [string, Buffer, string, RegExp][] = [
        ['39,000,000 × 1 PNG (335 MB of RSS before)', greyPng(39_000_000, 1), 'image/png', /39,000,000 × 1 pixels; its longest side may be at most 10,000/],
        ['1 × 39,000,000 PNG (8 CPU-s before)', greyPng(1, 39_000_000), 'image/png', /1 × 39,000,000 pixels; its longest side may be at most 10,000/],
        ['10,000 × 400 PNG', greyPng(10_000, 400), 'image/png', /10,000 × 400 pixels; its longest side may be at most 20 times its shortest/],
        ['10 frames of 2,000² WebP (2 CPU-s before)', await webpBomb(10, 2000), 'image/webp', /10 frames of 2,000 × 2,000 pixels; at most 10,000,000 pixels/],
        ['100 frames of 632² WebP', await webpBomb(100, 632), 'image/webp', /100 frames of 632 × 632 pixels; at most 10,000,000/],
        ['6,000² RGBA 16-bit PNG', rgba16Png(6000, 6000), 'image/png', /the PNG decodes to 288 MB .*; at most 64 MB/],
      ];
      for (const [what, image, type, message] of refusals) {
        assert.ok(image.length < 300_000, `${what}: a small file (${image.length} bytes)`);
        assertError(await upload(app, auth, petId, image, type), 413, 'image_too_large', message);
      }
      // Within the budget: the largest animation is kept animated, at most 800 px on its longest side.
      const animation = await upload(app, auth, petId, await webpBomb(4, 1581), 'image/webp');
      assert.equal(animation.statusCode, 201, animation.body);
      assert.deepEqual([animation.json().width, animation.json().height], [800, 800]);
      const wide = await upload(app, auth, petId, greyPng(10_000, 500), 'image/png');
      assert.equal(wide.statusCode, 201, wide.body);
      assert.deepEqual([wide.json().width, wide.json().height], [1600, 80]);
    });

    test('an animation within the limits stays animated; its thumbnail is its first frame', async (t) => {
      const { app, auth } = await testApp(t);
      const petId = await newPet(app, auth);
      const res = await upload(app, auth, petId, await animatedWebp(5, 16), 'image/webp');
      assert.equal(res.statusCode, 201, res.body);
      assert.deepEqual([res.json().width, res.json().height], [16, 16]);
      const image = await app.inject({ method: 'GET', url: res.json().url });
      assert.equal((await sharp(image.rawPayload).metadata()).pages, 5);
      const thumb = await app.inject({ method: 'GET', url: res.json().thumbnailUrl });
      assert.equal((await sharp(thumb.rawPayload).metadata()).pages ?? 1, 1);
    });

    test('a large image is scaled to 1,600 px on its longest side', async (t) => {
      const { app, auth } = await testApp(t);
      const petId = await newPet(app, auth);
      const res = await upload(app, auth, petId, await solid('jpeg', { width: 3200, height: 1000 }));
      assert.deepEqual([res.json().width, res.json().height], [1600, 500]);
    });

    test('the same image is stored once: twice on one pet is one photo (200), on two pets one blob until both let go', async (t) => {
      const { app, auth, storage } = await testApp(t);
      const [a, b] = [await newPet(app, auth, 'A'), await newPet(app, auth, 'B')];
      const image = await solid('jpeg', { colour: 42 });
      const first = await upload(app, auth, a, image);
      assert.equal(first.statusCode, 201);
      const repeat = await upload(app, auth, a, image, 'image/png');
      assert.equal(repeat.statusCode, 200);
      assert.deepEqual(repeat.json(), first.json());
      assert.equal((await photosOf(app, auth, a)).length, 1);
      const other = await upload(app, auth, b, image);
      assert.equal(other.statusCode, 201);
      assert.equal(other.json().hash, first.json().hash);
      assert.notEqual(other.json().id, first.json().id);

      // Removing it from one pet keeps the bytes for the other; from both, deletes them.
      assert.equal((await app.inject({ method: 'DELETE', url: `/v1/pets/${a}/photos/${first.json().id}`, headers: auth })).statusCode, 204);
      assert.equal((await app.inject({ method: 'GET', url: first.json().url })).statusCode, 200);
      assert.ok(await storage.photos.blob(first.json().hash, 'thumbnail'));
      assert.equal((await app.inject({ method: 'DELETE', url: `/v1/pets/${b}/photos/${other.json().id}`, headers: auth })).statusCode, 204);
      assert.equal((await app.inject({ method: 'GET', url: first.json().url })).statusCode, 404);
      assert.equal(await storage.photos.blob(first.json().hash, 'image'), undefined);
    });

    test('concurrent uploads and removals of one image on many pets keep exactly the references that remain', async (t) => {
      const { app, auth, storage } = await testApp(t);
      const pets = await Promise.all(Array.from({ length: 6 }, (_, i) => newPet(app, auth, `P${i}`)));
      const image = await solid('png', { colour: 7 });
      const added = await Promise.all(pets.map((p) => upload(app, auth, p, image, 'image/png')));
      assert.deepEqual(
        added.map((r) => r.statusCode),
        pets.map(() => 201),
      );
      const hash = added[0].json().hash;
      // Remove from all but the last while adding it again to the first ones: the bytes must survive.
      await Promise.all([
        ...pets.slice(0, 5).map((p, i) => app.inject({ method: 'DELETE', url: `/v1/pets/${p}/photos/${added[i].json().id}`, headers: auth })),
        ...pets.slice(0, 2).map((p) => upload(app, auth, p, image, 'image/png')),
      ]);
      assert.ok(await storage.photos.blob(hash, 'image'), 'still referenced');
      for (const p of pets) {
        for (const photo of await photosOf(app, auth, p)) await app.inject({ method: 'DELETE', url: `/v1/pets/${p}/photos/${photo.id}`, headers: auth });
      }
      assert.equal(await storage.photos.blob(hash, 'image'), undefined, 'gone with the last reference');
    });

    test('PHOTO_CONCURRENCY uploads are decoded at once; one more is refused at once with 503 and Retry-After', async (t) => {
      const { app, auth } = await buildTestApp(t, { engine, env: { PHOTO_CONCURRENCY: '1' } });
      const petId = await newPet(app, auth);
      const images = [await solid('png', { width: 2000, height: 2000, colour: 1 }), await solid('png', { width: 2000, height: 2000, colour: 2 })];
      const [first, second] = await Promise.all(images.map((image) => upload(app, auth, petId, image, 'image/png')));
      assert.equal(first.statusCode, 201, first.body);
      assertError(second, 503, 'service_unavailable', /1 photo uploads are being processed.*PHOTO_CONCURRENCY/);
      assert.equal(second.headers['retry-after'], '1');
      assert.equal((await upload(app, auth, petId, images[1], 'image/png')).statusCode, 201, 'free again once the first is done');
    });

    test('PHOTO_BUDGET_MS_PER_MINUTE: the image work of a key tree is charged; past its budget uploads are 429 until the minute ends', async (t) => {
      const clock = fixedClock(new Date('2026-11-28T10:00:10Z'));
      // 1 ms a minute: any upload uses it up (each is charged at least 1 ms; one at exactly 1 ms leaves the next admitted).
      const { app, auth, storage } = await buildTestApp(t, { engine, clock, env: { PHOTO_BUDGET_MS_PER_MINUTE: '1' } });
      const petId = await newPet(app, auth);
      const image = (colour: number) => solid('png', { width: 64, height: 64, colour });
      assert.equal((await upload(app, auth, petId, await image(1), 'image/png')).statusCode, 201);
      let refused = await upload(app, auth, petId, await image(2), 'image/png');
      if (refused.statusCode === 201) refused = await upload(app, auth, petId, await image(3), 'image/png');
      assertError(refused, 429, 'rate_limited', /used their 1 ms of image work in 60 s \(PHOTO_BUDGET_MS_PER_MINUTE\); retry in 50 s/);
      assert.equal(refused.headers['retry-after'], '50');
      // Another key tree has its own budget; other requests of this one are not limited by it.
      const other = { authorization: `Bearer ${(await createApiKey(storage, 'other', SCOPES, { owner: true })).key}` };
      assert.equal((await upload(app, other, petId, await image(4), 'image/png')).statusCode, 201);
      assert.equal((await app.inject({ method: 'GET', url: `/v1/pets/${petId}/photos`, headers: auth })).statusCode, 200);
      clock.set(new Date('2026-11-28T10:01:00Z'));
      assert.equal((await upload(app, auth, petId, await image(5), 'image/png')).statusCode, 201, 'a new minute, a new budget');
    });

    test('at most 10 photos per pet (409 too_many_photos); a removal makes room', async (t) => {
      const { app, auth } = await testApp(t);
      const petId = await newPet(app, auth);
      const ids: number[] = [];
      for (let i = 0; i < 10; i++) {
        const res = await upload(app, auth, petId, await solid('png', { width: 8, height: 8, colour: i * 997 }), 'image/png');
        assert.equal(res.statusCode, 201, res.body);
        ids.push(res.json().id);
      }
      const eleventh = await solid('png', { width: 8, height: 8, colour: 0xabcdef });
      assertError(await upload(app, auth, petId, eleventh, 'image/png'), 409, 'too_many_photos', /remove one first/);
      const pet = (await app.inject({ method: 'GET', url: `/v1/pets/${petId}`, headers: auth })).json();
      assert.equal(pet.photoUrls.length, 10);
      const listed = await photosOf(app, auth, petId);
      assert.deepEqual(
        listed.map((p) => p.id),
        ids,
        'oldest first',
      );
      assert.deepEqual(
        pet.photoUrls,
        listed.map((p) => p.url),
      );
      await app.inject({ method: 'DELETE', url: `/v1/pets/${petId}/photos/${ids[3]}`, headers: auth });
      assert.equal((await upload(app, auth, petId, eleventh, 'image/png')).statusCode, 201);
    });

    test("removal: 204, photoUrls drop it (and disappear with the last), 404 for another pet's or an unknown photo", async (t) => {
      const { app, auth } = await testApp(t);
      const [a, b] = [await newPet(app, auth, 'A'), await newPet(app, auth, 'B')];
      const photo = (await upload(app, auth, a, await solid('jpeg'))).json();
      assertError(await app.inject({ method: 'DELETE', url: `/v1/pets/${b}/photos/${photo.id}`, headers: auth }), 404, 'not_found');
      assertError(await app.inject({ method: 'DELETE', url: `/v1/pets/${a}/photos/${photo.id + 100}`, headers: auth }), 404, 'not_found');
      assert.equal((await app.inject({ method: 'DELETE', url: `/v1/pets/${a}/photos/${photo.id}`, headers: auth })).statusCode, 204);
      assertError(await app.inject({ method: 'DELETE', url: `/v1/pets/${a}/photos/${photo.id}`, headers: auth }), 404, 'not_found');
      const { createdAt, updatedAt, ...pet } = (await app.inject({ method: 'GET', url: `/v1/pets/${a}`, headers: auth })).json();
      assert.deepEqual(pet, { id: a, name: 'A', categoryId: 1, status: 'available', tags: [], ...NO_RECORD });
      assert.ok(updatedAt > createdAt, 'a change of photos moves updatedAt');
      assertError(await app.inject({ method: 'DELETE', url: `/v1/pets/${a}/photos/0`, headers: auth }), 400, 'validation_failed');
    });

    test('a withdrawn or unknown pet: 404 on upload and listing', async (t) => {
      const { app, auth } = await testApp(t);
      const petId = await newPet(app, auth);
      assert.equal((await app.inject({ method: 'DELETE', url: `/v1/pets/${petId}`, headers: auth })).statusCode, 204);
      assertError(await upload(app, auth, petId, await solid('jpeg')), 404, 'not_found');
      assertError(await app.inject({ method: 'GET', url: `/v1/pets/${petId}/photos`, headers: auth }), 404, 'not_found');
      assertError(await upload(app, auth, 999_999, await solid('jpeg')), 404, 'not_found');
    });

    test('adding and removing a photo each record pet.updated with the photoUrls', async (t) => {
      const { app, auth, storage } = await testApp(t);
      const petId = await newPet(app, auth);
      const photo = (await upload(app, auth, petId, await solid('jpeg'))).json();
      await upload(app, auth, petId, await solid('jpeg')); // the same image: no change, no event
      await app.inject({ method: 'DELETE', url: `/v1/pets/${petId}/photos/${photo.id}`, headers: auth });
      await feedSettled(storage);
      const events = (await app.inject({ method: 'GET', url: '/v1/events?type=pet.updated', headers: auth })).json();
      const pets = events.map((e: { data: { createdAt: string; updatedAt: string } }) => e.data);
      assert.deepEqual(
        pets.map(({ createdAt, updatedAt, ...rest }: { createdAt: string; updatedAt: string }) => rest),
        [
          { id: petId, name: 'Rex', categoryId: 1, status: 'available', tags: [], ...NO_RECORD, photoUrls: [photo.url] },
          { id: petId, name: 'Rex', categoryId: 1, status: 'available', tags: [], ...NO_RECORD },
        ],
      );
      assert.ok(pets[0].updatedAt > pets[0].createdAt && pets[1].updatedAt > pets[0].updatedAt, 'each change of photos moves updatedAt');
    });

    test('scopes: pets:write to add or remove, pets:read to list; photos themselves need no key', async (t) => {
      const { app, auth, storage } = await testApp(t);
      const petId = await newPet(app, auth);
      const reader = await keyWithScopes(storage, ['pets:read']);
      assertError(await upload(app, reader, petId, await solid('jpeg')), 403, 'insufficient_scope');
      assertError(await upload(app, {} as Auth, petId, await solid('jpeg')), 401, 'unauthorized');
      const photo = (await upload(app, auth, petId, await solid('jpeg'))).json();
      assert.equal((await photosOf(app, reader, petId)).length, 1);
      assertError(await app.inject({ method: 'DELETE', url: `/v1/pets/${petId}/photos/${photo.id}`, headers: reader }), 403, 'insufficient_scope');
      const writer = await keyWithScopes(storage, ['pets:write']);
      assertError(await app.inject({ method: 'GET', url: `/v1/pets/${petId}/photos`, headers: writer }), 403, 'insufficient_scope');
      const image = await app.inject({ method: 'GET', url: photo.url, headers: { authorization: 'Bearer nonsense' } });
      assert.equal(image.statusCode, 200, 'a key is not even looked at');
    });
  });
}

// Alone (no test beside it allocating), so that the process's memory tells what the refusal cost.
describe('a decompression bomb', () => {
  test('a 20,000 × 20,000 PNG bomb is refused with 413 without the process memory jumping', async (t) => {
    const { app, auth } = await buildTestApp(t);
    const petId = await newPet(app, auth);
    const bomb = pngBomb(20_000);
    assert.ok(bomb.length < 64 * 1024, `the bomb is small: ${bomb.length} bytes`);
    const before = process.memoryUsage().rss;
    const res = await upload(app, auth, petId, bomb, 'image/png');
    const grew = process.memoryUsage().rss - before;
    assertError(res, 413, 'image_too_large', /20,000 × 20,000 pixels; its longest side may be at most 10,000 pixels/);
    // Decoded it would be 400 MB of greyscale (1.6 GB as RGBA); refused by its header, it costs nothing.
    assert.ok(grew < 32 * 1024 * 1024, `RSS grew by ${(grew / 1048576).toFixed(1)} MiB`);
    assert.deepEqual(await photosOf(app, auth, petId), []);
  });
});

describe('an upload without a body, over a real connection', () => {
  test('is 400 invalid_image with Content-Length: 0, with no body at all, and with an image type but no bytes', async (t) => {
    const { app, auth, port } = await listening(t);
    const petId = await newPet(app, auth);
    const head = `POST /v1/pets/${petId}/photos HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${auth.authorization}\r\nConnection: close\r\n`;
    for (const headers of ['Content-Length: 0\r\n', '', 'Content-Type: image/png\r\nContent-Length: 0\r\n']) {
      const { data } = await exchange(port, `${head}${headers}\r\n`);
      assert.match(data, /^HTTP\/1\.1 400 /, `${JSON.stringify(headers)}: ${data.split('\r\n')[0]}`);
      assert.match(data.slice(data.indexOf('\r\n\r\n')), /"code":"invalid_image"/);
    }
    assert.deepEqual(await photosOf(app, auth, petId), []);
  });
});

describe('an interrupted upload', () => {
  test('leaves nothing behind: the connection drops half-way through the body', async (t) => {
    const { app, auth, port } = await listening(t);
    const petId = await newPet(app, auth);
    const image = await solid('png', { width: 200, height: 200, colour: 5 });
    const socket = connect(port, '127.0.0.1');
    await once(socket, 'connect');
    socket.write(
      `POST /v1/pets/${petId}/photos HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${auth.authorization}\r\nContent-Type: image/png\r\nContent-Length: ${image.length}\r\n\r\n`,
    );
    socket.write(image.subarray(0, image.length >> 1));
    const connections = () => new Promise<number>((resolve, reject) => app.server.getConnections((err, n) => (err ? reject(err) : resolve(n))));
    // Once the server holds the connection (and the first half), the client dies…
    while ((await connections()) === 0) await new Promise((r) => setTimeout(r, 5));
    socket.destroy();
    // …and once the server has seen it go, the request is over.
    while ((await connections()) > 0) await new Promise((r) => setTimeout(r, 5));
    assert.deepEqual(await photosOf(app, auth, petId), []);
    const pet = (await app.inject({ method: 'GET', url: `/v1/pets/${petId}`, headers: auth })).json();
    assert.equal(pet.photoUrls, undefined);
    // The pet still takes the whole image afterwards.
    const res = await upload(app, auth, petId, image, 'image/png');
    assert.equal(res.statusCode, 201, res.body);
  });
});
