import { Type, type Static } from 'typebox';
import { Id, Timestamp } from '../schemas.ts';

/** What an upload may be, decided from its bytes (photo.image.ts); the display image keeps its type. */
export const PHOTO_MEDIA_TYPES = ['image/jpeg', 'image/png', 'image/webp'] as const;
export type PhotoMediaType = (typeof PHOTO_MEDIA_TYPES)[number];
/** The thumbnail is always WebP. */
export const THUMBNAIL_MEDIA_TYPE = 'image/webp';

/** At most this many photos per animal. */
export const PHOTOS_PER_PET = 10;
/** The longest side of the display image and of the thumbnail, in pixels. */
export const DISPLAY_SIZE = 1600;
export const THUMBNAIL_SIZE = 320;
/**
 * The longest side of an animation's display image: every frame of an animation is held until the
 * animation is encoded, so at 1,600 px two frames cost 100 MB (bench/photo-budget.ts).
 */
export const ANIMATION_DISPLAY_SIZE = 800;
/** An animated image may have at most this many frames. */
export const PHOTO_MAX_FRAMES = 100;
/**
 * The budget of one upload, read from its header before anything is decoded (docs/api.md,
 * "Photos"; bench/photo-budget.ts measures it): the longest side, the ratio of the longest side to
 * the shortest (a 1 × 39,000,000 PNG costs its decoder per row), and the pixels of an animation
 * over all its frames — each frame is decoded at full size and kept until the animation is
 * encoded, so an animation costs far more per pixel than a still image, which is decoded row by
 * row.
 */
export const PHOTO_MAX_SIDE = 10_000;
export const PHOTO_MAX_ASPECT = 20;
export const ANIMATION_MAX_PIXELS = 10_000_000;
/**
 * What a PNG may decode to (pixels × channels × bytes per sample): libvips cannot shrink a PNG
 * while loading it (it does a JPEG and a WebP), so its cost follows its samples — 21 million RGB
 * pixels, or 8 million at 16 bits with alpha.
 */
export const PNG_MAX_DECODED_BYTES = 64_000_000;

export const HASH_PATTERN = '^[0-9a-f]{64}$';

/**
 * Where a photo is served: an absolute-path reference on this service, the same for every pet
 * that shows it (docs/api.md, "Photos"). The display image is named by the SHA-256 of its bytes.
 */
export const photoPath = (hash: string): string => `/v1/photos/${hash}`;
export const thumbnailPath = (hash: string): string => `/v1/photos/${hash}/thumb`;

const hash = Type.String({
  pattern: HASH_PATTERN,
  description: 'SHA-256 of the display image (lower-case hex): its name, its strong ETag, the same for every animal that shows it',
  examples: ['9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08'],
});

export const Photo = Type.Object(
  {
    id: { ...Id('Identifier of this photo of the animal; used to remove it'), examples: [1] },
    petId: { ...Id('The animal the photo shows'), examples: [1] },
    hash,
    url: Type.String({
      format: 'uri-reference',
      description: 'The display image (at most 1,600 px on its longest side), public and immutable',
      examples: ['/v1/photos/9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08'],
    }),
    thumbnailUrl: Type.String({
      format: 'uri-reference',
      description: 'The thumbnail (WebP, at most 320 px on its longest side), public and immutable',
      examples: ['/v1/photos/9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08/thumb'],
    }),
    mediaType: Type.Unsafe<PhotoMediaType>({
      type: 'string',
      enum: [...PHOTO_MEDIA_TYPES],
      description: 'Media type of the display image: the type the upload really was, whatever its Content-Type said',
    }),
    width: Type.Integer({ minimum: 1, description: 'Width of the display image in pixels', examples: [1600] }),
    height: Type.Integer({ minimum: 1, description: 'Height of the display image in pixels', examples: [1200] }),
    bytes: Type.Integer({ minimum: 1, description: 'Size of the display image in bytes', examples: [183204] }),
    createdAt: Timestamp('When the photo was added to the animal'),
  },
  {
    $id: 'Photo',
    additionalProperties: false,
    description: 'A photo of an animal, as stored: decoded, stripped of metadata and re-encoded',
    examples: [
      {
        id: 1,
        petId: 1,
        hash: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
        url: '/v1/photos/9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
        thumbnailUrl: '/v1/photos/9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08/thumb',
        mediaType: 'image/jpeg',
        width: 1600,
        height: 1200,
        bytes: 183204,
        createdAt: '2026-11-22T12:00:00.000Z',
      },
    ],
  },
);
export type Photo = Static<typeof Photo>;

export const Photos = Type.Array(Type.Unsafe<Photo>({ $ref: 'Photo#' }), {
  $id: 'Photos',
  maxItems: PHOTOS_PER_PET,
  description: "The animal's photos, oldest first (at most 10)",
});

export const PetPhotoParams = Type.Object(
  { petId: Id('The identifier of the animal'), photoId: Id('The identifier of the photo (`id` of a Photo)') },
  { additionalProperties: false },
);
export type PetPhotoParams = Static<typeof PetPhotoParams>;

export const PhotoHashParams = Type.Object({ hash }, { additionalProperties: false });
export type PhotoHashParams = Static<typeof PhotoHashParams>;

/** A photo as processed, before it is stored: the display image and its thumbnail. */
export interface ProcessedPhoto {
  readonly hash: string;
  readonly mediaType: PhotoMediaType;
  readonly width: number;
  readonly height: number;
  readonly image: Buffer;
  readonly thumbnail: Buffer;
}

/** Stored bytes of one photo variant, as served. */
export interface PhotoBlob {
  readonly mediaType: string;
  readonly bytes: Buffer;
}
export type PhotoVariant = 'image' | 'thumbnail';
