import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncTypebox, TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { AppError } from '../errors.ts';
import { bodyErrors, commonErrors, errorResponse, prose, IfNoneMatchHeaders, invalidIds, MALFORMED, notModified, UNEXPECTED_BODY } from '../schemas.ts';
import { ifNoneMatchPasses, parseCondition } from '../preconditions.ts';
import { PetIdParams } from '../pets/pet.schemas.ts';
import {
  PetPhotoParams,
  Photo,
  ANIMATION_DISPLAY_SIZE,
  ANIMATION_MAX_PIXELS,
  PHOTO_MAX_ASPECT,
  PHOTO_MAX_FRAMES,
  PHOTO_MAX_SIDE,
  PNG_MAX_DECODED_BYTES,
  PHOTO_MEDIA_TYPES,
  PhotoHashParams,
  Photos,
  PHOTOS_PER_PET,
  THUMBNAIL_MEDIA_TYPE,
  type PhotoVariant,
} from './photo.schemas.ts';
import type { PhotoService } from './photo.service.ts';
import { imageWorkBudget } from '../http/policies/auth.ts';
import type { FixedWindowLimiter } from '../http/policies/rate-limit.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Serves immutable bytes named by their SHA-256 (the OpenAPI document states their caching). */
    immutable?: boolean;
  }
}

export interface PhotoRoutesOptions {
  readonly photos: PhotoService;
  /** PHOTO_BUDGET_MS_PER_MINUTE's limiter (absent when 0): image work per key tree. */
  readonly imageWork?: FixedWindowLimiter;
  /** PHOTO_MAX_BYTES: the body limit of an upload (the API's BODY_LIMIT_BYTES elsewhere). */
  readonly maxBytes: number;
  readonly maxPixels: number;
}

/** A year, the longest RFC 9111 lets a response stay fresh: a photo's URL names its bytes, which never change. */
export const PHOTO_CACHE_CONTROL = 'public, max-age=31536000, immutable';

const mediaTypeOf = (header: string | undefined) => header?.split(';')[0].trim().toLowerCase() ?? '';

/**
 * The upload's body parser, for the routes of the scope it is registered in: any Content-Type
 * reaches it (so a wrong one gets this operation's 415, not the JSON one), the bytes are kept
 * whole, up to PHOTO_MAX_BYTES. The declared type must be one of the image types; what the body
 * really is, is decided from its bytes later (photo.image.ts).
 */
function registerImageParser(scope: FastifyInstance, maxBytes: number): void {
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: maxBytes }, (request, body, done) => {
    if (!(PHOTO_MEDIA_TYPES as readonly string[]).includes(mediaTypeOf(request.headers['content-type']))) {
      done(new AppError('unsupported_media_type', `send the photo as the body with Content-Type ${PHOTO_MEDIA_TYPES.join(', ')}`), undefined);
      return;
    }
    done(null, body);
  });
}

const binary = (mediaTypes: readonly string[], description: string) => ({
  description,
  content: Object.fromEntries(mediaTypes.map((type) => [type, { schema: { type: 'string', contentMediaType: type } }])),
});

