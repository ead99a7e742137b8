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

/** An animated WebP of `frames` frames. */
export async function animatedWebp(frames: number, size = 8): Promise<Buffer> {
  const one = (i: number) =>
    sharp({ create: { width: size, height: size, channels: 3, background: { r: (i * 7) & 0xff, g: 0, b: 0 } } })
      .png()
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
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 1; // bit depth
  ihdr[9] = 0; // greyscale
  const row = Math.ceil(size / 8) + 1; // filter byte + packed bits, all zero
  const idat = deflateSync(Buffer.alloc(row * size), { level: 9 });
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', idat),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
