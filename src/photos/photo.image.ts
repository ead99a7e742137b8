// The one way an upload becomes a stored photo: its type decided from its bytes, its size checked
// from its header before anything is decoded, then decoded and re-encoded by sharp (libvips), which
// writes no metadata (EXIF with its GPS position, XMP, IPTC, ICC) into what it makes.
import { createHash } from 'node:crypto';
import type { Metadata, Sharp, SharpOptions } from 'sharp';
import { AppError } from '../errors.ts';
import {
  ANIMATION_DISPLAY_SIZE,
  ANIMATION_MAX_PIXELS,
  DISPLAY_SIZE,
  PHOTO_MAX_ASPECT,
  PHOTO_MAX_FRAMES,
  PHOTO_MAX_SIDE,
  PNG_MAX_DECODED_BYTES,
  THUMBNAIL_SIZE,
  type PhotoMediaType,
  type ProcessedPhoto,
} from './photo.schemas.ts';

type SharpFactory = (input: Buffer, options?: SharpOptions) => Sharp;
let loaded: Promise<SharpFactory> | undefined;

/**
 * sharp, loaded with the first upload: libvips adds tens of MiB to the process, which an instance
 * that only serves (photos included: they are stored bytes) never needs.
 */
function sharpLib(): Promise<SharpFactory> {
  loaded ??= import('sharp').then(({ default: sharp }) => {
    // Decoded images are not kept between uploads (libvips' operation cache would hold their pixels).
    sharp.cache(false);
    return sharp;
  });
  return loaded;
}

export interface PhotoLimits {
  /** Pixels of the image, every frame of an animation counted (PHOTO_MAX_PIXELS): the decompression-bomb limit. */
  readonly maxPixels: number;
}

const JPEG = [0xff, 0xd8, 0xff];
const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const startsWith = (bytes: Uint8Array, magic: readonly number[], at = 0) => magic.every((b, i) => bytes[at + i] === b);
const ascii = (bytes: Uint8Array, from: number, to: number) => String.fromCharCode(...bytes.subarray(from, to));

/** The type the bytes are, by their signature; undefined for anything else (HTML, SVG, GIF, …), whatever a header claims. */
export function sniffPhotoType(bytes: Uint8Array): PhotoMediaType | undefined {
  if (startsWith(bytes, JPEG)) return 'image/jpeg';
  if (startsWith(bytes, PNG)) return 'image/png';
  if (bytes.length >= 12 && ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 12) === 'WEBP') return 'image/webp';
  return undefined;
}

const FORMATS: Record<PhotoMediaType, string> = { 'image/jpeg': 'jpeg', 'image/png': 'png', 'image/webp': 'webp' };

export const notAnImage = () =>
  new AppError('unsupported_media_type', 'the body is not a JPEG, PNG or WebP image (the type is decided from its bytes, not from Content-Type)');
export const unreadable = (why: string) => new AppError('invalid_image', `the image cannot be decoded: ${why}`);
export const tooManyPixels = (what: string, max: number) =>
  new AppError('image_too_large', `the image has ${what}; at most ${max.toLocaleString('en')} pixels are accepted`);

/**
 * Decides, decodes and re-encodes one upload: the display image (same type, at most DISPLAY_SIZE
 * px on its longest side, oriented as its EXIF said, no metadata) and a WebP thumbnail. Refuses
 * what is not a JPEG, PNG or WebP (415 `unsupported_media_type`), an image larger than the limits
 * by its header alone — before a pixel is decoded (413 `image_too_large`) — and one that does not
 * decode (400 `invalid_image`: truncated, corrupt).
 */