export const photoRoutes: FastifyPluginAsyncTypebox<PhotoRoutesOptions> = async (app, { photos, imageWork, maxBytes, maxPixels }) => {
  const limits = `at most ${maxBytes.toLocaleString('en')} bytes (\`PHOTO_MAX_BYTES\`), ${maxPixels.toLocaleString('en')} pixels (\`PHOTO_MAX_PIXELS\`, every frame of an animation counted), ${PHOTO_MAX_SIDE.toLocaleString('en')} px on its longest side, that side at most ${PHOTO_MAX_ASPECT} times the shortest, a PNG decoding to at most ${PNG_MAX_DECODED_BYTES / 1e6} MB, an animation at most ${PHOTO_MAX_FRAMES} frames and ${ANIMATION_MAX_PIXELS.toLocaleString('en')} pixels over all its frames`;

  await app.register(async (scope) => {
    registerImageParser(scope, maxBytes);
    scope.withTypeProvider<TypeBoxTypeProvider>().post(
      '/pets/:petId/photos',
      {
        config: { scope: 'pets:write' },
        bodyLimit: maxBytes,
        schema: {
          operationId: 'addPetPhoto',
          tags: ['Pets'],
          summary: 'Add a photo of an animal',
          description: `The image is the body: JPEG, PNG or WebP, ${limits}. Its type is decided from its bytes, never from \`Content-Type\` (a PNG sent as \`image/jpeg\` is stored as PNG; anything else — HTML, SVG, GIF — is refused with 415). It is decoded and re-encoded: every piece of metadata (EXIF with GPS positions, XMP, IPTC) is dropped, the EXIF orientation applied, the display image made at most 1,600 px on its longest side (an animation's ${ANIMATION_DISPLAY_SIZE} px), and a WebP thumbnail of at most 320 px. Both are then served publicly under the SHA-256 of the display image (\`GET /photos/{hash}\`). An animal has at most ${PHOTOS_PER_PET} photos. Sending the same image again changes nothing and answers 200 with the photo it already is (a retry is safe without \`Idempotency-Key\`). Adding a photo changes the animal's \`photoUrls\` and records \`pet.updated\`. Each instance decodes at most \`PHOTO_CONCURRENCY\` uploads at once; one more is answered 503 with \`Retry-After\`. The time each upload's image work takes is charged to the key's tree: past \`PHOTO_BUDGET_MS_PER_MINUTE\` milliseconds in a minute, uploads are answered 429 with \`Retry-After\` until the minute ends.`,
          consumes: [...PHOTO_MEDIA_TYPES],
          params: PetIdParams,
          body: {
            content: Object.fromEntries(PHOTO_MEDIA_TYPES.map((type) => [type, { schema: { description: `The image (${limits})`, contentMediaType: type } }])),
          },
          response: {
            200: { ...Photo, description: 'The animal already has this image: nothing changed' },
            201: { ...Photo, description: "Photo added; `Location` names it among the animal's photos" },
            400: errorResponse`${invalidIds(['petId'])} (${'validation_failed'}); an empty or missing body, or an image that does not decode — truncated or corrupt (${'invalid_image'}); ${MALFORMED}`,
            404: errorResponse`No animal with this id, or it was withdrawn (${'not_found'})`,
            409: errorResponse`The animal has ${prose(String(PHOTOS_PER_PET))} photos already (${'too_many_photos'})`,
            413: errorResponse`The body is larger than \`PHOTO_MAX_BYTES\` (${'payload_too_large'}); the image is over its budget by its header, before anything is decoded: more than \`PHOTO_MAX_PIXELS\` pixels (every frame counted), a side longer than ${prose(PHOTO_MAX_SIDE.toLocaleString('en'))} px or more than ${prose(String(PHOTO_MAX_ASPECT))} times the other, a PNG decoding to more than ${prose(String(PNG_MAX_DECODED_BYTES / 1e6))} MB, more than ${prose(String(PHOTO_MAX_FRAMES))} frames or ${prose(ANIMATION_MAX_PIXELS.toLocaleString('en'))} pixels over all frames (${'image_too_large'})`,
            415: errorResponse`\`Content-Type\` is not ${prose(PHOTO_MEDIA_TYPES.join(', '))}, or the body is not a JPEG, PNG or WebP image whatever it says (${'unsupported_media_type'})`,
            ...commonErrors,
            429: errorResponse`Too many requests for this key, too many failed authentications from this address, or this key's tree used its \`PHOTO_BUDGET_MS_PER_MINUTE\` of image work this minute (${'rate_limited'}); retry after \`Retry-After\``,
            503: errorResponse`\`PHOTO_CONCURRENCY\` uploads are being decoded already, the database is unreachable, or the service is shutting down (${'service_unavailable'}); retry after \`Retry-After\``,
          },
        },
      },
      async (request, reply) => {
        // Fastify runs no parser for a POST without Content-Type and without a body: the body is
        // then undefined, and the service refuses it as the empty body it is.
        const { photo, created } = await photos.add(request.params.petId, request.body as Buffer | undefined, imageWorkBudget(imageWork, request.principal!));
        if (created) reply.code(201).header('location', `${request.url.split('?')[0]}/${photo.id}`);
        return photo;
      },
    );
  });

  app.get(
    '/pets/:petId/photos',
    {
      config: { scope: 'pets:read' },
      schema: {
        operationId: 'listPetPhotos',
        tags: ['Pets'],
        summary: "List an animal's photos",
        description: `The animal's photos, oldest first (at most ${PHOTOS_PER_PET}, so never paged).`,
        params: PetIdParams,
        response: {
          200: { ...Photos, description: "The animal's photos" },
          400: errorResponse`${invalidIds(['petId'])} (${'validation_failed'}); ${MALFORMED}`,
          404: errorResponse`No animal with this id, or it was withdrawn (${'not_found'})`,
          ...commonErrors,
        },
      },
    },
    async (request) => photos.list(request.params.petId),
  );

  app.delete(
    '/pets/:petId/photos/:photoId',
    {
      config: { scope: 'pets:write' },
      schema: {
        operationId: 'deletePetPhoto',
        tags: ['Pets'],
        summary: 'Remove a photo of an animal',
        description:
          "Removes the photo from the animal (its `photoUrls` changes; `pet.updated` is recorded). The image's bytes are deleted in the same transaction once no animal shows it; a cache may still hold a copy of its public URL.",
        params: PetPhotoParams,
        response: {
          204: { type: 'null', description: 'Removed; no body' },
          400: errorResponse`${invalidIds(['petId', 'photoId'])} (${'validation_failed'}); ${UNEXPECTED_BODY}; ${MALFORMED}`,
          404: errorResponse`No animal with this id, it was withdrawn, or it has no photo with this id (${'not_found'})`,
          ...bodyErrors,
          ...commonErrors,
        },
      },
    },
    async (request, reply) => {
      await photos.remove(request.params.petId, request.params.photoId);
      return reply.code(204).send(null);
    },
  );

  // The images themselves are public: photos of a public catalogue, named by unguessable hashes
  // that only an animal's photoUrls reveal (docs/api.md, "Photos"); no key, so any <img> shows them.
  const serve = (variant: PhotoVariant) => async (request: FastifyRequest<{ Params: PhotoHashParams }>, reply: FastifyReply) => {
    const blob = await photos.blob(request.params.hash, variant);
    // The hash names the display image; the thumbnail's tag is derived from it, strong as well.
    const tag = variant === 'image' ? `"${request.params.hash}"` : `"${request.params.hash}-thumb"`;
    reply.header('etag', tag).header('cache-control', PHOTO_CACHE_CONTROL).header('content-security-policy', "default-src 'none'; sandbox");
    const condition = parseCondition(request.headers['if-none-match'], 'If-None-Match');
    if (condition !== undefined && !ifNoneMatchPasses(condition, tag)) return reply.code(304).send();
    return reply.type(blob.mediaType).send(blob.bytes);
  };
  for (const [path, variant, operationId, summary, types] of [
    ['/photos/:hash', 'image', 'getPhoto', 'Get a photo (display size)', PHOTO_MEDIA_TYPES],
    ['/photos/:hash/thumb', 'thumbnail', 'getPhotoThumbnail', 'Get the thumbnail of a photo', [THUMBNAIL_MEDIA_TYPE]],
  ] as const) {
    app.get(
      path,
      {
        config: { public: true, immutable: true },
        // A refusal (404 for a hash not stored yet, 400) must not be kept by a cache: a success replaces this.
        onRequest: (_request, reply, done) => {
          reply.header('cache-control', 'no-store');
          done();
        },
        schema: {
          operationId,
          tags: ['Pets'],
          summary,
          description: `Public: no API key. The bytes never change (the URL names them by the SHA-256 of the display image), so the response may be cached for a year by anyone (\`Cache-Control: ${PHOTO_CACHE_CONTROL}\`); its strong \`ETag\` answers \`If-None-Match\` with 304. ${variant === 'image' ? 'The display image keeps the type the upload really was (JPEG, PNG or WebP), at most 1,600 px on its longest side.' : 'Always WebP, at most 320 px on its longest side; of an animation, the first frame.'} 404 once no animal shows the photo.`,
          security: [],
          headers: IfNoneMatchHeaders,
          params: PhotoHashParams,
          response: {
            200: binary(types, variant === 'image' ? 'The display image' : 'The thumbnail'),
            304: notModified,
            400: errorResponse`\`hash\` is not 64 lower-case hex digits (${'validation_failed'}); a malformed \`If-None-Match\` (${'validation_failed'}); ${MALFORMED}`,
            404: errorResponse`No photo with this hash (${'not_found'})`,
            408: commonErrors[408],
            431: commonErrors[431],
            500: commonErrors[500],
            503: commonErrors[503],
            505: commonErrors[505],
          },
        },
      },
      serve(variant),
    );
  }
};
