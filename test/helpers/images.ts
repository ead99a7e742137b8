// Images made in the tests, never shipped as files: sharp draws the ordinary ones; the
// decompression bomb is written by hand, so that making it costs no more memory than refusing it.
import { deflateSync, crc32 } from 'node:zlib';
import sharp from 'sharp';

/** A solid image of one colour (distinct colours → distinct images). */
export function solid(format: 'jpeg' | 'png' | 'webp', { width = 64, height = 48, colour = 0 } = {}): Promise<Buffer> {
  const background = { r: colour & 0xff, g: (colour >> 8) & 0xff, b: (colour >> 16) & 0xff };
  return sharp({ create: { width, height, channels: 3, background } })
    [format]()
    .toBuffer();
}

/** An image of random pixels (it does not compress: as large as an ordinary photo of its size). */
export function noise(format: 'jpeg' | 'png' | 'webp', width: number, height: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 40 } } })
    [format]()
    .toBuffer();
}

/** A JPEG carrying EXIF with a GPS position (the Eiffel Tower) and a camera make. */
export function jpegWithGps(): Promise<Buffer> {
  return sharp({ create: { width: 400, height: 300, channels: 3, background: '#3a7' } })
    .jpeg()
    .withExif({
      IFD0: { Make: 'PetCam', Model: 'Secret Location 3000' },
      IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '48/1 51/1 2982/100', GPSLongitudeRef: 'E', GPSLongitude: '2/1 17/1 4012/100' },
    })
    .toBuffer();
}

const u24 = (n: number) => Buffer.from([n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff]);
function riffChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.write(type, 0, 'latin1');
  head.writeUInt32LE(data.length, 4);
  return Buffer.concat([head, data, data.length % 2 ? Buffer.alloc(1) : Buffer.alloc(0)]);
}

/**
 * An animated WebP of `frames` identical black frames of `size` × `size` pixels, assembled by hand
 * around one lossless frame sharp encodes once (encoding every frame would take sharp seconds):
 * 10 frames of 2000² are ≈ 1 KB — and 160 MB as RGBA.
 */
export async function webpBomb(frames: number, size: number): Promise<Buffer> {
  const one = await sharp({ create: { width: size, height: size, channels: 3, background: '#000' } })
    .webp({ lossless: true, effort: 0 })
    .toBuffer();
  // The frame's bitstream chunk: the first after 'RIFF' <size> 'WEBP'.
  const bitstream = one.subarray(12, 12 + 8 + one.readUInt32LE(16));
  const vp8x = Buffer.alloc(10);
  vp8x[0] = 0x02; // animation
  u24(size - 1).copy(vp8x, 4);
  u24(size - 1).copy(vp8x, 7);
  const anim = Buffer.alloc(6); // background colour 0, loop forever
  const anmf = (i: number) => riffChunk('ANMF', Buffer.concat([u24(0), u24(0), u24(size - 1), u24(size - 1), u24(100 + i), Buffer.from([0]), bitstream]));
  const body = Buffer.concat([
    Buffer.from('WEBP', 'latin1'),
    riffChunk('VP8X', vp8x),
    riffChunk('ANIM', anim),
    ...Array.from({ length: frames }, (_, i) => anmf(i)),
  ]);
  const riff = Buffer.alloc(8);
  riff.write('RIFF', 0, 'latin1');
  riff.writeUInt32LE(body.length, 4);
  return Buffer.concat([riff, body]);
}

/** An animated WebP of `frames` frames of `size` × `size` pixels. */
export async function animatedWebp(frames: number, size = 8): Promise<Buffer> {
  const one = (i: number) =>
    sharp({ create: { width: size, height: size, channels: 3, background: { r: (i * 7) & 0xff, g: 0, b: 0 } } })
      .png({ compressionLevel: 1 })
      .toBuffer();
  return sharp(await Promise.all(Array.from({ length: frames }, (_, i) => one(i))), { join: { animated: true } })
    .webp()
    .toBuffer();
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/**
 * A complete, valid PNG of `size` × `size` black pixels at one bit per pixel: 20,000² pixels are
 * 50 MB of filtered scanlines, ≈ 50 KB deflated — and 1.6 GB as the RGBA a naive decoder makes.
 */
export function pngBomb(size = 20_000): Buffer {
  return greyPng(size, size, 1);
}

/**
 * A complete, valid greyscale PNG of `width` × `height` black pixels at `bitDepth` bits per pixel,
 * written by hand (sharp would decode what it makes): 39,000,000 × 1 at 8 bits is ≈ 38 KB.
 */
export function greyPng(width: number, height: number, bitDepth: 1 | 8 = 8): Buffer {
  return blankPng(width, height, bitDepth, 0);
}

/** The same, transparent RGBA at 16 bits per sample: 8 bytes a pixel once decoded. */
export function rgba16Png(width: number, height: number): Buffer {
  return blankPng(width, height, 16, 6);
}

function blankPng(width: number, height: number, bitDepth: 1 | 8 | 16, colourType: 0 | 6): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = bitDepth;
  ihdr[9] = colourType;
  const samples = colourType === 6 ? 4 : 1;
  const row = Math.ceil((width * samples * bitDepth) / 8) + 1; // filter byte + packed samples, all zero
  const idat = deflateSync(Buffer.alloc(row * height), { level: 9 });
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', idat),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