export async function processPhoto(bytes: Buffer | undefined, limits: PhotoLimits): Promise<ProcessedPhoto> {
  if (bytes === undefined || bytes.length === 0) throw new AppError('invalid_image', 'the request has no body; send the image as the body');
  const mediaType = sniffPhotoType(bytes);
  if (mediaType === undefined) throw notAnImage();

  const sharp = await sharpLib();
  // The header only: dimensions and frame count, nothing decoded yet.
  let meta: Metadata;
  try {
    meta = await sharp(bytes, { limitInputPixels: false }).metadata();
  } catch (err) {
    throw unreadable(reason(err));
  }
  if (meta.format !== FORMATS[mediaType]) throw notAnImage();
  const frames = meta.pages ?? 1;
  const width = meta.width ?? 0;
  const height = meta.pageHeight ?? meta.height ?? 0;
  assertWithinBudget(width, height, frames, limits);
  if (mediaType === 'image/png') assertPngWithinBudget(width * height * (meta.channels ?? 4) * (BYTES_PER_SAMPLE[meta.depth ?? ''] ?? 4));

  const animated = frames > 1;
  try {
    // failOn 'warning': a truncated or damaged image is refused, not stored half-grey.
    const input = sharp(bytes, { limitInputPixels: limits.maxPixels, failOn: 'warning', animated, sequentialRead: true });
    const size = animated ? ANIMATION_DISPLAY_SIZE : DISPLAY_SIZE;
    const resized = (animated ? input : input.autoOrient()).resize({ width: size, height: size, fit: 'inside', withoutEnlargement: true });
    const encoded = mediaType === 'image/jpeg' ? resized.jpeg({ quality: 85 }) : mediaType === 'image/png' ? resized.png() : resized.webp({ quality: 85 });
    const { data: image, info } = await encoded.toBuffer({ resolveWithObject: true });
    // From the display image (already small): its first frame, at most THUMBNAIL_SIZE px.
    const thumbnail = await sharp(image)
      .resize({ width: THUMBNAIL_SIZE, height: THUMBNAIL_SIZE, fit: 'inside', withoutEnlargement: true })
      .webp({ quality: 75 })
      .toBuffer();
    return {
      hash: createHash('sha256').update(image).digest('hex'),
      mediaType,
      width: info.width,
      height: info.pageHeight ?? info.height,
      image,
      thumbnail,
    };
  } catch (err) {
    throw unreadable(reason(err));
  }
}

const tooLarge = (message: string) => new AppError('image_too_large', message);

/**
 * Refuses (413 image_too_large), from the header's figures alone, an image whose decoding would
 * cost more than one upload may: more than PHOTO_MAX_FRAMES frames, a side longer than
 * PHOTO_MAX_SIDE, a longest side more than PHOTO_MAX_ASPECT times the shortest, a frame of more
 * than `maxPixels` pixels, an animation of more than `maxPixels` or ANIMATION_MAX_PIXELS (the
 * smaller) over all its frames.
 */
export function assertWithinBudget(width: number, height: number, frames: number, limits: PhotoLimits): void {
  const size = `${width.toLocaleString('en')} × ${height.toLocaleString('en')} pixels`;
  if (frames > PHOTO_MAX_FRAMES) throw tooLarge(`the image has ${frames} frames; at most ${PHOTO_MAX_FRAMES} are accepted`);
  const longest = Math.max(width, height);
  if (longest > PHOTO_MAX_SIDE) throw tooLarge(`the image is ${size}; its longest side may be at most ${PHOTO_MAX_SIDE.toLocaleString('en')} pixels`);
  if (longest > PHOTO_MAX_ASPECT * Math.max(1, Math.min(width, height)))
    throw tooLarge(`the image is ${size}; its longest side may be at most ${PHOTO_MAX_ASPECT} times its shortest`);
  if (width * height > limits.maxPixels) throw tooManyPixels(size, limits.maxPixels);
  const maxTotal = Math.min(limits.maxPixels, ANIMATION_MAX_PIXELS);
  if (frames > 1 && width * height * frames > maxTotal) throw tooManyPixels(`${frames} frames of ${size}`, maxTotal);
}

const BYTES_PER_SAMPLE: Record<string, number> = { uchar: 1, char: 1, ushort: 2, short: 2 };

/** 413 for a PNG that would decode to more than PNG_MAX_DECODED_BYTES. */
function assertPngWithinBudget(decodedBytes: number): void {
  if (decodedBytes <= PNG_MAX_DECODED_BYTES) return;
  throw tooLarge(
    `the PNG decodes to ${Math.round(decodedBytes / 1e6).toLocaleString('en')} MB (pixels × channels × bytes per sample); at most ${PNG_MAX_DECODED_BYTES / 1e6} MB are accepted`,
  );
}

/** libvips' first line, without the paths and internals of the rest. */
function reason(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return (
    text
      .split('\n')[0]
      .replace(/^[a-z]+load(_buffer)?: /i, '')
      .slice(0, 200) || 'unknown error'
  );
}
